"""The Gymnasium single-agent adapter, written once for every game.

:class:`DungeonEnv` drives a :class:`~dungeonrl.envs.core.spec.GameCore` with
a batch of one. It only translates: spaces, seeding, action validation, the
illegal-action policy, Python scalar types, copies of returned arrays,
snapshots. The rules, the observation encoding and the episode cap are the
core's. Each game's own module documents its actions, observation columns
and rewards; this class documents what every game shares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..batch import Batch
from ..common import MASK_DTYPE, action_index, illegal_message
from ..copying import Copyable
from ..errors import IllegalActionError, RenderModeError, ResetNeededError
from ..snapshot import Snapshot, restore_record, take_snapshot
from ..validate import check_flag, check_obs_dtype, check_seed
from .base import GameAdapter, game_seeds

__all__ = ["DungeonEnv", "make_env", "observation_spaces", "RenderModeError"]


def observation_spaces(spec, dict_obs: bool, obs_dtype="float32") -> spaces.Space:
    """The single-env observation space of a game: a ``Box`` of
    ``spec.obs_size`` columns (float32, or float16 for the compact
    observation: its bounds rounded to half precision, which keeps every
    rounded observation inside them), or with ``dict_obs`` a ``Dict`` of
    that box (``"observation"``) and an int8 ``Box(0, 1)`` (``"action_mask"``)."""
    dt = check_obs_dtype(obs_dtype)
    shape = (spec.obs_size,)
    low = np.broadcast_to(np.asarray(spec.obs_low, np.float32), shape).astype(dt)
    high = np.broadcast_to(np.asarray(spec.obs_high, np.float32), shape).astype(dt)
    box = spaces.Box(low, high, shape, dt)
    if not dict_obs:
        return box
    mask = spaces.Box(0, 1, (spec.num_actions,), MASK_DTYPE)
    return spaces.Dict({"observation": box, "action_mask": mask})


class DungeonEnv(Copyable, GameAdapter, gym.Env):
    """A dungeonrl game as a single-agent Gymnasium environment.

    ## Description

    One game of the suite, played by one agent. The game (rules, content,
    difficulty) is a :class:`~dungeonrl.envs.core.spec.GameCore` built from
    the game's :class:`~dungeonrl.envs.core.spec.GameSpec`; this class is the
    thin adapter shared by every game. The game's module docstring is its
    doc page: what the actions mean, what each observation column holds, how
    rewards are given.

    ## Action Space

    ``Discrete(spec.num_actions)``: a flat enumeration of every decision (for
    example card x target), named by ``spec.action_names``. Only some actions
    are legal at a time; the legal ones are given three ways:

    * ``env.action_masks()``: a bool array (what sb3-contrib's MaskablePPO calls);
    * ``info["action_mask"]``: an int8 array, 1 = legal (usable as
      ``action_space.sample(mask=info["action_mask"])``);
    * with ``dict_obs=True``, the observation's ``"action_mask"`` entry.

    A finished episode has an all-zero mask.

    Accepted action values: a Python ``int``, a numpy integer scalar, or an
    integer array of shape ``()`` or ``(1,)``. Anything else (bools, floats,
    strings, lists, other shapes) and indices outside ``[0, num_actions)``
    raise :class:`InvalidActionError`, whatever the illegal-action policy.

    An in-range action that the mask forbids is handled by the policy chosen
    with ``illegal_action``:

    * ``"penalize"`` (default, so unmasked random agents and Gymnasium's env
      checker can run): the episode terminates, the reward is
      ``spec.illegal_penalty`` and ``info["illegal_action"]`` is ``True``;
    * ``"raise"`` (strict, for debugging): :class:`IllegalActionError` names the
      action index, its name and the game phase; the state is left unchanged.

    ## Observation Space

    ``Box(spec.obs_low, spec.obs_high, (spec.obs_size,), float32)``, one column per
    ``spec.feature_names`` (``float16`` with ``obs_dtype="float16"``, the
    compact observation: the same columns rounded to half precision, bounds
    included); with ``dict_obs=True`` a ``Dict`` with
    ``"observation"`` (that box) and ``"action_mask"`` (``Box(0, 1,
    (num_actions,), int8)``). Every returned array is a fresh copy.

    ## Rewards

    Game-specific (see the game's module), within ``spec.reward_range`` per
    step, returned as a Python ``float``. An illegal action under the
    ``"penalize"`` policy gives ``spec.illegal_penalty``.

    ## Starting State

    ``reset(seed=s)`` starts the game from seed ``s`` (the same game as row 0
    of a vector env reset with ``seed=s``). ``reset()`` without a seed draws
    the game seed from ``self.np_random``, so a seeded reset followed by
    unseeded ones is reproducible, as Gymnasium expects.

    ## Episode End

    * Termination: the rules end the game (win, loss, or an illegal action
      under the ``"penalize"`` policy).
    * Truncation: the game's step cap ``spec.max_episode_steps`` is reached;
      the core truncates itself, so no ``TimeLimit`` wrapper is registered.

    The final step's ``info`` also holds the core's ``episode_info`` (outcome,
    score...). Stepping again before ``reset`` raises :class:`ResetNeededError`.

    ## Arguments

    * ``game``: a registered game name or env id, a ``GameSpec``, or a ready
      ``GameCore``.
    * ``render_mode``: ``None`` or one of ``spec.render_modes`` (``"ansi"``:
      ``render()`` returns the core's text view; ``"rgb_array"``: a picture,
      ``uint8`` ``(H, W, 3)``); another mode raises :class:`RenderModeError`
      (a ``ValueError`` and a ``TypeError``, so SB3's ``make_vec_env``, which
      asks for ``"rgb_array"`` and retries without it on ``TypeError``, works
      for every game).
    * ``illegal_action``: ``"penalize"`` or ``"raise"`` (see above).
    * ``dict_obs``: return ``{"observation", "action_mask"}`` observations.
    * ``obs_dtype``: ``"float32"`` (default) or ``"float16"``, the compact
      observation: every column of the float32 observation rounded to half
      precision by the kernels (round to nearest even, what ``astype(np.float16)``
      gives), half the bytes; ``obs.astype(np.float32)`` decodes it, exactly
      for integer values up to 2,048 and within a relative 2**-11 otherwise
      (each game's observation table says so).
    * ``unknown_reset_options``: ``"warn"`` (default: a ``reset(options=...)``
      key the game does not declare in ``spec.reset_options`` is ignored
      with one ``UserWarning`` per env and key, the Gymnasium convention) or
      ``"raise"`` (strict: ``ValueError`` naming the key and the accepted
      ones). A declared key with a bad value always raises ``ValueError``.
    * ``**core_kwargs``: passed to ``spec.make_core`` (difficulty, character...).

    ``gymnasium.make(spec.env_id, **kwargs)`` builds the same env.

    ## Snapshots

    ``get_state()`` returns a :class:`Snapshot` (game record bytes, game name,
    layout version, step count, return, done flag); ``set_state(snapshot)``
    restores it exactly. Snapshots of another game or layout version raise
    :class:`SnapshotError`, and so does a malformed header (a step count,
    return or done flag of the wrong type); a record the rules could not
    reach (see ``envs/core/validate.py``) raises :class:`CorruptStateError`
    naming the field. Everything is checked before anything changes: a
    refused snapshot leaves the env as it was. The ``np_random`` used for
    unseeded resets is not part of a snapshot.

    ``copy.deepcopy(env)`` and ``pickle`` give an exact, independent copy
    (``np_random`` included); ``env.clone()`` is the same copy for search,
    sharing the core, spec and spaces (see :mod:`.copying`).

    ## Version History

    The adapter has no version of its own: each game's ``-vN`` (in
    ``spec.env_id``) is bumped whenever the game's behaviour changes.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    _no_render_mode = (  # render()'s warning without a render mode
        "render() called without a render_mode; pass render_mode='ansi' when making the env"
    )
    # rebuilt on a copy (see .copying): row views of the buffers, the bound kernel
    _derived = ("_obs_row", "_mask_row", "_step_call")
    _step_call: Callable[[], None] | None  # the bound step (see _bind_step)

    def __init__(
        self,
        game,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        dict_obs: bool = False,
        unknown_reset_options: str = "warn",
        obs_dtype: str = "float32",
        **core_kwargs,
    ):
        spec = self._setup(
            game, core_kwargs, render_mode, illegal_action, unknown_reset_options, single_agent=True
        )
        self.metadata = {"render_modes": list(spec.render_modes), "render_fps": 4}
        self.dict_obs = check_flag(dict_obs, "dict_obs")
        self.action_space = spaces.Discrete(spec.num_actions)
        self._buf = buf = Batch(self.core, 1, obs_dtype)
        self.obs_dtype = buf.obs_dtype.name
        self.observation_space = observation_spaces(spec, self.dict_obs, buf.obs_dtype)
        self._num_actions = int(spec.num_actions)
        # row views, and the fused kernel bound to the buffers (see _bind_step)
        self._obs_row, self._mask_row = buf.obs[0], buf.masks[0]
        self._step_call = None  # bound on the first step (see _bind_step)
        self._started = False  # reset was called at least once
        self._needs_reset = True  # no episode running
        self._step_count = 0
        self._episode_return = 0.0
        self._closed = False

    # --- gymnasium API ---------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        seed = check_seed(seed)  # int / numpy integer in [0, 2**64) or None
        opts = self.game_spec.check_reset_options(
            options, self.unknown_reset_options, self._warned_reset_keys
        )
        super().reset(seed=seed)
        self._buf.reset(game_seeds(seed, self.np_random, 1))
        if opts:
            self.core.apply_reset_options(self._buf.states, opts)
            self._buf.refresh()
        self._started = True
        self._needs_reset = False
        self._step_count = 0
        self._episode_return = 0.0
        return self._observation(), {"action_mask": self._buf.masks[0].copy()}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        buf = self._buf
        if type(action) is int and 0 <= action < self._num_actions:
            a = action  # the common case, checked inline
        else:
            a = action_index(action, self._num_actions)
        if self._needs_reset:
            raise ResetNeededError(
                "step() called before reset()"
                if not self._started
                else "step() called after the episode ended; call reset() first"
            )
        if self.illegal_action == "raise" and not self._mask_row[a]:
            raise IllegalActionError(illegal_message(self.core, buf.states[0], a, buf.masks[0]))
        buf.actions[0] = a
        step_call = self._step_call
        if step_call is None:
            step_call = self._bind_step()
        step_call()  # step, observation and mask: one kernel call
        reward = buf.rewards.item(0)
        terminated = buf.terminated.item(0)
        truncated = buf.truncated.item(0)
        self._step_count += 1
        self._episode_return += reward
        if terminated or truncated:
            self._needs_reset = True
            info = dict(self.core.episode_info(buf.states[0]))
            info["action_mask"] = self._mask_row.copy()
            info["illegal_action"] = buf.illegal.item(0)
        else:
            info = {"action_mask": self._mask_row.copy(), "illegal_action": buf.illegal.item(0)}
        return self._observation(), reward, terminated, truncated, info

    def _bind_step(self) -> Callable[[], None]:
        """``self._step_call()`` (also returned): the batch's step (step, observation of seat
        0 and mask) bound to the one-row buffers (no numba type dispatch per
        step)."""
        self._step_call = call = self._buf.bound_step()
        return call

    def _clone_shared(self) -> tuple:
        # a clone for search shares the spaces (and their sample generator)
        return (self.action_space, self.observation_space, self.metadata)

    def _after_copy(self) -> None:
        """A copy's row views point at its own buffers; its kernel is bound
        again on its first step (see :mod:`.copying`)."""
        super()._after_copy()
        self._obs_row, self._mask_row = self._buf.obs[0], self._buf.masks[0]
        self._step_call = None

    def _shown_state(self):
        return self._buf.states[0]

    def close(self):
        self._closed = True

    # --- masks, snapshots --------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Legal actions now, as a bool array of ``num_actions`` (all False
        once the episode has ended)."""
        return self._buf.masks[0].astype(bool)

    def get_state(self) -> Snapshot:
        """Snapshot of the current game and episode bookkeeping."""
        args = (self._started, self._step_count, self._episode_return, self._needs_reset)
        return take_snapshot(self.game_spec, self._buf.states, *args)

    def set_state(self, snapshot: Snapshot | bytes) -> None:
        """Restore a snapshot from :meth:`get_state` (or its ``to_bytes``)."""
        # (a game that also seats more: its multi-seat records are the AEC env's)
        record, step_count, episode_return, needs_reset = restore_record(
            snapshot, self.core, 1, env="this single-agent env"
        )
        buf = self._buf
        buf.states[:] = record
        buf.refresh()
        self._started = True
        self._needs_reset = needs_reset
        self._step_count = step_count
        self._episode_return = episode_return

    # --- helpers -------------------------------------------------------------------
    def _observation(self):
        obs = self._obs_row.copy()  # the one copy: returned arrays never alias the buffers
        if self.dict_obs:
            return {"observation": obs, "action_mask": self._mask_row.copy()}
        return obs

    def __repr__(self) -> str:
        return f"<DungeonEnv {self.game_spec.env_id}>"


def make_env(game: str, **kwargs) -> DungeonEnv:
    """Gymnasium entry point: look the game up by name (or env id) in the
    registry and build a :class:`DungeonEnv` (``kwargs`` as for the class)."""
    return DungeonEnv(game, **kwargs)
