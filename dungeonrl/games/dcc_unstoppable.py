"""``dungeonrl play dcc_unstoppable``: Dungeon Crawler Carl: Unstoppable in
the terminal.

Solo (default): you are the crawler. ``--players 2``: you take seat 0
(``player_0``) of the co-op game and the game's scripted heuristic is your
teammate (seat 1); both seats win or lose together. The board (danger
track, battlefields, hands, market) is printed before each of your
decisions; legal actions are listed by number, name and label; type a
number or a name (``help`` lists them again, ``q`` quits). ``--agent A``
lets agent A (heuristic, random or a saved model) take seat 0 instead
(``--delay`` seconds after each of its decisions). ``--floor``,
``--difficulty``, ``--mode`` and ``--crawler`` choose the game;
``--episodes N`` plays N games (game i from seed + i), ``--max-steps N``
ends each game after N decisions of all seats.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from ..options import option
from ..play import PlayOptions, is_model, play_agent_name
from ..envs.dcc_unstoppable import consts as C


@dataclass
class DCCPlayOptions(PlayOptions):
    """play Dungeon Crawler Carl: Unstoppable"""

    players: int = option(1, "1 (solo) or 2 (co-op with the heuristic as your teammate)",
                          type=int, choices=(1, 2))
    floor: int = option(1, "the floor to play", type=int, choices=(1, 2, 3))
    difficulty: str = option("normal", "difficulty", choices=tuple(C.DIFFICULTIES))
    mode: str = option("arcade", "arcade (one standalone floor) or campaign rules",
                       choices=tuple(C.MODES))
    crawler: str = option("Carl", "the solo crawler (Carl or Princess Donut)")


def play_options(spec):
    return [DCCPlayOptions]


def _policy(kind, core, seed, stochastic):
    """``policy(states) -> action`` of the seat to act in ``states[0]``."""
    if kind == "heuristic":
        prng = np.zeros((1, 2), np.uint64)
        prng[0, 0] = np.uint64(seed)
        out = np.zeros(1, np.int64)
        rows = np.zeros(1, np.int64)

        def heuristic(states):
            core.policy_rows(states, rows, prng, out)
            return int(out[0])
        return heuristic
    if kind == "random":
        rng = np.random.default_rng(seed)
        return lambda states: int(rng.choice(np.flatnonzero(states[0]["legal"])))
    import os
    if not os.path.exists(kind):
        raise ValueError(f"unknown agent {kind!r}: use heuristic, random or a model file")
    from ..agents.policy import load_policy
    pol = load_policy(kind, core, deterministic=not stochastic)
    return lambda states: int(pol(states, states[0]["legal"].astype(np.uint8)))


def play(args):
    """Play Dungeon Crawler Carl: Unstoppable (solo, or co-op with the heuristic)."""
    from ..envs.core.aec import DungeonAECEnv
    prog = "dungeonrl play dcc_unstoppable"
    try:
        agent = play_agent_name(args)
        if agent is None and "delay" in getattr(args, "given", set()):
            raise ValueError("--delay only applies when an agent plays (--agent, --random)")
        if args.stochastic and not is_model(agent):
            raise ValueError("--stochastic applies to a saved model (--agent PATH) only")
        env = DungeonAECEnv("dcc_unstoppable", render_mode="ansi", illegal_action="raise",
                            num_players=args.players, floor=args.floor,
                            difficulty=args.difficulty, mode=args.mode, crawler=args.crawler)
        core = env.core
        me = _policy(agent, core, args.seed + 1, args.stochastic) if agent else None
        mate = _policy("heuristic", core, args.seed + 2, False)
    except (ValueError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    names = core.spec.action_names
    for episode in range(args.episodes):
        if args.episodes > 1:
            print(f"\n=== game {episode + 1} of {args.episodes} (seed {args.seed + episode}) ===")
        env.reset(seed=args.seed + episode)
        decisions = 0
        final = {}
        stopped = False
        for who in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                final[who] = reward
                env.step(None)
                continue
            seat = int(who.split("_")[1])
            states = env._states
            if seat == 0:
                print()
                print(env.render())
            if seat == 0 and me is None:
                legal = np.flatnonzero(obs["action_mask"])
                print("Your legal actions:")
                for a in legal:
                    print(f"  {a:3d}  {names[a]:<22s} {core.action_label(states[0], int(a))}")
                a = _ask(legal, names)
                if a is None:
                    print("bye")
                    return 0
            else:
                a = (me if seat == 0 else mate)(states)
                label = core.action_label(states[0], int(a))
                print(f"> {'player_0' if seat == 0 else 'teammate'} plays {a} ({label})")
                if seat == 0 and args.delay:
                    time.sleep(args.delay)
            env.step(int(a))
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
