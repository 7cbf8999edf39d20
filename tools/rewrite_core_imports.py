"""Rewrite the old paths of the engine modules that moved into rooms.

Usage (from the repository root)::

    python tools/rewrite_core_imports.py            # rewrite every file in place
    python tools/rewrite_core_imports.py --check    # list what would change, exit 1 if any
    python tools/rewrite_core_imports.py PATH...    # only these files or folders
    python tools/rewrite_core_imports.py --imports-only   # only import statements

The table of moves is ``MOVED`` in ``envs/core/_moved.py`` (loaded from its
file, nothing of dungeonrl is imported). What is rewritten:

* Python ``from ... import`` statements, absolute or relative, that name an
  old module (``from ..core.header import X`` -> ``from ..core.kernel.header
  import X``; ``from ..core import chance`` -> ``from ..core.kernel import
  chance``), a statement naming modules of several rooms being split;
* in a moved module, a relative import that no longer resolves from the
  module's new folder but did from its old one (``from .errors import X`` in
  ``adapters/gym_env.py`` -> ``from ..errors import X``);
* dotted names ``dungeonrl.envs.core.<old>`` anywhere in a text file (code,
  strings, comments, Markdown, notebooks, the Makefile) and file paths
  ``envs/core/<old>.py``.

Running it again changes nothing. Generated kernel modules (their first line
says ``GENERATED``) are left alone: regenerate them afterwards with
``python -m dungeonrl.envs.core.kernel.codegen``.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: import name -> folder (pyproject's [tool.setuptools.package-dir])
PACKAGE_DIRS = {
    "dungeonrl": "dungeonrl",
    "dungeonrl.envs": "envs",
    "dungeonrl.encoders": "encoders",
    "dungeonrl.agents": "agents",
    "dungeonrl.benchmarks": "benchmarks",
}
TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".ipynb",
    ".toml",
    ".txt",
    ".cfg",
    ".ini",
    ".yml",
    ".yaml",
    ".rst",
    ".sh",
}
TEXT_NAMES = {"Makefile"}
SKIP_DIRS = {".git", "__pycache__", ".pytest_cache", "node_modules", "build", "dist"}
#: files that name the old paths on purpose (the alias table, its tests, this tool):
#: by path, and by file name wherever the tests folder puts them
SKIP_FILES = {"envs/core/_moved.py"}
SKIP_NAMES = {"rewrite_core_imports.py", "test_moved_modules.py", "test_rooms.py"}


def _load_moved():
    spec = importlib.util.spec_from_file_location(
        "_dungeonrl_moved", ROOT / "envs" / "core" / "_moved.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_moved = _load_moved()
PACKAGE = _moved.PACKAGE  # "dungeonrl.envs.core"
OLD_TO_NEW = _moved.full_names()  # absolute old -> absolute new
NEW_TO_OLD = {v: k for k, v in OLD_TO_NEW.items()}

_OLD_ALT = "|".join(sorted((re.escape(k) for k in _moved.MOVED), key=len, reverse=True))
DOTTED = re.compile(r"(?<![\w.])" + re.escape(PACKAGE) + r"\.(" + _OLD_ALT + r")(?!\w)")
#: ``from dungeonrl.envs.core import a, b`` in text (a string holding code):
#: every name an old module of one room (also right after a ``\n`` escape)
FROM_LIST = re.compile(
    r"(?:(?<=\\[nt])|(?<![\w.]))(from\s+)"
    + re.escape(PACKAGE)
    + r"(\s+import\s+)((?:"
    + _OLD_ALT
    + r")(?:[ \t]*,[ \t]*(?:"
    + _OLD_ALT
    + r"))*)(?![\w.])"
)
PATHS = re.compile(r"(?<![\w])envs/core/(" + _OLD_ALT + r")\.py(?!\w)")


# --- the module tree of the checkout --------------------------------------------
def module_of(path: Path) -> tuple[str, bool] | None:
    """(dotted name, is a package's __init__) of a source file, or None."""
    rel = path.resolve().relative_to(ROOT)
    best = None
    for pkg, folder in PACKAGE_DIRS.items():
        parts = Path(folder).parts
        if rel.parts[: len(parts)] == parts and (best is None or len(parts) > len(best[1])):
            best = (pkg, parts)
    if best is None:
        return None
    pkg, parts = best
    rest = list(rel.parts[len(parts) :])
    if not rest or not rest[-1].endswith(".py"):
        return None
    is_init = rest[-1] == "__init__.py"
    rest = rest[:-1] if is_init else [*rest[:-1], rest[-1][:-3]]
    return ".".join([pkg, *rest]), is_init


def file_of(name: str) -> Path | None:
    best = None
    for pkg in PACKAGE_DIRS:
        if (name == pkg or name.startswith(pkg + ".")) and (best is None or len(pkg) > len(best)):
            best = pkg
    if best is None:
        return None
    rest = name[len(best) :].lstrip(".").split(".") if name != best else []
    base = ROOT / PACKAGE_DIRS[best] / Path(*rest) if rest else ROOT / PACKAGE_DIRS[best]
    for cand in (base.with_suffix(".py") if rest else None, base / "__init__.py"):
        if cand is not None and cand.is_file():
            return cand
    return None


def exists(name: str) -> bool:
    return file_of(name) is not None


def renamed(name: str) -> str:
    for old, new in OLD_TO_NEW.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old) :]
    return name


# --- Python import statements ---------------------------------------------------
def _resolve(level: int, module: str | None, package: str) -> str | None:
    parts = package.split(".")
    if level - 1 >= len(parts):
        return None
    anchor = parts[: len(parts) - (level - 1)]
    return ".".join(anchor + ([module] if module else []))


def _relative(target: str, package: str) -> tuple[int, str]:
    """(level, module text) of ``target`` imported from ``package``."""
    p, t = package.split("."), target.split(".")
    common = 0
    while common < min(len(p), len(t)) and p[common] == t[common]:
        common += 1
    return len(p) - common + 1, ".".join(t[common:])


def _names_text(names) -> str:
    return ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in names)


def _fix_from(node: ast.ImportFrom, package: str | None, old_package: str | None):
    """New targets of one statement: list of (absolute base, [aliases]) or
    None when it needs no change."""
    if node.level:
        if package is None:
            return None
        base = _resolve(node.level, node.module, package)
        if base is None:
            return None
    else:
        base = node.module or ""
    if not base.startswith("dungeonrl"):
        return None

    def target(b: str, alias: str) -> str:
        sub = f"{b}.{alias}"
        if sub in OLD_TO_NEW:  # an old module imported by name
            return OLD_TO_NEW[sub].rpartition(".")[0]
        return renamed(b)

    groups: dict[str, list] = {}
    for a in node.names:
        t = target(base, a.name)
        if t == base and node.level and old_package is not None and a.name != "*":
            t = _from_old_folder(node, a.name, base, old_package, target) or t
        groups.setdefault(t, []).append(a)
    if list(groups) == [base]:
        return None
    return list(groups.items())


def _from_old_folder(node, name, base, old_package, target):
    """For a moved module: the target of a relative import that no longer
    resolves from its new folder but did from the old one (else None)."""
    base_file = file_of(base)
    if base_file is not None and (base_file.name != "__init__.py" or exists(f"{base}.{name}")):
        return None  # resolves where the module is now
    ob = _resolve(node.level, node.module, old_package)
    if ob is None:
        return None
    if base_file is None:  # the module part is missing
        ok = exists(ob) or ob in OLD_TO_NEW
    else:  # a package without that submodule
        ok = exists(f"{ob}.{name}") or f"{ob}.{name}" in OLD_TO_NEW
    return target(ob, name) if ok else None


def _render(
    node: ast.ImportFrom, new_base: str, aliases, package: str | None, src_stmt: str, whole: bool
) -> str:
    if node.level:
        level, mod = _relative(new_base, package)
        head = "." * level + mod
    else:
        head = new_base
    if whole:
        # keep the statement's own layout of names: replace the module part only
        m = re.match(r"(from\s+)([.\w]+)(\s+import\b)", src_stmt)
        if m:
            return m.group(1) + head + src_stmt[m.end(2) :]
    return f"from {head} import {_names_text(aliases)}"


def rewrite_python_imports(text: str, path: Path) -> str:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    info = module_of(path)
    package = old_package = None
    if info is not None:
        name, is_init = info
        package = name if is_init else name.rpartition(".")[0]
        if name in NEW_TO_OLD:
            old_package = NEW_TO_OLD[name].rpartition(".")[0]
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))

    def pos(lineno, col):
        return offsets[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())

    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        groups = _fix_from(node, package, old_package)
        if groups is None:
            continue
        start, end = pos(node.lineno, node.col_offset), pos(node.end_lineno, node.end_col_offset)
        stmt = text[start:end]
        indent = re.match(r"[ \t]*", lines[node.lineno - 1]).group(0)
        if len(groups) == 1:
            new_base, aliases = groups[0]
            new = _render(node, new_base, aliases, package, stmt, whole=True)
        else:
            new = ("\n" + indent).join(
                _render(node, b, al, package, stmt, whole=False) for b, al in groups
            )
        edits.append((start, end, new))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


# --- text -----------------------------------------------------------------------
def _from_list(m: re.Match) -> str:
    names = [n.strip() for n in m.group(3).split(",")]
    rooms = {_moved.MOVED[n].rpartition(".")[0] for n in names}
    if len(rooms) != 1 or any(_moved.MOVED[n].rpartition(".")[2] != n for n in names):
        return m.group(0)
    return f"{m.group(1)}{PACKAGE}.{rooms.pop()}{m.group(2)}{m.group(3)}"


def rewrite_text(text: str) -> str:
    text = FROM_LIST.sub(_from_list, text)
    text = DOTTED.sub(lambda m: OLD_TO_NEW[m.group(0)], text)
    return PATHS.sub(
        lambda m: "envs/core/" + _moved.MOVED[m.group(1)].replace(".", "/") + ".py", text
    )


def rewrite_file(path: Path, imports_only: bool = False) -> str | None:
    """The new text of ``path``, or None if unchanged or skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    if text.startswith('"""GENERATED') or text.startswith("# GENERATED"):
        return None
    new = text
    if path.suffix == ".py":
        new = rewrite_python_imports(new, path)
    if not imports_only:
        new = rewrite_text(new)
    return new if new != text else None


def candidates(paths):
    for p in paths:
        p = Path(p).resolve()
        if p.is_file():
            yield p
            continue
        for dirpath, dirnames, filenames in os.walk(p):
            dirnames[:] = sorted(
                d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".venv")
            )
            for f in sorted(filenames):
                fp = Path(dirpath) / f
                if fp.suffix in TEXT_SUFFIXES or f in TEXT_NAMES:
                    yield fp


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="files or folders (default: the whole checkout)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would")
    ap.add_argument(
        "--imports-only",
        action="store_true",
        help="only Python import statements (not dotted names in text or paths)",
    )
    args = ap.parse_args(argv)
    changed = []
    for path in candidates(args.paths or [ROOT]):
        rel = path.relative_to(ROOT).as_posix()
        if rel in SKIP_FILES or path.name in SKIP_NAMES:
            continue
        new = rewrite_file(path, args.imports_only)
        if new is None:
            continue
        changed.append(rel)
        if not args.check:
            path.write_text(new, encoding="utf-8")
    for rel in changed:
        print(("would rewrite " if args.check else "rewrote ") + rel)
    if changed and not args.check:
        print("now regenerate the kernels: python -m dungeonrl.envs.core.kernel.codegen")
    return 1 if (changed and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
