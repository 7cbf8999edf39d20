""":class:`KernelCore`: the one :class:`~.spec.GameCore` of every game.

A game's generated kernel module (``envs/<game>/kernels.py``, see
:mod:`.kernel.codegen`) has the same kernels for every game, so the batched
calls of the GameCore contract are written once, in the core's shared
:class:`~.batch.Batch` (:func:`~.batch.core_batch`, ``core.batch``), the only
code that names the kernels and their arguments: on a core, ``core.step`` and
the other batched calls (:class:`BatchCall`) are the batch's own methods. A game subclasses
:class:`KernelCore` only to parse its own constructor arguments (into the
config vector its ``configure_row`` reads) and for the non-hot helpers
(``episode_info``, rendering, names).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from .batch import Batch, core_batch
from .errors import CorruptStateError
from .kernel.header import O_PLAYING
from .spec import GameCore
from .validate import check_flag

INT32_MAX = 2**31 - 1


def int_arg(value, name: str, lo: int, hi: int | None = None) -> int:
    """``value`` as a Python int in [lo, hi] (bools, floats and strings are
    refused with a ValueError naming the argument)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be in {rng}, got {v}")
    return v


def choice_arg(value, choices, name: str, allow_random: bool = False) -> int:
    """Index of ``value`` in ``choices`` (a name, or an index); -1 for
    "random" when allowed."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if 0 <= int(value) < len(choices):
            return int(value)
        raise ValueError(f"{name} index {value} out of range 0..{len(choices) - 1}")
    if isinstance(value, str):
        v = value.lower()
        if allow_random and v == "random":
            return -1
        if v in choices:
            return choices.index(v)
    extra = " or 'random'" if allow_random else ""
    raise ValueError(f"unknown {name} {value!r}: expected one of {list(choices)}{extra}")


class BatchCall:
    """A :class:`~.spec.GameCore` call that the core's shared batch makes:
    on a core it is the batch's own method (its signature and meaning are
    written once, in :class:`~.batch.Batch`), so the core forwards nothing."""

    def __init__(self, method: str):
        self.method = method

    def __set_name__(self, owner, name: str) -> None:
        # the contract's words for the call (help(core.step)), else the batch's
        contract = next((vars(k)[name] for k in owner.__mro__[1:] if name in vars(k)), None)
        self.name = name
        self.__doc__ = getattr(contract, "__doc__", None) or getattr(Batch, self.method).__doc__

    def __get__(self, core, owner=None) -> Any:
        if core is None:
            return self
        return getattr(core_batch(core), self.method)

    def __call__(self, core, *args, **kwargs):
        """Called on the class, as a method is (``KernelCore.step(core, ...)``)."""
        return getattr(core_batch(core), self.method)(*args, **kwargs)


class KernelCore(GameCore):
    """Batched calls over a game's generated kernels.

    Subclasses set ``spec``, ``state_dtype``, ``kernels`` (the generated
    module), ``TR`` (content tables as a 1-row record array) and call
    :meth:`_configure`."""

    kernels: ModuleType | None = None  # the generated module (entry points typed by numba)
    content: Any  # the game's content (its tables and their 1-row record)
    T: Any  # content tables, as the game's validate rules read them
    TR: np.ndarray  # content tables as a 1-row record array
    num_players: int = 1

    def _set_content(self, content) -> None:
        """The core's content and the two forms of its compiled tables the
        kernels read (``T``, ``TR``)."""
        self.content = content
        self.T = content.tables
        self.TR = content.record

    def _configure(
        self, num_players: int, max_steps: int, auto_advance: bool, reward_mode: int, cfg=()
    ) -> None:
        self.num_players = int(num_players)
        self.max_steps = int_arg(max_steps, "max_steps", 1, INT32_MAX)
        self.auto_advance = 1 if check_flag(auto_advance, "auto_advance") else 0
        self.reward_mode = int(reward_mode)
        self.cfg = np.ascontiguousarray(np.asarray(cfg, dtype=np.int64).reshape(-1))

    # --- batched kernels: the core's shared batch (envs/core/batch.py) says them ---
    @property
    def batch(self) -> Batch:
        """The core's shared :class:`~.batch.Batch` (kernel calls on the
        caller's arrays): :func:`~.batch.core_batch`."""
        return core_batch(self)

    reset = BatchCall("reset_states")
    step = BatchCall("step_states")
    step_observe = BatchCall("step_observe_states")
    legal_mask = BatchCall("mask_states")
    observe = BatchCall("observe_states")
    step_rows = BatchCall("step_some")
    observe_rows = BatchCall("observe_some")
    step_autoreset = BatchCall("fused_step_states")
    random_rollout = BatchCall("rollout")
    random_rollout_rules = BatchCall("rollout_rules")

    def to_play(self, states):
        return np.where(states["outcome"] != O_PLAYING, -1, states["actor"]).astype(np.int64)

    def recompute_mask(self, states):
        """Legal masks recomputed from the other fields (uint8, (n, A))."""
        out = np.zeros((len(states), self.spec.num_actions), np.uint8)
        self.batch.recompute_masks(states, out)
        return out

    def refresh(self, states):
        """Store recomputed masks in ``states["legal"]`` (after editing a record)."""
        states["legal"] = self.recompute_mask(states)

    def resample_from_infostate(self, state, seat, rng):
        """A copy of ``state`` (one record or a 1-D batch; a new 1-D array)
        in which everything ``seat`` cannot see is redrawn consistently with
        what it sees, from ``rng`` (a ``numpy.random.Generator`` or an int
        seed): see :mod:`.infostate`. ``NotImplementedError`` for a game that
        declares no sampler; ``ValueError`` for a seat out of range."""
        from .infostate import resample_from_infostate

        return resample_from_infostate(self, state, seat, rng)

    def policy_rows(self, states, rows, prng, out):
        """The game's scripted policy on ``rows`` (``out[r]`` = its action)."""
        if not self.batch.has_policy():
            raise NotImplementedError(f"{self.spec.name} has no scripted policy")
        self.batch.policy(states, rows, prng, out)

    # --- words and pictures (not hot): the game's ``consts`` and ``render`` ----
    def game_module(self, name: str):
        """The game's module ``name`` (``consts``, ``render``...), next to its
        generated kernels."""
        import importlib

        if self.kernels is None:
            raise AttributeError(f"{type(self).__name__} has no generated kernels")
        package = self.kernels.__name__.rpartition(".")[0]
        return importlib.import_module(f"{package}.{name}" if package else name)

    def phase_name(self, state) -> str:
        """``consts.PHASE_NAMES`` of the record's phase."""
        return self.game_module("consts").PHASE_NAMES[int(state["phase"])]

    def render_ansi(self, state) -> str:
        """``render.render_ansi(state, content)`` of the game."""
        return self.game_module("render").render_ansi(state, self.content)

    def render_rgb(self, state):
        """``render.render_rgb(state, content)`` of the game (an RGB array)."""
        return self.game_module("render").render_rgb(state, self.content)

    def action_label(self, state, a) -> str:
        """``render.describe_action(state, a, content)``: action ``a`` in words."""
        return self.game_module("render").describe_action(state, int(a), self.content)

    # --- helpers (not hot) -----------------------------------------------------
    def is_over(self, state) -> bool:
        return int(state["outcome"]) != O_PLAYING

    def check_state(self, state) -> None:
        """Raise ``CorruptStateError`` unless the record is one the rules can
        reach: the field rules (``FIELD_RULES``, ``PARAMS``) and cross-field
        rules (``CROSS_RULES``) of the game's ``validate`` module, then the
        stored legal mask against a fresh recompute (only for a record that
        passed every rule, so the kernel never reads out of bounds), then,
        where the module has one, ``check_config(record, core)``: a record
        made under another configuration than this core's raises
        ``SnapshotError`` (:func:`.options.check_config_fields`)."""
        from .validate import check_record

        V = self.game_module("validate")
        s = state.reshape(-1)[0] if isinstance(state, np.ndarray) else state
        check_record(s, V.FIELD_RULES, V.CROSS_RULES, tables=self.T, params=V.PARAMS, game=V.GAME)
        self.check_mask(s, V.GAME)
        check_config = getattr(V, "check_config", None)
        if check_config is not None:  # the record against this core's configuration
            check_config(s, self)

    def check_mask(self, state, what: str) -> None:
        """Raise CorruptStateError when the stored mask is not the rules' mask."""
        arr = state.reshape(1) if isinstance(state, np.ndarray) else np.array([state])
        if not np.array_equal(self.recompute_mask(arr)[0], np.asarray(state["legal"])):
            raise CorruptStateError(
                f"corrupt {what} state: stored legal mask does not match the state"
            )
