"""Every game of the suite as a Ray RLlib environment (new API stack), and
``dungeonrl train GAME --backend rllib``.

Install: ``pip install "dungeonrl[rllib]"`` (Ray RLlib; see NOTES-rllib.md
for the Gymnasium version it pins). Nothing here imports Ray at module
import: the env classes for single-agent games are plain Gymnasium, and
the Ray parts (the ``MultiAgentEnv``, the trainer, the checkpoint agent)
are built on first use.

Env creators
------------
:func:`register_envs` registers one creator per game of
``dungeonrl.registry.GAMES`` with Ray Tune's registry under
``dungeonrl-rllib/<game>`` (:func:`env_name`)::

    from dungeonrl.agents.algos.rllib import register_envs, env_name, ppo_config
    register_envs()
    config = PPOConfig().environment(env_name("unbroken"), env_config={"core_kwargs": {...}})

``env_config`` keys: ``core_kwargs`` (options of the game's ``make_core``:
``num_players``, ``difficulty``...), ``illegal_action`` (``"penalize"``, the
default, or ``"raise"``: an illegal action raises, which makes RLlib's
sampling fail; the tests use it to prove the masks are obeyed). What the
creator builds depends on the configured table:

* a one-seat core (Unbroken; Dungeon Crawler Carl solo): a Gymnasium env
  (:class:`RLlibSingleEnv`), or with ``num_envs`` in the config (what
  RLlib's ``gym_env_vectorize_mode="vector_entry_point"`` passes) the
  native batched :class:`RLlibVectorEnv`: one numba call steps every game
  of the env runner;
* a multi-seat core (Dungeon Crawler, Dungeon Kart, Carl's 2-player co-op):
  a turn-based RLlib ``MultiAgentEnv`` (:func:`multi_agent_env_class`) over
  the PettingZoo AEC env: agents ``player_0 ... player_{P-1}``, only the
  seat to act gets an observation, every seat's reward of each decision is
  reported (RLlib credits it at that seat's next observation), and at the
  end every seat gets its last observation and ``"__all__"`` is set.

Observations are ``{"observations": float32[obs_size], "action_mask":
float32[num_actions]}`` (1 = legal): what RLlib's action-masking RLModule
(``ActionMaskingTorchRLModule``) reads. A finished episode's last
observation has an all-zero mask.

Autoreset
    RLlib's env runners expect Gymnasium's *next-step* autoreset (the
    observation after a finished episode comes with the next ``step``, whose
    action is ignored). :class:`RLlibVectorEnv` gives exactly that on top of
    the fused same-step kernel: a row that ended returns its final
    observation; on the next step the kernel's already-reset record of that
    row is saved, stepped along with the batch and put back, so the row
    starts its next game untouched (the same games, seed for seed, as
    :class:`~dungeonrl.envs.core.adapters.vector.DungeonVectorEnv`).

Policy mapping (multi-seat games)
---------------------------------
:func:`policy_setup` gives ``(policies, policy_mapping_fn,
policies_to_train)`` for ``config.multi_agent(...)``:

=====================  ===========================================================
``"shared"``           one policy (module ``"shared"``) plays every seat (self-play)
``"per_seat"``         ``player_i`` -> ``"seat_i"``: one policy per seat
``"learner_vs_frozen"`` per episode one seat (``episode.id_`` hashed, so seats
                       rotate) -> ``"learner"``, the others -> ``"frozen"``; only
                       ``"learner"`` trains; :func:`sync_frozen` copies the
                       learner's weights into ``"frozen"`` every
                       ``frozen_every`` iterations (a league of past selves)
=====================  ===========================================================

The trainer
-----------
:func:`run_rllib_training` (``dungeonrl train GAME --backend rllib``) starts
or joins a Ray cluster (``--address auto`` / ``ray://host:10001``; without
it a small local one: 2 CPUs, a 300 MB object store, no dashboard), runs
PPO with ``--env-runners N`` env runners (0: sampling in the driver), each
with ``--num-envs`` games (default 256 native, 16 Python) stepped by the
batched env (``--vectorize native``) or one Python env per slot
(``--vectorize python``), and writes what the other trainers write:
``model.pt`` (the trained policy exported to the fast path's
:class:`~dungeonrl.agents.algos.ppo.ActorCritic`, with the model spec: ``play``,
``eval`` and ``--init`` read it without Ray), ``checkpoint/`` (the RLlib
algorithm checkpoint, with ``dungeonrl_model_spec.json``), ``metrics.csv``,
``metrics.json`` and ``learning_curve.png``, then the same seeded final
evaluation. ``dungeonrl eval GAME --agent RUN/checkpoint`` evaluates the
RLlib checkpoint itself (:class:`RLlibAgent`: the RLModule, loaded with
Ray, acting on our batches), alone or in a league.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
import time
import zlib
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

from ...envs.core.adapters.aec import DungeonAECEnv
from ...envs.core.adapters.gym_env import DungeonEnv
from ...envs.core.batch import Batch
from ...envs.core.common import (
    action_batch,
    check_legal_batch,
    check_policy,
    draw_seeds,
    resolve_core,
    seed_batch,
)
from ...envs.core.errors import ResetNeededError
from ...envs.core.hooks import core_kwargs_from, hooks_for
from ...envs.core.spec import check_unknown_reset_options
from ...registry import get_spec, list_games
from ..commands.runs import choose_run_folder, final_eval, hidden_sizes, open_run_folder, plot_run
from ..metrics import run_metrics, write_csv, write_json
from ..modelspec import RLLIB_DEFAULT_MODULE as DEFAULT_MODULE
from ..modelspec import RLLIB_SPEC_FILE as SPEC_FILE
from ..modelspec import (
    is_rllib_checkpoint,
    model_spec,
    read_checkpoint_spec,
)
from ..options import nonneg_int, option
from ..policy import RLlibAgent, TorchAgent

__all__ = [
    "ENV_PREFIX",
    "SPEC_FILE",
    "env_name",
    "register_envs",
    "make_rllib_env",
    "rllib_spaces",
    "RLlibSingleEnv",
    "RLlibVectorEnv",
    "multi_agent_env_class",
    "map_shared",
    "map_per_seat",
    "LearnerVsFrozen",
    "policy_setup",
    "sync_frozen",
    "rl_module_spec",
    "ppo_config",
    "init_ray",
    "export_actor_critic",
    "RLlibAgent",
    "is_rllib_checkpoint",
    "read_checkpoint_spec",
    "RLlibOptions",
    "RLlibMultiOptions",
    "train_options",
    "check_backend_options",
    "run_rllib_training",
    "cli_train",
]

#: prefix of the names registered with Ray Tune (``dungeonrl-rllib/unbroken``)
ENV_PREFIX = "dungeonrl-rllib/"
#: the module id of the one policy every seat plays (a multi-agent config needs
#: another id than RLlib's default one to be treated as multi-agent)
SHARED_MODULE = "shared"
_MASK = np.float32  # the action-masking RLModule takes log(mask): a float mask


def env_name(game: str) -> str:
    """The Tune registry name of a game's RLlib env (game short name or env id)."""
    return ENV_PREFIX + get_spec(game).name


def rllib_spaces(spec) -> tuple[spaces.Dict, spaces.Discrete]:
    """``(observation space, action space)`` of one seat: ``Dict(observations=Box,
    action_mask=Box(0, 1, float32))`` and ``Discrete(num_actions)``."""
    box = spaces.Box(spec.obs_low, spec.obs_high, (spec.obs_size,), np.float32)
    mask = spaces.Box(0.0, 1.0, (spec.num_actions,), _MASK)
    return spaces.Dict({"observations": box, "action_mask": mask}), spaces.Discrete(
        spec.num_actions
    )


def _config_parts(config) -> tuple[dict, str, int | None]:
    """``(core_kwargs, illegal_action, num_envs)`` of an env config (a dict or
    RLlib's ``EnvContext``); unknown keys are refused by name."""
    cfg = dict(config or {})
    known = {"game", "core_kwargs", "illegal_action", "num_envs"}
    extra = sorted(set(cfg) - known)
    if extra:
        raise ValueError(
            f"unknown RLlib env_config keys {extra}; known: {sorted(known)} "
            "(game options go in env_config['core_kwargs'])"
        )
    core_kwargs = dict(cfg.get("core_kwargs") or {})
    return core_kwargs, check_policy(cfg.get("illegal_action", "penalize")), cfg.get("num_envs")


def make_rllib_env(config=None, *, game: str | None = None):
    """The env creator registered for each game (see the module doc): a
    :class:`RLlibSingleEnv`, an :class:`RLlibVectorEnv` (``num_envs`` given)
    or the game's ``MultiAgentEnv``, by the number of seats of the core."""
    game = game or dict(config or {}).get("game")
    if game is None:
        raise ValueError("make_rllib_env needs the game (registered creators bind it)")
    core_kwargs, illegal, num_envs = _config_parts(config)
    core = resolve_core(game, core_kwargs)
    if core.num_players > 1:
        if num_envs not in (None, 1):
            raise ValueError(
                f"{core.spec.name} with {core.num_players} seats is a MultiAgentEnv; "
                "RLlib vectorises those itself (leave gym_env_vectorize_mode at "
                "'sync')"
            )
        return multi_agent_env_class()(core, illegal_action=illegal)
    if num_envs is not None:
        return RLlibVectorEnv(core, int(num_envs), illegal_action=illegal)
    return RLlibSingleEnv(core, illegal_action=illegal)


def register_envs(games: list[str] | None = None) -> list[str]:
    """Register an env creator per game with Ray Tune (default: every game of
    the registry); returns the registered names."""
    from ray.tune.registry import register_env

    names = []
    for g in games or list_games():
        name = env_name(g)
        register_env(name, functools.partial(make_rllib_env, game=g))
        names.append(name)
    return names


def _win_infos(core, hooks, states, rows, last_reward) -> list[dict]:
    """``{"win": bool}`` per finished row (the game's own episode statistics)."""
    stats = hooks.episode_stats(core, states, rows, last_reward)
    win = np.asarray(stats["win"], np.bool_)
    return [{"win": bool(w)} for w in win]


class RLlibSingleEnv(gym.Env):
    """One game as a Gymnasium env with RLlib's masked observations: the
    suite's :class:`~dungeonrl.envs.core.adapters.gym_env.DungeonEnv` (same games per
    seed, same rewards and illegal-action policy), its observation renamed
    to ``{"observations", "action_mask"}`` with a float mask. The last step's
    info holds ``win`` and ``illegal_action``. This is the *Python env per
    slot* path: RLlib's ``SyncVectorEnv`` steps one of these per slot."""

    def __init__(self, game, illegal_action: str = "penalize", **core_kwargs):
        self.env = DungeonEnv(game, illegal_action=illegal_action, **core_kwargs)
        self.core = self.env.core
        self.hooks = hooks_for(self.core.spec.name)
        self.observation_space, self.action_space = rllib_spaces(self.core.spec)
        self.metadata = dict(self.env.metadata)
        self.illegal_actions = 0

    def _obs(self, obs, mask):
        return {"observations": obs, "action_mask": mask.astype(_MASK)}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs, info = self.env.reset(seed=seed, options=options)
        return self._obs(obs, info["action_mask"]), {}

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        out = {}
        if info.get("illegal_action"):
            self.illegal_actions += 1
            out["illegal_action"] = True
        if terminated or truncated:
            buf = self.env._buf
            out.update(
                _win_infos(
                    self.core, self.hooks, buf.states, np.zeros(1, np.int64), np.array([reward])
                )[0]
            )
        return self._obs(obs, info["action_mask"]), reward, terminated, truncated, out


class RLlibVectorEnv(VectorEnv):
    """``num_envs`` games of a one-seat core stepped by one fused numba call,
    as the Gymnasium ``VectorEnv`` RLlib's env runners expect (next-step
    autoreset, see the module doc; masked dict observations).

    ``reset(seed=s)`` starts game ``i`` from seed ``s + i``, the game that
    ``DungeonVectorEnv.reset(seed=s)`` starts in row ``i``. Infos are empty
    except on rows whose episode ended (``win``) or that sent an illegal
    action (``illegal_action``; also counted in ``illegal_actions``)."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        game,
        num_envs: int = 1,
        illegal_action: str = "penalize",
        unknown_reset_options: str = "warn",
        **core_kwargs,
    ):
        self.unknown_reset_options = check_unknown_reset_options(unknown_reset_options)
        self._warned_reset_keys: set = set()  # unknown reset options warned about
        core = self.core = resolve_core(game, core_kwargs)
        if core.num_players != 1:
            raise ValueError(
                f"RLlibVectorEnv needs a one-seat core; {core.spec.name} has "
                f"{core.num_players} seats (use its MultiAgentEnv)"
            )
        self.hooks = hooks_for(core.spec.name)
        self.illegal_action = check_policy(illegal_action)
        self.buf = Batch(core, num_envs)
        self.num_envs = self.buf.n
        self.single_observation_space, self.single_action_space = rllib_spaces(core.spec)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP, "render_modes": []}
        self.render_mode = None
        self._pending = np.zeros(self.num_envs, np.bool_)  # ended last step: reset next
        self._started = False
        self.illegal_actions = 0

    def reset(self, *, seed=None, options=None):
        if seed is None:
            seeds = draw_seeds(self.np_random, self.num_envs)
        else:
            seeds = seed_batch(seed, self.num_envs)
            super().reset(seed=int(seeds[0]))
        opts = self.core.spec.check_reset_options(
            options, self.unknown_reset_options, self._warned_reset_keys
        )
        self.buf.reset(seeds)
        if opts:
            self.core.apply_reset_options(self.buf.states, opts)
            self.buf.refresh()
        self._pending[:] = False
        self._started = True
        return self._observation(self.buf.obs.copy(), self.buf.masks.astype(_MASK)), {}

    def step(self, actions):
        if not self._started:
            raise ResetNeededError("step() called before reset()")
        buf = self.buf
        action_batch(actions, buf.actions, self.core.spec.num_actions)
        pend = np.flatnonzero(self._pending)
        if len(pend):
            # rows that ended last step: their new game starts now, untouched
            # (the kernel already reset them; their action is RLlib's filler)
            keep_states = buf.states[pend].copy()
            keep_obs = buf.obs[pend].copy()
            keep_masks = buf.masks[pend].copy()
            buf.actions[pend] = np.argmax(keep_masks, axis=1)  # any legal action
        if self.illegal_action == "raise":
            check_legal_batch(self.core, buf.states, buf.actions, buf.masks)
        buf.fused_step()
        reward = buf.rewards[:, 0].copy()
        terminated = buf.terminated.copy()
        truncated = buf.truncated.copy()
        illegal = buf.illegal.copy()
        obs = buf.obs.copy()
        masks = buf.masks.astype(_MASK)
        if len(pend):
            buf.states[pend] = keep_states
            buf.obs[pend] = keep_obs
            buf.masks[pend] = keep_masks
            obs[pend] = keep_obs
            masks[pend] = keep_masks
            reward[pend] = 0.0
            terminated[pend] = truncated[pend] = illegal[pend] = False
        done = np.flatnonzero(terminated | truncated)
        infos: dict[str, Any] = {}
        if len(done):
            obs[done] = buf.final_obs[done]  # next-step autoreset: the last observation
            masks[done] = 0.0
            wins = _win_infos(self.core, self.hooks, buf.final_states, done, reward[done])
            win = np.zeros(self.num_envs, np.bool_)
            win[done] = [w["win"] for w in wins]
            flag = np.zeros(self.num_envs, np.bool_)
            flag[done] = True
            infos["win"], infos["_win"] = win, flag
        if illegal.any():
            self.illegal_actions += int(illegal.sum())
            infos["illegal_action"], infos["_illegal_action"] = illegal, illegal.copy()
        self._pending[:] = False
        self._pending[done] = True
        return self._observation(obs, masks), reward, terminated, truncated, infos

    @staticmethod
    def _observation(obs, masks):
        return {"observations": obs, "action_mask": masks}

    def __repr__(self) -> str:
        return f"<RLlibVectorEnv {self.core.spec.env_id} x{self.num_envs}>"


_MA_CLASS = None


def multi_agent_env_class():
    """The turn-based ``ray.rllib.env.MultiAgentEnv`` of the multi-seat games
    (built on first use: it imports Ray). ``cls(game_or_core,
    illegal_action="penalize", **core_kwargs)``."""
    global _MA_CLASS
    if _MA_CLASS is not None:
        return _MA_CLASS
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class DungeonMultiAgentEnv(MultiAgentEnv):
        """A multi-seat game as a turn-based RLlib ``MultiAgentEnv`` over the
        PettingZoo AEC env (see the module doc): the same games per seed, the
        same rewards and illegal-action policy. The final step's infos hold
        each seat's ``win`` and ``illegal_action``."""

        def __init__(self, game, illegal_action: str = "penalize", **core_kwargs):
            super().__init__()
            self.aec = DungeonAECEnv(game, illegal_action=illegal_action, **core_kwargs)
            self.core = self.aec.core
            self.agents = self.possible_agents = list(self.aec.possible_agents)
            obs_space, act_space = rllib_spaces(self.core.spec)
            self.observation_spaces = {a: obs_space for a in self.possible_agents}
            self.action_spaces = {a: act_space for a in self.possible_agents}
            self.illegal_actions = 0

        def _obs(self, agent):
            o = self.aec.observe(agent)
            return {"observations": o["observation"], "action_mask": o["action_mask"].astype(_MASK)}

        def reset(self, *, seed=None, options=None):
            self.aec.reset(seed=seed, options=options)
            self.agents = list(self.possible_agents)
            agent = self.aec.agent_selection
            return {agent: self._obs(agent)}, {}

        def step(self, action_dict):
            aec = self.aec
            agent = aec.agent_selection
            if agent is None or agent not in action_dict:
                raise ValueError(f"{agent} is to act; the action dict has {sorted(action_dict)}")
            aec.step(int(action_dict[agent]))
            rewards = {a: float(aec.rewards.get(a, 0.0)) for a in self.possible_agents}
            done = bool(aec.terminations.get(agent) or aec.truncations.get(agent))
            if not done:
                nxt = aec.agent_selection
                return ({nxt: self._obs(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {})
            te = bool(aec.terminations[agent])
            tr = bool(aec.truncations[agent]) and not te
            info = aec.infos[agent]
            if info.get("illegal_action"):
                self.illegal_actions += 1
            obs = {a: self._obs(a) for a in self.possible_agents}
            # a seat wins when its reward for the game's last decision is positive
            # (the zero-sum / rank payout; the hooks' rule for these games)
            infos = {
                a: {
                    "win": rewards[a] > 0,
                    "illegal_action": bool(info.get("illegal_action", False)),
                }
                for a in self.possible_agents
            }
            terms = {a: te for a in self.possible_agents}
            truncs = {a: tr for a in self.possible_agents}
            terms["__all__"], truncs["__all__"] = te, tr
            self.agents = []
            return obs, rewards, terms, truncs, infos

    _MA_CLASS = DungeonMultiAgentEnv
    return _MA_CLASS


# --- policy mapping ------------------------------------------------------------------
def _seat(agent_id) -> int:
    try:
        return int(str(agent_id).rsplit("_", 1)[1])
    except (IndexError, ValueError):
        raise ValueError(f"agent id {agent_id!r} is not of the form player_<seat>") from None


def map_shared(agent_id, episode=None, **kwargs) -> str:
    """Every seat plays the one shared policy (self-play)."""
    return SHARED_MODULE


def map_per_seat(agent_id, episode=None, **kwargs) -> str:
    """``player_i`` plays policy ``seat_i``."""
    return f"seat_{_seat(agent_id)}"


class LearnerVsFrozen:
    """Per episode one seat plays ``"learner"`` and the others ``"frozen"``;
    the learner's seat is the episode id hashed, so it rotates over seats
    (without ``episode``: seat 0). Picklable, so env runners on other
    machines get it."""

    def __init__(self, num_players: int):
        self.num_players = int(num_players)

    def learner_seat(self, episode) -> int:
        if episode is None:
            return 0
        return zlib.crc32(str(episode.id_).encode()) % self.num_players

    def __call__(self, agent_id, episode=None, **kwargs) -> str:
        return "learner" if _seat(agent_id) == self.learner_seat(episode) else "frozen"


POLICY_MAPPINGS = ("shared", "per_seat", "learner_vs_frozen")


def policy_setup(mapping: str, num_players: int) -> tuple[set, Any, list | None]:
    """``(policies, policy_mapping_fn, policies_to_train)`` of a mapping
    (see the module doc) for ``config.multi_agent``."""
    if mapping == "shared":
        return {SHARED_MODULE}, map_shared, None
    if mapping == "per_seat":
        return {f"seat_{i}" for i in range(num_players)}, map_per_seat, None
    if mapping == "learner_vs_frozen":
        return {"learner", "frozen"}, LearnerVsFrozen(num_players), ["learner"]
    raise ValueError(f"policy mapping must be one of {POLICY_MAPPINGS}, not {mapping!r}")


def sync_frozen(algorithm) -> None:
    """Copy the ``"learner"`` module's weights into ``"frozen"`` (on the
    learners and every env runner): the frozen seats now play the learner's
    current self, and keep it until the next sync."""
    lg = algorithm.learner_group
    w = lg.get_weights(module_ids=["learner"])["learner"]
    w = {
        k: (v.detach().cpu().numpy() if hasattr(v, "detach") else np.asarray(v))
        for k, v in w.items()
    }
    lg.set_weights({"frozen": w})

    # the env runners skip a weight sync whose sequence number they already have
    # (the last iteration's), so the frozen module is set on each of them directly
    def _set(env_runner, w=w):
        import torch

        module = env_runner.module["frozen"]
        own = module.state_dict()
        module.load_state_dict({k: torch.as_tensor(w[k]) for k in own if k in w}, strict=False)
        return True

    algorithm.env_runner_group.foreach_env_runner(_set, local_env_runner=True)


# --- metrics of the env runners -----------------------------------------------------
def on_episode_end(*, episode, metrics_logger=None, **kwargs) -> None:
    """Env-runner callback: count finished episodes, wins and illegal actions
    of the iteration (single-agent: the game's ``win``; multi-agent: whether
    seat 0 won)."""
    if metrics_logger is None:
        return
    agents = getattr(episode, "agent_episodes", None)
    if agents is not None:  # a MultiAgentEpisode: seat 0's last info
        seat0 = agents.get("player_0")
        info = (seat0.get_infos(-1) if seat0 is not None and len(seat0) else None) or {}
    else:
        info = episode.get_infos(-1) or {}
    metrics_logger.log_value("dungeonrl_episodes", 1, reduce="sum")
    metrics_logger.log_value("dungeonrl_wins", int(bool(info.get("win", False))), reduce="sum")
    metrics_logger.log_value(
        "dungeonrl_illegal", int(bool(info.get("illegal_action", False))), reduce="sum"
    )


# --- config ---------------------------------------------------------------------------
def rl_module_spec(hidden=(256, 256), activation: str = "tanh"):
    """RLlib's action-masking PPO RLModule with our network shape: separate
    actor and critic MLPs of ``hidden`` (the fast path's default), linear
    heads, so :func:`export_actor_critic` maps it layer for layer."""
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    model = DefaultModelConfig(
        fcnet_hiddens=list(hidden),
        fcnet_activation=activation,
        head_fcnet_hiddens=[],
        vf_share_layers=False,
    )
    return RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)


def ppo_config(
    game: str,
    *,
    core_kwargs: dict | None = None,
    env_runners: int = 0,
    num_envs: int | None = None,
    vectorize: str = "native",
    mapping: str = "shared",
    illegal_action: str = "penalize",
    seed: int = 0,
    train_batch: int | None = None,
    minibatch: int | None = None,
    epochs: int = 2,
    lr: float = 3e-4,
    gamma: float = 0.995,
    ent_coef: float = 0.01,
    hidden=(256, 256),
    activation: str = "tanh",
    rollout_fragment: int | str = "auto",
):
    """The ``PPOConfig`` of a game (new API stack, torch, one local learner).

    ``vectorize``: ``"native"`` (each env runner steps its ``num_envs`` games
    with :class:`RLlibVectorEnv` through ``gym_env_vectorize_mode=
    "vector_entry_point"``) or ``"python"`` (Gymnasium's ``SyncVectorEnv`` of
    ``num_envs`` :class:`RLlibSingleEnv`); multi-seat games always use
    RLlib's own multi-agent vectorisation. ``train_batch`` defaults to
    ``rollout_fragment`` steps of every game of every runner (with ``"auto"``:
    32 steps each, at least 4,096)."""
    from ray.rllib.algorithms.ppo import PPOConfig

    spec = get_spec(game)
    core = resolve_core(spec.name, dict(core_kwargs or {}))
    multi = core.num_players > 1
    if vectorize not in ("native", "python"):
        raise ValueError(f"vectorize must be 'native' or 'python', not {vectorize!r}")
    if num_envs is None:
        num_envs = 1 if multi else (256 if vectorize == "native" else 16)
    runners = max(env_runners, 1)
    if train_batch is None:  # a given fragment: one per game; else >= 4,096 steps
        if isinstance(rollout_fragment, str):
            train_batch = max(32 * num_envs * runners, 4096)
        else:
            train_batch = int(rollout_fragment) * num_envs * runners
    if minibatch is None:
        minibatch = max(64, train_batch // 8)
    register_envs([spec.name])
    cfg = (
        PPOConfig()
        .environment(
            env_name(spec.name),
            env_config={"core_kwargs": dict(core_kwargs or {}), "illegal_action": illegal_action},
            disable_env_checking=True,
        )
        .framework("torch")
        .env_runners(
            num_env_runners=env_runners,
            num_envs_per_env_runner=num_envs,
            gym_env_vectorize_mode=(
                "vector_entry_point" if vectorize == "native" and not multi else "sync"
            ),
            rollout_fragment_length=rollout_fragment,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=train_batch,
            minibatch_size=minibatch,
            num_epochs=epochs,
            lr=lr,
            gamma=gamma,
            lambda_=0.95,
            clip_param=0.2,
            entropy_coeff=ent_coef,
            vf_loss_coeff=0.5,
            grad_clip=0.5,
            use_kl_loss=False,
        )
        .rl_module(rl_module_spec=rl_module_spec(hidden, activation))
        .callbacks(on_episode_end=on_episode_end)
        .debugging(seed=seed)
    )
    if multi:
        policies, fn, to_train = policy_setup(mapping, core.num_players)
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

        cfg = cfg.multi_agent(policies=policies, policy_mapping_fn=fn, policies_to_train=to_train)
        single = rl_module_spec(hidden, activation)
        cfg = cfg.rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={p: single for p in policies})
        )
    return cfg


def init_ray(address: str | None = None, num_cpus: int = 2, object_store_mb: int = 300) -> None:
    """Join the cluster at ``address`` (``"auto"``, ``"ray://host:10001"``), or
    start a small local one (``num_cpus`` CPUs, an ``object_store_mb`` MB
    object store, no dashboard). A no-op when Ray is already up."""
    import ray

    if ray.is_initialized():
        return
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    # workers import dungeonrl themselves: it must be installed on every machine
    if address:
        ray.init(address=address, log_to_driver=False, ignore_reinit_error=True)
    else:
        ray.init(
            num_cpus=num_cpus,
            object_store_memory=object_store_mb * 1024 * 1024,
            include_dashboard=False,
            log_to_driver=False,
            ignore_reinit_error=True,
        )


# --- export to the fast path's network, and the checkpoint agent ---------------------------
def _linears(*mods) -> list:
    import torch.nn as nn

    out = []
    for m in mods:
        out += [x for x in m.modules() if isinstance(x, nn.Linear)]
    return out


def export_actor_critic(module, spec, hidden=(256, 256), activation: str = "tanh"):
    """The fast path's :class:`~dungeonrl.agents.algos.ppo.ActorCritic` with the
    weights of a (full, not inference-only) action-masking PPO RLModule
    built by :func:`rl_module_spec`: the same logits and values for every
    observation (the mask is applied the same way by both)."""
    import torch

    from .ppo import ActorCritic

    net = ActorCritic(spec.obs_size, spec.num_actions, hidden, activation, shared=False)
    enc = module.encoder
    src_pi = _linears(enc.actor_encoder, module.pi)
    src_vf = _linears(enc.critic_encoder, module.vf)
    for src, dst in ((src_pi, _linears(net.actor)), (src_vf, _linears(net.critic))):
        if len(src) != len(dst):
            raise ValueError(
                f"RLModule has {len(src)} linear layers on a path, "
                f"ActorCritic {len(dst)}: not built by rl_module_spec({hidden})"
            )
        with torch.no_grad():
            for s, d in zip(src, dst):
                if s.weight.shape != d.weight.shape:
                    raise ValueError(
                        f"layer shapes differ: {tuple(s.weight.shape)} vs {tuple(d.weight.shape)}"
                    )
                d.weight.copy_(s.weight)
                d.bias.copy_(s.bias)
    return net.eval()


# --- the trainer ------------------------------------------------------------------------------
@dataclasses.dataclass
class RLlibOptions:
    """Ray RLlib (--backend rllib; needs pip install 'dungeonrl[rllib]')"""

    backend: str = option(
        "native",
        "native: this package's trainers (--algo); rllib: Ray "
        "RLlib PPO (new API stack), locally or on a Ray cluster",
        choices=("native", "rllib"),
    )
    env_runners: int = option(
        0, "RLlib env runners (0: sample in the driver process)", type=nonneg_int
    )
    address: str | None = option(
        None,
        "Ray cluster to join: auto, or ray://HOST:10001",
        default_text="a small local Ray (2 CPUs)",
    )
    vectorize: str = option(
        "native",
        "games of an env runner: native (one numba call steps "
        "them all) or python (one Python env per slot)",
        choices=("native", "python"),
    )


@dataclasses.dataclass
class RLlibMultiOptions(RLlibOptions):
    """Ray RLlib (--backend rllib; needs pip install 'dungeonrl[rllib]')"""

    policy_mapping: str = option(
        "shared",
        "seats to policies: shared (one policy), per_seat, "
        "or learner_vs_frozen (frozen copies refreshed every "
        "--snapshot-every iterations)",
        choices=POLICY_MAPPINGS,
    )


def train_options(spec) -> type:
    """The option group ``dungeonrl train GAME`` gets for RLlib."""
    return RLlibMultiOptions if spec.multi_agent else RLlibOptions


_NATIVE_ONLY = (
    "kickstart",
    "init",
    "checkpoint_minutes",
    "bc_steps",
    "bc_epochs",
    "dagger_rounds",
    "opponents",
    "snapshot_slots",
    "minibatches",
    "batch_size",
    "shared",
)
_RLLIB_ONLY = ("env_runners", "address", "vectorize", "policy_mapping")


def _result_row(r: dict, it: int, t0: float, prev_steps: int, t_prev: float) -> dict:
    er = r.get("env_runners", {}) or {}
    steps = int(
        r.get("num_env_steps_sampled_lifetime") or er.get("num_env_steps_sampled_lifetime") or 0
    )
    now = time.perf_counter()
    eps = int(er.get("dungeonrl_episodes", 0) or 0)
    wins = int(er.get("dungeonrl_wins", 0) or 0)
    learners = r.get("learners", {}) or {}
    mod = next((v for k, v in learners.items() if isinstance(v, dict) and "entropy" in v), {})
    row = {
        "iteration": it,
        "global_step": steps,
        "time_s": now - t0,
        "sps": steps / max(now - t0, 1e-9),
        "sps_iter": (steps - prev_steps) / max(now - t_prev, 1e-9),
        "episodes": eps,
        "win_rate": wins / eps if eps else float("nan"),
        "illegal_actions": int(er.get("dungeonrl_illegal", 0) or 0),
        "mean_return": float(er.get("episode_return_mean", float("nan"))),
        "mean_length": float(er.get("episode_len_mean", float("nan"))),
    }
    timers = r.get("timers", {}) or {}
    for key, name in (
        ("env_runner_sampling_timer", "sample_s"),
        ("learner_update_timer", "learn_s"),
    ):
        if isinstance(timers.get(key), (int, float)):
            row[name] = float(timers[key])
    for k in ("entropy", "policy_loss", "vf_loss", "mean_kl_loss", "vf_explained_var"):
        if k in mod:
            row[k] = float(mod[k])
    return row


def run_rllib_training(
    game: str, steps: int | None, seed: int, out: str, opts, num_envs: int | None = None, log=print
) -> dict:
    """Train with RLlib PPO and write the run folder (see the module doc);
    returns the metrics dict (the same keys as the native trainers')."""
    from .ppo import save_model

    hooks = hooks_for(game)
    spec = get_spec(game)
    core_kwargs = dict(hooks.train_defaults)
    core_kwargs.update(core_kwargs_from(opts, hooks))
    hidden = hidden_sizes(getattr(opts, "hidden", None))
    activation = getattr(opts, "activation", None) or "tanh"
    minutes = getattr(opts, "minutes", None)
    core = resolve_core(game, dict(core_kwargs))
    multi = core.num_players > 1
    mapping = getattr(opts, "policy_mapping", "shared") or "shared"
    vectorize = getattr(opts, "vectorize", "native") or "native"
    runners = int(getattr(opts, "env_runners", 0) or 0)
    kw = {}
    for src, dst in (
        ("lr", "lr"),
        ("ent_coef", "ent_coef"),
        ("gamma", "gamma"),
        ("epochs", "epochs"),
    ):
        v = getattr(opts, src, None)
        if v is not None:
            kw[dst] = v
    num_steps = getattr(opts, "num_steps", None)
    if num_steps:
        kw["rollout_fragment"] = int(num_steps)
    if steps is None and not minutes:
        steps = 200_000
    t0 = time.perf_counter()
    init_ray(getattr(opts, "address", None))
    import ray

    cfg = ppo_config(
        game,
        core_kwargs=core_kwargs,
        env_runners=runners,
        num_envs=num_envs,
        vectorize=vectorize,
        mapping=mapping,
        seed=seed,
        hidden=hidden,
        activation=activation,
        **kw,
    )
    frozen_every = max(1, int(getattr(opts, "snapshot_every", 10) or 10))
    open_run_folder(out, bool(getattr(opts, "overwrite", False)))
    algo = cfg.build_algo()
    history: list = []
    interrupted = False
    it, prev, t_prev = 0, 0, time.perf_counter()
    t_train = time.perf_counter()
    try:
        while True:
            r = algo.train()
            it += 1
            row = _result_row(r, it, t_train, prev, t_prev)
            prev, t_prev = row["global_step"], time.perf_counter()
            history.append(row)
            log(
                f"iter {it}: {row['global_step']:,} steps, {row['sps']:,.0f} steps/s, "
                f"win {row['win_rate']:.1%} ({row['episodes']} episodes), return "
                f"{row['mean_return']:.3f}"
            )
            if multi and mapping == "learner_vs_frozen" and it % frozen_every == 0:
                sync_frozen(algo)
            if steps is not None and row["global_step"] >= steps:
                break
            if minutes and time.perf_counter() - t0 >= 60 * minutes:
                break
    except KeyboardInterrupt:
        interrupted = True
    module_id = (
        DEFAULT_MODULE
        if not multi
        else {"shared": SHARED_MODULE, "learner_vs_frozen": "learner"}.get(mapping, "seat_0")
    )
    ckpt = os.path.join(os.path.abspath(out), "checkpoint")
    algo.save_to_path(ckpt)
    saved_spec = model_spec(core.spec, core_kwargs)
    saved_spec.update(
        {
            "module_id": module_id,
            "backend": "rllib",
            "arch": {"hidden": list(hidden), "activation": activation},
        }
    )
    with open(os.path.join(ckpt, SPEC_FILE), "w") as f:
        json.dump(saved_spec, f, indent=1)
    full = algo.learner_group._learner.module[module_id]
    net = export_actor_critic(full, core.spec, hidden, activation)
    config = {
        "backend": "rllib",
        "env_runners": runners,
        "address": getattr(opts, "address", None),
        "vectorize": vectorize,
        "num_envs_per_runner": cfg.num_envs_per_env_runner,
        "policy_mapping": mapping if multi else None,
        "module_id": module_id,
        "train_batch": cfg.train_batch_size_per_learner,
        "minibatch": cfg.minibatch_size,
        "epochs": cfg.num_epochs,
        "lr": cfg.lr,
        "gamma": cfg.gamma,
        "entropy_coeff": cfg.entropy_coeff,
        "hidden": list(hidden),
        "activation": activation,
        "ray_version": ray.__version__,
        "cluster_cpus": ray.cluster_resources().get("CPU"),
    }
    model_path = save_model(
        os.path.join(out, "model.pt"),
        net,
        core,
        core_kwargs=core_kwargs,
        metrics=history[-1] if history else {},
    )
    algo.stop()
    seconds = time.perf_counter() - t0
    steps_done = history[-1]["global_step"] if history else 0
    metrics = run_metrics(
        algo="rllib-ppo",
        core=core,
        core_kwargs=core_kwargs,
        seed=seed,
        config=config,
        steps=steps_done,
        seconds=seconds,
        model=model_path,
        interrupted=interrupted,
        history=history,
    )
    metrics["backend"] = "rllib"
    metrics["checkpoint"] = ckpt
    metrics["illegal_actions"] = sum(h["illegal_actions"] for h in history)
    write_csv(history, os.path.join(out, "metrics.csv"))
    write_json(metrics, os.path.join(out, "metrics.json"))
    refs = {}
    if not interrupted:
        agent = TorchAgent(net, deterministic=True, name="rllib ppo (greedy)")
        if multi:
            opts.eval_opponents = getattr(opts, "eval_opponents", "heuristic,random")
        refs = final_eval(metrics, agent, spec.name, core_kwargs, opts, hooks, multi, log)
        write_json(metrics, os.path.join(out, "metrics.json"))
    if history:
        plot_run(
            metrics,
            history,
            out,
            "rllib-ppo",
            core,
            hooks,
            multi,
            [(mapping, 1.0)] if multi else None,
            refs,
        )
    log(
        f"trained {steps_done:,} steps in {seconds / 60:.1f} min with RLlib "
        f"({runners} env runners, {vectorize} envs); wrote {out}/: model.pt, checkpoint/, "
        f"metrics.csv, metrics.json" + (", learning_curve.png" if history else "")
    )
    return metrics


def cli_train(args) -> int:
    """``dungeonrl train GAME --backend rllib``: check the options, choose the
    run folder, train (see :func:`run_rllib_training`)."""
    given: set[str] = getattr(args, "given", set())
    bad = sorted(set(given) & set(_NATIVE_ONLY))
    if bad:
        flags = ", ".join("--" + b.replace("_", "-") for b in bad)
        print(f"dungeonrl train: {flags} apply to --backend native only", file=sys.stderr)
        return 2
    if "algo" in given and args.algo != "ppo":
        print("dungeonrl train: --backend rllib trains PPO (--algo ppo)", file=sys.stderr)
        return 2
    if args.device != "cpu":
        print(
            "dungeonrl train: --backend rllib runs its learner on the CPU here (--device cpu)",
            file=sys.stderr,
        )
        return 2
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError:
        print(
            "dungeonrl train: --backend rllib needs Ray RLlib: pip install 'dungeonrl[rllib]'",
            file=sys.stderr,
        )
        return 2
    default = os.path.join("runs", f"{args.env}-rllib-s{args.seed}")
    try:
        out = choose_run_folder(args.out, default, args.overwrite)
    except ValueError as e:
        print(f"dungeonrl train: {e}", file=sys.stderr)
        return 2
    try:
        metrics = run_rllib_training(
            args.env, args.steps, args.seed, out, args, num_envs=args.num_envs
        )
    except (ValueError, OSError) as e:
        print(f"dungeonrl train: {e}", file=sys.stderr)
        return 2
    return 130 if metrics.get("interrupted") else 0


def check_backend_options(args) -> str | None:
    """An error message when RLlib-only options are given without
    ``--backend rllib`` (None: fine)."""
    given: set[str] = getattr(args, "given", set())
    bad = sorted(set(given) & set(_RLLIB_ONLY))
    if bad and getattr(args, "backend", "native") != "rllib":
        return ", ".join("--" + b.replace("_", "-") for b in bad) + " apply to --backend rllib only"
    return None
