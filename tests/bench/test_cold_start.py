"""The cold-start benchmark's table (the benchmark itself runs minutes of
compilation: ``python -m dungeonrl.benchmarks.cold_start``)."""

from __future__ import annotations

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.benchmarks.cold_start import markdown


def test_markdown_lists_every_game():
    doc = {
        "cold": {"dungeonrl/Unbroken-v0": 38.2, "dungeonrl/DungeonKart-v1": 90.0},
        "warm": {"dungeonrl/Unbroken-v0": 1.5, "dungeonrl/DungeonKart-v1": 2.0},
        "precompile": 120.0,
        "jobs": 2,
        "machine": {"cores": 2, "cpu": "X"},
        "load": [1.0, 1.0, 1.0],
        "date": "2026-12-02",
    }
    md = markdown(doc)
    assert "| dungeonrl/Unbroken-v0 | 38.2 s | 1.5 s |" in md
    assert "precompiled in 120 s with 2 processes" in md
