"""The scripted Unbroken player as an agent, and whole-game evaluation.

The policy itself (numba) is part of the game: ``envs/unbroken/policy.py``;
the loops that play it inside numba are the engine's, generated into
``envs/unbroken/kernels.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.rng import rng_seed
from . import kernels  # noqa: F401  (generated on first use: lazy.game_exports)
from .kernels import (  # noqa: F401  (re-exported)
    SCRIPTED_POLICY as POLICY_HEURISTIC,
)
from .kernels import SCRIPTED_RANDOM as POLICY_RANDOM  # noqa: F401  (re-exported)
from .kernels import (
    play_rows,
    reset_batch,
)
from .kernels import policy_rows as policy_rows
from .policy import heuristic_action  # noqa: F401  (re-exported)


def play_games(
    tabs,
    states,
    seeds,
    cfg_character,
    difficulty,
    policy,
    policy_seed,
    outcome,
    level,
    score,
    length,
):
    """Play one whole game per row from ``seeds[i]`` inside numba with
    ``policy`` (``POLICY_RANDOM`` or ``POLICY_HEURISTIC``), in the default
    configuration (auto-advance, 3,000-decision cap); write each game's
    outcome, Level reached, score and number of decisions. Row ``i``'s policy
    generator is seeded from ``(policy_seed, seeds[i])``, so a game's result
    does not depend on the batch it is played in."""
    seeds = np.ascontiguousarray(seeds, np.uint64)
    n = len(states)
    reset_batch(
        states,
        tabs,
        seeds,
        np.ones(n, np.int8),
        3000,
        1,
        0,
        np.array([cfg_character, difficulty], np.int64),
    )
    prng = np.zeros((n, 2), np.uint64)
    for i in range(n):
        rng_seed(prng[i], np.uint64(policy_seed), seeds[i])
    returns = np.zeros((n, 1), np.float32)
    steps = np.zeros(n, np.int64)
    play_rows(states, tabs, np.full((n, 1), policy, np.int8), prng, returns, steps)
    outcome[:] = states["outcome"]
    level[:] = states["level"]
    score[:] = states["score"]
    length[:] = steps
