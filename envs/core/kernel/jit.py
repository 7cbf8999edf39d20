"""One compile policy for every kernel of the suite.

``JIT`` is the keyword set passed to :func:`njit` everywhere: cached to disk
(so a warm start skips compilation), no fastmath (results must be exact and
identical with ``NUMBA_DISABLE_JIT=1``), no parallel loops (batch kernels
are plain loops; determinism never depends on threads), and numpy's error
model: no zero test before each integer division or modulo (the rules never
divide by zero; with the JIT off, Python would still raise).

:func:`njit` is ``numba.njit`` with one change, for compile time. Plain
numba compiles a kernel called from another kernel once for every integer
width its scalar arguments arrive with. The rules read counts and ids out of ``int8``,
``int16`` and ``uint8`` fields, so a helper called once with a field and
once with a loop index was compiled twice (with every helper below it): up
to a fifth of a game's first-use compile. Here a scalar integer argument
narrower than 64 bits is passed widened (signed to ``int64``, unsigned to
``uint32``), which numba's own arithmetic does anyway (every integer
operation on narrow scalars already yields a 64-bit result of the same
signedness), so the rules compute exactly what they computed before.
Integer and boolean constants are passed the same way, as plain values:
numba would otherwise compile a helper once for each constant it is called
with (``shuffle(st, pile, 0)`` and ``shuffle(st, pile, n)`` were two
compiles of the shuffle and everything below it), while the constant buys
nothing once LLVM inlines the helper into the kernel that Python calls and
propagates it there. A helper that needs the constant itself (one that
allocates a stack array of that size, say) fails to type without it and is
then compiled for the constant, as plain numba would. Arrays and records are
passed as they are.
"""

from __future__ import annotations

from numba.core import config, errors, sigutils, types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

from . import lazycode

JIT = dict(cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy")
#: the same, inlined into every caller at numba IR level: for the engine's
#: small per-step helpers (mask refresh, auto-advance, the step wrapper, the
#: random-action draw), which cost ~10% of a Dungeon Crawler step as calls
JIT_INLINE = dict(JIT, inline="always")


_WIDER = {
    types.int8: types.int64,
    types.int16: types.int64,
    types.int32: types.int64,
    types.uint8: types.uint32,
    types.uint16: types.uint32,
}


def widened(ty):
    """The type a kernel-to-kernel call passes a scalar argument of type *ty* as."""
    return _WIDER.get(ty, ty)


def unliteral(ty):
    """*ty* with a literal integer or boolean constant made a plain (widened) value."""
    if isinstance(ty, (types.IntegerLiteral, types.BooleanLiteral)):
        return widened(ty.literal_type)
    return ty


class WideningDispatcher(CPUDispatcher):
    """A CPU dispatcher whose jitted callers pass narrow integers widened,
    and whose functions compiled for a caller get machine code only when
    Python calls them (:mod:`.lazycode`)."""

    def get_call_template(self, args, kws):
        with lazycode.callee_typing():
            return self._call_template(args, kws)

    def _call_template(self, args, kws):
        args = tuple(widened(a) for a in args)
        kws = {k: widened(v) for k, v in kws.items()}
        plain = tuple(unliteral(a) for a in args)
        plain_kws = {k: unliteral(v) for k, v in kws.items()}
        if plain == args and plain_kws == kws:
            return super().get_call_template(args, kws)
        try:
            return super().get_call_template(plain, plain_kws)
        except errors.TypingError:
            # a kernel that needs the constant itself (a literal-only
            # overload below it): compiled for the literal, as numba would
            return super().get_call_template(args, kws)

    def compile(self, sig):
        with lazycode.lazy_target(self.py_func) as target:
            entry = super().compile(sig)
        if target.deferred:
            return entry  # a caller's typing: its key, linked, never called
        args, _ = sigutils.normalize_signature(sig)
        cres = self.overloads.get(tuple(args))
        if cres is not None and (
            isinstance(entry, lazycode.Deferred) or lazycode.from_bitcode(cres.library)
        ):
            entry = self._make_callable(tuple(args), sig)
        return entry

    def add_overload(self, cres):
        if isinstance(cres.entry_point, lazycode.Deferred):
            # typed and linkable, but not in the table Python calls go through
            self.overloads[tuple(cres.signature.args)] = cres
        else:
            super().add_overload(cres)

    def _make_callable(self, args, sig):
        """The real entry point of an overload compiled (or cached) for
        callers only: its machine code emitted now, the disk cache rewritten
        with it (so the next process loads code instead of emitting)."""
        with global_compiler_lock:
            cres = self.overloads[args]
            d = cres.entry_point
            if isinstance(d, lazycode.Deferred):
                entry = lazycode.real_executable(self.targetctx, d.library, d.fndesc, d.env)
                self.targetctx.insert_user_function(entry, d.fndesc, [d.library])
                cres = cres._replace(entry_point=entry)
                super().add_overload(cres)
            if lazycode.from_bitcode(cres.library) or isinstance(d, lazycode.Deferred):
                cres.library._from_bitcode = False
                self._cache.save_overload(sig, cres)
            return cres.entry_point


lazycode.install()


def njit(**options):
    """``numba.njit(**options)`` (decorator form only), with :class:`WideningDispatcher`."""

    def wrap(func):
        if config.DISABLE_JIT:
            return func
        opts = dict(options)
        cache = opts.pop("cache", False)
        opts["nopython"] = True
        opts.setdefault("boundscheck", None)
        disp = WideningDispatcher(py_func=func, locals={}, targetoptions=opts)
        if cache:
            disp.enable_caching()
        return disp

    return wrap
