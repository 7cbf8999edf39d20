"""The web app's memory stays bounded however many games are played: a
closed game leaves nothing behind (each game used to build its own core,
which the engine's per-core call table then kept alive for good)."""

from __future__ import annotations

import gc
import random

from dungeonrl.envs.core.spec import GameCore
from dungeonrl.web.server import Server, ServerConfig


def _play_and_close(srv, game, seats, seed, rng):
    out = srv.create({"game": game, "players": len(seats), "seats": seats, "seed": seed})
    live = srv.get(out["id"])
    _, conn = srv.join(out["id"], "0", out["keys"]["0"])
    conn.picture = False
    for _ in range(3):  # a few decisions: the core steps and observes
        live.session.run_agents()
        if live.session.over:
            break
        v = srv.view_for(live, conn)
        a = rng.choice(v["legal"])["action"]
        srv.handle(
            live, conn, {"type": "act", "game": out["id"], "decision": v["decision"], "action": a}
        )
    srv.leave(live, conn)
    srv.close(out["id"])


def _cores() -> int:
    gc.collect()
    # type(), not isinstance(): a dead weak proxy among the objects raises on isinstance
    return sum(issubclass(type(o), GameCore) for o in gc.get_objects())


def test_closed_games_leave_no_core_behind():
    srv = Server(ServerConfig(max_games=4))
    rng = random.Random(0)
    titles = [("unbroken", ["human"]), ("dungeon_kart", ["human", "heuristic"])]
    for n, (game, seats) in enumerate(titles):
        _play_and_close(srv, game, seats, n, rng)
    before = _cores()
    for n in range(12):
        game, seats = titles[n % 2]
        _play_and_close(srv, game, seats, 100 + n, rng)
    assert not srv.games
    assert _cores() == before
