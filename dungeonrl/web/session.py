"""Games played in the web app, and what each page may see of them.

A :class:`GameSession` is one seeded game: every seat is played by a
person (``"human"``) or by an agent the server offers; it keeps every state
record of the game (a few kilobytes each) so that a page can be told what
happened since it last looked and a finished game can be saved as a replay
(:mod:`dungeonrl.agents.replay`) or scrubbed.

:func:`seat_view` is the one place that decides what a page is sent. A
seat's view holds the picture of the table (``render_rgb``, which draws
public information only), the table as text (``render_ansi``), the seat's
own hidden information in words where the game has a narrator
(``hand_text``), the events since the page last looked, and the legal
actions labelled in words when it is that seat's turn. The public view
(``seat=None``) drops the private parts; the omniscient view (``"all"``)
adds every seat's private lines and is only offered for games no person
plays. Tests check every message sent to a page against what its seat may
know (``tests/web/test_hidden.py``).
"""

from __future__ import annotations

import base64
import io
import re
import time
from typing import Any

import numpy as np

from ..agents.policy import make_agent
from ..agents.replay import Replay, make_replay
from ..envs.core.batch import Batch
from ..envs.core.common import seed_batch
from ..envs.core.errors import DungeonRLError
from ..play import narration_extras, narrator
from ..registry import get_spec, list_games

__all__ = [
    "HUMAN",
    "ALL",
    "SessionError",
    "UnknownId",
    "NotNow",
    "TooLarge",
    "AtLimit",
    "TokenNeeded",
    "TokenRefused",
    "GameSession",
    "seat_view",
    "parse_view",
    "trace_view",
    "game_title",
    "picture_data_url",
]

HUMAN = "human"
#: the omniscient view (every seat's hidden information): games no person plays
ALL = "all"
#: decisions an agent may take in a row before the server yields
AGENT_BURST = 64


class SessionError(DungeonRLError, ValueError):
    """A request the game cannot take: its message is shown to the player.
    This class is a bad request (a malformed or refused value); the
    subclasses below name the other kinds, each with its HTTP status
    (``status``, which :mod:`.app` replies with, never reading the
    message)."""

    status = 400


class UnknownId(SessionError):
    """No game or replay of that id or name (HTTP 404)."""

    status = 404


class NotNow(SessionError):
    """A request that is well formed but not for now: the replay of a game
    still being played, a choice for a decision that is no longer the
    current one (HTTP 409)."""

    status = 409


class TooLarge(SessionError):
    """A body or message over its size limit (HTTP 413)."""

    status = 413


class AtLimit(SessionError):
    """A server limit reached: games or pages held (HTTP 429)."""

    status = 429


class TokenNeeded(SessionError):
    """A request only the page that created the game may make, sent
    without the game's token (HTTP 401)."""

    status = 401


class TokenRefused(SessionError):
    """A request only the page that created the game may make, sent with
    a token that is not the game's (HTTP 403)."""

    status = 403


def game_title(game: str) -> str:
    """``"Dungeon Crawler"`` from ``dungeonrl/DungeonCrawler-v0``."""
    env = get_spec(game).env_id.split("/")[-1].rpartition("-v")[0]
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", env)


def picture_data_url(img: np.ndarray, fmt: str = "png", quality: int = 80) -> str:
    """An ``(H, W, 3)`` uint8 picture as a ``data:`` URL (PNG or WebP)."""
    from PIL import Image

    buf = io.BytesIO()
    pic = Image.fromarray(img)
    if fmt == "webp":
        pic.save(buf, format="WEBP", quality=quality, method=4)
    else:
        pic.save(buf, format="PNG", compress_level=1)
    return f"data:image/{fmt};base64," + base64.b64encode(buf.getvalue()).decode("ascii")


#: the cores games are played on, one per game and options (see shared_core)
_CORES: dict = {}
#: distinct game and options kept at most (the server offers a few dozen)
MAX_CORES = 64


def shared_core(game: str, options: dict):
    """The core of ``game`` with ``options``, built once and shared by every
    game of them (a core is never written after construction). A core is
    kept alive by the engine's per-core call table once it has stepped, so
    a core built for every game would keep every game's core for good."""
    make = get_spec(game).make_core
    if make is None:  # every registered game declares its factory
        raise TypeError(f"game {game!r} has no make_core factory")
    try:
        key = (game, tuple(sorted(options.items())))
        hash(key)
    except TypeError:
        return make(**options)
    core = _CORES.get(key)
    if core is None:
        core = make(**options)
        if len(_CORES) < MAX_CORES:
            _CORES[key] = core
    return core


def parse_view(view, players: int):
    """A page's view: None (public), :data:`ALL` or a seat number of the table."""
    if view in (None, "", "public"):
        return None
    if view == ALL:
        return ALL
    try:
        seat = int(view)
    except (TypeError, ValueError):
        raise SessionError(f"view must be a seat number, public or all, not {view!r}") from None
    if not 0 <= seat < players:
        raise SessionError(f"seat {seat} is not at this table (seats 0..{players - 1})")
    return seat


def _seat_name(s: int) -> str:
    return f"player_{s}"


class GameSession:
    """One game (see the module doc). ``seats``: ``"human"`` or an agent
    name per seat (already checked against what the server offers);
    ``options``: the core's options (``num_players``...)."""

    def __init__(self, game: str, seats, seed: int = 0, options: dict | None = None):
        if game not in list_games():
            raise SessionError(f"unknown game {game!r} (games: {', '.join(list_games())})")
        options = dict(options or {})
        try:
            core = shared_core(game, options)
        except (ValueError, TypeError, KeyError) as e:
            raise SessionError(f"{game} refuses the options {options}: {e}") from e
        P = core.num_players
        seats = [str(s) for s in seats]
        if len(seats) != P:
            raise SessionError(f"{game} with {P} seats needs {P} players, got {len(seats)}")
        if not 0 <= int(seed) < 2**63:
            raise SessionError(f"seed {seed} is outside 0..2**63-1")
        self.game, self.core, self.options, self.seed = game, core, options, int(seed)
        self.title = game_title(game)
        self.seats = seats
        self.agents: list[Any] = []
        for i, name in enumerate(seats):
            if name == HUMAN:
                self.agents.append(None)
                continue
            try:
                self.agents.append(make_agent(name, core, seed=self.seed + 7919 * i))
            except (ValueError, FileNotFoundError, DungeonRLError) as e:
                raise SessionError(f"seat {i}: agent {name!r} cannot play {game}: {e}") from e
        self.buf = Batch(core, 1)
        self.buf.reset(seed_batch(self.seed, 1))
        self.history = [self.buf.states[0].copy()]  # the record before each decision, then now
        self.actors: list[int] = []
        self.actions: list[int] = []
        self.returns = np.zeros(P, np.float64)
        self.returns_log = [self.returns.copy()]  # the seats' returns after each decision
        self.narrate = narrator(game)
        self.legend, self.hand_text = narration_extras(game)
        self.max_decisions = int(get_spec(game).max_episode_steps)
        self.touched = time.monotonic()
        self._rows = np.zeros(1, np.int64)
        self._pictures: dict[int, str] = {}

    # --- the game ----------------------------------------------------------------
    @property
    def state(self):
        return self.buf.states[0]

    @property
    def decisions(self) -> int:
        return len(self.actions)

    @property
    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s == HUMAN]

    @property
    def over(self) -> bool:
        return bool(self.core.is_over(self.state)) or self.decisions >= self.max_decisions

    @property
    def actor(self) -> int:
        """The seat to act (-1 when the game is over)."""
        if self.over:
            return -1
        return int(self.core.to_play(self.buf.states)[0])

    def waiting_on_person(self) -> bool:
        a = self.actor
        return a >= 0 and self.seats[a] == HUMAN

    def _apply(self, seat: int, action: int) -> None:
        self.buf.actions[0] = action
        core = self.core
        b = self.buf
        core.step(b.states, b.actions, b.rewards, b.terminated, b.truncated, b.illegal)
        self.returns += b.rewards[0, : core.num_players]
        self.returns_log.append(self.returns.copy())
        self.history.append(self.state.copy())  # records first: decisions counts actions
        self.actors.append(seat)
        self.actions.append(action)
        self.touched = time.monotonic()

    def act(self, seat: int, action) -> None:
        """A person's decision for ``seat``; :class:`SessionError` when it is
        not that seat's turn, the seat is an agent's, or the action is not
        legal now."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise SessionError(f"an action is a whole number, not {action!r}")
        a = int(action)
        if self.over:
            raise SessionError("the game is over")
        if self.seats[seat] != HUMAN:
            raise SessionError(f"seat {seat} is played by {self.seats[seat]}")
        if self.actor != seat:
            raise SessionError(f"it is {_seat_name(self.actor)}'s turn, not yours")
        n = self.core.spec.num_actions
        if not 0 <= a < n:
            raise SessionError(f"action {a} is out of range (0..{n - 1})")
        if not self.state["legal"][a]:
            label = self.core.action_label(self.state, a)
            raise SessionError(f"action {a} ({label}) is not legal now")
        self._apply(seat, a)

    def agent_step(self) -> bool:
        """One decision of the agent to act; False when a person is to act
        or the game is over."""
        seat = self.actor
        if seat < 0 or self.agents[seat] is None:
            return False
        self.buf.players[0] = seat
        self.buf.refresh()
        a = int(self.agents[seat].act(self.buf, self._rows)[0])
        self._apply(seat, a)
        return True

    def run_agents(self, limit: int = AGENT_BURST) -> int:
        """Agent decisions until a person is to act, the game ends or
        ``limit``; returns how many were taken."""
        n = 0
        while n < limit and self.agent_step():
            n += 1
        return n

    # --- what a page sees -----------------------------------------------------------
    def picture(self, k: int | None = None) -> str:
        """The picture after ``k`` decisions (default: now), as a data URL
        (cached: every page shares it, it shows public information only)."""
        k = self.decisions if k is None else k
        url = self._pictures.get(k)
        if url is None:
            if len(self._pictures) > 8:
                self._pictures.clear()
            url = self._pictures[k] = picture_data_url(self.core.render_rgb(self.history[k]))
        return url

    def view(self, seat, since: int = 0, *, picture: bool = True) -> dict:
        """What the page of ``seat`` (a seat number, None for the public
        view, :data:`ALL` for the omniscient one) is sent now, with the
        events of decisions ``since..now``."""
        return seat_view(self, seat, self.decisions, since, picture=picture)

    def returns_at(self, k: int):
        return self.returns_log[k]

    def replay(self) -> Replay:
        """The game so far as a replay (labels: the seat's agent or ``human``)."""
        return make_replay(
            self.game, self.options, self.seed, self.actors, self.actions, self.seats
        )


def _events(g, seat, since: int, upto: int) -> list:
    """Lines telling ``seat`` what happened in decisions ``since..upto``.
    Games with a narrator tell it from the records; the others name each
    decision by its label (the rules' public move)."""
    core = g.core
    since = max(0, min(since, upto))
    if upto - since > 40:  # a page that was away: the last decisions only
        since = upto - 40
    out = []
    for k in range(since, upto):
        who, a = g.actors[k], g.actions[k]
        prev, now = g.history[k], g.history[k + 1]
        mine = seat == ALL or seat == who
        if g.narrate is not None:
            lines = g.narrate(
                core, prev, now, who if seat == ALL else (seat if seat is not None else -1)
            )
            if mine:
                out.append(f"{_seat_name(who)}: {core.action_label(prev, a)}")
            out.extend(f"  {x}" for x in lines)
        else:
            out.append(f"{_seat_name(who)}: {core.action_label(prev, a)}")
    return out


def seat_view(g, seat, k: int, since: int = 0, *, picture: bool = True) -> dict:
    """The view of ``seat`` after ``k`` decisions of game ``g`` (a
    :class:`GameSession`, or a replay's trace wrapped by :func:`trace_view`)."""
    core = g.core
    s = g.history[k]
    P = core.num_players
    over = bool(core.is_over(s)) or k >= g.max_decisions
    actor = -1 if over else int(core.to_play(s[None])[0])
    out: dict[str, Any] = {
        "type": "view",
        "game": g.game,
        "title": g.title,
        # a string: JSON numbers lose digits above 2**53 in a page's JavaScript
        "seed": str(g.seed) if (over or not _has_person(g)) else None,
        "seats": list(g.seats),
        "view": seat if seat is not None else "public",
        "decision": k,
        "decisions": g.decisions,
        "to_play": actor,
        "phase": core.phase_name(s),
        "table": core.render_ansi(s),
        "events": _events(g, seat, since, k),
        "over": over,
        "result": {},
        "legal": [],
        "private": {},
    }
    if picture:
        out["picture"] = g.picture(k)
    if over:
        info = core.episode_info(s)
        out["result"] = {str(key): _plain(v) for key, v in info.items()}
        out["returns"] = [round(float(x), 4) for x in g.returns_at(k)]
    if seat == ALL:
        shown = list(range(P))
    elif seat is None:
        shown = []
    else:
        shown = [int(seat)]
    if g.hand_text is not None:
        for p in shown:
            out["private"][str(p)] = list(g.hand_text(core, s, p))
    if actor >= 0 and (seat == ALL or actor in shown):
        names = core.spec.action_names
        out["legal"] = [
            {"action": int(a), "name": names[a], "label": core.action_label(s, int(a))}
            for a in np.flatnonzero(s["legal"])
        ]
    return out


def _has_person(g) -> bool:
    return any(s == HUMAN for s in g.seats)


def _plain(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


class trace_view:
    """A replay's re-simulated game shaped as :func:`seat_view` reads it
    (``history``, ``actors``, ``actions``, pictures), for the viewer."""

    def __init__(self, replay: Replay):
        trace = replay.simulate(check=True)
        self.game = replay.game
        self.core = trace.core
        self.options = dict(replay.core_kwargs)
        self.seed = int(replay.seed)
        self.title = game_title(replay.game)
        self.seats = list(replay.seats) or [f"seat {i}" for i in range(self.core.num_players)]
        self.history = trace.states
        self.actors = [int(x) for x in replay.actors]
        self.actions = [int(x) for x in replay.actions]
        self._rewards = np.cumsum(trace.rewards, axis=0) if len(trace.rewards) else None
        self.narrate = narrator(replay.game)
        self.legend, self.hand_text = narration_extras(replay.game)
        self.max_decisions = int(get_spec(replay.game).max_episode_steps)
        self.decisions = len(self.actions)
        self.touched = time.monotonic()
        self._pictures: dict[int, str] = {}
        self.replay = replay

    def returns_at(self, k: int):
        P = self.core.num_players
        if k == 0 or self._rewards is None:
            return np.zeros(P)
        return self._rewards[k - 1]

    def picture(self, k: int, fmt: str = "png") -> str:
        key = (k, fmt)
        url = self._pictures.get(key)  # type: ignore[call-overload]
        if url is None:
            if len(self._pictures) > 64:
                self._pictures.clear()
            url = picture_data_url(self.core.render_rgb(self.history[k]), fmt)
            self._pictures[key] = url  # type: ignore[index]
        return url

    def view(self, seat, k: int, *, picture: bool = True) -> dict:
        k = max(0, min(int(k), self.decisions))
        return seat_view(self, seat, k, k - 1 if k else 0, picture=picture)
