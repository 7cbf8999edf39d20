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


def _offset(x, k):
    return x + k if k > 0 else x - 1


def test_literal_constants_compile_once():
    """A callee called with integer and boolean constants and with a variable
    compiles once, for the plain (widened) types; plain numba compiles one
    signature per constant. Results are the same."""
    callee = njit(**OPTS)(_offset)
    plain_callee = numba.njit(**OPTS)(_offset)

    def make(f):
        def caller(x):
            return f(x, 0) + f(x, 3) + f(x, x) + f(x, True)

        return caller

    caller, plain_caller = njit(**OPTS)(make(callee)), numba.njit(**OPTS)(make(plain_callee))
    for x in (-5, 0, 7):
        assert caller(x) == plain_caller(x)
    assert {tuple(map(str, s)) for s in callee.signatures} == {
        ("int64", "int64"),
        ("int64", "bool"),
    }
    assert len(plain_callee.signatures) > len(callee.signatures)


def test_a_callee_that_needs_the_constant_still_gets_it():
    """``scratch_f32(n)`` types only for a literal ``n``: a kernel passing its
    argument on to it is compiled for the literal after the plain attempt fails."""
    from dungeonrl.envs.core.kernel.borrow import scratch_f32

    @njit(**OPTS)
    def stack_len(n):
        return scratch_f32(n).shape[0]

    @njit(**OPTS)
    def caller():
        return stack_len(6) + stack_len(2)

    assert caller() == 8
    assert {tuple(map(str, s)) for s in stack_len.signatures} == {
        ("Literal[int](6)",),
        ("Literal[int](2)",),
    }
