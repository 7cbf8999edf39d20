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


def test_markdown_shows_an_earlier_run_beside():
    doc = {
        "cold": {"dungeonrl/Unbroken-v0": 30.0},
        "warm": {"dungeonrl/Unbroken-v0": 1.0},
        "precompile": 100.0,
        "jobs": 2,
        "machine": {"cores": 2, "cpu": "X"},
        "load": [1.0, 1.0, 1.0],
        "date": "2026-12-02",
        "commit": "bbbbbbb",
        "before": {
            "commit": "aaaaaaa",
            "cold": {"dungeonrl/Unbroken-v0": 40.0},
            "precompile": 120.0,
        },
    }
    md = markdown(doc)
    assert "| game | empty cache, before (aaaaaaa) | empty cache | after the precompile |" in md
    assert "| dungeonrl/Unbroken-v0 | 40.0 s | 30.0 s | 1.0 s |" in md
    assert "(before: 120 s)" in md and "at bbbbbbb" in md
    assert "--before" in md


def test_commit_of_names_this_checkout():
    import sys

    from dungeonrl.benchmarks.cold_start import commit_of

    got = commit_of(sys.executable)
    assert got is None or (len(got) >= 7 and all(c in "0123456789abcdef" for c in got))


def test_markdown_says_when_the_envs_were_ready():
    doc = {
        "cold": {"dungeonrl/Unbroken-v0": 30.0},
        "warm": {"dungeonrl/Unbroken-v0": 1.0},
        "precompile": 66.0,
        "precompile_envs": 54.2,
        "jobs": 2,
        "machine": {"cores": 2, "cpu": "X"},
        "load": [1.0, 1.0, 1.0],
        "date": "2026-12-04",
    }
    assert "their envs (Gymnasium, vector, PettingZoo) were ready at 54 s" in markdown(doc)


def test_envs_ready_is_the_wall_time_less_what_ran_after(tmp_path):
    import json

    from dungeonrl.benchmarks.cold_start import envs_ready

    rep = tmp_path / "p.json"
    rep.write_text(
        json.dumps(
            [
                {"game": "a", "ready": {"envs": 50.0, "agents": 60.0}},
                {"game": "b", "ready": {"envs": 40.0, "agents": 64.0}},
            ]
        )
    )
    # the last part ended at 64 s in-process, the envs at 50 s: 14 s after
    assert envs_ready(70.0, str(rep)) == 56.0
    rep.write_text(json.dumps([{"game": "a", "seconds": 3.0}]))  # an older precompile
    assert envs_ready(70.0, str(rep)) is None
    assert envs_ready(70.0, str(tmp_path / "missing.json")) is None


def test_measured_processes_start_outside_any_checkout():
    # `python -c` puts its working folder first on the import path: started
    # inside a checkout, `--python OTHER` would import that checkout's
    # dungeonrl package instead of OTHER's
    import os

    from dungeonrl.benchmarks.cold_start import OUTSIDE

    assert not os.path.exists(os.path.join(OUTSIDE, "dungeonrl"))
    assert not os.path.exists(os.path.join(OUTSIDE, "pyproject.toml"))
