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
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload


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


@intrinsic
def _memset_f32(typingctx, dst):
    """Set every element of the float32 array ``dst`` to 0.0."""
    if not (isinstance(dst, types.Array) and dst.dtype == types.float32 and dst.layout == "C"):
        return None
    sig = types.void(dst)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        nbytes = builder.mul(ary.nitems, context.get_constant(types.intp, 4))
        cgutils.memset(builder, ary.data, nbytes, 0)
        return context.get_dummy_value()

    return sig, codegen


def _c_f32(a) -> bool:
    return isinstance(a, types.Array) and a.dtype == types.float32 and a.layout == "C"


def copy_f32(dst, d0, src, s0, n):
    """Copy ``n`` float32 from ``src[s0:]`` to ``dst[d0:]`` (no overlap)."""
    dst[d0:d0 + n] = src[s0:s0 + n]


def copy_row_f32(dst, d0, rows, r, n):
    """``dst[d0:d0 + n] = rows[r, :n]`` (no overlap)."""
    dst[d0:d0 + n] = rows[r, :n]


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
            _memset_f32(dst)
    else:
        def impl(dst):
            for j in range(dst.shape[0]):
                dst[j] = 0.0
    return impl
