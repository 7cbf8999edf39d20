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
from dataclasses import dataclass

from ..agents.options import option, positive_int
from ..play import PlayOptions, play_aec, rival_kinds, seat0_agent, seat_policies


@dataclass
class KartPlayOptions(PlayOptions):
    """play Dungeon Kart"""

    max_steps: int | None = option(
        None,
        "end each game after this many decisions (all seats)",
        flags=("--max-steps", "--max-turns"),
        type=positive_int,
        default_text="the game's own end",
    )
    players: int = option(3, "number of racers, 2-8", type=int, choices=tuple(range(2, 9)))
    track: str = option("Beginner Track", "track name of the content", metavar="NAME")
    pictures: str | None = option(
        None,
        "save the track picture (PNG) at every racer's turn into this folder",
        metavar="DIR",
        default_text="no pictures",
    )
    opponents: str = option(
        "heuristic",
        "the rivals: heuristic, random, pretrained:NAME, module:attribute, a saved model, "
        "or a comma list, one per rival seat",
        metavar="KINDS",
    )
    watch: bool = option(False, "the heuristic plays seat 0 as well (= --agent heuristic)")


def play_options(spec):
    return [KartPlayOptions]


def play(args):
    """Drive a kart in the terminal against scripted or trained rivals, or watch."""
    from ..envs.core.adapters.aec import DungeonAECEnv

    prog = "dungeonrl play dungeon_kart"
    try:
        kinds = rival_kinds(args.opponents, args.players)
        me_kind = seat0_agent(args, kinds)
    except ValueError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    if args.pictures is not None:
        import os

        folder = os.path.abspath(args.pictures)
        parent = folder
        while not os.path.exists(parent):
            parent = os.path.dirname(parent)
        if (
            not args.pictures
            or (os.path.exists(folder) and not os.path.isdir(folder))
            or not os.path.isdir(parent)
            or not os.access(parent, os.W_OK | os.X_OK)
        ):
            why = (
                "an empty path"
                if not args.pictures
                else "it exists and is not a folder"
                if os.path.exists(folder)
                else f"{parent!r} is not a writable folder"
            )
            print(
                f"{prog}: error: --pictures {args.pictures!r}: cannot save pictures there ({why})",
                file=sys.stderr,
            )
            return 2
    try:
        env = DungeonAECEnv(
            "dungeon_kart",
            render_mode="ansi",
            illegal_action="raise",
            num_players=args.players,
            track=args.track,
        )
    except Exception as e:  # unknown track, too few start hexes
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        rivals = seat_policies(kinds, env.core, args.seed, args.stochastic)
        me = (
            seat_policies([me_kind], env.core, args.seed + 1, args.stochastic)[0]
            if me_kind is not None
            else None
        )
    except (ValueError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    try:
        shots = _Pictures(args.pictures, env.core) if args.pictures else None
    except OSError as e:
        print(
            f"{prog}: error: --pictures {args.pictures!r}: cannot make the folder "
            f"({e.strerror or e})",
            file=sys.stderr,
        )
        return 2
    return play_aec(
        env,
        args,
        me,
        rivals,
        on_turn=shots.turn if shots is not None else None,
        on_end=shots.save if shots is not None else None,
    )


class _Pictures:
    """Saves the ``rgb_array`` picture at the start of each racer's turn."""

    def __init__(self, folder, core):
        import os

        if os.path.exists(folder) and not os.path.isdir(folder):
            raise NotADirectoryError(20, "it exists and is not a folder", folder)
        os.makedirs(folder, exist_ok=True)
        self.folder, self.core = folder, core
        self.k = 0
        self.last = None

    def turn(self, episode, st):
        from ..envs.dungeon_kart import consts as C

        if int(st["phase"]) in (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH):
            return  # the karts are not on the track yet
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


from .suite_bench import bench, bench_options  # noqa: E402,F401  (``dungeonrl bench dungeon_kart``)
