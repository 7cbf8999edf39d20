"""Dungeon Kart's information-state sampler (``GAME.infostate``; the
engine's ``core.resample_from_infostate``,
:mod:`dungeonrl.envs.core.infostate`).

What seat ``p`` cannot see (``state.py``: the encoder never reads it for
``p``), redrawn uniformly among the arrangements its observation allows:

* the spell card each other seat holds (``spell[q]``; whether it holds one
  is public, through its marker, and so is the draw pile it came from,
  ``T.card_deck``): for each draw pile, the pile's cards and the cards
  rivals hold from it are shuffled together; each holder (in seat order)
  takes one, the rest is the pile in the shuffled order;
* each draw pile's order (``deck[d, :deck_n[d]]``, above);
* the hazard bag's order (``bag[:bag_n]``);
* the generator, the stream seed and the forced-chance queue
  (:func:`~dungeonrl.envs.core.infostate.redraw_chance`).

Public and kept: the discard piles, every marker, ``p``'s own spell card,
the board. A held card whose pile is out of range (never reached by the
rules) stays where it is.
"""

from __future__ import annotations

import numpy as np

from ..core.infostate import redraw_chance, row_stream, shuffle_prefix
from ..core.kernel.jit import JIT, njit
from ..core.kernel.rng import rng_shuffle


@njit(**JIT)
def resample_kernel(states, p, key, card_deck):
    """Resample every row of ``states`` in place for seat ``p`` (see the
    module doc); ``card_deck[c]`` is the draw pile of spell card ``c``."""
    r = np.zeros(2, np.uint64)
    ncard = card_deck.shape[0]
    for i in range(states.shape[0]):
        st = states[i]
        row_stream(r, key, i)
        n = min(max(st.num_players, 0), st.spell.shape[0])
        for d in range(st.deck.shape[0]):
            k = min(max(st.deck_n[d], 0), st.deck.shape[1])
            pool = np.empty(k + n, np.int64)
            for j in range(k):
                pool[j] = st.deck[d, j]
            m = k
            for q in range(n):
                c = st.spell[q]
                if q != p and c >= 0 and c < ncard and card_deck[c] == d:
                    pool[m] = c
                    m += 1
            rng_shuffle(r, pool, m)
            for j in range(k):
                st.deck[d, j] = pool[j]
            for q in range(n):
                c = st.spell[q]
                if q != p and c >= 0 and c < ncard and card_deck[c] == d:
                    st.spell[q] = pool[k]
                    k += 1
        shuffle_prefix(r, st.bag, st.bag_n)
        redraw_chance(st, r)


def resample_rows(core, states, seat, key):
    """The declared sampler: ``states`` edited in place for ``seat``."""
    card_deck = np.ascontiguousarray(np.asarray(core.T.card_deck), dtype=np.int64)
    resample_kernel(states, int(seat), np.uint64(key), card_deck)
