"""``dungeonrl play unbroken`` and ``dungeonrl bench unbroken``.

play: a person plays in the terminal. The Display is printed as text, the
legal actions are listed by number and readable label; type a number or an
action name (``help`` lists them again, ``q`` quits). ``--agent heuristic``,
``--agent random`` (or ``--random``) or ``--agent MODEL`` watches an agent
play instead (``--delay`` seconds per decision). ``--episodes N`` plays N
games (game i from seed + i), ``--max-steps N`` ends each game after N
decisions. When the game has a narrator (``dungeonrl.envs.unbroken.narrate``)
what happened since the last decision is printed before it.

bench: the Unbroken throughput benchmark (``benchmarks/unbroken_bench.py``).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from ..agents.options import NO_SEED, option, positive_int, writable_file
from ..agents.words import count
from ..envs.unbroken import consts as C
from ..envs.unbroken.core import CHARACTERS
from ..play import PlayOptions, narration_extras, narrator, say, seat0_agent, seat_policies


@dataclass
class UnbrokenPlayOptions(PlayOptions):
    """play Unbroken"""

    character: str = option("sneak", "the adventurer", choices=(*CHARACTERS, "random"))
    difficulty: str = option("normal", "difficulty", choices=tuple(C.DIFFICULTIES))


def play_options(spec):
    return [UnbrokenPlayOptions]


def play(args):
    """Play Unbroken in the terminal, or watch an agent play it."""
    from ..envs.core.adapters.gym_env import DungeonEnv
    from ..envs.core.kernel_core import KernelCore

    prog = "dungeonrl play unbroken"
    try:
        agent = seat0_agent(args)
    except ValueError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        env = DungeonEnv(
            "unbroken",
            render_mode="ansi",
            illegal_action="raise",
            character=args.character,
            difficulty=args.difficulty,
        )
    except ValueError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    core = env.core
    assert isinstance(core, KernelCore)  # the game's core, which labels actions
    names = core.spec.action_names
    policy = None
    if agent is not None:
        try:
            policy = seat_policies([agent], core, args.seed, args.stochastic)[0]
        except (ValueError, OSError) as e:
            print(f"{prog}: {e}", file=sys.stderr)
            return 2
    narrate = narrator("unbroken")
    legend, hand_text = narration_extras("unbroken")
    for episode in range(args.episodes):
        _, info = env.reset(seed=args.seed + episode)
        if args.episodes > 1:
            print(f"\n=== game {episode + 1} of {args.episodes} (seed {args.seed + episode}) ===")
        total, steps = 0.0, 0
        if legend is not None and policy is None:
            say(legend(core))
        while True:
            rec = env._buf.states  # the live record (read only here)
            print()
            print(env.render())
            if hand_text is not None and policy is None:
                say(hand_text(core, rec[0], 0))
            legal = np.flatnonzero(info["action_mask"])
            print("Legal actions:")
            for a in legal:
                print(f"  {a:3d}  {names[a]:<20s} {core.action_label(rec[0], int(a))}")
            if policy is not None:
                a = policy(rec)
                print(f"> {a} ({core.action_label(rec[0], a)})")
                if args.delay:
                    time.sleep(args.delay)
            else:
                a = _ask(legal, names)
                if a is None:
                    print("bye")
                    return 0
            prev = rec[0].copy() if narrate is not None else None
            _, r, term, trunc, info = env.step(a)
            total += r
            steps += 1
            if narrate is not None:
                say(narrate(core, prev, env._buf.states[0], 0))
            if term or trunc:
                print()
                print(env.render())
                extra = {k: v for k, v in info.items() if k not in ("action_mask",)}
                print(
                    f"Game over ({'terminated' if term else 'truncated'}): "
                    f"reward {total:+.2f} {extra}"
                )
                break
            if args.max_steps is not None and steps >= args.max_steps:
                print(
                    f"stopped after {count(steps, 'decision')} (--max-steps {args.max_steps}); "
                    f"reward so far {total:+.2f}"
                )
                break
    return 0


def _ask(legal, names):
    from ..play import ask_action

    return ask_action(legal, names)


@dataclass
class UnbrokenBenchOptions:
    """Unbroken throughput benchmark (benchmarks/unbroken_bench.py)"""

    quick: bool = option(False, "a short run")
    repeats: int | None = option(
        None, "timed repeats per figure", type=positive_int, default_text="5, or 3 with --quick"
    )
    json: str | None = option(
        None,
        "write the results to this JSON file",
        metavar="PATH",
        default_text="no file",
        type=writable_file,
    )
    no_start: bool = option(False, "skip the cold/warm start runs")


def bench_options(spec):
    return [NO_SEED, UnbrokenBenchOptions]


def bench(args):
    """The Unbroken throughput benchmark."""
    from ..benchmarks.unbroken_bench import main as bench_main

    argv = []
    if args.quick:
        argv.append("--quick")
    if args.repeats is not None:
        argv += ["--repeats", str(args.repeats)]
    if args.json is not None:
        argv += ["--json", args.json]
    if args.no_start:
        argv.append("--no-start")
    return bench_main(argv)
