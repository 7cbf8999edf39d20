"""Machine code only for the functions Python calls
(``envs/core/kernel/lazycode.py``): a helper compiled because a kernel calls
it is linked into that kernel without code of its own; calling it from
Python later, a fast-call lookup, errors raised inside it and the disk
cache (a helper cached as bitcode, loaded by a later process for a new
caller, then called from Python and re-cached as code) all behave as plain
numba does.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from dungeonrl.envs.core.kernel import lazycode
from dungeonrl.envs.core.kernel.fastcall import entry_point
from dungeonrl.envs.core.kernel.jit import njit

OPTS = dict(cache=False, nogil=True, boundscheck=False, error_model="numpy")


def _tree():
    """``kernel`` -> ``middle`` -> ``leaf`` (which raises on a negative count)."""

    @njit(**OPTS)
    def leaf(a, k):
        if k < 0:
            raise ValueError("negative count")
        s = 0.0
        for i in range(k):
            s += a[i % a.shape[0]] * (i + 1)
        return s

    @njit(**OPTS)
    def middle(a, k):
        return leaf(a, k) + leaf(a, k + 1)

    @njit(**OPTS)
    def kernel(a, k):
        return middle(a, k) * 2.0

    return leaf, middle, kernel


def _want(a, k):
    def leaf(k):
        return sum(float(a[i % len(a)]) * (i + 1) for i in range(k))

    return (leaf(k) + leaf(k + 1)) * 2.0


def _entry(disp):
    (cres,) = disp.overloads.values()
    return cres


def test_helpers_compiled_for_a_caller_get_no_code_of_their_own():
    leaf, middle, kernel = _tree()
    a = np.arange(5, dtype=np.float64)
    assert kernel(a, 7) == _want(a, 7)
    for helper in (leaf, middle):
        cres = _entry(helper)
        assert isinstance(cres.entry_point, lazycode.Deferred)
        assert isinstance(cres.library, lazycode.LazyCodeLibrary)
        assert cres.library._pending  # linked into kernel, never emitted
    top = _entry(kernel)
    assert callable(top.entry_point) and not top.library._pending


def test_python_may_call_a_helper_later():
    leaf, middle, kernel = _tree()
    a = np.linspace(-1.0, 1.0, 9)
    kernel(a, 4)
    assert isinstance(_entry(middle).entry_point, lazycode.Deferred)
    assert middle(a, 4) == _want(a, 4) / 2.0
    cres = _entry(middle)
    assert callable(cres.entry_point) and not cres.library._pending
    assert middle(a, 4) == _want(a, 4) / 2.0  # now through numba's own table

    # a later caller still links it
    @njit(**OPTS)
    def other(a, k):
        return middle(a, k) - 1.0

    assert other(a, 3) == _want(a, 3) / 2.0 - 1.0


def test_fast_call_lookup_of_a_helper_is_callable():
    leaf, middle, kernel = _tree()
    a = np.ones(3)
    kernel(a, 2)
    fn = entry_point(leaf, (a, 5))
    assert fn is not leaf and callable(fn)
    assert fn(a, 5) == 15.0


def test_errors_raised_in_a_deferred_helper_reach_python():
    leaf, middle, kernel = _tree()
    a = np.ones(2)
    kernel(a, 1)
    with pytest.raises(ValueError, match="negative count"):
        kernel(a, -3)
    with pytest.raises(ValueError, match="negative count"):
        leaf(a, -1)


def test_plain_numba_beside_it_is_unchanged():
    import numba

    @numba.njit
    def plain(x):
        return np.sum(x * x)

    x = np.arange(4.0)
    assert plain(x) == 14.0
    assert callable(_entry(plain).entry_point)


def test_a_plain_numba_caller_links_a_deferred_kernel():
    import numba

    leaf, middle, kernel = _tree()

    @numba.njit
    def user(a, k):
        return kernel(a, k) + 1.0

    a = np.arange(3.0)
    assert user(a, 4) == _want(a, 4) + 1.0
    assert isinstance(_entry(kernel).entry_point, lazycode.Deferred)
    assert kernel(a, 4) == _want(a, 4)  # and Python may still call it


MODULE = """
import numpy as np
from dungeonrl.envs.core.kernel.jit import JIT, njit

@njit(**JIT)
def helper(a, k):
    s = 0
    for i in range(k):
        s += a[i % a.shape[0]]
    return s

@njit(**JIT)
def first(a, k):
    return helper(a, k) + 1

@njit(**JIT)
def second(a, k):
    return helper(a, k) * 3
"""

RUN = """
import sys, numpy as np
sys.path.insert(0, {folder!r})
import lazymod as m
from dungeonrl.envs.core.kernel import lazycode
a = np.arange(6, dtype=np.int64)
step = sys.argv[1]
if step == "1":
    print(m.first(a, 9))
elif step == "2":
    print(m.second(a, 9))
    (cres,) = m.helper.overloads.values()
    # loaded from the cache as bitcode, linked into `second`, not emitted
    assert lazycode.from_bitcode(cres.library) and cres.library._pending
    print(m.helper(a, 9))
    (cres,) = m.helper.overloads.values()
    assert callable(cres.entry_point) and not lazycode.from_bitcode(cres.library)
else:
    print(m.helper(a, 9), m.first(a, 9), m.second(a, 9))
    (cres,) = m.helper.overloads.values()
    # re-cached as machine code by step 2: loaded as code
    assert not lazycode.from_bitcode(cres.library) and callable(cres.entry_point)
"""


def test_disk_cache_holds_bitcode_for_helpers_and_code_once_python_calls(tmp_path):
    (tmp_path / "lazymod.py").write_text(MODULE)
    script = tmp_path / "run.py"
    script.write_text(RUN.format(folder=str(tmp_path)))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    want = sum(range(6)) + sum(range(3))  # a[0..8 % 6]

    def run(step):
        r = subprocess.run(
            [sys.executable, str(script), step], capture_output=True, text=True, env=env
        )
        assert r.returncode == 0, r.stderr
        return r.stdout.split()

    assert run("1") == [str(want + 1)]
    assert run("2") == [str(want * 3), str(want)]
    assert run("3") == [str(want), str(want + 1), str(want * 3)]
