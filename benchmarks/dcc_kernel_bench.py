"""Dungeon Crawler Carl: Unstoppable kernel throughput: ``core.random_rollout``
(uniform random legal play with autoreset, writing the acting seat's
observation and mask after every step) on one thread, solo, Floor 1 arcade.

Run: ``python -m dungeonrl.benchmarks.dcc_kernel_bench [--envs 64]
[--steps 2000] [--repeats 5] [--players 1|2] [--split]``. Prints the median
and best steps/s of the repeats (wall clock), the median per CPU second of
this process (``time.process_time``: the figure "per core", less sensitive
to other jobs taking turns on the cores) and the load average (the wall
figure depends on how busy the machine is: record the load with it).

``--split`` also times, interleaved with the full rollout in every repeat so
that all three see the same load: the same games without the observation
(``core.random_rollout_rules``: rules + mask alone), and ``encode_row``
alone over the states the rollout visits (ns per observation, 128 records
that stay in cache, as the row being stepped does in the rollout). The
encoder's share is the difference of the first two.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from ..envs.core.kernel.jit import JIT, njit
from ..envs.dcc_unstoppable import kernels as K
from ..envs.dcc_unstoppable.core import DCCCore


@njit(**JIT)
def encode_only(snaps, tabs, reps, obs):
    """``encode_row`` of every record in ``snaps`` (its acting seat), ``reps``
    times over; returns the number of observations written."""
    T = tabs[0]
    n = 0
    for _ in range(reps):
        for i in range(snaps.shape[0]):
            st = snaps[i]
            K.encode_row(st, T, max(st.actor, 0), obs[i % obs.shape[0]])
            n += 1
    return n


def _snapshots(core, num_players, count=128, seed=7):
    """``count`` records met along random games (every 3rd decision)."""
    st = core.alloc(64)
    core.reset(st, np.arange(64, dtype=np.uint64) + 1000)
    masks = np.zeros((64, core.spec.num_actions), np.uint8)
    stats = np.zeros(4, np.int64)
    out: list[np.ndarray] = []
    k = 0
    while sum(len(x) for x in out) < count:
        core.random_rollout_rules(st, 3, seed + k, masks, stats)
        out.append(st.copy())
        k += 1
    return np.concatenate(out)[:count]


def measure(envs=64, steps=2000, repeats=5, num_players=1, split=False):
    core = DCCCore(num_players=num_players)
    st = core.alloc(envs)
    core.reset(st, np.arange(envs, dtype=np.uint64))
    obs = np.zeros((envs, core.spec.obs_size), np.float32)
    masks = np.zeros((envs, core.spec.num_actions), np.uint8)
    stats = np.zeros(4, np.int64)
    core.random_rollout(st, 10, 1, obs, masks, stats)  # compile / load the cache
    if split:
        st2 = core.alloc(envs)
        core.reset(st2, np.arange(envs, dtype=np.uint64))
        core.random_rollout_rules(st2, 10, 1, masks, stats)
        snaps = _snapshots(core, num_players)
        encode_only(snaps[:4], core.TR, 1, obs)
    rates, cpu_rates, bare, bare_cpu, enc_ns = [], [], [], [], []
    for r in range(repeats):
        stats[:] = 0
        t0, c0 = time.perf_counter(), time.process_time()
        core.random_rollout(st, steps, 2 + r, obs, masks, stats)
        rates.append(stats[0] / (time.perf_counter() - t0))
        cpu_rates.append(stats[0] / max(time.process_time() - c0, 1e-9))
        episodes = int(stats[1])
        if split:
            stats[:] = 0
            t0, c0 = time.perf_counter(), time.process_time()
            core.random_rollout_rules(st2, steps, 2 + r, masks, stats)
            bare.append(stats[0] / (time.perf_counter() - t0))
            bare_cpu.append(stats[0] / max(time.process_time() - c0, 1e-9))
            c0 = time.process_time()
            n = encode_only(snaps, core.TR, max(1, envs * steps // len(snaps) // 2), obs)
            enc_ns.append((time.process_time() - c0) / n * 1e9)
    out = {
        "median": float(np.median(rates)),
        "best": float(max(rates)),
        "cpu_median": float(np.median(cpu_rates)),
        "episodes": episodes,
        "loadavg": list(os.getloadavg()),
    }
    if split:
        out["rules_mask_median"] = float(np.median(bare))
        out["rules_mask_cpu_median"] = float(np.median(bare_cpu))
        out["encode_ns_median"] = float(np.median(enc_ns))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--players", type=int, default=1, choices=[1, 2])
    p.add_argument(
        "--split", action="store_true", help="also time rules + mask alone and encode_row alone"
    )
    a = p.parse_args(argv)
    r = measure(a.envs, a.steps, a.repeats, a.players, a.split)
    la = ", ".join(f"{x:.2f}" for x in r["loadavg"])
    print(
        f"dcc_unstoppable random_rollout ({a.players}p, {a.envs} envs, 1 thread): "
        f"median {r['median']:,.0f} steps/s, best {r['best']:,.0f} steps/s; "
        f"per CPU second {r['cpu_median']:,.0f} steps/s (load average {la})"
    )
    if a.split:
        full_ns = 1e9 / r["cpu_median"]
        bare_ns = 1e9 / r["rules_mask_cpu_median"]
        print(
            f"  rules + mask alone: median {r['rules_mask_median']:,.0f} steps/s, per CPU "
            f"second {r['rules_mask_cpu_median']:,.0f} ({bare_ns:.0f} CPU ns/step); with the "
            f"encoder {full_ns:.0f} CPU ns/step (encoder share {full_ns - bare_ns:.0f} ns)"
        )
        print(f"  encode_row alone: median {r['encode_ns_median']:.0f} CPU ns per observation")


if __name__ == "__main__":
    main()
