"""The web app's routes (Starlette): pages, the JSON API and the game
websocket, over a :class:`~.server.Server`.

Routes:

* ``GET /``: the app (lobby, table, replay viewer); ``/static/...`` its files.
* ``GET /api/catalog``: games, seat counts, the agents offered per count.
* ``GET /api/games``, ``POST /api/games`` (``{"game", "players", "seats",
  "seed"}``, the seed a string of digits): the live games (no secrets), a
  new one (its id, its ``token`` and the ``keys`` of the person's seats);
  ``DELETE /api/games/{id}`` with ``Authorization: Bearer TOKEN`` (the
  game's token: only the page that created a game ends it).
* ``GET /api/games/{id}/replay``: a finished game's replay file;
  ``POST /api/games/{id}/replay``: open it in the viewer.
* ``POST /api/replays`` (a replay file as the body), ``GET
  /api/replays/files``, ``POST /api/replays/files/{name}`` (the replay
  folder), ``GET /api/replays/{id}/frame?k=K&view=V``, ``GET
  /api/replays/{id}/export?view=V``: the viewer.
* ``WS /ws/games/{id}?view=V&key=K&token=T``: one page of one game
  (``key``: a person's seat; ``token``: the page that created the game).
  The server sends ``{"type": "view", ...}`` after every change and
  ``{"type": "error", "message"}`` for a refused message; a page sends
  ``{"type": "act", "game", "decision", "action"}`` (the game id and the
  decision number of the view the action was chosen on: any other is
  refused and nothing is played), ``{"type": "look", "view"}`` or, with
  the token, ``{"type": "control", "cmd": "play|pause|step|speed"}``.

Errors are JSON ``{"error": message}`` with a status chosen by the kind of
error (:data:`STATUS`, never by its message): 400 (bad request, body not
JSON), 401 (the game's token is needed), 403 (a token that is not the
game's), 404 (unknown id), 409 (not now), 413 (too large) or 429 (a limit).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
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
from .session import SessionError, TooLarge

__all__ = ["make_app", "STATIC", "STATUS"]

STATIC = Path(__file__).resolve().with_name("static")
#: how often idle games are looked for (seconds)
REAP_EVERY = 10.0


def _error(e: Exception, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": str(e)}, status_code=status)


#: the HTTP status of each kind of refusal, as each declares it (any other
#: SessionError: 400)
STATUS: dict[type, int] = {kind: kind.status for kind in SessionError.__subclasses__()}
#: largest JSON body of a request (a new game)
MAX_JSON = 65536


async def _body(request: Request, limit: int, what: str) -> bytes:
    """The request's body, refused (:class:`TooLarge`, its message
    ``what``) as soon as it is known to pass ``limit`` bytes: from its
    declared length, or while it is read (nothing more is read then)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"{what} ({int(declared):,} bytes, at most {limit:,})")
    chunks, n = [], 0
    async for chunk in request.stream():
        n += len(chunk)
        if n > limit:
            raise TooLarge(f"{what} (more than {limit:,} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request, limit: int = MAX_JSON):
    body = await _body(request, limit, "request too large")
    try:
        return json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise SessionError("the request body is not JSON") from None


def _bearer(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header (None: none)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _api(fn):
    """An endpoint whose :class:`SessionError` becomes a JSON error reply."""

    async def endpoint(self, request: Request):
        try:
            return await fn(self, request)
        except SessionError as e:
            status = e.status
            reply = _error(e, status)
            if status == 401:
                reply.headers["WWW-Authenticate"] = 'Bearer realm="dungeonrl game"'
            return reply

    return endpoint


def _attachment(name: str) -> dict:
    return {"Content-Disposition": f'attachment; filename="{name}"'}


class WebApp:
    """The endpoints over one :class:`~.server.Server` (see the module doc)."""

    def __init__(self, srv: Server):
        self.srv = srv

    # --- pages and the JSON API ---------------------------------------------------------
    async def index(self, request: Request):
        return FileResponse(STATIC / "index.html")

    @_api
    async def catalog(self, request: Request):
        return JSONResponse(self.srv.catalog())

    @_api
    async def games(self, request: Request):
        srv = self.srv
        if request.method == "POST":
            body = await _json_body(request)
            out = await run_in_threadpool(srv.create, body)
            live = srv.get(out["id"])
            if live.watched and live.task is None:
                live.task = asyncio.get_running_loop().create_task(self.watch_loop(live))
            return JSONResponse(out, status_code=201)
        return JSONResponse({"games": [g.summary() for g in srv.games.values()]})

    @_api
    async def game(self, request: Request):
        gid = request.path_params["gid"]
        live = self.srv.get(gid)
        if request.method == "DELETE":
            self.srv.check_token(live, _bearer(request))  # before any page is told
            await self.tell(live, {"type": "closed", "message": "the game was closed"})
            self.srv.close(gid)
            return JSONResponse({"closed": gid})
        return JSONResponse(live.summary())

    @_api
    async def game_replay(self, request: Request):
        gid = request.path_params["gid"]
        if request.method == "POST":
            out = await run_in_threadpool(self.srv.open_game_replay, gid)
            return JSONResponse(out, status_code=201)
        rep = self.srv.replay_of(gid)
        return Response(
            json.dumps(rep, separators=(",", ":")),
            media_type="application/json",
            headers=_attachment(f"{rep['game']}-seed{rep['seed']}-{gid[:6]}.json"),
        )

    @_api
    async def replays(self, request: Request):
        body = await _body(request, MAX_BYTES, "more than a replay may hold")
        out = await run_in_threadpool(self.srv.open_replay, body, "uploaded replay")
        return JSONResponse(out, status_code=201)

    @_api
    async def replay_files(self, request: Request):
        name = request.path_params.get("name")
        if request.method == "POST":
            out = await run_in_threadpool(self.srv.open_replay_file, name)
            return JSONResponse(out, status_code=201)
        return JSONResponse({"files": self.srv.replay_files()})

    @_api
    async def replay_frame(self, request: Request):
        q = request.query_params
        rid = request.path_params["rid"]
        out = await run_in_threadpool(self.srv.replay_frame, rid, q.get("k", "0"), q.get("view"))
        return JSONResponse(out)

    @_api
    async def replay_export(self, request: Request):
        tv = self.srv.replay(request.path_params["rid"])
        try:
            html = await run_in_threadpool(export_html, tv, request.query_params.get("view"))
        except ValueError as e:  # a bad view
            raise SessionError(str(e)) from e
        return HTMLResponse(html, headers=_attachment(f"{tv.game}-seed{tv.seed}-replay.html"))

    # --- the game websocket -----------------------------------------------------------------
    async def view(self, live: LiveGame, conn: Connection) -> dict:
        async with live.lock:  # a view reads the game's records
            return await run_in_threadpool(self.srv.view_for, live, conn)

    async def tell(self, live: LiveGame, msg: dict) -> None:
        for conn in list(live.conns):
            with contextlib.suppress(Exception):
                await conn.send(msg)

    async def broadcast(self, live: LiveGame) -> None:
        for conn in list(live.conns):
            v = await self.view(live, conn)
            with contextlib.suppress(Exception):
                await conn.send(v)

    async def advance(self, live: LiveGame) -> None:
        """Agents play until a person is to act (a game a person plays)."""
        g = live.session
        while not g.over and not g.waiting_on_person() and not live.watched:
            async with live.lock:
                n = await run_in_threadpool(g.run_agents)
            if n == 0:
                break
        await self.broadcast(live)

    async def watch_loop(self, live: LiveGame) -> None:
        """A watched game: one decision per 1/speed seconds while playing."""
        g = live.session
        while live.gid in self.srv.games:
            if live.playing and not g.over and live.conns:
                t0 = time.monotonic()
                per_tick = max(1, int(live.speed / 20))
                async with live.lock:
                    n = await run_in_threadpool(g.run_agents, per_tick)
                if n:
                    await self.broadcast(live)
                if g.over:
                    live.playing = False
                    await self.broadcast(live)
                wait = per_tick / live.speed - (time.monotonic() - t0)
                await asyncio.sleep(max(0.0, wait))
            else:
                await asyncio.sleep(0.05)

    async def game_socket(self, ws: WebSocket):
        srv = self.srv
        await ws.accept()
        gid = ws.path_params["gid"]
        q = ws.query_params
        try:
            live, conn = srv.join(gid, q.get("view"), q.get("key"), q.get("token"))
        except SessionError as e:
            await ws.send_json({"type": "error", "message": str(e), "fatal": True})
            await ws.close(code=4400)
            return
        conn.send = ws.send_json
        conn.picture = q.get("picture", "1") != "0"
        live.conns.add(conn)
        try:
            if not live.watched:
                await self.advance(live)
            else:
                await ws.send_json(await self.view(live, conn))
            while await self.one_message(ws, live, conn):
                pass
        except WebSocketDisconnect:
            pass
        finally:
            srv.leave(live, conn)

    async def one_message(self, ws: WebSocket, live: LiveGame, conn: Connection) -> bool:
        """Take one message of a page and answer it; False when the page
        left or the game was closed."""
        msg = await ws.receive()
        if msg["type"] == "websocket.disconnect":
            return False
        try:
            text = msg.get("text")
            if text is None:
                raise SessionError("messages are JSON text, not binary")
            parsed = self.srv.parse(text)
            async with live.lock:
                changed = await run_in_threadpool(self.srv.handle, live, conn, parsed)
        except SessionError as e:
            await ws.send_json({"type": "error", "message": str(e)})
            return True
        if live.gid not in self.srv.games:
            await ws.send_json({"type": "closed", "message": "the game was closed"})
            return False
        if changed == "state":
            await (self.broadcast(live) if live.watched else self.advance(live))
        elif changed == "view":
            await ws.send_json(await self.view(live, conn))
        else:
            await self.tell(live, {"type": "control", **live.summary()})
        return True

    async def reaper(self):
        while True:
            await asyncio.sleep(REAP_EVERY)
            for live in self.srv.reap():
                await self.tell(live, {"type": "closed", "message": "closed after being idle"})

    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        task = asyncio.get_running_loop().create_task(self.reaper())
        try:
            yield
        finally:
            task.cancel()
            for live in list(self.srv.games.values()):
                if live.task is not None:
                    live.task.cancel()

    def routes(self) -> list:
        return [
            Route("/", self.index),
            Route("/api/catalog", self.catalog),
            Route("/api/games", self.games, methods=["GET", "POST"]),
            Route("/api/games/{gid}", self.game, methods=["GET", "DELETE"]),
            Route("/api/games/{gid}/replay", self.game_replay, methods=["GET", "POST"]),
            Route("/api/replays", self.replays, methods=["POST"]),
            Route("/api/replays/files", self.replay_files, methods=["GET"]),
            Route("/api/replays/files/{name}", self.replay_files, methods=["POST"]),
            Route("/api/replays/{rid}/frame", self.replay_frame),
            Route("/api/replays/{rid}/export", self.replay_export),
            WebSocketRoute("/ws/games/{gid}", self.game_socket),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]


def make_app(config: ServerConfig | None = None, server: Server | None = None) -> Starlette:
    """The ASGI app (``uvicorn.run(make_app(), ...)``); ``server`` lets a
    test look inside."""
    web = WebApp(server or Server(config))
    app = Starlette(routes=web.routes(), lifespan=web.lifespan)
    app.state.server = web.srv
    return app
