"""Deck and zone helpers over fixed arrays, for numba kernels.

A *pile* is an int array ``cards`` plus a count stored elsewhere (a field of
the state record); ``cards[:count]`` holds the card ids, the top of the pile
being the last element. Empty slots hold -1. All helpers return the new count
so a kernel writes it back to its record field.
"""

from __future__ import annotations

from . import chance
from .jit import JIT, njit


@njit(**JIT)
def pile_push(cards, count, card):
    """Put ``card`` on top; returns the new count."""
    cards[count] = card
    return count + 1


@njit(**JIT)
def pile_pop(cards, count):
    """Take the top card; returns (card, new count). card is -1 if empty."""
    if count <= 0:
        return -1, 0
    c = cards[count - 1]
    cards[count - 1] = -1
    return c, count - 1


@njit(**JIT)
def pile_remove(cards, count, card):
    """Remove one copy of ``card`` keeping the order; returns the new count
    (unchanged if the card is absent)."""
    for i in range(count):
        if cards[i] == card:
            for j in range(i, count - 1):
                cards[j] = cards[j + 1]
            cards[count - 1] = -1
            return count - 1
    return count


@njit(**JIT)
def pile_contains(cards, count, card):
    for i in range(count):
        if cards[i] == card:
            return True
    return False


@njit(**JIT)
def pile_refill(st, deck, deck_n, discard, discard_n):
    """Shuffle the whole discard pile under the deck (the deck is normally
    empty when this is called) with ``chance.shuffle`` on the record ``st``
    (so a test can force the new order). Returns (new deck count, new
    discard count)."""
    start = deck_n
    # move the discards below the existing deck cards, then shuffle only them
    for i in range(deck_n - 1, -1, -1):
        deck[i + discard_n] = deck[i]
    for i in range(discard_n):
        deck[i] = discard[i]
        discard[i] = -1
    chance.shuffle(st, deck, discard_n)
    return start + discard_n, 0


@njit(**JIT)
def pile_draw(st, deck, deck_n, discard, discard_n):
    """Draw the top card, reshuffling the discard pile into the deck first if
    the deck is empty. Returns (card, deck count, discard count); card is -1
    when both piles are empty."""
    if deck_n == 0 and discard_n > 0:
        deck_n, discard_n = pile_refill(st, deck, deck_n, discard, discard_n)
    c, deck_n = pile_pop(deck, deck_n)
    return c, deck_n, discard_n


@njit(**JIT)
def pile_new_deck(st, deck, discard, cards, n):
    """Start a game's deck: the first ``n`` of ``cards`` shuffled with
    ``chance.shuffle`` on the record ``st``, the rest of ``deck`` and the
    whole ``discard`` pile empty (-1). Returns (deck count, discard count)."""
    for i in range(deck.shape[0]):
        deck[i] = cards[i] if i < n else -1
    for i in range(discard.shape[0]):
        discard[i] = -1
    chance.shuffle(st, deck, n)
    return n, 0
