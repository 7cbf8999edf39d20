"""Dungeon Crawler's information-state sampler (``GAME.infostate``; the
engine's ``core.resample_from_infostate``,
:mod:`dungeonrl.envs.core.infostate`).

What seat ``p`` cannot see (``state.py``: the encoder never reads it for
``p``), redrawn uniformly among the arrangements its observation allows:

* the other seats' hands (``hand[q]``, counts per card type): each keeps
  its size; the cards of the rivals' hands, of the action deck and of a
  shop offer shown to another seat form one pool, which is shuffled; each
  rival in seat order is dealt its size in Hand cards (``T.card_kind ==
  K_HAND``: the only kind a hand holds) from the pool's order, then the
  hidden shop offer its size from the rest (any kind, as ``draw_card``
  deals it), and the rest, in the shuffled order, is the action deck;
* the action deck's order (``card_deck[:card_deck_n]``, above);
* an offer shown to another seat (``offer_seat != p``): a shop's cards as
  above; a draft, armory or chest offer's items with the item deck: the
  items of both are shuffled together, the offer keeps its size;
* the item deck's order (``item_deck[:item_deck_n]``);
* the generator, the stream seed and the forced-chance queue
  (:func:`~dungeonrl.envs.core.infostate.redraw_chance`).

Public and kept: every discard pile, equipment, the seats' hand sizes
(``hand_n``), ``p``'s own hand and an offer shown to ``p``. A record whose
rival hands hold other than Hand cards (never reached by the rules) keeps
its hands and has only its deck shuffled.
"""

from __future__ import annotations

import numpy as np

from ..core.infostate import redraw_chance, row_stream, shuffle_prefix
from ..core.kernel.jit import JIT, njit
from ..core.kernel.rng import rng_shuffle
from . import consts as C


@njit(**JIT)
def _resample_cards(st, r, p, hand_kind, shop_hidden):
    """Rivals' hands, the action deck and (``shop_hidden``) the shop offer."""
    n = min(max(st.num_players, 0), st.hand.shape[0])
    ncard = min(st.hand.shape[1], hand_kind.shape[0])
    dn = min(max(st.card_deck_n, 0), st.card_deck.shape[0])
    kn = min(max(st.offer_n, 0), st.offer.shape[0]) if shop_hidden else 0
    total = dn + kn
    for q in range(n):
        if q != p:
            for c in range(ncard):
                total += max(st.hand[q, c], 0)
    pool = np.empty(total, np.int64)
    m = 0
    for j in range(dn):
        pool[m] = st.card_deck[j]
        m += 1
    for j in range(kn):
        pool[m] = st.offer[j]
        m += 1
    need = 0
    ok = True
    for q in range(n):
        if q != p:
            for c in range(ncard):
                for _ in range(max(st.hand[q, c], 0)):
                    pool[m] = c
                    m += 1
                    need += 1
                    if hand_kind[c] == 0:
                        ok = False
    if not ok:
        shuffle_prefix(r, st.card_deck, dn)
        return
    rng_shuffle(r, pool, total)
    used = np.zeros(total, np.bool_)
    # rivals' hands, in seat order: the first Hand cards of the pool
    j = 0
    for q in range(n):
        if q == p:
            continue
        size = 0
        for c in range(ncard):
            size += max(st.hand[q, c], 0)
            st.hand[q, c] = 0
        while size > 0 and j < total:
            c = pool[j]
            if not used[j] and c >= 0 and c < ncard and hand_kind[c] != 0:
                st.hand[q, c] += 1
                used[j] = True
                size -= 1
            j += 1
    # the hidden shop offer, then the deck: the rest in the pool's order
    k = 0
    d = 0
    for j in range(total):
        if used[j]:
            continue
        if k < kn:
            st.offer[k] = pool[j]
            k += 1
        else:
            st.card_deck[d] = pool[j]
            d += 1


@njit(**JIT)
def _resample_items(st, r, offer_hidden):
    """The item deck's order and (``offer_hidden``) an item offer with it."""
    m = min(max(st.item_deck_n, 0), st.item_deck.shape[0])
    kn = min(max(st.offer_n, 0), st.offer.shape[0]) if offer_hidden else 0
    pool = np.empty(m + kn, np.int64)
    for j in range(m):
        pool[j] = st.item_deck[j]
    for j in range(kn):
        pool[m + j] = st.offer[j]
    rng_shuffle(r, pool, m + kn)
    for j in range(m):
        st.item_deck[j] = pool[j]
    for j in range(kn):
        st.offer[j] = pool[m + j]


@njit(**JIT)
def resample_kernel(states, p, key, hand_kind):
    """Resample every row of ``states`` in place for seat ``p`` (see the
    module doc); ``hand_kind[c]`` is 1 for a Hand card type."""
    r = np.zeros(2, np.uint64)
    for i in range(states.shape[0]):
        st = states[i]
        row_stream(r, key, i)
        kind = st.offer_kind
        hidden = kind != C.OF_NONE and st.offer_seat != p
        _resample_cards(st, r, p, hand_kind, hidden and kind == C.OF_SHOP)
        _resample_items(st, r, hidden and kind != C.OF_SHOP)
        redraw_chance(st, r)


def resample_rows(core, states, seat, key):
    """The declared sampler: ``states`` edited in place for ``seat``."""
    hand_kind = (np.asarray(core.T.card_kind) == C.K_HAND).astype(np.int8)
    resample_kernel(states, int(seat), np.uint64(key), hand_kind)
