"""``dungeonrl play dungeon_crawler`` and ``dungeonrl bench dungeon_crawler``.

play: a person takes seat 0 (``player_0``) in the terminal against rivals
driven by the scripted heuristic (default), uniform random play or trained
models (``--opponents heuristic|random|PATH``, or a comma list, one per
rival seat; a model is a fast-path ``.pt`` or SB3 ``.zip`` saved by
``dungeonrl train dungeon_crawler``, checked against the game and playing
greedily unless ``--stochastic``).
The floor map and every hero's status are printed before each of your
decisions; legal actions are listed by number, name and label; type a number
or a name (``help`` lists them again, ``q`` quits). ``--watch`` lets the
heuristic take seat 0 too.

bench: the suite benchmark restricted to this game (``--quick`` for a short
look).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np


def _parser():
    p = argparse.ArgumentParser(prog="dungeonrl play dungeon_crawler")
    p.add_argument("--players", type=int, default=3, help="number of heroes, 2-8 (default 3)")
    p.add_argument("--opponents", default="heuristic",
                   help="heuristic, random, a saved model, or a comma list, one per rival seat")
    p.add_argument("--stochastic", action="store_true",
                   help="models sample their actions instead of taking the most probable")
    p.add_argument("--watch", action="store_true", help="the heuristic plays seat 0 as well")
    p.add_argument("--max-turns", type=int, default=None, help="stop after this many decisions")
    return p


def _model_policy(path, core, seed, stochastic):
    """A saved model as ``policy(states, mask) -> action`` for the seat to act."""
    import os
    from ...agents.policy import make_agent
    if not os.path.exists(path):
        raise ValueError(f"unknown opponent {path!r}: use heuristic, random or a model file")
    agent = make_agent(path, core, seed=seed, deterministic=not stochastic)
    obs = np.zeros((1, core.spec.obs_size), np.float32)
    masks = np.zeros((1, core.spec.num_actions), np.int8)
    rows = np.zeros(1, np.int64)

    class View:
        pass

    view = View()
    view.obs, view.masks = obs, masks

    def policy(states, mask):
        view.states = states
        core.observe_rows(states, rows, core.to_play(states), obs, masks)
        return int(agent.act(view, rows)[0])
    return policy


def _policies(kinds, core, seed, stochastic=False):
    from ...agents.dungeon_crawler_heuristic import choose
    from ...envs.core.rng import rng_seed

    prng = np.zeros(2, np.uint64)
    rng_seed(prng, seed, 99)
    rng = np.random.default_rng(seed)

    def heuristic(states, mask):
        return int(choose(states[0], core.TR[0], prng))

    def random(states, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    table = {"heuristic": heuristic, "random": random}
    out = []
    models = {}
    for k in kinds:
        if k in table:
            out.append(table[k])
            continue
        if k not in models:
            models[k] = _model_policy(k, core, seed, stochastic)
        out.append(models[k])
    return out


def play(args):
    from ..core.aec import DungeonAECEnv

    try:
        opts = _parser().parse_args(args.extra)
    except SystemExit as e:
        return int(e.code or 0) and 2
    if not 2 <= opts.players <= 8:
        print("dungeonrl play dungeon_crawler: --players must be 2..8", file=sys.stderr)
        return 2
    kinds = [k.strip() for k in opts.opponents.split(",") if k.strip()]
    if len(kinds) == 1:
        kinds = kinds * (opts.players - 1)
    if len(kinds) != opts.players - 1:
        print(f"dungeonrl play dungeon_crawler: give one opponent kind or {opts.players - 1}",
              file=sys.stderr)
        return 2
    env = DungeonAECEnv("dungeon_crawler", render_mode="ansi", illegal_action="raise",
                        num_players=opts.players)
    core = env.core
    names = core.spec.action_names
    try:
        rivals = _policies(kinds, core, args.seed, opts.stochastic)
        me = _policies(["heuristic"], core, args.seed + 1)[0] if opts.watch else None
    except (ValueError, OSError) as e:
        print(f"dungeonrl play dungeon_crawler: {e}", file=sys.stderr)
        return 2
    env.reset(seed=args.seed)
    decisions = 0
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = reward
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        states = env._states
        mask = obs["action_mask"]
        if seat == 0 and me is None:
            print()
            print(env.render())
            legal = np.flatnonzero(mask)
            print("Your legal actions:")
            for a in legal:
                print(f"  {a:3d}  {names[a]:<22s} {core.action_label(states[0], int(a))}")
            a = _ask(legal, names)
            if a is None:
                print("bye")
                return 0
        elif seat == 0:
            a = me(states, mask)
        else:
            a = rivals[seat - 1](states, mask)
        env.step(a)
        decisions += 1
        if opts.max_turns is not None and decisions >= opts.max_turns:
            print(f"stopped after {decisions} decisions")
            return 0
    print()
    print(env.render())
    print("Final rewards: " + ", ".join(f"{a}={r:+.2f}" for a, r in sorted(final.items())))
    print(core.episode_info(env._states[0]))
    return 0


def _ask(legal, names):
    from ...cli import ask_action
    return ask_action(legal, names)


def bench(args):
    try:
        from ...benchmarks.suite import main as suite_main
    except ImportError:
        print("dungeonrl bench dungeon_crawler: the benchmark suite is not installed",
              file=sys.stderr)
        return 1
    return suite_main(["--games", "dungeon_crawler", *args.extra])
