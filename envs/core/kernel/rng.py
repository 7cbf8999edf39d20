"""Per-environment counter-based random numbers for numba kernels.

Every environment carries its own generator state: two ``uint64`` words,
``key`` (fixed at reset from the seed) and ``ctr`` (a counter advanced by one
per draw). A draw is a strong 64-bit mix (the SplitMix64 finaliser) of
``key + ctr * golden``. Because the output depends only on ``(key, ctr)``,
results never depend on batch size, batch order or thread count, and a
snapshot of the state record restores the stream exactly.

All chance in the rules goes through the few functions here (``rng_below``,
``rng_die``, ``rng_shuffle``), so tests can find and force it.

The state lives in a ``uint64[2]`` array (a field of each game's state
record): ``r[0]`` is the key, ``r[1]`` the counter.
"""

from __future__ import annotations

import numpy as np

from .jit import JIT, JIT_INLINE, njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(**JIT)
def mix64(z):
    """SplitMix64 finaliser: a bijective avalanche mix of one uint64."""
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(**JIT)
def rng_seed(r, seed, stream):
    """Set the generator from a user seed and a stream number (e.g. episode)."""
    r[0] = mix64(mix64(np.uint64(seed)) ^ (np.uint64(stream) * _GOLDEN + np.uint64(1)))
    r[1] = np.uint64(0)


@njit(**JIT)
def rng_next(r):
    """Next raw uint64 of this generator."""
    c = r[1] + np.uint64(1)
    r[1] = c
    return mix64(r[0] + c * _GOLDEN)


_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1) << np.uint64(32)


@njit(**JIT_INLINE)
def _accept(x, nn):
    """Lemire's map of 32 random bits ``x`` to [0, nn): the value, or -1 for
    the few low products that would make the map uneven (draw again)."""
    m = x * nn
    low = m & _MASK32
    if low >= nn:
        return np.int64(m >> np.uint64(32))
    t = (_TWO32 - nn) % nn  # a division only in this rare case
    if low >= t:
        return np.int64(m >> np.uint64(32))
    return np.int64(-1)


@njit(**JIT)
def rng_below(r, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32, without bias: Lemire's
    multiply-and-shift on 32 random bits, rejecting the few low products
    that would make the map uneven (a division only in that rare case)."""
    nn = np.uint64(n)
    if nn <= np.uint64(1):
        return 0
    while True:
        v = _accept(rng_next(r) >> np.uint64(32), nn)
        if v >= 0:
            return v


@njit(**JIT)
def rng_die(r):
    """A six-sided die: 1..6."""
    return rng_below(r, 6) + 1


@njit(**JIT)
def rng_shuffle(r, arr, n):
    """Unbiased Fisher-Yates shuffle of ``arr[:n]`` in place: the draws of
    ``rng_below(r, i + 1)`` for i = n-1 .. 1, with the counter kept in a
    register for the whole shuffle (``arr`` often lies in the same record
    as ``r``, so a store to it would otherwise force a reload of the counter
    on every draw)."""
    key = r[0]
    c = r[1]
    for i in range(n - 1, 0, -1):
        nn = np.uint64(i + 1)
        while True:
            c += np.uint64(1)
            j = _accept(mix64(key + c * _GOLDEN) >> np.uint64(32), nn)
            if j >= 0:
                break
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
    r[1] = c


@njit(**JIT_INLINE)
def rng_choice_mask(r, mask):
    """A uniformly random index among the nonzero entries of ``mask`` (a
    legal-action mask); -1 if there is none. The k-th nonzero entry for
    ``k = rng_below(r, count)``. Inlined into its caller; the count adds
    ``mask[a] != 0`` without a branch (the compiler vectorises it)."""
    n = 0
    for a in range(mask.shape[0]):
        n += mask[a] != 0
    if n == 0:
        return -1
    k = rng_below(r, n)
    for a in range(mask.shape[0]):
        k -= mask[a] != 0
        if k < 0:
            return a
    return -1
