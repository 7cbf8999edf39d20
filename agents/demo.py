"""``make demo`` / ``dungeonrl demo``: a first look at the suite.

Plays a few hundred seeded Unbroken games per difficulty with the scripted
heuristic and with uniform random legal play (whole games inside numba),
prints their win rates with 95% intervals, then measures the in-kernel
throughput and the native vector env for a few seconds.
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def main(args=None):
    from ..benchmarks.unbroken_balance import wilson
    from ..envs.unbroken import CHARACTERS, UnbrokenCore
    from ..envs.unbroken import consts as C
    from .unbroken_heuristic import POLICY_HEURISTIC, POLICY_RANDOM, play_games

    p = argparse.ArgumentParser(prog="dungeonrl demo")
    p.add_argument("--games", type=int, default=400, help="games per difficulty and agent")
    extra = list(getattr(args, "extra", []) or []) if args is not None else []
    opts = p.parse_args(extra)
    n = opts.games

    print("dungeonrl demo: Unbroken, whole games played inside numba (seeds 0..%d)" % (n - 1))
    core = UnbrokenCore(character="random")
    t0 = time.perf_counter()
    states = core.alloc(n)
    seeds = np.arange(n, dtype=np.uint64)
    out = np.zeros(n, np.int8)
    lv = np.zeros(n, np.int8)
    sc = np.zeros(n, np.int16)
    ln = np.zeros(n, np.int32)
    print(f"{'difficulty':<10} {'agent':<10} {'win rate':>9}  {'95% CI':>13}  {'mean Level':>10}")
    for d in C.DIFFICULTIES:
        for name, pol in (("heuristic", POLICY_HEURISTIC), ("random", POLICY_RANDOM)):
            play_games(core.TR, states, seeds, -1, C.DIFFICULTIES.index(d), pol,
                       np.uint64(2024), out, lv, sc, ln)
            wins = int((out == C.O_WIN).sum())
            lo, hi = wilson(wins, n)
            print(f"{d:<10} {name:<10} {wins / n:9.1%}  [{lo:5.1%}, {hi:5.1%}]  {lv.mean():10.2f}")
    print(f"(characters drawn at random among {', '.join(CHARACTERS)}; "
          f"{time.perf_counter() - t0:.1f} s including compilation)")

    from ..benchmarks.unbroken_bench import bench_kernel, bench_vector
    k, _ = bench_kernel(core, 1024, 300, 3)
    v, _ = bench_vector(4096, 30, 3, character="random")
    print(f"throughput: {k:,.0f} steps/s in-kernel (1 thread, random legal play with "
          f"observations and masks), {v:,.0f} steps/s through the 4,096-env vector env")
    return 0


if __name__ == "__main__":
    main()
