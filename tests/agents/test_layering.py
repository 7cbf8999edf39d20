"""The agents layer sits below the command line and holds no import circle.

Read from the source with ``ast`` (nothing is imported):

* no module of ``dungeonrl.agents`` imports ``dungeonrl.cli``,
  ``dungeonrl.options`` or ``dungeonrl.play`` (the
  command line and the per-game companions sit above the agents and load
  them, never the reverse), at module level or inside a function;
* the module-level import graph of ``dungeonrl.agents`` is acyclic;
* an import inside a function names an optional heavy dependency (torch,
  Stable-Baselines3, Ray...), an agents module that needs one at module
  level, or one of the few deliberate lazy loads of :data:`LAZY_OK`; every
  other project module is imported at module level, so the module-level
  graph is the whole dependency graph of the layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "agents"
PKG = "dungeonrl.agents"

#: the layers above the agents
ABOVE = (
    "dungeonrl.cli",
    "dungeonrl.demo",
    "dungeonrl.options",
    "dungeonrl.play",
)

#: optional dependencies (extras of pyproject.toml) that are imported where used
OPTIONAL = (
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "ray",
    "minari",
    "matplotlib",
    "tensorboard",
    "tqdm",
    "rich",
    "openskill",
    "imageio",
    "imageio_ffmpeg",
)

#: project modules an agents function may import lazily, and why
LAZY_OK = {
    # a game's own package loads its compiled kernels: imported when that game is used
    "dungeonrl.envs.unbroken": "a game's package",
    "dungeonrl.envs.unbroken.core": "a game's package",
}


def _modules() -> dict[str, Path]:
    """Every module of the agents layer, its rooms (``algos/``, ``commands/``) included."""
    out = {}
    for path in sorted(AGENTS.rglob("*.py")):
        parts = path.relative_to(AGENTS).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join((PKG, *parts))] = path
    return out


def _absolute(node: ast.ImportFrom | ast.Import, module: str, path: Path) -> list[str]:
    """The dotted names one import statement loads (the module and, for
    ``from X import a``, ``X.a`` in case ``a`` is a module)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        pkg = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            pkg = pkg.rpartition(".")[0]
        base = f"{pkg}.{node.module}" if node.module else pkg
    else:
        base = node.module or ""
    return [base] + [f"{base}.{a.name}" for a in node.names]


def _imports(path: Path, module: str):
    """``(in_function, lineno, names)`` for every import statement."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []

    def walk(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((in_function, child.lineno, _absolute(child, module, path)))
            walk(
                child,
                in_function
                or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)),
            )

    walk(tree, False)
    return found


def _within(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph = {m: set() for m in mods}
    for m, path in mods.items():
        for in_function, _, names in _imports(path, m):
            if not in_function:
                graph[m] |= {n for n in names if n in mods and n != m}
    return graph


def _heavy(graph) -> set[str]:
    """Agents modules that import an optional dependency at module level
    (directly or through another agents module)."""
    mods = _modules()
    heavy = {
        m
        for m, path in mods.items()
        if any(not f and _within(names[0], OPTIONAL) for f, _, names in _imports(path, m))
    }
    grew = True
    while grew:
        grew = False
        for m, deps in graph.items():
            if m not in heavy and deps & heavy:
                heavy.add(m)
                grew = True
    return heavy


def test_agents_import_nothing_of_the_command_line():
    bad = []
    for m, path in _modules().items():
        for _, line, names in _imports(path, m):
            hit = [n for n in names if _within(n, ABOVE)]
            if hit:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {hit[0]}")
    assert not bad, "the agents layer imports the layers above it:\n" + "\n".join(bad)


def test_agents_module_level_graph_is_acyclic():
    graph = _graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(m, trail):
        state[m] = 1
        for dep in sorted(graph[m]):
            if state.get(dep) == 1:
                cycles.append(trail[trail.index(dep) :] + [dep])
            elif dep not in state:
                visit(dep, trail + [dep])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, "module-level import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_function_level_imports_are_optional_or_deliberate():
    graph = _graph()
    heavy = _heavy(graph)
    mods = _modules()
    bad = []
    for m, path in mods.items():
        for in_function, line, names in _imports(path, m):
            # ``from . import rllib`` names the module rllib, not the package
            top = next((n for n in names[1:] if n in mods), names[0])
            if not in_function or not top.startswith("dungeonrl"):
                continue
            if top in heavy or top in LAZY_OK:
                continue
            bad.append(f"{path.relative_to(ROOT)}:{line} imports {top} inside a function")
    assert not bad, "import these at module level (or move the shared code lower): " + "\n".join(
        bad
    )
