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
from dataclasses import dataclass

from ..agents.options import option
from ..envs.dcc_unstoppable import consts as C
from ..play import PlayOptions, play_aec, seat0_agent, seat_policies


@dataclass
class DCCPlayOptions(PlayOptions):
    """play Dungeon Crawler Carl: Unstoppable"""

    players: int = option(
        1, "1 (solo) or 2 (co-op with the heuristic as your teammate)", type=int, choices=(1, 2)
    )
    floor: int = option(1, "the floor to play", type=int, choices=(1, 2, 3))
    difficulty: str = option("normal", "difficulty", choices=tuple(C.DIFFICULTIES))
    mode: str = option(
        "arcade", "arcade (one standalone floor) or campaign rules", choices=tuple(C.MODES)
    )
    crawler: str = option("Carl", "the solo crawler (Carl or Princess Donut)")


def play_options(spec):
    return [DCCPlayOptions]


def play(args):
    """Play Dungeon Crawler Carl: Unstoppable (solo, or co-op with the heuristic)."""
    from ..envs.core.adapters.aec import DungeonAECEnv

    prog = "dungeonrl play dcc_unstoppable"
    try:
        agent = seat0_agent(args)
        env = DungeonAECEnv(
            "dcc_unstoppable",
            render_mode="ansi",
            illegal_action="raise",
            num_players=args.players,
            floor=args.floor,
            difficulty=args.difficulty,
            mode=args.mode,
            crawler=args.crawler,
        )
        me = seat_policies([agent], env.core, args.seed + 1, args.stochastic)[0] if agent else None
        mates = seat_policies(["heuristic"] * (args.players - 1), env.core, args.seed + 2)
    except (ValueError, OSError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    return play_aec(env, args, me, mates, announce="teammate")


from .suite_bench import bench, bench_options  # noqa: E402,F401  (``dungeonrl bench dcc_unstoppable``)
