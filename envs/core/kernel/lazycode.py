"""Machine code only for the functions that Python calls.

Numba emits machine code for every function it compiles, as soon as it has
compiled it, the helpers compiled only because a kernel calls them
included. Yet a caller never runs a helper's machine code: it links the
helper's optimised LLVM IR into its own module, optimises the whole and
emits its own code. Emitting each helper on its own (with everything it
links in turn) cost more the deeper the call tree; leaving it out cut
11-16 % of each game's first use (the cold-start table in
docs/benchmarks.md, ``python -m dungeonrl.benchmarks.cold_start``).

Here emission waits until something needs the code:

* :class:`LazyCodeLibrary` (numba's JIT code library, installed as the CPU
  codegen's library class) runs the linking, the optimisation and the
  checks of a finished library as before and emits its machine code at the
  first request for a function pointer or for the object code;
* a function of :mod:`.jit`'s dispatcher that is compiled while a caller is
  being typed gets a :class:`Deferred` entry point instead of a callable
  (:func:`get_executable`): the key callers link it by, holding what the
  real entry point is made from. The dispatcher keeps it out of its
  Python-call table and makes the real one (emitting the code then) when
  Python calls the function, so nothing calls a :class:`Deferred`;
* such a helper goes to the disk cache as its optimised LLVM bitcode (what a
  later caller links) instead of machine code; a function Python calls is
  cached as machine code, as numba does.

A library nobody asks code of (the small ones numba compiles for its own
array and math helpers, linked into a caller) is never emitted either.

Each function's IR and its optimisation are as before. One thing moves:
numba's code generator rewrites a module's IR in place while emitting it
(address sinking, loop strength reduction), and numba used to link a
helper into its callers after that rewrite; callers now link the helper as
the optimiser left it. So a kernel's machine code is not byte-identical to
before; its results are (the goldens) and its speed is the same (paired
A/B in docs/benchmarks.md).

This installs process-wide (:func:`install`, on importing :mod:`.jit`):
other numba code in the process gets the lazy library too, which changes
nothing it can see (whatever Python calls is emitted before it runs).
"""

from __future__ import annotations

import threading
from typing import Any

from numba.core import codegen as _codegen
from numba.core.cpu import CPUContext

__all__ = [
    "Deferred",
    "LazyCodeLibrary",
    "callee_typing",
    "from_bitcode",
    "install",
    "lazy_target",
    "real_executable",
    "supported",
]


class LazyCodeLibrary(_codegen.JITCodeLibrary):
    """A JIT code library whose machine code is emitted on first use."""

    _pending = False  #: finalised (IR final, checked) but not emitted yet
    _from_bitcode = False  #: loaded from a disk-cache entry without machine code

    def _finalize_final_module(self):
        # what finishing a library checks, without the emission (_emit)
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True
        self._pending = True

    def _emit(self) -> None:
        if self._pending:
            self._pending = False
            self._dynamic_globals: list[str] = []  # numba's finishing scans them again
            _codegen.JITCodeLibrary._finalize_final_module(self)
            _set_waiting_envs(self)

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        self._emit()
        return super().get_pointer_to_function(name)

    def _get_compiled_object(self):
        self._ensure_finalized()
        self._emit()
        return super()._get_compiled_object()

    def serialize_using_object_code(self):
        """Object code when the library was emitted, else its bitcode (a
        helper only ever linked into callers)."""
        self._ensure_finalized()
        if self._pending or not self._object_caching_enabled:
            return self.serialize_using_bitcode()
        return super().serialize_using_object_code()

    @classmethod
    def _unserialize(cls, codegen, state):
        self = super()._unserialize(codegen, state)
        if state[1] == "object":
            self._emit()  # the cached machine code, loaded as numba does
        else:
            self._from_bitcode = True
            self.enable_object_caching()  # its code, once emitted, can be cached
        return self


def from_bitcode(library) -> bool:
    """Whether ``library`` came from a disk-cache entry without machine code."""
    return getattr(library, "_from_bitcode", False)


class Deferred:
    """The entry point of a function compiled for its callers only: a key
    for numba's table of compiled functions, never called."""

    __slots__ = ("env", "fndesc", "library")

    def __init__(self, library, fndesc, env):
        self.library = library
        self.fndesc = fndesc
        self.env = env

    def __repr__(self) -> str:
        return f"<Deferred {self.fndesc.qualname}>"


_tls = threading.local()


def _stack() -> list:
    s = getattr(_tls, "stack", None)
    if s is None:
        s = _tls.stack = []
    return s


class callee_typing:
    """Context: a caller is being typed, so the functions compiled inside
    are compiled for it (see :func:`lazy_target`)."""

    def __enter__(self):
        _tls.callee = getattr(_tls, "callee", 0) + 1

    def __exit__(self, *exc):
        _tls.callee -= 1


class lazy_target:
    """Context around one dispatcher compile of ``py_func``: inside a
    caller's typing, its entry point is deferred."""

    def __init__(self, py_func):
        self.deferred = getattr(_tls, "callee", 0) > 0
        self.key = (py_func.__module__, py_func.__qualname__) if self.deferred else None

    def __enter__(self):
        _stack().append(self.key)
        return self

    def __exit__(self, *exc):
        _stack().pop()


#: environments numba set on globals of libraries not emitted yet: name -> env
_waiting_envs: dict = {}
_original_set_env: Any = getattr(_codegen.JITCPUCodegen, "set_env", None)


def set_env(self, env_name, env):
    """``JITCPUCodegen.set_env``: a library loaded from the cache sets the
    environments its code refers to; one not emitted yet has no such global,
    so the environment waits for its emission."""
    if self._engine.get_global_value_address(env_name) == 0:
        _waiting_envs[env_name] = env
    else:
        _original_set_env(self, env_name, env)


def _set_waiting_envs(library) -> None:
    if not _waiting_envs:
        return
    codegen = library.codegen
    for gv in library._final_module.global_variables:
        env = _waiting_envs.pop(gv.name, None)
        if env is not None:
            codegen.set_env(gv.name, env)


_original_get_executable: Any = getattr(CPUContext, "get_executable", None)


def real_executable(context, library, fndesc, env):
    """numba's own entry point (emits the library's machine code)."""
    return _original_get_executable(context, library, fndesc, env)


def get_executable(self, library, fndesc, env):
    """``CPUContext.get_executable``: a :class:`Deferred` for the function a
    :class:`lazy_target` compile is making (its own library, not a helper
    numba compiles along the way), numba's entry point otherwise."""
    s = _stack()
    if s and s[-1] is not None and isinstance(library, LazyCodeLibrary):
        if s[-1] == (fndesc.modname, fndesc.qualname):
            library._ensure_finalized()
            if library._pending:
                return Deferred(library, fndesc, env)
    return real_executable(self, library, fndesc, env)


_installed = False


#: the numba internals this module builds on (a numba without them keeps
#: its own eager emission: slower to compile, never wrong)
NEEDS = (
    (_codegen.CPUCodeLibrary, "_finalize_final_module"),
    (_codegen.CPUCodeLibrary, "_finalize_dynamic_globals"),
    (_codegen.CPUCodeLibrary, "_verify_declare_only_symbols"),
    (_codegen.CPUCodeLibrary, "serialize_using_bitcode"),
    (_codegen.CodeLibrary, "enable_object_caching"),
    (_codegen.JITCPUCodegen, "_library_class"),
    (_codegen.JITCPUCodegen, "set_env"),
    (CPUContext, "get_executable"),
)


def supported() -> bool:
    """Whether this numba has every internal :data:`NEEDS` names."""
    return all(hasattr(cls, name) for cls, name in NEEDS)


def install() -> None:
    """Use the lazy library for every numba CPU JIT compile of the process
    (idempotent; nothing on a numba without the internals it needs)."""
    global _installed
    if _installed or not supported():
        return
    _codegen.JITCPUCodegen._library_class = LazyCodeLibrary
    CPUContext.get_executable = get_executable
    _codegen.JITCPUCodegen.set_env = set_env
    _installed = True
