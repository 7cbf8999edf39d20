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
from dataclasses import dataclass

from ..agents.options import option, positive_int
from ..play import (
    PlayOptions,
    narration_extras,
    narrator,
    play_aec,
    rival_kinds,
    seat0_agent,
    seat_policies,
)


@dataclass
class CrawlerPlayOptions(PlayOptions):
    """play Dungeon Crawler"""

    max_steps: int | None = option(
        None,
        "end each game after this many decisions (all seats)",
        flags=("--max-steps", "--max-turns"),
        type=positive_int,
        default_text="the game's own end",
    )
    players: int = option(3, "number of heroes, 2-8", type=int, choices=tuple(range(2, 9)))
    opponents: str = option(
        "heuristic",
        "the rivals: heuristic, random, pretrained:NAME, module:attribute, a saved model, "
        "or a comma list, one per rival seat",
        metavar="KINDS",
    )
    watch: bool = option(False, "the heuristic plays seat 0 as well (= --agent heuristic)")


def play_options(spec):
    return [CrawlerPlayOptions]


def play(args):
    """Take a seat at Dungeon Crawler in the terminal, or watch agents play."""
    from ..envs.core.adapters.aec import DungeonAECEnv

    prog = "dungeonrl play dungeon_crawler"
    try:
        kinds = rival_kinds(args.opponents, args.players)
        me_kind = seat0_agent(args, kinds)
        env = DungeonAECEnv(
            "dungeon_crawler", render_mode="ansi", illegal_action="raise", num_players=args.players
        )
        rivals = seat_policies(kinds, env.core, args.seed, args.stochastic)
        me = (
            seat_policies([me_kind], env.core, args.seed + 1, args.stochastic)[0]
            if me_kind is not None
            else None
        )
    except (ValueError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    legend, hand_text = narration_extras("dungeon_crawler")
    return play_aec(
        env,
        args,
        me,
        rivals,
        narrate=narrator("dungeon_crawler"),
        legend=legend,
        hand_text=hand_text,
    )


from .suite_bench import bench, bench_options  # noqa: E402,F401  (``dungeonrl bench dungeon_crawler``)
