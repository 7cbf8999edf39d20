""":class:`Batch`: the one object between the adapters and a game's compiled kernels.

A game's generated kernel module (``envs/<game>/kernels.py``) has the same
entry points for every game. This module is the only Python code that
names them and spells their argument lists (:data:`KERNEL_ARGS`); everything
else -- the :class:`~.kernel_core.KernelCore` methods, the Gymnasium env and
vector envs, the AEC and Parallel envs, the batched multi-agent env, the
self-play views, the agents and benchmarks -- calls a :class:`Batch` (or the
core methods that delegate here).

A :class:`Batch` of ``n`` games owns the preallocated buffers (see
:mod:`.common` for their shapes and dtypes) and calls the kernels on them
through their compiled entry points (:mod:`.fastcall`: no numba type
dispatch per call). Built by :meth:`Batch.calls` (:func:`core_batch`) it
owns no buffers and only runs the kernels on arrays the caller passes
(through the numba dispatchers, which accept any layout).

Copies and pickles (:class:`~.copying.Copyable`) keep the buffers and look
the entry points up again.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import partial

import numpy as np

from ._threads import RowSplitter, row_splits
from .common import MASK_DTYPE, action_batch, check_legal_batch
from .copying import Copyable
from .kernel.fastcall import entry_point
from .validate import check_num_envs, check_num_threads, check_obs_dtype

__all__ = [
    "Batch",
    "FUSED_ARRAYS",
    "KERNEL_ARGS",
    "KERNEL_NAMES",
    "MASK_DTYPE",
    "SharedCalls",
    "core_batch",
    "kernel_call",
    "shared_batches",
    "vector_step",
]


def _i64(a):
    return np.ascontiguousarray(a, dtype=np.int64)


def kernel_view(a):
    """What a kernel receives for the array ``a``: a float16 observation
    array as its uint16 view (numba has no float16 on the CPU; the
    kernels round into it, see ``core.kernel.half``), anything else as it is."""
    if isinstance(a, np.ndarray) and a.dtype == np.float16:
        return a.view(np.uint16)
    return a


def _step_observe_args(
    c, states, actions, players, obs, masks, rewards, terminated, truncated, illegal
):
    obs = kernel_view(obs)
    return (states, c.TR, actions, players, obs, masks, rewards, terminated, truncated, illegal)


#: the fused hot-loop step's arrays (``step_autoreset``), in the kernel's
#: argument order, declared once: the game's content tables go in after
#: ``states``; ``players`` receives the seat to act next in every row.
#: :data:`KERNEL_ARGS` and :meth:`Batch.fused_step_states` read this list;
#: the engine template's kernel, :meth:`~.spec.GameCore.step_autoreset` and
#: the hot path of :meth:`Batch.fused_step` spell it, and
#: tests/engine/test_batch.py checks they agree
FUSED_ARRAYS = (
    "states",
    "actions",
    "players",
    "obs",
    "masks",
    "rewards",
    "terminated",
    "truncated",
    "illegal",
    "final_obs",
    "final_states",
)
#: the observation arrays among them (a float16 one goes in as its kernel_view)
OBS_ARRAYS = frozenset({"obs", "final_obs"})
#: a :class:`Batch`'s own buffer for each (where the names differ)
_FUSED_BUFFER = {"players": "players_out"}


def _step_autoreset_args(c, *arrays):
    args = [arrays[0], c.TR]
    args += [kernel_view(a) if n in OBS_ARRAYS else a for n, a in zip(FUSED_ARRAYS[1:], arrays[1:])]
    return tuple(args)


def _advance_scripted_args(c, states, rows, learner, codes, prng, returns, terminated, truncated):
    return (states, c.TR, rows, learner, codes, prng, returns, terminated, truncated)


#: every kernel entry point the engine calls, and its argument list built
#: from the core and the caller's arrays (the core's content tables ``TR``
#: and its configuration are filled in here; a float16 observation array
#: goes in as its :func:`kernel_view`)
KERNEL_ARGS: dict[str, Callable[..., tuple]] = {
    "reset_batch": lambda c, states, seeds, num_players, cfg=None: (
        states,
        c.TR,
        seeds,
        num_players,
        c.max_steps,
        c.auto_advance,
        c.reward_mode,
        c.cfg if cfg is None else cfg,
    ),
    "step_batch": lambda c, states, actions, rewards, terminated, truncated, illegal: (
        states,
        c.TR,
        actions,
        rewards,
        terminated,
        truncated,
        illegal,
    ),
    "mask_batch": lambda c, states, masks: (states, c.TR, masks),
    "observe_batch": lambda c, states, players, obs: (states, c.TR, players, kernel_view(obs)),
    "step_observe": _step_observe_args,
    "step_rows": lambda c, states, rows, actions, rewards, terminated, truncated, illegal: (
        states,
        c.TR,
        rows,
        actions,
        rewards,
        terminated,
        truncated,
        illegal,
    ),
    "observe_rows": lambda c, states, rows, players, obs, masks: (
        states,
        c.TR,
        rows,
        players,
        kernel_view(obs),
        masks,
    ),
    "step_autoreset": _step_autoreset_args,
    "random_rollout": lambda c, states, n_steps, policy_seed, obs, masks, stats: (
        states,
        c.TR,
        int(n_steps),
        np.uint64(policy_seed),
        obs,
        masks,
        stats,
    ),
    "random_rollout_rules": lambda c, states, n_steps, policy_seed, masks, stats: (
        states,
        c.TR,
        int(n_steps),
        np.uint64(policy_seed),
        masks,
        stats,
    ),
    "refresh_batch": lambda c, states, out: (states, c.TR, out),
    "policy_rows": lambda c, states, rows, prng, out: (states, c.TR, rows, prng, out),
    "advance_scripted": _advance_scripted_args,
    "play_rows": lambda c, states, codes, prng, returns, length: (
        states,
        c.TR,
        codes,
        prng,
        returns,
        length,
    ),
    # the search agent's compiled tree: the pool of determinizations, then
    # the tree's and the simulation's arrays (core.kernel.tree)
    "search_run": lambda c, pool, *arrays: (pool, c.TR, *arrays),
}

#: the names of the kernel entry points (only this module spells them)
KERNEL_NAMES = frozenset(KERNEL_ARGS)


def has_kernel(core, name: str) -> bool:
    """Whether the core's generated module has the entry point ``name``."""
    return hasattr(core.kernels, name)


def kernel_call(core, name: str, *arrays) -> None:
    """Run kernel ``name`` of ``core`` on the given arrays (through the numba
    dispatcher: any array layout, typed on every call)."""
    getattr(core.kernels, name)(*KERNEL_ARGS[name](core, *arrays))


#: core -> its shared :class:`SharedCalls`. Keyed weakly, and the value holds
#: its core weakly too (a value that held it strongly would keep its own key
#: alive, so no entry would ever go): an entry lives exactly as long as its
#: core, and a process that builds and drops cores keeps a table of the
#: cores still alive (``tests/engine/test_shared_batch.py``).
_SHARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def core_batch(core) -> Batch:
    """The core's shared :class:`Batch` without buffers (kernel calls on the
    caller's arrays), made once per core and freed with it (see
    :class:`SharedCalls`)."""
    try:
        b = _SHARED.get(core)
    except TypeError:  # a core that cannot be weakly referenced: a fresh one
        return Batch.calls(core)
    if b is None:
        b = _SHARED[core] = SharedCalls.of(core)
    return b


def shared_batches() -> int:
    """How many cores have a shared batch now (the cores alive that ran a
    kernel through :func:`core_batch`)."""
    return len(_SHARED)


def vector_step(buf, actions, strict: bool):
    """The vector envs' whole step on ``buf`` (a :class:`Batch`, or a
    self-play view, which keeps the same buffers), one call: validate
    ``actions`` into ``buf.actions`` (:class:`~.errors.InvalidActionError`),
    in ``strict`` mode raise on an illegal one
    (:class:`~.errors.IllegalActionError`, nothing stepped), ``buf.fused_step()``;
    return fresh copies of seat 0's reward, ``terminated`` and ``truncated``,
    and the finished rows."""
    action_batch(actions, buf.actions, buf.masks.shape[1])
    if strict:
        check_legal_batch(buf.core, buf.states, buf.actions, buf.masks)
    buf.fused_step()
    reward = buf.rewards[:, 0].copy()
    terminated = buf.terminated.copy()
    truncated = buf.truncated.copy()
    return reward, terminated, truncated, np.flatnonzero(terminated | truncated)


class Batch(Copyable):
    """The compiled entry points of one core and the preallocated buffers
    of ``n`` games they run on (``n`` checked by ``check_num_envs``;
    ``obs_dtype`` ``"float16"``: ``obs`` and ``final_obs`` hold the compact
    observation; ``num_threads`` > 1: the fused step runs on that many
    threads, each on its own rows, see :mod:`._threads`); see the module
    doc, and :meth:`calls` for a batch without buffers."""

    # compiled entry points and the worker threads: made again on a copy
    _derived = ("_fns", "_split")
    _half = False  # a float16 (compact) observation (the default for a batch pickled before it)
    obs_dtype = np.dtype(np.float32)
    num_threads = 1  # (the default for a batch pickled before it)
    _split: RowSplitter | None = None

    def __init__(self, core, n: int, obs_dtype="float32", num_threads: int = 1):
        self.core = core
        self._fns: dict[str, Callable[..., None]] = {}
        n = check_num_envs(n)
        spec = core.spec
        self.n = n
        #: ``float32`` (the game's observation) or ``float16`` (the compact
        #: one: every column rounded to half precision by the kernels)
        self.obs_dtype = check_obs_dtype(obs_dtype)
        self._half = self.obs_dtype == np.float16
        #: threads of the fused step (a batch of fewer than 128 rows uses one)
        self.num_threads = check_num_threads(num_threads)
        self._split = self._splitter()
        self.states = core.alloc(n)
        self.actions = np.zeros(n, np.int64)
        self.players = np.zeros(n, np.int64)
        self.seeds = np.zeros(n, np.uint64)
        self.obs = np.zeros((n, spec.obs_size), self.obs_dtype)
        self.final_obs = np.zeros((n, spec.obs_size), self.obs_dtype)
        self.final_states = core.alloc(n)
        self.masks = np.zeros((n, spec.num_actions), MASK_DTYPE)
        self.rewards = np.zeros((n, core.num_players), np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.illegal = np.zeros(n, np.bool_)
        self.players_out = np.zeros(n, np.int64)  # seat to act, written by the fused step
        self._nump = np.full(n, core.num_players, np.int8)

    @classmethod
    def calls(cls, core) -> Batch:
        """A batch without buffers: the kernel calls on the caller's arrays
        (``n`` is None). :func:`core_batch` shares one per core."""
        b = cls.__new__(cls)
        b.core, b.n, b._fns = core, None, {}  # type: ignore[assignment]  # no buffers, no n
        return b

    def _after_copy(self) -> None:
        super()._after_copy()
        self._fns = {}
        self._split = self._splitter()

    def _splitter(self) -> RowSplitter | None:
        splits = row_splits(self.n, self.num_threads) if self.n else ()
        return RowSplitter(splits) if splits else None

    def close(self) -> None:
        """Stop the fused step's worker threads, if any (they start again on
        the next step); a batch without threads has nothing to close."""
        if self._split is not None:
            self._split.close()

    # --- own buffers, through compiled entry points ----------------------------
    def _call(self, name: str, *arrays) -> None:
        """Kernel ``name`` on this batch's own buffers (always typed alike, so
        the entry point is looked up once per name, on first use: a single
        env never loads the vector env's kernel from the cache)."""
        args = KERNEL_ARGS[name](self.core, *arrays)
        fn = self._fns.get(name)
        if fn is None:
            fn = self._fns[name] = entry_point(getattr(self.core.kernels, name), args)
        fn(*args)

    def _bound(self, name: str, *arrays) -> Callable[[], None]:
        args = KERNEL_ARGS[name](self.core, *arrays)
        return partial(entry_point(getattr(self.core.kernels, name), args), *args)

    def bound_call(self, name: str, *arrays) -> Callable[[], None]:
        """A no-argument call of kernel ``name`` (a :data:`KERNEL_ARGS` key)
        on ``arrays``, captured: typed once, so each call skips numba's type
        dispatch. For a caller that refills the same arrays between calls
        (the search agent's simulation record); ``arrays`` must keep the
        types the kernel's other callers pass (int64 row and seat indices)."""
        return self._bound(name, *arrays)

    def reset(self, seeds: np.ndarray) -> None:
        """Start a new game in every row, then observe and mask."""
        self.seeds[:] = seeds
        self._call("reset_batch", self.states, self.seeds, self._nump)
        self.refresh()

    def refresh(self) -> None:
        """Recompute the masks and observations (seats ``players``) from the states."""
        self._call("mask_batch", self.states, self.masks)
        self._call("observe_batch", self.states, self.players, self.obs)

    def _step_arrays(self) -> tuple:
        """The buffers of the single env's step (``step_observe``)."""
        return (
            self.states,
            self.actions,
            self.players,
            self.obs,
            self.masks,
            self.rewards,
            self.terminated,
            self.truncated,
            self.illegal,
        )

    def _fused_arrays(self) -> tuple:
        """The buffers of the fused step (``step_autoreset``), in
        :data:`FUSED_ARRAYS` order."""
        return tuple(getattr(self, _FUSED_BUFFER.get(n, n)) for n in FUSED_ARRAYS)

    def step(self) -> None:
        """Step with ``actions``, then observe (seats ``players``) and mask;
        no autoreset (the single env's path)."""
        self._call("step_observe", *self._step_arrays())

    def fused_step(self) -> None:
        """The fused hot-loop step with autoreset (the vector envs' path):
        step with ``actions``; a finished row's last observation goes to
        ``final_obs`` and its record to ``final_states``, then it restarts in
        place; the seat to act goes to ``players_out``, its observation to
        ``obs`` and its mask to ``masks``. ``obs`` may be a different array on
        every call (the vector env hands its buffers out), so the arguments
        are passed, not bound. With ``num_threads`` > 1 the rows are split
        over the threads (the first call, which looks the kernel up, runs on
        one)."""
        fn = self._fns.get("step_autoreset")
        if fn is None:  # first call: look the entry point up through KERNEL_ARGS
            self._call("step_autoreset", *self._fused_arrays())
            return
        # the hot path: KERNEL_ARGS["step_autoreset"] (FUSED_ARRAYS) spelled
        # out: faster than reading the names at small batches (a paired A/B,
        # benchmarks/ab.py --batch 16); tests/engine/test_batch.py checks the
        # two agree
        obs, final_obs = self.obs, self.final_obs
        if self._half:
            obs, final_obs = obs.view(np.uint16), final_obs.view(np.uint16)
        args = (
            self.states,
            self.core.TR,
            self.actions,
            self.players_out,
            obs,
            self.masks,
            self.rewards,
            self.terminated,
            self.truncated,
            self.illegal,
            final_obs,
            self.final_states,
        )
        if self._split is None:
            fn(*args)
        else:  # every thread its own rows (argument 1, the tables, is shared)
            self._split.run(fn, args)

    step_autoreset = fused_step  # the name agents and benchmarks used first

    def vector_step(self, actions, strict: bool):
        """The vector envs' whole step, one call (:func:`vector_step`)."""
        return vector_step(self, actions, strict)

    def bound_step(self) -> Callable[[], None]:
        """A no-argument :meth:`step` bound to the buffers (one C-level call
        per step; rebuild it after a copy)."""
        return self._bound("step_observe", *self._step_arrays())

    def bound_fused_step(self) -> Callable[[], None]:
        """A no-argument :meth:`fused_step` bound to the buffers (for an
        adapter whose ``obs`` buffer never changes)."""
        return self._bound("step_autoreset", *self._fused_arrays())

    def bound_observe(self, players: np.ndarray, obs: np.ndarray) -> Callable[[], None]:
        """A no-argument call observing the buffers' states from seats
        ``players`` into ``obs`` (the caller's arrays, captured)."""
        return self._bound("observe_batch", self.states, players, obs)

    def bound_mask(self) -> Callable[[], None]:
        """A no-argument call writing the legal masks of the buffers' states."""
        return self._bound("mask_batch", self.states, self.masks)

    # --- the caller's arrays, through the dispatchers -----------------------------
    def reset_states(self, states, seeds, num_players=None, cfg=None) -> None:
        """New games in ``states``, row i from ``seeds[i]`` with
        ``num_players[i]`` seats (default: the core's) and the configuration
        vector ``cfg`` (default: the core's)."""
        if num_players is None:
            num_players = np.full(len(states), self.core.num_players, np.int8)
        kernel_call(
            self.core,
            "reset_batch",
            states,
            np.ascontiguousarray(seeds, dtype=np.uint64),
            np.ascontiguousarray(num_players, np.int8),
            cfg,
        )

    def step_states(self, states, actions, rewards, terminated, truncated, illegal) -> None:
        """Step every row of ``states`` with ``actions`` (no observation)."""
        kernel_call(
            self.core, "step_batch", states, _i64(actions), rewards, terminated, truncated, illegal
        )

    def step_observe_states(
        self, states, actions, players, obs, masks, rewards, terminated, truncated, illegal
    ) -> None:
        """Step every row, then observe it from ``players`` and mask it."""
        kernel_call(
            self.core,
            "step_observe",
            states,
            _i64(actions),
            _i64(players),
            obs,
            masks,
            rewards,
            terminated,
            truncated,
            illegal,
        )

    def mask_states(self, states, masks) -> None:
        """Legal masks of every row into ``masks``."""
        kernel_call(self.core, "mask_batch", states, masks)

    def observe_states(self, states, players, obs) -> None:
        """Observation of every row from seat ``players[i]`` into ``obs``."""
        kernel_call(self.core, "observe_batch", states, _i64(players), obs)

    def step_some(self, states, rows, actions, rewards, terminated, truncated, illegal) -> None:
        """Step the rows ``rows`` only, in place (outputs indexed by row)."""
        kernel_call(
            self.core,
            "step_rows",
            states,
            _i64(rows),
            _i64(actions),
            rewards,
            terminated,
            truncated,
            illegal,
        )

    def observe_some(self, states, rows, players, obs, masks) -> None:
        """Observation (seat ``players[r]``) and mask of the rows ``rows`` only."""
        kernel_call(self.core, "observe_rows", states, _i64(rows), _i64(players), obs, masks)

    def fused_step_states(
        self,
        states,
        actions,
        obs,
        masks,
        rewards,
        terminated,
        truncated,
        illegal,
        final_obs,
        final_states,
        players=None,
    ):
        """:meth:`fused_step` on the caller's arrays; ``players`` (int64,
        optional) receives the seat to act in every row (returned)."""
        if players is None:
            players = np.zeros(len(states), np.int64)
        given = locals()  # the parameters, taken in the kernel's order
        arrays = [given[n] for n in FUSED_ARRAYS]
        arrays[FUSED_ARRAYS.index("actions")] = _i64(actions)
        kernel_call(self.core, "step_autoreset", *arrays)
        return players

    def rollout(self, states, n_steps, policy_seed, obs, masks, stats) -> None:
        """Random legal play inside the kernels (see ``GameCore.random_rollout``)."""
        kernel_call(self.core, "random_rollout", states, n_steps, policy_seed, obs, masks, stats)

    def rollout_rules(self, states, n_steps, policy_seed, masks, stats) -> None:
        """:meth:`rollout` with the observation switched off."""
        kernel_call(self.core, "random_rollout_rules", states, n_steps, policy_seed, masks, stats)

    def recompute_masks(self, states, out) -> None:
        """Legal masks recomputed from the records' other fields into ``out``."""
        kernel_call(self.core, "refresh_batch", states, out)

    def has_policy(self) -> bool:
        return has_kernel(self.core, "policy_rows")

    def policy(self, states, rows, prng, out) -> None:
        """The game's scripted policy on ``rows`` (``out[r]`` = its action)."""
        kernel_call(self.core, "policy_rows", states, _i64(rows), prng, out)

    def has_scripted_advance(self) -> bool:
        return has_kernel(self.core, "advance_scripted")

    def scripted_advance(
        self, states, rows, learner, codes, prng, returns, terminated, truncated
    ) -> None:
        """The scripted seats (``codes``) play on ``rows`` until seat
        ``learner[r]`` is to act or the game ends (the self-play view's
        ``advance``)."""
        kernel_call(
            self.core,
            "advance_scripted",
            states,
            _i64(rows),
            learner,
            codes,
            prng,
            returns,
            terminated,
            truncated,
        )

    def play_whole(self, states, codes, prng, returns, length) -> None:
        """Every row played to the end by the scripted policies ``codes``
        (one per seat), per-seat returns and decision counts written."""
        kernel_call(self.core, "play_rows", states, codes, prng, returns, length)


class SharedCalls(Batch):
    """The batch without buffers that :func:`core_batch` shares per core. It
    holds its core through a weak reference, so the shared table never keeps
    a core alive; whoever holds the batch (a self-play view) holds the core
    too. A copy or a pickle is the shared batch of the copied core."""

    _ref: weakref.ref  # the core

    def __init__(self, *args, **kwargs):
        raise TypeError("a SharedCalls is made by core_batch(core)")

    @classmethod
    def of(cls, core) -> SharedCalls:
        b = cls.__new__(cls)
        b._ref, b.n, b._fns = weakref.ref(core), None, {}  # type: ignore[assignment]  # no n
        return b

    @property
    def core(self):  # read-only here: the weak reference's core
        core = self._ref()
        if core is None:
            raise ReferenceError("the core of this shared batch was freed")
        return core

    def __reduce__(self):
        return core_batch, (self.core,)

    def __deepcopy__(self, memo: dict):
        from .copying import deep

        return core_batch(deep(self.core, memo))
