"""``fill_int`` (envs/core/kernel/memops.py): setting a whole record field or
array to one integer is a single ``memset`` when every byte of the value is
the same in the element's width (0 at any width, -1 for signed integers, any
value for one-byte elements, 0.0 for floats), and an element loop otherwise;
either way the result is numpy's ``arr[...] = v``, and nothing beyond the
array is written."""

from __future__ import annotations

import numpy as np
import pytest
from numba import types

from dungeonrl.envs.core.kernel.jit import JIT, njit
from dungeonrl.envs.core.kernel.memops import _byte_pattern, fill_int

OPTS = dict(JIT, cache=False)

REC = np.dtype(
    [
        ("a", np.int8, (5,)),
        ("b", np.int16, (3, 4)),
        ("c", np.uint8, (7,)),
        ("d", np.float32, (3,)),
        ("f", np.int32, (6,)),
        ("g", np.int64, (2,)),
    ]
)


@njit(**OPTS)
def _fill_record(st):
    fill_int(st.a, -1)
    fill_int(st.b, -1)
    fill_int(st.c, 200)
    fill_int(st.d, 0)
    fill_int(st.f, 7)  # no byte pattern: the element loop
    fill_int(st.g, 0)


@njit(**OPTS)
def _fill_array(arr, v):
    fill_int(arr, v)  # v is no constant here: the element loop


def test_record_fields_filled_and_neighbours_untouched():
    x = np.zeros(3, REC)
    for name in REC.names:
        x[name] = 3
    want = x.copy()
    for name, v in (("a", -1), ("b", -1), ("c", 200), ("d", 0), ("f", 7), ("g", 0)):
        want[1][name][...] = v
    _fill_record(x[1])
    assert x.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint16, np.int64, np.float32])
def test_plain_arrays_and_runtime_values(dtype):
    a = np.full((4, 3), 5, dtype)
    _fill_array(a, 2)
    assert (a == 2).all()
    view = np.full(10, 5, dtype)[::2]  # not contiguous
    _fill_array(view, 0)
    assert (view == 0).all()


def test_byte_patterns():
    assert _byte_pattern(types.int16, -1) == 0xFF
    assert _byte_pattern(types.int32, 0) == 0
    assert _byte_pattern(types.int8, 100) == 100
    assert _byte_pattern(types.uint8, 255) == 255
    assert _byte_pattern(types.int16, 1) is None  # 0x0001: bytes differ
    assert _byte_pattern(types.uint16, -1) is None  # out of range for the type
    assert _byte_pattern(types.int8, 300) is None
    assert _byte_pattern(types.float32, 0) == 0
    assert _byte_pattern(types.float32, 1) is None
