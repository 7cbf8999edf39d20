"""Hypothesis fuzz of ``set_state`` for every registered game: records
reached by random play, mutated (random bytes or one field element set to
an edge value), then loaded. Each must be refused (``CorruptStateError`` /
``SnapshotError``, the env unchanged) or be a record on which ``step``,
observation and ``render`` work and every reached record keeps passing the
game's rules (``benchmarks/fuzz.py`` documents one case). Malformed headers
are ``SnapshotError`` with the env unchanged.

A subprocess repeats a short snapshot fuzz with ``NUMBA_BOUNDSCHECK=1``, so
a record the rules accept can never make a kernel read out of bounds.
Longer runs: ``HYPOTHESIS_PROFILE=long`` or ``python -m
dungeonrl.benchmarks.fuzz --cases N``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from helpers.fuzz_profiles import choice
from hypothesis import given
from hypothesis import strategies as st

from dungeonrl.benchmarks.fuzz import (
    HOOKS,
    GameEnv,
    boundscheck_env,
    header_case,
    reached_snapshots,
    snapshot_case,
)
from dungeonrl.benchmarks.fuzz import games as list_games

CASES = (
    [(g, i) for g in list_games() for i in range(len(HOOKS[g].configs))]
    if all(g in HOOKS for g in list_games())
    else []
)
_CACHE = {}


def _setup(name, ci):
    key = (name, ci)
    if key not in _CACHE:
        cfg = HOOKS[name].configs[ci]
        _CACHE[key] = (GameEnv(name, cfg), reached_snapshots(name, cfg, 16, seed=11 + ci))
    return _CACHE[key]


@pytest.mark.parametrize("name,ci", CASES)
@given(data=st.data())
def test_fuzz_snapshot_records(name, ci, data):
    env, bases = _setup(name, ci)
    base = bases[data.draw(st.integers(0, len(bases) - 1), label="base")]
    env.restore(base)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="play_seed"))
    assert snapshot_case(env, base, choice(data), rng) in ("refused", "played")


@pytest.mark.parametrize("name", list_games())
@given(data=st.data())
def test_fuzz_snapshot_headers(name, data):
    env, bases = _setup(name, 0)
    base = bases[data.draw(st.integers(0, len(bases) - 1), label="base")]
    env.restore(base)
    assert header_case(env, base, choice(data)) in ("refused", "played")


def test_snapshot_fuzz_under_numba_boundscheck():
    """A short seeded snapshot fuzz of every game with bounds-checked
    kernels: an accepted record never indexes out of bounds."""
    cmd = [
        sys.executable,
        "-m",
        "dungeonrl.benchmarks.fuzz",
        "--kind",
        "snapshot",
        "--cases",
        "30",
        "--seed",
        "3",
    ]
    # its own numba cache: the default one would hand back unchecked kernels
    r = subprocess.run(cmd, env=boundscheck_env(), capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "numba bounds checks on" in r.stdout and "result: 0 failures" in r.stdout, r.stdout
