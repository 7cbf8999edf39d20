"""Generated kernels that never run a stale compilation of the rules.

Numba's disk cache checks only a function's own file: a kernel compiled
into ``envs/<game>/kernels.py`` keeps running the cached machine code of the
rules, encoder, policy and engine helpers it was compiled with, whatever has
been edited in their modules since. So every generated kernel module (see
:mod:`.codegen`) carries

* ``SOURCE_MODULES``: every module compiled into it -- the ones it imports
  (engine helpers, the game's rules, encoder and policy), the module holding
  its :class:`~.facts.KernelFacts`, and everything those import at module
  level within dungeonrl (or from their own folder, for the test fixtures),
  transitively. The list is found from the sources (``ast``), never kept by
  hand;
* ``SOURCE_DIGEST``: SHA-256 over the engine template and the contents of
  those modules (contents, not paths or times, with line endings
  normalised: a fresh clone or an installed wheel has the same digest).

The generated modules are not checked in: a game's core (and anything
else) gets its module from :func:`load_kernels`, which writes it first when
it is missing, with the same atomic write and, where the game's folder
cannot be written (a read-only install), into the per-user cache folder
below, from which it is imported under its own name. The path is stable
(the game's folder, or a name carrying the source's digest), so numba's
disk cache beside it serves every later process.

The last line of the module calls :func:`ensure_fresh`, which re-hashes the
listed files (a millisecond or two: no parsing; a new import can only come
from an edit to a listed module, which changes the digest). On a mismatch:

* default: the file is regenerated in place (written atomically: a temp file
  and ``os.replace``, so concurrent processes never see half a file) and its
  new source is executed in the module being imported; the changed file
  makes numba compile the kernels again;
* ``DUNGEONRL_STALE_KERNELS=error`` (nothing is written on import, for a
  deployment that ships its kernels and must not change them):
  :class:`StaleKernelsError` names the file and the command that
  regenerates it, for a stale module as for a missing one;
* a file that cannot be written (a read-only install): the regenerated
  source goes to a per-user cache folder (``DUNGEONRL_KERNEL_DIR``, else
  ``$XDG_CACHE_HOME/dungeonrl/kernels`` or ``~/.cache/dungeonrl/kernels``),
  under a name carrying its digest, and is compiled from there, with a
  ``RuntimeWarning`` giving the command to regenerate for good; if no
  folder can be written either, :class:`StaleKernelsError`.

Recompiling the kernel file is not enough on its own: compiling it loads
its callees from *their* caches (``apply_row`` in an unchanged ``rules.py``
still holds an edited helper's old code). So the digest the numba cache was
built against is kept next to the kernel's cache files
(``<stem>.source-digest``); when it differs from the module's digest, the
disk caches of every numba function defined in the listed modules (and the
kernel module) are flushed before anything is compiled.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import tempfile
import types
import warnings

from . import sources
from .sources import (
    NOT_COMPILED,
    digest,
    file_hash,
    module_file,
    module_imports,
    source_modules,
    suspended,
)
from .sources import write_atomic as _write_atomic

#: the module set and its digest live in :mod:`.sources`; named here too
__all__ = [
    "NOT_COMPILED",
    "StaleKernelsError",
    "digest",
    "ensure_fresh",
    "file_hash",
    "load_kernels",
    "module_file",
    "module_imports",
    "source_modules",
    "suspended",
]

#: the environment variable choosing what a stale kernel module does on import
MODE_VAR = "DUNGEONRL_STALE_KERNELS"
MODES = ("regenerate", "error")
#: where a read-only install's regenerated kernels go
DIR_VAR = "DUNGEONRL_KERNEL_DIR"
REGENERATE = "python -m dungeonrl.envs.core.kernel.codegen"
#: files regenerated on import in this process (path of each): stale ones rewritten
regenerated: list[str] = []
#: files :func:`load_kernels` generated in this process, missing before (path of
#: each; a file with the same text already in the cache folder is kept)
written: list[str] = []


class StaleKernelsError(RuntimeError):
    """A generated kernel module no longer matches the sources compiled into it."""


# --- on import ------------------------------------------------------------------
def mode() -> str:
    m = os.environ.get(MODE_VAR, "") or "regenerate"
    if m not in MODES:
        raise ValueError(f"{MODE_VAR} must be one of {list(MODES)}, got {m!r}")
    return m


def load_kernels(key: str) -> types.ModuleType:
    """The generated kernel module of ``key`` (a game's short name, or
    "module:ATTR" naming :class:`~.facts.KernelFacts` declared elsewhere,
    see :func:`.codegen.module_name`), imported: a game's core gets its
    kernels here. A module not written yet is generated first, beside the
    game's modules (atomically: concurrent first imports write the same
    text), or, where that folder cannot be written, into the per-user cache
    folder and imported from there under its own name; a stale one
    regenerates itself on import (:func:`ensure_fresh`). With
    ``DUNGEONRL_STALE_KERNELS=error`` nothing is written: a missing module
    raises :class:`StaleKernelsError` naming the command that writes it."""
    from . import codegen

    name = codegen.module_name(key)
    module = sys.modules.get(name)
    if module is not None:
        return module
    path = str(codegen.kernel_path(key))
    if os.path.exists(path):
        return importlib.import_module(name)
    if mode() == "error":
        raise StaleKernelsError(f"{path} has not been generated; generate it: {REGENERATE}")
    with suspended():
        src = codegen.source(key)
    target = _write_kernels(path, src, name, stale=False)
    written.append(target)
    if target == path:
        importlib.invalidate_caches()  # a finder may have listed the folder before the write
        return importlib.import_module(name)
    spec = importlib.util.spec_from_file_location(name, target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, module)
    return module


def ensure_fresh(g: dict) -> None:
    """Called with ``globals()`` by the last line of a generated kernel
    module: regenerate the module if its sources changed (see the module
    docstring), and flush numba caches built against other sources."""
    if sources.is_suspended() or g.get("KERNEL_KEY") is None:  # the template module itself
        return
    from . import codegen

    want = g["SOURCE_DIGEST"]
    if digest(codegen.TEMPLATE_HASH, g["SOURCE_MODULES"]) == want:
        _settle_cache(g, want)
        return
    path = g["__file__"]
    if g.get("_REGENERATING_"):
        raise StaleKernelsError(
            f"{path}: regenerated, yet its digest still differs "
            "from its sources (were they edited meanwhile?)"
        )
    if mode() == "error":
        raise StaleKernelsError(
            f"{path} is stale: a module compiled into it changed since it was generated "
            f"(or the template did). Regenerate it: {REGENERATE}"
        )
    with suspended():
        src = codegen.generate(codegen.facts_of(g["KERNEL_KEY"]), g["KERNEL_KEY"])
    target = _write_kernels(path, src, g["__name__"])
    regenerated.append(target)
    g["_REGENERATING_"] = True
    try:
        exec(compile(src, target, "exec"), g)
    finally:
        g.pop("_REGENERATING_", None)


def fallback_dir() -> str:
    d = os.environ.get(DIR_VAR)
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dungeonrl", "kernels")


def _write_kernels(path: str, src: str, name: str, stale: bool = True) -> str:
    """Write the generated ``src`` of module ``name`` over ``path`` (a
    ``stale`` file, or a missing one), or where a read-only install can;
    returns the file written."""
    why: OSError | str
    if path.endswith(".py"):
        try:
            _write_atomic(path, src)
            return path
        except OSError as e:
            why = e
    else:
        why = f"{path} is not a source file"
    dirs = [
        fallback_dir(),
        os.path.join(
            tempfile.gettempdir(),
            f"dungeonrl-kernels-{os.getuid() if hasattr(os, 'getuid') else 0}",
        ),
    ]
    for d in dirs:
        try:
            os.makedirs(d, exist_ok=True)
            target = os.path.join(d, f"{name.replace('.', '_')}_{_digest_of(src)[:16]}.py")
            _write_atomic(target, src)
        except OSError:
            continue
        if stale:  # a missing module in a read-only install lives in the cache folder
            warnings.warn(
                f"{path} is stale and cannot be rewritten ({why}); its regenerated "
                f"kernels are compiled from {target}. Regenerate it for good: "
                f"{REGENERATE}",
                RuntimeWarning,
                stacklevel=3,
            )
        return target
    raise StaleKernelsError(
        f"{path} is {'stale' if stale else 'not generated'} and neither it "
        f"nor a cache folder ({', '.join(dirs)}) can be written; "
        f"generate it: {REGENERATE}"
    )


def _digest_of(src: str) -> str:
    return hashlib.sha256(src.encode()).hexdigest()


# --- the numba caches of the callees --------------------------------------------
def _dispatchers(module_names):
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # pragma: no cover
        return []
    out, seen = [], set()
    for name in module_names:
        m = sys.modules.get(name)
        if m is None:
            continue
        for v in list(vars(m).values()):
            if (
                isinstance(v, Dispatcher)
                and id(v) not in seen
                and getattr(v.py_func, "__module__", None) == name
            ):
                seen.add(id(v))
                out.append(v)
    return out


def _cache_dir(g: dict) -> str | None:
    for v in _dispatchers([g["__name__"]]):
        path = getattr(getattr(v, "_cache", None), "cache_path", None)
        if path:
            return path
    return None


def marker_path(g: dict) -> str | None:
    """The file recording the digest this kernel module's numba cache was
    built against (None with the JIT off or no disk cache)."""
    d = _cache_dir(g)
    if d is None:
        return None
    stem = os.path.splitext(os.path.basename(g["__file__"]))[0]
    return os.path.join(d, f"{stem}.source-digest")


def flush_caches(module_names) -> int:
    """Empty the disk cache index of every numba function defined in
    ``module_names`` that has one; returns how many were flushed."""
    n = 0
    for v in _dispatchers(module_names):
        cache = getattr(v, "_cache", None)
        if cache is None:  # nothing to flush
            continue
        index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
        if index is not None and not os.path.exists(index):
            continue
        try:
            cache.flush()
            n += 1
        except (OSError, AttributeError):
            pass
    return n


def _settle_cache(g: dict, want: str) -> None:
    marker = marker_path(g)
    if marker is None:
        return
    try:
        with open(marker, encoding="ascii") as f:
            if f.read().strip() == want:
                return
    except OSError:
        pass
    flush_caches((*g["SOURCE_MODULES"], g["__name__"]))
    try:
        _write_atomic(marker, want + "\n")
    except OSError:
        pass
