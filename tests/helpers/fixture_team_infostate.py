"""TEST FIXTURE ONLY: the information-state sampler of the team fixture
"Relay" (``tests/helpers/fixture_team.py``, declared by ``RelayCore.game_entry``;
see :mod:`dungeonrl.envs.core.infostate`).

Everything in Relay is public but chance: the sampler redraws the
generator, the stream seed and the forced-chance queue of every row, and
nothing else.
"""

from __future__ import annotations

import numpy as np

from dungeonrl.envs.core.infostate import redraw_chance_rows


def resample_rows(core, states, seat, key):
    """The declared sampler: ``states`` edited in place (any seat)."""
    redraw_chance_rows(states, np.uint64(key))
