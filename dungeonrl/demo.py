"""``make demo`` / ``dungeonrl demo``: a first look at the suite, on its
first game (:func:`dungeonrl.envs.catalog.default_game`: Unbroken) and
that game's first shipped agent (:data:`.agents.pretrained.RECIPES`:
``pretrained:unbroken-normal``). Nothing here is written for one game: the
settings, options and statistics come from the game's hooks.

1. The shipped trained agent (see :mod:`.agents.pretrained`) against the
   scripted heuristic and random play on the same seeded games (game ``i``
   from seed ``seed + i``) and the same settings (the agent's own; for
   Unbroken: character drawn at random, Normal), with 95% Wilson
   intervals: the table of ``dungeonrl eval``, computed by its code
   (:func:`dungeonrl.agents.commands.evaluate.main`), with the command that
   reproduces it.
2. The heuristic and random play on each difficulty where the game has a
   ``--difficulty`` option (whole games inside numba), then the in-kernel
   throughput and the native vector env's, for a few seconds.
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
import dataclasses
import importlib.util
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from .agents.commands import evaluate
from .agents.commands.train import build_parser, choose_run_folder, run_training
from .agents.metrics import wilson
from .agents.options import core_options_class, nonneg_int, option, positive_float, positive_int
from .agents.pretrained import PREFIX, RECIPES, card
from .envs import catalog
from .envs.core.common import resolve_core
from .envs.core.hooks import core_kwargs_from, hooks_for
from .registry import get_spec

#: the game the demo shows: the suite's first
GAME = catalog.default_game()
#: the shipped agent of the first table (``agents/pretrained_models/``): the
#: game's first in :data:`RECIPES`
SHIPPED = next(name for name, (game, _) in RECIPES.items() if game == GAME)
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


def _title() -> str:
    """The game's name as its environment id spells it (``Unbroken``)."""
    return get_spec(GAME).env_id.rpartition("/")[2].rpartition("-v")[0]


def _game_options() -> list[tuple[str, dict]]:
    """The game's core options (its hooks) the training may set, but the
    reward, which the shipped recipe chooses."""
    return [(f, kw) for f, kw in hooks_for(GAME).core_options if f != "--reward"]


def _train_only() -> tuple[str, ...]:
    """Options that only the training reads (refused with --no-train)."""
    game = tuple(kw.get("dest") or f.lstrip("-").replace("-", "_") for f, kw in _game_options())
    return ("train_seconds", "eval_games", "out", "overwrite", "from_scratch", *game)


def main_options(spec):
    """``dungeonrl demo`` is a tour of the suite's first game: not available
    for other games. Its options, then the game's own for the training (the
    shipped agent's settings unless set)."""
    if spec.name != GAME:
        return None
    seats = (spec.min_players, spec.max_players)
    return [DemoOptions, core_options_class(_game_options(), "the training's game", seats)]


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
    if args.no_train and given & set(_train_only()):
        bad = sorted("--" + d.replace("_", "-") for d in given & set(_train_only()))
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
    print(f"dungeonrl demo: {_title()} (seeds {seed}..{seed + n - 1})")
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


def _shipped_setting() -> dict:
    """The shipped agent's settings, its reward (a training choice) aside."""
    return {k: v for k, v in card(SHIPPED)["core_kwargs"].items() if k != "reward"}


def _shipped_core(**override):
    """A core of the shipped agent's settings, ``override`` on top."""
    return resolve_core(GAME, {**_shipped_setting(), **override})


def per_difficulty(n: int, seed: int = 0) -> None:
    """The heuristic and random play on each difficulty (the game's
    ``--difficulty`` choices), whole games inside numba (the hooks'
    ``play_whole_games``), on the shipped agent's other settings; nothing
    when the game has no such option or no whole-game path."""
    hooks = hooks_for(GAME)
    levels = next((kw.get("choices") for f, kw in hooks.core_options if f == "--difficulty"), None)
    if not levels or hooks.play_whole_games is None:
        return
    print("The heuristic and random play on each difficulty (whole games inside numba):")
    t0 = time.perf_counter()
    seeds = np.arange(seed, seed + n, dtype=np.uint64)
    head = f"{'difficulty':<10} {'agent':<10} {'win rate':>9}  {'95% CI':>13}"
    print(head + "".join(f"  {label:>10}" for _, label, _ in hooks.stat_columns))
    for d in levels:
        core = _shipped_core(difficulty=d)
        for name in ("heuristic", "random"):
            stats = hooks.play_whole_games(core, name, seeds, 2024)
            if stats is None:
                return
            wins = int(np.asarray(stats["win"]).sum())
            lo, hi = wilson(wins, n)
            cols = "".join(
                f"  {fmt.format(float(np.mean(stats[k]))):>10}" for k, _, fmt in hooks.stat_columns
            )
            print(f"{d:<10} {name:<10} {wins / n:9.1%}  [{lo:5.1%}, {hi:5.1%}]{cols}")
    setting = ", ".join(f"{k}={v}" for k, v in _shipped_setting().items() if k != "difficulty")
    print(f"({setting}; {time.perf_counter() - t0:.1f} s)")


def throughput() -> None:
    """The in-kernel rollout's and the native vector env's steps per second
    (the throughput suite's loops, on the shipped agent's settings)."""
    from concurrent.futures import ThreadPoolExecutor

    from .benchmarks.suite import MODES, RandomLegalSampler, bench_kernel, bench_vector

    settings = dataclasses.replace(MODES["quick"], repeats=3, kernel_envs=1024, threads=(1,))
    kwargs = _shipped_setting()
    with ThreadPoolExecutor(1) as pool:
        k = bench_kernel(_shipped_core(), settings, 1, pool)["median"]
    sampler = RandomLegalSampler(settings.seed)
    v = bench_vector(get_spec(GAME), 4096, settings, sampler, **kwargs)["median"]
    print(
        f"throughput: {k:,.0f} steps/s in-kernel (1 thread, random legal play with "
        f"observations and masks), {v:,.0f} steps/s through the 4,096-env vector env"
    )


def recipe_argv(opts) -> list[str]:
    """The ``dungeonrl train GAME`` arguments of the demo's training: the
    shipped agent's recipe (:data:`.agents.pretrained.RECIPES`) with the demo's
    budget, settings and evaluation; ``opts.from_scratch`` drops the cloning."""
    game, recipe = RECIPES[SHIPPED]
    if len(recipe) % 2 or not all(f.startswith("--") for f in recipe[::2]):
        raise ValueError(f"the recipe of {SHIPPED} is not --flag value pairs: {recipe}")
    flags = dict(zip(recipe[::2], recipe[1::2]))
    flags["--minutes"] = f"{opts.train_seconds / 60.0:g}"
    for flag, kw in _game_options():  # the game's options the user set win over the recipe's
        value = getattr(opts, kw.get("dest") or flag.lstrip("-").replace("-", "_"), None)
        if value is not None:
            flags[flag] = str(value)
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
    chosen = core_kwargs_from(topts, hooks_for(GAME))
    dests = [kw.get("dest") or f.lstrip("-").replace("-", "_") for f, kw in _game_options()]
    setting = ", ".join(str(chosen[d]) for d in dests if d in chosen)
    print(
        f"fast-path masked PPO on {_title()} ({setting}) for "
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
