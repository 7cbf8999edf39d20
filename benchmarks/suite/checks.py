"""The policy of every benchmark (uniformly random *legal* actions) and the
legality checks that make a run fail on an illegal action."""

from __future__ import annotations

import numpy as np

from ...envs.core.kernel.borrow import borrow
from ...envs.core.kernel.jit import JIT, njit
from ...envs.core.kernel.rng import rng_choice_mask, rng_seed


@njit(**JIT)
def sample_from_masks(prng, masks, out):
    """One uniformly random legal action per row of ``masks`` (numba). The
    arguments are borrowed (no reference counting per row, as in the
    generated kernels' own random policy), so the benchmark's policy costs
    about what the in-kernel rollout's does."""
    prng = borrow(prng)
    masks = borrow(masks)
    out = borrow(out)
    for i in range(masks.shape[0]):
        out[i] = rng_choice_mask(prng, masks[i])


class IllegalActionInBenchmark(RuntimeError):
    """A benchmark sampled an action its mask forbids: the run is invalid."""


class RandomLegalSampler:
    """Uniformly random legal actions, the policy of every benchmark.

    ``batch(masks, out)``: one action per row of an int8 ``(n, A)`` mask, in
    numba; ``one(mask)``: one action of a 1-D mask; ``choice(legal)``: one
    element of a list of legal action ids (OpenSpiel)."""

    def __init__(self, seed: int = 0):
        self._sample = sample_from_masks
        self._prng = np.zeros(2, np.uint64)
        rng_seed(self._prng, int(seed), 7)
        self._gen = np.random.default_rng(seed)
        self._draws = self._gen.integers(0, 2**31 - 1, size=1 << 16).tolist()
        self._k = 0

    def _next(self) -> int:
        k = self._k
        if k == len(self._draws):
            self._draws = self._gen.integers(0, 2**31 - 1, size=1 << 16).tolist()
            k = 0
        self._k = k + 1
        return self._draws[k]

    def batch(self, masks: np.ndarray, out: np.ndarray) -> np.ndarray:
        self._sample(self._prng, masks, out)
        return out

    def one(self, mask) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            return -1
        return int(legal[self._next() % len(legal)])

    def choice(self, legal):
        return legal[self._next() % len(legal)]


class _Rows:
    """Cached ``arange(n)`` for the batch legality check."""

    def __init__(self):
        self._cache: dict[int, np.ndarray] = {}

    def __call__(self, n: int) -> np.ndarray:
        r = self._cache.get(n)
        if r is None:
            r = self._cache[n] = np.arange(n)
        return r


_ROWS = _Rows()


def check_batch(masks: np.ndarray, actions: np.ndarray, where: str) -> None:
    """Raise :class:`IllegalActionInBenchmark` unless every ``actions[i]`` is
    legal in ``masks[i]``."""
    n, num_actions = masks.shape
    a = np.asarray(actions)
    if a.shape != (n,):
        raise IllegalActionInBenchmark(f"{where}: actions of shape {a.shape}, expected {(n,)}")
    lo, hi = int(a.min()), int(a.max())
    if lo < 0 or hi >= num_actions:
        raise IllegalActionInBenchmark(
            f"{where}: sampled action {lo if lo < 0 else hi} outside [0, {num_actions})"
        )
    legal = masks[_ROWS(n), a]
    if not legal.all():
        i = int(np.flatnonzero(legal == 0)[0])
        raise IllegalActionInBenchmark(f"{where}: env {i} sampled illegal action {int(a[i])}")


def check_one(mask, action: int, where: str) -> None:
    if not 0 <= action < len(mask) or not mask[action]:
        raise IllegalActionInBenchmark(f"{where}: sampled illegal action {action}")
