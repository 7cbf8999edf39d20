"""The web API's rules of ownership and order: an action names the game
and the decision it was chosen at (any other is refused and nothing is
played); a game belongs to the page that created it (its token ends it
and sets a watched game's pace; watchers only read); refusals get the
HTTP status of their kind, never one guessed from the message; seeds
travel as strings, in the command line's ``--seed`` range."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dungeonrl.agents.options import SEED_MAX, seed_int
from dungeonrl.agents.replay import record_replay
from dungeonrl.web import app as app_module
from dungeonrl.web import server as server_module
from dungeonrl.web.session import SessionError

from .conftest import act, new_game


def _open_seat(client, info, seat=0):
    url = f"/ws/games/{info['id']}?view={seat}&key={info['keys'][str(seat)]}&picture=0"
    return client.websocket_connect(url)


def _same_state(a, b) -> bool:
    return all(np.array_equal(a[f], b[f]) for f in a.dtype.names)


# --- an action is for one game and one decision ------------------------------------------
def test_action_for_another_decision_or_game_is_refused(client, server):
    """A click chosen on a view the game has moved past, or on another
    game's table, is refused with the reason and leaves the game as it
    was; the same click for the current decision plays."""
    info = new_game(client, "unbroken", ["human"], 5)
    other = new_game(client, "unbroken", ["human"], 6)
    g = server.games[info["id"]].session
    with _open_seat(client, info) as ws:
        v0 = ws.receive_json()
        assert v0["type"] == "view" and v0["decision"] == 0 and v0["game_id"] == info["id"]
        first = v0["legal"][0]["action"]
        ws.send_json(act(v0, first))
        v1 = ws.receive_json()
        assert v1["decision"] == 1 and g.decisions == 1
        legal_now = [x["action"] for x in v1["legal"]]
        before = g.state.copy()
        # a second click on the old table: decision 0 is past
        stale = act(v0, legal_now[0])
        for msg, message in [
            (stale, "this choice was made at decision 0; the game is at decision 1"),
            ({**act(v1, legal_now[0]), "decision": 7}, "made at decision 7; the game is at"),
            ({**act(v1, legal_now[0]), "game": other["id"]}, "on another game's table"),
            ({**act(v1, legal_now[0]), "game": 5}, "on another game's table"),
            ({**act(v1, legal_now[0]), "decision": "1"}, "decision must be a whole number"),
            ({**act(v1, legal_now[0]), "decision": True}, "decision must be a whole number"),
            ({"type": "act", "action": legal_now[0]}, "an action names its game and decision"),
            ({"type": "act", "game": info["id"], "action": 0}, "names its game and decision"),
        ]:
            ws.send_json(msg)
            m = ws.receive_json()
            assert m["type"] == "error" and message in m["message"], (msg, m)
            assert (
                "nothing was played" in m["message"]
                or "names" in m["message"]
                or ("whole number" in m["message"])
            )
            assert g.decisions == 1 and _same_state(before, g.state)
        assert server.games[other["id"]].session.decisions == 0
        ws.send_json(act(v1, legal_now[0]))  # the current decision plays
        v2 = ws.receive_json()
        assert v2["type"] == "view" and v2["decision"] == 2 and g.actions[1] == legal_now[0]


# --- a game belongs to the page that created it ------------------------------------------
def test_only_the_token_ends_a_game(client, server):
    info = new_game(client, "dungeon_kart", ["human", "heuristic"], 2)
    gid, token = info["id"], info["token"]
    assert isinstance(token, str) and len(token) >= 20
    # nothing any page can read hands out a secret
    secrets_ = {token, *info["keys"].values()}
    for text in [client.get("/api/games").text, client.get(f"/api/games/{gid}").text]:
        assert not any(s in text for s in secrets_), text
    with _open_seat(client, info) as ws:
        ws.receive_json()
        r = client.delete(f"/api/games/{gid}")
        assert r.status_code == 401 and "send its token" in r.json()["error"]
        assert r.headers["www-authenticate"].startswith("Bearer")
        for header in [
            "Bearer wrong",
            f"Bearer {info['keys']['0']}",  # a seat's key is not the game's token
            f"Bearer {token}x",
            "Bearer é".encode(),  # not ASCII
        ]:
            r = client.delete(f"/api/games/{gid}", headers={"Authorization": header})
            assert r.status_code == 403 and "not this game's token" in r.json()["error"], header
        r = client.delete(f"/api/games/{gid}", headers={"Authorization": f"Basic {token}"})
        assert r.status_code == 401
        assert gid in server.games
        r = client.delete(f"/api/games/{gid}", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200 and r.json() == {"closed": gid}
        assert ws.receive_json() == {"type": "closed", "message": "the game was closed"}
    assert gid not in server.games
    r = client.delete(f"/api/games/{gid}", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 404


def test_watchers_only_read(client, server):
    """A game of agents: a page without the token watches (and picks its
    own view) but cannot set the pace; the page holding it can; a wrong
    token is refused when joining."""
    info = new_game(client, "dungeon_kart", ["heuristic", "random"], 4)
    gid, live = info["id"], server.games[info["id"]]
    with (
        client.websocket_connect(f"/ws/games/{gid}?view=public&picture=0") as watcher,
        client.websocket_connect(
            f"/ws/games/{gid}?view=public&picture=0&token={info['token']}"
        ) as owner,
    ):
        assert watcher.receive_json()["owner"] is False and owner.receive_json()["owner"] is True
        for cmd in [{"cmd": "play"}, {"cmd": "step"}, {"cmd": "speed", "speed": 10}]:
            watcher.send_json({"type": "control", **cmd})
            m = watcher.receive_json()
            assert m["type"] == "error" and "only the page that started the game" in m["message"]
        assert not live.playing and live.speed == server.config.speed
        assert live.session.decisions == 0
        watcher.send_json({"type": "look", "view": 1})  # reading from another seat is fine
        assert watcher.receive_json()["view"] == 1
        owner.send_json({"type": "control", "cmd": "step"})
        assert owner.receive_json()["decision"] == 1
    with client.websocket_connect(f"/ws/games/{gid}?view=public&token=nope") as ws:
        m = ws.receive_json()
        assert m["fatal"] and "not this game's token" in m["message"]


# --- statuses by kind -------------------------------------------------------------------
def test_status_comes_from_the_kind_not_the_message(client, server):
    """Bad JSON is 400 whatever words its parser used (a replay's "Expecting
    ',' delimiter" once read as a limit: 429); an oversized body is 413."""
    for body in [b'{"game": "unbroken" "seed": 1}', b'{"a": 1,,}', b"[1 2]"]:
        r = client.post("/api/replays", content=body)
        assert r.status_code == 400, (body, r.status_code, r.text)
        assert "not a dungeonrl replay" in r.json()["error"]
    for body in [b"{" + b" " * 70_000 + b"}", b'{"game": "' + b"x" * 70_000 + b'"}']:
        r = client.post("/api/games", content=body)
        assert r.status_code == 413 and "request too large" in r.json()["error"], r.text
    r = client.post("/api/games", content=b'{"game": "unbroken" "seed": 1}')
    assert r.status_code == 400 and r.json()["error"] == "the request body is not JSON"
    # the message never decides: words that once chose a status are plain bad requests
    for text in ["no game here", "limit", "too many", "still being played"]:
        assert SessionError(text).status == 400
    assert sorted(app_module.STATUS.values()) == [401, 403, 404, 409, 413, 429]
    assert len(server.games) == 0


# --- seeds -----------------------------------------------------------------------------
def test_seed_range_is_the_command_lines():
    """The app takes (and draws from) exactly the range ``--seed`` takes."""
    parse_seed = server_module.parse_seed
    assert parse_seed(str(SEED_MAX)) == seed_int(str(SEED_MAX)) == SEED_MAX
    assert parse_seed("0") == seed_int("0") == 0
    for bad in (SEED_MAX + 1, -1):
        with pytest.raises(SessionError, match="outside"):
            parse_seed(bad)
        with pytest.raises(Exception, match="must be an integer"):
            seed_int(str(bad))


def test_seeds_travel_as_strings(client, server):
    """A seed leaves the server as a string of its digits, so a page's
    JavaScript (whose numbers lose digits above 2**53) shows it exactly: a
    game's largest seed, and a replay whose seed is far above 2**53."""
    top = str(SEED_MAX)
    info = client.post(
        "/api/games",
        json={"game": "unbroken", "players": 1, "seats": ["heuristic"], "seed": top},
    ).json()
    assert info["seed"] == top and server.games[info["id"]].session.seed == SEED_MAX
    assert client.get(f"/api/games/{info['id']}").json()["seed"] == top
    with client.websocket_connect(f"/ws/games/{info['id']}?picture=0") as ws:
        assert ws.receive_json()["seed"] == top
    big = 6103951615286741525
    assert float(big) != big  # what a JavaScript number would make of it
    text = json.dumps(record_replay("unbroken", ["heuristic"], seed=big).to_json())
    opened = client.post("/api/replays", content=text.encode())
    assert opened.status_code == 201, opened.text
    assert opened.json()["seed"] == str(big)
    frame = client.get(f"/api/replays/{opened.json()['id']}/frame?k=0").json()
    assert frame["seed"] == str(big)
