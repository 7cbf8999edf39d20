"""Golden trajectories: the games behave exactly as when the hashes were
recorded (see ``tests/helpers/golden_record.py``). The small set runs in CI; the
full set (hundreds of games) is marked slow."""

import json

import pytest
from helpers.golden_record import GOLDEN, compute


def _check(which: str, small: bool):
    want = json.loads(GOLDEN.read_text())[which]
    got = compute(small=small)
    assert set(got) == set(want), "configurations changed: regenerate tests/golden"
    diff = [k for k in want if got[k] != want[k]]
    assert not diff, f"trajectories changed for {diff}"


def test_golden_small():
    _check("small", small=True)


@pytest.mark.slow
def test_golden_full():
    _check("full", small=False)
