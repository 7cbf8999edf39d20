"""A series of games as one Gymnasium episode (a campaign), written once:
:class:`SeriesEnv`.

Each game of the series is a :class:`~.gym_env.DungeonEnv` of some
configuration; between games the series keeps its own record (a campaign
sheet, scores) and hands what carries over to the next game through that
game's reset options. The class does the Gymnasium part: reset options
(accepted keys, one warning per unknown key or ``ValueError`` under
``unknown_reset_options="raise"``), seeding (each game's seed is drawn from
the series' ``np_random``, so a seeded reset replays the whole series),
stepping, masks, rendering, closing and copying; one env per configuration
is built on first use and kept. What the series is comes from two places:

* the subclass: ``env_id`` (for messages) and ``_make_core(key)``, the core
  of the configuration ``key`` (each game is a
  :class:`~.gym_env.DungeonEnv` of it, with the series' ``env_kwargs``:
  ``render_mode``, ``illegal_action``, ``dict_obs``...); it sets ``series``
  in its ``__init__`` and calls :meth:`SeriesEnv._open` with the first
  game's key;
* ``series``, the series' own record and rules (:class:`Series`).

The step that ends a game returns that game's reward; when the series goes
on it returns the next game's first observation with ``terminated`` and
``truncated`` False, when it is over the game's own flags.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable
from typing import Any, Protocol

import gymnasium as gym

from ..copying import Copyable
from ..errors import ResetNeededError
from ..spec import GameCore, check_unknown_reset_options
from ..validate import check_num_envs, check_seed
from .gym_env import DungeonEnv

__all__ = ["Series", "SeriesEnv", "series_vector_env", "register_series"]


class Series(Protocol):
    """What a series of games says, between its games."""

    #: the reset options it takes
    reset_keys: tuple[str, ...]

    def begin(self, options: dict[str, Any]) -> None:
        """A new series from the accepted reset options (``ValueError`` for a
        bad value, before anything changes)."""

    def next_game(self) -> tuple[Hashable, dict[str, Any]]:
        """``(key, reset options)`` of the game to play now."""

    def game_info(self, info: dict) -> dict:
        """A game's info with the series' keys added."""

    def game_over(self, state, truncated: bool, info: dict) -> dict | None:
        """Record the game that just ended (``state``: its final record;
        ``info``: its last info, to add to): ``None`` when the series is
        over, else the keys the next game's first info gets."""


class SeriesEnv(Copyable, gym.Env):
    """Games played one after another as one episode (see the module doc)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    env_id = "series"
    series: Series

    def __init__(self, unknown_reset_options: str = "warn", **env_kwargs):
        self.unknown_reset_options = check_unknown_reset_options(unknown_reset_options)
        self._warned_reset_keys: set = set()  # unknown reset options warned about
        self._env_kwargs = env_kwargs  # of every game's DungeonEnv (checked by the first)
        self.render_mode = env_kwargs.get("render_mode")
        self._envs: dict = {}
        self._started = False

    def _open(self, key: Hashable) -> None:
        """Build the game of ``key`` (validating its arguments) and take its
        spaces and metadata as the series'."""
        self._env = self._game(key)
        self.action_space = self._env.action_space
        self.observation_space = self._env.observation_space
        self.metadata = dict(self._env.metadata)

    def _make_core(self, key: Hashable) -> GameCore:
        """The core of the configuration ``key`` (the subclass's)."""
        raise NotImplementedError

    # --- games --------------------------------------------------------------------
    def _game(self, key: Hashable) -> DungeonEnv:
        if key not in self._envs:
            self._envs[key] = DungeonEnv(self._make_core(key), **self._env_kwargs)
        return self._envs[key]

    @property
    def state(self):
        """The record of the game being played (a read-only copy)."""
        return self._env._buf.states[0].copy()

    def _start_game(self):
        key, options = self.series.next_game()
        self._env = self._game(key)
        seed = int(self.np_random.integers(0, 2**63 - 1))
        obs, info = self._env.reset(seed=seed, options=options)
        return obs, self.series.game_info(info)

    def _known_options(self, options) -> dict:
        """The reset options this series takes; the others warned about once
        (or refused under ``unknown_reset_options="raise"``)."""
        options = dict(options or {})
        accepted = list(self.series.reset_keys)
        unknown = sorted(set(options) - set(accepted), key=repr)
        if unknown and self.unknown_reset_options == "raise":
            raise ValueError(f"unknown reset options {unknown}; accepted: {accepted}")
        for key in unknown:
            if key not in self._warned_reset_keys:
                self._warned_reset_keys.add(key)
                warnings.warn(
                    f"{self.env_id}: unknown reset option {key!r}; accepted: {accepted} "
                    "(ignored; pass unknown_reset_options='raise' to make it an error)",
                    UserWarning,
                    stacklevel=3,
                )
            del options[key]
        return options

    # --- gymnasium API ------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new series; ``options``: the keys of ``series.reset_keys`` (any other
        key is ignored with one warning, ``unknown_reset_options="raise"``:
        ``ValueError``)."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        seed = check_seed(seed)  # the adapters' check: int / numpy int in [0, 2**64) or None
        super().reset(seed=seed)
        self.series.begin(self._known_options(options))
        self._started = True
        return self._start_game()

    def step(self, action):
        if not self._started:
            raise ResetNeededError("step() called before reset()")
        obs, reward, terminated, truncated, info = self._env.step(action)
        info = self.series.game_info(info)
        if not (terminated or truncated):
            return obs, reward, False, False, info
        handover = self.series.game_over(self._env._buf.states[0], truncated, info)
        if handover is None:
            return obs, reward, terminated, truncated, info
        obs, new_info = self._start_game()
        new_info.update(handover)
        return obs, reward, False, False, new_info

    def action_masks(self):
        return self._env.action_masks()

    def render(self):
        return self._env.render()

    def close(self):
        for e in self._envs.values():
            e.close()


def series_vector_env(make: Callable[..., gym.Env], num_envs: int = 1, **kwargs):
    """``num_envs`` series ``make(**kwargs)`` in a Gymnasium ``SyncVectorEnv``
    (``num_envs`` checked as by every adapter): a vector entry point."""
    n = check_num_envs(num_envs)
    return gym.vector.SyncVectorEnv([lambda: make(**kwargs) for _ in range(n)])


def register_series(env_id: str, entry_point: str, vector_entry_point: str) -> str:
    """Register a series env with Gymnasium (idempotent; its own checks
    replace Gymnasium's env checker); returns ``env_id``."""
    if env_id not in gym.registry:
        gym.register(
            id=env_id,
            entry_point=entry_point,
            vector_entry_point=vector_entry_point,
            disable_env_checker=True,
        )
    return env_id
