"""TEST FIXTURE ONLY: the information-state sampler of the team fixture
"Relay" (``tests/fixture_team.py``, declared by ``RelayCore.game_entry``;
see :mod:`dungeonrl.envs.core.infostate`).

Everything in Relay is public but chance: the sampler redraws the
generator, the stream seed and the forced-chance queue of every row, and
nothing else.
"""

from __future__ import annotations

import numpy as np

from dungeonrl.envs.core.infostate import redraw_chance, row_stream
from dungeonrl.envs.core.kernel.jit import JIT, njit


@njit(**JIT)
def resample_kernel(states, key):
    r = np.zeros(2, np.uint64)
    for i in range(states.shape[0]):
        row_stream(r, key, i)
        redraw_chance(states[i], r)


def resample_rows(core, states, seat, key):
    """The declared sampler: ``states`` edited in place (any seat)."""
    resample_kernel(states, np.uint64(key))
