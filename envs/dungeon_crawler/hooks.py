"""Dungeon Crawler's entry in :mod:`dungeonrl.envs.core.hooks`.

Training and evaluation see the game through the self-play view
(:class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`): the learner owns one
seat (rotating between episodes), the others are played by the opponent
pool. A learner episode is a win when its seat killed the final boss: with
either reward mode that is exactly a positive reward on the last step
(``zero_sum`` pays the winner +1 and every other seat -1/(N-1);
``winner_only`` pays the winner +1).
"""

from __future__ import annotations

import numpy as np

from ..core.hooks import GameHooks, players_option
from . import consts as C
from .heuristic import HeuristicAgent, scripted_advance


def episode_stats(core, final_states, rows, last_reward) -> dict:
    fs = final_states[rows]
    return {
        "win": np.asarray(last_reward) > 0,
        "rounds": fs["round"].astype(np.float64),
        "truncated": (fs["outcome"] == C.O_TRUNCATED).astype(np.float64),
    }


def describe(core) -> str:
    return f"{core.num_players} players"


HOOKS = GameHooks(
    episode_stats=episode_stats,
    heuristic=HeuristicAgent,
    core_options=(players_option("seats at the table, 2..8 (train default: 2)"),),
    train_defaults={"num_players": 2},
    play_defaults={"num_players": 3},
    stat_columns=(("rounds", "mean rounds", "{:.1f}"),),
    describe=describe,
    scripted_advance=scripted_advance,
    selfplay_defaults="self:0.4,heuristic:0.4,random:0.2",
)
