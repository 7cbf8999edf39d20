"""Copying an environment: ``copy.deepcopy``, ``pickle`` and ``clone()``,
written once for every adapter.

An adapter holds three kinds of things:

* its **game**: the state records (every card, deck order and the per-game
  generator state are fields of the record, see :mod:`.spec`) and its
  preallocated buffers (observations, masks, rewards...), plus Python
  bookkeeping (step counts, returns, the ``np_random`` of unseeded resets,
  the agents' dicts of the PettingZoo adapters, an opponent pool);
* its **core** (:class:`~dungeonrl.envs.core.spec.GameCore`) and **spec**:
  the rules and content tables of one configuration, never written after
  construction;
* **derived** attributes: compiled entry points bound to the buffers
  (:mod:`.fastcall`; numba closures, which cannot be pickled) and numpy
  views into the buffers (a deep copy would turn a view into a detached
  array, so the copy would keep reading the old values).

:class:`Copyable` (a base of every adapter) gives ``__getstate__`` /
``__setstate__``: the state is the instance dict without the derived
attributes its classes list in ``_derived``; on load ``_after_copy`` rebuilds
them on the copy's own arrays (entry points are looked up again by kernel
name, from numba's disk cache). Both ``copy.deepcopy`` and ``pickle`` go
through these two methods, so one mechanism serves both: the copy is the
same game (same records, same hidden information, same generator states,
same bookkeeping), its arrays are its own, and the copy and the original fed
the same actions give the same observations, masks, rewards and infos.

A core and a spec are immutable: ``copy.deepcopy`` returns them as they are
(shared by the original and the copy; the content tables stay the read-only
arrays the compiled kernels were typed for), ``pickle`` stores them by value
(read-only flags kept). A render window or handle is never copied; the
shipped render modes (``"ansi"``, ``"rgb_array"``) hold none.

``clone()`` is the copy for search (MCTS, rollouts from a position): the
same independent game as ``copy.deepcopy``, but the adapter's spaces and
metadata are shared with the original too (``_clone_shared``; so is
``action_space.sample``'s generator). For a single env it copies the
one-row buffers, the bookkeeping and the generators, a fraction of a
millisecond; for a vector env the whole batch. ``set_state`` restores a
:class:`~.snapshot.Snapshot` instead: it validates every field of the
record it is given (milliseconds), which a copy of a live env does not need.

Arrays of records are copied as raw bytes and numpy generators from their
state (:func:`deep`): numpy's own deep copy of a record array goes field by
field and pickles a generator, several times slower.
"""

from __future__ import annotations

import copy
import functools

__all__ = ["Copyable", "derived_names", "deep"]


@functools.cache
def derived_names(cls: type) -> tuple[str, ...]:
    """Every ``_derived`` attribute name declared along ``cls``'s MRO."""
    names: list[str] = []
    for klass in cls.__mro__:
        for name in klass.__dict__.get("_derived", ()):
            if name not in names:
                names.append(name)
    return tuple(names)


class Copyable:
    """Pickling, deep copies and ``clone()`` for an object that holds bound
    compiled entry points or views into its own arrays (see the module doc).

    A subclass lists those attributes in ``_derived`` (collected along the
    MRO) and rebuilds them in :meth:`_after_copy`, calling ``super()``."""

    #: attributes left out of the pickled / copied state and rebuilt by _after_copy
    _derived: tuple = ()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        cls: type = type(self)  # (annotated: mypy rejects type(self) as a cache key)
        for name in derived_names(cls):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._after_copy()

    def __deepcopy__(self, memo: dict):
        """``copy.deepcopy``: the pickled state, copied (arrays and
        generators by a fast path, see :func:`deep`), then ``__setstate__``."""
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        new.__setstate__({k: deep(v, memo) for k, v in self.__getstate__().items()})
        return new

    def _after_copy(self) -> None:
        """Rebuild the ``_derived`` attributes on this object's own arrays."""

    def _clone_shared(self) -> tuple:
        """Objects a :meth:`clone` shares with the original instead of
        copying (immutable ones; the core and spec are shared anyway)."""
        return ()

    def clone(self):
        """An independent copy of this environment (what ``copy.deepcopy``
        gives), for search: the records, buffers, bookkeeping and generators
        are copied, the core and spec shared. Stepping either leaves the
        other unchanged; fed the same actions they play the same game."""
        memo: dict = {}
        for obj in self._clone_shared():
            memo[id(obj)] = obj
        return copy.deepcopy(self, memo)


def deep(value, memo: dict):
    """``copy.deepcopy(value, memo)``, faster for what adapters hold most:
    numpy arrays of records (copied as raw bytes into a fresh aligned
    buffer: numpy's own copy of a record dtype goes field by field) and numpy
    generators (rebuilt from their state, not through pickling). Identity
    is kept through ``memo`` as ``copy.deepcopy`` keeps it (one array held
    under two names is copied once)."""
    import numpy as np

    found = memo.get(id(value), memo)
    if found is not memo:
        return found
    t = type(value)
    if t is np.ndarray and not value.dtype.hasobject:
        out = _copy_array(value)
    elif t is np.random.Generator:
        out = _copy_generator(value)
    else:
        return copy.deepcopy(value, memo)
    memo[id(value)] = out
    memo.setdefault(id(memo), []).append(value)  # keep alive, as copy.deepcopy does
    return out


def _copy_array(a):
    import numpy as np

    if a.dtype.names is None or not a.flags.c_contiguous:
        return a.copy()
    raw = np.empty(a.nbytes, np.uint8)  # numpy's allocator: aligned
    raw[:] = np.frombuffer(a.tobytes(), np.uint8)
    return np.ndarray(a.shape, a.dtype, buffer=raw)


def _copy_generator(g):
    """A generator in the same state, with its own bit generator and seed
    sequence (so ``spawn`` counts on after the copy as on the original)."""
    import numpy as np

    bg = g.bit_generator
    try:
        new_bg = type(bg)(copy.copy(bg.seed_seq))
        new_bg.state = bg.state
    except Exception:  # an unusual bit generator: the generic way
        return copy.deepcopy(g)
    return np.random.Generator(new_bg)


# --- cores: shared by deep copies, pickled by value ---------------------------------
_READONLY = "__copying_readonly__"
_MODULES = "__copying_modules__"


def core_state(core) -> dict:
    """The pickled state of a core: its instance dict, with the names of its
    read-only arrays (the content tables the kernels are typed for stay
    read-only after loading) and any module it holds (a test core's
    ``kernels``) stored by name."""
    import types

    import numpy as np

    state = dict(core.__dict__)
    state[_READONLY] = [
        k for k, v in state.items() if isinstance(v, np.ndarray) and not v.flags.writeable
    ]
    mods = {k: v.__name__ for k, v in state.items() if isinstance(v, types.ModuleType)}
    for k in mods:
        del state[k]
    state[_MODULES] = mods
    return state


def restore_core_state(core, state: dict) -> None:
    """Inverse of :func:`core_state`: modules imported again by name,
    read-only arrays made read-only again."""
    import importlib

    state = dict(state)
    readonly = state.pop(_READONLY, ())
    mods = state.pop(_MODULES, {})
    core.__dict__.update(state)
    for k, name in mods.items():
        setattr(core, k, importlib.import_module(name))
    for k in readonly:
        getattr(core, k).flags.writeable = False
