"""Throughput of Unbroken at every layer, with Gymnasium's CartPole-v1 as the
reference for Python API overhead, measured in the same run.

Run: ``dungeonrl bench unbroken`` (or ``python -m dungeonrl.benchmarks.unbroken_bench``);
``--quick`` for a short look, ``--json PATH`` to keep the figures.

What is measured (JIT compilation excluded, medians over ``--repeats``):

* ``kernel``: uniform random legal play inside numba, observation and mask
  written every step, finished games reset in the kernel; one thread, and
  all cores (one thread per core on its own slice of envs; the kernels
  release the GIL);
* ``vector``: ``DungeonVectorEnv`` at 4,096 envs, actions passed from numpy
  (sampled from the returned masks by a small numba helper, included in the
  time);
* ``single``: ``gymnasium.make("dungeonrl/Unbroken-v0")`` ``step`` with random
  legal actions, against ``gymnasium.make("CartPole-v1")`` ``step``;
* ``start``: time to the first step in a fresh process, cold (empty numba
  cache) and warm (cache filled by the cold run).

Every sampled action is legal; the run fails if an illegal action is seen.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..envs.core.jit import JIT
from ..envs.core.rng import rng_choice_mask, rng_seed


@njit(**JIT)
def sample_from_masks(prng, masks, out):
    """One uniformly random legal action per row of ``masks``."""
    for i in range(masks.shape[0]):
        out[i] = rng_choice_mask(prng, masks[i])


def _median_rate(fn, repeats):
    rates = [fn() for _ in range(repeats)]
    return float(statistics.median(rates)), [float(r) for r in rates]


def bench_kernel(core, n_envs, n_steps, repeats, threads=1):
    from ..envs.unbroken import kernels as batch
    from ..encoders.unbroken import OBS_SIZE
    from ..envs.unbroken.consts import NUM_ACTIONS

    per = n_envs // threads
    slices = []
    for t in range(threads):
        st = core.alloc(per)
        core.reset(st, np.arange(t * per, (t + 1) * per, dtype=np.uint64))
        slices.append((st, np.zeros((per, OBS_SIZE), np.float32),
                       np.zeros((per, NUM_ACTIONS), np.int8), np.zeros(4, np.int64)))
    # warm-up (compile or load from cache)
    batch.random_rollout(slices[0][0][:2].copy(), core.TR, 2, np.uint64(0),
                         slices[0][1][:2], slices[0][2][:2], np.zeros(4, np.int64))

    def run_one(t):
        st, obs, masks, stats = slices[t]
        batch.random_rollout(st, core.TR, n_steps, np.uint64(t), obs, masks, stats)

    def once():
        for s in slices:
            s[3][:] = 0
        t0 = time.perf_counter()
        if threads == 1:
            run_one(0)
        else:
            with ThreadPoolExecutor(threads) as ex:
                list(ex.map(run_one, range(threads)))
        dt = time.perf_counter() - t0
        total = sum(int(s[3][0]) for s in slices)
        if any(int(s[3][3]) for s in slices):
            raise RuntimeError("benchmark sampled an illegal action")
        return total / dt

    return _median_rate(once, repeats)


def bench_vector(num_envs, n_steps, repeats, **core_kwargs):
    from ..envs.core.vector import DungeonVectorEnv

    env = DungeonVectorEnv("unbroken", num_envs=num_envs, episode_info=False, **core_kwargs)
    env.reset(seed=0)
    prng = np.zeros(2, np.uint64)
    rng_seed(prng, 1, 0)
    actions = np.zeros(num_envs, np.int64)
    masks = env._run.buf.masks

    def once():
        t0 = time.perf_counter()
        for _ in range(n_steps):
            sample_from_masks(prng, masks, actions)
            _, _, _, _, info = env.step(actions)
            if info["illegal_action"].any():
                raise RuntimeError("benchmark sampled an illegal action")
        return n_steps * num_envs / (time.perf_counter() - t0)

    once()  # warm-up
    return _median_rate(once, repeats)


def bench_single(env_id, n_steps, repeats, masked):
    import gymnasium as gym
    import dungeonrl  # noqa: F401  (registers the envs)

    env = gym.make(env_id)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    n_act = env.action_space.n
    pre = rng.integers(0, n_act, size=n_steps)

    def once():
        nonlocal info
        t0 = time.perf_counter()
        for k in range(n_steps):
            if masked:
                legal = np.flatnonzero(info["action_mask"])
                a = int(legal[pre[k] % len(legal)])
            else:
                a = int(pre[k])
            _, _, term, trunc, info = env.step(a)
            if masked and info.get("illegal_action"):
                raise RuntimeError("benchmark sampled an illegal action")
            if term or trunc:
                _, info = env.reset()
        return n_steps / (time.perf_counter() - t0)

    once()
    return _median_rate(once, repeats)


_START_SCRIPT = """
import time
t0 = time.perf_counter()
import gymnasium as gym
import dungeonrl
env = gym.make("dungeonrl/Unbroken-v0")
obs, info = env.reset(seed=0)
import numpy as np
a = int(np.flatnonzero(info["action_mask"])[0])
env.step(a)
print(time.perf_counter() - t0)
"""


def bench_start():
    """(cold, warm) seconds to the first step in a fresh process."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        out = []
        for _ in range(2):
            r = subprocess.run([sys.executable, "-c", _START_SCRIPT], env=env,
                               capture_output=True, text=True, check=True)
            out.append(float(r.stdout.strip().splitlines()[-1]))
        return out[0], out[1]


def machine_info():
    import gymnasium
    import numba
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__,
            "gymnasium": gymnasium.__version__, "platform": platform.platform()}


def run(quick=False, repeats=None, start=True):
    from ..envs.unbroken import UnbrokenCore

    repeats = repeats or (3 if quick else 5)
    core = UnbrokenCore(character="random")
    n_envs, n_steps = (1024, 200) if quick else (4096, 500)
    res = {"machine": machine_info(), "repeats": repeats, "figures": {}}
    fig = res["figures"]
    fig["kernel_1thread"] = bench_kernel(core, n_envs, n_steps, repeats, threads=1)
    threads = max(1, os.cpu_count() or 1)
    fig[f"kernel_{threads}threads"] = bench_kernel(core, n_envs, n_steps, repeats, threads=threads)
    fig["vector_4096"] = bench_vector(4096, 20 if quick else 100, repeats, character="random")
    fig["single_unbroken"] = bench_single("dungeonrl/Unbroken-v0", 2000 if quick else 20000,
                                          repeats, masked=True)
    fig["single_cartpole"] = bench_single("CartPole-v1", 2000 if quick else 20000, repeats,
                                          masked=False)
    if start:
        cold, warm = bench_start()
        fig["start_cold_s"] = cold
        fig["start_warm_s"] = warm
    fig["ratio_single_vs_cartpole"] = fig["single_unbroken"][0] / fig["single_cartpole"][0]
    fig["state_bytes"] = int(core.state_dtype.itemsize)
    return res


def table(res):
    f = res["figures"]
    rows = [("layer", "steps/s (median)")]
    for k, v in f.items():
        if isinstance(v, list) or isinstance(v, tuple):
            rows.append((k, f"{v[0]:,.0f}"))
        elif k.endswith("_s"):
            rows.append((k, f"{v:.2f} s"))
        elif k.startswith("ratio"):
            rows.append((k, f"{v:.2f}x"))
        else:
            rows.append((k, str(v)))
    w = max(len(r[0]) for r in rows)
    return "\n".join(f"{a:<{w}}  {b}" for a, b in rows)


def main(argv=None):
    p = argparse.ArgumentParser(description="Unbroken throughput benchmark")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--json", default=None)
    p.add_argument("--no-start", action="store_true", help="skip the cold/warm start runs")
    a = p.parse_args(argv)
    res = run(a.quick, a.repeats, start=not a.no_start)
    print(f"machine: {res['machine']['cpu']} ({res['machine']['cores']} cores)")
    print(table(res))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
