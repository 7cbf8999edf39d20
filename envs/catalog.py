"""The games of the suite, found by discovery: each game declares itself once.

A game is a package ``dungeonrl.envs.<name>`` whose ``game.toml`` declares
it as data (:func:`read_declaration`; a :class:`GameEntry`): its short name,
environment id (and so its version), its place in the suite's order, where
its optional companions live, named by dotted strings (so the engine never
imports them), its kernel facts (the ``[kernel]`` table, read by the
code generator: :func:`dungeonrl.envs.core.kernel.facts.declared_facts`)
and the plain facts of its spec (``[spec]``, read by
:func:`dungeonrl.envs.core.spec.game_spec`).
A package may declare itself in Python instead, ``GAME = GameEntry(...)``
in a ``game.py`` (a game written in one module, a test's drop-in). Every
layer reads this catalog, which finds the games by scanning the folders of
``dungeonrl.envs`` for such packages:

==============================================  ========================================
what                                            where (``<name>`` = the game's short name)
==============================================  ========================================
short name, env id, version, order; the spec's  ``envs/<name>/game.toml`` (``[spec]``: the
plain facts (cap, rewards, players, utility)    spec's facts, :mod:`dungeonrl.envs.core.spec`)
spec and core factory (Gymnasium registration,  ``dungeonrl.envs.<name>``: ``SPEC``,
the self-play view of a multi-seat game)        ``make_core`` (:mod:`dungeonrl.registry`)
PettingZoo registration (multi-seat games)      ``GAME.pettingzoo`` (a module with ``env``,
                                                ``raw_env``, ``parallel_env``; found as
                                                ``envs/<name>_v<version>.py``)
kernel facts, generated kernels                 ``[kernel]`` of ``envs/<name>/game.toml``,
                                                ``envs/<name>/kernels.py``
                                                (:mod:`dungeonrl.envs.core.kernel.codegen`)
content (fuzzers, hardening tests)              ``envs/<name>/content.py`` ``DATA_DIR``, ``FILES``
outside-input rules and fuzzed configurations   ``envs/<name>/validate.py`` (``FUZZ_CONFIGS``)
agent hooks (train / eval; optional)            ``GAME.agent_hooks`` (found as ``HOOKS`` in
                                                ``envs/<name>/hooks.py``; else generic hooks)
CLI companions (play / bench; optional)         ``GAME.cli`` (default: the suite's commands)
conformance-suite hooks                         ``tests/helpers/hooks_<name>.py``, or
                                                ``GAME.test_hooks``
information-state sampler (search, best         ``GAME.infostate`` (found as ``resample_rows``
responses; optional)                            in ``envs/<name>/infostate.py``;
                                                :mod:`dungeonrl.envs.core.infostate`)
packaging                                       automatic (``setup.py`` finds packages;
                                                ``game.toml`` ships as package data)
==============================================  ========================================

Games outside the source tree join the same way: every folder of the
environment variable ``DUNGEONRL_GAMES_PATH`` (``os.pathsep``-separated,
read when ``dungeonrl.envs`` is first imported) is a further folder of
``dungeonrl.envs``, so a game package dropped there is
``dungeonrl.envs.<name>`` like the others.

``tests/engine/test_catalog.py`` checks every row for every game and names what a
game still lacks. The registry, the code generator, the fuzzers, the agent
hooks, the CLI, the benchmark suite and the conformance suite all iterate
over :data:`GAMES`.

This module imports only the standard library (and ``tomli`` before Python
3.11) and each game's package ``__init__`` (which exports lazily: see
:mod:`dungeonrl.envs.core.lazy`), so every layer, the code generator
included, can read it, and ``import dungeonrl`` stays cheap.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "GameEntry",
    "GAMES",
    "ENV_IDS",
    "ENTRIES",
    "entry",
    "package",
    "version",
    "pettingzoo_module",
    "discover",
    "conventional_companions",
    "read_declaration",
    "DECLARATION",
    "GAMES_PATH_VAR",
]

#: environment variable naming extra folders of game packages
GAMES_PATH_VAR = "DUNGEONRL_GAMES_PATH"


@dataclass(frozen=True)
class GameEntry:
    """A game's declaration (``envs/<name>/game.toml``, :func:`read_declaration`;
    or ``GAME`` in ``envs/<name>/game.py``).

    ``name``: the short name, also the package's folder name; ``env_id``:
    the environment id, ending in ``-v<version>``; ``order``: the game's
    place in every list of games (lower first, then by name).
    Optional companions, by dotted name (``None``: the default):
    ``pettingzoo``, the module exporting ``env`` / ``raw_env`` /
    ``parallel_env`` (multi-seat games); ``agent_hooks``, the
    ``"module:attribute"`` of the game's
    :class:`~dungeonrl.envs.core.hooks.GameHooks` (default: generic hooks);
    ``cli``, the module of its command-line companions (``play(args)``,
    ``bench(args)``... with their ``*_options``; default: the suite's
    commands); ``test_hooks``, the ``"module:attribute"`` of its
    conformance hooks when they are not ``tests/helpers/hooks_<name>.py``;
    ``infostate``, the ``"module:function"`` that resamples what a seat
    cannot see (:mod:`dungeonrl.envs.core.infostate`; ``None``: the core's
    ``resample_from_infostate`` raises ``NotImplementedError``). Left
    ``None``, ``pettingzoo``, ``agent_hooks`` and ``infostate`` are filled
    in from the files at their conventional places
    (:func:`conventional_companions`), so a game names only what lies
    elsewhere.
    ``compile_seconds``: ``(part, seconds)`` pairs, about how long each
    part of ``python -m dungeonrl.precompile`` takes for this game from an
    empty numba cache (``envs``, ``agents``): used only to start the longest
    work first (a stale or missing figure costs wall time, never a kernel).
    ``cold_start_seconds``: the game's first ``gym.make`` + ``reset`` +
    ``step`` from an empty numba cache on the reference machine, rounded (the
    ``cold`` figure of ``benchmarks/results/cold_start.json``; a test keeps
    the two equal), which the compile notice gives
    (:mod:`~dungeonrl.envs.core.kernel.compile_notice`). ``aliases``: other
    short names the game goes by in file names (``kart`` in
    ``tests/test_kart_*.py``), which the house table's globs take as the
    game's (``benchmarks/house.py``). ``kernel``: ``(fact, value)`` pairs,
    the facts of :class:`~dungeonrl.envs.core.kernel.facts.KernelFacts` the
    game states (the ``[kernel]`` table of ``game.toml``; a string value of
    a number names a constant of the game's ``consts``, e.g.
    ``max_seats = "MAX_P"``), read by
    :func:`~dungeonrl.envs.core.kernel.facts.declared_facts`. ``spec``:
    the same for the facts of its
    :class:`~dungeonrl.envs.core.spec.GameSpec` that are plain values (the
    ``[spec]`` table: episode cap, reward range, players, utility...),
    read by :func:`~dungeonrl.envs.core.spec.game_spec`.
    """

    name: str
    env_id: str
    order: int = 1000
    pettingzoo: str | None = None
    agent_hooks: str | None = None
    cli: str | None = None
    test_hooks: str | None = None
    infostate: str | None = None
    compile_seconds: tuple[tuple[str, float], ...] = ()
    cold_start_seconds: int | None = None
    aliases: tuple[str, ...] = ()
    kernel: tuple[tuple[str, Any], ...] = ()
    spec: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ValueError(f"game name {self.name!r} is not an identifier")
        head, sep, tail = self.env_id.rpartition("-v")
        if not (head and sep and tail.isdigit()):
            raise ValueError(f"env id {self.env_id!r} does not end in -v<version>")
        for field, target in conventional_companions(self.name, self.version).items():
            if getattr(self, field) is None:
                object.__setattr__(self, field, target)

    @property
    def version(self) -> int:
        """The version number of the environment id (``...-v0`` -> 0)."""
        return int(self.env_id.rpartition("-v")[2])

    @property
    def package(self) -> str:
        """The import name of the game's package."""
        return f"{_ENVS}.{self.name}"


_ENVS = __name__.rpartition(".")[0]  # "dungeonrl.envs"

#: the companions a game need not name: field -> (file in the game's
#: folder, or ``{module}`` beside it, and the dotted target it stands for)
CONVENTIONS = {
    "pettingzoo": ("../{name}_v{version}.py", "{envs}.{name}_v{version}"),
    "agent_hooks": ("hooks.py", "{envs}.{name}.hooks:HOOKS"),
    "infostate": ("infostate.py", "{envs}.{name}.infostate:resample_rows"),
}


def conventional_companions(name: str, version: int) -> dict[str, str]:
    """The companions of the game ``name`` found at their conventional
    places (:data:`CONVENTIONS`): its PettingZoo module
    ``envs/<name>_v<version>.py``, its agent hooks ``HOOKS`` in
    ``envs/<name>/hooks.py``, its information-state sampler
    ``resample_rows`` in ``envs/<name>/infostate.py``. A declaration that
    leaves one of them ``None`` gets it from here, so a game names only
    what lies elsewhere. Read from the game package's folder while its
    declaration is read (empty for a name whose package is not imported)."""
    pkg = sys.modules.get(f"{_ENVS}.{name}")
    folders = list(getattr(pkg, "__path__", ()))
    if not folders:
        return {}
    found = {}
    for field, (where, target) in CONVENTIONS.items():
        path = os.path.join(folders[0], where.format(name=name, version=version))
        if os.path.isfile(os.path.normpath(path)):
            found[field] = target.format(envs=_ENVS, name=name, version=version)
    return found


def _folders() -> list[str]:
    """The folders of ``dungeonrl.envs`` (the source tree's and any of
    :data:`GAMES_PATH_VAR`)."""
    pkg = sys.modules.get(_ENVS) or importlib.import_module(_ENVS)
    return list(pkg.__path__)


#: the file a game package declares itself in (as data)
DECLARATION = "game.toml"


def read_declaration(path: str) -> GameEntry:
    """The :class:`GameEntry` a ``game.toml`` declares: its keys are the
    entry's fields, a table (``compile_seconds``, ``kernel``) stands for its
    ``(key, value)`` pairs and a list for a tuple. A key that is no field,
    or a bad value, raises naming the file."""
    with open(path, "rb") as f:
        try:
            table = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"{path}: {e}") from None
    try:
        return GameEntry(**{k: _frozen(v) for k, v in table.items()})
    except TypeError as e:
        raise TypeError(f"{path}: {e}") from None


def _frozen(value):
    """A TOML value as a field holds it: tables as ``(key, value)`` pairs,
    lists as tuples (so a declaration stays hashable)."""
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _declared(sub: str, name: str) -> GameEntry | None:
    """The declaration of the package in folder ``sub`` (``None``: not a
    game): its ``game.toml``, else ``GAME`` of its ``game.py``."""
    toml, py = os.path.join(sub, DECLARATION), os.path.join(sub, "game.py")
    if not os.path.isfile(os.path.join(sub, "__init__.py")):
        return None
    if os.path.isfile(toml):
        if os.path.isfile(py):
            raise ValueError(f"{sub} declares its game twice ({DECLARATION} and game.py)")
        importlib.import_module(f"{_ENVS}.{name}")  # conventional_companions reads its folder
        return read_declaration(toml)
    if not os.path.isfile(py):
        return None
    game = getattr(importlib.import_module(f"{_ENVS}.{name}.game"), "GAME", None)
    if not isinstance(game, GameEntry):
        raise TypeError(f"{sub}/game.py must define GAME = GameEntry(...)")
    return game


def discover() -> dict[str, GameEntry]:
    """Every game package's declaration, by short name, in the suite's
    order: each sub-folder of a folder of ``dungeonrl.envs`` holding
    ``__init__.py`` and ``game.toml`` (or a ``game.py`` with ``GAME``). A
    ``game.py`` without a ``GAME`` entry, a declaration whose name is not
    its folder's, or a package with both files raises; two folders
    declaring one name or one env id raise too."""
    found: dict[str, GameEntry] = {}
    for folder in _folders():
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            sub = os.path.join(folder, name)
            if name in found or not name.isidentifier() or name.startswith("_"):
                continue
            game = _declared(sub, name)
            if game is None:
                continue
            if game.name != name:
                raise ValueError(
                    f"{sub}: the declaration names the game {game.name!r}, "
                    f"not {name!r} (the folder's name)"
                )
            found[name] = game
    ids: dict[str, str] = {}
    for game in found.values():
        if game.env_id in ids:
            raise ValueError(
                f"env id {game.env_id!r} is declared by both {ids[game.env_id]!r} and {game.name!r}"
            )
        ids[game.env_id] = game.name
    return {g.name: g for g in sorted(found.values(), key=lambda g: (g.order, g.name))}


#: short name -> declaration of each game, in the suite's order
ENTRIES: dict[str, GameEntry] = discover()


def default_game(multi_seat: bool = False) -> str:
    """The game a command plays when none is named: the first in the
    suite's order (the lowest ``order``); with ``multi_seat``, the first
    whose declaration names a PettingZoo module (a game of several seats)."""
    for name, game in ENTRIES.items():
        if not multi_seat or game.pettingzoo is not None:
            return name
    what = "multi-seat game" if multi_seat else "game"
    raise LookupError(f"no {what} is installed under dungeonrl.envs")


#: short name -> environment id of each game, in registration order.
#: ``import dungeonrl`` registers these ids with Gymnasium (and, for a game
#: with a PettingZoo module, with PettingZoo) without importing the games: a
#: game's package is imported when one of its envs is first made or its spec
#: is first asked for.
ENV_IDS: dict[str, str] = {name: g.env_id for name, g in ENTRIES.items()}

#: short names of the games of the suite, in registration order
GAMES: tuple[str, ...] = tuple(ENV_IDS)


def entry(name: str) -> GameEntry:
    """The declaration of a game of the catalog (``KeyError`` otherwise)."""
    return ENTRIES[name]


def package(name: str) -> str:
    """The import name of a game's package."""
    return f"{_ENVS}.{name}"


def version(name: str) -> int:
    """The version number of a game's environment id (``...-v0`` -> 0)."""
    return ENTRIES[name].version


def pettingzoo_module(name: str) -> str | None:
    """The import name of a game's PettingZoo module (``None`` for a game
    that declares none: a one-seat-only game)."""
    return ENTRIES[name].pettingzoo
