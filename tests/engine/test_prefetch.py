"""Prefetching the next rows of a big batch (envs/core/kernel/memops.py):
``prefetch_record`` emits one prefetch per cache line of a record, is a
no-op for an index outside the array and changes nothing it touches; the
generated batch kernels that step one decision per row issue it a few rows
ahead (their results are the goldens', tests/golden)."""

from __future__ import annotations

import inspect
import re

import numpy as np
from numba import njit

from dungeonrl.envs.core.kernel import template
from dungeonrl.envs.core.kernel.memops import (
    PREFETCH_AHEAD,
    prefetch_record,
    prefetch_row_of,
)

REC = np.dtype([("a", np.int64, (20,)), ("b", np.float32, (9,))])  # 196 bytes: 4 lines


@njit(cache=False)
def _touch_all(arr, lo, hi):
    for i in range(lo, hi):
        prefetch_record(arr, i)


@njit(cache=False)
def _touch_one(arr, i):
    prefetch_record(arr, i)


@njit(cache=False)
def _touch_rows(arr, rows, lo, hi):
    for j in range(lo, hi):
        prefetch_row_of(arr, rows, j)


def _filled(n):
    arr = np.zeros(n, REC)
    arr["a"] = np.arange(n * 20).reshape(n, 20)
    arr["b"] = 0.5
    return arr


def test_prefetch_changes_nothing_and_ignores_indices_outside_the_array():
    arr = _filled(7)
    before = arr.copy()
    _touch_all(arr, -50, 60)  # every row, and far outside both ends
    assert arr.tobytes() == before.tobytes()
    _touch_all(arr[:0], -3, 3)  # an empty array
    rows = np.array([6, 0, 3], np.int64)
    _touch_rows(arr, rows, 0, 10)  # j past the end of rows
    assert arr.tobytes() == before.tobytes()


def test_one_prefetch_per_cache_line_of_the_record():
    _touch_one(_filled(2), 1)
    ir = next(iter(_touch_one.inspect_llvm().values()))
    calls = re.findall(r"call void @llvm\.prefetch", ir)
    assert len(calls) == -(-REC.itemsize // 64) == 4, ir.count("prefetch")


def test_the_batch_kernels_prefetch_ahead():
    assert PREFETCH_AHEAD >= 1
    fused = inspect.getsource(template.step_autoreset.py_func)
    assert "prefetch_record(states, i + PREFETCH_AHEAD)" in fused
    for kernel in (template.step_rows, template.observe_rows, template.advance_scripted):
        src = inspect.getsource(kernel.py_func)
        assert "prefetch_row_of(states, rows, j + PREFETCH_AHEAD)" in src, kernel
