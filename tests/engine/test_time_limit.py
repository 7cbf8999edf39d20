"""The per-test time limit (pyproject.toml's pytest options): a test that
never ends fails with its name, whether it hangs in Python (pytest-timeout
fails it and the run goes on) or inside a numba kernel, which holds the
interpreter so that no Python timer can reach it (faulthandler's watchdog
prints every stack and ends the process; under xdist, as ``make test`` runs,
xdist reports the crashed worker by the test's id and the run goes on).

A hanging test file runs in a subprocess under the suite's own pytest
options, with the limits scaled down from minutes to seconds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]

HANGS = """
import time

from numba import njit


@njit
def spin(n):
    while n >= 0:  # never false: a loop that never leaves compiled code
        n = (n * 3 + 1) % 1000003
    return n


def test_sleeps_in_python():
    while True:
        time.sleep(0.05)


def test_after_the_hang():
    pass


def test_spins_in_a_kernel():
    spin(1)
"""


def options():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["pytest"]["ini_options"]


def test_the_suite_has_a_generous_per_test_limit():
    opt = options()
    assert 120 <= float(opt["timeout"]) <= 600  # minutes, not hours; no cold compile trips it
    assert float(opt["faulthandler_timeout"]) > float(opt["timeout"])  # pytest-timeout first
    assert opt["faulthandler_exit_on_timeout"] is True
    pytest.importorskip("pytest_timeout")


@pytest.mark.parametrize("xdist", [False, True], ids=["plain", "xdist"])
def test_a_hanging_test_fails_by_name(tmp_path, xdist):
    if xdist:
        pytest.importorskip("xdist")
    (tmp_path / "test_hangs.py").write_text(HANGS)
    cmd = [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml")]
    cmd += ["--rootdir", str(tmp_path), "-p", "no:cacheprovider", "-v"]
    cmd += ["-o", "timeout=2", "-o", "faulthandler_timeout=5", "test_hangs.py"]
    if xdist:
        cmd += ["-n", "1"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    res = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    # the Python hang: failed by pytest-timeout, and the next test still ran
    # (-v: "test_hangs.py::test_x FAILED", under xdist "FAILED test_hangs.py::test_x")
    assert re.search(r"FAILED test_hangs.py::test_sleeps_in_python\b", out) or (
        "test_hangs.py::test_sleeps_in_python FAILED" in out
    ), out
    assert re.search(r"PASSED test_hangs.py::test_after_the_hang|test_after_the_hang PASSED", out)
    # the hang in compiled code: the watchdog's stack names the test
    assert "Timeout (0:00:05)!" in out and "in test_spins_in_a_kernel" in out, out
    if xdist:  # and xdist names the crashed worker's test; the run ends normally
        assert "crashed while running 'test_hangs.py::test_spins_in_a_kernel'" in out, out
        assert "Timeout (>2.0s) from pytest-timeout" in out, out
        assert "2 failed, 1 passed" in out, out
