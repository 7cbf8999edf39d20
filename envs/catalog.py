"""The games of the suite: the one list a new game joins.

A game is the package ``dungeonrl.envs.<name>`` for each ``<name>`` of
:data:`GAMES`. Everything else is found from that name, by convention, so
adding a game is one line here plus its own files:

==============================================  ========================================
what                                            where (``<name>`` = the game's short name)
==============================================  ========================================
spec and core factory (Gymnasium registration,  ``dungeonrl.envs.<name>``: ``SPEC``,
the self-play view of a multi-seat game)        ``make_core`` (:mod:`dungeonrl.registry`)
kernel facts, generated kernels                 ``envs/<name>/consts.py`` ``KERNEL_FACTS``,
                                                ``envs/<name>/kernels.py``
                                                (:mod:`dungeonrl.envs.core.codegen`)
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

#: short names of the games of the suite, in registration order
GAMES: tuple[str, ...] = ("unbroken", "dungeon_crawler", "dungeon_kart", "dcc_unstoppable")


def package(name: str) -> str:
    """The import name of a game's package."""
    return f"dungeonrl.envs.{name}"
