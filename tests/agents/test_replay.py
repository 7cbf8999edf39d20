"""Replays (``agents/replay.py``): a game of every title saved and loaded
re-simulates to the same final state; ``dungeonrl record --replay`` writes
one; a truncated, edited, forged or foreign file is refused with a
ReplayError naming the field and saying what is wrong (never an exception
from inside the rules): every recorded field is compared with the
re-simulation, a field missing, unknown or given twice is refused."""

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
    with pytest.raises(ReplayError, match=r"actors\[3\]: recorded seat"):
        load_replay(_write(tmp_path, _edited(rep, actors=actors)))
    # an action that is not legal there
    spec = get_spec("dungeon_crawler")
    trace = rep.simulate()
    illegal = int(np.flatnonzero(trace.states[4]["legal"] == 0)[0])
    actions = list(rep.actions)
    actions[4] = illegal
    with pytest.raises(ReplayError, match=r"actions\[4\]: at decision 4 action"):
        load_replay(_write(tmp_path, _edited(rep, actions=actions)))
    actions[4] = spec.num_actions + 7
    with pytest.raises(ReplayError, match="not legal"):
        load_replay(_write(tmp_path, _edited(rep, actions=actions)))
    # decisions after the end, a missing last decision
    with pytest.raises(ReplayError, match=rf"actions\[{n}\]: .* already over"):
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


# --- forged replays: every recorded field is compared with the re-simulation --------------
# Each replay below is a real seeded game recorded by ``record_replay``; only the
# field under test is then edited in the file, as a forger would.


@pytest.fixture(scope="module")
def won_by_seat_2():
    """A 3-seat Dungeon Crawler game whose winner is seat 2."""
    rep = record_replay("dungeon_crawler", "heuristic", seed=4, num_players=3)
    assert rep.finished and rep.result["winner"] == 2
    return rep


@pytest.fixture(scope="module")
def unbroken_win():
    """An Unbroken game won with a score."""
    rep = record_replay("unbroken", "heuristic", seed=3)
    assert rep.result["outcome"] == "win" and rep.result["score"] > 0
    return rep


def _check(tmp_path, d, capsys) -> tuple[int, str]:
    from dungeonrl.agents.replay import main

    rc = main(["check", _write(tmp_path, d)])
    out = capsys.readouterr()
    return rc, out.out + out.err


def test_check_refuses_a_forged_winner(tmp_path, won_by_seat_2, capsys):
    # the forgery: the whole result replaced by another winner
    rc, text = _check(tmp_path, _edited(won_by_seat_2, result={"winner": 0}), capsys)
    assert rc == 2 and "re-simulated exactly" not in text
    assert "result.winner: recorded 0, re-simulated 2" in text
    assert 'result.outcome: missing, re-simulated "win"' in text
    # only the winner changed, the rest of the result left as recorded
    result = {**won_by_seat_2.result, "winner": 1}
    with pytest.raises(ReplayError, match="result.winner: recorded 1, re-simulated 2$"):
        load_replay(_write(tmp_path, _edited(won_by_seat_2, result=result)))
    # the honest file passes
    rc, text = _check(tmp_path, won_by_seat_2.to_json(), capsys)
    assert rc == 0 and "re-simulated exactly" in text


@pytest.mark.parametrize(
    "field, forge, message",
    [
        ("score", lambda r: 999, "result.score: recorded 999, re-simulated {score}"),
        ("score", lambda r: r + 1, "result.score: recorded {plus1}, re-simulated {score}"),
        ("score", float, "result.score: recorded {score}.0, re-simulated {score}"),
        ("title", lambda r: "Hero", 'result.title: recorded "Hero", re-simulated "{title}"'),
        ("level", lambda r: True, "result.level: recorded true, re-simulated {level}"),
    ],
    ids=["score", "score+1", "score-as-float", "title", "level-as-bool"],
)
def test_check_refuses_a_forged_score(tmp_path, unbroken_win, capsys, field, forge, message):
    """Score, title, level: each value and its JSON type must be the
    re-simulated one (79.0 or true is not 79 or 4)."""
    res = unbroken_win.result
    result = {**res, field: forge(res[field])}
    message = message.format(plus1=res["score"] + 1, **res)
    rc, text = _check(tmp_path, _edited(unbroken_win, result=result), capsys)
    assert rc == 2 and message.format(**res) in text, text


def test_check_refuses_forged_per_seat_counts(tmp_path, won_by_seat_2):
    kills = list(won_by_seat_2.result["kills"])
    kills[2] += 5
    result = {**won_by_seat_2.result, "kills": kills}
    with pytest.raises(ReplayError, match=rf"result.kills\[2\]: recorded {kills[2]}, "):
        load_replay(_write(tmp_path, _edited(won_by_seat_2, result=result)))
    result["kills"] = kills[:2]  # a seat dropped
    with pytest.raises(ReplayError, match=r"result.kills: recorded \["):
        load_replay(_write(tmp_path, _edited(won_by_seat_2, result=result)))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"spec_version": 7}, "spec_version: recorded 7, but dungeonrl/DungeonCrawler-v0 is "),
        ({"format_version": True}, "format True is not one"),
        ({"digest": ""}, "digest must be 64 hexadecimal digits"),
        ({"digest": "A" * 64}, "digest must be 64 hexadecimal digits"),
        ({"result": {}}, "result.winner: missing, re-simulated 2"),
        ({"result": []}, "'result' must be an object"),
        ({"finished": False, "result": {}}, "finished: recorded false, re-simulated true"),
        # the options and the seed are inputs; the state record holds them, so
        # another value plays another game, which the recorded fields then differ from
        ({"core_kwargs": {"num_players": 3, "reward": "winner_only"}}, "^[^ ]+: digest: "),
        ({"core_kwargs": {"num_players": 3, "max_steps": 6000}}, "^[^ ]+: digest: "),
        ({"seed": 5}, r"^[^ ]+: (actors|actions)\[\d+\]: "),
        # an option naming a file of the checking machine is refused unread
        ({"core_kwargs": {"content": "/etc"}}, "core_kwargs: 'content' cannot be in a replay"),
    ],
)
def test_check_refuses_forged_header_fields(tmp_path, won_by_seat_2, change, message):
    with pytest.raises(ReplayError, match=message):
        load_replay(_write(tmp_path, _edited(won_by_seat_2, **change)))


def test_every_difference_is_named_at_once(tmp_path, won_by_seat_2):
    d = _edited(
        won_by_seat_2,
        result={**won_by_seat_2.result, "winner": 0, "rounds": 1},
        digest="0" * 64,
    )
    with pytest.raises(ReplayError) as e:
        load_replay(_write(tmp_path, d))
    text = str(e.value)
    assert "result.winner: recorded 0, re-simulated 2" in text
    assert "result.rounds: recorded 1, re-simulated " in text
    assert "digest: recorded 0000000000000000..., re-simulated " in text


def test_unknown_fields_are_refused(tmp_path, won_by_seat_2, capsys):
    rc, text = _check(tmp_path, _edited(won_by_seat_2, verified=True), capsys)
    assert rc == 2 and "unknown field 'verified'" in text
    result = {**won_by_seat_2.result, "bonus": 5}
    with pytest.raises(ReplayError, match="result.bonus: recorded 5, not in the re-simulated"):
        load_replay(_write(tmp_path, _edited(won_by_seat_2, result=result)))


@pytest.mark.parametrize("field", ["result", "digest", "seats"])
def test_missing_fields_are_refused_by_name(tmp_path, won_by_seat_2, field):
    d = won_by_seat_2.to_json()
    del d[field]
    with pytest.raises(ReplayError, match=f"not a complete replay: no '{field}'"):
        load_replay(_write(tmp_path, d))


def test_a_field_given_twice_is_refused(tmp_path, won_by_seat_2):
    """Another JSON reader may keep the first copy; the check would see
    the last one."""
    text = json.dumps(won_by_seat_2.to_json())
    forged = text[:-1] + ', "result": {"winner": 0}}'
    with pytest.raises(ReplayError, match="field 'result' is given twice"):
        load_replay(_write(tmp_path, forged))
    forged = text[:-1] + ', "result": ' + json.dumps(won_by_seat_2.result) + "}"
    with pytest.raises(ReplayError, match="given twice"):
        load_replay(_write(tmp_path, forged))


def test_seats_are_one_label_per_seat_and_not_proved(tmp_path, won_by_seat_2):
    """Documented: an agent label cannot be re-derived from the decisions,
    so a relabelled replay still loads with the labels it was given; but
    there is one label per seat (or none)."""
    d = _edited(won_by_seat_2, seats=["alice", "bob", "carol"])
    assert load_replay(_write(tmp_path, d)).seats == ["alice", "bob", "carol"]
    assert load_replay(_write(tmp_path, _edited(won_by_seat_2, seats=[]))).seats == []
    for seats in (["heuristic"], ["a", "b", "c", "d"]):
        with pytest.raises(ReplayError, match=f"seats: {len(seats)} labels for the game's 3"):
            load_replay(_write(tmp_path, _edited(won_by_seat_2, seats=seats)))


def test_a_game_on_local_content_is_not_saved_as_a_replay(tmp_path):
    """``content=`` names a folder of the recording machine: ``record``
    refuses the replay before writing anything, ``record_replay`` too."""
    from dungeonrl.agents.commands.record import record
    from dungeonrl.envs.unbroken.content import DATA_DIR

    gif, rj = tmp_path / "g.gif", tmp_path / "g.json"
    with pytest.raises(ValueError, match="content= cannot be saved as a replay"):
        record("unbroken", "heuristic", 3, gif, replay=str(rj), max_frames=3, content=DATA_DIR)
    assert not gif.exists() and not rj.exists()
    with pytest.raises(ReplayError, match="core_kwargs: 'content' cannot be in a replay"):
        record_replay("unbroken", "heuristic", seed=3, content=DATA_DIR)


def test_a_game_without_a_core_factory_is_named(monkeypatch, dc_replay):
    """A registered spec may lack ``make_core``: recording and re-simulating
    say so instead of calling None."""
    import dataclasses

    from dungeonrl.agents import replay as replay_module

    bare = dataclasses.replace(get_spec("dungeon_crawler"), make_core=None)
    monkeypatch.setattr(replay_module, "get_spec", lambda game: bare)
    with pytest.raises(TypeError, match="has no make_core factory"):
        record_replay("dungeon_crawler", "random", seed=1, num_players=2)
    with pytest.raises(ReplayError, match="has no make_core factory"):
        dc_replay.simulate()
