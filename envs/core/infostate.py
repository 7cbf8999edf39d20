"""Information-state sampling: a copy of a game in which everything one seat
cannot see is drawn again, consistently with what it sees.

OpenSpiel calls this ``resample_from_infostate``; determinized search
(perfect-information Monte Carlo, information-set MCTS) and approximate best
responses play out such samples instead of the true, hidden state. Every
game of the suite offers it on its core::

    alt = core.resample_from_infostate(states, seat, rng)

Arguments
---------
``state``: one record (a ``numpy.void`` of ``core.state_dtype``) or a 1-D
array of records (a batch; every row is sampled on its own, so
``np.repeat(row, k)`` gives ``k`` samples of one state in one call). The
input is never written.

``seat``: the seat whose view is kept (an int in ``0 .. core.num_players -
1``; bools, floats and other seats raise ``ValueError``, naming the range).

``rng``: a ``numpy.random.Generator`` (one uint64 is drawn from it, so
successive calls with the same generator give new samples) or an int seed
in ``[0, 2**64)`` (the same seed and state always give the same sample).
The sampling itself runs in a compiled kernel on the project's own
counter-based generator (:mod:`.kernel.rng`): row ``i`` draws from the
stream ``(seed, i)``, so a row's sample does not depend on the batch size
or on the other rows.

Result: a new 1-D array of ``core.state_dtype`` (one row per input row; a
1-row array for a single record) with the same fields the seat can see and
these redrawn:

* what the game declares hidden from the seat (deck orders, the other
  seats' hands or held cards, unrevealed cards: each game's
  ``envs/<game>/infostate.py`` says what exactly);
* the chance of the future: the generator (``rng``: a fresh key, counter
  0), the stream seed (``seed``: the next episode of an autoreset stream)
  and the forced-chance test queue, emptied (``forced_n = forced_i = 0``),
  so the sample's future chance is random again;
* the stored legal mask, recomputed from the sampled record (the seat's
  own mask is unchanged; another seat to act may hold other cards).

The fact that the game waits on a decision is information too: with
``auto_advance`` on, the engine takes a decision with one legal action
itself, so a live record whose seat to act (another seat) is left with
fewer than two legal actions (fewer than one without ``auto_advance``, and
never more than the record had) is not consistent with what ``seat``
sees. Such a row is drawn again (from a stream of its own: the row index
and the attempt), up to :data:`MAX_REDRAWS` times; a row still refused
after them keeps its hidden cards and has only its chance redrawn.

Hidden parts are redrawn *uniformly* among the arrangements consistent with
the seat's observation of this record (sizes of hands and piles kept, each
card within the pile it can come from); the rivals' past choices are not
used to weigh them (no model of their policy), as in OpenSpiel's samplers.
The record is trusted as ``step`` trusts it: counts are clipped to their
arrays, so a corrupt record never makes the kernel read out of bounds, but
its sample is unspecified; pass a record from outside through
``core.check_state`` first.

Declaring a sampler
-------------------
A game names its sampler in its declaration (``GameEntry.infostate`` in
``envs/<game>/game.toml``, ``"module:function"``); a core outside the catalog
(a test fixture) sets ``game_entry`` to its own :class:`GameEntry`. The
function is called as ``fn(core, states, seat, key)`` and edits ``states``
(a fresh C-contiguous copy) in place, drawing from ``key`` (a uint64) with
the helpers below (:func:`row_stream` per row, :func:`redraw_chance` on
every row); the engine checks the arguments, copies, checks that every
row's generator was redrawn, and refreshes the stored masks. A
game without a sampler raises ``NotImplementedError`` naming the field to
declare.
"""

from __future__ import annotations

import functools
import importlib

import numpy as np
from numba.core import config

from .kernel.chance import redraw_chance, redraw_chance_rows, row_stream, shuffle_prefix
from .kernel.header import O_PLAYING
from .kernel.rng import mix64

#: draws of one row before it keeps its hidden cards (see the module doc)
MAX_REDRAWS = 64
_GOLDEN = 0x9E3779B97F4A7C15

__all__ = [
    "resample_from_infostate",
    "resample_with_key",
    "sampler_of",
    "seed_key",
    "check_seat",
    "row_stream",
    "redraw_chance",
    "redraw_chance_rows",
    "resample_chance",
    "shuffle_prefix",
]


# =====================================================================================
# kernel helpers (called from each game's sampler kernel): row_stream,
# redraw_chance, redraw_chance_rows and shuffle_prefix live in core.kernel.chance
# (the search's compiled rollouts redraw chance too) and are named here
# =====================================================================================
# Python side: arguments, declaration, the call
# =====================================================================================
def seed_key(rng) -> np.uint64:
    """The uint64 a sample is drawn from: an int seed in ``[0, 2**64)``
    (mixed, so nearby seeds give unrelated samples), or one draw of a
    ``numpy.random.Generator``. Anything else raises ``TypeError``."""
    if isinstance(rng, np.random.Generator):
        # the bit generator's next 64 bits: what rng.integers(0, 2**64,
        # dtype=np.uint64) returns (its full range takes them as they are),
        # without its argument handling
        return np.uint64(rng.bit_generator.random_raw())
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (int, np.integer)):
        raise TypeError(
            "rng must be a numpy.random.Generator or an int seed in [0, 2**64), got "
            f"{type(rng).__name__} {rng!r}"[:200]
        )
    s = int(rng)
    if not 0 <= s < 2**64:
        raise ValueError(f"rng seed must be in [0, 2**64), got {s}")
    return np.uint64(mix64(np.uint64(s)))


def check_seat(core, states: np.ndarray, seat) -> int:
    """``seat`` as an int, when every row of ``states`` seats it; else
    ``ValueError`` naming the seats there are."""
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)):
        raise ValueError(f"seat must be an integer, got {type(seat).__name__} {seat!r}"[:200])
    s = int(seat)
    n = int(core.num_players)
    if len(states):
        n = min(n, int(states["num_players"].min()))
    if not 0 <= s < n:
        raise ValueError(
            f"seat {s} is out of range: {core.spec.name} is played here by {n} seat(s), 0..{n - 1}"
        )
    return s


def resample_chance(states: np.ndarray, rng) -> None:
    """Give every row of ``states`` (a 1-D record array, edited in place) a
    fresh future: its generator, stream seed and forced-chance queue redrawn
    from ``rng`` (as :func:`seed_key` takes it), nothing else changed. What
    a seat sees is untouched, so copies of one determinization become
    independent futures of it (the search's rollouts)."""
    redraw_chance_rows(_kernel_view(states), seed_key(rng))


_SAMPLERS: dict = {}


def sampler_of(core):
    """The game's declared sampler function (see the module doc)."""
    key = (core.spec.name, getattr(getattr(core, "game_entry", None), "infostate", None))
    fn = _SAMPLERS.get(key)
    if fn is None:
        fn = _SAMPLERS[key] = _find_sampler(core)
    return fn


def _find_sampler(core):
    entry = getattr(core, "game_entry", None)
    name = core.spec.name
    if entry is None:
        from .. import catalog

        entry = catalog.ENTRIES.get(name)
    target = getattr(entry, "infostate", None)
    if not target:
        raise NotImplementedError(
            f"{name} declares no information-state sampler: set infostate="
            f"'module:function' in its declaration (envs/{name}/game.toml)"
        )
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def resample_from_infostate(core, state, seat, rng) -> np.ndarray:
    """See the module doc (``core.resample_from_infostate`` calls this)."""
    fn, src, states, s = _prepare(core, state, seat)
    return _sample(core, fn, src, states, s, seed_key(rng))


def resample_with_key(core, state, seat, key) -> np.ndarray:
    """:func:`resample_from_infostate` drawn from ``key``, a uint64 taken as
    it is (not mixed): the sample a generator whose next raw draw is ``key``
    gives. For a caller that draws its generator's raw output ahead (the
    search agent's compiled tree)."""
    fn, src, states, s = _prepare(core, state, seat)
    return _sample(core, fn, src, states, s, np.uint64(key))


def resample_into(core, root, out, seat, key) -> None:
    """``len(out)`` samples of the one record ``root`` (a 1-row record
    array, checked by the caller) for ``seat``, written into ``out`` (a
    record array of the core's dtype): the rows :func:`resample_with_key`
    gives for ``np.repeat(root, len(out))`` and ``key``, without its fresh
    arrays (the search agent's compiled tree fills its pool with it)."""
    fn = sampler_of(core)
    _copy_bytes(out, root.reshape(-1)[:1])
    src = np.broadcast_to(root.reshape(-1)[:1], (len(out),))
    _sample(core, fn, src, out, int(seat), np.uint64(key))


def _prepare(core, state, seat) -> tuple:
    """The sampler, the input rows, their fresh copy and the seat, checked."""
    fn = sampler_of(core)
    if not (isinstance(state, np.void) or (isinstance(state, np.ndarray) and state.ndim <= 1)):
        raise TypeError(
            "state must be one record or a 1-D array of records, got "
            f"{type(state).__name__} {getattr(state, 'shape', '')}"
        )
    if state.dtype != core.state_dtype:
        raise TypeError(
            f"state has dtype {state.dtype}, not the {core.spec.name} record dtype of this core"
        )
    # the padding bytes of the aligned record are zero in the copy, so equal
    # samples have equal ``tobytes()``
    src = state.reshape(-1) if isinstance(state, np.ndarray) else np.array([state])
    if src.flags.c_contiguous:  # one byte copy (numpy copies records field by field)
        states = np.empty(len(src), dtype=core.state_dtype)
        _copy_bytes(states, src)
    else:
        states = np.zeros(len(src), dtype=core.state_dtype)
        states[:] = src
    return fn, src, states, check_seat(core, states, seat)


def _copy_bytes(out: np.ndarray, src: np.ndarray) -> None:
    """The records ``src`` (one row, or as many as ``out``; contiguous)
    copied into ``out`` as bytes, the padding bytes zeroed, so equal
    samples have equal ``tobytes()``."""
    raw = out.view(np.uint8).reshape(len(out), -1)
    raw[:] = src.view(np.uint8).reshape(len(src), -1)
    pad = _padding(out.dtype)
    if len(pad):
        raw[:, pad] = 0


@functools.lru_cache(maxsize=64)
def _padding(dtype: np.dtype) -> np.ndarray:
    """The byte offsets of a record dtype that no field covers."""
    covered = np.zeros(dtype.itemsize, np.bool_)
    fields: dict = dict(dtype.fields or {})
    for name in dtype.names or ():
        sub, off = fields[name][:2]
        covered[off : off + sub.itemsize] = True
    return np.flatnonzero(~covered)


def _sample(core, fn, src, states, s, key) -> np.ndarray:
    if len(states):
        before = states["rng"].copy()
        fn(core, _kernel_view(states), s, key)
        if (states["rng"] == before).all(axis=1).any():
            raise RuntimeError(
                f"{core.spec.name}'s information-state sampler did not redraw the generator "
                "of every row (call redraw_chance on each)"
            )
        core.refresh(states)
        _redraw_unreachable(core, fn, src, states, s, key)
    return states


def _kernel_view(states: np.ndarray) -> np.ndarray:
    """``states`` as the samplers take it: the array itself, or with
    ``NUMBA_DISABLE_JIT=1`` a record-array view of it (the kernels read
    fields as attributes, as numba's records allow)."""
    return states.view(np.recarray) if config.DISABLE_JIT else states


def _least_legal(rows) -> np.ndarray:
    """The fewest legal actions the seat to act of each row may have for
    the game to wait on it: 2 with auto-advance, 1 without (never more than
    the record itself has), 0 for a finished game."""
    live = rows["outcome"] == O_PLAYING
    least = np.where(live, np.where(rows["auto_advance"] != 0, 2, 1), 0)
    return np.minimum(least, rows["legal"].sum(axis=1))


def _redraw_unreachable(core, fn, src, states, seat, key) -> None:
    """Draw again the rows whose other seat to act was left with too few
    legal actions for the game to wait on it (see the module doc)."""
    other = (states["actor"] != seat) & (states["outcome"] == O_PLAYING)
    if not other.any():  # every row waits on the seat itself (solo games always)
        return
    least = _least_legal(src)
    bad = np.flatnonzero(other & (states["legal"].sum(axis=1) < least))
    for i in bad:
        row = np.zeros(1, dtype=states.dtype)
        for attempt in range(1, MAX_REDRAWS + 1):
            row[:] = src[i : i + 1]
            sub = (int(key) ^ ((int(i) + 1) * _GOLDEN + attempt)) & (2**64 - 1)
            fn(core, _kernel_view(row), seat, np.uint64(mix64(np.uint64(sub))))
            core.refresh(row)
            if int(row["legal"].sum()) >= least[i]:
                break
        else:
            row[:] = src[i : i + 1]
            redraw_chance_rows(
                _kernel_view(row), np.uint64(mix64(np.uint64(int(key) ^ (int(i) + 1))))
            )
        states[i] = row[0]
