"""One place to register a game: every game of ``dungeonrl.envs.catalog``
has each file the conventions of the catalog's table ask for, and each layer
(Gymnasium, PettingZoo, code generator, fuzzers, agents, CLI, conformance
hooks, packaging) finds it from the name alone. A failure names the game and
what it lacks."""
from __future__ import annotations

import importlib
import os

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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))


def test_every_layer_reads_the_catalog():
    assert registry.GAMES == [catalog.package(g) for g in catalog.GAMES]
    assert tuple(codegen.GAME_PACKAGES) == catalog.GAMES
    assert registry.list_games()[:len(catalog.GAMES)] == list(catalog.GAMES)
    from dungeonrl.benchmarks.fuzz import HOOKS as FUZZ
    assert list(FUZZ) == list(catalog.GAMES)
    assert len(set(catalog.GAMES)) == len(catalog.GAMES)


@pytest.mark.parametrize("name", catalog.GAMES)
def test_game_package_follows_the_conventions(name):
    pkg = importlib.import_module(catalog.package(name))
    assert pkg.SPEC.name == name, f"envs/{name}: SPEC.name is {pkg.SPEC.name!r}"
    assert callable(getattr(pkg, "make_core", None) or pkg.SPEC.make_core)
    assert pkg.SPEC.env_id in gymnasium.registry, f"{name}: not registered with Gymnasium"
    consts = importlib.import_module(f"{catalog.package(name)}.consts")
    assert consts.KERNEL_FACTS.game == name
    assert codegen.kernel_path(name).exists(), f"envs/{name}/kernels.py missing"
    content = importlib.import_module(f"{catalog.package(name)}.content")
    assert os.path.isdir(content.DATA_DIR)
    for f in content.FILES:
        assert os.path.exists(os.path.join(content.DATA_DIR, f + ".toml")), (name, f)
    validate = importlib.import_module(f"{catalog.package(name)}.validate")
    assert validate.FUZZ_CONFIGS, f"envs/{name}/validate.py: FUZZ_CONFIGS is empty"
    assert os.path.exists(os.path.join(HERE, f"hooks_{name}.py")), \
        f"tests/hooks_{name}.py (the conformance hooks) is missing"


@pytest.mark.parametrize("name", catalog.GAMES)
def test_multi_seat_games_register_with_pettingzoo(name):
    spec = registry.get_spec(name)
    if spec.max_players < 2:
        pytest.skip("one seat only")
    mod = importlib.import_module(f"dungeonrl.envs.{name}_v{spec.version}")
    for attr in ("env", "raw_env", "parallel_env"):
        assert callable(getattr(mod, attr, None)), f"dungeonrl.envs.{name}_v{spec.version}.{attr}"


@pytest.mark.parametrize("name", catalog.GAMES)
def test_agent_hooks_and_cli_are_found_by_name(name):
    from dungeonrl.agents.games import GENERIC, hooks_for, hooks_target
    hooks = hooks_for(name)
    module = hooks_target(name).partition(":")[0]
    has_module = importlib.util.find_spec(module) is not None
    assert (hooks is not GENERIC) == has_module
    from dungeonrl.cli import find_command
    fn, tried = find_command("play", name)
    assert fn is not None and tried[0] == f"dungeonrl.games.{name}:play"


def test_unknown_agent_hooks_fall_back_to_generic():
    from dungeonrl.agents.games import GENERIC, hooks_for
    assert hooks_for("no_such_game_xyz") is GENERIC


def test_packaging_lists_every_game():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        tool = tomllib.load(f)["tool"]["setuptools"]
    for name in catalog.GAMES:
        assert catalog.package(name) in tool["packages"], \
            f"pyproject.toml [tool.setuptools] packages lacks {catalog.package(name)}"
    data = tool["package-data"]
    assert "data/*.toml" in data.get("*", []), "content files must ship with every game"
    assert dungeonrl.__version__
