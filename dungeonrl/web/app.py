"""The web app's routes (Starlette): pages, the JSON API and the game
websocket, over a :class:`~.server.Server`.

Routes:

* ``GET /``: the app (lobby, table, replay viewer); ``/static/...`` its files.
* ``GET /api/catalog``: games, seat counts, the agents offered per count.
* ``GET /api/games``, ``POST /api/games`` (``{"game", "players", "seats",
  "seed"}``): the live games, a new one (its id and the keys of the
  person's seats), ``DELETE /api/games/{id}``.
* ``GET /api/games/{id}/replay``: a finished game's replay file;
  ``POST /api/games/{id}/replay``: open it in the viewer.
* ``POST /api/replays`` (a replay file as the body), ``GET
  /api/replays/files``, ``POST /api/replays/files/{name}`` (the replay
  folder), ``GET /api/replays/{id}/frame?k=K&view=V``, ``GET
  /api/replays/{id}/export?view=V``: the viewer.
* ``WS /ws/games/{id}?view=V&key=K``: one page of one game. The server
  sends ``{"type": "view", ...}`` after every change and ``{"type":
  "error", "message"}`` for a refused message; a page sends ``{"type":
  "act", "action"}``, ``{"type": "look", "view"}`` or ``{"type":
  "control", "cmd": "play|pause|step|speed"}``.

Errors are JSON ``{"error": message}`` with status 400 (bad request), 404
(unknown id), 409 (not now), 413 (too large) or 429 (a limit).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..agents.replay import MAX_BYTES
from .export import export_html
from .server import Connection, LiveGame, Server, ServerConfig
from .session import SessionError

__all__ = ["make_app", "STATIC"]

STATIC = Path(__file__).resolve().with_name("static")
#: how often idle games are looked for (seconds)
REAP_EVERY = 10.0


def _error(e: Exception, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": str(e)}, status_code=status)


def _status_of(e: SessionError) -> int:
    text = str(e)
    if text.startswith("no game") or text.startswith("no replay"):
        return 404
    if "limit" in text or "too many" in text:
        return 429
    if "still being played" in text:
        return 409
    return 400


async def _json_body(request: Request, limit: int = 65536):
    body = await request.body()
    if len(body) > limit:
        raise SessionError(f"request too large ({len(body):,} bytes, at most {limit:,})")
    import json

    try:
        return json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise SessionError("the request body is not JSON")


def make_app(config: ServerConfig | None = None, server: Server | None = None) -> Starlette:
    """The ASGI app (``uvicorn.run(make_app(), ...)``); ``server`` lets a
    test look inside."""
    srv = server or Server(config)

    def api(fn):
        async def endpoint(request: Request):
            try:
                return await fn(request)
            except SessionError as e:
                return _error(e, _status_of(e))

        return endpoint

    async def index(request: Request):
        return FileResponse(STATIC / "index.html")

    @api
    async def catalog(request: Request):
        return JSONResponse(srv.catalog())

    @api
    async def games(request: Request):
        if request.method == "POST":
            body = await _json_body(request)
            out = await run_in_threadpool(srv.create, body)
            live = srv.get(out["id"])
            _start_watch(live)
            return JSONResponse(out, status_code=201)
        return JSONResponse({"games": [g.summary() for g in srv.games.values()]})

    @api
    async def game(request: Request):
        gid = request.path_params["gid"]
        live = srv.get(gid)
        if request.method == "DELETE":
            for conn in list(live.conns):
                with contextlib.suppress(Exception):
                    await conn.send({"type": "closed", "message": "the game was closed"})
            srv.close(gid)
            return JSONResponse({"closed": gid})
        return JSONResponse(live.summary())

    @api
    async def game_replay(request: Request):
        gid = request.path_params["gid"]
        if request.method == "POST":
            out = await run_in_threadpool(srv.open_game_replay, gid)
            return JSONResponse(out, status_code=201)
        rep = srv.replay_of(gid)
        name = f"{rep['game']}-seed{rep['seed']}-{gid[:6]}.json"
        import json

        return Response(
            json.dumps(rep, separators=(",", ":")),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @api
    async def replays(request: Request):
        body = await request.body()
        if len(body) > MAX_BYTES:
            return _error(SessionError("more than a replay may hold"), 413)
        out = await run_in_threadpool(srv.open_replay, body, "uploaded replay")
        return JSONResponse(out, status_code=201)

    @api
    async def replay_files(request: Request):
        name = request.path_params.get("name")
        if request.method == "POST":
            out = await run_in_threadpool(srv.open_replay_file, name)
            return JSONResponse(out, status_code=201)
        return JSONResponse({"files": srv.replay_files()})

    @api
    async def replay_frame(request: Request):
        q = request.query_params
        rid = request.path_params["rid"]
        out = await run_in_threadpool(srv.replay_frame, rid, q.get("k", "0"), q.get("view"))
        return JSONResponse(out)

    @api
    async def replay_export(request: Request):
        rid = request.path_params["rid"]
        tv = srv.replay(rid)
        view = request.query_params.get("view")
        try:
            html = await run_in_threadpool(export_html, tv, view)
        except ValueError as e:  # a bad view
            raise SessionError(str(e)) from e
        name = f"{tv.game}-seed{tv.seed}-replay.html"
        return HTMLResponse(html, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    # --- the websocket -----------------------------------------------------------------
    async def broadcast(live: LiveGame) -> None:
        for conn in list(live.conns):
            async with live.lock:  # a view reads the game's records
                v = await run_in_threadpool(srv.view_for, live, conn)
            with contextlib.suppress(Exception):
                await conn.send(v)

    async def advance(live: LiveGame) -> None:
        """Agents play until a person is to act (a game a person plays)."""
        g = live.session
        while not g.over and not g.waiting_on_person() and not live.watched:
            async with live.lock:
                n = await run_in_threadpool(g.run_agents)
            if n == 0:
                break
        await broadcast(live)

    async def watch_loop(live: LiveGame) -> None:
        """A watched game: one decision per 1/speed seconds while playing."""
        g = live.session
        while live.gid in srv.games:
            if live.playing and not g.over and live.conns:
                t0 = time.monotonic()
                per_tick = max(1, int(live.speed / 20))
                async with live.lock:
                    n = await run_in_threadpool(g.run_agents, per_tick)
                if n:
                    await broadcast(live)
                if g.over:
                    live.playing = False
                    await broadcast(live)
                wait = per_tick / live.speed - (time.monotonic() - t0)
                await asyncio.sleep(max(0.0, wait))
            else:
                await asyncio.sleep(0.05)

    def _start_watch(live: LiveGame) -> None:
        if live.watched and live.task is None:
            live.task = asyncio.get_running_loop().create_task(watch_loop(live))

    async def game_socket(ws: WebSocket):
        await ws.accept()
        gid = ws.path_params["gid"]
        q = ws.query_params
        try:
            live, conn = srv.join(gid, q.get("view"), q.get("key"))
        except SessionError as e:
            await ws.send_json({"type": "error", "message": str(e), "fatal": True})
            await ws.close(code=4400)
            return
        conn.send = ws.send_json
        conn.picture = q.get("picture", "1") != "0"
        live.conns.add(conn)
        try:
            if not live.watched:
                await advance(live)
            else:
                async with live.lock:
                    first = await run_in_threadpool(srv.view_for, live, conn)
                await ws.send_json(first)
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                try:
                    text = msg.get("text")
                    if text is None:
                        raise SessionError("messages are JSON text, not binary")
                    parsed = srv.parse(text)
                    async with live.lock:
                        changed = await run_in_threadpool(srv.handle, live, conn, parsed)
                except SessionError as e:
                    await ws.send_json({"type": "error", "message": str(e)})
                    continue
                if gid not in srv.games:
                    await ws.send_json({"type": "closed", "message": "the game was closed"})
                    break
                if changed == "state":
                    await advance(live) if not live.watched else await broadcast(live)
                elif changed == "view":
                    async with live.lock:
                        v = await run_in_threadpool(srv.view_for, live, conn)
                    await ws.send_json(v)
                else:
                    for c in list(live.conns):
                        with contextlib.suppress(Exception):
                            await c.send({"type": "control", **live.summary()})
        except WebSocketDisconnect:
            pass
        finally:
            srv.leave(live, conn)

    async def reaper():
        while True:
            await asyncio.sleep(REAP_EVERY)
            for live in srv.reap():
                for conn in list(live.conns):
                    with contextlib.suppress(Exception):
                        await conn.send({"type": "closed", "message": "closed after being idle"})

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.get_running_loop().create_task(reaper())
        try:
            yield
        finally:
            task.cancel()
            for live in list(srv.games.values()):
                if live.task is not None:
                    live.task.cancel()

    routes = [
        Route("/", index),
        Route("/api/catalog", catalog),
        Route("/api/games", games, methods=["GET", "POST"]),
        Route("/api/games/{gid}", game, methods=["GET", "DELETE"]),
        Route("/api/games/{gid}/replay", game_replay, methods=["GET", "POST"]),
        Route("/api/replays", replays, methods=["POST"]),
        Route("/api/replays/files", replay_files, methods=["GET"]),
        Route("/api/replays/files/{name}", replay_files, methods=["POST"]),
        Route("/api/replays/{rid}/frame", replay_frame),
        Route("/api/replays/{rid}/export", replay_export),
        WebSocketRoute("/ws/games/{gid}", game_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = srv
    return app
