"""No giant functions: every function of the project's Python source fits in
:data:`MAX_LINES` lines (``def`` to its last line), except the few of
:data:`ALLOWED`, each capped at its present length so that it can only
shrink. Read with ``ast`` (nothing is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("dungeonrl", "envs", "encoders", "agents", "benchmarks", "tests")
MAX_LINES = 150

#: ``file name::qualified name`` -> the most lines it may have (file names, not
#: paths, so that moving a file keeps its entry)
ALLOWED = {
    "hooks_dungeon_kart.py::DungeonKartHooks.check_invariants": 254,
    "hooks_dcc_unstoppable.py::DCCUnstoppableHooks.check_invariants": 238,
    "hooks_unbroken.py::UnbrokenHooks.check_invariants": 219,
    "ppo.py::train": 226,
    "dungeon_crawler.py::encode_row": 182,
    "rules.py::legal_row": 178,
    "hooks_dungeon_crawler.py::_inv_heroes": 172,
    "rules.py::run_stage": 163,
    "kart_encoder_ref.py::encode_row_ref": 157,
    "vector.py::_build_sb3_class": 178,
    "rllib.py::run_rllib_training": 170,
    "narrate.py::narrate": 152,
    "content.py::build_track": 151,
}


def _functions():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            stack = [(tree, "")]
            while stack:
                node, prefix = stack.pop()
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        name = f"{prefix}{child.name}"
                        if not isinstance(child, ast.ClassDef):
                            yield path, name, child.end_lineno - child.lineno + 1
                        stack.append((child, name + "."))
                    else:
                        stack.append((child, prefix))


def test_no_function_over_the_cap():
    long = []
    for path, name, n in _functions():
        key = f"{path.name}::{name}"
        cap = ALLOWED.get(key, MAX_LINES)
        if n > cap:
            long.append(f"{path.relative_to(ROOT)}::{name}: {n} lines (at most {cap})")
    assert not long, "split these functions into readable parts:\n" + "\n".join(long)
