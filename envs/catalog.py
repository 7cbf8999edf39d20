"""The games of the suite: the one list a new game joins.

A game is the package ``dungeonrl.envs.<name>`` for each ``<name>`` of
:data:`ENV_IDS` (its short name and environment id). Everything else is
found from that name, by convention, so adding a game is one line here plus
its own files:

==============================================  ========================================
what                                            where (``<name>`` = the game's short name)
==============================================  ========================================
spec and core factory (Gymnasium registration,  ``dungeonrl.envs.<name>``: ``SPEC``,
the self-play view of a multi-seat game)        ``make_core`` (:mod:`dungeonrl.registry`)
kernel facts, generated kernels                 ``envs/<name>/consts.py`` ``KERNEL_FACTS``,
                                                ``envs/<name>/kernels.py``
                                                (:mod:`dungeonrl.envs.core.kernel.codegen`)
PettingZoo registration (multi-seat games)      ``dungeonrl.envs.<name>_v<version>``
content (fuzzers, hardening tests)              ``envs/<name>/content.py`` ``DATA_DIR``, ``FILES``
outside-input rules and fuzzed configurations   ``envs/<name>/validate.py`` (``FUZZ_CONFIGS``)
agent hooks (train / eval; optional)            ``dungeonrl.agents.<name>_hooks:HOOKS``
CLI companions (play / bench; optional)         ``dungeonrl.games.<name>``
conformance-suite hooks                         ``tests/hooks_<name>.py`` ``HOOKS``
packaging                                       ``pyproject.toml`` ``[tool.setuptools] packages``
==============================================  ========================================

``tests/test_catalog.py`` checks every row for every game and names what a
new game still lacks. The benchmark suite (``dungeonrl bench``) and the
conformance suite iterate over the registered games and need nothing more.

This module imports nothing, so every layer (the code generator included)
can read it.
"""

#: short name -> environment id of each game of the suite, in registration
#: order. ``import dungeonrl`` registers these ids with Gymnasium (and, for a
#: game with a ``dungeonrl.envs.<name>_v<N>`` module, with PettingZoo)
#: without importing the games: a game's package is imported when one of its
#: envs is first made or its spec is first asked for.
ENV_IDS: dict[str, str] = {
    "unbroken": "dungeonrl/Unbroken-v0",
    "dungeon_crawler": "dungeonrl/DungeonCrawler-v0",
    "dungeon_kart": "dungeonrl/DungeonKart-v1",
    "dcc_unstoppable": "dungeonrl/DCCUnstoppable-v1",
}

#: short names of the games of the suite, in registration order
GAMES: tuple[str, ...] = tuple(ENV_IDS)


def package(name: str) -> str:
    """The import name of a game's package."""
    return f"dungeonrl.envs.{name}"


def version(name: str) -> int:
    """The version number of a game's environment id (``...-v0`` -> 0)."""
    return int(ENV_IDS[name].rpartition("-v")[2])


def pettingzoo_module(name: str) -> str:
    """The import name of a game's PettingZoo module (it may not exist: a
    one-seat-only game has none)."""
    return f"dungeonrl.envs.{name}_v{version(name)}"
