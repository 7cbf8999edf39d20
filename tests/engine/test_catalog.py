"""One place to declare a game: every game package's ``game.toml`` is
discovered by ``dungeonrl.envs.catalog``, has each file the catalog's
table asks for, and each layer (Gymnasium, PettingZoo, code generator,
fuzzers, agents, CLI, conformance hooks, packaging) finds it from the
declaration alone. A failure names the game and what it lacks."""

from __future__ import annotations

import dataclasses
import importlib
import os
from pathlib import Path

import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib

import gymnasium

import dungeonrl
from dungeonrl import registry
from dungeonrl.envs import catalog
from dungeonrl.envs.core.kernel import codegen

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(HERE)


def test_every_layer_reads_the_catalog():
    assert catalog.GAMES == tuple(catalog.discover())
    assert list(catalog.ENV_IDS.values()) == [catalog.entry(g).env_id for g in catalog.GAMES]
    assert registry.GAMES == [catalog.package(g) for g in catalog.GAMES]
    assert tuple(codegen.GAME_PACKAGES) == catalog.GAMES
    assert registry.list_games()[: len(catalog.GAMES)] == list(catalog.GAMES)
    from dungeonrl.benchmarks.fuzz import HOOKS as FUZZ

    assert list(FUZZ) == list(catalog.GAMES)
    assert len(set(catalog.GAMES)) == len(catalog.GAMES)


@pytest.mark.parametrize("name", catalog.GAMES)
def test_game_package_follows_the_conventions(name):
    game = catalog.entry(name)
    path = os.path.join(ROOT, "envs", name, catalog.DECLARATION)
    assert catalog.read_declaration(path) == game and game.package == catalog.package(name)
    pkg = importlib.import_module(catalog.package(name))
    assert pkg.SPEC.name == name, f"envs/{name}: SPEC.name is {pkg.SPEC.name!r}"
    assert (pkg.SPEC.env_id, pkg.SPEC.version) == (game.env_id, game.version), (
        f"envs/{name}: the spec's env id differs from game.toml's"
    )
    assert callable(getattr(pkg, "make_core", None) or pkg.SPEC.make_core)
    assert pkg.SPEC.env_id in gymnasium.registry, f"{name}: not registered with Gymnasium"
    assert codegen.facts_of(name).game == name
    assert codegen.kernel_path(name) == Path(pkg.__file__).parent / "kernels.py"
    assert codegen.module_name(name) == f"{catalog.package(name)}.kernels"
    content = importlib.import_module(f"{catalog.package(name)}.content")
    assert os.path.isdir(content.DATA_DIR)
    for f in content.FILES:
        assert os.path.exists(os.path.join(content.DATA_DIR, f + ".toml")), (name, f)
    validate = importlib.import_module(f"{catalog.package(name)}.validate")
    assert validate.FUZZ_CONFIGS, f"envs/{name}/validate.py: FUZZ_CONFIGS is empty"
    assert os.path.exists(os.path.join(HERE, "helpers", f"hooks_{name}.py")), (
        f"tests/helpers/hooks_{name}.py (the conformance hooks) is missing"
    )


@pytest.mark.parametrize("name", catalog.GAMES)
def test_multi_seat_games_register_with_pettingzoo(name):
    spec = registry.get_spec(name)
    module = catalog.pettingzoo_module(name)
    if spec.max_players < 2:
        assert module is None, f"envs/{name}/game.toml: a one-seat game declares {module}"
        pytest.skip("one seat only")
    assert module is not None, f"envs/{name}/game.toml: pettingzoo is not declared"
    mod = importlib.import_module(module)
    for attr in ("env", "raw_env", "parallel_env"):
        assert callable(getattr(mod, attr, None)), f"{module}.{attr}"
    import pettingzoo

    assert spec.env_id in pettingzoo.aec_registry
    assert registry.aec_factory(name) is mod.env


@pytest.mark.parametrize("name", catalog.GAMES)
def test_agent_hooks_and_cli_are_found_from_the_declaration(name):
    from dungeonrl.envs.core.hooks import GENERIC, hooks_for, hooks_target

    game = catalog.entry(name)
    assert hooks_target(name) == game.agent_hooks
    hooks = hooks_for(name)
    if game.agent_hooks is None:
        assert hooks is GENERIC
    else:
        module, _, attr = game.agent_hooks.partition(":")
        assert hooks is getattr(importlib.import_module(module), attr)
    from dungeonrl.cli import find_command

    fn, tried = find_command("play", name)
    if game.cli is None:  # the suite's own command, written once for every game
        from dungeonrl.play import play

        assert fn is play and tried == ["dungeonrl.play:play"]
    else:
        assert fn is not None and tried[0] == f"{game.cli}:play"


def test_unknown_agent_hooks_fall_back_to_generic():
    from dungeonrl.envs.core.hooks import GENERIC, hooks_for

    assert hooks_for("no_such_game_xyz") is GENERIC


def test_packaging_finds_every_game():
    import runpy

    packages = runpy.run_path(os.path.join(ROOT, "setup.py"), run_name="setup_probe")["packages"]()
    for name in catalog.GAMES:
        assert catalog.package(name) in packages, f"setup.py does not find {catalog.package(name)}"
    # every folder with an __init__.py under a mapped folder ships, under its import name
    assert {
        "dungeonrl",
        "dungeonrl.envs",
        "dungeonrl.envs.core",
        "dungeonrl.encoders",
        "dungeonrl.agents",
        "dungeonrl.agents.algos",
        "dungeonrl.agents.commands",
        "dungeonrl.benchmarks",
        "dungeonrl.benchmarks.suite",
    } <= set(packages)
    assert all(p.startswith("dungeonrl") for p in packages)
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        tool = tomllib.load(f)["tool"]["setuptools"]
    data = tool["package-data"]
    assert "data/*.toml" in data.get("*", []), "content files must ship with every game"
    assert catalog.DECLARATION in data.get("*", []), "every game's declaration must ship"
    assert dungeonrl.__version__


def test_the_default_game_is_the_first_in_the_suites_order():
    from dungeonrl.agents.algos.ppo import PPOConfig
    from dungeonrl.agents.algos.sb3 import SB3Config
    from dungeonrl.agents.commands.train import build_parser
    from dungeonrl.envs import catalog

    first = min(catalog.ENTRIES.values(), key=lambda g: (g.order, g.name)).name
    assert catalog.default_game() == first
    # the commands' defaults come from the catalog, not from a name in their code
    assert PPOConfig().env == SB3Config().env == first
    assert build_parser().prog == f"dungeonrl train {first}"


def test_a_bad_kernel_fact_names_the_game():
    """A ``[kernel]`` key that is no fact, or a constant name that the game's
    consts lack, raises naming the game and the key."""
    from dungeonrl.envs.core.kernel.facts import declared_facts

    base = catalog.entry("unbroken")
    bogus = dataclasses.replace(base, kernel=base.kernel + (("bogus_fact", 1),))
    with pytest.raises(TypeError, match="unbroken.*bogus_fact"):
        declared_facts(bogus)
    typo = dataclasses.replace(base, kernel=base.kernel + (("max_seats", "NO_SUCH_CONST"),))
    with pytest.raises(ValueError, match="unbroken: max_seats = 'NO_SUCH_CONST'"):
        declared_facts(typo)
    assert declared_facts(base) == codegen.facts_of("unbroken")


def test_a_bad_spec_fact_names_the_game():
    """A ``[spec]`` key that is no GameSpec field raises naming the game and the key."""
    from dungeonrl.envs.core.spec import game_spec
    from dungeonrl.envs.unbroken.content import load_content

    base = catalog.entry("unbroken")
    bogus = dataclasses.replace(base, spec=base.spec + (("bogus_spec_fact", 1),))
    with pytest.raises(TypeError, match="unbroken: its spec facts.*bogus_spec_fact"):
        game_spec(bogus, load_content(), ())
    assert game_spec(base, load_content(), ()).name == "unbroken"
