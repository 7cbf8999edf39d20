"""Dungeon Crawler Carl: Unstoppable kernel throughput: ``core.random_rollout``
(uniform random legal play with autoreset, writing the acting seat's
observation and mask after every step) on one thread, solo, Floor 1 arcade.

Run: ``python -m dungeonrl.benchmarks.dcc_kernel_bench [--envs 64]
[--steps 2000] [--repeats 5]``. Prints the median and best steps/s of the
repeats and the load average (the figure depends on how busy the machine
is: record the load with it).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from ..envs.dcc_unstoppable.core import DCCCore


def measure(envs=64, steps=2000, repeats=5, num_players=1):
    core = DCCCore(num_players=num_players)
    st = core.alloc(envs)
    core.reset(st, np.arange(envs, dtype=np.uint64))
    obs = np.zeros((envs, core.spec.obs_size), np.float32)
    masks = np.zeros((envs, core.spec.num_actions), np.uint8)
    stats = np.zeros(4, np.int64)
    core.random_rollout(st, 10, 1, obs, masks, stats)        # compile / load the cache
    rates = []
    for r in range(repeats):
        stats[:] = 0
        t0 = time.perf_counter()
        core.random_rollout(st, steps, 2 + r, obs, masks, stats)
        rates.append(stats[0] / (time.perf_counter() - t0))
    return {"median": float(np.median(rates)), "best": float(max(rates)),
            "episodes": int(stats[1]), "loadavg": list(os.getloadavg())}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--players", type=int, default=1, choices=[1, 2])
    a = p.parse_args(argv)
    r = measure(a.envs, a.steps, a.repeats, a.players)
    la = ", ".join(f"{x:.2f}" for x in r["loadavg"])
    print(f"dcc_unstoppable random_rollout ({a.players}p, {a.envs} envs, 1 thread): "
          f"median {r['median']:,.0f} steps/s, best {r['best']:,.0f} steps/s "
          f"(load average {la})")


if __name__ == "__main__":
    main()
