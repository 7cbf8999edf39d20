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

import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from .metrics import wilson
from .options import nonneg_int, option, positive_float, positive_int
from .train import build_parser, choose_run_folder, run_training
from .unbroken_heuristic import POLICY_HEURISTIC, POLICY_RANDOM, play_games


@dataclass
class DemoOptions:
    """demo"""

    games: int = option(
        400, "games per difficulty and agent in the win-rate table", type=positive_int
    )
    train_seconds: float = option(
        120.0,
        "wall-clock budget of the PPO training (the evaluation comes after it)",
        type=positive_float,
    )
    eval_games: int = option(1000, "games of the final table (0: skip)", type=nonneg_int)
    difficulty: str = option(
        "normal", "difficulty of the PPO part", choices=("easy", "normal", "hard")
    )
    character: str = option(
        "sneak",
        "character of the PPO part",
        choices=("sneak", "sage", "hunter", "brawler", "random"),
    )
    out: str | None = option(
        None,
        "folder of the PPO part's files; one that holds an "
        "earlier run is refused unless --overwrite",
        metavar="DIR",
        default_text="runs/demo, or the first free runs/demo-2, -3...",
    )
    overwrite: bool = option(False, "reuse an --out folder that holds a run")
    no_train: bool = option(False, "skip the PPO part")
    kickstart: bool = option(
        False,
        "clone the heuristic before PPO (agents/bc.py) instead of starting from a random network",
    )


#: options that only the PPO part reads (refused with --no-train)
_TRAIN_ONLY = (
    "train_seconds",
    "eval_games",
    "difficulty",
    "character",
    "out",
    "overwrite",
    "kickstart",
)


def main_options(spec):
    """``dungeonrl demo`` is a tour of Unbroken: not available for other games."""
    if spec.name != "unbroken":
        return None
    return [DemoOptions]


def main(args=None):
    """A first look: seeded games of the heuristic and random play, throughput,
    then a short PPO run and its evaluation table."""
    if args is None:  # python -m dungeonrl.agents.demo [options]
        import runpy  # the program `dungeonrl demo unbroken [options]`

        sys.argv = ["dungeonrl", "demo", "unbroken", *sys.argv[1:]]
        runpy.run_module("dungeonrl", run_name="__main__", alter_sys=True)
    given = getattr(args, "given", set())
    if args.no_train and given & set(_TRAIN_ONLY):
        bad = sorted("--" + d.replace("_", "-") for d in given & set(_TRAIN_ONLY))
        print(
            f"dungeonrl demo: {', '.join(bad)} only apply to the PPO part, which --no-train skips",
            file=sys.stderr,
        )
        return 2
    out = None
    if not args.no_train:
        try:
            out = choose_run_folder(args.out, os.path.join("runs", "demo"), args.overwrite)
        except ValueError as e:
            print(f"dungeonrl demo: {e}", file=sys.stderr)
            return 2
    from ..envs.unbroken import CHARACTERS, UnbrokenCore
    from ..envs.unbroken import consts as C

    n = args.games
    print(f"dungeonrl demo: Unbroken, whole games played inside numba (seeds 0..{n - 1})")
    core = UnbrokenCore(character="random")
    t0 = time.perf_counter()
    states = core.alloc(n)
    seeds = np.arange(n, dtype=np.uint64)
    res = np.zeros(n, np.int8)
    lv = np.zeros(n, np.int8)
    sc = np.zeros(n, np.int16)
    ln = np.zeros(n, np.int32)
    print(f"{'difficulty':<10} {'agent':<10} {'win rate':>9}  {'95% CI':>13}  {'mean Level':>10}")
    for d in C.DIFFICULTIES:
        for name, pol in (("heuristic", POLICY_HEURISTIC), ("random", POLICY_RANDOM)):
            play_games(
                core.TR,
                states,
                seeds,
                -1,
                C.DIFFICULTIES.index(d),
                pol,
                np.uint64(2024),
                res,
                lv,
                sc,
                ln,
            )
            wins = int((res == C.O_WIN).sum())
            lo, hi = wilson(wins, n)
            print(f"{d:<10} {name:<10} {wins / n:9.1%}  [{lo:5.1%}, {hi:5.1%}]  {lv.mean():10.2f}")
    print(
        f"(characters drawn at random among {', '.join(CHARACTERS)}; "
        f"{time.perf_counter() - t0:.1f} s including compilation)"
    )

    from ..benchmarks.unbroken_bench import bench_kernel, bench_vector

    k, _ = bench_kernel(core, 1024, 300, 3)
    v, _ = bench_vector(4096, 30, 3, character="random")
    print(
        f"throughput: {k:,.0f} steps/s in-kernel (1 thread, random legal play with "
        f"observations and masks), {v:,.0f} steps/s through the 4,096-env vector env"
    )
    if not args.no_train:
        args.out = out
        metrics = train_demo(args, seed=args.seed)
        if metrics.get("interrupted"):
            return 130
    print()
    print(
        "play any game in the browser, against the heuristic or a shipped agent, or watch "
        "agents play: `.venv/bin/dungeonrl serve`, then open http://127.0.0.1:8000/"
    )
    return 0


def train_demo(opts, seed: int = 0) -> dict:
    """Short fast-path PPO training on Unbroken, then the evaluation table."""
    print()
    print(
        f"fast-path masked PPO on Unbroken ({opts.character}, {opts.difficulty}) for "
        f"{opts.train_seconds:.0f} s: 1,024 games per numba call, no per-env Python"
    )
    argv = [
        "--minutes",
        str(opts.train_seconds / 60.0),
        "--eval-games",
        str(opts.eval_games),
        "--character",
        opts.character,
        "--difficulty",
        opts.difficulty,
        "--checkpoint-minutes",
        "0",
    ]
    if opts.kickstart:
        argv += ["--kickstart", "heuristic", "--bc-steps", "100000", "--bc-epochs", "2"]
    topts = build_parser(game="unbroken").parse_args(argv)
    topts.overwrite = bool(getattr(opts, "overwrite", False))
    metrics = run_training("unbroken", "ppo", None, seed, opts.out, topts)
    print(
        "Longer runs beat the heuristic on Normal, e.g. "
        "`dungeonrl train unbroken --minutes 20` (from scratch) or "
        "`dungeonrl train unbroken --minutes 25 --kickstart heuristic --dagger-rounds 1 "
        "--bc-steps 400000 --bc-epochs 4 --lr 2e-4`"
    )
    return metrics


if __name__ == "__main__":
    raise SystemExit(main())
