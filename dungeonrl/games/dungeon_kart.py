"""``dungeonrl play dungeon_kart`` and ``dungeonrl bench dungeon_kart``.

play: a person drives seat 0 (``player_0``) in the terminal against rival
racers driven by the scripted heuristic (default), uniform random play or
trained models (``--opponents heuristic|random|PATH``, or a comma list, one
per rival seat; a model is a fast-path ``.pt`` or SB3 ``.zip`` saved by
``dungeonrl train dungeon_kart``, checked against the game and playing
greedily unless ``--stochastic``). ``--track NAME`` picks a track of the
content (default the Beginner Track). ``--pictures DIR`` saves the track
picture (the ``rgb_array`` render, PNG) at the start of every racer's turn
and at the end: ``DIR/game<G>_<K>.png`` in order.
The track (text) and every racer's status are printed before each of your
decisions; legal actions are listed by number, name and label; type a number
or a name (``help`` lists them again, ``q`` quits). ``--agent A`` lets agent
A take seat 0 (``--watch`` = ``--agent heuristic``, ``--random`` = ``--agent
random``); then the table is printed before each of its decisions, with
``--delay`` seconds after each. ``--episodes N`` plays N games (game i from
seed + i); ``--max-steps N`` (alias ``--max-turns``) ends each game after N
decisions of all seats.

bench: the suite benchmark restricted to this game (``--quick`` for a short
look).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from ..options import option, positive_int
from ..play import PlayOptions, is_model, play_agent_name


@dataclass
class KartPlayOptions(PlayOptions):
    """play Dungeon Kart"""

    max_steps: int | None = option(None, "end each game after this many decisions (all "
                                         "seats)", flags=("--max-steps", "--max-turns"),
                                   type=positive_int, default_text="the game's own end")
    players: int = option(3, "number of racers, 2-8", type=int, choices=tuple(range(2, 9)))
    track: str = option("Beginner Track", "track name of the content", metavar="NAME")
    pictures: str | None = option(None, "save the track picture (PNG) at every racer's turn "
                                        "into this folder", metavar="DIR",
                                  default_text="no pictures")
    opponents: str = option("heuristic", "the rivals: heuristic, random, a saved model, or "
                                         "a comma list, one per rival seat", metavar="KINDS")
    watch: bool = option(False, "the heuristic plays seat 0 as well (= --agent heuristic)")


def play_options(spec):
    return [KartPlayOptions]


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
    from ..envs.dungeon_kart.policy import policy_row
    from ..envs.core.rng import rng_seed

    prng = np.zeros(2, np.uint64)
    rng_seed(prng, seed, 99)
    rng = np.random.default_rng(seed)

    def heuristic(states, mask):
        return int(policy_row(states[0], core.TR[0], prng))

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
    """Drive a kart in the terminal against scripted or trained rivals, or watch."""
    from ..envs.core.aec import DungeonAECEnv
    prog = "dungeonrl play dungeon_kart"
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
    try:
        env = DungeonAECEnv("dungeon_kart", render_mode="ansi", illegal_action="raise",
                            num_players=args.players, track=args.track)
    except Exception as e:            # unknown track, too few start hexes
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    core = env.core
    names = core.spec.action_names
    try:
        rivals = _policies(kinds, core, args.seed, args.stochastic)
        me = (_policies([me_kind], core, args.seed + 1, args.stochastic)[0]
              if me_kind is not None else None)
    except (ValueError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    shots = _Pictures(args.pictures, core) if args.pictures else None
    for episode in range(args.episodes):
        if args.episodes > 1:
            print(f"\n=== game {episode + 1} of {args.episodes} (seed {args.seed + episode}) ===")
        env.reset(seed=args.seed + episode)
        decisions = 0
        final = {}
        stopped = False
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                final[agent] = reward
                env.step(None)
                continue
            seat = int(agent.split("_")[1])
            states = env._states
            mask = obs["action_mask"]
            if shots is not None:
                shots.turn(episode, states[0])
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
        if shots is not None:
            shots.save(episode, env._states[0])
        print()
        print(env.render())
        print("Final rewards: " + ", ".join(f"{a}={r:+.2f}" for a, r in sorted(final.items())))
        print(core.episode_info(env._states[0]))
    return 0


class _Pictures:
    """Saves the ``rgb_array`` picture at the start of each racer's turn."""

    def __init__(self, folder, core):
        import os
        os.makedirs(folder, exist_ok=True)
        self.folder, self.core = folder, core
        self.k = 0
        self.last = None

    def turn(self, episode, st):
        from ..envs.dungeon_kart import consts as C
        if int(st["phase"]) in (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH):
            return                          # the karts are not on the track yet
        key = (int(st["round"]), int(st["cur"]))
        if key != self.last:
            self.last = key
            self.save(episode, st)

    def save(self, episode, st):
        import os
        from PIL import Image
        path = os.path.join(self.folder, f"game{episode}_{self.k:04d}.png")
        Image.fromarray(self.core.render_rgb(st)).save(path)
        self.k += 1


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
    """The throughput suite restricted to Dungeon Kart."""
    try:
        from ..benchmarks.suite import main as suite_main
    except ImportError:
        print("dungeonrl bench dungeon_kart: the benchmark suite is not installed",
              file=sys.stderr)
        return 1
    return suite_main(["--games", "dungeon_kart", *args.argv])
