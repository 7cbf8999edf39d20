"""The game registry: every game of the suite, registered with Gymnasium at
package import.

``GAMES`` lists the module of each game (from :mod:`dungeonrl.envs.catalog`,
which discovers every game package's ``GAME`` declaration). A game module
exports ``SPEC`` (a
:class:`~dungeonrl.envs.core.spec.GameSpec`) and ``make_core(**kwargs)``;
optional companions are named by the game's declaration (``GAME.cli``,
``GAME.pettingzoo``, ``GAME.agent_hooks``).

``register_all()`` (run by ``import dungeonrl``) imports each module and calls
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
Registration is idempotent. A game module that does not exist yet (or is
still an empty folder) is skipped silently; any other import error inside a
game module propagates.
"""

from __future__ import annotations

import dataclasses
import importlib

import gymnasium

from .envs import catalog
from .envs.core.errors import UnknownGameError
from .envs.core.spec import GameSpec

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

_SPECS: dict[str, GameSpec] = {}  # name -> spec
_MODULES: dict[str, str] = {}  # name -> module that defines the game


def register_game(spec: GameSpec, module: str | None = None) -> None:
    """Record ``spec`` under ``spec.name`` and register ``spec.env_id`` with
    Gymnasium. Registering the same game again is a no-op; a different game
    under a taken name or env id raises ``ValueError``."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"expected a GameSpec, got {type(spec).__name__}")
    old = _SPECS.get(spec.name)
    if old is not None and old != spec:
        raise ValueError(f"game name {spec.name!r} is already registered by another spec")
    for other in _SPECS.values():
        if other.env_id == spec.env_id and other.name != spec.name:
            raise ValueError(f"env id {spec.env_id!r} is already taken by game {other.name!r}")
    _SPECS[spec.name] = spec
    if module is not None:
        _MODULES[spec.name] = module
    # multi-agent games: Gymnasium gets the single-agent view (one seat against
    # an opponent pool); they register with PettingZoo in their own module
    if spec.env_id not in gymnasium.registry:
        multi = spec.multi_agent
        gymnasium.register(
            id=spec.env_id,
            entry_point=SELFPLAY_ENTRY_POINT if multi else ENTRY_POINT,
            vector_entry_point=SELFPLAY_VECTOR_ENTRY_POINT if multi else VECTOR_ENTRY_POINT,
            kwargs={"game": spec.name},
            max_episode_steps=None,
        )


def _missing(module: str, err: ImportError) -> bool:
    """True if ``err`` says that ``module`` itself does not exist (not that
    something the module imports is missing)."""
    return isinstance(err, ModuleNotFoundError) and err.name == module


def register_module(module: str) -> GameSpec | None:
    """Import a game module and register its ``SPEC``. Returns ``None`` (and
    registers nothing) when the module does not exist yet or is a folder
    without an ``__init__.py``; any other problem raises."""
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        if _missing(module, e):
            return None
        raise
    spec = getattr(mod, "SPEC", None)
    if spec is None:
        if getattr(mod, "__file__", None) is None:  # namespace package: not written yet
            return None
        raise ImportError(f"game module {module} does not export SPEC")
    if getattr(mod, "make_core", None) is None and spec.make_core is None:
        raise ImportError(f"game module {module} exports neither make_core nor SPEC.make_core")
    _check_declared(spec, module)
    if spec.make_core is None:
        # the module's factory is the core factory of the spec
        spec = dataclasses.replace(spec, make_core=mod.make_core)
    register_game(spec, module)
    return spec


def _check_declared(spec: GameSpec, module: str) -> None:
    """A catalog game's spec must carry the name and env id its ``GAME``
    declares."""
    game = catalog.ENTRIES.get(spec.name)
    if module != catalog.package(spec.name) or game is None:
        declared = [g for g in catalog.ENTRIES.values() if g.package == module]
        if declared:
            raise ValueError(
                f"{module}: SPEC.name is {spec.name!r} but its game.py "
                f"declares {declared[0].name!r}"
            )
        return
    if spec.env_id != game.env_id:
        raise ValueError(
            f"{module}: SPEC.env_id is {spec.env_id!r} but its game.py declares {game.env_id!r}"
        )


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
        if name in _SPECS:
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
    if get_spec(game).multi_agent:
        from .agents.selfplay_env import make_selfplay_env

        return make_selfplay_env(game=game, **kwargs)
    from .envs.core.adapters.gym_env import make_env

    return make_env(game=game, **kwargs)


def make_game_vector_env(game: str, **kwargs) -> gymnasium.vector.VectorEnv:
    """Gymnasium vector entry point of a catalog game (see :func:`make_game_env`)."""
    if get_spec(game).multi_agent:
        from .agents.selfplay_env import make_selfplay_vector_env

        return make_selfplay_vector_env(game=game, **kwargs)
    from .envs.core.adapters.vector import make_vector_env

    return make_vector_env(game=game, **kwargs)


def _catalog_name(name: str) -> str | None:
    if name in catalog.ENV_IDS:
        return name
    for short, env_id in catalog.ENV_IDS.items():
        if env_id == name:
            return short
    return None


def get_spec(name: str) -> GameSpec:
    """The spec of a registered game, by short name (``"unbroken"``) or env
    id (``"dungeonrl/Unbroken-v0"``); a catalog game is imported on first
    use."""
    if name in _SPECS:
        return _SPECS[name]
    for spec in _SPECS.values():
        if spec.env_id == name:
            return spec
    short = _catalog_name(name)
    if short is not None:
        found = register_module(catalog.package(short))
        if found is not None:
            return found
    known = (
        ", ".join(
            [f"{n} ({i})" for n, i in catalog.ENV_IDS.items()]
            + [f"{s.name} ({s.env_id})" for s in _SPECS.values() if s.name not in catalog.ENV_IDS]
        )
        or "none registered"
    )
    raise UnknownGameError(f"unknown game {name!r}; known games: {known}")


def list_games() -> list[str]:
    """Short names of the registered games, in registration order (the
    catalog's first, imported or not)."""
    return list(catalog.ENV_IDS) + [n for n in _SPECS if n not in catalog.ENV_IDS]


def game_module(name: str) -> str | None:
    """Module that defines a registered game (``None`` if registered by hand
    without one)."""
    spec_name = get_spec(name).name
    return _MODULES.get(spec_name)


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
