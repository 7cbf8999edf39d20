"""The PettingZoo AEC adapter, written once for every multi-agent game.

:class:`DungeonAECEnv` drives a :class:`~dungeonrl.envs.core.spec.GameCore`
with a batch of one game. It only translates: agent names, per-agent spaces,
the AEC bookkeeping (``rewards`` / ``_cumulative_rewards`` /
``terminations`` / ``truncations`` / ``infos``, removal of finished agents),
action validation, the illegal-action policy, snapshots and rendering. The
rules, the seat to act (``core.to_play``), the observation from each seat
(``core.observe``) and the episode cap are the core's.

Conventions
-----------
* agents are ``player_0 ... player_{N-1}`` (seat i is ``player_i``);
  ``agent_selection`` is always the seat the rules ask to act, so a seat may
  act several times in a row (a whole turn) or out of turn order (a
  defender's response in a fight started on someone else's turn);
* ``observe(agent)`` is ``{"observation": float32[obs_size], "action_mask":
  int8[num_actions]}`` (``float16`` with ``obs_dtype="float16"``, the
  compact observation: each column rounded to half precision); only the
  selected agent of a running game gets a non-zero mask; returned arrays are fresh copies;
* rewards are per seat, as the core writes them (``float``);
  ``terminations`` / ``truncations`` are Python ``bool``: all seats end
  together, then each must be stepped with ``None`` (PettingZoo's dead-step
  protocol) until ``agents`` is empty;
* ``step`` accepts Python ints, numpy integer scalars and integer arrays of
  shape ``()`` / ``(1,)``; anything else or an out-of-range index raises
  :class:`InvalidActionError`. An in-range action the mask forbids follows
  ``illegal_action``: ``"penalize"`` (default) ends the game, the acting
  seat gets ``spec.illegal_penalty`` and ``infos[agent]["illegal_action"]``
  is True; ``"raise"`` raises :class:`IllegalActionError` and changes
  nothing;
* ``reset(options=...)`` applies the game's ``spec.reset_options`` (a bad
  value raises ``ValueError``); an unknown key is ignored with one
  ``UserWarning`` per env and key, as PettingZoo's own envs ignore options
  they do not use (its ``api_test`` probes ``reset`` with a made-up key);
  ``unknown_reset_options="raise"`` makes it a ``ValueError`` naming the key
  and the accepted ones;
* ``state()`` is the global view: every seat's observation concatenated
  (``float32[num_players * obs_size]``, space ``state_space``; each seat's
  private information is in it, deck orders and the generator are not),
  the same definition as :meth:`~dungeonrl.envs.core.adapters.multi.BatchedMultiAgentEnv.state`;
* ``get_state()`` / ``set_state()`` snapshot and restore the game exactly
  (:class:`~dungeonrl.envs.core.snapshot.Snapshot`); ``render()`` supports
  the spec's modes plus ``"human"`` (prints the ``ansi`` text) when the
  game has ``ansi``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from ..batch import Batch
from ..common import MASK_DTYPE, action_index, illegal_message
from ..copying import Copyable
from ..errors import IllegalActionError, InvalidActionError, ResetNeededError
from ..snapshot import Snapshot, restore_record, take_snapshot
from ..validate import check_obs_dtype, check_seed
from .base import GameAdapter, game_seeds
from .gym_env import observation_spaces
from .multi import global_state_space, observe_seats

__all__ = ["DungeonAECEnv", "CheckedAECEnv", "make_aec_env", "OrderError", "OutOfBoundsActionError"]


class OrderError(ResetNeededError, AssertionError):
    """A call before ``reset`` in the checked env (an ``AssertionError``
    too, the error PettingZoo's ``OrderEnforcingWrapper`` raises)."""


class OutOfBoundsActionError(InvalidActionError, AssertionError):
    """An action outside the action space in the checked env (an
    ``AssertionError`` too, the error of PettingZoo's
    ``AssertOutOfBoundsWrapper``)."""


class DungeonAECEnv(Copyable, GameAdapter, AECEnv):
    """A dungeonrl multi-agent game as a PettingZoo AEC environment (see the
    module doc for the conventions; the game's module doc for its actions,
    observation columns and rewards)."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi"],
        "name": "dungeonrl",
        "is_parallelizable": False,
        "render_fps": 4,
    }
    # the kernels bound to the buffers: bound again on a copy (see .copying)
    _derived = ("_step_call", "_observe_call", "_mask_call")
    # the batch's calls bound to this env's buffers (None: not bound yet)
    _step_call: Callable[[], None] | None
    _observe_call: Callable[[], None] | None
    _mask_call: Callable[[], None] | None

    def __init__(
        self,
        game,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        unknown_reset_options: str = "warn",
        obs_dtype: str = "float32",
        **core_kwargs,
    ):
        super().__init__()
        self.obs_dtype = check_obs_dtype(obs_dtype).name
        spec = self._setup(game, core_kwargs, render_mode, illegal_action, unknown_reset_options)
        self.metadata = {
            "render_modes": self._render_modes(spec),
            "name": spec.env_id.split("/")[-1],
            "is_parallelizable": False,
            "render_fps": 4,
        }
        n = self.num_seats = int(self.core.num_players)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        box = observation_spaces(spec, False, self.obs_dtype)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": box,
                    "action_mask": spaces.Box(0, 1, (spec.num_actions,), MASK_DTYPE),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(spec.num_actions) for a in self.possible_agents}
        self.state_space = global_state_space(spec, n)
        self._seat_obs = np.zeros((1, n, spec.obs_size), np.float32)
        # the kernels' one-row buffers: the batch's, under this env's names
        b = self.batch = Batch(self.core, 1, self.obs_dtype)
        self._states, self._rew, self._obs, self._mask = b.states, b.rewards, b.obs, b.masks
        self._te, self._tr, self._il = b.terminated, b.truncated, b.illegal
        self._act = b.actions
        self._players = b.players_out  # the seat to act, written by the step
        self._seat_arg = b.players  # the seat observe() asks about
        self._seat_obs1 = np.zeros((1, spec.obs_size), b.obs_dtype)
        self._num_actions = int(spec.num_actions)
        # the batch's calls, bound to the buffers: on the first reset (the
        # step's on the first step), again on a copy
        self._step_call = self._observe_call = self._mask_call = None
        # the seat whose observation and mask are in _obs / _mask (-1: none)
        self._cached_seat = -1
        self._started = False
        self._done = False
        self._step_count = 0
        self.np_random, _ = seeding.np_random(None)
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str | None = None  # a seat's name once reset

    def _render_modes(self, spec) -> list:
        """The game's render modes, and ``"human"`` where it has ``"ansi"``."""
        modes = list(spec.render_modes)
        if "ansi" in modes:
            modes.append("human")
        return modes

    # --- spaces ------------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # --- AEC API -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seed = check_seed(seed)  # int / numpy integer in [0, 2**64) or None
        opts = self.game_spec.check_reset_options(
            options, self.unknown_reset_options, self._warned_reset_keys
        )
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        seeds = game_seeds(seed, self.np_random, 1)
        if self._observe_call is None:
            self._bind_kernels()
        self.batch.reset_states(self._states, seeds)
        if opts:
            self.core.apply_reset_options(self._states, opts)
        self._start_episode(False, 0)
        self._select()
        self._fill_cache()

    def _bind_kernels(self) -> None:
        """The batch's observe and mask calls bound to this env's buffers
        (no numba type dispatch per call); the step's is bound on the first
        step (one call steps the game and writes the next seat's
        observation and mask)."""
        b = self.batch
        self._cached_seat = -1
        self._step_call = None
        self._observe_call = b.bound_observe(self._seat_arg, self._seat_obs1)
        self._mask_call = b.bound_mask()

    def _clone_shared(self) -> tuple:
        # a clone for search shares the spaces (and their sample generators)
        return (self.observation_spaces, self.action_spaces, self.state_space, self.metadata)

    def _after_copy(self) -> None:
        """Bind the copy's calls to its own buffers (the step's on its first
        step, as after ``_bind_kernels``)."""
        super()._after_copy()
        self._step_call = self._observe_call = self._mask_call = None
        if self._started:
            seat = self._cached_seat
            self._bind_kernels()
            self._cached_seat = seat

    def _fill_cache(self) -> None:
        """Observation and mask of the seat to act (after reset / set_state)."""
        self._cached_seat = -1
        if self._done:
            return
        seat = self._to_play()
        self._seat_arg[0] = seat
        observe, mask = self._observe_call, self._mask_call
        assert observe is not None and mask is not None  # bound by reset / set_state
        observe()
        self._obs[0] = self._seat_obs1[0]
        mask()
        self._cached_seat = seat

    def observe(self, agent):
        if not self._started:
            raise ResetNeededError("observe() called before reset()")
        seat = self._seat[agent]
        if seat == self._cached_seat:  # the seat to act: written by the last step
            return {"observation": self._obs[0].copy(), "action_mask": self._mask[0].copy()}
        self._seat_arg[0] = seat
        observe = self._observe_call
        assert observe is not None  # bound by reset / set_state
        observe()
        obs = self._seat_obs1[0].copy()
        mask = np.zeros(self._num_actions, MASK_DTYPE)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global view: every seat's observation concatenated (see the
        module doc), a fresh ``float32[num_players * obs_size]`` array."""
        if not self._started:
            raise ResetNeededError("state() called before reset()")
        observe_seats(self.core, self._states, self._seat_obs)
        return self._seat_obs.reshape(-1).copy()

    def step(self, action):
        if not self._started:
            raise ResetNeededError("step() called before reset()")
        if not self.agents:
            raise ResetNeededError("step() called after every agent is done; call reset()")
        agent = self.agent_selection
        assert agent is not None  # set by reset
        if self._done:
            if action is not None:
                raise InvalidActionError(
                    f"{agent} is done; the only valid action is None, got {action!r}"
                )
            self._was_dead_step(action)
            return
        if type(action) is int and 0 <= action < self._num_actions:
            a = action  # the common case, checked inline
        elif action is None:
            raise InvalidActionError(f"{agent} must act; None is only for finished agents")
        else:
            a = action_index(action, self._num_actions)
        # _mask holds the acting seat's mask (written by the previous call)
        if self.illegal_action == "raise" and not self._mask[0, a]:
            raise IllegalActionError(illegal_message(self.core, self._states[0], a, self._mask[0]))
        self._act[0] = a
        if self._step_call is None:
            self._step_call = self.batch.bound_fused_step()
        self._step_call()  # step + next seat + its observation and mask
        self._step_count += 1
        rew = self._rew[0].tolist()
        rewards = self.rewards
        cum = self._cumulative_rewards
        cum[agent] = 0.0
        for name, seat in self._live:
            r = rew[seat]
            rewards[name] = r
            cum[name] += r
        if self._te[0] or self._tr[0]:
            # the kernel restarted the game in place: put the finished record back
            self._states[0] = self.batch.final_states[0]
            self._cached_seat = -1
            self._finish()
        else:
            seat = int(self._players[0])
            self._cached_seat = seat
            self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        """Every seat ends together: flags and the core's episode info."""
        self._done = True
        info = dict(self.core.episode_info(self._states[0]))
        info["illegal_action"] = bool(self._il[0])
        te, tr = bool(self._te[0]), bool(self._tr[0])
        for a_name in self.agents:
            self.terminations[a_name] = te
            self.truncations[a_name] = tr
            self.infos[a_name] = dict(info)
        self._select()

    def render(self):
        out = super().render()
        if self.render_mode == "human":  # the ansi text, printed
            print(out)
            return None
        return out

    def _shown_state(self):
        return self._states[0]

    def close(self):
        pass

    def __str__(self) -> str:
        return self.metadata["name"]

    # --- snapshots ---------------------------------------------------------------------
    def get_state(self) -> Snapshot:
        # the seats' returns live in _cumulative_rewards: the snapshot keeps 0.0
        args = (self._started, self._step_count, 0.0, self._done)
        return take_snapshot(self.game_spec, self._states, *args)

    def set_state(self, snapshot) -> None:
        record, step_count, _, done = restore_record(snapshot, self.core, self.num_seats)
        if self._observe_call is None:
            self._bind_kernels()
        self._states[:] = record
        self._start_episode(done, step_count)
        if self._done:
            info = dict(self.core.episode_info(self._states[0]))
            trunc = info.get("outcome") == "truncated"
            for a in self.agents:
                self.terminations[a] = not trunc
                self.truncations[a] = trunc
                self.infos[a] = dict(info)
        self._select()
        self._fill_cache()

    # --- helpers -----------------------------------------------------------------------
    def _start_episode(self, done: bool, step_count: int) -> None:
        """The bookkeeping of a fresh (``reset``) or restored (``set_state``)
        episode: every agent back in, no reward, nothing ended yet."""
        self._started = True
        self._done = done
        self._step_count = step_count
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._live = [(a, i) for i, a in enumerate(self.agents)]

    def action_mask(self, agent=None) -> np.ndarray:
        """int8 mask of ``agent`` (default: the selected one)."""
        return self.observe(agent or self.agent_selection)["action_mask"]

    def _to_play(self) -> int:
        return int(self.core.to_play(self._states)[0])

    def _select(self):
        if self._done:
            # every agent is finished: point at one for the dead-step protocol
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        self.agent_selection = self.possible_agents[self._to_play()]

    def __repr__(self) -> str:
        return f"<DungeonAECEnv {self.game_spec.env_id} players={self.num_seats}>"


def make_aec_env(game, **kwargs) -> DungeonAECEnv:
    """Build the raw AEC env of ``game`` (a registered name, id, spec or core)."""
    return DungeonAECEnv(game, **kwargs)


_BEFORE_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}
)


class CheckedAECEnv(DungeonAECEnv):
    """:class:`DungeonAECEnv` with the checks of PettingZoo's classic wrapper
    stack (``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(env))``) built in,
    at a fraction of their cost: no wrapper layer, no ``__getattr__`` on the
    hot path, the action check inlined. What ``env()`` of a game module
    returns. It rejects everything those wrappers reject:

    * reading ``rewards``, ``terminations``, ``truncations``, ``infos``,
      ``agent_selection``, ``num_agents`` or ``agents`` before ``reset``
      raises ``AttributeError``;
    * ``step``, ``observe``, ``state``, ``render`` or ``agent_iter`` before
      ``reset`` raises :class:`OrderError` (an ``AssertionError``, as the
      wrapper's);
    * an action the Gymnasium env would refuse (anything but an integer in
      ``[0, num_actions)`` as an int, a numpy integer or an integer array of
      shape ``()`` or ``(1,)``, the forms every adapter accepts; ``None``
      except for a finished agent) raises :class:`OutOfBoundsActionError`
      (an ``AssertionError`` and an :class:`InvalidActionError`);
    * ``step`` once every agent is done raises :class:`ResetNeededError`
      (the wrapper only warns; the raw env raises the same, and PettingZoo's
      ``agent_iter`` never steps then);
    * an ``agent_iter`` loop that does not ``step`` (or ``reset``) between
      two agents fails its assertion.
    """

    def __init__(self, game, **kwargs):
        # arguments as for DungeonAECEnv
        super().__init__(game, **kwargs)
        self._has_reset = False
        self._has_updated = False
        for name in (
            "rewards",
            "terminations",
            "truncations",
            "infos",
            "agent_selection",
            "agents",
        ):
            self.__dict__.pop(name, None)  # unset until reset: __getattr__ refuses them

    def __getattr__(self, name):
        # only reached when normal lookup fails, so never on the hot path
        if name in _BEFORE_RESET and not self.__dict__.get("_has_reset", False):
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        self._has_reset = True
        self._has_updated = True
        super().reset(seed=seed, options=options)

    def step(self, action):
        if not self._has_reset:
            raise OrderError("reset() needs to be called before step.")
        if not self.agents:
            raise ResetNeededError("step() called after every agent is done; call reset() first")
        self._has_updated = True
        if type(action) is not int or not 0 <= action < self._num_actions:
            self._check_bounds(action)
        super().step(action)

    def _check_bounds(self, action) -> None:
        """The actions the Gymnasium env accepts (``action_index``: ints, numpy
        integers, integer arrays of shape ``()`` / ``(1,)``), or ``None`` for
        a finished agent (the rule of ``AssertOutOfBoundsWrapper``), else an
        :class:`OutOfBoundsActionError`."""
        if action is None:
            if self._done:
                return
            raise OutOfBoundsActionError(
                f"{self.agent_selection} must act; None is only for finished agents"
            )
        try:
            action_index(action, self._num_actions)
        except InvalidActionError as e:
            raise OutOfBoundsActionError(
                f"action {action!r} is not in the action space Discrete({self._num_actions}): {e}"[
                    :300
                ]
            ) from None

    def observe(self, agent):
        if not self._has_reset:
            raise OrderError("reset() needs to be called before observe.")
        return super().observe(agent)

    def state(self) -> np.ndarray:
        if not self._has_reset:
            raise OrderError("reset() needs to be called before state.")
        return super().state()

    def render(self):
        if not self._has_reset:
            raise OrderError("reset() needs to be called before render.")
        return super().render()

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            raise OrderError("reset() needs to be called before agent_iter().")
        return _CheckedIterable(self, max_iter)


class _CheckedIterable:
    def __init__(self, env: CheckedAECEnv, max_iter: int):
        self.env, self.max_iter = env, max_iter

    def __iter__(self):
        return _CheckedIterator(self.env, self.max_iter)


class _CheckedIterator:
    """PettingZoo's AEC iterator with the order check of its wrapper."""

    def __init__(self, env: CheckedAECEnv, max_iter: int):
        self.env, self.iters_til_term = env, max_iter

    def __iter__(self):
        return self

    def __next__(self):
        env = self.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return env.agent_selection
