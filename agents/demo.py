"""``make demo`` / ``dungeonrl demo``: a first look at the suite.

Plays a few hundred seeded Unbroken games per difficulty with the scripted
heuristic and with uniform random legal play (whole games inside numba),
prints their win rates with 95% intervals, then measures the in-kernel
throughput and the native vector env for a few seconds.

Then it trains the fast-path masked PPO (``agents/ppo.py``) on Unbroken for
a short wall-clock budget (``--train-seconds``, default 120, with a progress
bar), evaluates the trained agent, random play and the heuristic on the same
1,000 seeded games, prints the table, and writes the learning curve, the
model and the metrics to ``runs/demo/``. ``--no-train`` skips that part.
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
    p.add_argument("--train-seconds", type=float, default=120.0,
                   help="wall-clock budget of the PPO training (default 120)")
    p.add_argument("--eval-games", type=int, default=1000, help="games of the final table")
    p.add_argument("--difficulty", default="normal", help="difficulty of the PPO part")
    p.add_argument("--character", default="sneak", help="character of the PPO part")
    p.add_argument("--out", default="runs/demo", help="folder for the PPO part's files")
    p.add_argument("--no-train", action="store_true", help="skip the PPO part")
    p.add_argument("--kickstart", action="store_true",
                   help="clone the heuristic before PPO (agents/bc.py) instead of starting "
                        "from a random network")
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
    if not opts.no_train:
        train_demo(opts, seed=getattr(args, "seed", 0) if args is not None else 0)
    return 0


def train_demo(opts, seed: int = 0) -> dict:
    """Short fast-path PPO training on Unbroken, then the evaluation table."""
    from .train import build_parser, run_training
    from .games import hooks_for
    print()
    print(f"fast-path masked PPO on Unbroken ({opts.character}, {opts.difficulty}) for "
          f"{opts.train_seconds:.0f} s: 1,024 games per numba call, no per-env Python")
    argv = ["--minutes", str(opts.train_seconds / 60.0), "--eval-games", str(opts.eval_games),
            "--character", opts.character, "--difficulty", opts.difficulty,
            "--checkpoint-minutes", "0"]
    if opts.kickstart:
        argv += ["--kickstart", "heuristic", "--bc-steps", "100000", "--bc-epochs", "2"]
    topts = build_parser(hooks_for("unbroken")).parse_args(argv)
    metrics = run_training("unbroken", "ppo", None, seed, opts.out, topts)
    print("Longer runs beat the heuristic on Normal, e.g. "
          "`dungeonrl train unbroken --minutes 20` (from scratch) or "
          "`dungeonrl train unbroken --minutes 25 --kickstart heuristic --dagger-rounds 1 "
          "--bc-steps 400000 --bc-epochs 4 --lr 2e-4`")
    return metrics


if __name__ == "__main__":
    main()
