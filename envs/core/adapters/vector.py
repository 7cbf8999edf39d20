"""Native batched adapters: no subprocesses, one kernel call per step.

* :class:`DungeonVectorEnv` -- a ``gymnasium.vector.VectorEnv``;
* ``DungeonSB3VecEnv`` -- a Stable-Baselines3 ``VecEnv`` (built on first
  access, so the core install works without SB3).

Both hold ``num_envs`` game records in one structured array with every
buffer preallocated (a :class:`~.batch.Batch`), and step them with its fused
``step_autoreset`` kernel: step, keep the final observation of finished
games, reset those games in place (next episode of the same seed stream),
observe and mask. That is Gymnasium's *same-step* autoreset: the observation
returned for a finished env is already the first one of its next episode,
and the last one of the finished episode is in the infos.

Seeding: ``reset(seed=s)`` starts env ``i`` from game seed ``s + i``, the same
game that ``DungeonEnv.reset(seed=s + i)`` starts, so batched and sequential
runs can be compared row by row. Later episodes of env ``i`` follow from its
seed alone, independent of batch size and of the other envs' actions.

Actions are an integer array of shape ``(num_envs,)`` with every value in
``[0, num_actions)``; anything else raises :class:`InvalidActionError`. An
in-range illegal action follows the illegal-action policy (``"penalize"``:
that env's episode ends with ``spec.illegal_penalty`` and
``illegal_action`` set; ``"raise"``: :class:`IllegalActionError` before any
env is stepped). Returned arrays are fresh copies; the internal buffers are
reused every step.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from ..batch import Batch
from ..common import (
    MASK_DTYPE,
    EpisodeTracker,
    check_policy,
    check_render_mode,
    draw_seeds,
    require_single_agent,
    resolve_core,
    scatter_columns,
    seed_batch,
)
from ..copying import Copyable
from ..errors import ResetNeededError
from ..spec import GameSpec, check_unknown_reset_options
from ..validate import UINT64_SPAN, check_flag, check_num_threads, check_obs_dtype, check_seed
from .gym_env import observation_spaces

try:  # gymnasium >= 1.1 has the enum (we require >= 1.2.2)
    from gymnasium.vector import AutoresetMode

    SAME_STEP = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover - very old gymnasium
    from gymnasium.vector.vector_env import AutoresetMode

    SAME_STEP = AutoresetMode.SAME_STEP

__all__ = ["DungeonVectorEnv", "DungeonSB3VecEnv", "make_vector_env", "batch_infos", "SAME_STEP"]


class _ArrayPool:
    """Observation arrays of one shape, reused once the caller has let go.

    An array handed to the caller is never written again while anything
    refers to it: the caller's variables, a view of it (a view holds its
    base), a ``memoryview`` or a tensor made from it all count in its
    reference count. :meth:`free` returns a pooled array whose only
    references are the pool's own, else a new one. A training loop that
    copies each observation into its rollout storage cycles through two or
    three arrays and never allocates (a fresh ``np.empty`` of several MB costs
    a page fault per 4 KiB on its first write)."""

    MAX = 8  # arrays tracked; beyond that the oldest held ones are forgotten

    def __init__(self, first: np.ndarray):
        self.arrays = [first]

    def free(self, handed_out: np.ndarray) -> np.ndarray:
        arrays = self.arrays
        for a in arrays:
            # 3 references: the list, the loop variable, getrefcount's argument
            if a is not handed_out and sys.getrefcount(a) <= 3:
                return a
        a = np.empty_like(handed_out)
        arrays.append(a)
        if len(arrays) > self.MAX:
            del arrays[0]
        return a


class _Runner(Copyable):
    """What both batched adapters share: the core, the buffers, the episode
    tracker, validation and the fused step."""

    _derived = ("obs_pool",)  # a copy starts a pool of its own arrays

    def __init__(
        self,
        game,
        num_envs: int,
        illegal_action: str,
        dict_obs: bool,
        episode_info: bool,
        core_kwargs: dict,
        adapter: str,
        unknown_reset_options: str = "warn",
        obs_dtype: str | None = None,
        num_threads: int = 1,
    ):
        from .selfplay import SelfPlayView

        self.unknown_reset_options = check_unknown_reset_options(unknown_reset_options)
        self.warned_reset_keys: set = set()  # unknown reset options warned about
        self.buf: Batch | SelfPlayView  # the games (a SelfPlayView: seen from one seat)
        if isinstance(game, SelfPlayView):  # a multi-seat game seen from one seat
            if core_kwargs:
                raise TypeError(
                    f"core options {sorted(core_kwargs)} given with a ready SelfPlayView"
                )
            if num_envs not in (None, 1, game.n):  # 1: the adapters' default
                raise ValueError(f"num_envs={num_envs} differs from the view's {game.n} games")
            if check_num_threads(num_threads) != 1:
                raise ValueError(
                    f"num_threads={num_threads!r}: a SelfPlayView steps on one thread "
                    "(its opponents move between kernel calls)"
                )
            if obs_dtype is not None and check_obs_dtype(obs_dtype) != game.obs.dtype:
                raise ValueError(
                    f"obs_dtype={obs_dtype!r} differs from the view's observations "
                    f"({game.obs.dtype}); build the SelfPlayView with obs_dtype={obs_dtype!r}"
                )
            self.core = game.core
            self.buf = game
        else:
            self.core = resolve_core(game, core_kwargs)
            require_single_agent(self.core, adapter)
            dtype = "float32" if obs_dtype is None else obs_dtype
            # validates num_envs, dtype and num_threads
            self.buf = Batch(self.core, num_envs, dtype, num_threads)
        self.spec = self.core.spec
        self.illegal_action = check_policy(illegal_action)
        self.dict_obs = check_flag(dict_obs, "dict_obs")
        self.obs_dtype = self.buf.obs.dtype  # float32, or float16 (compact)
        self.tracker = EpisodeTracker(self.buf, episode_info)
        self.obs_pool = _ArrayPool(self.buf.obs)
        self.started = False

    def check_options(self, options) -> dict:
        """``options`` validated (``GameSpec.check_reset_options``) under the
        adapter's ``unknown_reset_options`` policy."""
        return self.spec.check_reset_options(
            options, self.unknown_reset_options, self.warned_reset_keys
        )

    def _after_copy(self) -> None:
        super()._after_copy()
        self.obs_pool = _ArrayPool(self.buf.obs)

    def reset(self, seeds: np.ndarray, options=None, checked: bool = False) -> None:
        """New games; ``options``: the reset options applied to them,
        validated here (``GameSpec.check_reset_options``) unless ``checked``
        says the caller's are the validated ones already (validated twice, a
        validator's output, such as Carl's checked campaign sheet, would be
        judged as if it were user input)."""
        opts = options if checked else self.check_options(options)
        if isinstance(self.buf, Batch):
            self.buf.reset(seeds)
            if opts:
                self.core.apply_reset_options(self.buf.states, opts)
                self.buf.refresh()
        else:  # a SelfPlayView applies them before the opponents move
            self.buf.reset(seeds, options=opts, checked=True)
        self.tracker.clear()
        self.started = True

    def step(self, actions):
        """Validate and step all envs once (one call into the batch); return
        (reward, terminated, truncated, done_idx) with fresh arrays (the
        caller then asks the tracker for the finished rows' infos)."""
        if not self.started:
            raise ResetNeededError("step() called before reset()")
        return self.buf.vector_step(actions, self.illegal_action == "raise")

    def observation(self):
        # called right after the kernels wrote ``buf.obs`` (reset or step):
        # hand that array out and give the buffers one that nobody holds for
        # the next write, so no returned array is ever written again, with
        # no copy and no fresh pages to fault in (see _ArrayPool)
        obs = self.buf.obs
        self.buf.obs = self.obs_pool.free(obs)
        if self.dict_obs:
            return {"observation": obs, "action_mask": self.buf.masks.copy()}
        return obs

    def final_observation(self, i: int):
        obs = self.buf.final_obs[i].copy()
        if self.dict_obs:  # a finished game's mask is all zero by convention
            return {"observation": obs, "action_mask": np.zeros(self.spec.num_actions, MASK_DTYPE)}
        return obs

    def close(self) -> None:
        """Stop the batch's worker threads (``num_threads`` > 1), if any."""
        if isinstance(self.buf, Batch):
            self.buf.close()

    def render_all(self, mode: str = "ansi") -> tuple:
        if not self.started:
            raise ResetNeededError("render() called before reset()")
        draw = self.core.render_rgb if mode == "rgb_array" else self.core.render_ansi
        return tuple(draw(self.buf.states[i]) for i in range(self.buf.n))


def batch_infos(infos: list, rows: list, n: int) -> dict:
    """Gather per-env info dicts (``infos[j]`` of env ``rows[j]``) into
    Gymnasium's dict-of-arrays form with ``_key`` flags: the same result as
    ``VectorEnv._add_info`` applied env by env, built one key at a time."""
    out: dict[str, Any] = {}
    for key in dict.fromkeys(k for info in infos for k in info):
        rs = [r for r, info in zip(rows, infos) if key in info]
        vals = [info[key] for info in infos if key in info]
        v0 = vals[0]
        arr: dict[str, Any] | np.ndarray
        if all(isinstance(v, dict) for v in vals):
            arr = batch_infos(vals, rs, n)
        elif all(type(v) is type(v0) for v in vals) and (
            type(v0) in (int, float, bool) or isinstance(v0, np.number)
        ):
            arr = np.zeros(n, dtype=type(v0))  # what _add_info does
            arr[rs] = vals
        elif all(isinstance(v, (bool, np.bool_)) for v in vals):
            arr = np.zeros(n, dtype=np.bool_)
            arr[rs] = vals
        elif all(
            isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_))
            for v in vals
        ):  # mixed numbers: promote, never truncate
            column = np.asarray(vals)
            arr = np.zeros(n, dtype=column.dtype)
            arr[rs] = column
        elif isinstance(v0, np.ndarray) and all(
            isinstance(v, np.ndarray) and v.shape == v0.shape and v.dtype == v0.dtype for v in vals
        ):
            arr = np.zeros((n, *v0.shape), dtype=v0.dtype)
            arr[rs] = vals
        else:
            arr = np.full(n, None, dtype=object)
            for r, v in zip(rs, vals):
                arr[r] = v
        present = np.zeros(n, np.bool_)
        present[rs] = True
        out[key], out[f"_{key}"] = arr, present
    return out


#: the adapters' constructor arguments that their _Runner takes, by name
_RUNNER_ARGS = (
    "game",
    "num_envs",
    "illegal_action",
    "dict_obs",
    "episode_info",
    "core_kwargs",
    "unknown_reset_options",
    "obs_dtype",
    "num_threads",
)


class _Batched:
    """What both batched adapter classes share on top of their
    :class:`_Runner`: its construction and the read-only extras."""

    _run: _Runner

    def _start(self, args: dict) -> GameSpec:
        """Build the runner from the constructor's arguments (``locals()``:
        ``game``, ``num_envs``, ``render_mode``, the :class:`_Runner`
        options and ``core_kwargs``); set ``game_spec``, ``core`` and
        ``render_mode`` (checked); return the spec."""
        self._run = _Runner(
            **{name: args[name] for name in _RUNNER_ARGS}, adapter=type(self).__name__
        )
        spec = self.game_spec = self._run.spec
        self.core = self._run.core
        self.render_mode = check_render_mode(spec, args["render_mode"])
        return spec

    def action_masks(self) -> np.ndarray:
        """Legal actions of every env, bool ``(num_envs, num_actions)``."""
        return self._run.buf.masks.astype(bool)

    @property
    def illegal_action(self) -> str:
        return self._run.illegal_action

    @property
    def unknown_reset_options(self) -> str:
        return self._run.unknown_reset_options


class DungeonVectorEnv(Copyable, _Batched, VectorEnv):
    """A batch of ``num_envs`` games of one configuration as a native
    ``gymnasium.vector.VectorEnv`` (see the module doc for seeding, actions
    and autoreset).

    Arguments: ``game`` (name, env id, ``GameSpec`` or ``GameCore``; or a
    :class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`, a multi-seat game
    seen from the learner's seat, which brings its own batch size),
    ``num_envs``, ``render_mode`` (``None`` or ``"ansi"``: ``render()`` returns
    a tuple of strings), ``illegal_action`` (``"penalize"`` / ``"raise"``),
    ``dict_obs`` (``{"observation", "action_mask"}`` observations),
    ``episode_info`` (put the core's ``episode_info`` in ``final_info``; costs
    one state copy per step), ``unknown_reset_options`` (``"warn"``: a reset
    option the game does not declare is ignored with one warning per env
    and key; ``"raise"``: ``ValueError``), ``obs_dtype`` (``"float32"``, the
    default, or ``"float16"``: the compact observation, see ``DungeonEnv``;
    a ``SelfPlayView`` brings its own), ``num_threads`` (default 1: the
    fused step on the calling thread; ``k`` > 1: each step splits the envs
    over ``k`` threads, at least 64 envs each, with bit-identical results;
    not with a ``SelfPlayView``), ``**core_kwargs`` for ``spec.make_core``.

    ``step`` returns infos as a dict of arrays, each key ``k`` with a bool
    ``_k`` array telling which envs have it:

    * ``action_mask`` (int8 ``(num_envs, num_actions)``, every step; for a
      finished env it is already the new episode's mask);
    * ``illegal_action`` (bool, every step);
    * ``final_obs`` (object array, the finished episodes' last observations)
      and ``final_info`` (dict of arrays: ``illegal_action``, ``episode``
      ``{"r": return, "l": length}`` and the core's ``episode_info`` keys),
      flagged where an episode ended on this step.

    ``gymnasium.make_vec(spec.env_id, num_envs=n)`` builds this class.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4, "autoreset_mode": SAME_STEP}

    def __init__(
        self,
        game,
        num_envs: int = 1,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        dict_obs: bool = False,
        episode_info: bool = True,
        unknown_reset_options: str = "warn",
        obs_dtype: str | None = None,
        num_threads: int = 1,
        **core_kwargs,
    ):
        spec = self._start(locals())
        self.metadata = {
            "render_modes": list(spec.render_modes),
            "render_fps": 4,
            "autoreset_mode": SAME_STEP,
        }
        self.num_envs = self._run.buf.n
        self.single_observation_space = observation_spaces(spec, dict_obs, self._run.obs_dtype)
        self.single_action_space = spaces.Discrete(spec.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every env. ``seed``: an int ``s`` (env ``i`` gets ``s + i``), a
        sequence of ``num_envs`` seeds, or ``None`` (seeds drawn from
        ``self.np_random``). ``options``: the game's reset options
        (``spec.reset_options``; an unknown key is ignored with a warning, or
        raises ``ValueError`` with ``unknown_reset_options="raise"``)."""
        options = self._run.check_options(options)
        if seed is None:
            seeds = draw_seeds(self.np_random, self.num_envs)
        else:
            seeds = seed_batch(seed, self.num_envs)  # checked: TypeError / ValueError
            first = int(seeds[0])
            super().reset(seed=first)
        self._run.reset(seeds, options, checked=True)  # validated above
        n = self.num_envs
        infos = {"action_mask": self._run.buf.masks.copy(), "_action_mask": np.ones(n, np.bool_)}
        return self._run.observation(), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        run = self._run
        reward, terminated, truncated, done_idx = run.step(actions)
        buf = run.buf
        infos: dict[str, Any] = {
            "action_mask": buf.masks.copy(),
            "_action_mask": np.ones(self.num_envs, np.bool_),
            "illegal_action": buf.illegal.copy(),
            "_illegal_action": np.ones(self.num_envs, np.bool_),
        }
        if len(done_idx):
            rets, lens, core_infos = run.tracker.finish(reward, done_idx, columns=True)
            infos["final_obs"], infos["_final_obs"] = (
                self._final_obs(done_idx),
                self._flags(done_idx),
            )
            n = self.num_envs
            if isinstance(core_infos, dict):  # the core's columns: no per-row work
                final_info = scatter_columns(core_infos, done_idx, n)
            elif core_infos:
                final_info = batch_infos(core_infos, done_idx.tolist(), n)
            else:
                final_info = {}
            illegal = np.zeros(n, np.bool_)
            illegal[done_idx] = buf.illegal[done_idx]
            r = np.zeros(n, np.float64)
            r[done_idx] = rets
            ln = np.zeros(n, np.int64)
            ln[done_idx] = lens
            final_info["illegal_action"] = illegal
            final_info["_illegal_action"] = self._flags(done_idx)
            final_info["episode"] = {
                "r": r,
                "_r": self._flags(done_idx),
                "l": ln,
                "_l": self._flags(done_idx),
            }
            final_info["_episode"] = self._flags(done_idx)
            infos["final_info"] = final_info
            infos["_final_info"] = self._flags(done_idx)
        else:
            run.tracker.finish(reward, done_idx)  # counters only
        return run.observation(), reward, terminated, truncated, infos

    def _flags(self, done_idx: np.ndarray) -> np.ndarray:
        done = np.zeros(self.num_envs, np.bool_)
        done[done_idx] = True
        return done

    def _final_obs(self, done_idx: np.ndarray) -> np.ndarray:
        """Object array of the finished rows' last observations (the only
        rows copied out of ``final_obs``; None elsewhere)."""
        run = self._run
        final_obs = np.empty(self.num_envs, dtype=object)
        fo = run.buf.final_obs[done_idx]  # one copy of the finished rows
        if run.dict_obs:
            zero = np.zeros(self.game_spec.num_actions, MASK_DTYPE)
            for j, i in enumerate(done_idx.tolist()):
                final_obs[i] = {"observation": fo[j], "action_mask": zero.copy()}
        else:  # row views of the one copy, made by numpy's iterator (no Python loop)
            final_obs[done_idx] = np.fromiter(fo, dtype=object, count=len(done_idx))
        return final_obs

    def render(self):
        if self.render_mode is None:
            return None
        return self._run.render_all(self.render_mode)

    def close_extras(self, **kwargs) -> None:
        self._run.close()

    def __repr__(self) -> str:
        return f"<DungeonVectorEnv {self.game_spec.env_id} x{self.num_envs}>"


def _same_options(per_env):
    """The one options dict of SB3's per-env ``set_options`` list (the envs of
    a batch share a configuration, so they must agree)."""
    first = per_env[0] if per_env else {}
    if any(o != first for o in per_env):
        raise ValueError(
            "the native VecEnv applies one set of reset options to every env; "
            "set_options gave different ones"
        )
    return first or None


def make_vector_env(game: str, num_envs: int = 1, **kwargs) -> DungeonVectorEnv:
    """Gymnasium ``vector_entry_point``: ``gymnasium.make_vec(env_id, num_envs=n)``.

    Games are registered with ``max_episode_steps=None`` (the core truncates
    itself), so gymnasium adds no ``max_episode_steps`` of its own here."""
    return DungeonVectorEnv(game, num_envs=num_envs, **kwargs)


# --- Stable-Baselines3 -------------------------------------------------------------
_SB3_CLASS = None


def _build_sb3_class():
    """Define ``DungeonSB3VecEnv`` (imports stable_baselines3 on first use)."""
    from stable_baselines3.common.vec_env import VecEnv

    class DungeonSB3VecEnv(Copyable, _Batched, VecEnv):
        """A batch of ``num_envs`` games as a native Stable-Baselines3 ``VecEnv``,
        ready for sb3-contrib's ``MaskablePPO`` (``env_method("action_masks")``).

        Arguments: ``seed`` (seeds the first ``reset``: env ``i`` gets ``seed +
        i``; ``None`` draws seeds); ``game``, ``num_envs``, ``illegal_action``,
        ``dict_obs``, ``episode_info``, ``render_mode``, ``unknown_reset_options``
        (for ``set_options``), ``obs_dtype``, ``num_threads``, ``**core_kwargs``
        as for :class:`DungeonVectorEnv`.

        ``step_wait`` returns ``(obs, rewards float32, dones bool, infos)``;
        ``infos`` is a list of dicts with ``action_mask`` (int8) and
        ``illegal_action`` every step, and for envs whose episode just ended
        (same-step autoreset) ``terminal_observation``, ``TimeLimit.truncated``
        (truncated and not terminated), ``episode`` ``{"r", "l", "t"}`` (the
        Monitor format SB3's logger reads) and the core's ``episode_info``.

        Attributes are shared by the whole batch: ``get_attr(name)`` returns
        the adapter's attribute once per env, ``set_attr`` sets it for all.
        ``env_method`` supports ``"action_masks"`` (one bool mask per env) and
        ``"render"`` (one text view per env).
        """

        def __init__(
            self,
            game,
            num_envs: int = 1,
            seed: int | None = None,
            illegal_action: str = "penalize",
            dict_obs: bool = False,
            episode_info: bool = True,
            render_mode: str | None = None,
            unknown_reset_options: str = "warn",
            obs_dtype: str | None = None,
            num_threads: int = 1,
            **core_kwargs,
        ):
            # sets render_mode, read by VecEnv.__init__ via get_attr
            spec = self._start(locals())
            self._closed = False
            seed = check_seed(seed)
            self._seed_rng = np.random.default_rng(seed)
            self._t0 = time.time()
            self._pending = False
            super().__init__(
                self._run.buf.n,
                observation_spaces(spec, dict_obs, self._run.obs_dtype),
                spaces.Discrete(spec.num_actions),
            )
            if seed is not None:
                self.seed(seed)

        # --- VecEnv API -------------------------------------------------------
        def seed(self, seed=None):
            """Seeds of the next ``reset``: env ``i`` gets ``seed + i`` (modulo
            2**64); ``seed`` an int in ``[0, 2**64)`` or ``None``."""
            seed = check_seed(seed)
            if seed is None:
                return super().seed(None)
            self._seeds = [(seed + i) % UINT64_SPAN for i in range(self.num_envs)]
            return self._seeds

        def reset(self):
            n = self.num_envs
            given = [s for s in self._seeds if s is not None]
            if len(given) == n:
                seeds = seed_batch(self._seeds, n)
            else:
                seeds = draw_seeds(self._seed_rng, n)
                for i, s in enumerate(self._seeds):
                    if s is not None:
                        seeds[i] = np.uint64(int(s))
            self._run.reset(seeds, _same_options(self._options))
            self._reset_seeds()
            self._reset_options()
            masks = self._run.buf.masks.copy()
            self.reset_infos = [{"action_mask": masks[i]} for i in range(n)]
            self._pending = False
            return self._run.observation()

        def step_async(self, actions) -> None:
            self._actions = actions
            self._pending = True

        def step_wait(self):
            if not self._pending:
                raise RuntimeError("step_wait() called without step_async()")
            self._pending = False
            run = self._run
            reward, terminated, truncated, done_idx = run.step(self._actions)
            end_infos = run.tracker.after_step(reward, done_idx)
            masks = run.buf.masks.copy()
            illegal = run.buf.illegal
            infos = [
                {"action_mask": masks[i], "illegal_action": bool(illegal[i])}
                for i in range(self.num_envs)
            ]
            t = round(time.time() - self._t0, 6)
            for i, end in zip(done_idx.tolist(), end_infos):
                info = infos[i]
                info.update(end)
                info["episode"]["t"] = t
                info["terminal_observation"] = run.final_observation(i)
                info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            return run.observation(), reward, terminated | truncated, infos

        def close(self) -> None:
            self._closed = True
            self._run.close()

        def get_attr(self, attr_name: str, indices=None) -> list:
            value = getattr(self, attr_name)
            return [value for _ in self._get_indices(indices)]

        def set_attr(self, attr_name: str, value, indices=None) -> None:
            setattr(self, attr_name, value)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
            idx = list(self._get_indices(indices))
            if method_name == "action_masks":
                masks = self.action_masks()
                return [masks[i] for i in idx]
            if method_name == "render":
                views = self._run.render_all(self.render_mode or "ansi")
                return [views[i] for i in idx]
            raise AttributeError(
                f"{type(self).__name__}.env_method supports 'action_masks' and 'render', "
                f"not {method_name!r}"
            )

        def env_is_wrapped(self, wrapper_class, indices=None) -> list:
            return [False for _ in self._get_indices(indices)]

        # --- extras (action_masks, illegal_action: _Batched) ---------------------
        def get_images(self) -> list:
            """One ``rgb_array`` frame per env (SB3's ``render`` and
            ``VecVideoRecorder`` call this); ``None`` per env in other modes."""
            if self.render_mode != "rgb_array":
                return [None] * self.num_envs
            return list(self._run.render_all("rgb_array"))

        def __repr__(self) -> str:
            return f"<DungeonSB3VecEnv {self.game_spec.env_id} x{self.num_envs}>"

    DungeonSB3VecEnv.__module__ = __name__
    DungeonSB3VecEnv.__qualname__ = "DungeonSB3VecEnv"  # picklable via module __getattr__
    return DungeonSB3VecEnv


def __getattr__(name: str):
    global _SB3_CLASS
    if name == "DungeonSB3VecEnv":
        if _SB3_CLASS is None:
            _SB3_CLASS = _build_sb3_class()
        return _SB3_CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
