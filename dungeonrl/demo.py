"""``make demo`` / ``dungeonrl demo``: a first look at the suite.

1. The shipped trained agent (``pretrained:unbroken-normal``, see
   :mod:`.agents.pretrained`) against the scripted heuristic and random play on the
   same seeded Unbroken games (game ``i`` from seed ``seed + i``) and the
   same settings (the agent's own: character drawn at random, Normal),
   with 95% Wilson intervals: the table of ``dungeonrl eval``, computed by
   its code (:func:`dungeonrl.agents.evaluate.main`), with the command that
   reproduces it.
2. The heuristic and random play on each difficulty (whole games inside
   numba), then the in-kernel throughput and the native vector env's, for a
   few seconds.
3. A short training with the shipped agent's own recipe
   (:data:`.agents.pretrained.RECIPES`: clone the heuristic, one DAgger round, then
   fast-path masked PPO; the "cloned start" of ``docs/training.md``) for
   ``--train-seconds`` (default 120, cloning included, with a progress
   bar), evaluated against the heuristic and random play on the first
   table's games, with the learning curve, the model and the metrics in
   ``runs/demo/``. ``--from-scratch`` starts PPO from a random network
   instead; ``--no-train`` skips this part.

The whole demo takes about 3 minutes on 2 cores, 2 of them the training's
budget: ``make demo`` took 3 min 52 s on a 2-core machine shared with other
jobs (its install check and a warm precompile included), the first two
parts 10 to 35 s of it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from .agents import evaluate
from .agents.metrics import wilson
from .agents.options import nonneg_int, option, positive_float, positive_int
from .agents.pretrained import PREFIX, RECIPES, card
from .agents.train import build_parser, choose_run_folder, run_training
from .benchmarks.unbroken_bench import bench_kernel, bench_vector
from .envs.unbroken.heuristic import POLICY_HEURISTIC, POLICY_RANDOM, play_games
from .registry import get_spec

#: the shipped agent of the first table (``agents/pretrained_models/``)
SHIPPED = "unbroken-normal"
#: the game the demo shows
GAME = "unbroken"
#: the flags of a recipe that only mean something after ``--kickstart``
_CLONING = ("--kickstart", "--bc-steps", "--bc-epochs", "--dagger-rounds", "--lr")


@dataclass
class DemoOptions:
    """demo"""

    games: int = option(
        1000,
        "games per agent in the win-rate tables, the same seeded games for every agent",
        type=positive_int,
    )
    train_seconds: float = option(
        120.0,
        "wall-clock budget of the training, cloning included (the evaluation comes after it)",
        type=positive_float,
    )
    eval_games: int = option(1000, "games of the training's table (0: skip)", type=nonneg_int)
    difficulty: str | None = option(
        None,
        "difficulty of the training",
        choices=("easy", "normal", "hard"),
        default_text="the shipped agent's, normal",
    )
    character: str | None = option(
        None,
        "character of the training",
        choices=("sneak", "sage", "hunter", "brawler", "random"),
        default_text="the shipped agent's, random",
    )
    out: str | None = option(
        None,
        "folder of the training's files; one that holds an "
        "earlier run is refused unless --overwrite",
        metavar="DIR",
        default_text="runs/demo, or the first free runs/demo-2, -3...",
    )
    overwrite: bool = option(False, "reuse an --out folder that holds a run")
    no_train: bool = option(False, "skip the training")
    from_scratch: bool = option(
        False,
        "train PPO from a random network instead of the shipped agent's cloned start",
    )


#: options that only the training reads (refused with --no-train)
_TRAIN_ONLY = (
    "train_seconds",
    "eval_games",
    "difficulty",
    "character",
    "out",
    "overwrite",
    "from_scratch",
)


def main_options(spec):
    """``dungeonrl demo`` is a tour of Unbroken: not available for other games."""
    if spec.name != GAME:
        return None
    return [DemoOptions]


def _setting_flags(kwargs: dict) -> list[str]:
    """The ``dungeonrl eval`` flags of a card's game options (its reward,
    a training choice, is not a setting of the games)."""
    argv = []
    for key, value in kwargs.items():
        if key != "reward":
            argv += [f"--{key.replace('_', '-')}", str(value)]
    return argv


def shipped_table(games: int, seed: int = 0) -> list[dict]:
    """The first table: the shipped agent, the heuristic and random play on
    the same ``games`` seeded games (seeds ``seed .. seed + games - 1``) and
    the shipped agent's settings, through ``dungeonrl eval``'s code, which
    prints it; returns its rows (``evaluate.main``'s ``--json`` summaries)."""
    agents = [PREFIX + SHIPPED, "heuristic", "random"]
    setting = _setting_flags(card(SHIPPED)["core_kwargs"])
    argv = [a for name in agents for a in ("--agent", name)]
    argv += ["--games", str(games), *setting]
    command = f"dungeonrl eval {GAME} {' '.join(argv)}" + (f" --seed {seed}" if seed else "")
    print(
        f"The shipped agent {PREFIX}{SHIPPED} against the scripted heuristic and random "
        f"play, on the same {games:,} seeded games and settings:"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "first-table.json")
        ns = argparse.Namespace(
            env=GAME,
            env_id=get_spec(GAME).env_id,
            game=GAME,
            seed=seed,
            model=None,
            episodes=None,
            extra=[*argv, "--json", path],
            given=set(),
        )
        rc = evaluate.main(ns)
        if rc != 0:
            raise RuntimeError(f"the shipped agent's table failed (exit code {rc}): `{command}`")
        with open(path, encoding="utf-8") as f:
            rows = json.load(f)["summaries"]
    print(f"(the same table: `{command}`)")
    print(_verdict(rows))
    trained = card(SHIPPED).get("trained", {})
    if trained.get("command"):
        print(
            f"It was trained for {trained.get('minutes', 0):.0f} minutes, "
            f"{trained.get('steps', 0):,} steps, on {trained.get('machine', 'a CPU')}: "
            f"`{trained['command']}`."
        )
    return rows


def _verdict(rows: list[dict]) -> str:
    """One sentence: is the shipped agent ahead of the heuristic on these games?"""
    by = {r["agent"]: r for r in rows}
    a, h = by.get(PREFIX + SHIPPED), by.get("heuristic")
    if a is None or h is None:
        return "(the shipped agent or the heuristic is missing from the table)"
    gap = 100.0 * (a["win_rate"] - h["win_rate"])
    if a["ci95"][0] > h["ci95"][1]:
        how = "ahead, and the 95% intervals do not overlap"
    elif gap > 0:
        how = "ahead, within the 95% intervals"
    else:
        how = "not ahead on these games"
    return (
        f"The trained agent wins {a['win_rate']:.1%} of these games, the heuristic "
        f"{h['win_rate']:.1%}: {how} ({gap:+.1f} points)."
    )


def main(args=None):
    """A first look: the shipped agent against the heuristic, seeded games per
    difficulty, throughput, then a short training from the cloned start and
    its evaluation table."""
    if args is None:  # python -m dungeonrl.demo [options]
        import runpy  # the program `dungeonrl demo unbroken [options]`

        sys.argv = ["dungeonrl", "demo", GAME, *sys.argv[1:]]
        runpy.run_module("dungeonrl", run_name="__main__", alter_sys=True)
    given: set[str] = getattr(args, "given", set())
    if args.no_train and given & set(_TRAIN_ONLY):
        bad = sorted("--" + d.replace("_", "-") for d in given & set(_TRAIN_ONLY))
        print(
            f"dungeonrl demo: {', '.join(bad)} only apply to the training, which --no-train skips",
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
    if importlib.util.find_spec("torch") is None:  # the shipped agent and the training
        print(
            "dungeonrl demo: needs torch, which the train extra installs "
            "(pip install torch==2.13.0 'dungeonrl[train]', or `make demo`)",
            file=sys.stderr,
        )
        return 2
    n, seed = args.games, int(getattr(args, "seed", 0) or 0)
    print(f"dungeonrl demo: Unbroken (seeds {seed}..{seed + n - 1})")
    print()
    try:
        shipped_table(n, seed)
    except RuntimeError as e:
        print(f"dungeonrl demo: {e}", file=sys.stderr)
        return 2
    print()
    per_difficulty(n, seed)
    print()
    throughput()
    if not args.no_train:
        args.out = out
        metrics = train_demo(args, seed=seed)
        if metrics.get("interrupted"):
            return 130
    print()
    print(
        "play any game in the browser, against the heuristic or a shipped agent, or watch "
        "agents play: `.venv/bin/dungeonrl serve`, then open http://127.0.0.1:8000/"
    )
    return 0


def per_difficulty(n: int, seed: int = 0) -> None:
    """The heuristic and random play on each difficulty, whole games inside
    numba, characters drawn at random."""
    from .envs.unbroken import CHARACTERS, UnbrokenCore
    from .envs.unbroken import consts as C

    print("The heuristic and random play on each difficulty (whole games inside numba):")
    core = UnbrokenCore(character="random")
    t0 = time.perf_counter()
    states = core.alloc(n)
    seeds = np.arange(seed, seed + n, dtype=np.uint64)
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
        f"{time.perf_counter() - t0:.1f} s)"
    )


def throughput() -> None:
    """The in-kernel rollout's and the native vector env's steps per second."""
    from .envs.unbroken import UnbrokenCore

    k, _ = bench_kernel(UnbrokenCore(character="random"), 1024, 300, 3)
    v, _ = bench_vector(4096, 30, 3, character="random")
    print(
        f"throughput: {k:,.0f} steps/s in-kernel (1 thread, random legal play with "
        f"observations and masks), {v:,.0f} steps/s through the 4,096-env vector env"
    )


def recipe_argv(opts) -> list[str]:
    """The ``dungeonrl train unbroken`` arguments of the demo's training: the
    shipped agent's recipe (:data:`.agents.pretrained.RECIPES`) with the demo's
    budget, settings and evaluation; ``opts.from_scratch`` drops the cloning."""
    game, recipe = RECIPES[SHIPPED]
    if len(recipe) % 2 or not all(f.startswith("--") for f in recipe[::2]):
        raise ValueError(f"the recipe of {SHIPPED} is not --flag value pairs: {recipe}")
    flags = dict(zip(recipe[::2], recipe[1::2]))
    flags["--minutes"] = f"{opts.train_seconds / 60.0:g}"
    if getattr(opts, "character", None):
        flags["--character"] = opts.character
    if getattr(opts, "difficulty", None):
        flags["--difficulty"] = opts.difficulty
    flags["--eval-games"] = str(opts.eval_games)
    flags["--checkpoint-minutes"] = "0"
    if getattr(opts, "from_scratch", False):
        for f in _CLONING:
            flags.pop(f, None)
    return [t for pair in flags.items() for t in pair]


def train_demo(opts, seed: int = 0) -> dict:
    """A short training with the shipped agent's recipe, then its table."""
    argv = recipe_argv(opts)
    topts = build_parser(game=GAME).parse_args(argv)
    topts.overwrite = bool(getattr(opts, "overwrite", False))
    start = "from a random network" if topts.kickstart is None else "from the cloned start"
    print()
    print(
        f"fast-path masked PPO on Unbroken ({topts.character}, {topts.difficulty}) for "
        f"{opts.train_seconds:.0f} s {start}, the shipped agent's recipe with a shorter "
        "budget: 1,024 games per numba call, no per-env Python"
    )
    print(f"(the same run: `dungeonrl train {GAME} {' '.join(argv)} --seed {seed}`)")
    metrics = run_training(GAME, topts.algo, None, seed, opts.out, topts)
    trained = card(SHIPPED).get("trained", {})
    if trained.get("command"):
        print(
            f"The shipped agent of the first table is this recipe given "
            f"{trained.get('minutes', 0):.0f} minutes: `{trained['command']}`."
        )
    return metrics


if __name__ == "__main__":
    raise SystemExit(main())
