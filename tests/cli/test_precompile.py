"""``python -m dungeonrl.precompile``: every path of a game driven in a
fresh process (so its kernels are in numba's cache before first use), with
the seconds and, on request, the compile profile."""

from __future__ import annotations

import json

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.precompile import main, precompile, warm


def test_warm_drives_a_multi_seat_game_in_this_process():
    r = warm("dungeon_crawler", profile=True)
    assert r["game"] == "dungeon_crawler" and r["seconds"] > 0
    assert all(isinstance(n, str) and s >= 0 for n, s in r["kernels"])


def test_precompile_runs_in_fresh_processes(tmp_path):
    lines = []
    res = precompile(["unbroken", "dcc_unstoppable"], jobs=2, log=lines.append)
    assert sorted(r["game"] for r in res) == [
        "dungeonrl/DCCUnstoppable-v1",
        "dungeonrl/Unbroken-v0",
    ]
    assert lines[-1].startswith("compiled 2 game(s)")
    out = tmp_path / "t.json"
    assert main(["dungeon_kart", "--jobs", "1", "--json", str(out)]) == 0
    assert json.loads(out.read_text())[0]["game"] == "dungeonrl/DungeonKart-v1"


def test_unknown_game_is_a_usage_error(capsys):
    assert main(["chess"]) == 2
    assert "chess" in capsys.readouterr().err
