"""The table of the suite's games: each game's :class:`GameSpec` by name.

A catalog game (:mod:`dungeonrl.envs.catalog`) is imported the first time
its spec is asked for (:func:`get_spec`); a game made outside the catalog is
recorded with :func:`record`. This module belongs to the environment layer:
the engine looks games up here, and :mod:`dungeonrl.registry` (which also
registers every game's ids with Gymnasium and PettingZoo) builds on it.

Each recorded spec is handed to the functions of :data:`on_record` (the
registry registers the game's Gymnasium id there), so a game loaded by the
engine is as registered as one loaded through the registry.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable

from . import catalog
from .core.errors import UnknownGameError
from .core.spec import GameSpec

__all__ = [
    "get_spec",
    "list_games",
    "game_module",
    "record",
    "load_module",
    "on_record",
    "is_loaded",
    "forget",
]

_SPECS: dict[str, GameSpec] = {}  # name -> spec
_MODULES: dict[str, str] = {}  # name -> module that defines the game
#: called with each newly recorded spec (the registry's Gymnasium registration)
on_record: list[Callable[[GameSpec], None]] = []


def record(spec: GameSpec, module: str | None = None) -> None:
    """Record ``spec`` under ``spec.name``. Recording the same game again is
    a no-op; a different game under a taken name or env id raises
    ``ValueError``."""
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
    for hook in on_record:
        hook(spec)


def _missing(module: str, err: ImportError) -> bool:
    """True if ``err`` says that ``module`` itself does not exist (not that
    something the module imports is missing)."""
    return isinstance(err, ModuleNotFoundError) and err.name == module


def load_module(module: str) -> GameSpec | None:
    """Import a game module and record its ``SPEC``. Returns ``None`` (and
    records nothing) when the module does not exist yet or is a folder
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
    record(spec, module)
    return spec


def _check_declared(spec: GameSpec, module: str) -> None:
    """A catalog game's spec must carry the name and env id its ``GAME``
    declares."""
    game = catalog.ENTRIES.get(spec.name)
    if module != catalog.package(spec.name) or game is None:
        declared = [g for g in catalog.ENTRIES.values() if g.package == module]
        if declared:
            raise ValueError(
                f"{module}: SPEC.name is {spec.name!r} but its declaration "
                f"declares {declared[0].name!r}"
            )
        return
    if spec.env_id != game.env_id:
        raise ValueError(
            f"{module}: SPEC.env_id is {spec.env_id!r} but its declaration declares {game.env_id!r}"
        )


def _catalog_name(name: str) -> str | None:
    if name in catalog.ENV_IDS:
        return name
    for short, env_id in catalog.ENV_IDS.items():
        if env_id == name:
            return short
    return None


def get_spec(name: str) -> GameSpec:
    """The spec of a game, by short name (``"unbroken"``) or env id
    (``"dungeonrl/Unbroken-v0"``); a catalog game is imported on first
    use."""
    if name in _SPECS:
        return _SPECS[name]
    for spec in _SPECS.values():
        if spec.env_id == name:
            return spec
    short = _catalog_name(name)
    if short is not None:
        found = load_module(catalog.package(short))
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
    """Short names of the games, in registration order (the catalog's first,
    imported or not)."""
    return list(catalog.ENV_IDS) + [n for n in _SPECS if n not in catalog.ENV_IDS]


def game_module(name: str) -> str | None:
    """Module that defines a game (``None`` if recorded by hand without one)."""
    return _MODULES.get(get_spec(name).name)


def is_loaded(name: str) -> bool:
    """Whether the game ``name`` has been imported and recorded."""
    return name in _SPECS


def forget(name: str) -> GameSpec | None:
    """Drop a game recorded outside the catalog (test fixtures registered for
    one test); returns its spec, or None if it was not recorded."""
    _MODULES.pop(name, None)
    return _SPECS.pop(name, None)
