"""Unbroken's entry in :mod:`dungeonrl.envs.core.hooks`: episode statistics
from the final records, the scripted heuristic (``envs/unbroken/policy.py``)
as the engine's batched agent (its tie-break generator goes unused: the
policy has no ties), and whole-game numba evaluation through the generated
loops re-exported by ``envs/unbroken/heuristic.py``."""

from __future__ import annotations

import numpy as np

from ..core.hooks import GameHooks
from ..core.scripted import HeuristicAgent
from . import consts as C
from .core import CHARACTERS, REWARDS
from .heuristic import POLICY_HEURISTIC, POLICY_RANDOM, play_games


def episode_stats(core, final_states, rows, last_reward) -> dict:
    rec = final_states[rows]
    win = rec["outcome"] == C.O_WIN
    return {
        "win": win,
        "level": rec["level"].astype(np.float64),
        "score": np.where(win, rec["score"], 0).astype(np.float64),
    }


def play_whole_games(core, policy: str, seeds: np.ndarray, policy_seed: int) -> dict | None:
    """Play each seed's game to the end inside numba (``play_games``); the
    game of seed ``s`` is the one ``core.reset`` starts from ``s``. Returns
    ``None`` for a core whose auto-advance or step cap is not the default
    (``play_games`` plays that configuration only)."""
    if core.auto_advance != 1 or core.max_steps != 3000:
        return None  # play_games plays the default configuration only
    pol = {"random": POLICY_RANDOM, "heuristic": POLICY_HEURISTIC}[policy]
    n = len(seeds)
    states = core.alloc(n)
    out = np.zeros(n, np.int8)
    lv = np.zeros(n, np.int8)
    sc = np.zeros(n, np.int16)
    ln = np.zeros(n, np.int32)
    play_games(
        core.TR,
        states,
        np.ascontiguousarray(seeds, np.uint64),
        core.character,
        core.difficulty,
        pol,
        np.uint64(policy_seed),
        out,
        lv,
        sc,
        ln,
    )
    win = out == C.O_WIN
    return {
        "win": win,
        "level": lv.astype(np.float64),
        "score": np.where(win, sc, 0).astype(np.float64),
        "length": ln.astype(np.int64),
    }


def describe(core) -> str:
    ch = "random" if core.character < 0 else CHARACTERS[core.character]
    return f"character={ch} difficulty={C.DIFFICULTIES[core.difficulty]}"


HOOKS = GameHooks(
    episode_stats=episode_stats,
    heuristic=HeuristicAgent,
    play_whole_games=play_whole_games,
    core_options=(
        (
            "--character",
            dict(
                default=None,
                choices=(*CHARACTERS, "random"),
                help="sneak, sage, hunter, brawler or random (default sneak)",
            ),
        ),
        (
            "--difficulty",
            dict(
                default=None,
                choices=tuple(C.DIFFICULTIES),
                help="easy, normal or hard (default normal)",
            ),
        ),
        (
            "--reward",
            dict(
                default=None,
                choices=REWARDS,
                help="win_loss or score (train default: score, which also pays "
                "for the Levels a lost game reached)",
            ),
        ),
    ),
    train_defaults={"reward": "score"},
    stat_columns=(("level", "mean Level", "{:.2f}"),),
    describe=describe,
)
