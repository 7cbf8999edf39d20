"""Every chance event of every game goes through these functions.

They draw from the record's own counter generator (``st.rng``, see
:mod:`.rng`), so a game's randomness is per env, replayable from a snapshot
and independent of batch size or threads. Tests script outcomes through the
header's forced queue: :func:`force` (Python) appends results, and
:func:`roll` / :func:`below` consume them first, in order, before drawing.
A forced value out of range for the call raises nothing (kernels cannot):
it is clamped into range, so a scenario can never put the game into a
state the rules cannot reach.

A search agent or a test can list where chance happens by grepping a
game's rules for ``chance.``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .header import FORCED_CAP
from .jit import JIT
from .rng import rng_below, rng_shuffle


@njit(**JIT)
def _forced(st):
    """Next forced result, or -1 when the queue is empty."""
    if st.forced_i < st.forced_n:
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
def shuffle(st, arr, n):
    """Shuffle ``arr[:n]`` in place (never forced: tests set pile order
    directly)."""
    rng_shuffle(st.rng, arr, n)


def force(state, results) -> None:
    """Queue ``results`` (ints in 0..127) as the next chance results of one
    record (a test hook). Replaces what was queued before."""
    vals = [int(v) for v in results]
    if len(vals) > FORCED_CAP:
        raise ValueError(f"at most {FORCED_CAP} forced results, got {len(vals)}")
    if any(not 0 <= v <= 127 for v in vals):
        raise ValueError("forced results must be in 0..127")
    state["forced"][:] = 0
    state["forced"][:len(vals)] = vals
    state["forced_n"] = len(vals)
    state["forced_i"] = 0
