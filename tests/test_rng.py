"""The shared generator (envs/core/rng.py): the shuffle is exactly the
sequence of ``rng_below`` draws it stands for, and Lemire's acceptance
step rejects exactly the uneven products."""
from __future__ import annotations

import numpy as np
from numba import njit

from dungeonrl.envs.core.rng import _accept, rng_below, rng_seed, rng_shuffle


@njit(cache=False)
def _shuffle_by_draws(r, arr, n):
    for i in range(n - 1, 0, -1):
        j = rng_below(r, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


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
            assert (got < 0).any()           # these bounds reject often
