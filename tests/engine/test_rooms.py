"""The rooms of ``envs/core`` and what each may import (``envs/core/README.md``).

Read from the sources with ``ast`` (nothing is imported), every import
statement counted, including the ones inside functions:

* ``kernel/`` imports only ``kernel/``, numpy, numba, llvmlite and the
  standard library (the code generator also reads ``dungeonrl.envs.catalog``);
* the top (the contract) imports the top and ``kernel/``;
* ``authoring/`` imports the top, ``kernel/`` and ``authoring/``;
* ``adapters/`` may import all of them; nothing outside ``adapters/`` in
  ``envs/core`` imports an adapter, Gymnasium or PettingZoo;
* the flat names the modules had before the rooms are gone: nothing imports
  them and they do not import.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE_DIR = ROOT / "envs" / "core"
CORE = "dungeonrl.envs.core"

#: room -> the rooms (within envs/core) its modules may import
MAY_IMPORT = {
    "kernel": {"kernel"},
    "top": {"top", "kernel"},
    "authoring": {"top", "kernel", "authoring"},
    "adapters": {"top", "kernel", "authoring", "adapters"},
}
ROOM_DIRS = ("kernel", "adapters", "authoring")
#: third-party packages a kernel module may import
KERNEL_THIRD_PARTY = {"numpy", "numba", "llvmlite"}
#: modules outside envs/core a kernel module may import
KERNEL_PROJECT = {"dungeonrl.envs.catalog"}
#: only the adapters import these
ADAPTER_ONLY = {"gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib", "ray", "torch"}
#: import name -> folder (pyproject's [tool.setuptools.package-dir])
PACKAGE_DIRS = {
    "dungeonrl": "dungeonrl",
    "dungeonrl.envs": "envs",
    "dungeonrl.encoders": "encoders",
    "dungeonrl.agents": "agents",
    "dungeonrl.benchmarks": "benchmarks",
}


#: the flat names of modules before the rooms (never released), retired
RETIRED = (
    "borrow chance codegen compile_notice facts fastcall freshness header jit memops rng "
    "template template_game zones aec checker gym_env multi parallel pz_module selfplay "
    "vector content draw narration layout_doc"
).split()


def core_modules() -> dict[str, Path]:
    """Every module under envs/core: dotted name -> file."""
    out = {}
    for path in sorted(CORE_DIR.rglob("*.py")):
        rel = path.relative_to(CORE_DIR).with_suffix("").parts
        if rel[-1] == "__init__":
            rel = rel[:-1]
        out[".".join((CORE, *rel))] = path
    return out


def room_of(name: str) -> str | None:
    """The room of a module of envs/core, None outside envs/core."""
    if name != CORE and not name.startswith(CORE + "."):
        return None
    rest = name[len(CORE) + 1 :].split(".") if name != CORE else []
    if rest and rest[0] in ROOM_DIRS:
        return rest[0]
    return "top"


def imports_of(name: str, source: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module) of every import statement of a module; for
    ``from P import x`` both ``P`` and ``P.x`` (x may be a submodule)."""
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(
                    parts[: len(parts) - node.level + 1] + ([node.module] if node.module else [])
                )
            else:
                base = node.module or ""
            out.append((node.lineno, base))
            out.extend((node.lineno, f"{base}.{a.name}") for a in node.names if a.name != "*")
    return out


def _is_module(name: str, mods: dict[str, Path]) -> bool:
    return name in mods


def violations(name: str, source: str, is_package: bool, mods: dict[str, Path]) -> list[str]:
    """What module ``name`` of envs/core imports against the room rules."""
    room = room_of(name)
    bad = []
    for line, target in imports_of(name, source, is_package):
        top = target.split(".")[0]
        where = f"{name}:{line} imports {target}"
        if target.startswith(CORE):
            if not _is_module(target, mods):
                continue  # a name from a module, seen on its own
            if room_of(target) not in MAY_IMPORT[room]:
                bad.append(f"{where} ({room} may not import {room_of(target)})")
        elif top in ADAPTER_ONLY and room != "adapters":
            bad.append(f"{where} (only adapters/ imports {top})")
        elif room == "kernel":
            project = target.startswith("dungeonrl")
            if (
                project
                and not any(target == k or target.startswith(k + ".") for k in KERNEL_PROJECT)
                and target != "dungeonrl.envs"
            ):
                bad.append(f"{where} (kernel/ imports only kernel/ of the project)")
            elif (
                not project
                and top not in KERNEL_THIRD_PARTY
                and top not in (sys.stdlib_module_names)
                and top != "__future__"
            ):
                bad.append(f"{where} (kernel/ imports only numpy, numba, llvmlite, stdlib)")
    return bad


def test_every_module_is_in_a_room():
    mods = core_modules()
    assert "dungeonrl.envs.core.kernel.jit" in mods and "dungeonrl.envs.core.spec" in mods
    for path in mods.values():
        rel = path.relative_to(CORE_DIR).parts
        assert len(rel) == 1 or rel[0] in ROOM_DIRS, f"{path}: not in a room {ROOM_DIRS}"
        assert len(rel) <= 2, f"{path}: rooms are flat"
    for room in ROOM_DIRS:
        assert (CORE_DIR / room / "README.md").is_file(), f"{room}/ has no README.md"
    assert (CORE_DIR / "README.md").is_file()


def test_rooms_import_only_what_they_may():
    mods = core_modules()
    bad = []
    for name, path in mods.items():
        bad += violations(name, path.read_text(encoding="utf-8"), path.name == "__init__.py", mods)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "name, source",
    [
        ("dungeonrl.envs.core.kernel.rng", "from ..adapters.gym_env import DungeonEnv\n"),
        ("dungeonrl.envs.core.kernel.rng", "def f():\n    from ..spec import GameSpec\n"),
        ("dungeonrl.envs.core.kernel.rng", "import gymnasium\n"),
        ("dungeonrl.envs.core.kernel.rng", "from dungeonrl.envs.core import gym_env\n"),
        ("dungeonrl.envs.core.kernel.rng", "import pandas\n"),
        ("dungeonrl.envs.core.spec", "from .adapters import vector\n"),
        ("dungeonrl.envs.core.spec", "from .authoring.content import Ctx\n"),
        (
            "dungeonrl.envs.core.spec",
            "from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv\n",
        ),
        ("dungeonrl.envs.core.common", "from pettingzoo import AECEnv\n"),
        ("dungeonrl.envs.core.authoring.draw", "from ..adapters.aec import DungeonAECEnv\n"),
    ],
)
def test_the_check_sees_a_forbidden_import(name, source):
    # positive control: each of these breaks a room rule
    assert violations(name, source, False, core_modules())


@pytest.mark.parametrize(
    "name, source",
    [
        ("dungeonrl.envs.core.kernel.zones", "from . import chance\nfrom .jit import JIT\n"),
        ("dungeonrl.envs.core.kernel.codegen", "from ... import catalog\nimport numba\n"),
        ("dungeonrl.envs.core.validate", "from .kernel.header import O_PLAYING\n"),
        ("dungeonrl.envs.core.adapters.vector", "from ..spec import GameCore\nimport gymnasium\n"),
    ],
)
def test_the_check_allows_what_a_room_may_import(name, source):
    assert not violations(name, source, False, core_modules())


def _package_sources():
    for folder in PACKAGE_DIRS.values():
        base = ROOT / folder
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for f in filenames:
                if f.endswith(".py"):
                    yield Path(dirpath) / f


def test_retired_flat_names_do_not_import():
    """The import hook that aliased the pre-room flat names is retired: each
    old name is missing as a file and fails to import, and no module of the
    package imports one."""
    mods = core_modules()
    for old in RETIRED:
        assert not (CORE_DIR / f"{old}.py").exists(), f"{old}.py is back under envs/core"
        name = f"{CORE}.{old}"
        assert name not in mods
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(name)
    bad = []
    for path in _package_sources():
        rel = path.relative_to(ROOT)
        pkg = next(
            p
            for p, f in sorted(PACKAGE_DIRS.items(), key=lambda kv: -len(kv[1]))
            if rel.parts[: len(Path(f).parts)] == Path(f).parts
        )
        inner = rel.relative_to(PACKAGE_DIRS[pkg]).with_suffix("").parts
        is_pkg = inner[-1] == "__init__"
        name = ".".join((pkg, *(inner[:-1] if is_pkg else inner)))
        for line, target in imports_of(name, path.read_text(encoding="utf-8"), is_pkg):
            if target.startswith(CORE + ".") and target[len(CORE) + 1 :] in RETIRED:
                bad.append(f"{rel}:{line} imports {target}")
    assert not bad, "\n".join(bad)
