"""``dungeonrl play unbroken`` and ``dungeonrl bench unbroken``.

play: a person plays in the terminal. The Display is printed as text, the
legal actions are listed by number and readable label; type a number or an
action name (``help`` lists them again, ``q`` quits). ``--agent heuristic``
or ``--agent random`` watches an agent play instead (``--delay`` seconds per
step). Options: ``--character``, ``--difficulty``, ``--seed``.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _play_parser():
    p = argparse.ArgumentParser(prog="dungeonrl play unbroken", add_help=True)
    p.add_argument("--character", default="sneak",
                   help="sneak, sage, hunter, brawler or random (default sneak)")
    p.add_argument("--difficulty", default="normal", help="easy, normal or hard")
    p.add_argument("--agent", default=None,
                   help="watch an agent instead of playing: heuristic, random, or a saved model")
    p.add_argument("--delay", type=float, default=0.0, help="seconds between agent steps")
    return p


def _agent_policy(name, core):
    from ...agents.unbroken_heuristic import heuristic_action
    if name == "heuristic":
        return lambda st, mask, rng: int(heuristic_action(st[0], core.TR[0], mask))
    if name == "random":
        return lambda st, mask, rng: int(rng.choice(np.flatnonzero(mask)))
    try:
        from ...agents.policy import load_policy
    except ImportError:
        load_policy = None
    if load_policy is None:
        raise ValueError(f"unknown agent {name!r}: use heuristic or random")
    pol = load_policy(name, core)
    return lambda st, mask, rng: int(pol(st, mask))


def play(args):
    from ..core.gym_env import DungeonEnv
    p = _play_parser()
    try:
        opts = p.parse_args(args.extra)
    except SystemExit as e:
        return int(e.code or 0) and 2
    try:
        env = DungeonEnv("unbroken", render_mode="ansi", illegal_action="raise",
                         character=opts.character, difficulty=opts.difficulty)
    except ValueError as e:
        print(f"dungeonrl play unbroken: {e}", file=sys.stderr)
        return 2
    core = env.core
    names = core.spec.action_names
    policy = None
    if opts.agent:
        try:
            policy = _agent_policy(opts.agent, core)
        except (ValueError, OSError) as e:
            print(f"dungeonrl play unbroken: {e}", file=sys.stderr)
            return 2
    rng = np.random.default_rng(args.seed)
    _, info = env.reset(seed=args.seed)
    total = 0.0
    while True:
        rec = env.unwrapped._buf.states   # the live record (read only here)
        print()
        print(env.render())
        legal = np.flatnonzero(info["action_mask"])
        print("Legal actions:")
        for a in legal:
            print(f"  {a:3d}  {names[a]:<20s} {core.action_label(rec[0], int(a))}")
        if policy is not None:
            a = policy(rec, info["action_mask"].astype(np.uint8), rng)
            print(f"> {a} ({core.action_label(rec[0], a)})")
            if opts.delay:
                time.sleep(opts.delay)
        else:
            a = _ask(legal, names)
            if a is None:
                print("bye")
                return 0
        _, r, term, trunc, info = env.step(a)
        total += r
        if term or trunc:
            print()
            print(env.render())
            extra = {k: v for k, v in info.items() if k not in ("action_mask",)}
            print(f"Game over ({'terminated' if term else 'truncated'}): reward {total:+.2f} {extra}")
            return 0


def _ask(legal, names):
    from ...cli import ask_action
    return ask_action(legal, names)


def bench(args):
    from ...benchmarks.unbroken_bench import main as bench_main
    return bench_main(list(args.extra))
