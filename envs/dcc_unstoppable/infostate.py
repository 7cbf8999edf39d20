"""Dungeon Crawler Carl: Unstoppable's information-state sampler
(``GAME.infostate``; the engine's ``core.resample_from_infostate``,
:mod:`dungeonrl.envs.core.infostate`).

Solo or co-op: both seats see the same things (the teammate's hand is open,
``state.py``), so the sample does not depend on the seat. Redrawn, each
uniformly:

* every seat's deck below its top card (``deck[q, :deck_n[q] - 1]``; the
  top card is seen);
* each core deck below its top card (``cdeck[d, :cdeck_n[d] - 1]``);
* the threat deck, the upgrade deck and the dungeon (``tdeck``, ``udeck``,
  ``dungeon``: their whole order);
* the quests not yet dealt (``quest_order[quest_next:]``, the listed ones);
* the generator, the stream seed and the forced-chance queue
  (:func:`~dungeonrl.envs.core.infostate.redraw_chance`).

Not redrawn (a known limit): which threat side lies in a sleeve whose
threat was never revealed (``sl_seen == 0``). A sleeve is named by its
threat side in every zone, so redrawing it means renaming sleeves across
the whole record; the encoder never reads it, so samples still give every
seat its exact observation.
"""

from __future__ import annotations

import numpy as np

from ..core.infostate import redraw_chance, row_stream, shuffle_prefix
from ..core.kernel.jit import JIT, njit


@njit(**JIT)
def resample_kernel(states, key):
    """Resample every row of ``states`` in place (see the module doc)."""
    r = np.zeros(2, np.uint64)
    for i in range(states.shape[0]):
        st = states[i]
        row_stream(r, key, i)
        for q in range(st.deck.shape[0]):
            shuffle_prefix(r, st.deck[q], st.deck_n[q] - 1)  # the top card is seen
        for d in range(st.cdeck.shape[0]):
            shuffle_prefix(r, st.cdeck[d], st.cdeck_n[d] - 1)
        shuffle_prefix(r, st.tdeck, st.tdeck_n)
        shuffle_prefix(r, st.udeck, st.udeck_n)
        shuffle_prefix(r, st.dungeon, st.dungeon_n)
        q0 = max(st.quest_next, 0)
        end = q0
        while end < st.quest_order.shape[0] and st.quest_order[end] >= 0:
            end += 1
        if end > q0:
            shuffle_prefix(r, st.quest_order[q0:], end - q0)
        redraw_chance(st, r)


def resample_rows(core, states, seat, key):
    """The declared sampler: ``states`` edited in place (any ``seat``)."""
    resample_kernel(states, np.uint64(key))
