"""What the training and evaluation code needs to know about each game
beyond its :class:`~dungeonrl.envs.core.spec.GameSpec`: the one place to
plug a new game into ``dungeonrl train`` / ``dungeonrl eval``. The record
is the engine's (like the spec), so a game declares its hooks in its own
package (``envs/<game>/hooks.py``) without importing the agents, which read
them.

A :class:`GameHooks` record per game (the ``"module:attribute"`` its
declaration names, ``agent_hooks`` in ``envs/<game>/game.toml``, by
convention ``dungeonrl.envs.<game>.hooks:HOOKS``; imported on first use)
gives

* ``episode_stats(core, final_states, rows, last_reward)``: per finished
  episode, a dict of arrays with at least ``"win"`` (bool); Unbroken adds
  ``"level"`` (Level reached) and ``"score"`` (0 for lost games). Read
  straight from the final records the fused kernel keeps, so it is
  vectorised;
* ``heuristic(core)``: a batched scripted agent (``act(buf, rows)``), or
  ``None`` when the game has none;
* ``play_whole_games(core, policy, seeds, policy_seed)``: whole games inside
  numba for the ``"random"`` / ``"heuristic"`` agents (the fast evaluation
  path), or ``None`` to use the generic batched loop;
* ``core_options``: the game's command-line options for building a core
  (``--character``, ``--difficulty``...: argparse keywords, ``choices``
  included, read by ``train``, ``eval``, ``play``, ``dataset`` and
  ``demo``, so no command lists a game's options itself) and
  ``train_defaults``, the core
  options training uses unless told otherwise (Unbroken trains on
  ``reward="score"``, which also pays for the Levels a lost game reached),
  and ``play_defaults``, those ``dungeonrl play`` uses (a table of three);
* ``stat_columns``: extra per-episode statistics shown in tables;
  ``describe(core)``: the configuration in words, for reports.

Games that declare none get :data:`GENERIC`: a win is a positive last reward,
no heuristic, no fast path, no options.

Multi-seat games (Dungeon Crawler) add ``scripted_advance(core)``: the
kernel with which :class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView` and
PvP matches play scripted opponents (code 0 random, 1 heuristic) inside
numba, and ``selfplay_defaults``, the opponent pool ``dungeonrl train``
uses unless ``--opponents`` says otherwise. Their ``heuristic`` must be able
to drive any seat (it reads the records, not the learner's observation).
Co-op games (Dungeon Crawler Carl: Unstoppable at 2 players: every seat in
one team) use the same two hooks for the learner's teammates
(``--partners``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import catalog

__all__ = [
    "GameHooks",
    "HOOKS",
    "GENERIC",
    "hooks_for",
    "hooks_target",
    "generic_episode_stats",
    "core_kwargs_from",
    "add_core_options",
    "players_option",
]


def generic_episode_stats(core, final_states, rows, last_reward) -> dict:
    """A win is a positive reward on the episode's last step."""
    return {"win": np.asarray(last_reward) > 0}


def describe_env_id(core) -> str:
    """The default one-line description of a core: its env id (a named
    function, so hooks, and the RLlib envs holding them, can be pickled)."""
    return core.spec.env_id


@dataclass(frozen=True)
class GameHooks:
    episode_stats: Callable = generic_episode_stats
    heuristic: Callable | None = None
    play_whole_games: Callable | None = None
    #: ``(flag, argparse kwargs)`` of the options that build a core
    core_options: tuple = ()
    #: core options used by ``train`` unless the user sets them
    train_defaults: dict = field(default_factory=dict)
    #: core options used by ``play`` unless the user sets them
    play_defaults: dict = field(default_factory=dict)
    #: extra per-episode statistics for tables: ``(key, label, format)``
    stat_columns: tuple = ()
    #: one-line description of a core's configuration, for reports
    describe: Callable = describe_env_id
    #: multi-seat games: ``scripted_advance(core)`` -> the SelfPlayView ``advance`` kernel
    scripted_advance: Callable | None = None
    #: multi-seat games: default ``--opponents`` pool of ``dungeonrl train``
    selfplay_defaults: str = "self:0.5,random:0.5"


GENERIC = GameHooks()

#: overrides: game short name -> ``"module:attribute"`` of its :class:`GameHooks`
#: (a game of the catalog needs none: its declaration names its hooks)
HOOKS: dict[str, str] = {}
_LOADED: dict[str, GameHooks] = {}


def hooks_target(game: str) -> str | None:
    """Where a game's hooks live: :data:`HOOKS` if it names the game, else
    the declaration of a catalog game (``GAME.agent_hooks``; ``None`` when
    it declares none), else the convention ``dungeonrl.envs.<game>.hooks:HOOKS``
    (games registered by hand)."""
    if game in HOOKS:
        return HOOKS[game]
    if game in catalog.ENTRIES:
        return catalog.ENTRIES[game].agent_hooks
    return f"{catalog.__name__.rpartition('.')[0]}.{game}.hooks:HOOKS"


def hooks_for(game: str) -> GameHooks:
    """The hooks of a game by short name (:data:`GENERIC` if it has none:
    none declared, or no module at the conventional place). Errors inside
    an existing hooks module propagate."""
    if game not in _LOADED:
        target = hooks_target(game)
        if target is None:
            _LOADED[game] = GENERIC
            return GENERIC
        module, _, attr = target.partition(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            # the module, or a package above it (no such game), is missing
            if e.name is None or not (module == e.name or module.startswith(e.name + ".")):
                raise
            _LOADED[game] = GENERIC
        else:
            _LOADED[game] = getattr(mod, attr)
    return _LOADED[game]


def core_kwargs_from(opts, hooks: GameHooks) -> dict:
    """The core options a parsed namespace sets (options left at ``None``
    are not passed, so the core's or the model's own defaults apply)."""
    out = {}
    for flag, kwargs in hooks.core_options:
        key = kwargs.get("dest") or flag.lstrip("-").replace("-", "_")
        value = getattr(opts, key, None)
        if value is not None:
            out[key] = value
    return out


def players_option(help: str) -> tuple:
    """The ``--players`` core option of a game of several seats (an int,
    ``num_players`` of the core; unset: the command's or the game's
    default), described by ``help`` (the game's seat range and defaults):
    one entry of :attr:`GameHooks.core_options`."""
    return ("--players", dict(dest="num_players", type=int, default=None, help=help))


def add_core_options(parser, hooks: GameHooks) -> None:
    """Add the game's core options to an ``argparse`` parser."""
    for flag, kwargs in hooks.core_options:
        parser.add_argument(flag, **kwargs)
