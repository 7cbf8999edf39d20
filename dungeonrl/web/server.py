"""The web app's games, connections and limits, free of any HTTP detail
(:mod:`.app` maps routes onto it).

A :class:`Server` holds the live games (each a :class:`LiveGame` around a
:class:`~.session.GameSession`), the replays opened in the viewer and the
open connections, all bounded (:class:`ServerConfig`). Who may see what:

* a game belongs to the page that created it: creation hands out the
  game's ``token`` (ending the game, and the pace of a game no person
  plays, need it) and one ``key`` per person's seat;
* a person's seat is joined with its key; only that page gets the seat's
  view and may act for it, and each action names the game and the
  decision it was chosen at, so a choice made on a table the page no
  longer shows is refused instead of played;
* anyone may watch a game as the public (no hidden information), and
  only read: a watcher neither acts nor sets the pace;
* a game that no person plays can also be watched from any seat or with
  every seat's hidden information (``"all"``).

Seeds are integers in ``0..SEED_MAX`` (``2**32 - 1``: the range of the
command line's ``--seed``, so a game seen here replays with ``dungeonrl
play --seed``) and travel as decimal strings (a page's JavaScript numbers
lose digits above ``2**53``).

Every refusal is a :class:`~.session.SessionError` (its subclasses name
the kind: unknown id, not now, too large, a limit, token needed or
refused) whose message the page shows; a refused request changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..agents.options import SEED_MAX
from ..agents.replay import MAX_BYTES, ReplayError, load_replay, replay_from_json
from ..agents.words import count_range
from ..registry import get_spec, list_games
from .session import (
    ALL,
    HUMAN,
    AtLimit,
    GameSession,
    NotNow,
    SessionError,
    TokenNeeded,
    TokenRefused,
    TooLarge,
    UnknownId,
    game_title,
    parse_view,
    shared_core,
    trace_view,
)

__all__ = [
    "ServerConfig",
    "Server",
    "LiveGame",
    "Connection",
    "catalog_agents",
    "agent_offers",
    "parse_seed",
    "SEED_MAX",
]

#: a replay name that may be opened from the replay folder
REPLAY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,120}\.json$")
#: longest message a page may send
MAX_MESSAGE = 4096
#: a seed as a page sends it: decimal digits (the range is checked after)
SEED_TEXT = re.compile(r"[0-9]{1,20}")


@dataclass
class ServerConfig:
    """Limits and choices of one server (``dungeonrl serve`` options)."""

    max_games: int = 32
    max_connections: int = 128
    idle_seconds: float = 1800.0
    max_replays: int = 16
    #: agents offered besides random, heuristic and the shipped ones (the
    #: ``--agent`` options of ``serve``: saved models, ``module:attribute``)
    agents: tuple = ()
    #: a folder of replay files the viewer may open by name (None: none)
    replay_dir: str | None = None
    #: watched games: decisions per second at the start
    speed: float = 4.0


def catalog_agents(game: str, players: int, extra=()) -> list[str]:
    """The agents a page may seat in ``game`` at ``players`` seats:
    random, heuristic, the shipped reference agents trained on that game
    and seat count, then the server's own ``extra`` agents (a dict from
    :func:`agent_offers`: those that load for this game and seat count;
    any other iterable: all of them)."""
    from ..agents import pretrained

    out = ["heuristic", "random"]
    for name in pretrained.names():
        card = pretrained.card(name)
        if card["game"] == game and int(card["core_kwargs"].get("num_players", 1)) == players:
            out.append(pretrained.PREFIX + name)
    if isinstance(extra, dict):
        return out + [a for a, where in extra.items() if (game, players) in where]
    return out + [str(a) for a in extra]


def agent_offers(agents) -> dict[str, list[tuple[str, int]]]:
    """Where each of the server's own agents (``--agent``: a saved model
    or ``module:attribute``) can play: the ``(game, seat count)`` pairs it
    loads for. Resolved once, when the server starts, with the package's
    own resolver (:func:`~dungeonrl.agents.policy.make_agent`), so that an
    agent that cannot be imported or loaded stops the server with the
    reason instead of being offered and then refused when a page picks
    it. Raises :class:`~.session.SessionError` for an agent that is not a
    file or ``module:attribute``, cannot be imported, or loads for no game."""
    from ..agents.algos.search import is_search_ref
    from ..agents.policy import make_agent
    from ..agents.protocol import AgentError, import_agent, is_import_ref

    out: dict[str, list[tuple[str, int]]] = {}
    for name in (str(a) for a in agents):
        if not os.path.exists(name) and not is_search_ref(name):
            if not is_import_ref(name):
                raise SessionError(
                    f"agent {name!r}: not a file or module:attribute (nor a search agent: "
                    "search[:PRIOR][?key=value&...])"
                )
            try:
                import_agent(name)  # the import's own error names what is missing
            except AgentError as e:
                raise SessionError(str(e)) from e
        where: list[tuple[str, int]] = []
        why: list[str] = []
        for game in list_games():
            spec = get_spec(game)
            for n in spec.player_counts:
                options = {} if spec.min_players == spec.max_players else {"num_players": n}
                try:
                    make_agent(name, shared_core(game, options), seed=0)
                except Exception as e:  # any failure means: not offered there
                    why.append(f"{game} at {n}: {e}")
                    continue
                where.append((game, n))
        if not where:
            raise SessionError(f"agent {name!r} loads for no game here ({why[0]})")
        out[name] = where
    return out


def parse_seed(seed) -> int:
    """A page's seed: decimal digits in a string (how seeds travel: a
    page's JavaScript numbers lose digits above ``2**53``) or a JSON whole
    number, in ``0..SEED_MAX``, the range of the command line's ``--seed``."""
    if isinstance(seed, str) and SEED_TEXT.fullmatch(seed):
        value = int(seed)
    elif isinstance(seed, int) and not isinstance(seed, bool):
        value = seed
    else:
        raise SessionError(
            f"seed must be a whole number in 0..{SEED_MAX} (digits in a string), "
            f"not {str(seed)[:40]!r}"
        )
    if not 0 <= value <= SEED_MAX:
        raise SessionError(
            f"seed {str(value)[:40]} is outside 0..{SEED_MAX} (2**32 - 1, the range of --seed)"
        )
    return value


@dataclass(eq=False)
class Connection:
    """One open page: the view it may see, whether it may act (its seat),
    and the decision it last saw."""

    send: Any  # async callable taking a dict
    view: Any  # a seat, None (public) or ALL
    seat: int | None = None  # the seat it acts for (a person's page)
    since: int = 0
    picture: bool = True
    #: the page holds the game's token (it created the game)
    owner: bool = False


@dataclass(eq=False)
class LiveGame:
    gid: str
    session: GameSession
    keys: dict  # seat -> key of a person's seat
    token: str = ""  # the page that created the game: ending it, a watched game's pace
    conns: set = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    playing: bool = False  # a watched game advancing by itself
    speed: float = 4.0
    task: asyncio.Task | None = None

    @property
    def watched(self) -> bool:
        """No person plays: the game advances on its own, at ``speed``."""
        return not self.session.humans

    def summary(self) -> dict:
        g = self.session
        return {
            "id": self.gid,
            "game": g.game,
            "title": g.title,
            "seats": list(g.seats),
            "seed": shown_seed(g),
            "decisions": g.decisions,
            "over": g.over,
            "watched": self.watched,
            "playing": self.playing,
            "speed": self.speed,
        }


def shown_seed(g) -> str | None:
    """The seed a page may see, as a string: the game's once it is over or
    when no person plays it, else None (the seed gives away every hidden
    card)."""
    return str(g.seed) if (g.over or not g.humans) else None


class Server:
    """See the module doc."""

    def __init__(self, config: ServerConfig | None = None):
        self.config = config or ServerConfig()
        #: where each of the config's own agents plays (checked now: see agent_offers)
        self.offers = agent_offers(self.config.agents)
        self.games: dict[str, LiveGame] = {}
        self.replays: OrderedDict[str, trace_view] = OrderedDict()
        self.connections = 0
        #: every message sent to a page, with the record it shows (tests)
        self.sent_log: list | None = None

    # --- the catalog ----------------------------------------------------------------
    def catalog(self) -> dict:
        games = []
        for name in list_games():
            spec = get_spec(name)
            games.append(
                {
                    "name": name,
                    "title": game_title(name),
                    "env_id": spec.env_id,
                    "players": list(spec.player_counts),
                    "agents": {
                        str(n): catalog_agents(name, n, self.offers) for n in spec.player_counts
                    },
                }
            )
        return {"games": games, "limits": self._limits()}

    def _limits(self) -> dict:
        c = self.config
        return {
            "max_games": c.max_games,
            "max_connections": c.max_connections,
            "idle_seconds": c.idle_seconds,
        }

    # --- games ------------------------------------------------------------------------
    def create(self, request) -> dict:
        """A new game from a page's request ``{"game", "players", "seats",
        "seed"}`` (seats: ``"human"`` or an offered agent per seat; the seed:
        see :func:`parse_seed`; no seed: the server draws one, shown to no
        page until the game is over). Returns the game's summary with its
        ``token`` (ending the game; the pace of a game no person plays) and
        ``keys`` (one per person's seat): secrets for the page that created
        it, never listed."""
        if not isinstance(request, dict):
            raise SessionError("a new game is a JSON object with game, players, seats and seed")
        unknown = set(request) - {"game", "players", "seats", "seed"}
        if unknown:
            raise SessionError(f"unknown fields {sorted(unknown)}")
        game = request.get("game")
        if not isinstance(game, str) or game not in list_games():
            raise SessionError(f"unknown game {game!r} (games: {', '.join(list_games())})")
        spec = get_spec(game)
        players = request.get("players", spec.min_players)
        if isinstance(players, bool) or not isinstance(players, int):
            raise SessionError("players must be a whole number")
        if players not in spec.player_counts:
            raise SessionError(
                f"{game} is played by "
                f"{count_range(spec.min_players, spec.max_players, 'player')}, not {players}"
            )
        seats = request.get("seats", [HUMAN] + ["heuristic"] * (players - 1))
        if not isinstance(seats, list) or len(seats) != players:
            raise SessionError(f"seats must list {players} players (human or an agent)")
        offered = catalog_agents(game, players, self.offers)
        for i, s in enumerate(seats):
            if s != HUMAN and s not in offered:
                raise SessionError(
                    f"seat {i}: {s!r} is not offered here (human, {', '.join(offered)})"
                )
        seed = request.get("seed")
        if seed is None:  # drawn here and kept from the pages until the game is over
            seed = secrets.randbelow(SEED_MAX + 1)
        seed = parse_seed(seed)
        self.reap()
        if len(self.games) >= self.config.max_games:
            raise AtLimit(
                f"the server holds {len(self.games)} games, its limit; close one or wait "
                f"for idle games to be closed ({self.config.idle_seconds:.0f} s idle)"
            )
        options = {} if spec.min_players == spec.max_players else {"num_players": players}
        session = GameSession(game, seats, seed, options)
        session.run_agents(0)
        gid = secrets.token_urlsafe(9)
        keys = {i: secrets.token_urlsafe(12) for i in session.humans}
        token = secrets.token_urlsafe(18)
        live = LiveGame(gid, session, keys, token=token, speed=self.config.speed)
        self.games[gid] = live
        return {
            "id": gid,
            "token": token,
            "keys": {str(k): v for k, v in keys.items()},
            **live.summary(),
        }

    def get(self, gid) -> LiveGame:
        live = self.games.get(gid) if isinstance(gid, str) else None
        if live is None:
            raise UnknownId(f"no game {str(gid)[:40]!r} (finished games are closed when idle)")
        return live

    @staticmethod
    def check_token(live: LiveGame, token) -> None:
        """Refuses a request that only the page holding ``live``'s token may make."""
        if token is None or token == "":
            raise TokenNeeded(
                "only the page that created the game may do this: send its token "
                "(Authorization: Bearer TOKEN)"
            )
        if not isinstance(token, str) or not secrets.compare_digest(
            token.encode("utf-8", "replace"), live.token.encode()
        ):
            raise TokenRefused("that is not this game's token; only the page that created it may")

    def close(self, gid) -> None:
        live = self.games.pop(gid, None)
        if live is not None and live.task is not None:
            live.task.cancel()

    def reap(self, now: float | None = None) -> list:
        """Close the games idle longer than the limit; returns them."""
        now = time.monotonic() if now is None else now
        idle = [
            live
            for live in self.games.values()
            if now - live.session.touched > self.config.idle_seconds
        ]
        for live in idle:
            self.close(live.gid)
        return idle

    def join(self, gid, view=None, key=None, token=None) -> tuple[LiveGame, Connection]:
        """The connection a page gets for ``view`` (a seat number, ``"public"``
        or ``"all"``) with ``key`` (a person's seat) and ``token`` (the
        game's, for the page that created it: a wrong one is refused)."""
        live = self.get(gid)
        g = live.session
        if token not in (None, ""):
            self.check_token(live, token)
        want = parse_view(view, g.core.num_players)
        seat = None
        if isinstance(want, int) and want in live.keys:
            if not isinstance(key, str) or not secrets.compare_digest(key, live.keys[want]):
                raise SessionError(f"seat {want} is a person's seat: its key is needed")
            seat = want
        elif (want == ALL or isinstance(want, int)) and not live.watched:
            raise SessionError(
                "a game a person plays can be watched as the public only "
                "(its seats' hidden information is theirs)"
            )
        if self.connections >= self.config.max_connections:
            raise AtLimit(f"too many open pages ({self.connections}); close one")
        self.connections += 1
        g.touched = time.monotonic()
        owner = token not in (None, "")
        return live, Connection(send=None, view=want, seat=seat, owner=owner)

    def leave(self, live: LiveGame, conn: Connection) -> None:
        if conn in live.conns:
            live.conns.discard(conn)
        self.connections = max(0, self.connections - 1)

    # --- messages from a page -----------------------------------------------------------
    @staticmethod
    def parse(text) -> dict:
        """A page's message as a dict; refuses what is not one."""
        if not isinstance(text, str):
            raise SessionError("messages are JSON text")
        if len(text) > MAX_MESSAGE:
            raise TooLarge(f"message too long ({len(text)} characters, at most {MAX_MESSAGE})")
        try:
            msg = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise SessionError(
                'a message is a JSON object, e.g. {"type": "act", "game": ID, '
                '"decision": 12, "action": 3}'
            ) from None
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            raise SessionError('a message is a JSON object with a "type"')
        return msg

    def handle(self, live: LiveGame, conn: Connection, msg: dict) -> str:
        """Apply one message (already parsed); returns what changed:
        ``"state"`` (the game moved), ``"view"`` (this page's view) or
        ``"control"`` (a watched game's pace)."""
        g = live.session
        g.touched = time.monotonic()
        kind = msg["type"]
        if kind == "act":
            if conn.seat is None:
                raise SessionError("this page watches; it cannot act")
            self._check_current(live, msg)
            g.act(conn.seat, msg.get("action"))
            return "state"
        if kind == "look":
            if not live.watched:
                raise SessionError("only a game no person plays can be watched from a seat")
            view = msg.get("view")
            if view in ("public", None):
                conn.view = None
            elif view == ALL:
                conn.view = ALL
            elif isinstance(view, int) and not isinstance(view, bool) and 0 <= view < len(g.seats):
                conn.view = view
            else:
                raise SessionError(f"view must be a seat number, public or all, not {view!r}")
            conn.since = max(0, g.decisions - 1)
            return "view"
        if kind == "control":
            if not live.watched:
                raise SessionError("a game a person plays moves when the person acts")
            if not conn.owner:
                raise SessionError(
                    "this page watches; only the page that started the game sets its pace"
                )
            cmd = msg.get("cmd")
            if cmd == "play":
                live.playing = True
            elif cmd == "pause":
                live.playing = False
            elif cmd == "step":
                live.playing = False
                if g.agent_step():
                    return "state"
            elif cmd == "speed":
                speed = msg.get("speed")
                if isinstance(speed, bool) or not isinstance(speed, (int, float)):
                    raise SessionError("speed is decisions per second, a number")
                if not 0.25 <= float(speed) <= 200:
                    raise SessionError("speed must be 0.25..200 decisions per second")
                live.speed = float(speed)
            else:
                raise SessionError(f"control is play, pause, step or speed, not {cmd!r}")
            return "control"
        raise SessionError(f"unknown message type {kind[:40]!r} (act, look or control)")

    @staticmethod
    def _check_current(live: LiveGame, msg: dict) -> None:
        """An action must name the game and the decision it was chosen at:
        one chosen on another table, or before the game moved on, is
        refused (:class:`~.session.NotNow`) and nothing is played."""
        game, k = msg.get("game"), msg.get("decision")
        if game is None or k is None:
            raise SessionError(
                'an action names its game and decision: {"type": "act", "game": ID, '
                '"decision": K, "action": A} (the game id and decision of the view it was '
                "chosen on)"
            )
        if not isinstance(game, str) or game != live.gid:
            raise NotNow(
                f"this choice was made on another game's table ({str(game)[:40]!r}), "
                f"not this one ({live.gid}); nothing was played"
            )
        if isinstance(k, bool) or not isinstance(k, int):
            raise SessionError(f"decision must be a whole number, not {str(k)[:40]!r}")
        now = live.session.decisions
        if k != now:
            raise NotNow(
                f"this choice was made at decision {k}; the game is at decision {now} "
                "(the page had not caught up); nothing was played"
            )

    def view_for(self, live: LiveGame, conn: Connection) -> dict:
        g = live.session
        v = g.view(conn.view, conn.since, picture=conn.picture)
        v["you"] = conn.seat
        v["owner"] = conn.owner  # the page holds the game's token (its controls work)
        v["game_id"] = live.gid
        v["watched"] = live.watched
        v["playing"] = live.playing
        v["speed"] = live.speed
        if conn.seat is None:
            v["legal"] = [] if conn.view != ALL else v["legal"]
        if self.sent_log is not None:
            self.sent_log.append((g.game, g.core, g.history[g.decisions].copy(), conn.view, v))
        conn.since = g.decisions
        return v

    # --- replays ---------------------------------------------------------------------
    def replay_of(self, gid) -> dict:
        """A finished game's replay as JSON (refused while it is played: a
        replay holds the seed, so every hidden card)."""
        live = self.get(gid)
        if not live.session.over:
            raise NotNow(
                "the game is still being played; its replay (which shows every hidden card) "
                "is available once it is over"
            )
        return live.session.replay().to_json()

    def open_replay(self, data, source: str = "replay") -> dict:
        """Check and re-simulate a replay (its JSON text or object) and keep
        it for the viewer; returns its id and facts."""
        if isinstance(data, (bytes, bytearray)):
            if len(data) > MAX_BYTES:
                raise TooLarge(f"{len(data):,} bytes: more than a replay may hold")
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError:
                raise SessionError(f"{source}: not a dungeonrl replay (not UTF-8 text)") from None
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except (json.JSONDecodeError, RecursionError) as e:
                raise SessionError(
                    f"{source}: not a dungeonrl replay, or a truncated one ({e.msg})"
                    if isinstance(e, json.JSONDecodeError)
                    else f"{source}: not a dungeonrl replay"
                ) from None
        try:
            rep = replay_from_json(data, source=source)
            tv = trace_view(rep)
        except ReplayError as e:
            raise SessionError(str(e)) from e
        return self._keep_replay(tv)

    def _keep_replay(self, tv: trace_view) -> dict:
        rid = secrets.token_urlsafe(9)
        self.replays[rid] = tv
        while len(self.replays) > self.config.max_replays:
            self.replays.popitem(last=False)
        return {
            "id": rid,
            "game": tv.game,
            "title": tv.title,
            "seats": tv.seats,
            "seed": str(tv.seed),
            "decisions": tv.decisions,
            "finished": bool(tv.replay.finished),
            "result": tv.replay.result,
        }

    def replay_files(self) -> list:
        d = self.config.replay_dir
        if not d or not os.path.isdir(d):
            return []
        return sorted(n for n in os.listdir(d) if REPLAY_NAME.match(n))

    def open_replay_file(self, name) -> dict:
        """Open ``name`` from the replay folder: a plain file name there,
        never a path."""
        d = self.config.replay_dir
        if not d:
            raise SessionError("this server has no replay folder (serve --replay-dir DIR)")
        if not isinstance(name, str) or not REPLAY_NAME.match(name) or ".." in name:
            raise SessionError(
                f"{str(name)[:60]!r} is not a replay name (letters, digits, _ . - ending in .json)"
            )
        root = os.path.realpath(d)
        path = os.path.realpath(os.path.join(root, name))
        if os.path.dirname(path) != root or not os.path.isfile(path):
            raise UnknownId(f"no replay {name!r} in the replay folder")
        try:
            rep = load_replay(path, check=False)
            tv = trace_view(rep)
        except ReplayError as e:
            raise SessionError(str(e).replace(root + os.sep, "")) from e
        return self._keep_replay(tv)

    def open_game_replay(self, gid) -> dict:
        return self.open_replay(self.replay_of(gid), source="game")

    def replay(self, rid) -> trace_view:
        tv = self.replays.get(rid) if isinstance(rid, str) else None
        if tv is None:
            raise UnknownId(f"no replay {str(rid)[:40]!r} open (open it again)")
        self.replays.move_to_end(rid)
        return tv

    def replay_frame(self, rid, k, view=None) -> dict:
        tv = self.replay(rid)
        want = parse_view(view, tv.core.num_players)
        try:
            k = int(k)
        except (TypeError, ValueError):
            raise SessionError(f"frame must be a whole number, not {k!r}") from None
        if not 0 <= k <= tv.decisions:
            raise SessionError(f"frame {k} is outside 0..{tv.decisions}")
        v = tv.view(want, k)
        v["replay_id"] = rid
        return v
