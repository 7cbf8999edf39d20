"""Shared helpers of the test suite (no tests here: pytest collects none of
these modules). ``pyproject.toml`` puts ``tests/`` on pytest's
``pythonpath``, so a test imports them as ``from helpers import game_hooks``
or ``from helpers.kart_util import new_state``; a subprocess puts ``tests/``
on ``sys.path`` first.

=============================  ==================================================
module                         what it holds
=============================  ==================================================
``agent_examples``             user-written agents (refs ``helpers.agent_examples:NAME``)
``conformance_common``         the conformance suite's set-up: games, configs, sampled states
``dcc_encoder_reference``      the DCC: Unstoppable encoder before its speed work (identity check)
``fixture_game``               test-only game "Race to 10", one file (envs/README.md's example)
``fixture_kernels``            its kernels, GENERATED on first use (not checked in)
``fixture_team``               test-only four-seat team game "Relay"
``fixture_team_infostate``     Relay's information-state sampler
``fixture_team_kernels``       Relay's kernels, GENERATED on first use (not checked in)
``fuzz_profiles``              the Hypothesis profiles of the fuzz layer (``ci``, ``long``)
``game_hooks``                 ``GameHooks``, the per-game hooks of the conformance suite
``golden_record``              golden trajectories (``python -m tests.helpers.golden_record``)
``hooks_dcc_unstoppable``      conformance hooks of Dungeon Crawler Carl: Unstoppable
``hooks_dungeon_crawler``      conformance hooks of Dungeon Crawler
``hooks_dungeon_kart``         conformance hooks of Dungeon Kart
``hooks_fixture_team``         conformance hooks of the team fixture Relay
``hooks_unbroken``             conformance hooks of Unbroken
``kart_encoder_ref``           the Dungeon Kart encoder before its hex table (identity check)
``kart_util``                  Dungeon Kart rule-scenario helpers and invariant checker
``unbroken_util``              Unbroken rule-scenario helpers (build, force dice, act by name)
=============================  ==================================================

A game joins the conformance suite with its own ``hooks_<game>.py`` here
(found by ``game_hooks``); the fixtures' kernel modules are written on first
use (``load_kernels``), or ahead by ``python -m dungeonrl.envs.core.kernel.codegen``.
"""
