"""Hidden information in the web app: every message sent to a page holds
only what its seat may know.

Whole games are played through the game websocket (people's pages act by
a random legal choice). Every view sent (``Server.sent_log``) is then
recomputed from states where everything its seat cannot see is
resampled, with the conformance suite's own definition of hidden
information (``hooks_<game>.py``: ``resample_hidden(core, state, rng,
player=seat)``): the fields drawn from the state (table, phase, to_play,
legal actions, the seat's private lines, over/result) and the events since
the page last looked (recomputed on resampled histories, each record
resampled) must not change. The public view must not change under any
seat's resample. Pictures (``render_rgb``) are compared on a sample of
states, being slow. Positive controls: a view that leaks another seat's
hand, and a "resample" that changes something visible, are caught.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import game_hooks

from dungeonrl.web import session as S

from .conftest import play_person_game, watch_game

#: resamples of every record per seat
RESAMPLES = 2
#: states per game whose picture is compared under resampling
PICTURES = 4
#: fields of a view drawn from the game's records
CHECKED = ("to_play", "phase", "table", "events", "over", "result", "legal", "private")
#: moves that show the mover's hidden card to the table, by action name prefix
#: (games without a narrator name every decision by its label)
REVEALS = {"dungeon_kart": ("spell:",)}
#: fields the server adds to a view (not from the records)
SERVER = ("you", "owner", "game_id", "watched", "playing", "speed", "picture")


def record_views(monkeypatch) -> dict:
    """Record, for every view a session builds, the game and the decision
    range it was built from (keyed by the id of the message dict the
    server then sends); ``"inner"``: the view function wrapped."""
    inner = S.seat_view
    calls: dict = {"inner": inner}

    def rec(g, seat, k, since=0, *, picture=True):
        out = inner(g, seat, k, since, picture=picture)
        calls[id(out)] = (g, seat, k, since, out)
        return out

    monkeypatch.setattr(S, "seat_view", rec)
    return calls


def _resampler(name):
    h = game_hooks.get_hooks(name)
    takes_player = "player" in inspect.signature(h.resample_hidden).parameters

    def resample(core, rec, rng, seat):
        kw = {"player": seat} if takes_player else {}
        return h.resample_hidden(core, game_hooks.as_row(rec), rng, **kw)

    return resample


def _mask(core, row):
    fn = getattr(core, "recompute_mask", None)
    if fn is not None:
        return np.asarray(fn(row))
    m = np.zeros((1, core.spec.num_actions), np.uint8)
    core.legal_mask(row, m)
    return m


def _same(a, b) -> bool:
    """Records equal field by field (copies of a record may differ in padding)."""
    return all(np.array_equal(a[f], b[f]) for f in a.dtype.names)


class _History:
    """A game's records as seat ``seat`` may imagine them: each resampled
    for that seat (cached: every page's messages share them), the legal
    mask recomputed from the rest. In a game without a narrator, a page is
    told the other seats' decisions by their labels, from the record
    before: that record is resampled for the seat told too, except before a
    move that shows a hidden card to the table (:data:`REVEALS`), where it
    is resampled for the seat that moved (``upto``: the record the view
    shows)."""

    def __init__(self, g, seat, r, resample, cache, rng, upto=None):
        self.g, self.seat, self.r, self.resample = g, seat, r, resample
        self.cache, self.rng, self.upto = cache, rng, upto

    def __getitem__(self, k):
        p = self.seat
        if self.g.narrate is None and k != self.upto and k < len(self.g.actors):
            name = self.g.core.spec.action_names[self.g.actions[k]]
            if name.startswith(REVEALS.get(self.g.game, ())):
                p = self.g.actors[k]
        key = (id(self.g), k, p, self.r)
        alt = self.cache.get(key)
        if alt is None:
            row = self.resample(self.g.core, self.g.history[k], self.rng, p)
            row["legal"] = _mask(self.g.core, row)
            alt = self.cache[key] = row[0]
        return alt


def _as_seen(g, history):
    return SimpleNamespace(
        game=g.game,
        core=g.core,
        title=g.title,
        seed=g.seed,
        seats=g.seats,
        decisions=g.decisions,
        history=history,
        actors=g.actors,
        actions=g.actions,
        narrate=g.narrate,
        hand_text=g.hand_text,
        max_decisions=g.max_decisions,
        returns_at=g.returns_at,
    )


def check_messages(server, calls, resample=None, *, resamples=RESAMPLES, pictures=PICTURES):
    """Check every message of ``server.sent_log`` (see the module doc);
    returns how many messages and recomputed views were compared."""
    view_of = calls["inner"]
    cache: dict = {}
    rng = np.random.default_rng(5)
    n = {"messages": 0, "views": 0, "pictures": 0}
    pics: dict = {}
    for game, core, state, view, msg in server.sent_log:
        g, seat, k, since, out = calls[id(msg)]
        assert out is msg and seat == view and k == msg["decision"]
        assert _same(g.history[k], state), "a view of another record was sent"
        if view == S.ALL:
            continue  # every seat's view: only offered for games no person plays
        res = resample or _resampler(game)
        truth = view_of(g, view, k, since, picture=False)
        if msg["you"] is None and view != S.ALL:
            truth["legal"] = []
        extra = set(msg) - set(truth) - set(SERVER)
        assert not extra, f"fields sent that the view does not hold: {extra}"
        assert msg["decisions"] == k, "a live game's page is shown its latest record"
        for key in set(truth) - {"decisions"}:
            assert msg[key] == truth[key], f"{game} decision {k}: sent {key} differs from the view"
        seats = [view] if view is not None else range(core.num_players)
        for p in seats:
            for r in range(resamples):
                hist = _History(g, p, r, res, cache, rng, upto=k)
                alt = view_of(_as_seen(g, hist), view, k, since, picture=False)
                if msg["you"] is None:
                    alt["legal"] = []
                for key in CHECKED:
                    assert alt[key] == msg[key], (
                        f"{game} decision {k}, {'public' if view is None else f'seat {view}'} "
                        f"view: {key} changes when what seat {p} cannot see is resampled:\n"
                        f"sent {msg[key]!r}\nresampled {alt[key]!r}"
                    )
                n["views"] += 1
        pics.setdefault(game, []).append((g, k, seats))
        n["messages"] += 1
    for game, items in pics.items():
        for g, k, seats in items[:: max(1, len(items) // pictures)][:pictures]:
            img = g.core.render_rgb(g.history[k])
            for p in seats:
                alt = _History(g, p, 0, resample or _resampler(game), cache, rng)[k]
                assert np.array_equal(img, g.core.render_rgb(alt)), (
                    f"{game} decision {k}: the picture changes when what seat {p} cannot see "
                    "is resampled"
                )
                n["pictures"] += 1
    return n


GAMES = [
    ("unbroken", ["human"], 0),
    ("dungeon_crawler", ["human", "heuristic"], 3),
    ("dungeon_crawler", ["human", "heuristic", "heuristic"], 3),
    ("dungeon_kart", ["human", "human"], 2),
    ("dungeon_kart", ["human", "random", "heuristic"], 1),
    ("dcc_unstoppable", ["human"], 2),
    ("dcc_unstoppable", ["human", "heuristic"], 1),
]


@pytest.mark.parametrize("game,seats,seed", GAMES, ids=[f"{g}-{'-'.join(s)}" for g, s, _ in GAMES])
def test_person_pages_see_only_their_seat(client, server, monkeypatch, game, seats, seed):
    """A whole game with people's pages and a public page: every message
    each was sent holds only what its seat may know."""
    calls = record_views(monkeypatch)
    gid, last = play_person_game(client, game, seats, seed)
    assert all(v["over"] for v in last.values())
    assert last["public"]["legal"] == [] and last["public"]["private"] == {}
    n = check_messages(server, calls)
    assert n["messages"] >= len(server.sent_log) - 1 and n["views"] > n["messages"]


def test_watched_game_public_and_seat(client, server, monkeypatch):
    """A game of agents watched as the public and from a seat (then a
    page looks from another seat): no message holds another seat's
    hidden information, and a watcher is offered no actions."""
    calls = record_views(monkeypatch)
    gid, last = watch_game(client, "dungeon_kart", ["heuristic", "random"], 4)
    assert last["public"]["over"] and last[1]["over"] and last["look"]["view"] == 0
    assert list(last[1]["private"]) == ["1"] and last[1]["legal"] == []
    assert {v for *_, v, _ in server.sent_log} >= {None, 0, 1}
    check_messages(server, calls)


def test_pictures_sent_are_the_public_picture(client, server, monkeypatch):
    """A page with pictures gets the picture of the record it is shown,
    which does not change under resampling."""
    calls = record_views(monkeypatch)
    play_person_game(client, "unbroken", ["human"], 1, picture=True)
    for _, core, state, _, msg in server.sent_log:
        assert msg["picture"] == S.picture_data_url(core.render_rgb(state))
    check_messages(server, calls, pictures=len(server.sent_log))


def test_leaky_view_is_caught(client, server, monkeypatch):
    """Positive control: a view that adds another seat's hand is caught."""
    real = S.seat_view

    def leaky(g, seat, k, since=0, *, picture=True):
        out = real(g, seat, k, since, picture=picture)
        if isinstance(seat, int):
            other = (seat + 1) % g.core.num_players
            out["private"][str(other)] = list(g.hand_text(g.core, g.history[k], other))
        return out

    monkeypatch.setattr(S, "seat_view", leaky)
    calls = record_views(monkeypatch)
    play_person_game(client, "dungeon_crawler", ["human", "heuristic"], 3, watch=False)
    with pytest.raises(AssertionError, match="private changes when what seat 0 cannot see"):
        check_messages(server, calls)


def test_visible_change_is_caught(client, server, monkeypatch):
    """Positive control: a "resample" that changes what the seat sees
    (the hooks' ``change_visible``) is caught."""
    calls = record_views(monkeypatch)
    play_person_game(client, "dungeon_kart", ["human", "heuristic"], 2)
    h = game_hooks.get_hooks("dungeon_kart")

    def visible(core, rec, rng, seat):
        return h.change_visible(core, game_hooks.as_row(rec), player=seat)

    with pytest.raises(AssertionError, match="changes when what seat"):
        check_messages(server, calls, visible)
