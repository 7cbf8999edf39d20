"""The balance tables (``python -m dungeonrl.benchmarks.balance GAME``) on
tiny games counts: every game of the data file plays its first cell, the
figures agree with one another and are reproducible, the heuristic arm agrees
with stepping the same games one decision at a time through the core, and
the command writes its JSON and markdown."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dungeonrl.benchmarks import balance as B
from dungeonrl.envs.core.common import resolve_core
from dungeonrl.envs.core.kernel.rng import rng_seed

GAMES = sorted(B.load())


def _first_cell(game):
    rec = B.load()[game]
    return {**rec.get("options", {}), **B.cells(rec)[0]}


@pytest.mark.parametrize("game", GAMES)
def test_first_cell_figures_are_consistent_and_reproducible(game):
    core = resolve_core(game, _first_cell(game))
    cols = B.load()[game]["columns"]
    for arm in B.ARMS:
        a = B.play_cell(core, arm, 12)
        b = B.play_cell(core, arm, 12)
        assert {k: v for k, v in a.items() if k != "seconds"} == {
            k: v for k, v in b.items() if k != "seconds"
        }
        lo, hi = a["win"]["ci95"]
        assert 0.0 <= lo <= a["win"]["mean"] <= hi <= 1.0
        assert a["decisions"]["mean"] >= 1
        # every column of the table names a figure the game gives
        assert all(c["stat"] in a for c in cols if c["arm"] == arm)
    row = {"settings": B.cells(B.load()[game])[0], "games": 12}
    row.update({arm: B.play_cell(core, arm, 12) for arm in B.ARMS})
    table = B.markdown(game, [row])
    assert table.count("\n") == 2 and "-" in table.splitlines()[1]


def test_heuristic_cell_matches_stepping_the_core():
    """play_rows inside numba gives the same games as the policy stepped
    decision by decision through the core's batched calls."""
    from dungeonrl.envs.dcc_unstoppable import consts as C

    n, seed = 8, 3
    core = resolve_core("dcc_unstoppable", dict(num_players=1, floor=1, mode="arcade"))
    cell = B.play_cell(core, "heuristic", n, seed=seed)
    st = core.alloc(n)
    core.reset(st, np.arange(seed, seed + n, dtype=np.uint64))
    prng = np.zeros((n, 2), np.uint64)
    for i in range(n):
        rng_seed(prng[i], np.uint64(12345), np.uint64(seed + i))
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
    assert cell["win"]["mean"] == pytest.approx(float((st["outcome"] == C.O_WIN).mean()))
    assert cell["turns"]["mean"] == pytest.approx(float(st["turn"].mean()))


def test_rival_seats_play_at_random():
    """In a race the measured seat meets random rivals: the heuristic wins
    more often than the same seat when every racer plays at random."""
    core = resolve_core("dungeon_kart", dict(num_players=4))
    h = B.play_cell(core, "heuristic", 24)
    r = B.play_cell(core, "random", 24)
    assert h["win"]["mean"] > r["win"]["mean"]
    assert h["place"]["mean"] < r["place"]["mean"]


def test_cli_writes_json_and_markdown(tmp_path, capsys):
    path = tmp_path / "t.json"
    argv = ["dcc_unstoppable", "--games", "6", "--set", "floor=1", "--set"]
    argv += ["difficulty=normal,expert", "--json", str(path), "--markdown"]
    assert B.main(argv) == 0
    data = json.loads(path.read_text())
    assert data["game"] == "dcc_unstoppable" and data["games"] == 6 and len(data["rows"]) == 4
    assert data["command"].startswith("python -m dungeonrl.benchmarks.balance dcc_unstoppable")
    assert {(r["settings"]["num_players"], r["settings"]["difficulty"]) for r in data["rows"]} == {
        (1, "normal"),
        (1, "expert"),
        (2, "normal"),
        (2, "expert"),
    }
    table = capsys.readouterr().out
    assert table.count("\n| ") == 4 and "heuristic win %" in table
    assert "Seeds 0..5" in B.section(data)


def test_bad_arguments_are_refused():
    core = resolve_core("unbroken", {})
    with pytest.raises(ValueError, match="games"):
        B.play_cell(core, "heuristic", 0)
    with pytest.raises(ValueError, match="arm"):
        B.play_cell(core, "greedy", 2)
    with pytest.raises(SystemExit):
        B.main(["unbroken", "--games", "0"])
    with pytest.raises(SystemExit):
        B.main(["unbroken", "--set", "difficulty"])
