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
    assert lines[-1].startswith("compiled 2 game(s)") and "envs ready at" in lines[-1]
    for r in res:
        assert set(r["parts"]) == {"envs", "agents"}
        assert r["seconds"] == sum(r["parts"].values())
        # a game's agents part is started only once its envs part is done
        assert 0 < r["ready"]["envs"] < r["ready"]["agents"]
    # both envs parts are given out before any agents part
    envs_lines = [i for i, ln in enumerate(lines) if "(envs)" in ln]
    assert len(envs_lines) == 2 and len([ln for ln in lines if "(agents)" in ln]) == 2
    out = tmp_path / "t.json"
    assert main(["dungeon_kart", "--jobs", "1", "--json", str(out)]) == 0
    assert json.loads(out.read_text())[0]["game"] == "dungeonrl/DungeonKart-v1"


def test_warm_drives_one_part_and_rejects_another_name():
    import pytest

    r = warm("unbroken", part="envs")
    assert r["part"] == "envs" and r["seconds"] > 0
    with pytest.raises(ValueError, match="part must be"):
        warm("unbroken", part="everything")


def test_longest_envs_part_first_unmeasured_last():
    from dungeonrl.precompile import PART_SECONDS, _order

    known = sorted(PART_SECONDS, key=lambda n: PART_SECONDS[n]["envs"])
    got = _order(["new/Game-v0", *known])
    assert got == [*reversed(known), "new/Game-v0"]


def test_merge_sums_a_games_parts():
    from dungeonrl.precompile import merge

    envs = {
        "game": "g",
        "part": "envs",
        "seconds": 3.0,
        "kernels": [["a", 2.0], ["b", 1.0]],
        "entry_points": [["a", 2.0]],
        "exclusive": [["a", 1.0, 1], ["b", 1.0, 1]],
        "compiles": 2,
    }
    agents = {
        "game": "g",
        "part": "agents",
        "seconds": 2.0,
        "kernels": [["c", 1.5], ["b", 0.5]],
        "entry_points": [["c", 1.5]],
        "exclusive": [["c", 1.0, 1], ["b", 0.5, 1]],
        "compiles": 2,
    }
    m = merge([envs, agents])
    assert m["seconds"] == 5.0 and m["parts"] == {"envs": 3.0, "agents": 2.0}
    assert m["kernels"] == [["a", 2.0], ["c", 1.5], ["b", 1.0], ["b", 0.5]]
    assert m["entry_points"] == [["a", 2.0], ["c", 1.5]]
    assert m["exclusive"][0] == ["b", 1.5, 2] and m["compiles"] == 4
    # without a profile (no compile events recorded) there is nothing to merge
    keep = ("game", "part", "seconds")
    bare = [{k: r[k] for k in keep} | {"kernels": []} for r in (envs, agents)]
    assert merge(bare) == {
        "game": "g",
        "seconds": 5.0,
        "parts": {"envs": 3.0, "agents": 2.0},
        "kernels": [],
    }


def test_unknown_game_is_a_usage_error(capsys):
    assert main(["chess"]) == 2
    assert "chess" in capsys.readouterr().err


class _Ev:
    def __init__(self, name, start):
        self.data = {"name": name}
        self.is_start = start


def test_compile_profile_splits_own_time_from_callees():
    from dungeonrl.precompile import compile_profile

    # k compiles f (1 s own) which compiles g (2 s); then g again for
    # another signature (0.5 s); then kernel h from Python (1 s)
    buf = [
        (0.0, _Ev("k", True)),
        (1.0, _Ev("f", True)),
        (2.0, _Ev("g", True)),
        (4.0, _Ev("g", False)),
        (5.0, _Ev("f", False)),
        (5.0, _Ev("g", True)),
        (5.5, _Ev("g", False)),
        (6.0, _Ev("k", False)),
        (6.0, _Ev("h", True)),
        (7.0, _Ev("h", False)),
    ]
    p = compile_profile(buf)
    assert p["compiles"] == 5
    assert p["entry_points"] == [["k", 6.0], ["h", 1.0]]
    own = {n: (s, c) for n, s, c in p["exclusive"]}
    assert own["g"] == (2.5, 2)
    assert own["f"] == (2.0, 1)
    assert own["k"] == (1.5, 1)
    assert p["exclusive"][0][0] == "g"
    assert p["kernels"][0] == ["k", 6.0]


def test_markdown_names_entry_points_and_repeated_signatures():
    from dungeonrl.benchmarks.compile_profile import markdown

    res = [
        {
            "game": "dungeonrl/Unbroken-v0",
            "seconds": 60.0,
            "compiles": 3,
            "entry_points": [["dungeonrl.envs.unbroken.kernels.reset_batch", 40.0]],
            "exclusive": [["dungeonrl.envs.unbroken.rules.apply_row", 5.0, 2]],
        }
    ]
    md = markdown(res)
    assert "| dungeonrl/Unbroken-v0 | 60 | 3 | `unbroken.kernels.reset_batch` 40.0 s |" in md
    assert "`unbroken.rules.apply_row` 5.0 s (2 signatures)" in md
    assert "--profile" in md
