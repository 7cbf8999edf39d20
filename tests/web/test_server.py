"""Hostile and bad input to the web app: every refusal says why (its
message is checked) and leaves the server and its other games running (a
second game still plays afterwards); limits (games, pages, idle games);
replays (refused while played, bad uploads, the replay folder's names,
frames); the offline HTML export."""

from __future__ import annotations

import contextlib
import re
import time

import numpy as np
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dungeonrl.web import app as app_module
from dungeonrl.web.app import make_app
from dungeonrl.web.server import MAX_MESSAGE, Server, ServerConfig

from .conftest import new_game


class Other:
    """A second game, played by a person's page, that must keep playing
    whatever the first one is sent."""

    def __init__(self, client, stack):
        self.client, self.stack, self.rng = client, stack, np.random.default_rng(0)
        self._start()

    def _start(self):
        info = new_game(self.client, "dcc_unstoppable", ["human"], 2)
        url = f"/ws/games/{info['id']}?view=0&key={info['keys']['0']}&picture=0"
        self.ws = self.stack.enter_context(self.client.websocket_connect(url))
        self.view = self.ws.receive_json()

    def plays(self):
        if self.view["over"]:
            self._start()
        k = self.view["decision"]
        a = self.rng.choice([x["action"] for x in self.view["legal"]])
        self.ws.send_json({"type": "act", "action": int(a)})
        self.view = self.ws.receive_json()
        assert self.view["type"] == "view" and self.view["decision"] > k


@pytest.fixture
def other(client):
    with contextlib.ExitStack() as stack:
        yield Other(client, stack)


def finished_game(client, server, game="unbroken", seed=1) -> str:
    """A finished game of one person's seat, played straight on its session."""
    gid = new_game(client, game, ["human"], seed)["id"]
    g = server.games[gid].session
    rng = np.random.default_rng(seed)
    while not g.over:
        g.act(g.actor, int(rng.choice(np.flatnonzero(g.state["legal"]))))
    return gid


# --- new games -----------------------------------------------------------------------
BAD_GAMES = [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"game": ["unbroken"]}, "unknown game"),
    ({"game": "dungeon_kart", "players": 12}, "is played by 2..8 players, not 12"),
    ({"game": "dungeon_kart", "players": "2"}, "players must be a whole number"),
    ({"game": "dungeon_kart", "players": True}, "players must be a whole number"),
    ({"game": "dungeon_kart", "players": 2, "seats": ["human"]}, "seats must list 2 players"),
    ({"game": "dungeon_kart", "players": 2, "seats": "human"}, "seats must list 2 players"),
    ({"game": "unbroken", "seats": ["os:system"]}, "seat 0: 'os:system' is not offered here"),
    ({"game": "unbroken", "seats": ["/etc/passwd"]}, "seat 0: '/etc/passwd' is not offered"),
    ({"game": "unbroken", "seats": ["pretrained:nope"]}, "is not offered here"),
    ({"game": "dungeon_kart", "players": 2, "seats": ["human", {"a": 1}]}, "seat 1: "),
    ({"game": "unbroken", "seed": "1"}, "seed must be a whole number"),
    ({"game": "unbroken", "seed": -1}, "seed must be a whole number in 0..2\\*\\*63-1"),
    ({"game": "unbroken", "seed": 2**63}, "seed must be a whole number"),
    ({"game": "unbroken", "seed": 1.5}, "seed must be a whole number"),
    ({"game": "unbroken", "seed": True}, "seed must be a whole number"),
    ({"game": "unbroken", "mode": "god"}, "unknown fields \\['mode'\\]"),
    ([1, 2], "a new game is a JSON object"),
]


@pytest.mark.parametrize("body,message", BAD_GAMES, ids=[m[:30] for _, m in BAD_GAMES])
def test_bad_new_game(client, server, other, body, message):
    n = len(server.games)
    r = client.post("/api/games", json=body)
    assert r.status_code == 400
    assert re.search(message, r.json()["error"]), r.json()
    assert len(server.games) == n
    other.plays()


@pytest.mark.parametrize(
    "content,message",
    [
        (b"{not json", "the request body is not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[" * 5000, "JSON"),
    ],
)
def test_body_not_json(client, other, content, message):
    r = client.post("/api/games", content=content)
    assert r.status_code == 400 and message in r.json()["error"]
    r = client.post("/api/games", content=b"{" + b" " * 70000 + b"}")
    assert r.status_code == 400 and "request too large" in r.json()["error"]
    other.plays()


def test_max_games(client, server, other):
    while len(server.games) < server.config.max_games:
        new_game(client, "unbroken", ["human"], len(server.games))
    r = client.post("/api/games", json={"game": "unbroken"})
    assert r.status_code == 429 and "its limit" in r.json()["error"]
    other.plays()
    gid = next(g for g in server.games if g != other.view["game_id"])
    assert client.delete(f"/api/games/{gid}").status_code == 200
    assert client.post("/api/games", json={"game": "unbroken"}).status_code == 201


def test_unknown_ids(client, other):
    for url in ["/api/games/nope", "/api/games/nope/replay", "/api/replays/nope/frame?k=0"]:
        r = client.get(url)
        assert r.status_code == 404 and r.json()["error"].startswith("no "), url
    assert client.get("/api/replays/nope/export").status_code == 404
    assert client.delete("/api/games/nope").status_code == 404
    with client.websocket_connect("/ws/games/nope") as ws:
        m = ws.receive_json()
        assert m["type"] == "error" and m["fatal"] and "no game 'nope'" in m["message"]
    other.plays()


# --- the game websocket --------------------------------------------------------------
def _refused(ws, text, message):
    if isinstance(text, bytes):
        ws.send_bytes(text)
    elif isinstance(text, str):
        ws.send_text(text)
    else:
        ws.send_json(text)
    m = ws.receive_json()
    assert m["type"] == "error" and message in m["message"], (text, m)


def test_bad_messages(client, server, other):
    """Garbage on a person's page: each refused, the game unchanged."""
    info = new_game(client, "dungeon_kart", ["human", "human"], 2)
    gid, keys = info["id"], info["keys"]
    g = server.games[gid].session
    with (
        client.websocket_connect(f"/ws/games/{gid}?view=0&key={keys['0']}&picture=0") as ws0,
        client.websocket_connect(f"/ws/games/{gid}?view=1&key={keys['1']}&picture=0") as ws1,
        client.websocket_connect(f"/ws/games/{gid}?view=public&picture=0") as pub,
    ):
        # each page joining sends a view to every page already open
        views = [ws.receive_json() for ws in (ws0, ws0, ws0, ws1, ws1, pub)]
        v = views[-1]
        actor = v["to_play"]
        me, them = (ws0, ws1) if actor == 0 else (ws1, ws0)
        illegal = int(np.flatnonzero(g.state["legal"] == 0)[0])
        n = g.core.spec.num_actions
        before = g.state.copy()
        cases = [
            ("hello", "a message is a JSON object"),
            ("{", "a message is a JSON object"),
            ("[1, 2]", 'a JSON object with a "type"'),
            ("3", 'a JSON object with a "type"'),
            ('{"action": 1}', 'a JSON object with a "type"'),
            ('{"type": 5}', 'a JSON object with a "type"'),
            (b'{"type": "act", "action": 0}', "messages are JSON text, not binary"),
            ("x" * (MAX_MESSAGE + 1), f"message too long ({MAX_MESSAGE + 1} characters"),
            ("[" * 4000, "a message is a JSON object"),
            ({"type": "dance"}, "unknown message type 'dance'"),
            ({"type": "act", "action": illegal}, f"action {illegal} ("),
            ({"type": "act", "action": n}, f"action {n} is out of range (0..{n - 1})"),
            ({"type": "act", "action": -1}, "action -1 is out of range"),
            ({"type": "act", "action": True}, "an action is a whole number, not True"),
            ({"type": "act", "action": "3"}, "an action is a whole number, not '3'"),
            ({"type": "act", "action": 1.0}, "an action is a whole number"),
            ({"type": "act"}, "an action is a whole number, not None"),
            ({"type": "look", "view": 1}, "only a game no person plays can be watched from a seat"),
            (
                {"type": "control", "cmd": "play"},
                "a game a person plays moves when the person acts",
            ),
        ]
        for text, message in cases:
            _refused(me, text, message)
        legal = int(np.flatnonzero(g.state["legal"])[0])
        _refused(them, {"type": "act", "action": legal}, f"it is player_{actor}'s turn, not yours")
        _refused(pub, {"type": "act", "action": legal}, "this page watches; it cannot act")
        assert g.decisions == v["decision"]
        assert all(np.array_equal(before[f], g.state[f]) for f in before.dtype.names)
        other.plays()
        me.send_json({"type": "act", "action": legal})  # the game itself still plays
        assert me.receive_json()["decision"] > v["decision"]


JOINS = [
    ("view=0", "seat 0 is a person's seat: its key is needed"),
    ("view=0&key=wrong", "its key is needed"),
    ("view=0&key=", "its key is needed"),
    ("view=1", "a game a person plays can be watched as the public only"),
    ("view=all", "can be watched as the public only"),
    ("view=x", "view must be a seat number, public or all, not 'x'"),
    ("view=9", "seat 9 is not at this table (seats 0..1)"),
    ("view=-1", "seat -1 is not at this table"),
]


@pytest.mark.parametrize("query,message", JOINS, ids=[q for q, _ in JOINS])
def test_bad_join(client, server, other, query, message):
    gid = new_game(client, "dungeon_crawler", ["human", "heuristic"], 3)["id"]
    with client.websocket_connect(f"/ws/games/{gid}?{query}") as ws:
        m = ws.receive_json()
        assert m["type"] == "error" and m["fatal"] and message in m["message"], m
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_json()
        assert e.value.code == 4400
    assert server.connections == 1  # the other game's page only
    other.plays()


def test_bad_look_and_control_on_watched_game(client, other):
    gid = new_game(client, "dungeon_kart", ["heuristic", "random"], 4)["id"]
    with client.websocket_connect(f"/ws/games/{gid}?view=all&picture=0") as ws:
        assert ws.receive_json()["view"] == "all"
        for text, message in [
            ({"type": "look", "view": "x"}, "view must be a seat number, public or all"),
            ({"type": "look", "view": 2}, "view must be a seat number"),
            ({"type": "look", "view": True}, "view must be a seat number"),
            ({"type": "control", "cmd": "rewind"}, "control is play, pause, step or speed"),
            ({"type": "control", "cmd": "speed", "speed": "fast"}, "speed is decisions per second"),
            ({"type": "control", "cmd": "speed", "speed": 1e9}, "speed must be 0.25..200"),
            ({"type": "act", "action": 0}, "this page watches; it cannot act"),
        ]:
            _refused(ws, text, message)
        ws.send_json({"type": "control", "cmd": "step"})
        assert ws.receive_json()["decision"] == 1
    other.plays()


def test_max_connections(other):
    srv = Server(ServerConfig(max_connections=2))
    with TestClient(make_app(server=srv)) as client:
        gid = new_game(client, "unbroken", ["heuristic"], 0)["id"]
        url = f"/ws/games/{gid}?picture=0"
        with client.websocket_connect(url) as a, client.websocket_connect(url) as b:
            a.receive_json(), b.receive_json()
            with client.websocket_connect(url) as c:
                m = c.receive_json()
                assert m["fatal"] and "too many open pages (2)" in m["message"]
            b.close()
            time.sleep(0.1)
            with client.websocket_connect(url) as c:
                assert c.receive_json()["type"] == "view"
        assert srv.connections == 0
    other.plays()


def test_idle_games_reaped(client, server, monkeypatch):
    gid = new_game(client, "unbroken", ["human"], 0)["id"]
    now = time.monotonic()
    assert server.reap(now=now) == []
    closed = server.reap(now=now + server.config.idle_seconds + 1)
    assert [x.gid for x in closed] == [gid] and gid not in server.games
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == 404


def test_page_of_reaped_game_is_told(monkeypatch):
    monkeypatch.setattr(app_module, "REAP_EVERY", 0.05)
    srv = Server(ServerConfig(idle_seconds=0.3))
    with TestClient(make_app(server=srv)) as client:
        info = new_game(client, "unbroken", ["human"], 0)
        url = f"/ws/games/{info['id']}?view=0&key={info['keys']['0']}&picture=0"
        keep = new_game(client, "unbroken", ["human"], 1)["id"]
        with client.websocket_connect(url) as ws:
            assert ws.receive_json()["type"] == "view"
            srv.games[keep].session.touched = time.monotonic() + 60
            m = ws.receive_json()
            assert m == {"type": "closed", "message": "closed after being idle"}
        assert info["id"] not in srv.games and keep in srv.games
