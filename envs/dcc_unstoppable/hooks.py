"""Dungeon Crawler Carl: Unstoppable's entry in :mod:`dungeonrl.envs.core.hooks`.

Solo (``--players 1``, the default) the game is a 1-player core: training
steps the fused batch directly and evaluation plays seeded games against
the scripted heuristic (``envs/dcc_unstoppable/policy.py``), which also
plays whole games inside numba here (:func:`play_whole_games`, through the
generated ``play_rows`` loop).

Co-op (``--players 2``) both seats form one team (``spec.teams``): the
learner takes one seat (rotating between episodes) of the self-play view
(:class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`) and its teammate is
drawn per episode from the partner pool (``self``: the learner's current
policy, refreshed every iteration; ``heuristic``; ``random``; saved
models). The rules pay both seats the same reward (+1 team win, -1 team
loss), so the learner is trained on the team's result.

Statistics per finished episode, read from the final records: ``win`` (the
team went down the stairs), ``turns`` (turns started), ``score`` (the
arcade score: XP x 100 on a won arcade game, 0 otherwise), ``health_loss``
/ ``skull`` (how a lost game was lost: a crawler at 0 health, the danger
marker on the skull) and ``truncated`` (the ``max_steps`` cap ended it).
"""

from __future__ import annotations

import numpy as np

from ..core.hooks import GameHooks, players_option
from ..core.kernel.header import O_TRUNCATED
from ..core.scripted import HeuristicAgent, scripted_advance
from ..core.scripted import play_whole_games as play_whole
from . import consts as C

__all__ = ["HOOKS", "episode_stats", "play_whole_games", "describe"]


def episode_stats(core, final_states, rows, last_reward) -> dict:
    """Per finished episode (see the module doc); the same for both seats of
    a co-op game (a team result)."""
    fs = np.asarray(final_states)[rows]
    out = fs["outcome"]
    return {
        "win": out == C.O_WIN,
        "turns": fs["turn"].astype(np.float64),
        "score": fs["score"].astype(np.float64),
        "health_loss": (out == C.O_LOSS_HEALTH).astype(np.float64),
        "skull": (out == C.O_LOSS_SKULL).astype(np.float64),
        "truncated": (out == O_TRUNCATED).astype(np.float64),
    }


def play_whole_games(core, policy: str, seeds: np.ndarray, policy_seed: int) -> dict | None:
    """Solo games ``seeds`` played to the end inside numba by the heuristic
    or random play (every seat, so a co-op core gives the team of two
    heuristics): :func:`~dungeonrl.envs.core.scripted.play_whole_games`."""
    return play_whole(core, policy, seeds, policy_seed, episode_stats)


def describe(core) -> str:
    o = core.options
    who = "solo" if core.num_players == 1 else f"{core.num_players}-player co-op"
    crawler = f", {o['crawler']}" if core.num_players == 1 else ""
    return f"{who}, Floor {o['floor']} {o['difficulty']}, {o['mode']}{crawler}"


HOOKS = GameHooks(
    episode_stats=episode_stats,
    heuristic=HeuristicAgent,
    play_whole_games=play_whole_games,
    core_options=(
        players_option(
            "1 (solo, default) or 2 (co-op: one learner seat, its teammate drawn from --partners)"
        ),
        (
            "--floor",
            dict(
                type=int,
                default=None,
                choices=tuple(range(1, C.NFLOOR + 1)),
                help="floor 1, 2 or 3 (default 1)",
            ),
        ),
        (
            "--difficulty",
            dict(
                default=None,
                choices=C.DIFFICULTIES,
                help="normal, hard, expert or unbeatable (default normal)",
            ),
        ),
        (
            "--mode",
            dict(default=None, choices=C.MODES, help="arcade or campaign (default arcade)"),
        ),
        (
            "--crawler",
            dict(default=None, help="solo crawler: Carl or Princess Donut (default Carl)"),
        ),
        ("--reward", dict(default=None, help="winloss (default: +1 team win, -1 loss) or score")),
    ),
    stat_columns=(("turns", "mean turns", "{:.1f}"),),
    describe=describe,
    scripted_advance=scripted_advance,
    selfplay_defaults="self:0.5,heuristic:0.5",
)
