"""``dungeonrl play dungeon_crawler`` and ``dungeonrl bench dungeon_crawler``.

play: a person takes seat 0 (``player_0``) in the terminal against rivals
driven by the scripted heuristic (default), uniform random play or trained
models (``--opponents heuristic|random|PATH``, or a comma list, one per
rival seat; a model is a fast-path ``.pt`` or SB3 ``.zip`` saved by
``dungeonrl train dungeon_crawler``, checked against the game and playing
greedily unless ``--stochastic``).
The floor map and every hero's status are printed before each of your
decisions; legal actions are listed by number, name and label; type a number
or a name (``help`` lists them again, ``q`` quits). ``--agent A`` lets agent
A take seat 0 (``--watch`` = ``--agent heuristic``, ``--random`` = ``--agent
random``); then the table is printed before each of its decisions, with
``--delay`` seconds after each. ``--episodes N`` plays N games (game i from
seed + i); ``--max-steps N`` (alias ``--max-turns``) ends each game after N
decisions of all seats. When the game has a narrator
(``dungeonrl.envs.dungeon_crawler.narrate``) what happened since seat 0's
last decision is printed before it.

bench: the suite benchmark restricted to this game (``--quick`` for a short
look).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from ..options import option, positive_int
from ..play import PlayOptions, is_model, narration_extras, narrator, play_agent_name, say


@dataclass
class CrawlerPlayOptions(PlayOptions):
    """play Dungeon Crawler"""

    max_steps: int | None = option(None, "end each game after this many decisions (all "
                                         "seats)", flags=("--max-steps", "--max-turns"),
                                   type=positive_int, default_text="the game's own end")
    players: int = option(3, "number of heroes, 2-8", type=int, choices=tuple(range(2, 9)))
    opponents: str = option("heuristic", "the rivals: heuristic, random, a saved model, or "
                                         "a comma list, one per rival seat", metavar="KINDS")
    watch: bool = option(False, "the heuristic plays seat 0 as well (= --agent heuristic)")


def play_options(spec):
    return [CrawlerPlayOptions]


def _model_policy(path, core, seed, stochastic):
    """A saved model as ``policy(states, mask) -> action`` for the seat to act."""
    import os
    from ..agents.policy import make_agent
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
    from ..envs.dungeon_crawler.policy import choose
    from ..envs.core.rng import rng_seed

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
    """Take a seat at Dungeon Crawler in the terminal, or watch agents play."""
    from ..envs.core.aec import DungeonAECEnv
    prog = "dungeonrl play dungeon_crawler"
    kinds = [k.strip() for k in args.opponents.split(",") if k.strip()]
    if len(kinds) == 1:
        kinds = kinds * (args.players - 1)
    try:
        if len(kinds) != args.players - 1:
            raise ValueError(f"give one opponent kind or {args.players - 1} (one per rival "
                             f"seat), not {len(kinds)}")
        me_kind = play_agent_name(args)
        if args.watch:
            if me_kind not in (None, "heuristic"):
                raise ValueError(f"--watch and --agent {me_kind} contradict each other")
            me_kind = "heuristic"
        if me_kind is None and "delay" in getattr(args, "given", set()):
            raise ValueError("--delay only applies when an agent plays seat 0 "
                             "(--agent, --random, --watch)")
        if args.stochastic and not any(is_model(k) for k in [me_kind, *kinds]):
            raise ValueError("--stochastic applies to saved models only (--agent or "
                             "--opponents PATH)")
    except ValueError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    env = DungeonAECEnv("dungeon_crawler", render_mode="ansi", illegal_action="raise",
                        num_players=args.players)
    core = env.core
    names = core.spec.action_names
    try:
        rivals = _policies(kinds, core, args.seed, args.stochastic)
        me = (_policies([me_kind], core, args.seed + 1, args.stochastic)[0]
              if me_kind is not None else None)
    except (ValueError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    narrate = narrator("dungeon_crawler")
    legend, hand_text = narration_extras("dungeon_crawler")
    for episode in range(args.episodes):
        if args.episodes > 1:
            print(f"\n=== game {episode + 1} of {args.episodes} (seed {args.seed + episode}) ===")
        env.reset(seed=args.seed + episode)
        decisions = 0
        final = {}
        seen = env._states[0].copy() if narrate is not None else None
        stopped = False
        if legend is not None and me is None:
            say(legend(core))
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                final[agent] = reward
                env.step(None)
                continue
            seat = int(agent.split("_")[1])
            states = env._states
            mask = obs["action_mask"]
            if seat == 0:
                if narrate is not None:
                    say(narrate(core, seen, states[0], 0))
                    seen = states[0].copy()
            if seat == 0 and me is None:
                print()
                print(env.render())
                if hand_text is not None:
                    say(hand_text(core, states[0], 0))
                legal = np.flatnonzero(mask)
                print("Your legal actions:")
                for a in legal:
                    print(f"  {a:3d}  {names[a]:<22s} {core.action_label(states[0], int(a))}")
                a = _ask(legal, names)
                if a is None:
                    print("bye")
                    return 0
            elif seat == 0:
                print()
                print(env.render())
                a = me(states, mask)
                print(f"> player_0 plays {a} ({core.action_label(states[0], int(a))})")
                if args.delay:
                    time.sleep(args.delay)
            else:
                a = rivals[seat - 1](states, mask)
            env.step(a)
            decisions += 1
            if args.max_steps is not None and decisions >= args.max_steps:
                print(f"stopped after {decisions} decisions (--max-steps {args.max_steps})")
                stopped = True
                break
        if stopped:
            continue
        print()
        print(env.render())
        print("Final rewards: " + ", ".join(f"{a}={r:+.2f}" for a, r in sorted(final.items())))
        print(core.episode_info(env._states[0]))
    return 0


def _ask(legal, names):
    from ..play import ask_action
    return ask_action(legal, names)


def bench_options(spec):
    """The suite's options, less ``--games`` (this game) and ``--seed`` (the CLI's)."""
    import argparse
    from ..benchmarks import suite
    src = suite.build_parser()
    keep = argparse.ArgumentParser(add_help=False, description="the suite, on this game")
    for act in src._actions:
        if not isinstance(act, argparse._HelpAction) and act.dest not in ("games", "seed"):
            keep._add_action(act)
    return [keep]


def bench(args):
    """The throughput suite restricted to Dungeon Crawler."""
    try:
        from ..benchmarks.suite import main as suite_main
    except ImportError:
        print("dungeonrl bench dungeon_crawler: the benchmark suite is not installed",
              file=sys.stderr)
        return 1
    return suite_main(["--games", "dungeon_crawler", *args.argv])
