"""Arrays without reference counting, for the engine's hot loops.

Numba counts references to every array that owns memory (an argument from
Python, ``np.zeros`` inside a kernel, and every view of them): each time
such an array, or a row of it, is passed to a compiled function that is
not inlined, the caller and the callee add and drop a reference with
atomic instructions (``lock inc``/``lock dec``, ~20 cycles each). In the
generated kernels that happens several times per step: the reward vector
handed to the game's ``apply_row``, the observation row handed to the
encoder, the policy's generator state. Profiled with ``perf`` on the
Unbroken rollout, the two reference-count helpers were ~14 % of the samples.

A view of a structured record's array field (``st.legal``) carries no
owner, so the counting on it is a null test. These helpers give the
kernels the same kind of array for the rest:

``borrow(arr)``
    the same array (data, shape, strides) with no owner reference: for an
    argument of the kernel, which the caller keeps alive for the whole
    call. Rows and slices of it are owner-free too.
``scratch_f32(n)``, ``scratch_u64(n)``
    ``n`` zeroed elements on the stack frame of the calling kernel (``n``
    a compile-time constant), for the per-call reward vector and the
    policy's generator state. Valid until that kernel returns; never
    return one or store it.

Nothing is checked and nothing changes in what is computed: the values
are the same arrays' values, only the counting is gone. Under
``NUMBA_DISABLE_JIT=1`` (the interpreter harness of the conformance tests)
the three are plain Python: the array itself, and ``np.zeros``.
"""

from __future__ import annotations

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array


@intrinsic
def _borrow(typingctx, arr):
    """``arr`` without its owner reference (see the module doc)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(arr)(context, builder, value=args[0])
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()

    return arr(arr), codegen


def _scratch_sig(dtype, n):
    """Signature and codegen of a stack array of ``n`` (a literal) ``dtype``."""
    if not isinstance(n, types.IntegerLiteral) or int(n.literal_value) < 1:
        return None
    count = int(n.literal_value)
    arrty = types.Array(dtype, 1, "C")

    def codegen(context, builder, signature, args):
        llty = context.get_data_type(dtype)
        itemsize = context.get_abi_sizeof(llty)
        size = context.get_constant(types.intp, count)
        step = context.get_constant(types.intp, itemsize)
        ptr = cgutils.alloca_once(builder, llty, size=size)
        cgutils.memset(builder, ptr, context.get_constant(types.intp, count * itemsize), 0)
        ary = context.make_array(arrty)(context, builder)
        populate_array(ary, data=ptr, shape=[size], strides=[step], itemsize=step, meminfo=None)
        return ary._getvalue()

    return arrty(n), codegen


@intrinsic
def _scratch_f32(typingctx, n):
    """``n`` zeroed float32 on the calling kernel's stack (see the module doc)."""
    return _scratch_sig(types.float32, n)


@intrinsic
def _scratch_u64(typingctx, n):
    """``n`` zeroed uint64 on the calling kernel's stack (see the module doc)."""
    return _scratch_sig(types.uint64, n)


if config.DISABLE_JIT:

    def borrow(arr):
        """``arr`` itself (interpreter)."""
        return arr

    def scratch_f32(n):
        """``np.zeros(n, float32)`` (interpreter)."""
        return np.zeros(n, np.float32)

    def scratch_u64(n):
        """``np.zeros(n, uint64)`` (interpreter)."""
        return np.zeros(n, np.uint64)
else:
    borrow, scratch_f32, scratch_u64 = _borrow, _scratch_f32, _scratch_u64
