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
  int8[num_actions]}``; only the selected agent of a running game gets a
  non-zero mask; returned arrays are fresh copies;
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
* ``reset(options=...)`` accepts only the game's ``spec.reset_options``:
  an unknown key raises ``ValueError`` naming it and the accepted ones
  (``unknown_reset_options="warn"``: a warning instead, for PettingZoo's
  ``api_test``, which probes ``reset`` with a made-up key);
* ``state()`` is the global view: every seat's observation concatenated
  (``float32[num_players * obs_size]``, space ``state_space``; each seat's
  private information is in it, deck orders and the generator are not),
  the same definition as :meth:`~dungeonrl.envs.core.multi.BatchedMultiAgentEnv.state`;
* ``get_state()`` / ``set_state()`` snapshot and restore the game exactly
  (:class:`~dungeonrl.envs.core.snapshot.Snapshot`); ``render()`` supports
  the spec's modes plus ``"human"`` (prints the ``ansi`` text) when the
  game has ``ansi``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from ._batch import (
    MASK_DTYPE,
    action_index,
    check_policy,
    draw_seeds,
    illegal_message,
    resolve_core,
    seed_batch,
)
from .errors import IllegalActionError, InvalidActionError, ResetNeededError, SnapshotError
from .multi import global_state_space, observe_seats
from .snapshot import Snapshot
from .validate import check_seed, snapshot_fields

__all__ = ["DungeonAECEnv", "make_aec_env"]


class DungeonAECEnv(AECEnv):
    """A dungeonrl multi-agent game as a PettingZoo AEC environment (see the
    module doc for the conventions; the game's module doc for its actions,
    observation columns and rewards)."""

    metadata = {"render_modes": ["ansi"], "name": "dungeonrl", "is_parallelizable": False,
                "render_fps": 4}

    def __init__(self, game, render_mode: str | None = None,
                 illegal_action: str = "penalize", unknown_reset_options: str = "raise",
                 **core_kwargs):
        super().__init__()
        if unknown_reset_options not in ("raise", "warn"):
            raise ValueError("unknown_reset_options must be 'raise' or 'warn', got "
                             f"{unknown_reset_options!r}")
        self.unknown_reset_options = unknown_reset_options
        self.core = resolve_core(game, core_kwargs)
        spec = self.game_spec = self.core.spec
        modes = list(spec.render_modes)
        if "ansi" in modes:
            modes.append("human")
        self.metadata = {"render_modes": modes, "name": spec.env_id.split("/")[-1],
                         "is_parallelizable": False, "render_fps": 4}
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode {render_mode!r} not supported by {spec.name}; "
                             f"choose from {modes} or None")
        self.render_mode = render_mode
        self.illegal_action = check_policy(illegal_action)
        n = self.num_seats = int(self.core.num_players)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        box = spaces.Box(spec.obs_low, spec.obs_high, (spec.obs_size,), np.float32)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box,
                            "action_mask": spaces.Box(0, 1, (spec.num_actions,), MASK_DTYPE)})
            for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(spec.num_actions) for a in self.possible_agents}
        self.state_space = global_state_space(spec, n)
        self._seat_obs = np.zeros((1, n, spec.obs_size), np.float32)
        self._states = self.core.alloc(1)
        self._rew = np.zeros((1, n), np.float32)
        self._te = np.zeros(1, np.bool_)
        self._tr = np.zeros(1, np.bool_)
        self._il = np.zeros(1, np.bool_)
        self._obs = np.zeros((1, spec.obs_size), np.float32)
        self._players = np.zeros(1, np.int64)
        self._mask = np.zeros((1, spec.num_actions), MASK_DTYPE)
        self._started = False
        self._done = False
        self._step_count = 0
        self.np_random, _ = seeding.np_random(None)
        self.agents = []
        self.rewards, self._cumulative_rewards = {}, {}
        self.terminations, self.truncations, self.infos = {}, {}, {}
        self.agent_selection = None

    # --- spaces ------------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # --- AEC API -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        seed = check_seed(seed)     # int / numpy integer in [0, 2**64) or None
        opts = self.game_spec.check_reset_options(options, self.unknown_reset_options)
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
            seeds = seed_batch(seed, 1)
        else:
            seeds = draw_seeds(self.np_random, 1)
        self.core.reset(self._states, seeds)
        if opts:
            self.core.apply_reset_options(self._states, opts)
        self._started = True
        self._done = False
        self._step_count = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def observe(self, agent):
        if not self._started:
            raise ResetNeededError("observe() called before reset()")
        seat = self._seat[agent]
        self._players[0] = seat
        self.core.observe(self._states, self._players, self._obs)
        mask = np.zeros(self.game_spec.num_actions, MASK_DTYPE)
        if not self._done and seat == self._to_play():
            self.core.legal_mask(self._states, self._mask)
            mask[:] = self._mask[0]
        return {"observation": self._obs[0].copy(), "action_mask": mask}

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
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise InvalidActionError(
                    f"{agent} is done; the only valid action is None, got {action!r}")
            self._was_dead_step(action)
            return
        if action is None:
            raise InvalidActionError(f"{agent} must act; None is only for finished agents")
        a = action_index(action, self.game_spec.num_actions)
        self.core.legal_mask(self._states, self._mask)
        if self.illegal_action == "raise" and not self._mask[0, a]:
            raise IllegalActionError(
                illegal_message(self.core, self._states[0], a, self._mask[0]))
        self._cumulative_rewards[agent] = 0.0
        self.core.step(self._states, np.array([a], np.int64), self._rew, self._te, self._tr,
                       self._il)
        self._step_count += 1
        for a_name in self.agents:
            self.rewards[a_name] = float(self._rew[0, self._seat[a_name]])
        if self._te[0] or self._tr[0]:
            self._done = True
            info = dict(self.core.episode_info(self._states[0]))
            info["illegal_action"] = bool(self._il[0])
            for a_name in self.agents:
                self.terminations[a_name] = bool(self._te[0])
                self.truncations[a_name] = bool(self._tr[0])
                self.infos[a_name] = dict(info)
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        if not self._started:
            raise ResetNeededError("render() called before reset()")
        if self.render_mode == "rgb_array":
            return self.core.render_rgb(self._states[0])
        text = self.core.render_ansi(self._states[0])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass

    def __str__(self) -> str:
        return self.metadata["name"]

    # --- snapshots ---------------------------------------------------------------------
    def get_state(self) -> Snapshot:
        if not self._started:
            raise ResetNeededError("get_state() called before reset()")
        spec = self.game_spec
        return Snapshot(game=spec.name, layout_version=spec.layout_version,
                        state=self._states[:1].tobytes(), step_count=self._step_count,
                        episode_return=0.0, done=self._done)

    def set_state(self, snapshot) -> None:
        if isinstance(snapshot, (bytes, bytearray, memoryview)):
            snapshot = Snapshot.from_bytes(snapshot)
        if not isinstance(snapshot, Snapshot):
            raise SnapshotError(f"expected a Snapshot, got {type(snapshot).__name__}")
        spec = self.game_spec
        if snapshot.game != spec.name:
            raise SnapshotError(f"snapshot of game {snapshot.game!r} cannot be loaded into "
                                f"{spec.name!r}")
        if snapshot.layout_version != spec.layout_version:
            raise SnapshotError(f"snapshot layout {snapshot.layout_version!r} does not match "
                                f"{spec.name} layout {spec.layout_version!r}")
        dtype = self.core.state_dtype
        if len(snapshot.state) != dtype.itemsize:
            raise SnapshotError(f"snapshot state has {len(snapshot.state)} bytes, "
                                f"{spec.name} records have {dtype.itemsize}")
        record = np.frombuffer(snapshot.state, dtype=dtype).copy()
        if "num_players" in dtype.names and int(record[0]["num_players"]) != self.num_seats:
            raise SnapshotError(f"snapshot has {int(record[0]['num_players'])} seats, this env "
                                f"{self.num_seats}")
        step_count, _, done = snapshot_fields(snapshot)   # all checks before any change
        self.core.check_state(record[0])
        done = done or bool(self.core.is_over(record[0]))
        self._states[:] = record
        self._started = True
        self._done = done
        self._step_count = step_count
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if self._done:
            info = dict(self.core.episode_info(self._states[0]))
            trunc = info.get("outcome") == "truncated"
            for a in self.agents:
                self.terminations[a] = not trunc
                self.truncations[a] = trunc
                self.infos[a] = dict(info)
        self._select()

    # --- helpers -----------------------------------------------------------------------
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
