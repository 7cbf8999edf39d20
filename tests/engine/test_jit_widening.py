"""The suite's ``njit`` (``envs/core/kernel/jit.py``): a kernel called from
other kernels with narrow and wide integers compiles once, and computes what
plain numba computes (integer arithmetic on narrow scalars is 64-bit in
numba either way, so the widening changes no result: wrap-around of unsigned
differences, sign of signed ones, literals and booleans passed as they are).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import types

from dungeonrl.envs.core.kernel.jit import WideningDispatcher, njit, widened

OPTS = dict(cache=False, nogil=True, boundscheck=False, error_model="numpy")


def _arith(a, b):
    return a - b, a * b, a // (b | 1), (a + b) >> 1, a < b


def _pair(jit):
    """A callee and callers passing it int8, int16, uint8, int64 and literal values."""
    callee = jit(**OPTS)(_arith)

    def narrow(xs, us):
        out = []
        for i in range(xs.shape[0]):
            out.append(callee(xs[i], xs[xs.shape[0] - 1 - i]))
            out.append(callee(us[i], us[us.shape[0] - 1 - i]))
            out.append(callee(np.int16(xs[i]) * 300, xs[i]))
            out.append(callee(np.int64(xs[i]), 7))
        return out

    return callee, jit(**OPTS)(narrow)


def test_widened_types():
    assert widened(types.int8) == types.int64
    assert widened(types.int16) == types.int64
    assert widened(types.int32) == types.int64
    assert widened(types.uint8) == types.uint32
    assert widened(types.uint16) == types.uint32
    for same in (types.int64, types.uint64, types.uint32, types.boolean, types.float32):
        assert widened(same) == same
    lit = types.literal(3)
    assert widened(lit) is lit
    arr = types.Array(types.int8, 1, "C")
    assert widened(arr) == arr


def test_one_compile_per_callee_and_identical_results():
    xs = np.array([-128, -3, -1, 0, 1, 5, 100, 127], dtype=np.int8)
    us = np.array([0, 1, 2, 3, 100, 200, 254, 255], dtype=np.uint8)
    callee, caller = _pair(njit)
    plain_callee, plain_caller = _pair(numba.njit)
    assert isinstance(callee, WideningDispatcher)
    got, want = caller(xs, us), plain_caller(xs, us)
    assert got == want
    # int8, int16, uint8 and int64 scalars share the widened signatures
    # (int64 for the signed, uint32 for the unsigned); plain numba compiles
    # one per width combination
    assert len(plain_callee.signatures) > len(callee.signatures)
    assert {tuple(map(str, s)) for s in callee.signatures} <= {
        ("int64", "int64"),
        ("uint32", "uint32"),
        ("int64", "Literal[int](7)"),
    }


def test_called_from_python_compiles_the_types_given():
    f = njit(**OPTS)(_arith)
    f(np.int8(3), np.int8(5))
    assert [tuple(map(str, s)) for s in f.signatures] == [("int8", "int8")]
