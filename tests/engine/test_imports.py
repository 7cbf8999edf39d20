"""The package's import structure: no module-level cycles, layers kept apart.

The graph is built from the source with ``ast`` (nothing is imported), so
the test also sees modules that a given run never loads.  An edge ``a -> b``
means module ``a`` imports module ``b`` when ``a`` itself is executed: an
``import`` or ``from ... import`` statement at module level, including inside
a module-level ``if`` / ``try`` (but not under ``if TYPE_CHECKING:``).
Imports inside functions are deferred: they do not make a module-level
cycle, yet a loop through them is still a loop of the design (two modules
that each need the other), so a second graph follows every import, late
ones included, and must have no cycle either.

Layering rules (issue 9, item 8):

* no import cycle anywhere in the package, module-level or through late
  imports;
* the environment layer (``dungeonrl.envs``, ``dungeonrl.encoders``) imports
  nothing from ``dungeonrl.agents``, ``dungeonrl.benchmarks``,
  ``dungeonrl.cli``, ``dungeonrl.play`` or ``dungeonrl.registry`` (the
  Gymnasium registration; the engine finds games in ``dungeonrl.envs.specs``)
  -- not even inside a function, so
  the engine can be installed and read without the application on top.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Import name -> folder in the checkout (pyproject's [tool.setuptools.package-dir]).
PACKAGE_DIRS = {
    "dungeonrl": "dungeonrl",
    "dungeonrl.envs": "envs",
    "dungeonrl.encoders": "encoders",
    "dungeonrl.agents": "agents",
    "dungeonrl.benchmarks": "benchmarks",
}

ENV_LAYER = ("dungeonrl.envs", "dungeonrl.encoders")
APP_LAYER = (
    "dungeonrl.agents",
    "dungeonrl.benchmarks",
    "dungeonrl.cli",
    "dungeonrl.play",
    "dungeonrl.registry",
)


def discover_modules() -> dict[str, Path]:
    """Every module of the package: dotted name -> source file."""
    mods: dict[str, Path] = {}
    for pkg, folder in PACKAGE_DIRS.items():
        base = ROOT / folder
        for dirpath, dirnames, filenames in os.walk(base):
            here = Path(dirpath)
            rel = here.relative_to(base)
            # A sub-folder of another mapped package is walked under its own name.
            if pkg == "dungeonrl" and rel.parts and f"dungeonrl.{rel.parts[0]}" in PACKAGE_DIRS:
                continue
            if rel.parts and not (here / "__init__.py").exists():
                dirnames[:] = []
                continue
            for name in filenames:
                if not name.endswith(".py"):
                    continue
                parts = [pkg, *rel.parts]
                if name != "__init__.py":
                    parts.append(name[:-3])
                mods[".".join(parts)] = here / name
    return mods


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level_imports(tree: ast.Module):
    """Import statements executed when the module is imported."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                stack.extend(node.body)
            stack.extend(node.orelse)
        elif isinstance(node, ast.Try):
            stack.extend(node.body)
            stack.extend(node.orelse)
            stack.extend(node.finalbody)
            for handler in node.handlers:
                stack.extend(handler.body)
        elif isinstance(node, (ast.With,)):
            stack.extend(node.body)


def _all_imports(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def _targets(node, module: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """Package modules one import statement loads (the named ones, not parents)."""
    out: set[str] = set()
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in mods:
                out.add(alias.name)
        return out
    if node.level:
        pkg = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            pkg = pkg.rpartition(".")[0]
        base = f"{pkg}.{node.module}" if node.module else pkg
    else:
        base = node.module or ""
    if not base.startswith("dungeonrl"):
        return out
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in mods:
            out.add(sub)
        elif base in mods:
            out.add(base)
    return out


def import_graph(module_level: bool = True) -> dict[str, set[str]]:
    mods = discover_modules()
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        nodes = _module_level_imports(tree) if module_level else _all_imports(tree)
        edges: set[str] = set()
        for node in nodes:
            edges |= _targets(node, name, path, mods)
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    comps: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def test_discovers_the_package():
    mods = discover_modules()
    for name in (
        "dungeonrl.cli",
        "dungeonrl.envs.core.spec",
        "dungeonrl.agents.algos.selfplay",
        "dungeonrl.encoders.unbroken",
        "dungeonrl.benchmarks.suite.runner",
        "dungeonrl.play",
    ):
        assert name in mods, name
    graph = import_graph()
    assert "dungeonrl.envs.core.spec" in graph["dungeonrl.envs.core.kernel_core"] or any(
        e.startswith("dungeonrl.envs.core") for e in graph["dungeonrl.envs.core.kernel_core"]
    )


def test_checker_finds_a_cycle():
    # Positive control: the checker must report a planted cycle.
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_relative_imports_resolve(tmp_path):
    mods = {
        "dungeonrl.x": tmp_path / "x" / "__init__.py",
        "dungeonrl.x.a": tmp_path / "x" / "a.py",
        "dungeonrl.x.b": tmp_path / "x" / "b.py",
    }
    node = ast.parse("from . import b\nfrom .b import thing\n").body
    assert _targets(node[0], "dungeonrl.x.a", mods["dungeonrl.x.a"], mods) == {"dungeonrl.x.b"}
    assert _targets(node[1], "dungeonrl.x.a", mods["dungeonrl.x.a"], mods) == {"dungeonrl.x.b"}
    lazy = ast.parse("def f():\n    from dungeonrl.x import b\n")
    assert list(_module_level_imports(lazy)) == []


def test_no_module_level_import_cycle():
    cycles = find_cycles(import_graph())
    assert not cycles, "module-level import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_import_cycle_through_late_imports():
    """Every import statement counted, those inside functions too: a late
    import that closes a loop only hides it from the module-level check."""
    cycles = find_cycles(import_graph(module_level=False))
    assert not cycles, "import cycles (late imports included):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def test_late_import_graph_sees_a_loop_closed_inside_a_function(tmp_path):
    # positive control: a loop closed by an import inside a function is an
    # edge of the full graph, not of the module-level one
    tree = ast.parse("def f():\n    from dungeonrl.x import b\n")
    assert list(_module_level_imports(tree)) == []
    assert [n.module for n in _all_imports(tree)] == ["dungeonrl.x"]


def private_imports(graph: dict[str, set[str]], package: str) -> list[str]:
    """Imports of a private module of ``package`` (a ``_name`` module, or
    one under a ``_name`` folder) from a module outside it."""
    bad = []
    for mod, deps in sorted(graph.items()):
        if mod == package or mod.startswith(package + "."):
            continue
        for dep in sorted(deps):
            if not dep.startswith(package + "."):
                continue
            parts = dep[len(package) + 1 :].split(".")
            if any(p.startswith("_") and not p.startswith("__") for p in parts):
                bad.append(f"{mod} imports {dep}")
    return bad


def test_no_private_engine_module_is_imported_outside_the_engine():
    """The engine's contract is its public modules: nothing outside
    envs/core imports a private one (late imports included)."""
    bad = private_imports(import_graph(module_level=False), "dungeonrl.envs.core")
    assert not bad, "\n".join(bad)


def test_private_imports_are_seen():
    # positive control: a planted import of a private engine module is reported
    graph = {"dungeonrl.agents.x": {"dungeonrl.envs.core._hidden", "dungeonrl.envs.core.batch"}}
    assert private_imports(graph, "dungeonrl.envs.core") == [
        "dungeonrl.agents.x imports dungeonrl.envs.core._hidden"
    ]


@pytest.mark.parametrize("layer", ENV_LAYER)
def test_env_layer_imports_no_application_code(layer):
    graph = import_graph(module_level=False)
    bad = [
        f"{mod} imports {dep}"
        for mod, deps in sorted(graph.items())
        if mod == layer or mod.startswith(layer + ".")
        for dep in sorted(deps)
        if any(dep == app or dep.startswith(app + ".") for app in APP_LAYER)
    ]
    assert not bad, "\n".join(bad)


def _cli_loaded_modules(mods: dict[str, Path]) -> set[str]:
    """Modules the CLI loads by name (its ``DEFAULTS`` table, the suite):
    edges the static graph cannot see."""
    tree = ast.parse(mods["dungeonrl.cli"].read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            target = node.value.partition(":")[0]
            if target in mods and target != "dungeonrl.cli":
                names.add(target)
    return names


def test_commands_the_cli_loads_do_not_import_the_cli():
    """The CLI loads commands by name (``"dungeonrl.agents.commands.train:main"``); a
    command importing the CLI back at module level would be a cycle the
    static graph misses. Shared option helpers live in ``dungeonrl.options``
    and ``dungeonrl.play`` instead."""
    mods = discover_modules()
    loaded = _cli_loaded_modules(mods)
    assert {
        "dungeonrl.agents.commands.train",
        "dungeonrl.demo",
        "dungeonrl.play",
    } <= loaded, sorted(loaded)
    graph = import_graph()
    bad = []
    for start in sorted(loaded):
        seen, stack = {start}, [start]
        while stack:
            for dep in graph.get(stack.pop(), ()):
                if dep == "dungeonrl.cli":
                    bad.append(start)
                elif dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
    assert not bad, f"imported by the CLI by name, yet importing it: {sorted(set(bad))}"


@pytest.mark.parametrize(
    "module", ["dungeonrl.encoders.{}", "dungeonrl.envs.{}.consts", "dungeonrl.envs.{}.state"]
)
def test_a_games_own_modules_import_first(module):
    """A game's encoder, constants or state module imported before anything
    else of the game (a fresh process): no import cycle through the game's
    package, and the package's exports still load on first use."""
    from dungeonrl.envs import catalog

    code = "; ".join(
        f"import importlib; importlib.import_module({module.format(g)!r}); "
        f"import dungeonrl.envs.{g} as m; assert m.SPEC.name == {g!r}"
        for g in catalog.GAMES
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]


# --- layers of the installed package ----------------------------------------------
#: the package's layers, lowest first: a module may import its own layer and
#: the ones below it, never one above (late imports included). The engine's
#: game table and catalog (``envs/specs.py``, ``envs/catalog.py``) are the
#: engine's, though they sit at ``envs/``'s root. A game is one layer with
#: all its places: ``envs/<game>/``, ``envs/<game>_vN.py`` and its encoder
#: ``encoders/<game>.py`` (the encoder reads the game's constants and rules,
#: and the game's composition compiles the encoder into its step, as pgx's
#: games carry their ``observe``); the games are siblings, none imports
#: another (:func:`test_no_game_imports_another`). The package root's small
#: modules (its ``__init__``, the version, the Gymnasium registry, the
#: machine record) sit below the agents, the commands and the web app above
#: the benchmarks.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine", ("dungeonrl.envs.core", "dungeonrl.envs.catalog", "dungeonrl.envs.specs")),
    ("games", ("dungeonrl.envs", "dungeonrl.encoders")),
    ("root", ("dungeonrl", "dungeonrl.version", "dungeonrl.registry", "dungeonrl.machine")),
    ("agents", ("dungeonrl.agents",)),
    ("benchmarks", ("dungeonrl.benchmarks",)),
    ("app", ("dungeonrl.",)),  # every other module: cli, demo, play, web, precompile
)


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of a module's layer: the longest name
    that is the module or a package above it wins (``"dungeonrl"`` itself
    names only the root's ``__init__``; ``"dungeonrl."`` takes what no
    other layer names)."""
    best, best_len = len(LAYERS) - 1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            inside = p not in ("dungeonrl", "dungeonrl.") and module.startswith(p + ".")
            if (module == p or inside) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def game_of(module: str) -> str | None:
    """The game whose places hold ``module`` (``envs/<game>/``,
    ``envs/<game>_vN.py``, ``encoders/<game>.py``), else ``None``."""
    if LAYERS[layer_of(module)][0] != "games":
        return None
    parts = module.split(".")
    if len(parts) < 3:
        return None  # the ``envs`` and ``encoders`` packages themselves
    name = parts[2]
    if parts[1] == "envs":
        stem, _, version = name.rpartition("_v")
        name = stem if stem and version.isdigit() else name
    return name


def arrows_up(graph: dict[str, set[str]]) -> list[str]:
    """Every import (late ones included) of a module in a higher layer."""
    return sorted(
        f"{a} -> {b}" for a, deps in graph.items() for b in deps if layer_of(b) > layer_of(a)
    )


def test_layers_are_assigned_as_documented():
    assert LAYERS[layer_of("dungeonrl.envs.core.batch")][0] == "engine"
    assert LAYERS[layer_of("dungeonrl.envs.catalog")][0] == "engine"
    assert LAYERS[layer_of("dungeonrl.envs.unbroken.rules")][0] == "games"
    assert LAYERS[layer_of("dungeonrl.envs.dungeon_kart_v1")][0] == "games"
    assert LAYERS[layer_of("dungeonrl.encoders.unbroken")][0] == "games"
    assert LAYERS[layer_of("dungeonrl")][0] == "root"
    assert LAYERS[layer_of("dungeonrl.registry")][0] == "root"
    assert LAYERS[layer_of("dungeonrl.agents.algos.search")][0] == "agents"
    assert LAYERS[layer_of("dungeonrl.benchmarks.suite.cli")][0] == "benchmarks"
    for app in ("dungeonrl.cli", "dungeonrl.demo", "dungeonrl.web.app", "dungeonrl.precompile"):
        assert LAYERS[layer_of(app)][0] == "app", app
    assert game_of("dungeonrl.envs.dungeon_kart_v1") == "dungeon_kart"
    assert game_of("dungeonrl.envs.dungeon_kart.rules") == "dungeon_kart"
    assert game_of("dungeonrl.encoders.dungeon_kart") == "dungeon_kart"
    assert game_of("dungeonrl.envs.core.batch") is None
    assert game_of("dungeonrl.envs") is None


def test_no_import_runs_back_up_a_layer():
    """Every import, late ones included, points down or sideways: no module
    imports one of a higher layer (:data:`LAYERS`)."""
    found = arrows_up(import_graph(module_level=False))
    assert found == [], "imports back up a layer:\n" + "\n".join(found)


def cross_game_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import from one game's places into another game's."""
    return sorted(
        f"{a} -> {b}"
        for a, deps in graph.items()
        for b in deps
        if game_of(a) is not None and game_of(b) is not None and game_of(a) != game_of(b)
    )


def test_no_game_imports_another():
    """The games are siblings: a game's modules (its encoder included)
    import the engine and their own game, never another game, so a game can
    be added, changed or left out alone."""
    found = cross_game_imports(import_graph(module_level=False))
    assert found == [], "a game imports another:\n" + "\n".join(found)


def test_a_cross_game_import_is_reported():
    # positive control: another game's encoder or rules is found; the game's
    # own encoder, its versioned module and the engine are not
    graph = {
        "dungeonrl.envs.unbroken.core": {
            "dungeonrl.encoders.unbroken",
            "dungeonrl.envs.core.batch",
            "dungeonrl.encoders.dungeon_kart",
        },
        "dungeonrl.envs.unbroken_v1": {"dungeonrl.envs.unbroken.core"},
        "dungeonrl.encoders.dungeon_crawler": {"dungeonrl.envs.dcc_unstoppable.rules"},
    }
    assert cross_game_imports(graph) == [
        "dungeonrl.encoders.dungeon_crawler -> dungeonrl.envs.dcc_unstoppable.rules",
        "dungeonrl.envs.unbroken.core -> dungeonrl.encoders.dungeon_kart",
    ]


def test_an_arrow_back_up_is_reported():
    # positive control: planted imports back up are found, sideways ones are not
    graph = {
        "dungeonrl.envs.core.batch": {"dungeonrl.agents.algos.ppo", "dungeonrl.envs.core.spec"},
        "dungeonrl.registry": {"dungeonrl.agents.selfplay_env"},
        "dungeonrl.agents.zoo": {"dungeonrl.machine", "dungeonrl.benchmarks.suite"},
        "dungeonrl.cli": {"dungeonrl.benchmarks.suite"},
    }
    assert arrows_up(graph) == [
        "dungeonrl.agents.zoo -> dungeonrl.benchmarks.suite",
        "dungeonrl.envs.core.batch -> dungeonrl.agents.algos.ppo",
        "dungeonrl.registry -> dungeonrl.agents.selfplay_env",
    ]


def test_no_loop_between_the_packages():
    """Reachability between the package's parts (a game with its encoder,
    the engine, agents, benchmarks...; late imports included): no two reach
    each other."""

    def unit(m: str) -> str:
        parts = m.split(".")
        if LAYERS[layer_of(m)][0] == "engine":
            return "dungeonrl.envs.core"
        game = game_of(m)
        if game is not None:
            return f"game {game}"
        if len(parts) >= 3 and parts[1] in ("benchmarks", "agents"):
            return ".".join(parts[:2])
        return m if len(parts) < 2 else ".".join(parts[:2])

    graph: dict[str, set[str]] = {}
    for a, deps in import_graph(module_level=False).items():
        for b in deps:
            if unit(a) != unit(b):
                graph.setdefault(unit(a), set()).add(unit(b))
    loops = find_cycles(graph)
    assert not loops, "packages that reach each other:\n" + "\n".join(
        " <-> ".join(c) for c in loops
    )
