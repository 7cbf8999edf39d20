"""The scripted Dungeon Crawler hero as an agent for any seat.

The policy itself (``choose``, numba) is part of the game:
``envs/dungeon_crawler/policy.py``; the loops that play it inside numba
(``policy_rows``, ``advance_scripted``, ``play_rows``) are the engine's,
generated into ``envs/dungeon_crawler/kernels.py``.
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.rng import rng_seed
from ..core.scripted import HeuristicAgent, scripted_advance  # noqa: F401  (re-exported)
from . import consts as C
from . import kernels  # noqa: F401  (generated on first use: lazy.game_exports)
from .kernels import (
    SCRIPTED_POLICY as SCRIPTED_HEURISTIC,
)
from .kernels import (
    SCRIPTED_RANDOM,
    play_rows,
    restart_batch,
)
from .kernels import advance_scripted as advance_scripted
from .kernels import policy_rows as policy_rows
from .policy import choose  # noqa: F401  (re-exported)


def policy_rollout(states, tabs, n_episodes, policy_seed, heuristic_seats, out):
    """Play ``n_episodes`` games per row (each restarting in place as its
    stream's next episode): seats whose bit is set in ``heuristic_seats``
    use the heuristic, the others uniform random legal moves; row ``i``'s
    generator is seeded from ``(policy_seed, i)``. ``out`` (int64[n, 9])
    accumulates wins per seat (0..7) and games without a winner (8)."""
    n = len(states)
    prng = np.zeros((n, 2), np.uint64)
    for i in range(n):
        rng_seed(prng[i], np.uint64(policy_seed), i)
    codes = np.zeros((n, C.MAX_P), np.int8)
    for p in range(C.MAX_P):
        codes[:, p] = SCRIPTED_HEURISTIC if (int(heuristic_seats) >> p) & 1 else SCRIPTED_RANDOM
    returns = np.zeros((n, C.MAX_P), np.float32)
    length = np.zeros(n, np.int64)
    for _ in range(int(n_episodes)):
        play_rows(states, tabs, codes, prng, returns, length)
        w = states["winner"].astype(np.int64)
        np.add.at(out, (np.arange(n), np.where(w >= 0, w, 8)), 1)
        restart_batch(states, tabs)
