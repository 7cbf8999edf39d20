"""Uploading a replay to the web app (``POST /api/replays``) or opening one
from the server's replay folder runs the same check as ``python -m
dungeonrl.agents.replay check``: a forged result, header field, unknown or
missing field is refused with a 4xx whose message names the field, and the
forged game is never kept for the viewer. The replays are real seeded games
recorded by :func:`~dungeonrl.agents.replay.record_replay`, then edited."""

from __future__ import annotations

import json

import pytest

from dungeonrl.agents.replay import record_replay, save_replay


@pytest.fixture(scope="module")
def won_by_seat_2() -> dict:
    rep = record_replay("dungeon_crawler", "heuristic", seed=4, num_players=3)
    assert rep.result["winner"] == 2
    return rep.to_json()


def _upload(client, d):
    return client.post("/api/replays", content=json.dumps(d).encode())


def _forged(good: dict, **change) -> dict:
    return {**good, **change}


def _without(good: dict, key: str) -> dict:
    return {k: v for k, v in good.items() if k != key}


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda g: _forged(g, result={"winner": 0}), "result.winner: recorded 0, re-simulated 2"),
        (
            lambda g: _forged(g, result={**g["result"], "winner": 0}),
            "result.winner: recorded 0, re-simulated 2",
        ),
        (
            lambda g: _forged(g, result={**g["result"], "kills": [99, 0, 0]}),
            "result.kills[0]: recorded 99, re-simulated ",
        ),
        (lambda g: _forged(g, spec_version=3), "spec_version: recorded 3, but "),
        (lambda g: _forged(g, seats=["a", "b"]), "seats: 2 labels for the game's 3 seats"),
        (lambda g: _forged(g, digest=""), "digest must be 64 hexadecimal digits"),
        (lambda g: _forged(g, signed_by="referee"), "unknown field 'signed_by'"),
        (
            lambda g: _forged(g, result={**g["result"], "prize": 1}),
            "result.prize: recorded 1, not in the re-simulated result",
        ),
        (
            lambda g: _forged(g, core_kwargs={"num_players": 3, "content": "/etc"}),
            "core_kwargs: 'content' cannot be in a replay",
        ),
        (lambda g: _without(g, "result"), "not a complete replay: no 'result'"),
        (lambda g: _without(g, "digest"), "not a complete replay: no 'digest'"),
    ],
    ids=[
        "issue-forgery",
        "winner",
        "kills",
        "spec_version",
        "seats",
        "empty-digest",
        "unknown-field",
        "unknown-result-key",
        "content-path",
        "no-result",
        "no-digest",
    ],
)
def test_forged_upload_is_refused_naming_the_field(client, server, won_by_seat_2, edit, message):
    honest = _upload(client, won_by_seat_2)
    assert honest.status_code == 201 and honest.json()["result"]["winner"] == 2, honest.text
    r = _upload(client, edit(won_by_seat_2))
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    assert message in r.json()["error"], r.json()
    assert len(server.replays) == 1  # the honest one only


def test_forged_file_in_the_replay_folder_is_refused(tmp_path, client, server, won_by_seat_2):
    folder = tmp_path / "replays"
    folder.mkdir()
    (folder / "forged.json").write_text(
        json.dumps(_forged(won_by_seat_2, result={**won_by_seat_2["result"], "winner": 0}))
    )
    from dungeonrl.agents.replay import replay_from_json

    save_replay(replay_from_json(won_by_seat_2), folder / "honest.json")
    server.config.replay_dir = str(folder)
    r = client.post("/api/replays/files/forged.json")
    assert 400 <= r.status_code < 500
    assert "result.winner: recorded 0, re-simulated 2" in r.json()["error"]
    assert str(tmp_path) not in r.json()["error"]  # the server's folder stays private
    assert server.replays == {}
    assert client.post("/api/replays/files/honest.json").status_code == 201
