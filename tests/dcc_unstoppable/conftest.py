"""Shared set-up of the Dungeon Crawler Carl: Unstoppable tests."""

import pytest

from dungeonrl import registry


@pytest.fixture(scope="module", autouse=True)
def _registered():
    """The game's ids are registered (Gymnasium and PettingZoo) before each module runs."""
    registry.register_module("dungeonrl.envs.dcc_unstoppable")
