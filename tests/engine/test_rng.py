"""The shared generator (envs/core/kernel/rng.py): the shuffle is exactly the
sequence of ``rng_below`` draws it stands for, Lemire's acceptance step
rejects exactly the uneven products, and ``rng_choice_mask`` is the k-th
legal entry for one ``rng_below`` draw."""

from __future__ import annotations

import numpy as np
from numba import njit

from dungeonrl.envs.core.kernel.rng import (
    _accept,
    rng_below,
    rng_choice_mask,
    rng_seed,
    rng_shuffle,
)


@njit(cache=False)
def _shuffle_by_draws(r, arr, n):
    for i in range(n - 1, 0, -1):
        j = rng_below(r, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@njit(cache=False)
def _choices(r, masks, out):
    for i in range(masks.shape[0]):
        out[i] = rng_choice_mask(r, masks[i])


@njit(cache=False)
def _draws(r, counts, out):
    for i in range(counts.shape[0]):
        out[i] = rng_below(r, counts[i]) if counts[i] > 0 else -1


@njit(cache=False)
def _accept_all(xs, nn, out):
    for i in range(xs.shape[0]):
        out[i] = _accept(xs[i], nn)


def test_shuffle_is_the_draws_of_rng_below():
    for seed in range(200):
        for n in (0, 1, 2, 3, 17, 92, 300):
            a = np.zeros(2, np.uint64)
            rng_seed(a, seed, 5)
            b = a.copy()
            x = np.arange(max(n, 1), dtype=np.int16)
            y = x.copy()
            _shuffle_by_draws(a, x, n)
            rng_shuffle(b, y, n)
            assert np.array_equal(x, y) and np.array_equal(a, b), (seed, n)
            assert sorted(y.tolist()) == list(range(max(n, 1)))


def test_accept_rejects_exactly_the_uneven_products():
    rng = np.random.default_rng(0)
    xs = rng.integers(0, 2**32, size=4000, dtype=np.uint64)
    for nn in (2, 6, 92, 2**31 + 12345, 3_000_000_019, 2**32 - 1):
        got = np.zeros(len(xs), np.int64)
        _accept_all(xs, np.uint64(nn), got)
        threshold = (2**32 - nn) % nn
        for x, g in zip(xs.tolist(), got.tolist()):
            m = x * nn
            want = (m >> 32) if (m & 0xFFFFFFFF) >= threshold else -1
            assert g == want, (nn, x)
        if threshold > 2**30:
            assert (got < 0).any()  # these bounds reject often


def test_choice_mask_is_the_kth_legal_entry_of_one_draw():
    rng = np.random.default_rng(1)
    for width, density in ((1, 0.5), (7, 0.3), (80, 0.1), (80, 0.9), (131, 0.05)):
        masks = (rng.random((500, width)) < density).astype(np.int8)
        masks[::7] = 0  # rows with no legal action
        masks[3::11] *= np.int8(-3)  # any nonzero value counts as legal
        a = np.zeros(2, np.uint64)
        rng_seed(a, width, 3)
        b = a.copy()
        got = np.zeros(len(masks), np.int64)
        _choices(a, masks, got)
        ks = np.zeros(len(masks), np.int64)
        _draws(b, (masks != 0).sum(1).astype(np.int64), ks)
        assert np.array_equal(a, b)  # one draw per row with a legal action
        for row, g, k in zip(masks, got.tolist(), ks.tolist()):
            legal = np.flatnonzero(row)
            assert g == (legal[k] if len(legal) else -1)
