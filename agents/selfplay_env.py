"""A multi-seat game as a single-agent Gymnasium env: what
``gymnasium.make("dungeonrl/DungeonCrawler-v0")`` builds.

Why
---
A Gymnasium user who calls ``gym.make`` on a 2-8 player game expects a
single-agent ``Env`` that SB3, ``check_env``, ``RecordEpisodeStatistics``
or Minari's ``DataCollector`` can drive. The natural single-agent form of a
competitive game is *one learner seat against fixed opponents* (what
OpenSpiel's ``rl_environment`` and our own trainer do), so the multi-seat
games are registered with Gymnasium as that view, while the full
multi-agent game stays PettingZoo's::

    from dungeonrl.envs import dungeon_crawler_v0
    dungeon_crawler_v0.env(num_players=4)            # AEC, every seat yours
    dungeon_crawler_v0.parallel_env(num_players=4)   # Parallel form
    BatchedMultiAgentEnv("dungeon_crawler", 1024)    # N games, every seat, arrays

:class:`SelfPlayEnv` is a batch of one
:class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`: the agent plays one
seat; every other seat is played by an opponent drawn per episode from the
pool ``opponents`` (``"heuristic"`` by default; the syntax of ``dungeonrl
train --opponents``: ``"heuristic:0.5,random:0.5"`` or a saved model path;
``self`` is not available: there is no learner to snapshot). Scripted
opponents play inside numba; saved models play greedily, so a seeded reset
replays exactly.

Spaces, masks, the illegal-action policy and Python scalar types are those
of :class:`~dungeonrl.envs.core.adapters.gym_env.DungeonEnv`. A step is one decision
of the agent followed by the opponents' decisions up to its next one; the
reward is the agent's seat's reward over that span. The final ``info``
holds the game's ``episode_info`` plus ``seat``, ``outcome`` (win / loss /
draw, for the agent) and ``opponents``.

``seat="rotate"`` (default): a seeded ``reset(seed=s)`` puts the agent in
seat ``s % num_players``, and each later unseeded reset moves it one seat
on; an int pins the seat. ``num_players`` defaults to the game's training
default (2 for Dungeon Crawler); other keyword arguments build the core.

``gymnasium.make_vec(id, num_envs=n)`` gives a native vector env of ``n``
such games (:func:`make_selfplay_vector_env`).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..envs import catalog
from ..envs.core.adapters.base import GameAdapter, game_seeds
from ..envs.core.adapters.gym_env import observation_spaces
from ..envs.core.adapters.selfplay import Opponent, SelfPlayView
from ..envs.core.adapters.vector import DungeonVectorEnv
from ..envs.core.common import MASK_DTYPE, action_index, draw_seeds, illegal_message, resolve_core
from ..envs.core.copying import Copyable
from ..envs.core.errors import IllegalActionError, ResetNeededError
from ..envs.core.hooks import hooks_for
from ..envs.core.spec import GameCore, GameSpec
from ..envs.core.validate import check_flag, check_num_envs, check_seed
from ..envs.specs import get_spec
from .algos.selfplay import SCRIPTED_NAMES, parse_pool
from .policy import make_agent

__all__ = ["SelfPlayEnv", "make_selfplay_env", "make_selfplay_vector_env", "opponent_pool"]


def _core(game, core_kwargs: dict):
    """The core of ``game``; a name, id or spec gets the game's training
    defaults (``num_players=2`` for Dungeon Crawler) under ``core_kwargs``."""
    if isinstance(game, GameCore):
        core = resolve_core(game, core_kwargs)
    else:
        spec = game if isinstance(game, GameSpec) else get_spec(game)
        core = resolve_core(spec, {**hooks_for(spec.name).train_defaults, **core_kwargs})
    if core.num_players < 2:
        raise ValueError(
            f"{core.spec.name} is a 1-player game: use gymnasium.make on it directly (DungeonEnv)"
        )
    return core


def opponent_pool(core, opponents: str, seed: int = 0) -> tuple[list, Any]:
    """The :class:`Opponent` entries of a pool string, built once, and the
    game's scripted-opponent kernel."""
    entries = parse_pool(opponents)
    if any(name == "self" for name, _ in entries):
        raise ValueError(
            "'self' opponents need a learner to snapshot (dungeonrl train); "
            "give 'heuristic', 'random' or a saved model path"
        )
    pool = []
    for i, (name, w) in enumerate(entries):
        agent = make_agent(name, core, seed=seed + 7919 * (i + 1), deterministic=True)
        pool.append(Opponent(agent, w, name if name in SCRIPTED_NAMES else agent.name))
    hooks = hooks_for(core.spec.name)
    advance = hooks.scripted_advance(core) if hooks.scripted_advance else None
    return pool, advance


class SelfPlayEnv(Copyable, GameAdapter, gym.Env):
    """One seat of a multi-seat game against an opponent pool, as a
    ``gymnasium.Env`` (see the module doc).

    Arguments: ``game`` (name, env id, spec or core; default the suite's
    first multi-seat game), ``opponents`` (pool
    string), ``seat`` (``"rotate"`` or a seat index), ``render_mode``
    (``None`` or one of the game's modes), ``illegal_action``
    (``"penalize"`` / ``"raise"``), ``dict_obs``, ``unknown_reset_options``
    (``"warn"``: a reset option the game does not declare is ignored with
    one warning per env and key; ``"raise"``: ``ValueError``),
    ``**core_kwargs``.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        game: str | None = None,
        opponents: str = "heuristic",
        seat="rotate",
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        dict_obs: bool = False,
        unknown_reset_options: str = "warn",
        **core_kwargs,
    ):
        if game is None:  # the suite's first multi-seat game
            game = catalog.default_game(multi_seat=True)
        spec = self._setup(
            game, core_kwargs, render_mode, illegal_action, unknown_reset_options, resolve=_core
        )
        self.metadata = {"render_modes": list(spec.render_modes), "render_fps": 4}
        self.dict_obs = check_flag(dict_obs, "dict_obs")
        P = self.num_players = int(self.core.num_players)
        if seat != "rotate" and (
            isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < P
        ):
            raise ValueError(f"seat must be 'rotate' or a seat 0..{P - 1}, got {seat!r}")
        self.seat_mode = seat
        self.opponents = opponents
        self._pool, self._advance = opponent_pool(self.core, opponents)
        self.action_space = spaces.Discrete(spec.num_actions)
        self.observation_space = observation_spaces(spec, self.dict_obs)
        self._view: SelfPlayView | None = None
        self._seat = 0 if seat == "rotate" else int(seat)
        self._done = True
        self._started = False
        self._final = None  # the finished game's record, for render()

    # --- gymnasium API ---------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        seed = check_seed(seed)  # int / numpy integer in [0, 2**64) or None
        options = self.core.spec.check_reset_options(
            options, self.unknown_reset_options, self._warned_reset_keys
        )
        super().reset(seed=seed)
        if seed is not None or self._view is None:
            view_seed = int(seed) if seed is not None else int(draw_seeds(self.np_random, 1)[0])
            self._view = SelfPlayView(
                self.core, 1, self._pool, seats=0, advance=self._advance, seed=view_seed
            )
            if self.seat_mode == "rotate" and seed is not None:
                self._seat = int(seed) % self.num_players
        elif self.seat_mode == "rotate" and self._started:
            self._seat = (self._seat + 1) % self.num_players
        v = self._view
        v.seat[0] = self._seat
        seeds = game_seeds(seed, self.np_random, 1)
        v.reset(seeds, options=options, checked=True)  # validated above
        self._started = True
        self._done = False
        self._final = None
        return self._observation(v.obs[0], v.masks[0]), {
            "action_mask": v.masks[0].copy(),
            "seat": self._seat,
        }

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        a = action_index(action, self.game_spec.num_actions)
        if self._done:
            raise ResetNeededError(
                "step() called before reset()"
                if not self._started
                else "step() called after the episode ended; call reset() first"
            )
        v = self._view
        assert v is not None  # made by reset (self._done until then)
        if self.illegal_action == "raise" and not v.masks[0, a]:
            raise IllegalActionError(illegal_message(self.core, v.states[0], a, v.masks[0]))
        v.actions[0] = a
        v.step_autoreset()
        reward = float(v.reward[0])
        terminated = bool(v.terminated[0])
        truncated = bool(v.truncated[0])
        info: dict[str, Any] = {"illegal_action": bool(v.illegal[0])}
        if terminated or truncated:
            self._done = True
            self._final = v.final_states[:1].copy()
            info.update(v.episode_info(0))
            mask = np.zeros(self.game_spec.num_actions, MASK_DTYPE)
            obs = self._observation(v.final_obs[0], mask)
        else:
            mask = v.masks[0].copy()
            obs = self._observation(v.obs[0], mask)
        info["action_mask"] = mask
        return obs, reward, terminated, truncated, info

    def _shown_state(self):
        assert self._view is not None  # made by reset
        return self._final[0] if self._final is not None else self._view.states[0]

    def action_masks(self) -> np.ndarray:
        """Legal actions now (bool; all False once the episode has ended)."""
        if self._done or self._view is None:
            return np.zeros(self.game_spec.num_actions, bool)
        return self._view.masks[0].astype(bool)

    def close(self):
        pass

    # --- helpers -----------------------------------------------------------------------
    def _observation(self, obs, mask):
        obs = obs.copy()
        if self.dict_obs:
            return {"observation": obs, "action_mask": np.asarray(mask, MASK_DTYPE).copy()}
        return obs

    def __repr__(self) -> str:
        return (
            f"<SelfPlayEnv {self.game_spec.env_id} players={self.num_players} "
            f"opponents={self.opponents!r}>"
        )


def make_selfplay_env(game: str, **kwargs) -> SelfPlayEnv:
    """Gymnasium entry point of the multi-seat games (see the module doc)."""
    return SelfPlayEnv(game, **kwargs)


def make_selfplay_vector_env(
    game: str,
    num_envs: int = 1,
    opponents: str = "heuristic",
    seat="rotate",
    seed: int = 0,
    **kwargs,
):
    """Gymnasium vector entry point: a native
    :class:`~dungeonrl.envs.core.adapters.vector.DungeonVectorEnv` over a
    :class:`SelfPlayView` of ``num_envs`` games (learner seat per row:
    ``"rotate"`` or a seat; ``seed`` seeds the opponent draws)."""
    vec_keys = (
        "render_mode",
        "illegal_action",
        "dict_obs",
        "episode_info",
        "unknown_reset_options",
    )
    vec_kwargs = {k: kwargs.pop(k) for k in vec_keys if k in kwargs}
    num_envs = check_num_envs(num_envs)  # before the core is built: the adapters' checks
    seed = check_seed(seed)
    seed = 0 if seed is None else seed
    core = _core(game, kwargs)
    pool, advance = opponent_pool(core, opponents, seed)
    view = SelfPlayView(
        core,
        num_envs,
        pool,
        seats=seat,
        advance=advance,
        seed=seed,
        unknown_reset_options=vec_kwargs.get("unknown_reset_options", "warn"),
    )
    return DungeonVectorEnv(view, **vec_kwargs)
