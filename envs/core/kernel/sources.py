"""The modules compiled into a generated kernel module, their digest, and
the atomic write of a generated module.

The lower half of :mod:`.freshness`, kept apart so that the code generator
(:mod:`.codegen`), which writes ``SOURCE_MODULES`` and ``SOURCE_DIGEST`` into
each kernel module, and the freshness hook, which checks them on import and
calls the generator when they differ, both build on it without importing
each other in a circle. Standard library only.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import stat
import sys
import tempfile

#: the freshness hook, this module, the generator and the template are no
#: part of what is compiled (the template is hashed on its own)
NOT_COMPILED = (
    "dungeonrl.envs.core.kernel.sources",
    "dungeonrl.envs.core.kernel.freshness",
    "dungeonrl.envs.core.kernel.codegen",
    "dungeonrl.envs.core.kernel.template",
    "dungeonrl.envs.core.kernel.template_game",
)
_VERSION = b"dungeonrl kernel source digest 1\n"

_suspended = 0


class suspended:
    """Context: imports inside it never regenerate a kernel module (the code
    generator itself, while it checks or rewrites the files)."""

    def __enter__(self):
        global _suspended
        _suspended += 1

    def __exit__(self, *exc):
        global _suspended
        _suspended -= 1


def is_suspended() -> bool:
    """Whether a :class:`suspended` context is open in this process."""
    return _suspended > 0


# --- the module set -------------------------------------------------------------
def module_file(name: str) -> str | None:
    """The source file of module ``name`` (imported or not); None if none."""
    m = sys.modules.get(name)
    f = getattr(m, "__file__", None) if m is not None else None
    if f:
        return f
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None or not spec.has_location or not spec.origin:
        return None
    return spec.origin


def source_file(name: str) -> str | None:
    """The file of an entry of a module set: a module's source (``name``),
    or a data file of a package (``"package/file"``, a game's declaration
    ``game.toml``); None if there is none."""
    package, sep, rel = name.partition("/")
    if not sep:
        return module_file(name)
    init = module_file(package)
    path = os.path.join(os.path.dirname(init), rel) if init else None
    return path if path and os.path.isfile(path) else None


def _is_module(name: str) -> bool:
    return module_file(name) is not None


def _package_of(name: str, path: str) -> str:
    return name if os.path.basename(path).startswith("__init__.") else name.rpartition(".")[0]


def module_imports(name: str, path: str) -> list[str]:
    """Modules that module ``name`` (source ``path``) imports when it is
    imported: its import statements outside function bodies (and outside
    ``if TYPE_CHECKING:``). ``from M import x`` names ``M.x`` when that is a
    module, else ``M``."""
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), path)
    package = _package_of(name, path)
    out: list[str] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            todo.extend(node.orelse)  # never executed: the body is for type checkers
            continue
        if isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            try:
                base = (
                    importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                    if node.level
                    else node.module
                )
            except (ImportError, ValueError):
                continue
            if base is None:  # never: an absolute import names its module
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append(sub if a.name != "*" and _is_module(sub) else base)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return out


def source_modules(roots) -> tuple[str, ...]:
    """Sorted names of ``roots`` and of every module they import (module
    level), transitively, that belongs to the project: ``dungeonrl`` and its
    subpackages, or a module in the same folder as a root (the test
    fixtures' rules next to their generated kernels)."""
    root_dirs = set()
    for r in roots:
        f = module_file(r)
        if f is None:
            raise ImportError(f"cannot find the source of module {r!r}")
        root_dirs.add(os.path.dirname(os.path.abspath(f)))

    def ours(name, f):
        if name in NOT_COMPILED or f is None or not f.endswith(".py"):
            return False
        return name.split(".")[0] == "dungeonrl" or os.path.dirname(os.path.abspath(f)) in root_dirs

    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        f = module_file(name)
        if f is None or not ours(name, f):
            continue
        seen.add(name)
        todo.extend(module_imports(name, f))
    return tuple(sorted(seen))


# --- the digest -----------------------------------------------------------------
def file_hash(path: str) -> bytes:
    """SHA-256 of a file's contents, line endings normalised to ``\\n``."""
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).digest()


def digest(template_hash: str, modules) -> str | None:
    """The source digest of ``modules`` (and data files, see
    :func:`source_file`) under the template ``template_hash``; None if one
    of them cannot be found."""
    h = hashlib.sha256(_VERSION)
    h.update(template_hash.encode())
    for name in sorted(modules):
        f = source_file(name)
        if f is None:
            return None
        try:
            fh = file_hash(f)
        except OSError:
            return None
        h.update(b"\n" + name.encode() + b"\0" + fh)
    return h.hexdigest()


# --- writing a generated module -------------------------------------------------
def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file and ``os.replace``, so
    a concurrent reader never sees half a file (the mode of the file it
    replaces is kept); nothing is written where the file already holds it."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            if f.read() == text:  # another process got there first
                return
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".kernels-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        except OSError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
