"""Say so when a game's numba kernels are about to be compiled.

Every kernel is compiled with ``cache=True`` (:mod:`dungeonrl.envs.core.kernel.jit`):
the first process on a machine compiles a game's kernels, every later one
loads them from numba's on-disk cache in under a second. The first step of
a game from an empty cache took 17 to 32 s on the 2-core reference machine
(each game's ``cold_start_seconds``, declared with it); without a word, that looks like a
hang. :func:`notice_if_cold` is called once per core construction (by
:func:`~dungeonrl.envs.core.common.resolve_core`, which every adapter goes
through) and prints one line to stderr, once per game and process, when
the game's cache is empty. The line gives the game's measured figure and names
``python -m dungeonrl.precompile``, which compiles every game ahead of use.

The check is cheap (no compilation, no file reads): the cached dispatchers
of the game's package (the package of the core's class, e.g.
``dungeonrl.envs.unbroken``) each know their cache index file (numba's
``<module>.<function>-<line>.pyXY.nbi``, located by numba's own cache
locators, so ``NUMBA_CACHE_DIR`` is honoured); the cache is cold when none
of those index files exists. If the dispatchers cannot be inspected (another
numba layout), the fallback calls it cold when the package's
``__pycache__`` folder holds no ``.nbi`` file. Nothing is printed under ``NUMBA_DISABLE_JIT=1``,
when the package has no cached kernels, or when
``DUNGEONRL_QUIET_COMPILE=1``.
"""

from __future__ import annotations

import glob
import os
import sys

from ... import catalog

__all__ = ["notice_if_cold", "cache_is_cold", "cold_start_text", "MESSAGE", "cold_start_seconds"]


def cold_start_seconds() -> dict[str, int]:
    """Each game's first ``gym.make`` + ``reset`` + ``step`` from an empty
    numba cache on the reference machine (2 cores), rounded, as its
    declaration states it (``GameEntry.cold_start_seconds``: the ``cold``
    figures of ``benchmarks/results/cold_start.json``, which ``python -m
    dungeonrl.benchmarks.cold_start`` remeasures); games without one left out."""
    return {
        name: e.cold_start_seconds
        for name, e in catalog.ENTRIES.items()
        if e.cold_start_seconds is not None
    }


#: the machine the cold starts were measured on, as the line says it
REFERENCE_MACHINE = "a 2-core machine"

#: the line printed (``{name}``: the game's name, ``{took}``: its measured
#: figure, see :func:`cold_start_text`; ``{where}``: the cache folder)
MESSAGE = (
    "dungeonrl: compiling {name}'s numba kernels, once: {took}; "
    "`python -m dungeonrl.precompile` compiles every game ahead of use; "
    "later runs load them from the cache ({where})"
)

_noticed: set[str] = set()


def _package_of(core) -> str | None:
    module = type(core).__module__
    if not module:
        return None
    return module.rpartition(".")[0] or module


def _index_files(package: str):
    """``(index_file, cache_folder)`` of every numba dispatcher with an on-disk
    cache among the loaded modules of ``package``."""
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == package or name.startswith(package + ".")):
            continue
        for obj in list(vars(mod).values()):
            src = getattr(getattr(obj, "py_func", None), "__module__", None) or ""
            if not (src == package or src.startswith(package + ".")):
                continue  # a kernel of another package, imported by name
            cache_file = getattr(getattr(obj, "_cache", None), "_cache_file", None)
            index = getattr(cache_file, "_index_path", None)
            if isinstance(index, str):
                yield index, os.path.dirname(index)


def cache_is_cold(core) -> tuple[bool, str | None]:
    """``(cold, cache_folder)`` for the game of ``core``: cold when none of its
    package's cached kernels has an index file yet."""
    package = _package_of(core)
    if package is None:
        return False, None
    try:
        folders = []
        for index, folder in _index_files(package):
            if os.path.exists(index):
                return False, folder
            folders.append(folder)
        return (True, folders[0]) if folders else (False, None)
    except Exception:  # pragma: no cover - numba internals changed: the fallback
        pass
    src = getattr(sys.modules.get(type(core).__module__), "__file__", None)
    if not src:
        return False, None
    pycache = os.path.join(os.path.dirname(os.path.abspath(src)), "__pycache__")
    return not glob.glob(os.path.join(pycache, "*.nbi")), pycache


def cold_start_text(name: str) -> str:
    """What a first step of game ``name`` costs on an empty cache, as the
    notice says it: the game's measured figure, or the shipped games' range
    for a game that was not measured."""
    measured = cold_start_seconds()
    secs = measured.get(name)
    if secs is not None:
        return f"about {secs} s (measured on {REFERENCE_MACHINE})"
    lo, hi = min(measured.values()), max(measured.values())
    return f"{lo} to {hi} s for each shipped game (measured on {REFERENCE_MACHINE})"


def notice_if_cold(core, stream=None) -> bool:
    """Print :data:`MESSAGE` to ``stream`` (default stderr) when the game's
    kernels are not cached yet, once per game and process; returns whether it
    printed."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    if os.environ.get("DUNGEONRL_QUIET_COMPILE", "0") not in ("", "0"):
        return False
    spec = getattr(core, "spec", None)
    name = getattr(spec, "name", None) or type(core).__name__
    if name in _noticed:
        return False
    cold, where = cache_is_cold(core)
    if not cold:
        _noticed.add(name)  # warm now: later constructions need no check either
        return False
    _noticed.add(name)
    stream = sys.stderr if stream is None else stream
    print(
        MESSAGE.format(name=name, took=cold_start_text(name), where=where),
        file=stream,
        flush=True,
    )
    return True
