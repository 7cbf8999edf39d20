"""Unbroken's information-state sampler (``GAME.infostate``; the engine's
``core.resample_from_infostate``, :mod:`dungeonrl.envs.core.infostate`).

Unbroken is solo: the only hidden information is chance not yet drawn
(``state.py``: the encoder never reads these). The sampler redraws, for
seat 0:

* the encounter deck's order (``enc_deck[:enc_deck_n]``; the discard pile
  and the revealed cards stay);
* the skill deck's order (``skill_deck[:skill_deck_n]``; the offer and the
  owned skills stay);
* an unrevealed monster that was already chosen (``m_revealed == 0``,
  ``monster >= 0``; the rules choose and reveal in one go, so this is only
  met in edited records): drawn again from the Level's table as the
  rules' die would (``T.m_by_level``). A monster not yet chosen (``-1``)
  stays so: the die is rolled by the sample's new generator;
* the generator, the stream seed and the forced-chance queue (the engine's
  :func:`~dungeonrl.envs.core.infostate.redraw_chance`).
"""

from __future__ import annotations

import numpy as np

from ..core.infostate import redraw_chance, row_stream, shuffle_prefix
from ..core.kernel.jit import JIT, njit
from ..core.kernel.rng import rng_below


@njit(**JIT)
def resample_kernel(states, key, m_by_level):
    """Resample every row of ``states`` in place (see the module doc)."""
    r = np.zeros(2, np.uint64)
    nlev = m_by_level.shape[0]
    for i in range(states.shape[0]):
        st = states[i]
        row_stream(r, key, i)
        shuffle_prefix(r, st.enc_deck, st.enc_deck_n)
        shuffle_prefix(r, st.skill_deck, st.skill_deck_n)
        if st.m_revealed == 0 and st.monster >= 0:
            lv = min(max(st.level - 1, 0), nlev - 1)
            st.monster = m_by_level[lv, rng_below(r, m_by_level.shape[1])]
        redraw_chance(st, r)


def resample_rows(core, states, seat, key):
    """The declared sampler: ``states`` edited in place (``seat`` is 0)."""
    resample_kernel(states, np.uint64(key), np.ascontiguousarray(core.T.m_by_level))
