"""Half-precision observation rows: the kernels' side of the compact observation.

Every game's encoder writes a float32 row. The compact observation
(``obs_dtype="float16"`` on the envs and the batch) is that same row
rounded to IEEE 754 half precision (round to nearest, ties to even, what
``numpy.ndarray.astype(np.float16)`` gives): half the bytes for the vector
env to write and hand out, the same columns. Numba has no float16 type on
the CPU, so a kernel receives a float16 batch as its ``uint16`` view (the
same bytes; the adapters pass ``obs.view(np.uint16)``).

The template's kernels are written once for both dtypes with three helpers,
chosen at compile time by the type of the observation array:

``obs_scratch(obs, n)``
    a stack row of ``n`` float32 (``n`` a compile-time constant) when
    ``obs`` is a half batch, a one-element placeholder when it is float32
    (the encoder then writes the batch's row in place: no extra work on the
    default path).
``encode_target(out, row)``
    where the encoder writes: ``out`` itself (float32) or the stack ``row``
    (half).
``store_obs(out, row)``
    nothing (float32), or ``row`` rounded to half into ``out``.
``stream_row(dst, src)``
    the streamed copy of a stack row (:func:`.memops.stream_f32` for a
    float32 ``dst``; rounded to half with non-temporal stores for every
    whole 64-byte line of a half ``dst``).

The rounding is one LLVM ``fptrunc`` to ``half`` per column, vectorised
(``vcvtps2ph`` on an x86 CPU with F16C, ``fcvtn`` on ARM64). On a CPU the
compiler cannot convert on (an x86 CPU without F16C, another
architecture, or ``NUMBA_CPU_NAME`` set without ``+f16c``), the same bits
come from :func:`f16_bits_soft`, integer arithmetic per column
(``tests/engine/test_half.py`` checks both against numpy).
"""

from __future__ import annotations

import platform

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .borrow import scratch_f32
from .jit import JIT_INLINE, njit
from .memops import _LINE, stream_f32

__all__ = [
    "HALF_NATIVE",
    "encode_target",
    "f16_bits_soft",
    "store_obs",
    "half_row",
    "obs_scratch",
    "stream_row",
]


def _native() -> bool:
    """Whether the compiler emits half conversions as instructions here."""
    machine = platform.machine().lower()
    if machine in ("aarch64", "arm64"):
        return True
    if machine not in ("x86_64", "amd64"):
        return False
    cpu = getattr(config, "CPU_NAME", None)
    if cpu and cpu != "host":  # a portable cache: only the features it names
        return "+f16c" in (getattr(config, "CPU_FEATURES", None) or "")
    return bool(llvm.get_host_cpu_features().get("f16c", False))


#: whether the conversion is one instruction per vector here (else per-column integer code)
HALF_NATIVE = _native()


def _is_f32(a) -> bool:
    return isinstance(a, types.Array) and a.dtype == types.float32 and a.ndim == 1


def _is_u16(a) -> bool:
    return isinstance(a, types.Array) and a.dtype == types.uint16 and a.ndim == 1


def _c(a) -> bool:
    return a.layout == "C"


# --- the native conversion ------------------------------------------------------------
def _half_loop(builder, dp, sp, lo, hi):
    """Columns ``[lo, hi)``, one at a time (plain 2-byte stores)."""
    i64, i16 = ir.IntType(64), ir.IntType(16)
    with cgutils.for_range_slice(builder, lo, hi, i64(1)) as (k, _):
        x = builder.load(builder.gep(sp, [k]), align=4)
        h = builder.bitcast(builder.fptrunc(x, ir.HalfType()), i16)
        builder.store(h, builder.gep(dp, [k]), align=2)


def _half_vectors(builder, dp, sp, start, count, width, align, nontemporal):
    """``count`` vectors of ``width`` columns from column ``start``."""
    i64 = ir.IntType(64)
    vf = ir.VectorType(ir.FloatType(), width)
    vh = ir.VectorType(ir.HalfType(), width)
    vi = ir.VectorType(ir.IntType(16), width)
    nt = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]) if nontemporal else None
    with cgutils.for_range(builder, count) as loop:
        k = builder.add(start, builder.mul(loop.index, i64(width)))
        v = builder.load(builder.bitcast(builder.gep(sp, [k]), vf.as_pointer()), align=4)
        h = builder.bitcast(builder.fptrunc(v, vh), vi)
        st = builder.store(h, builder.bitcast(builder.gep(dp, [k]), vi.as_pointer()), align=align)
        if nt is not None:
            st.set_metadata("nontemporal", nt)


def _half_codegen(nontemporal: bool):
    def codegen(context, builder, signature, args):
        d = context.make_array(signature.args[0])(context, builder, args[0])
        s = context.make_array(signature.args[1])(context, builder, args[1])
        i64 = ir.IntType(64)
        n = builder.extract_value(d.shape, 0)
        dp, sp = d.data, s.data
        if not nontemporal:
            width = 16
            vecs = builder.udiv(n, i64(width))
            _half_vectors(builder, dp, sp, i64(0), vecs, width, 2, False)
            _half_loop(builder, dp, sp, builder.mul(vecs, i64(width)), n)
            return context.get_dummy_value()
        # streamed: columns up to dst's first 64-byte boundary, whole lines, the rest
        per_line = _LINE // 2
        addr = builder.ptrtoint(dp, i64)
        aligned2 = builder.icmp_unsigned("==", builder.and_(addr, i64(1)), i64(0))
        with builder.if_else(aligned2, likely=True) as (then, otherwise):
            with then:
                gap = builder.and_(
                    builder.sub(i64(_LINE), builder.and_(addr, i64(_LINE - 1))), i64(_LINE - 1)
                )
                head = builder.udiv(gap, i64(2))
                head = builder.select(builder.icmp_unsigned(">", head, n), n, head)
                lines = builder.udiv(builder.sub(n, head), i64(per_line))
                body_end = builder.add(head, builder.mul(lines, i64(per_line)))
                _half_loop(builder, dp, sp, i64(0), head)
                _half_vectors(builder, dp, sp, head, lines, per_line, _LINE, True)
                _half_loop(builder, dp, sp, body_end, n)
            with otherwise:
                _half_loop(builder, dp, sp, i64(0), n)
        return context.get_dummy_value()

    return codegen


@intrinsic
def _half_copy(typingctx, dst, src):
    """``dst[k] = half bits of src[k]`` (C-contiguous, same length, no overlap)."""
    if not (_is_u16(dst) and _is_f32(src) and _c(dst) and _c(src)):
        return None
    return types.void(dst, src), _half_codegen(False)


@intrinsic
def _half_stream(typingctx, dst, src):
    """:func:`_half_copy` with non-temporal stores for the whole lines of ``dst``."""
    if not (_is_u16(dst) and _is_f32(src) and _c(dst) and _c(src)):
        return None
    return types.void(dst, src), _half_codegen(True)


# --- the portable conversion ------------------------------------------------------------
@intrinsic
def _f32_bits(typingctx, x):
    """The IEEE bits of the float32 ``x`` as a uint32."""
    if x != types.float32:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))

    return types.uint32(x), codegen


@njit(**JIT_INLINE)
def f16_bits_soft(x):
    """The half-precision bits of the float32 ``x`` (round to nearest, ties
    to even; infinities and NaN kept) with integer arithmetic only."""
    f = np.uint32(_f32_bits(np.float32(x)))
    sign = np.uint32((f >> np.uint32(16)) & np.uint32(0x8000))
    exp = f & np.uint32(0x7F800000)
    mant = f & np.uint32(0x007FFFFF)
    if exp >= np.uint32(0x47800000):  # beyond half's range, infinity or NaN
        if exp == np.uint32(0x7F800000) and mant != 0:
            return np.uint16(sign | np.uint32(0x7E00))  # a quiet NaN
        return np.uint16(sign | np.uint32(0x7C00))
    if exp <= np.uint32(0x38000000):  # a half subnormal, or zero
        if exp < np.uint32(0x33000000):
            return np.uint16(sign)
        e = np.int64(exp >> np.uint32(23))
        m = np.uint64(mant | np.uint32(0x00800000))
        shift = np.uint64(126 - e)  # the bits that fall off, 14 to 24
        rest = m & ((np.uint64(1) << shift) - np.uint64(1))
        half_way = np.uint64(1) << (shift - np.uint64(1))
        q = m >> shift
        if rest > half_way or (rest == half_way and (q & np.uint64(1)) == 1):
            q += np.uint64(1)
        return np.uint16(sign | np.uint32(q))
    h = ((exp - np.uint32(0x38000000)) >> np.uint32(13)) | (mant >> np.uint32(13))
    rest = mant & np.uint32(0x1FFF)
    if rest > np.uint32(0x1000) or (rest == np.uint32(0x1000) and (h & np.uint32(1)) == 1):
        h += np.uint32(1)  # a carry into the exponent is the right rounding too
    return np.uint16(sign | h)


# --- what the kernels call ----------------------------------------------------------------
def half_row(dst, src):
    """``dst[:] = src`` rounded to half, as bits (uint16 ``dst``, float32 ``src``)."""
    dst[:] = src.astype(np.float16).view(np.uint16)


def obs_scratch(obs, n):
    """A float32 stack row of ``n`` for a half batch ``obs`` (see the module doc)."""
    return np.zeros(n if obs.dtype == np.uint16 else 1, np.float32)


def encode_target(out, row):
    """``out`` (float32) or ``row`` (a half ``out``): where the encoder writes."""
    return out if out.dtype == np.float32 else row


def store_obs(out, row):
    """Nothing for float32 ``out``; ``row`` rounded to half into ``out`` otherwise."""
    if out.dtype == np.uint16:
        half_row(out, row)


def stream_row(dst, src):
    """``dst[:] = src`` (float32) or its half bits (uint16 ``dst``), streamed."""
    if dst.dtype == np.uint16:
        half_row(dst, src)
    else:
        dst[:] = src


_OPTS = {"jit_options": {"cache": True}}


# each implementation has its own name (numba's compile events name them)
@overload(half_row, **_OPTS)
def _half_row_ol(dst, src):
    if not (_is_u16(dst) and _is_f32(src)):
        return None
    if HALF_NATIVE and _c(dst) and _c(src):

        def half_row_native(dst, src):
            _half_copy(dst, src)

        return half_row_native

    def half_row_portable(dst, src):
        for j in range(dst.shape[0]):
            dst[j] = f16_bits_soft(src[j])

    return half_row_portable


@overload(obs_scratch, prefer_literal=True, **_OPTS)
def _obs_scratch_ol(obs, n):
    if not isinstance(n, types.IntegerLiteral):
        return None
    if isinstance(obs, types.Array) and obs.dtype == types.uint16:

        def obs_scratch_row(obs, n):
            return scratch_f32(n)

        return obs_scratch_row

    def obs_scratch_none(obs, n):
        return scratch_f32(1)

    return obs_scratch_none


@overload(encode_target, **_OPTS)
def _encode_target_ol(out, row):
    if _is_f32(out):

        def encode_target_out(out, row):
            return out

        return encode_target_out
    if _is_u16(out):

        def encode_target_row(out, row):
            return row

        return encode_target_row
    return None


@overload(store_obs, **_OPTS)
def _store_obs_ol(out, row):
    if _is_f32(out):

        def store_obs_none(out, row):
            pass

        return store_obs_none
    if _is_u16(out):

        def store_obs_half(out, row):
            half_row(out, row)

        return store_obs_half
    return None


@overload(stream_row, **_OPTS)
def _stream_row_ol(dst, src):
    if _is_f32(dst):

        def stream_row_f32(dst, src):
            stream_f32(dst, src)

        return stream_row_f32
    if not _is_u16(dst):
        return None
    if HALF_NATIVE and _c(dst) and _c(src):

        def stream_row_native(dst, src):
            _half_stream(dst, src)

        return stream_row_native

    def stream_row_portable(dst, src):
        half_row(dst, src)

    return stream_row_portable
