"""Start-up (time to the first step in a fresh process, cold and warm
numba cache) and memory (bytes per record and per env, peak RSS of a
process holding many envs), each in a subprocess."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

from .games import player_counts
from .measure import unavailable
from .settings import Settings

# --- start-up and memory (subprocesses) ---------------------------------------------------------
_START_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
t_np = time.perf_counter()
import gymnasium as gym
t_gym = time.perf_counter()
import dungeonrl
from dungeonrl.registry import get_spec
t_pkg = time.perf_counter()
name, players = sys.argv[1], int(sys.argv[2])
try:
    spec = get_spec(name)
except Exception as e:
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    raise SystemExit(0)
if not spec.multi_agent:
    env = gym.make(spec.env_id)
    t_make = time.perf_counter()
    _, info = env.reset(seed=0)
    mask = info["action_mask"]
else:
    # the game's own PettingZoo module, as a user builds it (not through the suite)
    from dungeonrl.registry import aec_factory
    env = aec_factory(spec)(num_players=players)
    t_make = time.perf_counter()
    env.reset(seed=0)
    mask = env.last()[0]["action_mask"]
t_reset = time.perf_counter()
a = int(np.flatnonzero(mask)[0])
if not mask[a]:
    raise SystemExit("illegal action in the start-up probe")
env.step(a)
t1 = time.perf_counter()
print(json.dumps({"first_step_s": t1 - t0, "import_numpy_s": t_np - t0,
                  "import_gymnasium_s": t_gym - t_np, "import_dungeonrl_s": t_pkg - t_gym,
                  "make_s": t_make - t_pkg, "reset_s": t_reset - t_make,
                  "first_step_only_s": t1 - t_reset}))
"""

_MEMORY_SCRIPT = r"""
import json, resource, sys
import numpy as np
import dungeonrl
from dungeonrl.registry import get_spec
from dungeonrl.envs.core.common import resolve_core
from dungeonrl.envs.core.batch import Batch
name, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    spec = get_spec(name)
except Exception as e:
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    raise SystemExit(0)
kw = {"num_players": players} if spec.multi_agent else {}


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def peak_mb():
    # VmHWM: this process's own high-water mark. ru_maxrss is not enough on
    # Linux: it keeps the parent's peak across fork + exec.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def first_legal(masks):
    a = masks.argmax(axis=1)
    if not masks[np.arange(len(a)), a].all():
        raise SystemExit("illegal action in the memory probe")
    return a.astype(np.int64)

small = Batch(resolve_core(spec, dict(kw)), 2)   # load the kernels first
small.reset(np.arange(2, dtype=np.uint64))
small.actions[:] = first_legal(small.masks)
small.fused_step()
before_peak = peak_mb()
before = rss_mb()
if not spec.multi_agent:
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv
    env = DungeonVectorEnv(name, num_envs=n, **kw)
    _, infos = env.reset(seed=0)
    for _ in range(3):
        _, _, _, _, infos = env.step(first_legal(infos["action_mask"]))
else:
    buf = Batch(resolve_core(spec, dict(kw)), n)
    buf.reset(np.arange(n, dtype=np.uint64))
    for _ in range(3):
        buf.actions[:] = first_legal(buf.masks)
        buf.fused_step()
print(json.dumps({"peak_rss_mb": peak_mb(), "rss_before_mb": before,
                  "peak_before_mb": before_peak, "rss_after_mb": rss_mb(),
                  "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _subprocess_json(
    script: str, args: list, env: dict | None = None, timeout: float = 900
) -> tuple[dict, float]:
    t0 = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"subprocess failed ({r.returncode}): {' | '.join(tail)}")
    return json.loads(r.stdout.strip().splitlines()[-1]), wall


def bench_start(spec, settings: Settings) -> dict:
    """Time to the first step in a fresh process: cold (numba cache empty)
    and warm (cache filled by the cold run, or the usual cache when the cold
    run is skipped). Figures are from the script's first line to the first
    ``step``; ``*_process_s`` add the interpreter start."""
    players = player_counts(spec)[0]
    out: dict[str, Any] = {"status": "ok", "players": players}
    with tempfile.TemporaryDirectory(prefix="dungeonrl-numba-") as d:
        env = dict(os.environ)
        if settings.start_cold:
            env["NUMBA_CACHE_DIR"] = d
            cold, wall = _subprocess_json(_START_SCRIPT, [spec.name, players], env)
            if "error" in cold:
                return unavailable(cold["error"])
            out["cold_s"], out["cold_process_s"] = cold["first_step_s"], wall
        else:
            out["cold_s"] = None
            out["cold_note"] = f"skipped in {settings.mode} mode"
            if settings.mode != "tiny":
                # fill the usual cache first: a source edit since the last run
                # would otherwise make the "warm" run compile
                primed, _ = _subprocess_json(_START_SCRIPT, [spec.name, players], env)
                if "error" in primed:
                    return unavailable(primed["error"])
                out["priming_s"] = primed["first_step_s"]
        warm, walls = [], []
        for _ in range(max(1, settings.start_repeats)):
            w, wall = _subprocess_json(_START_SCRIPT, [spec.name, players], env)
            if "error" in w:
                return unavailable(w["error"])
            warm.append(w)
            walls.append(wall)
    order = sorted(range(len(warm)), key=lambda i: warm[i]["first_step_s"])
    mid = warm[order[len(order) // 2]]
    out["warm_s"] = mid["first_step_s"]
    out["warm_runs_s"] = [w["first_step_s"] for w in warm]
    out["warm_process_s"] = float(statistics.median(walls))
    out["warm_breakdown_s"] = {k: v for k, v in mid.items() if k != "first_step_s"}
    return out


def buffer_bytes_per_env(core) -> dict:
    from ...envs.core.batch import Batch

    buf = Batch(core, 1)
    arrays = {k: v for k, v in vars(buf).items() if isinstance(v, np.ndarray)}
    return {
        "state_bytes": int(core.state_dtype.itemsize),
        "buffer_bytes_per_env": int(sum(a.nbytes for a in arrays.values())),
        "buffers": {k: int(a.nbytes) for k, a in arrays.items()},
    }


def bench_memory(spec, players: int, core, settings: Settings) -> dict:
    out = {"status": "ok", **buffer_bytes_per_env(core), "num_envs": settings.memory_envs}
    res, _ = _subprocess_json(_MEMORY_SCRIPT, [spec.name, players, settings.memory_envs])
    if "error" in res:
        out.update(peak_rss_mb=None, note=res["error"])
        return out
    out.update(res)
    out["peak_delta_mb"] = res["peak_rss_mb"] - res["peak_before_mb"]
    out["peak_bytes_per_env"] = int(out["peak_delta_mb"] * 2**20 / settings.memory_envs)
    return out
