"""Every chance event of every game goes through these functions.

They draw from the record's own counter generator (``st.rng``, see
:mod:`.rng`), so a game's randomness is per env, replayable from a snapshot
and independent of batch size or threads.

Forced results (a test hook)
----------------------------
Tests script outcomes through the header's forced queue (``forced``,
``forced_n``, ``forced_i``; :data:`~.header.FORCED_CAP` entries). The Python
helper :func:`force` fills it; the chance functions consume it in order:

* a die or a draw: :func:`roll` / :func:`below` use the next entry when it
  is a result (0..127). A forced value out of range for the call raises
  nothing (kernels cannot): it is clamped into range, so a scenario can
  never put the game into a state the rules cannot reach.
* a shuffle: :func:`shuffle` uses the next entry when it is a forced
  **order** (written by ``force(state, [..., [p0, p1, ...], ...])`` or
  :func:`force_order`). An order lists positions of the pile *before* the
  shuffle; after it the pile holds the cards it does not list, in their
  old order, then the listed cards in the listed order. Piles keep their
  top as the last entry, so the listed cards end up on top and the last
  listed is the next card drawn. A full order ``perm`` of an ``n``-card
  pile turns ``arr`` into ``arr[perm]``; an empty order ``[]`` leaves the
  pile as it is. :func:`order_for` writes the order that turns one pile
  into a wanted one.

Each kind waits for its own call: a shuffle that meets a queued result
draws freely and leaves it queued, and so does a die that meets a queued
order. Unforced calls draw exactly as they would without the hook.

A forced shuffle is always a permutation of the pile: a position past the
pile's end is clamped to its last card, a position listed twice stands for
the next position not yet listed (wrapping round), and listed positions
beyond the pile's size are read and ignored.

Encoding (what :func:`force` writes; the kernels only ever see this): a
result is stored as itself (0..127); an order of ``k`` positions as the
marker ``-(k + 1)`` followed by ``-(p + 1)`` for each position ``p``
(0..127), so every entry of an order is negative. A marker whose positions
are cut short by the end of the queue (or by a result) uses the positions
it has.

A search agent or a test can list where chance happens by grepping a
game's rules for ``chance.``.
"""

from __future__ import annotations

import numpy as np

from .header import FORCED_CAP
from .jit import JIT, njit
from .rng import rng_below, rng_next, rng_seed, rng_shuffle

#: the most positions one forced order can list (its marker takes a slot)
ORDER_CAP = FORCED_CAP - 1


@njit(**JIT)
def _forced(st):
    """Next forced result, or -1 when the queue is empty or its next entry
    is a forced shuffle order (left queued for its shuffle)."""
    if st.forced_i < st.forced_n and st.forced[st.forced_i] >= 0:
        v = st.forced[st.forced_i]
        st.forced_i += 1
        return np.int64(v)
    return np.int64(-1)


@njit(**JIT)
def roll(st, sides):
    """A die with ``sides`` faces: 1..sides (forced results first)."""
    v = _forced(st)
    if v >= 1:
        return min(v, sides)
    if v == 0:
        return np.int64(1)
    return rng_below(st.rng, sides) + 1


@njit(**JIT)
def below(st, n):
    """Uniform integer in [0, n) (forced results first, read as 0-based)."""
    v = _forced(st)
    if v >= 0:
        return min(v, n - 1)
    return rng_below(st.rng, n)


@njit(**JIT)
def pick(st, n):
    """Uniform integer in [0, n), never forced (setup choices, tie-breaks)."""
    return rng_below(st.rng, n)


@njit(**JIT)
def _forced_shuffle(st, arr, n):
    """Consume the forced order at the head of the queue and apply it to
    ``arr[:n]`` (see the module doc); always a permutation."""
    k = -np.int64(st.forced[st.forced_i]) - 1
    st.forced_i += 1
    used = np.zeros(max(n, 1), np.bool_)
    pos = np.empty(FORCED_CAP, np.int64)
    m = 0
    read = 0
    while read < k and st.forced_i < st.forced_n and st.forced[st.forced_i] < 0:
        p = -np.int64(st.forced[st.forced_i]) - 1
        st.forced_i += 1
        read += 1
        if m >= n:
            continue  # more positions than cards: ignored
        p = min(p, n - 1)
        while used[p]:  # listed twice: the next free position
            p = (p + 1) % n
        used[p] = True
        pos[m] = p
        m += 1
    if n <= 1:
        return
    old = arr[:n].copy()
    j = 0
    for i in range(n):
        if not used[i]:
            arr[j] = old[i]
            j += 1
    for t in range(m):
        arr[j] = old[pos[t]]
        j += 1


@njit(**JIT)
def shuffle(st, arr, n):
    """Shuffle ``arr[:n]`` in place (a forced order first, see the module
    doc; otherwise an unbiased Fisher-Yates shuffle)."""
    if st.forced_i < st.forced_n and st.forced[st.forced_i] < 0:
        _forced_shuffle(st, arr, np.int64(n))
    else:
        rng_shuffle(st.rng, arr, n)


# --- redrawn chance (the information-state samplers, core.infostate; the search's
# rollouts, core.kernel.tree) -------------------------------------------------------
@njit(**JIT)
def row_stream(r, key, row):
    """Seed the scratch generator ``r`` (uint64[2]) for batch row ``row`` of
    the sample drawn from ``key``."""
    rng_seed(r, key, row)


@njit(**JIT)
def redraw_chance(st, r):
    """A fresh future for record ``st``: a new generator key (counter 0), a
    new stream seed, and the forced-chance queue emptied."""
    st.rng[0] = rng_next(r)
    st.rng[1] = np.uint64(0)
    st.seed = rng_next(r)
    for k in range(st.forced.shape[0]):
        st.forced[k] = 0
    st.forced_n = 0
    st.forced_i = 0


@njit(**JIT)
def shuffle_prefix(r, arr, n):
    """Shuffle ``arr[:n]`` in place (``n`` clipped to ``[0, len(arr)]``)."""
    m = min(max(n, 0), arr.shape[0])
    rng_shuffle(r, arr, m)


@njit(**JIT)
def redraw_chance_rows(states, key):
    """Redraw only the chance of every row (generator, stream seed, forced
    queue): the whole sampler of a game whose only hidden part is chance."""
    r = np.zeros(2, np.uint64)
    for i in range(states.shape[0]):
        row_stream(r, key, i)
        redraw_chance(states[i], r)


def _is_order(item) -> bool:
    return isinstance(item, (list, tuple, np.ndarray))


def _int(v, what):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int, got {v!r}")
    return int(v)


def encode(results) -> list:
    """The queue entries for ``results`` (see :func:`force`)."""
    out = []
    for item in results:
        if _is_order(item):
            order = [_int(p, "a forced shuffle position") for p in item]
            if len(order) > ORDER_CAP:
                raise ValueError(
                    f"a forced shuffle order lists at most {ORDER_CAP} positions, got {len(order)}"
                )
            if any(not 0 <= p <= 127 for p in order):
                raise ValueError(f"forced shuffle positions must be in 0..127, got {order}")
            if len(set(order)) != len(order):
                raise ValueError(f"a forced shuffle order lists each position once, got {order}")
            out.append(-(len(order) + 1))
            out.extend(-(p + 1) for p in order)
        else:
            v = _int(item, "a forced result")
            if not 0 <= v <= 127:
                raise ValueError(f"forced results must be in 0..127, got {v}")
            out.append(v)
    if len(out) > FORCED_CAP:
        raise ValueError(
            f"the forced queue holds at most {FORCED_CAP} entries (a result takes "
            f"one, an order of k positions k + 1), got {len(out)}"
        )
    return out


def force(state, results) -> None:
    """Queue ``results`` as the next chance results of one record (a test
    hook); replaces what was queued before. Each item is either a result
    for :func:`roll` / :func:`below` (an int in 0..127) or a forced shuffle
    order for :func:`shuffle` (a list of distinct positions in 0..127, at
    most :data:`ORDER_CAP`; see the module doc), e.g. ``force(st, [4,
    [2, 0, 1], 6])``: a 4, then the next shuffle's order, then a 6. Raises
    (before changing anything) when the queue would overflow
    (:data:`~.header.FORCED_CAP` entries) or a value is out of range."""
    vals = encode(results)
    state["forced"][:] = 0
    state["forced"][: len(vals)] = vals
    state["forced_n"] = len(vals)
    state["forced_i"] = 0


def force_order(state, order) -> None:
    """Queue one forced shuffle order (``force(state, [order])``)."""
    force(state, [order])


def order_for(before, after) -> list:
    """The forced order that turns the pile ``before`` into ``after``.

    ``after`` is either the whole wanted pile (a rearrangement of
    ``before``) or only its top part: the last ``len(after)`` cards, bottom
    to top, the rest keeping their order below them. Cards are matched by
    value, each card of ``before`` used once. A whole pile's order drops
    the positions that already sit in order at its bottom, so it fits the
    queue more often. Raises ``ValueError`` naming the card that ``before``
    lacks, or when the order is too long for the queue."""
    before = [int(x) for x in before]
    after = [int(x) for x in after]
    if len(after) > len(before):
        raise ValueError(f"after has {len(after)} cards, before only {len(before)}")
    free = list(range(len(before)))
    order = []
    for card in after:
        hit = next((i for i in free if before[i] == card), None)
        if hit is None:
            raise ValueError(f"card {card} of after is not (or no more) in before {before}")
        free.remove(hit)
        order.append(hit)
    if len(after) == len(before):
        # the cards not listed go first in their old order: a listed prefix
        # in increasing positions can be left out
        cut = 0
        while cut < len(order) and (cut == 0 or order[cut] > order[cut - 1]):
            cut += 1
        order = order[cut:] if cut < len(order) else []
        # (a fully increasing order is the identity: nothing to list)
    if len(order) > ORDER_CAP:
        raise ValueError(
            f"this order lists {len(order)} positions; a forced shuffle lists at most {ORDER_CAP}"
        )
    return order
