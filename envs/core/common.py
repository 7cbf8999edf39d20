"""Machinery shared by every adapter: core lookup, action validation, seeds
and episode bookkeeping. The preallocated batch buffers and the kernel calls
belong to :class:`~.batch.Batch`.

Buffer dtypes (what every core's kernels receive):

============  ==============================  =================================
name          shape / dtype                   meaning
============  ==============================  =================================
states        ``(n,)`` ``core.state_dtype``   one game record per row
actions       ``(n,)`` int64                  action of each row
players       ``(n,)`` int64                  observer seat of each row
seeds         ``(n,)`` uint64                 reset seed of each row
obs           ``(n, obs_size)`` float32       observation of each row
final_obs     ``(n, obs_size)`` float32       last obs of rows that just ended
masks         ``(n, num_actions)`` int8       legal actions, 1 = legal
rewards       ``(n, num_players)`` float32    reward of each seat for the step
terminated    ``(n,)`` bool                   the rules ended the game
truncated     ``(n,)`` bool                   the step cap ended the game
illegal       ``(n,)`` bool                   the step's action was illegal
============  ==============================  =================================

With ``obs_dtype="float16"`` (the compact observation) ``obs`` and
``final_obs`` are float16, and the kernels receive their uint16 views.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import IllegalActionError, InvalidActionError, RenderModeError
from .spec import GameCore, GameSpec
from .validate import check_seed, check_seed_list

ILLEGAL_POLICIES = ("penalize", "raise")
MASK_DTYPE = np.int8
_UINT64_SPAN = 2**64


def resolve_core(game, core_kwargs: dict) -> GameCore:
    """Turn ``game`` (a registered name or env id, a :class:`GameSpec`, or a
    ready :class:`GameCore`) into a core built with ``core_kwargs``."""
    if isinstance(game, GameCore):
        if core_kwargs:
            raise TypeError(
                f"core options {sorted(core_kwargs)} given with a ready GameCore; "
                "pass the game name or spec instead"
            )
        return game
    if isinstance(game, GameSpec):
        spec = game
    elif isinstance(game, str):
        from ..specs import get_spec  # late: the table imports the games

        spec = get_spec(game)
    else:
        raise TypeError(
            f"game must be a game name, env id, GameSpec or GameCore, not {type(game).__name__}"
        )
    if spec.make_core is None:
        raise TypeError(f"GameSpec {spec.name!r} has no make_core factory")
    core = spec.make_core(**core_kwargs)
    if not isinstance(core, GameCore):
        raise TypeError(f"{spec.name}.make_core returned {type(core).__name__}, not a GameCore")
    from .kernel.compile_notice import (
        notice_if_cold,
    )  # one stderr line when the numba cache is cold

    notice_if_cold(core)
    return core


def require_single_agent(core: GameCore, adapter: str) -> None:
    if core.num_players != 1:
        raise ValueError(
            f"{adapter} is the single-agent view and needs a 1-player core; "
            f"{core.spec.name!r} was built for {core.num_players} players "
            "(use the PettingZoo adapter for multi-player games)"
        )


def check_policy(illegal_action: str) -> str:
    if illegal_action not in ILLEGAL_POLICIES:
        raise ValueError(
            f"illegal_action must be one of {ILLEGAL_POLICIES}, not {illegal_action!r}"
        )
    return illegal_action


def action_index(action, num_actions: int) -> int:
    """Validate one action and return it as a Python int.

    Accepted: Python ``int``, numpy integer scalars, integer arrays of shape
    ``()`` or ``(1,)``. Everything else (bools, floats, strings, lists, other
    shapes) and values outside ``[0, num_actions)`` raise
    :class:`InvalidActionError`.
    """
    if isinstance(action, np.ndarray):
        if action.dtype.kind not in "iu":
            raise InvalidActionError(f"action array must have an integer dtype, got {action.dtype}")
        if action.ndim > 1 or action.size != 1:
            raise InvalidActionError(
                f"action array must hold exactly one index (shape () or (1,)), "
                f"got shape {action.shape}"
            )
        value = int(action.reshape(-1)[0])
    elif isinstance(action, (bool, np.bool_)):
        raise InvalidActionError(f"action must be an integer index, got a bool ({action!r})")
    elif isinstance(action, (numbers.Integral, np.integer)):
        value = int(action)
    else:
        raise InvalidActionError(
            f"action must be an integer index in [0, {num_actions}), "
            f"got {type(action).__name__} {action!r}"
        )
    if not 0 <= value < num_actions:
        raise InvalidActionError(f"action {value} out of range [0, {num_actions})")
    return value


def action_batch(actions, out: np.ndarray, num_actions: int) -> np.ndarray:
    """Validate a batch of actions and copy it into ``out`` (int64, ``(n,)``)."""
    a = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
    if a.dtype.kind not in "iu":
        raise InvalidActionError(
            f"actions must be an integer array of shape {out.shape}, got dtype {a.dtype}"
        )
    if a.shape != out.shape:
        raise InvalidActionError(
            f"actions must have shape {out.shape} (one index per env), got {a.shape}"
        )
    if a.size:
        lo, hi = a.min(), a.max()
        if lo < 0 or hi >= num_actions:
            bad = int(lo) if lo < 0 else int(hi)
            where = np.flatnonzero((a < 0) | (a >= num_actions))
            raise InvalidActionError(
                f"action {bad} out of range [0, {num_actions}) (envs {where[:8].tolist()})"
            )
    out[:] = a
    return out


def illegal_message(core: GameCore, state, action: int, mask_row) -> str:
    spec = core.spec
    legal = np.flatnonzero(mask_row)
    shown = ", ".join(f"{i} ({spec.action_names[i]})" for i in legal[:8])
    if len(legal) > 8:
        shown += f", ... ({len(legal)} legal)"
    return (
        f"illegal action {action} ({spec.action_names[action]}) in phase "
        f"{core.phase_name(state)!r}; legal: [{shown or 'none'}]"
    )


def check_legal_batch(core: GameCore, states, actions, masks) -> None:
    """Strict mode of the batched adapters: raise on the first illegal row."""
    ok = masks[np.arange(len(actions)), actions] != 0
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise IllegalActionError(
            f"env {i}: " + illegal_message(core, states[i], int(actions[i]), masks[i])
        )


# bit generators whose raw output is one uniform 64-bit word: for them
# ``integers(0, 2**64 - 1, dtype=uint64, endpoint=True)`` returns exactly the
# raw words, which ``random_raw`` gives about 25x faster
_RAW64 = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def draw_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` uniform uint64 game seeds from a numpy generator."""
    if type(rng.bit_generator) in _RAW64:
        return rng.bit_generator.random_raw(n)
    return rng.integers(0, _UINT64_SPAN - 1, size=n, dtype=np.uint64, endpoint=True)


def seed_batch(seed, n: int) -> np.ndarray:
    """Seeds ``seed + i`` (modulo 2**64) from one int seed, or the given
    sequence of ``n`` seeds; each in ``[0, 2**64)`` (see
    :func:`~.validate.check_seed`: bools, floats, strings and numpy
    Generators raise naming the argument)."""
    if _is_seed_scalar(seed):
        s = check_seed(seed)
        if s is None:
            raise TypeError("seed must be an integer in [0, 2**64) or a sequence of them")
        return np.array([(s + i) % _UINT64_SPAN for i in range(n)], dtype=np.uint64)
    return check_seed_list(seed, n)


def _is_seed_scalar(seed) -> bool:
    """Anything that is not a sequence is judged as one seed (so a float or
    a Generator gets the one-seed message)."""
    return not (isinstance(seed, (list, tuple, np.ndarray)) and np.ndim(seed) == 1)


class EpisodeTracker:
    """Per-row episode return and length, and the final ``episode_info`` of
    rows that finished in a fused autoreset step (read from the final
    records the kernel copies into ``final_states`` before resetting)."""

    def __init__(self, buf, episode_info: bool):
        self.buf = buf
        self.episode_info = bool(episode_info)
        self.returns = np.zeros(buf.n, np.float64)
        self.lengths = np.zeros(buf.n, np.int64)

    def clear(self) -> None:
        self.returns[:] = 0.0
        self.lengths[:] = 0

    def after_step(self, reward: np.ndarray, done_idx: np.ndarray) -> list:
        """Update the counters; return one info dict per row of ``done_idx``
        (episode return/length, illegal flag, the core's episode info), and
        clear those rows' counters (the SB3 adapter's per-env form)."""
        rets, lens, core_infos = self.finish(reward, done_idx)
        infos = []
        for j, i in enumerate(done_idx.tolist()):
            info = dict(core_infos[j]) if core_infos is not None else {}
            info["illegal_action"] = bool(self.buf.illegal[i])
            info["episode"] = {"r": float(rets[j]), "l": int(lens[j])}
            infos.append(info)
        return infos

    def finish(self, reward: np.ndarray, done_idx: np.ndarray, columns: bool = False):
        """Vectorised core of :meth:`after_step`: returns the finished rows'
        returns and lengths (arrays) and their core infos (a list, or None
        when ``episode_info`` is off), and clears those rows' counters. With
        ``columns``, a core that has ``episode_info_batch`` gives its infos as
        columns instead (``{key: (values, present)}``, see
        :func:`scatter_columns`)."""
        self.returns += reward
        self.lengths += 1
        rets = self.returns[done_idx].copy()
        lens = self.lengths[done_idx].copy()
        core_infos = None
        if self.episode_info and len(done_idx):
            fs = self.buf.final_states
            own = getattr(self.buf, "episode_info", None)  # a SelfPlayView's learner info
            batch = getattr(self.buf.core, "episode_info_batch", None)
            if columns and own is None and batch is not None:
                core_infos = batch(fs, done_idx)  # no per-row Python
            else:
                core_infos = (
                    [own(i) for i in done_idx.tolist()]
                    if own is not None
                    else [self.buf.core.episode_info(fs[i]) for i in done_idx.tolist()]
                )
        self.returns[done_idx] = 0.0
        self.lengths[done_idx] = 0
        return rets, lens, core_infos


def scatter_columns(cols: dict, rows: np.ndarray, n: int) -> dict:
    """Episode-info columns of the finished rows (``{key: (values,
    present)}`` from a core's ``episode_info_batch``, one value per finished
    row) in Gymnasium's dict-of-arrays form over ``n`` envs, with ``_key``
    flags: the same arrays as ``vector.batch_infos`` builds from the per-row
    dicts (ints as int64 zeros elsewhere, other values in object arrays
    holding None elsewhere)."""
    out = {}
    for key, (values, present) in cols.items():
        rs = rows if present is None else rows[present]
        vals = values if present is None else values[present]
        if vals.dtype == object:
            arr = np.full(n, None, dtype=object)
        else:
            arr = np.zeros(n, dtype=vals.dtype)
        arr[rs] = vals
        flag = np.zeros(n, np.bool_)
        flag[rs] = True
        out[key], out[f"_{key}"] = arr, flag
    return out


def check_render_mode(spec: GameSpec, render_mode, modes=None):
    """``render_mode`` if it is one of ``modes`` (default: the game's
    ``spec.render_modes``) or None, else :class:`~.errors.RenderModeError`
    naming them."""
    modes = list(spec.render_modes if modes is None else modes)
    if render_mode is not None and render_mode not in modes:
        raise RenderModeError(
            f"render_mode {render_mode!r} not supported by {spec.name}; choose from {modes} or None"
        )
    return render_mode


def _record_bytes(a: np.ndarray) -> np.ndarray:
    if not (isinstance(a, np.ndarray) and a.ndim == 1 and a.flags.c_contiguous):
        raise ValueError("records must be a C-contiguous 1-D array")
    return a.view(np.uint8).reshape(len(a), a.dtype.itemsize)


def copy_records(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[:] = src`` for two 1-D, C-contiguous arrays of one record dtype
    (``src`` one row, copied into every row of ``dst``, or as many rows), as
    one byte copy: numpy copies a structured array field by field (the
    games' records have 70 to 112 fields), far slower than one copy of the
    bytes. Padding bytes are copied too, so a zeroed source keeps the target
    byte-equal to it."""
    if dst.dtype != src.dtype:
        raise TypeError(f"record dtypes differ: {dst.dtype} and {src.dtype}")
    _record_bytes(dst)[:] = _record_bytes(src)
