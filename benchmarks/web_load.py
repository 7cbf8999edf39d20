"""How many decisions a second does ``dungeonrl serve`` answer, and how fast?

    python -m dungeonrl.benchmarks.web_load --json benchmarks/results/web_load.json
    python -m dungeonrl.benchmarks.web_load --games 1,4 --seconds 5 --no-pictures

A load test of the web app on the loopback address. It starts ``dungeonrl
serve`` in a subprocess (127.0.0.1, port 0, its game and page limits above
the load), warms it up (one short game of each title, so every kernel the
server needs is compiled or loaded from numba's cache before the clock
starts), then for each load level runs N clients at once for ``--seconds``
seconds. Each client plays one game at a time the way the page does: ``POST
/api/games`` (a person in seat 0, the heuristic in any other seat; the title
chosen round-robin over Carl solo, Unbroken, Kart with 2 seats and Dungeon
Crawler with 2 seats), ``WS /ws/games/{id}`` with the seat's key, a random
legal ``act`` each time the view says it is the seat's turn, until the game
is over; then ``DELETE /api/games/{id}`` and the next game.

Figures per level (games at once x pictures on or off):

* ``decisions_per_s``: the person's decisions the server answered, all
  clients together, per second of the level (the agents' decisions in
  between are counted apart, ``game_decisions``);
* ``latency_ms``: p50/p95/p99/max of the time from sending an ``act`` to
  receiving the next view in which it is the seat's turn again or the game
  is over (the agents' moves in between, the view's table text, events and,
  with pictures, its PNG);
* ``errors``: refused requests, ``error``/``closed`` messages, dropped
  sockets and replies slower than ``--timeout``: a correct server has none.
  The games left open on the server at the end are counted as errors too.

Pictures (``picture=0`` in the socket's query leaves them out) are most of
the cost: the PNG of the table is drawn and encoded for every view. The
clients run in this process, on the same cores as the server, and speak
``permessage-deflate`` like a browser; the load average at the start and
the end is recorded beside the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import random
import re
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass, field

from ..machine import loadavg, machine_info
from . import datafile

#: (title, registered game, seats): the titles the clients take in turn
#: (``benchmarks/data/web_load.toml``)
TITLES = tuple(
    (t["title"], t["game"], list(t["seats"]))
    for t in datafile.rows(
        datafile.load("web_load"), "titles", "web_load.toml", ("title", "game", "seats")
    )
)
DEFAULT_GAMES = (1, 8, 32)
DEFAULT_SECONDS = 15.0
#: the person's decisions of each warm-up game (one per title)
WARMUP_ACTS = 30
ANNOUNCE = re.compile(r"open (http://[^/\s]+)/")
#: seconds an idle HTTP connection is kept for reuse: below uvicorn's 5 s, so
#: the client never reuses a connection the server is closing
KEEPALIVE_S = 3.0


@dataclass
class Level:
    """What the clients of one load level saw."""

    games: int
    pictures: bool
    latencies: list = field(default_factory=list)  # seconds, one per answered act
    creates: list = field(default_factory=list)  # seconds, one per POST /api/games
    by_title: dict = field(default_factory=dict)  # title -> [decisions, latencies]
    game_decisions: int = 0  # every seat's decisions, agents' included
    games_started: int = 0
    games_finished: int = 0
    errors: int = 0
    error_samples: list = field(default_factory=list)

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(text[:300])


def _percentiles(xs) -> dict:
    import numpy as np

    if not xs:
        return {"p50": None, "p95": None, "p99": None, "max": None}
    a = np.asarray(xs) * 1000.0
    q = np.percentile(a, [50, 95, 99])
    return {
        "p50": round(float(q[0]), 2),
        "p95": round(float(q[1]), 2),
        "p99": round(float(q[2]), 2),
        "max": round(float(a.max()), 2),
    }


def _proc_rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024.0, 1)
    except (OSError, ValueError):
        pass
    return None


def _proc_cpu_s(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


# --- the server ---------------------------------------------------------------------------
class ServeProcess:
    """``python -m dungeonrl serve --port 0`` in a subprocess; ``url`` once it
    announced its address."""

    def __init__(self, max_games: int, max_connections: int):
        self.args = [
            sys.executable,
            "-m",
            "dungeonrl",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--max-games",
            str(max_games),
            "--max-connections",
            str(max_connections),
        ]
        self.proc: asyncio.subprocess.Process | None = None
        self.url = ""
        self._log = tempfile.TemporaryFile()
        self._drain: asyncio.Task | None = None

    async def start(self, timeout: float = 300.0) -> str:
        env = dict(os.environ, DUNGEONRL_QUIET_COMPILE="1", PYTHONUNBUFFERED="1")
        self.proc = await asyncio.create_subprocess_exec(
            *self.args, stdout=asyncio.subprocess.PIPE, stderr=self._log, env=env
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"dungeonrl serve did not announce itself in {timeout:.0f} s")
            line = await asyncio.wait_for(self.proc.stdout.readline(), left)
            if not line:
                raise RuntimeError(f"dungeonrl serve exited: {self.log_tail()}")
            m = ANNOUNCE.search(line.decode("utf-8", "replace"))
            if m:
                self.url = m.group(1)
                break
        self._drain = asyncio.get_running_loop().create_task(self._drain_stdout())
        return self.url

    async def _drain_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        while await self.proc.stdout.read(65536):
            pass

    def log_tail(self, n: int = 2000) -> str:
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-n:]

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        import signal

        self.proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(self.proc.wait(), 15)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        if self._drain is not None:
            self._drain.cancel()


# --- one client -----------------------------------------------------------------------------
async def play_game(
    http, ws_base, title_index, seed, pictures, rng, stats, deadline, timeout, max_acts=None
):
    """Create, play and close one game (stopped at ``deadline`` or after
    ``max_acts`` decisions); returns True when it reached its end."""
    from websockets.asyncio.client import connect

    title, game, seats = TITLES[title_index % len(TITLES)]
    t0 = time.perf_counter()
    body = {"game": game, "players": len(seats), "seats": seats, "seed": seed}
    try:
        r = await http.post("/api/games", json=body)
    except Exception as e:  # a refused or dropped connection is an error like a refusal
        stats.error(f"POST /api/games {game}: {type(e).__name__}: {e}")
        return False
    if r.status_code != 201:
        stats.error(f"POST /api/games {game}: {r.status_code} {r.text}")
        return False
    stats.creates.append(time.perf_counter() - t0)
    stats.games_started += 1
    made = r.json()
    gid, key, token = made["id"], made["keys"]["0"], made["token"]
    per_title = stats.by_title.setdefault(title, [0, []])
    finished = False
    url = f"{ws_base}/ws/games/{gid}?view=0&key={key}" + ("" if pictures else "&picture=0")
    try:
        async with connect(url, max_size=None, open_timeout=timeout) as ws:

            async def next_view():
                """The next view in which the seat is to act or the game is over."""
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
                    kind = msg.get("type")
                    if kind != "view":
                        raise RuntimeError(f"{kind} message: {msg.get('message', msg)}")
                    if msg["over"] or (msg["legal"] and msg["to_play"] == 0):
                        return msg

            view = await next_view()
            acts = 0
            while not view["over"] and time.monotonic() < deadline:
                if max_acts is not None and acts >= max_acts:
                    break
                acts += 1
                action = rng.choice(view["legal"])["action"]
                before = view["decision"]
                t_act = time.perf_counter()
                act = {"type": "act", "game": gid, "decision": before, "action": action}
                await ws.send(json.dumps(act))
                view = await next_view()
                dt = time.perf_counter() - t_act
                stats.latencies.append(dt)
                per_title[0] += 1
                per_title[1].append(dt)
                stats.game_decisions += view["decision"] - before
            finished = bool(view["over"])
            if finished:
                stats.games_finished += 1
    except Exception as e:  # every failure is counted, then the game is closed
        stats.error(f"{title} game {gid}: {type(e).__name__}: {e}")
    try:
        r = await http.delete(f"/api/games/{gid}", headers={"Authorization": f"Bearer {token}"})
        if r.status_code != 200:
            stats.error(f"DELETE /api/games/{gid}: {r.status_code} {r.text}")
    except Exception as e:
        stats.error(f"DELETE /api/games/{gid}: {type(e).__name__}: {e}")
    return finished


async def client(i, http, ws_base, pictures, stats, deadline, timeout, seed0):
    rng = random.Random(seed0 * 7919 + i)
    n = 0
    while time.monotonic() < deadline:
        await play_game(
            http, ws_base, i + n, seed0 + 100_000 * i + n, pictures, rng, stats, deadline, timeout
        )
        n += 1


async def run_level(url, n, pictures, seconds, timeout, pid, seed0) -> dict:
    import httpx

    stats = Level(n, pictures)
    ws_base = "ws://" + url.split("://", 1)[1]
    limits = httpx.Limits(
        max_connections=n + 4, max_keepalive_connections=n + 4, keepalive_expiry=KEEPALIVE_S
    )
    rss0, cpu0, own0 = _proc_rss_mb(pid), _proc_cpu_s(pid), time.process_time()
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as http:
        t0 = time.monotonic()
        deadline = t0 + seconds
        await asyncio.gather(
            *(client(i, http, ws_base, pictures, stats, deadline, timeout, seed0) for i in range(n))
        )
        elapsed = time.monotonic() - t0
    cpu1 = _proc_cpu_s(pid)
    row = {
        "games": n,
        "pictures": pictures,
        "seconds": round(elapsed, 2),
        "decisions": len(stats.latencies),
        "decisions_per_s": round(len(stats.latencies) / elapsed, 1),
        "game_decisions": stats.game_decisions,
        "games_started": stats.games_started,
        "games_finished": stats.games_finished,
        "latency_ms": _percentiles(stats.latencies),
        "create_ms": _percentiles(stats.creates),
        "by_title": {
            t: {"decisions": d, "latency_ms": _percentiles(lat)}
            for t, (d, lat) in sorted(stats.by_title.items())
        },
        "server_rss_mb": [rss0, _proc_rss_mb(pid)],
        "server_cpu_s": None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 2),
        "client_cpu_s": round(time.process_time() - own0, 2),
        "errors": stats.errors,
        "error_samples": stats.error_samples,
    }
    return row


async def warm_up(url, timeout, pictures=True) -> tuple[float, int]:
    """One short game of each title (the first use of a game in the server
    process loads or compiles its kernels, and the first picture loads the
    drawing code); returns the seconds it took and the errors met."""
    import httpx

    stats = Level(1, True)
    ws_base = "ws://" + url.split("://", 1)[1]
    rng = random.Random(0)
    t0 = time.monotonic()
    async with httpx.AsyncClient(
        base_url=url, timeout=timeout, limits=httpx.Limits(keepalive_expiry=KEEPALIVE_S)
    ) as http:
        for k in range(len(TITLES)):
            deadline = time.monotonic() + 10 * timeout
            await play_game(
                http, ws_base, k, k, pictures, rng, stats, deadline, timeout, max_acts=WARMUP_ACTS
            )
    return time.monotonic() - t0, stats.errors


def markdown(doc: dict) -> str:
    lines = [
        "| games at once | pictures | decisions/s | p50 | p95 | p99 |",
        "|---:|---|---:|---:|---:|---:|",
    ]

    def ms(x):
        return "n/a" if x is None else f"{x:.0f} ms" if x >= 10 else f"{x:.1f} ms"

    for r in doc["rows"]:
        lat = r["latency_ms"]
        lines.append(
            f"| {r['games']} | {'yes' if r['pictures'] else 'no'} | {r['decisions_per_s']:,.0f} | "
            f"{ms(lat['p50'])} | {ms(lat['p95'])} | {ms(lat['p99'])} |"
        )
    m = doc["machine"]
    load = doc.get("load") or [float("nan")]
    lines.append("")
    lines.append(
        f"Decisions of the person's seat answered per second by `dungeonrl serve`, all clients "
        f"together; latency from an `act` to the next view where the seat acts or the game is "
        f"over. {doc['seconds']:g} s per row, {doc['errors']} errors. Clients and server on the "
        f"same {m['cores']} cores ({m['cpu']}), load {load[0]:.1f} at the start, {doc['date']}; "
        f"`{doc['command']}`."
    )
    return "\n".join(lines)


async def _main(levels, picture_modes, seconds, timeout, seed) -> dict:
    most = max(levels)
    serve = ServeProcess(max_games=2 * most + 8, max_connections=2 * most + 8)
    t0 = time.monotonic()
    url = await serve.start()
    started = time.monotonic() - t0
    print(f"server up at {url} in {started:.1f} s", flush=True)
    rows = []
    try:
        warm_s, warm_errors = await warm_up(url, timeout, any(picture_modes))
        print(f"warm-up: {warm_s:.1f} s, {warm_errors} errors", flush=True)
        for pictures in picture_modes:
            for n in levels:
                row = await run_level(url, n, pictures, seconds, timeout, serve.pid, seed)
                rows.append(row)
                lat = row["latency_ms"]
                print(
                    f"{n:3d} games, pictures {'on ' if pictures else 'off'}: "
                    f"{row['decisions_per_s']:8.1f} decisions/s, p50 {lat['p50']} ms, "
                    f"p95 {lat['p95']} ms, p99 {lat['p99']} ms, {row['errors']} errors, "
                    f"server {row['server_rss_mb'][1]} MB",
                    flush=True,
                )
        import httpx

        async with httpx.AsyncClient(
            base_url=url, timeout=timeout, limits=httpx.Limits(keepalive_expiry=KEEPALIVE_S)
        ) as http:
            left = len((await http.get("/api/games")).json()["games"])
    finally:
        await serve.stop()
    errors = warm_errors + sum(r["errors"] for r in rows) + left
    return {
        "server_start_s": round(started, 2),
        "warmup_s": round(warm_s, 2),
        "warmup_errors": warm_errors,
        "games_left_open": left,
        "rows": rows,
        "errors": errors,
    }


def _levels(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a list of whole numbers (1,8,32)"
        ) from None
    if not out or min(out) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: games at once are 1 or more")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--games",
        type=_levels,
        default=list(DEFAULT_GAMES),
        help="games played at once, one level each (default: %(default)s)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_SECONDS,
        help="seconds per level (default: %(default)s)",
    )
    p.add_argument(
        "--pictures",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="only with pictures, or only without (default: both)",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds a reply may take")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, metavar="PATH", help="write the results here")
    a = p.parse_args(argv)
    if not a.seconds > 0:
        p.error("--seconds must be above 0")
    modes = [True, False] if a.pictures is None else [a.pictures]
    argv_shown = sys.argv[1:] if argv is None else list(argv)
    load = loadavg()
    res = asyncio.run(_main(a.games, modes, a.seconds, a.timeout, a.seed))
    doc = {
        "command": "python -m dungeonrl.benchmarks.web_load " + shlex.join(argv_shown),
        "date": datetime.date.today().isoformat(),
        "machine": machine_info(),
        "load": load,
        "load_end": loadavg(),
        "seconds": a.seconds,
        "titles": [t for t, _, _ in TITLES],
        "clients": "asyncio, websockets (permessage-deflate), httpx; same machine as the server",
        **res,
    }
    print(markdown(doc))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
    return 0 if doc["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
