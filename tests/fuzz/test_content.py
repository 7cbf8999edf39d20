"""Hypothesis fuzz of the content loaders for every registered game: one
value of a shipped content file is replaced (wrong type, out-of-range
number, deleted, misspelled or added key, duplicated entry) and the folder loaded.
It must be a ``ContentError`` naming the file, or a content on which random
games play with records that pass the game's rules."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
from helpers.fuzz_profiles import choice
from hypothesis import given
from hypothesis import strategies as st

from dungeonrl.benchmarks.fuzz import content_case
from dungeonrl.benchmarks.fuzz import games as list_games


@pytest.mark.parametrize("name", list_games())
@given(data=st.data())
def test_fuzz_content_files(name, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    with tempfile.TemporaryDirectory() as wd:
        assert content_case(name, choice(data), rng, wd) in ("refused", "played", "no content")
