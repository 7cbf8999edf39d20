"""Shared set-up of the web app tests: a server whose message log is on,
a test client around it (lifespan included), and drivers that play whole
games through the game websocket as a page would."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

with warnings.catch_warnings():  # starlette's note about httpx versions
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from dungeonrl.web.app import make_app
from dungeonrl.web.server import Server, ServerConfig


@pytest.fixture
def server():
    srv = Server(ServerConfig(max_games=4, max_connections=16))
    srv.sent_log = []
    return srv


@pytest.fixture
def client(server):
    with TestClient(make_app(server=server)) as c:
        yield c


def new_game(client, game, seats, seed=0) -> dict:
    """A new game (its id, token, keys and summary), created as a page does."""
    r = client.post(
        "/api/games", json={"game": game, "players": len(seats), "seats": seats, "seed": seed}
    )
    assert r.status_code == 201, r.text
    return r.json()


def play_person_game(client, game, seats, seed, *, picture=False, watch=True, rng_seed=0):
    """A game with person seats: each person's page acts by a random legal
    choice; a public page watches too (``watch``). Returns (game id, the
    last view each page got)."""
    info = new_game(client, game, seats, seed)
    gid, keys = info["id"], info["keys"]
    pic = "" if picture else "&picture=0"
    rng = np.random.default_rng(rng_seed)
    socks, last = {}, {}

    def drain():  # every change sends one view to every open page
        for name, ws in socks.items():
            m = ws.receive_json()
            assert m["type"] == "view", m
            last[name] = m

    with contextlib.ExitStack() as stack:
        for seat in sorted(keys, key=int):
            url = f"/ws/games/{gid}?view={seat}&key={keys[seat]}{pic}"
            socks[int(seat)] = stack.enter_context(client.websocket_connect(url))
            drain()
        if watch:
            url = f"/ws/games/{gid}?view=public{pic}"
            socks["public"] = stack.enter_context(client.websocket_connect(url))
            drain()
        while not last[next(iter(socks))]["over"]:
            seat = last[next(iter(socks))]["to_play"]
            assert seats[seat] == "human", "the server waits on an agent"
            legal = [x["action"] for x in last[seat]["legal"]]
            assert legal, "a person to act was offered no choice"
            socks[seat].send_json(act(last[seat], int(rng.choice(legal))))
            drain()
    return gid, last


def act(view: dict, action: int) -> dict:
    """The message a page sends to play ``action`` on the table of ``view``."""
    return {"type": "act", "game": view["game_id"], "decision": view["decision"], "action": action}


def watch_game(client, game, seats, seed, views=("public", 1), speed=200):
    """A game of agents only, watched from ``views`` (pages without
    pictures; the first one is the page that created it, holding its
    token) while it plays itself at ``speed``; returns (game id, the last
    view of each page)."""
    info = new_game(client, game, seats, seed)
    gid = info["id"]
    last = {}
    with contextlib.ExitStack() as stack:
        socks = {
            v: stack.enter_context(
                client.websocket_connect(
                    f"/ws/games/{gid}?view={v}&picture=0"
                    + (f"&token={info['token']}" if i == 0 else "")
                )
            )
            for i, v in enumerate(views)
        }
        for v, ws in socks.items():
            last[v] = ws.receive_json()
            assert last[v]["type"] == "view", last[v]
        first = socks[views[0]]
        first.send_json({"type": "control", "cmd": "speed", "speed": speed})
        first.send_json({"type": "control", "cmd": "play"})
        for v, ws in socks.items():
            while True:
                m = ws.receive_json()
                if m["type"] == "view":
                    last[v] = m
                    if m["over"]:
                        break
        # a page changes its view once the game is over
        first.send_json({"type": "look", "view": 0})
        while True:
            m = first.receive_json()
            if m["type"] == "view" and m["view"] == 0:
                last["look"] = m
                break
    return gid, last
