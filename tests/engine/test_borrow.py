"""The owner-free arrays of the generated kernels (envs/core/kernel/borrow.py,
issue 12): same values as the arrays they stand for, scratch zeroed on
every call and allocated nowhere."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from dungeonrl.envs.core.kernel.borrow import borrow, scratch_f32, scratch_u64

SEATS = 3


@njit(cache=False)
def _fill(row, v):
    for j in range(row.shape[0]):
        row[j] = v + j


@njit(cache=False)
def _fill_rows(a):
    b = borrow(a)
    for i in range(b.shape[0]):
        _fill(b[i], 10.0 * i)


@njit(cache=False)
def _scratch_sum(add):
    r = scratch_f32(SEATS)
    u = scratch_u64(2)
    before = r.sum() + u.sum()
    for j in range(SEATS):
        r[j] += add
    u[1] = 7
    return before, r.sum(), u[1], r.shape[0], u.shape[0]


def test_borrowed_rows_write_through_to_the_owner():
    a = np.full((4, 3), -1.0)
    _fill_rows(a)
    assert np.array_equal(a, np.arange(4)[:, None] * 10.0 + np.arange(3)[None, :])


def test_borrow_keeps_shape_strides_and_non_contiguous_views():
    @njit(cache=False)
    def shape_of(a):
        b = borrow(a)
        return b.shape[0], b.shape[1], b[1, 2], b.strides[0], b.strides[1]

    a = np.arange(24, dtype=np.int64).reshape(4, 6)[:, ::2]  # layout "A"
    assert shape_of(a) == (4, 3, a[1, 2], a.strides[0], a.strides[1])


def test_scratch_is_zeroed_on_every_call():
    for add in (1.5, 2.5, 4.0):
        before, after, u1, n, m = _scratch_sum(add)
        assert before == 0.0  # nothing left from the last call
        assert after == pytest.approx(SEATS * add) and u1 == 7 and (n, m) == (SEATS, 2)


def test_scratch_needs_a_compile_time_size():
    @njit(cache=False)
    def runtime_size(n):
        return scratch_f32(n).shape[0]

    with pytest.raises(TypingError):
        runtime_size(3)


def test_scratch_compiles_to_no_allocation():
    """The kernels' pattern allocates nothing (np.zeros does)."""

    @njit(cache=False)
    def with_zeros(a):
        r = np.zeros(SEATS, np.float32)
        _fill(a[0], r[0])

    @njit(cache=False)
    def with_scratch(a):
        r = scratch_f32(SEATS)
        b = borrow(a)
        _fill(b[0], r[0])

    a = np.zeros((2, 3))
    with_zeros(a)
    with_scratch(a)
    ir_zeros = "".join(with_zeros.inspect_llvm().values())
    ir_scratch = "".join(with_scratch.inspect_llvm().values())
    assert "NRT_MemInfo_alloc" in ir_zeros
    assert "NRT_MemInfo_alloc" not in ir_scratch
