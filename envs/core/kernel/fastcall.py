"""Calling a compiled kernel without numba's per-call type dispatch.

A numba dispatcher called from Python types every argument on every call
(``typeof`` of each array, a record dtype included) before it finds the
compiled overload: with a dozen array arguments that is a couple of
microseconds, more than the work of one game step. The batch object
(:class:`~.batch.Batch`), which calls the kernels once per step on buffers it
owns, knows the argument types once and for all, so it looks the overload up
once (:func:`entry_point`, :func:`bind`) and calls its entry point: the
compiled function's own wrapper, which unboxes the arguments and runs the
machine code, the same object the dispatcher ends up calling.

If the overload cannot be found (numba matched the call through a type
conversion, or an unusual numba build), :func:`bind` returns the dispatcher
itself: slower, never wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

__all__ = ["bind", "entry_point"]


def entry_point(dispatcher, args: tuple) -> Callable:
    """The compiled entry point of ``dispatcher`` for arguments typed like
    ``args`` (compiling or loading it from the cache if needed), or the
    dispatcher when no exact overload exists."""
    overloads = getattr(dispatcher, "overloads", None)
    typeof = getattr(dispatcher, "typeof_pyval", None)
    if overloads is None or typeof is None:
        return dispatcher  # not a numba dispatcher (pure Python)
    try:
        sig = tuple(_typeof(typeof, a) for a in args)
        fn = getattr(overloads.get(sig), "entry_point", None)
        if not callable(fn):
            # not compiled yet, or compiled only for a caller (jit.lazycode):
            # compiling for Python makes the callable entry point
            dispatcher.compile(sig)
            fn = getattr(overloads.get(sig), "entry_point", None)
    except Exception:  # pragma: no cover - any numba internals mismatch: stay correct
        return dispatcher
    return fn if callable(fn) else dispatcher


#: numba's type of a record array, by what it depends on: numba builds a
#: record type field by field on every ``typeof`` (milliseconds for the
#: games' records), so each array kind is typed once
_RECORD_TYPES: dict = {}


def _typeof(typeof, a):
    if type(a) is np.ndarray and a.dtype.names is not None:
        f = a.flags
        key = (a.dtype, a.ndim, f.c_contiguous, f.f_contiguous, f.writeable, f.aligned)
        t = _RECORD_TYPES.get(key)
        if t is None:
            t = _RECORD_TYPES[key] = typeof(a)
        return t
    return typeof(a)


def bind(dispatcher, *args) -> Callable[[], None]:
    """A no-argument callable running ``dispatcher(*args)`` through its
    compiled entry point. ``args`` must be the very buffers of every later
    call (they are captured, not copied): the caller writes inputs into them
    and reads outputs from them."""
    return partial(entry_point(dispatcher, args), *args)  # C-level: no Python frame
