"""Hostile and bad input to the web app: every refusal says why (its
message is checked) and leaves the server and its other games running (a
second game still plays afterwards); limits (games, pages, idle games);
replays (refused while played, bad uploads, the replay folder's names,
frames); the offline HTML export."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time

import numpy as np
import pytest
from starlette.websockets import WebSocketDisconnect

from dungeonrl.web import app as app_module
from dungeonrl.web.app import make_app
from dungeonrl.web.server import MAX_MESSAGE, Server, ServerConfig
from dungeonrl.web.session import SessionError

from .conftest import TestClient, act, new_game


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
        self.ws.send_json(act(self.view, int(a)))
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
    ({"game": "unbroken", "seed": "x1"}, "seed must be a whole number in 0..4294967295"),
    ({"game": "unbroken", "seed": "-1"}, "seed must be a whole number"),
    ({"game": "unbroken", "seed": " 1"}, "seed must be a whole number"),
    ({"game": "unbroken", "seed": "1.5"}, "seed must be a whole number"),
    ({"game": "unbroken", "seed": ""}, "seed must be a whole number"),
    ({"game": "unbroken", "seed": "12\n"}, "seed must be a whole number"),
    ({"game": "unbroken", "seed": -1}, "seed -1 is outside 0..4294967295 \\(2\\*\\*32 - 1"),
    ({"game": "unbroken", "seed": "4294967296"}, "seed 4294967296 is outside 0..4294967295"),
    ({"game": "unbroken", "seed": 2**63}, "is outside 0..4294967295"),
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
    assert r.status_code == 413 and "request too large" in r.json()["error"]
    other.plays()


def test_max_games(client, server, other):
    while len(server.games) < server.config.max_games:
        new_game(client, "unbroken", ["human"], len(server.games))
    r = client.post("/api/games", json={"game": "unbroken"})
    assert r.status_code == 429 and "its limit" in r.json()["error"]
    other.plays()
    gid = next(g for g in server.games if g != other.view["game_id"])
    auth = {"Authorization": f"Bearer {server.games[gid].token}"}
    assert client.delete(f"/api/games/{gid}", headers=auth).status_code == 200
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
            (act(v, illegal), f"action {illegal} ("),
            (act(v, n), f"action {n} is out of range (0..{n - 1})"),
            (act(v, -1), "action -1 is out of range"),
            (act(v, True), "an action is a whole number, not True"),
            (act(v, "3"), "an action is a whole number, not '3'"),
            (act(v, 1.0), "an action is a whole number"),
            ({**act(v, 0), "action": None}, "an action is a whole number, not None"),
            ({"type": "act", "action": 0}, "an action names its game and decision"),
            ({"type": "look", "view": 1}, "only a game no person plays can be watched from a seat"),
            (
                {"type": "control", "cmd": "play"},
                "a game a person plays moves when the person acts",
            ),
        ]
        for text, message in cases:
            _refused(me, text, message)
        legal = int(np.flatnonzero(g.state["legal"])[0])
        _refused(them, act(v, legal), f"it is player_{actor}'s turn, not yours")
        _refused(pub, act(v, legal), "this page watches; it cannot act")
        assert g.decisions == v["decision"]
        assert all(np.array_equal(before[f], g.state[f]) for f in before.dtype.names)
        other.plays()
        me.send_json(act(v, legal))  # the game itself still plays
        assert me.receive_json()["decision"] > v["decision"]


def test_session_refuses_acting_for_another_seat(client, server, other):
    """The seat a page acts for is its own: a session refuses a decision
    for an agent's seat or out of turn, whoever asks."""
    gid = new_game(client, "dungeon_kart", ["human", "heuristic"], 2)["id"]
    g = server.games[gid].session
    g.run_agents()
    a = int(np.flatnonzero(g.state["legal"])[0])
    with pytest.raises(SessionError, match="seat 1 is played by heuristic"):
        g.act(1, a)
    g.act(0, a)
    g.seats[1] = "human"  # now two people: the one not to act is refused
    actor = g.actor
    assert actor in (0, 1)
    b = int(np.flatnonzero(g.state["legal"])[0])
    with pytest.raises(SessionError, match=f"it is player_{actor}'s turn, not yours"):
        g.act(1 - actor, b)
    other.plays()


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
    info = new_game(client, "dungeon_kart", ["heuristic", "random"], 4)
    gid = info["id"]
    with client.websocket_connect(
        f"/ws/games/{gid}?view=all&picture=0&token={info['token']}"
    ) as ws:
        assert ws.receive_json()["view"] == "all"
        for text, message in [
            ({"type": "look", "view": "x"}, "view must be a seat number, public or all"),
            ({"type": "look", "view": 2}, "view must be a seat number"),
            ({"type": "look", "view": True}, "view must be a seat number"),
            ({"type": "control", "cmd": "rewind"}, "control is play, pause, step or speed"),
            ({"type": "control", "cmd": "speed", "speed": "fast"}, "speed is decisions per second"),
            ({"type": "control", "cmd": "speed", "speed": 1e9}, "speed must be 0.25..200"),
            ({"type": "act", "game": gid, "decision": 0, "action": 0}, "this page watches"),
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
            deadline = time.monotonic() + 10
            while srv.connections > 1 and time.monotonic() < deadline:
                time.sleep(0.01)
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


# --- replays -------------------------------------------------------------------------
def test_replay_of_unfinished_game_refused(client, server, other):
    info = new_game(client, "dungeon_kart", ["human", "heuristic"], 2)
    for method in (client.get, client.post):
        r = method(f"/api/games/{info['id']}/replay")
        assert r.status_code == 409 and "still being played" in r.json()["error"]
    assert server.replays == {}
    other.plays()


def _upload(client, body):
    return client.post("/api/replays", content=body)


def test_replay_uploads(client, server, other):
    gid = finished_game(client, server)
    r = client.get(f"/api/games/{gid}/replay")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    text = r.text
    good = json.loads(text)
    ok = _upload(client, text.encode())
    assert ok.status_code == 201 and ok.json()["decisions"] == len(good["actions"])
    assert ok.json()["finished"] is True

    def edited(**kw):
        return json.dumps({**good, **kw}).encode()

    wrong = next(a for a in range(200) if a != good["actions"][-1])
    cases = [
        (text[: len(text) // 2].encode(), 400, "not a dungeonrl replay, or a truncated one"),
        (b"", 400, "not a dungeonrl replay"),
        (b"\xff\xfe\x00garbage", 400, "not a dungeonrl replay (not UTF-8 text)"),
        (b"[1, 2, 3]", 400, "not a dungeonrl replay"),
        (b"<html></html>", 400, "not a dungeonrl replay"),
        (edited(actions=good["actions"][:-1] + [wrong]), 400, "is not legal"),
        (edited(actions=good["actions"][:-1], actors=good["actors"][:-1]), 400, "goes on"),
        (edited(digest="0" * 64), 400, "the final state differs from the one recorded"),
        (edited(layout_version="0.0-other"), 400, "replays re-simulate only on the layout"),
        (edited(seed=-5), 400, "seed -5 is outside"),
        (edited(game="chess"), 400, ""),
        (edited(actors=good["actors"][:-1]), 400, "actors for"),
        (b" " * (9 * 2**20), 413, "more than a replay may hold"),
    ]
    for body, status, message in cases:
        r = _upload(client, body)
        assert r.status_code == status and message in r.json()["error"], (body[:60], r.json())
    assert len(server.replays) == 1
    other.plays()


def _replay_folder(tmp_path, client, server):
    gid = finished_game(client, server)
    folder = tmp_path / "replays"
    folder.mkdir()
    (folder / "good.json").write_text(client.get(f"/api/games/{gid}/replay").text)
    (tmp_path / "secret.json").write_text(client.get(f"/api/games/{gid}/replay").text)
    os.symlink(tmp_path / "secret.json", folder / "link.json")
    (folder / "bad.json").write_text("{")
    return folder


def test_replay_folder_names(tmp_path, client, server, other):
    server.config.replay_dir = str(_replay_folder(tmp_path, client, server))
    assert client.get("/api/replays/files").json()["files"] == [
        "bad.json",
        "good.json",
        "link.json",
    ]
    assert client.post("/api/replays/files/good.json").status_code == 201
    for name, message in [
        ("..json", "is not a replay name"),
        ("../x.json", "is not a replay name"),
        ("../secret.json", "is not a replay name"),
        ("/etc/passwd", "is not a replay name"),
        ("a/b.json", "is not a replay name"),
        (".hidden.json", "is not a replay name"),
        ("good.txt", "is not a replay name"),
        (None, "is not a replay name"),
        ("link.json", "no replay 'link.json' in the replay folder"),
        ("missing.json", "no replay 'missing.json'"),
        ("bad.json", "not a dungeonrl replay"),
    ]:
        with pytest.raises(SessionError, match=re.escape(message)) as e:
            server.open_replay_file(name)
        assert str(tmp_path) not in str(e.value)
        if name and "/" not in name:
            r = client.post(f"/api/replays/files/{name}")
            assert r.status_code in (400, 404) and message in r.json()["error"], (name, r.text)
    # a name with a slash never reaches the folder: the router finds no such route
    for name in ["../x.json", "/etc/passwd", "a%2Fb.json", "..%2Fsecret.json"]:
        assert client.post(f"/api/replays/files/{name}").status_code == 404
    assert len(server.replays) == 1
    server.config.replay_dir = None
    r = client.post("/api/replays/files/good.json")
    assert r.status_code == 400 and "has no replay folder" in r.json()["error"]
    assert client.get("/api/replays/files").json() == {"files": []}
    other.plays()


def test_replay_frames(client, server, other):
    gid = finished_game(client, server)
    r = client.post(f"/api/games/{gid}/replay")
    assert r.status_code == 201
    rid, n = r.json()["id"], r.json()["decisions"]
    f = client.get(f"/api/replays/{rid}/frame?k={n}&view=0").json()
    assert f["decision"] == n and f["over"] and f["picture"].startswith("data:image/png")
    for query, message in [
        (f"k={n + 1}", f"frame {n + 1} is outside 0..{n}"),
        ("k=-1", "frame -1 is outside"),
        ("k=x", "frame must be a whole number, not 'x'"),
        ("k=1.5", "frame must be a whole number"),
        ("k=0&view=7", "seat 7 is not at this table (seats 0..0)"),
        ("k=0&view=nobody", "view must be a seat number, public or all, not 'nobody'"),
    ]:
        r = client.get(f"/api/replays/{rid}/frame?{query}")
        assert r.status_code == 400 and message in r.json()["error"], (query, r.json())
    for view, message in [("9", "seat 9 is not at this table"), ("x", "view must be a seat")]:
        r = client.get(f"/api/replays/{rid}/export?view={view}")
        assert r.status_code == 400 and message in r.json()["error"], r.text
    other.plays()


def test_export_is_self_contained(client, server):
    gid = finished_game(client, server, "unbroken", 1)
    rid = client.post(f"/api/games/{gid}/replay").json()["id"]
    tv = server.replay(rid)
    evil = "</script><script>alert(1)</script><!--"
    tv.seats[0] = evil
    tv.hand_text = lambda core, state, seat: [evil]  # data that tries to end the script
    r = client.get(f"/api/replays/{rid}/export?view=0")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    page = r.text
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"https?://", page), "the export loads something from the network"
    assert 'src="/' not in page and "src='/" not in page and "href=" not in page
    assert page.count("</script>") == 2 and page.count("<script") == 2
    start = page.index('<script id="frames" type="application/json">') + 44
    text = page[start : page.index("</script>", start)]
    assert "<" not in text, "markup inside the data can end or extend the script element"
    data = json.loads(text)
    assert [f["decision"] for f in data["frames"]] == list(range(tv.decisions + 1))
    assert set(data["pictures"]) >= {"0", str(tv.decisions)}
    assert data["frames"][0]["private"] == {"0": [evil]}
    for k, f in enumerate(data["frames"]):
        v = tv.view(0, k, picture=False)
        assert f["table"] == v["table"] and f["events"] == v["events"]


def test_seed_kept_from_pages_while_a_person_plays(client, server):
    """The seed gives away every hidden card: while a person plays, no page
    and no listing shows it; it shows once the game is over, and a game
    created without one gets a seed drawn by the server."""
    from .conftest import play_person_game

    info = client.post(
        "/api/games", json={"game": "unbroken", "players": 1, "seats": ["human"]}
    ).json()
    assert info["seed"] is None and info["token"]
    listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert listed[info["id"]]["seed"] is None
    second = client.post(
        "/api/games", json={"game": "unbroken", "players": 1, "seats": ["human"]}
    ).json()
    seeds = {server.get(g["id"]).session.seed for g in (info, second)}
    assert len(seeds) == 2  # drawn afresh for each game
    server.sent_log.clear()
    gid, last = play_person_game(client, "dungeon_kart", ["human", "human"], 9)
    views = [m for *_, m in server.sent_log]
    assert views and all(m["seed"] is None for m in views if not m["over"])
    assert all(m["seed"] == "9" for m in views if m["over"])
    assert client.get(f"/api/games/{gid}").json()["seed"] == "9"
    # a game of agents only has nobody to hide it from
    watched = client.post(
        "/api/games",
        json={"game": "dungeon_kart", "players": 2, "seats": ["heuristic", "random"], "seed": 4},
    ).json()
    assert watched["seed"] == "4"
