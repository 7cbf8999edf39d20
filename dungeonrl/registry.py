"""The game registry: every game of the suite, registered with Gymnasium at
package import.

``GAMES`` lists the module of each game (from :mod:`dungeonrl.envs.catalog`,
which discovers every game package's ``GAME`` declaration). A game module
exports ``SPEC`` (a
:class:`~dungeonrl.envs.core.spec.GameSpec`) and ``make_core(**kwargs)``;
optional companions are named by the game's declaration (``GAME.cli``,
``GAME.pettingzoo``, ``GAME.agent_hooks``).

The table of specs itself is :mod:`dungeonrl.envs.specs` (the engine looks
games up there); this module registers each game's ids with Gymnasium when
the table records its spec. ``register_all()`` imports each module and calls
:func:`register_game`, which records the spec under its short name and
registers its env id with Gymnasium::

    gymnasium.register(id=spec.env_id,
                       entry_point="dungeonrl.envs.core.adapters.gym_env:make_env",
                       vector_entry_point="dungeonrl.envs.core.adapters.vector:make_vector_env",
                       kwargs={"game": spec.name}, max_episode_steps=None)

``max_episode_steps`` is ``None`` because every core truncates itself at
``spec.max_episode_steps``. A multi-seat game (``spec.multi_agent``) is
registered with :data:`SELFPLAY_ENTRY_POINT` / :data:`SELFPLAY_VECTOR_ENTRY_POINT`
instead: ``gymnasium.make`` on it gives the single-agent view (one seat
against an opponent pool, :mod:`dungeonrl.agents.selfplay_env`), while the
full multi-agent game is PettingZoo's (the game's ``GAME.pettingzoo`` module).
Every entry point is a dotted string resolved by Gymnasium's own
``load_env_creator`` when an env is made: the registry sits below the
agents and imports none of them. Registration is idempotent. A game module
that does not exist yet (or is still an empty folder) is skipped silently;
any other import error inside a game module propagates.
"""

from __future__ import annotations

import importlib

import gymnasium
from gymnasium.envs.registration import load_env_creator

from .envs import catalog, specs
from .envs.core.spec import GameSpec
from .envs.specs import game_module, get_spec, list_games

__all__ = [
    "GAMES",
    "ENTRY_POINT",
    "VECTOR_ENTRY_POINT",
    "SELFPLAY_ENTRY_POINT",
    "SELFPLAY_VECTOR_ENTRY_POINT",
    "register_game",
    "register_module",
    "register_all",
    "register_catalog",
    "get_spec",
    "list_games",
    "game_module",
    "make_game_env",
    "make_game_vector_env",
    "aec_factory",
]

#: Modules of the games of the suite, in registration order (the games
#: :mod:`dungeonrl.envs.catalog` discovers, :data:`~dungeonrl.envs.catalog.GAMES`).
GAMES: list[str] = [catalog.package(name) for name in catalog.GAMES]

ENTRY_POINT = "dungeonrl.envs.core.adapters.gym_env:make_env"
VECTOR_ENTRY_POINT = "dungeonrl.envs.core.adapters.vector:make_vector_env"
SELFPLAY_ENTRY_POINT = "dungeonrl.agents.selfplay_env:make_selfplay_env"
SELFPLAY_VECTOR_ENTRY_POINT = "dungeonrl.agents.selfplay_env:make_selfplay_vector_env"
#: entry points of the catalog's games, registered before the game is imported
LAZY_ENTRY_POINT = "dungeonrl.registry:make_game_env"
LAZY_VECTOR_ENTRY_POINT = "dungeonrl.registry:make_game_vector_env"


def _register_ids(spec: GameSpec) -> None:
    """Register ``spec.env_id`` with Gymnasium (the hook of every spec the
    game table records): multi-agent games get the single-agent view (one
    seat against an opponent pool); they register with PettingZoo in their
    own module."""
    if spec.env_id not in gymnasium.registry:
        multi = spec.multi_agent
        gymnasium.register(
            id=spec.env_id,
            entry_point=SELFPLAY_ENTRY_POINT if multi else ENTRY_POINT,
            vector_entry_point=SELFPLAY_VECTOR_ENTRY_POINT if multi else VECTOR_ENTRY_POINT,
            kwargs={"game": spec.name},
            max_episode_steps=None,
        )


specs.on_record.append(_register_ids)


def register_game(spec: GameSpec, module: str | None = None) -> None:
    """Record ``spec`` in the game table (:mod:`dungeonrl.envs.specs`) under
    ``spec.name`` and register ``spec.env_id`` with Gymnasium. Registering
    the same game again is a no-op; a different game under a taken name or
    env id raises ``ValueError``."""
    specs.record(spec, module)


def register_module(module: str) -> GameSpec | None:
    """Import a game module and register its ``SPEC``. Returns ``None`` (and
    registers nothing) when the module does not exist yet or is a folder
    without an ``__init__.py``; any other problem raises."""
    return specs.load_module(module)


def register_all(games: list[str] | None = None) -> list[GameSpec]:
    """Register every module of ``games`` (default :data:`GAMES`); returns the
    specs registered (games not written yet are skipped)."""
    out = []
    for module in GAMES if games is None else games:
        spec = register_module(module)
        if spec is not None:
            out.append(spec)
    return out


def register_catalog() -> None:
    """Register every game of :mod:`dungeonrl.envs.catalog` by name, without
    importing it (run by ``import dungeonrl``): its Gymnasium id (entry
    points :func:`make_game_env` / :func:`make_game_vector_env`, which import
    the game when first called) and, where the game has a PettingZoo module,
    its PettingZoo ids (string entry points, imported on first make) from
    the module its declaration names (``GAME.pettingzoo``). The
    game's spec is loaded on first use (:func:`get_spec`)."""
    from .envs.core.adapters.pz_module import register as register_pettingzoo

    for name, env_id in catalog.ENV_IDS.items():
        if specs.is_loaded(name):
            continue
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=LAZY_ENTRY_POINT,
                vector_entry_point=LAZY_VECTOR_ENTRY_POINT,
                kwargs={"game": name},
                max_episode_steps=None,
            )
        pz = catalog.pettingzoo_module(name)
        if pz is not None:  # declared: not looked up (that would import its package)
            register_pettingzoo(env_id, pz)


def make_game_env(game: str, **kwargs) -> gymnasium.Env:
    """Gymnasium entry point of a catalog game: the single-agent env, or the
    self-play view of a multi-seat game."""
    multi = get_spec(game).multi_agent
    env = load_env_creator(SELFPLAY_ENTRY_POINT if multi else ENTRY_POINT)(game=game, **kwargs)
    assert isinstance(env, gymnasium.Env)
    return env


def make_game_vector_env(game: str, **kwargs) -> gymnasium.vector.VectorEnv:
    """Gymnasium vector entry point of a catalog game (see :func:`make_game_env`)."""
    multi = get_spec(game).multi_agent
    creator = load_env_creator(SELFPLAY_VECTOR_ENTRY_POINT if multi else VECTOR_ENTRY_POINT)
    env = creator(game=game, **kwargs)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    return env


def aec_factory(game):
    """``factory(num_players=N)`` building the PettingZoo AEC env of a
    multi-agent game (a registered name, env id or :class:`GameSpec`), the
    way a PettingZoo user does: ``env`` of the game's PettingZoo module
    (``GAME.pettingzoo`` of a catalog game, else
    ``dungeonrl.envs.<name>_v<version>``) if that module exists, else
    ``pettingzoo.make("aec", spec.env_id, ...)``."""
    spec = game if isinstance(game, GameSpec) else get_spec(game)
    name = f"dungeonrl.envs.{spec.name}_v{spec.version}"
    if spec.name in catalog.ENTRIES:
        name = catalog.pettingzoo_module(spec.name) or name
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is None or not name.startswith(e.name):
            raise
        import pettingzoo

        if spec.env_id not in pettingzoo.aec_registry:
            raise ImportError(
                f"no module {name} and {spec.env_id} is not in pettingzoo's AEC registry"
            ) from None
        return lambda **kw: pettingzoo.make("aec", spec.env_id, **kw)
    return mod.env
