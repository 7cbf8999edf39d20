"""Dungeon Kart's entry in :mod:`dungeonrl.envs.core.hooks`.

Training and evaluation see the race through the self-play view
(:class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`): the learner owns one
seat (rotating between episodes), the others are played by the opponent
pool; scripted opponents (random legal, the heuristic of
``envs/dungeon_kart/policy.py``) play inside numba through the generated
kernels' ``advance_scripted`` / ``policy_rows``.

A learner episode is a win when its seat is ranked first at the end (the
``rank`` reward pays place k of n ``1 - 2k/(n-1)``, ties sharing: a
positive last reward at 2 players; ``win`` below reads the final record so
it also holds at more seats). Statistics per episode: ``place`` (the final
ranking spot 1..n of the learner's seat, ties the mean of their spots), ``finished``
(crossed the line), ``rounds`` and ``truncated`` (the round cap ended the
race).
"""

from __future__ import annotations

import numpy as np

from ..core.hooks import GameHooks, players_option
from ..core.kernel.header import O_TRUNCATED
from ..core.scripted import HeuristicAgent, scripted_advance
from . import kernels  # noqa: F401  (generated on first use: lazy.game_exports)
from .kernels import (  # noqa: F401  (re-exported)
    SCRIPTED_POLICY as SCRIPTED_HEURISTIC,
)
from .kernels import SCRIPTED_RANDOM as SCRIPTED_RANDOM
from .kernels import advance_scripted as advance_scripted
from .kernels import play_rows as play_rows
from .kernels import policy_rows as policy_rows
from .kernels import restart_batch as restart_batch


def final_rank(states) -> np.ndarray:
    """``(n, MAX_P)`` int: each seat's final ranking spot (1 = best; ties
    share, the next spots stay empty), from the final records: finishers by
    MP left at the line then coins, then the rest by Placement then coins
    (the order ``rules.rank_rewards`` pays). Unused seats get 0."""
    st = np.asarray(states).reshape(-1)
    n = st["num_players"].astype(np.int64)
    P = st["place"].shape[1]
    seat = np.arange(P)[None, :] < n[:, None]
    fin = st["finished"].astype(bool)
    key = np.where(
        fin,
        (np.int64(1) << 40) + st["finish_mp"].astype(np.int64) * 65536,
        (100 - st["place"].astype(np.int64)) * 65536,
    ) + st["coins"].astype(np.int64)
    key = np.where(seat, key, -1)
    better = (key[:, None, :] > key[:, :, None]).sum(axis=2)
    return np.where(seat, better + 1, 0)


def episode_stats(core, final_states, rows, last_reward) -> dict:
    """Per finished learner episode, from its last reward (the learner's
    seat is not in the record): ``place`` = the spot the reward pays, ``1 +
    (1 - r)(n - 1)/2`` (a tie gives the mean of the spots shared; a race
    stopped by the round cap pays 0, the middle spot, like a table-wide
    tie); ``win`` = ranked alone first."""
    fs = np.asarray(final_states)[rows]
    r = np.asarray(last_reward, np.float64)
    n = fs["num_players"].astype(np.float64)
    place = 1.0 + (1.0 - r) * (n - 1.0) / 2.0
    trunc = fs["outcome"] == O_TRUNCATED
    return {
        "win": ~trunc & (place < 1.0 + 1e-4),
        "place": place,
        "rounds": fs["round"].astype(np.float64),
        "truncated": trunc.astype(np.float64),
    }


def describe(core) -> str:
    return f"{core.num_players} players, {core.content.track_names[core.track]}"


HOOKS = GameHooks(
    episode_stats=episode_stats,
    heuristic=HeuristicAgent,
    core_options=(
        players_option("racers, 2..8 (train default: 2)"),
        (
            "--track",
            dict(
                dest="track",
                default=None,
                help="track name of the content (default: Beginner Track)",
            ),
        ),
    ),
    train_defaults={"num_players": 2},
    play_defaults={"num_players": 3},
    stat_columns=(("place", "mean place", "{:.2f}"), ("rounds", "mean rounds", "{:.1f}")),
    describe=describe,
    scripted_advance=scripted_advance,
    selfplay_defaults="self:0.4,heuristic:0.4,random:0.2",
)
