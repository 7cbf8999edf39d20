"""Batched multi-agent stepping: N games of a multi-seat core in one call.

The PettingZoo adapters (:mod:`.aec`, :mod:`.parallel`) play one game at a
time through Python dicts, and the self-play view (:mod:`.selfplay`) shows a
batch from one learner seat. :class:`BatchedMultiAgentEnv` is the
multi-agent researcher's fast path: every seat of N games, arrays only,
one fused kernel call per step (``core.step_autoreset``), written once for
every game that implements the :class:`~dungeonrl.envs.core.spec.GameCore`
contract.

Shapes (N games, P seats, O observation columns, A actions)
-----------------------------------------------------------
==================  ======================  =====================================
what                shape / dtype           meaning
==================  ======================  =====================================
``to_play``         ``(N,)`` int64          seat to act in each game
``obs``             ``(N, P, O)`` float32   each seat's observation
                    (``observe="all"``)
``obs``             ``(N, O)`` float32      the acting seat's observation
                    (``observe="actor"``)
``action_mask``     ``(N, A)`` int8         legal actions of the acting seat
``actions``         ``(N,)`` int            one action per game, for its actor
``rewards``         ``(N, P)`` float32      every seat's reward for the step
``terminated``      ``(N,)`` bool           the rules ended the game
``truncated``       ``(N,)`` bool           the step cap ended the game
``state()``         ``(N, P * O)`` float32  the global view (see below)
==================  ======================  =====================================

A turn-based game has exactly one acting seat per game; every seat (not
only the actor) gets its reward on every step, so the zero-sum payout at
the end of a game reaches the losers on the step that ended it.

Autoreset
    Same-step, as in :class:`~dungeonrl.envs.core.adapters.vector.DungeonVectorEnv`:
    a game that ends on a step is reset inside the kernel (the next episode
    of its seed stream), the returned ``obs`` / ``to_play`` / ``action_mask``
    are already the new game's, and ``infos["final_obs"]`` holds the last
    observations of the finished game (every seat's, or with
    ``observe="actor"`` that of the seat that sent the final action),
    flagged by ``infos["_final_obs"]``. ``infos["final_info"]`` (object
    array, flagged by ``infos["_final_info"]``) holds the core's
    ``episode_info`` plus ``"return"`` (float ``(P,)``: each seat's episode
    return) and ``"length"`` (decisions taken).

Seeding
    ``reset(seed=s)`` starts game i from seed ``s + i``: the game that the
    AEC env's ``reset(seed=s + i)`` starts, so the batch can be checked
    against the PettingZoo env game by game (``tests/adapters/test_multi.py`` does).

Actions and illegal actions
    ``actions`` is an integer array ``(N,)``; out-of-range values raise
    :class:`~dungeonrl.envs.core.errors.InvalidActionError`. An in-range
    action the mask forbids follows ``illegal_action``: ``"penalize"`` (that
    game ends, the acting seat gets ``spec.illegal_penalty``,
    ``infos["illegal_action"]`` is set) or ``"raise"``
    (:class:`~dungeonrl.envs.core.errors.IllegalActionError` before any game
    is stepped).

Global state
    ``state()`` is the concatenation of every seat's observation,
    ``(N, P * O)``: each seat's private information is in it (what a
    centralised critic may use), deck orders and the generator are not.
    :func:`global_state_space` is its space per game; the PettingZoo adapters
    use the same definition for their ``state()`` / ``state_space``.

Example::

    from dungeonrl.envs.core.adapters.multi import BatchedMultiAgentEnv
    env = BatchedMultiAgentEnv("dungeon_crawler", num_envs=1024, num_players=4)
    obs, infos = env.reset(seed=0)                  # obs (1024, 4, O)
    for _ in range(100):
        actions = my_policy(obs[np.arange(1024), infos["to_play"]], infos["action_mask"])
        obs, rewards, terminated, truncated, infos = env.step(actions)   # rewards (1024, 4)
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..batch import Batch, core_batch
from ..common import action_batch, check_legal_batch, check_policy, resolve_core
from ..copying import Copyable
from ..errors import ResetNeededError
from ..spec import check_unknown_reset_options
from .base import game_seeds

__all__ = ["BatchedMultiAgentEnv", "observe_seats", "global_state_space", "OBSERVE_MODES"]

OBSERVE_MODES = ("all", "actor")


def observe_seats(core, states: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Write every seat's observation of every row into ``out`` (float32
    ``(n, P, obs_size)``, P = ``out.shape[1]``): ``out[i, p]`` is row ``i``
    seen from seat ``p``. One observation kernel call per seat."""
    n, P, obs_dim = out.shape
    seat = np.empty(n, np.int64)
    tmp = np.empty((n, obs_dim), np.float32)
    for p in range(P):
        seat[:] = p
        core_batch(core).observe_states(states, seat, tmp)
        out[:, p] = tmp
    return out


def global_state_space(spec, num_players: int) -> spaces.Box:
    """The space of one game's global state: every seat's observation
    concatenated, ``Box(obs_low, obs_high, (num_players * obs_size,), float32)``."""
    return spaces.Box(spec.obs_low, spec.obs_high, (int(num_players) * spec.obs_size,), np.float32)


class BatchedMultiAgentEnv(Copyable):
    """``num_envs`` games of a multi-seat game, every seat visible, stepped
    in one kernel call (see the module doc for shapes, autoreset, seeding
    and the illegal-action policy).

    Arguments: ``game`` (registered name, env id, ``GameSpec`` or a ready
    ``GameCore``), ``num_envs``, ``observe`` (``"all"``: every seat's
    observation ``(N, P, O)``, P extra encodes per step; ``"actor"``: only
    the acting seat's ``(N, O)``, the kernel's own output), ``illegal_action``
    (``"penalize"`` / ``"raise"``), ``unknown_reset_options`` (``"warn"``: a
    reset option the game does not declare is ignored with one warning per
    key; ``"raise"``: ``ValueError``), ``**core_kwargs`` for
    ``spec.make_core`` (e.g. ``num_players``).

    Attributes: ``num_envs``, ``num_players``, ``possible_agents``
    (``player_0`` ...), ``single_observation_space`` (one seat's ``Box``),
    ``single_action_space`` (``Discrete(num_actions)``), ``state_space``
    (one game's global state).
    """

    def __init__(
        self,
        game,
        num_envs: int = 1,
        *,
        observe: str = "all",
        illegal_action: str = "penalize",
        unknown_reset_options: str = "warn",
        **core_kwargs,
    ):
        self.unknown_reset_options = check_unknown_reset_options(unknown_reset_options)
        self._warned_reset_keys: set = set()  # unknown reset options warned about
        if (
            isinstance(num_envs, bool)
            or not isinstance(num_envs, (int, np.integer))
            or num_envs < 1
        ):
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if observe not in OBSERVE_MODES:
            raise ValueError(f"observe must be one of {OBSERVE_MODES}, not {observe!r}")
        core = self.core = resolve_core(game, core_kwargs)
        spec = self.game_spec = core.spec
        self.observe_mode = observe
        self.illegal_action = check_policy(illegal_action)
        n = self.num_envs = int(num_envs)
        P = self.num_players = int(core.num_players)
        obs_dim, A = spec.obs_size, spec.num_actions
        self.possible_agents = [f"player_{p}" for p in range(P)]
        self.single_observation_space = spaces.Box(
            spec.obs_low, spec.obs_high, (obs_dim,), np.float32
        )
        self.single_action_space = spaces.Discrete(A)
        self.state_space = global_state_space(spec, P)
        self.np_random = np.random.default_rng()
        # the kernels' buffers: the batch's, under this env's names
        b = self.batch = Batch(core, n)
        self.states, self.seeds, self._actions = b.states, b.seeds, b.actions
        self._actor_obs, self._masks, self._rewards = b.obs, b.masks, b.rewards
        self._te, self._tr, self._il = b.terminated, b.truncated, b.illegal
        self._final_obs, self._final_states = b.final_obs, b.final_states
        self._to_play = b.players_out  # the seat to act, written by the fused step
        self._seat_obs = np.zeros((n, P, obs_dim), np.float32)
        self._returns = np.zeros((n, P), np.float64)
        self._lengths = np.zeros(n, np.int64)
        self._started = False

    # --- API ---------------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """Start a new game in every row. ``seed``: an int ``s`` (game ``i``
        gets ``s + i``), a sequence of ``num_envs`` seeds, or ``None`` (drawn
        from ``np_random``). Returns ``(obs, infos)``; infos hold ``to_play``
        and ``action_mask``. ``options``: the game's reset options
        (``spec.reset_options``; an unknown key is ignored with a warning, or
        raises ``ValueError`` with ``unknown_reset_options="raise"``)."""
        opts = self.core.spec.check_reset_options(
            options, self.unknown_reset_options, self._warned_reset_keys
        )
        seeds = game_seeds(seed, self.np_random, self.num_envs)
        if seed is not None:
            self.np_random = np.random.default_rng(int(seeds[0]))
        self.seeds[:] = seeds
        self.batch.reset_states(self.states, self.seeds)
        if opts:
            self.core.apply_reset_options(self.states, opts)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self._to_play[:] = self.core.to_play(self.states)
        self.batch.mask_states(self.states, self._masks)
        if self.observe_mode == "actor":
            self.batch.observe_states(self.states, self._to_play, self._actor_obs)
        self._started = True
        return self._observation(), {
            "to_play": self._to_play.copy(),
            "action_mask": self._masks.copy(),
        }

    def step(self, actions):
        """One decision in every game, by its acting seat. Returns ``(obs,
        rewards, terminated, truncated, infos)`` (see the module doc)."""
        if not self._started:
            raise ResetNeededError("step() called before reset()")
        core, n = self.core, self.num_envs
        action_batch(actions, self._actions, self.game_spec.num_actions)
        if self.illegal_action == "raise":
            check_legal_batch(core, self.states, self._actions, self._masks)
        acted = self._to_play.copy()  # the seat that sends each action
        self.batch.fused_step()  # step, autoreset, seat to act, its obs and mask
        rewards = self._rewards.copy()
        terminated = self._te.copy()
        truncated = self._tr & ~self._te
        self._returns += rewards
        self._lengths += 1
        infos = {
            "to_play": self._to_play.copy(),
            "action_mask": self._masks.copy(),
            "illegal_action": self._il.copy(),
        }
        done = np.flatnonzero(terminated | truncated)
        if len(done):
            flags = np.zeros(n, np.bool_)
            flags[done] = True
            fs = self._final_states[done]
            if self.observe_mode == "all":
                final = np.zeros((n, self.num_players, self.game_spec.obs_size), np.float32)
                final[done] = observe_seats(
                    core,
                    fs,
                    np.empty((len(done), self.num_players, self.game_spec.obs_size), np.float32),
                )
            else:
                final = np.zeros((n, self.game_spec.obs_size), np.float32)
                sub = np.empty((len(done), self.game_spec.obs_size), np.float32)
                self.batch.observe_states(fs, acted[done], sub)
                final[done] = sub
            final_info = np.empty(n, dtype=object)
            for j, i in enumerate(done.tolist()):
                info = dict(core.episode_info(fs[j]))
                info["return"] = self._returns[i].copy()
                info["length"] = int(self._lengths[i])
                info["illegal_action"] = bool(self._il[i])
                final_info[i] = info
            self._returns[done] = 0.0
            self._lengths[done] = 0
            infos.update(
                final_obs=final, _final_obs=flags, final_info=final_info, _final_info=flags.copy()
            )
        return self._observation(), rewards, terminated, truncated, infos

    def state(self) -> np.ndarray:
        """The global state of every game, ``(N, P * O)`` float32 (every
        seat's observation concatenated)."""
        if not self._started:
            raise ResetNeededError("state() called before reset()")
        observe_seats(self.core, self.states, self._seat_obs)
        return self._seat_obs.reshape(self.num_envs, -1).copy()

    @property
    def to_play(self) -> np.ndarray:
        """Seat to act in each game, ``(N,)`` int64 (a copy)."""
        return self._to_play.copy()

    def action_masks(self) -> np.ndarray:
        """Legal actions of each game's acting seat, bool ``(N, A)``."""
        return self._masks.astype(bool)

    def close(self) -> None:
        pass

    # --- helpers -----------------------------------------------------------------------
    def _observation(self) -> np.ndarray:
        if self.observe_mode == "all":
            observe_seats(self.core, self.states, self._seat_obs)
            return self._seat_obs.copy()
        return self._actor_obs.copy()

    def __repr__(self) -> str:
        return (
            f"<BatchedMultiAgentEnv {self.game_spec.env_id} x{self.num_envs} "
            f"players={self.num_players} observe={self.observe_mode}>"
        )
