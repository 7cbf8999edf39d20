"""Replays (``agents/replay.py``): a game of every title saved and loaded
re-simulates to the same final state; ``dungeonrl record --replay`` writes
one; a truncated, edited or foreign file is refused with a ReplayError
saying what is wrong (never an exception from inside the rules)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.agents.replay import (
    MAX_BYTES,
    ReplayError,
    load_replay,
    record_replay,
    replay_from_json,
    save_replay,
)
from dungeonrl.cli import main as cli_main
from dungeonrl.registry import get_spec

GAMES = [
    ("unbroken", "heuristic", {}),
    ("dungeon_crawler", ["heuristic", "random"], {"num_players": 2}),
    ("dungeon_crawler", "random", {"num_players": 4}),
    ("dungeon_kart", ["random", "heuristic", "random"], {"num_players": 3}),
    ("dcc_unstoppable", "heuristic", {}),
    ("dcc_unstoppable", ["heuristic", "random"], {"num_players": 2}),
]


@pytest.fixture(scope="module")
def dc_replay():
    return record_replay("dungeon_crawler", ["heuristic", "random"], seed=5, num_players=2)


@pytest.mark.parametrize("game, agents, kw", GAMES, ids=lambda x: str(x))
def test_round_trip_re_simulates_to_the_same_game(game, agents, kw, tmp_path):
    rep = record_replay(game, agents, seed=3, **kw)
    assert rep.finished and rep.result and len(rep.actions) > 0
    path = tmp_path / "r.json"
    save_replay(rep, path)
    assert path.stat().st_size < 200_000
    back = load_replay(path)
    assert back == rep
    trace = back.simulate()
    assert len(trace.states) == len(rep.actions) + 1
    # every recorded seat is the one the state waited on
    actors = trace.core.to_play(trace.states[:-1])
    assert np.array_equal(actors, np.asarray(rep.actions) * 0 + np.asarray(rep.actors))
    assert trace.core.is_over(trace.states[-1])


def test_record_command_writes_a_replay(tmp_path, capsys):
    gif, rj = tmp_path / "g.gif", tmp_path / "g.json"
    rc = cli_main(
        ["record", "dungeon_crawler", "--agent", "heuristic", "--seed", "2",
         "--out", str(gif), "--max-frames", "6", "--replay", str(rj)]
    )  # fmt: skip
    assert rc == 0
    assert "the replay (5 decisions)" in capsys.readouterr().out
    rep = load_replay(rj)
    assert len(rep.actions) == 5 and not rep.finished
    assert rep.seats == ["heuristic"] * rep.core().num_players


def _write(tmp_path, d) -> str:
    p = tmp_path / "x.json"
    p.write_text(json.dumps(d) if not isinstance(d, str) else d)
    return str(p)


def _edited(rep, **change) -> dict:
    d = rep.to_json()
    d.update(change)
    return d


def test_truncated_and_garbage_files(tmp_path, dc_replay):
    text = json.dumps(dc_replay.to_json())
    with pytest.raises(ReplayError, match="truncated one"):
        load_replay(_write(tmp_path, text[: len(text) // 2]))
    p = tmp_path / "bin.json"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ReplayError, match="not UTF-8"):
        load_replay(p)
    with pytest.raises(ReplayError, match="not a dungeonrl replay"):
        load_replay(_write(tmp_path, {"hello": 1}))
    with pytest.raises(ReplayError, match="not a dungeonrl replay"):
        load_replay(_write(tmp_path, [1, 2, 3]))
    with pytest.raises(ReplayError, match="cannot read"):
        load_replay(tmp_path / "missing.json")
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(MAX_BYTES + 1)
    with pytest.raises(ReplayError, match="more than a replay may hold"):
        load_replay(big)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"format_version": 99}, "format 99 is not one"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"layout_version": "0" * 16}, "layout"),
        ({"env_id": "dungeonrl/DungeonCrawler-v9"}, "recorded on dungeonrl/DungeonCrawler-v9"),
        ({"core_kwargs": {"num_players": 99}}, "refuses the replay's options"),
        ({"core_kwargs": {"num_players": [2]}}, "core_kwargs must map"),
        ({"seed": -1}, "outside"),
        ({"seed": "3"}, "'seed' must be an integer"),
        ({"actions": [0.5]}, "actors for"),
        ({"finished": "yes"}, "true or false"),
        ({"seats": [1]}, "seats must be"),
    ],
)
def test_edited_fields_are_refused(tmp_path, dc_replay, change, message):
    with pytest.raises(ReplayError, match=message):
        load_replay(_write(tmp_path, _edited(dc_replay, **change)))


def test_edited_decisions_are_refused(tmp_path, dc_replay):
    rep = dc_replay
    n = len(rep.actions)
    # a decision by the other seat
    actors = list(rep.actors)
    actors[3] = 1 - actors[3]
    with pytest.raises(ReplayError, match="decision 3: seat"):
        load_replay(_write(tmp_path, _edited(rep, actors=actors)))
    # an action that is not legal there
    spec = get_spec("dungeon_crawler")
    trace = rep.simulate()
    illegal = int(np.flatnonzero(trace.states[4]["legal"] == 0)[0])
    actions = list(rep.actions)
    actions[4] = illegal
    with pytest.raises(ReplayError, match="decision 4: action"):
        load_replay(_write(tmp_path, _edited(rep, actions=actions)))
    actions[4] = spec.num_actions + 7
    with pytest.raises(ReplayError, match="not legal"):
        load_replay(_write(tmp_path, _edited(rep, actions=actions)))
    # decisions after the end, a missing last decision
    with pytest.raises(ReplayError, match="already over"):
        load_replay(
            _write(tmp_path, _edited(rep, actions=[*rep.actions, 0], actors=[*rep.actors, 0]))
        )
    with pytest.raises(ReplayError, match="goes on"):
        load_replay(
            _write(tmp_path, _edited(rep, actions=rep.actions[: n - 1], actors=rep.actors[: n - 1]))
        )
    # another seed with the same decisions: the digest (or the rules) catch it
    with pytest.raises(ReplayError):
        load_replay(_write(tmp_path, _edited(rep, seed=rep.seed + 1)))
    with pytest.raises(ReplayError, match="final state differs"):
        load_replay(_write(tmp_path, _edited(rep, digest="0" * 64)))


def test_replay_from_json_checks_without_simulating(dc_replay):
    rep = replay_from_json(dc_replay.to_json())
    assert rep == dc_replay


def test_check_command(tmp_path, dc_replay, capsys):
    from dungeonrl.agents.replay import main

    p = tmp_path / "r.json"
    save_replay(dc_replay, p)
    assert main(["check", str(p)]) == 0
    assert "re-simulated exactly" in capsys.readouterr().out
    assert main(["check", _write(tmp_path, "{")]) == 2


def test_league_evaluation_saves_replays_on_request(tmp_path, capsys):
    """``eval --replays DIR``: each pairing's first games as replay files
    that load and re-simulate, seats rotated, names safe for any label."""
    out = tmp_path / "league"
    rc = cli_main(
        [
            "eval",
            "dungeon_kart",
            "--agent",
            "heuristic",
            "--agent",
            "random",
            "--games",
            "4",
            "--replays",
            str(out),
            "--replay-games",
            "3",
        ]
    )
    assert rc == 0
    assert "saved 3 replays" in capsys.readouterr().out
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "heuristic-random-seed0.json",
        "heuristic-random-seed2.json",
        "random-heuristic-seed1.json",
    ]
    for name in names:
        rep = load_replay(out / name)
        assert rep.finished and rep.seats == name.split("-seed")[0].split("-")
        assert rep.seed == int(name.split("seed")[1].split(".")[0])


def test_replay_names_cannot_make_paths():
    from dungeonrl.agents.replay import replay_name

    assert replay_name("../../etc/passwd", "x") == "etc_passwd-x.json"
    assert replay_name("pkg.mod:agent", "seed3") == "pkg.mod_agent-seed3.json"
    assert "/" not in replay_name("/a/b", "c/d") and replay_name("..") == "replay.json"
