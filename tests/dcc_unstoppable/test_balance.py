"""The Dungeon Crawler Carl: Unstoppable balance table tool
(``benchmarks/dcc_balance.py``) on a tiny games count: its figures are
consistent with one another, reproducible, and agree with stepping the same
games one decision at a time through the core."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dungeonrl.benchmarks import dcc_balance as B
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable.core import DCCCore


def test_cell_figures_are_consistent_and_reproducible():
    a = B.play_cell(24, 1, "normal", 1, "heuristic")
    b = B.play_cell(24, 1, "normal", 1, "heuristic")
    assert {k: v for k, v in a.items() if k != "seconds"} == {
        k: v for k, v in b.items() if k != "seconds"
    }
    assert a["wins"] + a["loss_health"] + a["loss_skull"] + a["other"] == 24
    assert a["win_rate"] == a["wins"] / 24
    lo, hi = a["ci95"]
    assert 0.0 <= lo <= a["win_rate"] <= hi <= 1.0
    assert a["mean_turns"] >= 1 and a["mean_decisions"] > a["mean_turns"]
    assert a["mean_score"] >= 0 and (a["wins"] > 0 or a["mean_score"] == 0)


def test_heuristic_cell_matches_stepping_the_core():
    """play_rows inside numba gives the same outcomes as the policy stepped
    decision by decision through the core's batched calls."""
    n = 8
    cell = B.play_cell(n, 1, "normal", 1, "heuristic", seed0=3)
    core = DCCCore(num_players=1, floor=1, difficulty="normal", mode="arcade")
    st = core.alloc(n)
    core.reset(st, np.arange(3, 3 + n, dtype=np.uint64))
    prng = np.zeros((n, 2), np.uint64)
    from dungeonrl.envs.core.kernel.rng import rng_seed

    for i in range(n):
        rng_seed(prng[i], np.uint64(12345), np.uint64(i))
    rew = np.zeros((n, 2), np.float32)
    z = np.zeros(n, bool)
    acts = np.zeros(n, np.int64)
    for _ in range(core.max_steps + 1):
        rows = np.flatnonzero(st["outcome"] == 0)
        if len(rows) == 0:
            break
        out = np.zeros(len(rows), np.int64)
        core.policy_rows(st, rows, prng, out)
        acts[rows] = out
        core.step_rows(st, rows, acts, rew, z.copy(), z.copy(), z.copy())
    assert int((st["outcome"] == C.O_WIN).sum()) == cell["wins"]
    assert int((st["outcome"] == C.O_LOSS_HEALTH).sum()) == cell["loss_health"]
    assert float(st["turn"].mean()) == pytest.approx(cell["mean_turns"])


def test_cli_writes_json_and_markdown(tmp_path, capsys):
    path = tmp_path / "t.json"
    B.main(
        [
            "--games",
            "6",
            "--floors",
            "1",
            "--difficulties",
            "normal",
            "expert",
            "--players",
            "1",
            "2",
            "--json",
            str(path),
            "--markdown",
        ]
    )
    data = json.loads(path.read_text())
    assert data["games"] == 6 and len(data["rows"]) == 4
    assert {(r["players"], r["difficulty"]) for r in data["rows"]} == {
        (1, "normal"),
        (1, "expert"),
        (2, "normal"),
        (2, "expert"),
    }
    for r in data["rows"]:
        for p in ("random", "heuristic"):
            assert 0.0 <= r[p]["win_rate"] <= 1.0
    table = capsys.readouterr().out
    assert table.count("\n| ") == 4 and "heuristic win %" in table


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="games"):
        B.play_cell(0, 1, "normal", 1, "heuristic")
    with pytest.raises(ValueError, match="policy"):
        B.play_cell(2, 1, "normal", 1, "greedy")
    with pytest.raises(SystemExit):
        B.main(["--games", "0"])
