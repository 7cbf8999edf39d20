"""Raw memory copies for hot encoders: ``copy_f32(dst, d0, src, s0, n)``
copies ``n`` float32 from ``src[s0:]`` to ``dst[d0:]``,
``copy_row_f32(dst, d0, rows, r, n)`` the first ``n`` floats of row ``r`` of
a 2-D table to ``dst[d0:]``, and ``zero_f32(dst)`` clears a whole float32
array, as single LLVM ``memcpy`` / ``memset`` calls
(inlined as a few vector moves when ``n`` is a compile-time constant).

Numba compiles an element loop over two arrays as scalar loads and stores
(it cannot prove that they do not overlap), about 3 floats per ns; a slice
assignment also checks for overlap at run time. These helpers do neither.

Contract (not checked: they are for kernels whose offsets are right by
construction): float32 arrays, the ranges in bounds, the source and
destination ranges not overlapping. An array that is not C-contiguous
(numba layout "A") is served by a plain element loop instead, so the
helpers take any 1-D float32 array.

Prefetching the next rows of a big batch
----------------------------------------
``prefetch_record(states, i)`` asks the CPU to bring every 64-byte line of
record ``states[i]`` into the caches (``llvm.prefetch``, a hint: no fault,
no effect on results; an index outside the array does nothing). A batch
kernel stepping one decision per row over thousands of rows finds each
row's record (1-4 KB) in memory, not in the caches: the rules and the
encoder then wait on a line at a time. Issued a few rows ahead
(``PREFETCH_AHEAD``), the lines arrive while the rows before are stepped.
``prefetch_row_of(states, rows, j)`` does the same for record
``states[rows[j]]`` (a kernel over a subset of rows; nothing when ``j`` is
past the end of ``rows``).

Streaming stores for big observation batches
--------------------------------------------
``stream_f32(dst, src)`` copies the float32 row ``src`` to ``dst`` (same
length, no overlap) with non-temporal stores for every whole 64-byte line
of ``dst`` (plain stores for the partial lines at both ends, and for a
destination not aligned to 4 bytes), and ``store_fence()`` orders them
before anything that follows (``sfence`` on x86, once per kernel call).

Why: a plain store to a line that is not in the cache first reads the
line from memory (read for ownership), so writing an observation batch that
does not fit in the cache moves every byte twice. A streaming store writes
the line without reading it. The generated vector-env kernel
(``step_autoreset``) of a game that declares ``stream_obs`` in its
``KernelFacts`` encodes each row into a stack buffer, which stays in the L1
cache, and streams it to the batch when :func:`stream_rows` says the batch
is big (at least ``STREAM_BATCH_BYTES``; smaller batches stay in the
caches, where plain stores are faster). Whether it pays depends on how the
game's encoder writes its row, so each game declares it from a paired
measurement of its fused step (``python -m dungeonrl.benchmarks.ab
--batch N``, saved in ``benchmarks/results/ab_stream*.json``): Unbroken,
Dungeon Kart and Carl do; Dungeon Crawler does not (0.94-0.99x at 4,096
envs). The bytes written are the same; only how they reach memory differs.

Setting a whole field
---------------------
``fill_int(arr, v)`` sets every element of ``arr`` to ``v``, as numpy's
``arr[...] = v``. When ``v`` is a constant whose bytes are all the same in
the element's width (0 for any integer or float, -1 for a signed integer,
any value for one-byte elements) and ``arr`` is C-contiguous (a record's
field), it is a single ``memset``; otherwise an element loop. It is there
for compile time, not speed: numba lowers each ``field[:] = 0`` to a
generic slice loop of its own, and a reset that clears sixty fields so
compiled a second or more of code.
"""

from __future__ import annotations

import platform

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .jit import JIT_INLINE, njit

#: how many rows ahead the batch kernels prefetch a record
PREFETCH_AHEAD = 2
#: a batch of observation rows smaller than this is never streamed (it fits
#: in the caches; see the module doc)
STREAM_BATCH_BYTES = 4 << 20
_LINE = 64  # bytes per cache line; the streamed body is whole aligned lines


def _data_ptr(context, builder, arrty, arr, index):
    ary = context.make_array(arrty)(context, builder, arr)
    return cgutils.gep(builder, ary.data, index)


@intrinsic
def _memcpy_f32(typingctx, dst, d0, src, s0, n):
    """Copy ``n`` float32 from ``src[s0:]`` to ``dst[d0:]`` (no overlap)."""
    for a in (dst, src):
        if not (isinstance(a, types.Array) and a.dtype == types.float32 and a.layout == "C"):
            return None
    sig = types.void(dst, types.intp, src, types.intp, types.intp)

    def codegen(context, builder, signature, args):
        dst_v, d0_v, src_v, s0_v, n_v = args
        dptr = _data_ptr(context, builder, signature.args[0], dst_v, d0_v)
        sptr = _data_ptr(context, builder, signature.args[2], src_v, s0_v)
        cgutils.raw_memcpy(builder, dptr, sptr, n_v, 4)
        return context.get_dummy_value()

    return sig, codegen


def _byte_pattern(dtype, v):
    """The byte whose repetition spells the integer ``v`` in ``dtype`` (None if none does)."""
    if isinstance(dtype, types.Boolean):
        return v if v in (0, 1) else None
    if isinstance(dtype, types.Float):
        return 0 if v == 0 else None  # all-zero bytes are 0.0
    if not isinstance(dtype, types.Integer):
        return None
    bits = dtype.bitwidth
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dtype.signed else (0, (1 << bits) - 1)
    if not lo <= v <= hi:
        return None
    b = v & 0xFF
    if bits == 8 or v == 0 or (dtype.signed and v == -1):
        return b
    return None


@intrinsic
def _memset_const(typingctx, arr, v):
    """Set every byte of the C-contiguous array ``arr`` to the pattern of constant ``v``."""
    if not (
        isinstance(arr, types.Array) and arr.layout == "C" and isinstance(v, types.IntegerLiteral)
    ):
        return None
    b = _byte_pattern(arr.dtype, int(v.literal_value))
    if b is None:
        return None
    sig = types.void(arr, v)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        ary = context.make_array(arrty)(context, builder, args[0])
        width = context.get_abi_sizeof(context.get_data_type(arrty.dtype))
        nbytes = builder.mul(ary.nitems, context.get_constant(types.intp, width))
        cgutils.memset(builder, ary.data, nbytes, b - 256 if b > 127 else b)
        return context.get_dummy_value()

    return sig, codegen


def _c_f32(a) -> bool:
    return isinstance(a, types.Array) and a.dtype == types.float32 and a.layout == "C"


def copy_f32(dst, d0, src, s0, n):
    """Copy ``n`` float32 from ``src[s0:]`` to ``dst[d0:]`` (no overlap)."""
    dst[d0 : d0 + n] = src[s0 : s0 + n]


def copy_row_f32(dst, d0, rows, r, n):
    """``dst[d0:d0 + n] = rows[r, :n]`` (no overlap)."""
    dst[d0 : d0 + n] = rows[r, :n]


def zero_f32(dst):
    """Set every element of the float32 array ``dst`` to 0.0."""
    dst[:] = 0.0


@overload(copy_f32, jit_options={"cache": True})
def _copy_f32_ol(dst, d0, src, s0, n):
    if _c_f32(dst) and _c_f32(src):

        def impl(dst, d0, src, s0, n):
            _memcpy_f32(dst, d0, src, s0, n)
    else:

        def impl(dst, d0, src, s0, n):
            for j in range(n):
                dst[d0 + j] = src[s0 + j]

    return impl


@overload(copy_row_f32, jit_options={"cache": True})
def _copy_row_f32_ol(dst, d0, rows, r, n):
    if _c_f32(dst) and _c_f32(rows) and rows.ndim == 2:

        def impl(dst, d0, rows, r, n):
            _memcpy_f32(dst, d0, rows, r * rows.shape[1], n)
    else:

        def impl(dst, d0, rows, r, n):
            for j in range(n):
                dst[d0 + j] = rows[r, j]

    return impl


@overload(zero_f32, jit_options={"cache": True})
def _zero_f32_ol(dst):
    if _c_f32(dst):

        def impl(dst):
            _memset_const(dst, 0)
    else:

        def impl(dst):
            for j in range(dst.shape[0]):
                dst[j] = 0.0

    return impl


@intrinsic
def _stream_f32(typingctx, dst, src):
    """``dst[:] = src`` (C-contiguous float32, same length, no overlap) with
    non-temporal stores for the whole 64-byte lines of ``dst``."""
    if not (_c_f32(dst) and _c_f32(src) and dst.ndim == 1 and src.ndim == 1):
        return None
    sig = types.void(dst, src)

    def codegen(context, builder, signature, args):
        d = context.make_array(signature.args[0])(context, builder, args[0])
        s = context.make_array(signature.args[1])(context, builder, args[1])
        i64 = ir.IntType(64)
        f32 = ir.FloatType()
        vec = ir.VectorType(f32, _LINE // 4)
        n = builder.extract_value(d.shape, 0)
        dp, sp = d.data, s.data
        addr = builder.ptrtoint(dp, i64)

        def plain(lo, hi):
            with cgutils.for_range_slice(builder, lo, hi, i64(1)) as (k, _):
                builder.store(
                    builder.load(builder.gep(sp, [k]), align=4), builder.gep(dp, [k]), align=4
                )

        aligned4 = builder.icmp_unsigned("==", builder.and_(addr, i64(3)), i64(0))
        with builder.if_else(aligned4, likely=True) as (then, otherwise):
            with then:
                # floats before the first line boundary, then whole lines, then the rest
                head = builder.udiv(
                    builder.and_(
                        builder.sub(i64(_LINE), builder.and_(addr, i64(_LINE - 1))), i64(_LINE - 1)
                    ),
                    i64(4),
                )
                head = builder.select(builder.icmp_unsigned(">", head, n), n, head)
                lines = builder.udiv(builder.sub(n, head), i64(_LINE // 4))
                body_end = builder.add(head, builder.mul(lines, i64(_LINE // 4)))
                plain(i64(0), head)
                nt = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)])
                with cgutils.for_range(builder, lines) as loop:
                    k = builder.add(head, builder.mul(loop.index, i64(_LINE // 4)))
                    v = builder.load(
                        builder.bitcast(builder.gep(sp, [k]), vec.as_pointer()), align=4
                    )
                    st = builder.store(
                        v, builder.bitcast(builder.gep(dp, [k]), vec.as_pointer()), align=_LINE
                    )
                    st.set_metadata("nontemporal", nt)
                plain(body_end, n)
            with otherwise:
                plain(i64(0), n)
        return context.get_dummy_value()

    return sig, codegen


_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def _fence(typingctx):
    """``sfence`` on x86 (the fence its manuals name for streaming stores);
    a full fence elsewhere."""

    def codegen(context, builder, signature, args):
        if _X86:
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse.sfence"
            )
            builder.call(fn, [])
        else:
            builder.fence("seq_cst")
        return context.get_dummy_value()

    return types.void(), codegen


def stream_f32(dst, src):
    """``dst[:] = src`` with streaming stores (see the module doc)."""
    dst[:] = src


def store_fence():
    """Order the streaming stores before what follows (see the module doc)."""


@overload(stream_f32, jit_options={"cache": True})
def _stream_f32_ol(dst, src):
    if _c_f32(dst) and _c_f32(src) and dst.ndim == 1 and src.ndim == 1:

        def impl(dst, src):
            _stream_f32(dst, src)
    else:

        def impl(dst, src):
            for j in range(dst.shape[0]):
                dst[j] = src[j]

    return impl


@overload(store_fence, jit_options={"cache": True})
def _store_fence_ol():
    def impl():
        _fence()

    return impl


@njit(**JIT_INLINE)
def stream_rows(n_rows, row_bytes):
    """Whether a batch of ``n_rows`` rows of ``row_bytes`` each is big enough
    to be written with streaming stores (see the module doc)."""
    return n_rows * row_bytes >= STREAM_BATCH_BYTES


@intrinsic
def _prefetch_record(typingctx, arr, i):
    """Prefetch (read, all cache levels) every line of ``arr[i]``."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1):
        return None
    nbytes = int(getattr(arr.dtype, "size", 0) or arr.dtype.bitwidth // 8)
    sig = types.void(arr, types.intp)

    def codegen(context, builder, signature, args):
        a = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        base = builder.bitcast(cgutils.gep(builder, a.data, args[1]), i8p)
        # llvmlite mangles the name for its pointer kind (p0i8 or p0)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", [i8p], ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        )
        for off in range(0, nbytes, _LINE):
            # rw 0 (read), locality 3 (keep in every level), cache type 1 (data)
            builder.call(fn, [builder.gep(base, [ir.IntType(64)(off)]), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


def prefetch_record(arr, i):
    """Bring record ``arr[i]`` into the caches (see the module doc)."""


@overload(prefetch_record, jit_options={"cache": True})
def _prefetch_record_ol(arr, i):
    def impl(arr, i):
        if 0 <= i < arr.shape[0]:
            _prefetch_record(arr, i)

    return impl


@njit(**JIT_INLINE)
def prefetch_row_of(states, rows, j):
    """:func:`prefetch_record` of ``states[rows[j]]`` (nothing past the end of ``rows``)."""
    if j < rows.shape[0]:
        prefetch_record(states, rows[j])


def fill_int(arr, v):
    """Set every element of the integer (or boolean) array ``arr`` to ``v``."""
    arr[...] = v


@overload(fill_int, prefer_literal=True, inline="always", jit_options={"cache": True})
def _fill_int_ol(arr, v):
    if (
        isinstance(arr, types.Array)
        and arr.layout == "C"
        and isinstance(v, types.IntegerLiteral)
        and _byte_pattern(arr.dtype, int(v.literal_value)) is not None
    ):

        def impl(arr, v):
            _memset_const(arr, v)

    else:

        def impl(arr, v):
            arr[...] = v

    return impl
