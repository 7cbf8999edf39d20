"""The web app in headless Chromium: every game played to its end by
clicking the page, a watched game of agents, the replay viewer and its
offline HTML export.

The app runs in a thread (uvicorn on 127.0.0.1, a free port) so each check
can compare what the page shows with the server's own :class:`GameSession`:
whose turn the status line names, one button per legal action labelled
with ``core.action_label``, the table text, and the result against
``core.episode_info``. The person's seat clicks the button the heuristic
would pick (read from the server, clicked in the page), which keeps every
game short. Playwright drives Debian's ``/usr/bin/chromium`` (``make
browser``); nothing is downloaded. Screenshots of each table go to
``build/browser/web_<game>.png`` (1280x800).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = "/usr/bin/chromium"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason=f"no {CHROMIUM} (`make browser` installs Debian's chromium)",
    ),
]

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (the dev extra)"
)
uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is not installed (the web extra)")
pytest.importorskip("starlette", reason="starlette is not installed (the web extra)")

from dungeonrl.agents.policy import make_agent
from dungeonrl.envs.core.batch import Batch
from dungeonrl.web.app import make_app
from dungeonrl.web.server import Server, ServerConfig

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = {"width": 1280, "height": 800}
SHOTS = Path(__file__).resolve().parents[2] / "build" / "browser"
WAIT_MS = 60_000
#: the first wait of a game: its kernels may still compile (`make precompile` caches them)
COMPILE_MS = 600_000


# --- the app and the browser ------------------------------------------------------------
@pytest.fixture(scope="module")
def web():
    """``(base_url, server)``: the app served from a thread."""
    server = Server(ServerConfig(idle_seconds=3600.0))
    app = make_app(server=server)
    uv = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    port = uv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}", server
    uv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(WAIT_MS)
    yield pg
    ctx.close()


# --- helpers ----------------------------------------------------------------------------------
def start_game(page, base, game, seats, seed):
    """Open the app, fill the lobby and press Start; returns the new game's id."""
    page.goto(base + "/")
    return start_from_lobby(page, game, seats, seed)


def start_from_lobby(page, game, seats, seed, *, wait_table=True):
    """Fill the lobby (already shown) and press Start; returns the new game's id."""
    before = page.evaluate("location.hash")
    page.wait_for_selector(f'#game-select option[value="{game}"]', state="attached")
    page.select_option("#game-select", game)
    page.select_option("#players-select", str(len(seats)))
    for i, s in enumerate(seats):
        page.wait_for_selector(f'#seat-{i} option[value="{s}"]', state="attached")
        page.select_option(f"#seat-{i}", s)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_function(
        "h => location.hash.includes('game=') && location.hash !== h",
        arg=before,
        timeout=COMPILE_MS,
    )
    if wait_table:
        page.wait_for_selector("#table-page:not([hidden])")
    return re.search(r"game=([^&]+)", page.evaluate("location.hash")).group(1)


READY = """() => !document.getElementById('result').hidden
  || document.querySelectorAll('#actions button:not([disabled])').length > 0"""


def wait_ready(page, timeout=WAIT_MS):
    """Until it is the person's turn (enabled buttons) or the game is over."""
    try:
        page.wait_for_function(READY, timeout=timeout)
    except sync_api.TimeoutError:
        raise AssertionError(
            f"the page is stuck; error line: {page.text_content('#error')!r}"
        ) from None


def screenshot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / name))


def heuristic_choice(g, agent) -> int:
    """The action the heuristic would take at ``g``'s seat to act (a copy
    of the state: the server's game is left alone)."""
    b = Batch(g.core, 1)
    b.states[0] = g.state.copy()
    b.players[0] = g.actor
    b.refresh()
    return int(agent.act(b, np.zeros(1, np.int64))[0])


def check_turn(page, g, seat):
    """The page shows the person's turn exactly as the server holds it."""
    core, s = g.core, g.state
    assert g.actor == seat and g.waiting_on_person()
    assert page.text_content("#status") == f"Your turn (player_{seat})"
    assert f"decision {g.decisions}" in page.text_content("#facts")
    assert page.text_content("#table-text") == core.render_ansi(s)
    assert page.get_attribute("#picture", "src") == g.picture()  # the picture of this state
    buttons = page.eval_on_selector_all(
        "#actions button", "bs => bs.map(b => [+b.dataset.action, b.textContent, b.disabled])"
    )
    legal = [int(a) for a in np.flatnonzero(s["legal"])]
    assert [b[0] for b in buttons] == legal
    labels = [core.action_label(s, a) for a in legal]
    names = core.spec.action_names
    for (a, text, disabled), label in zip(buttons, labels):
        assert not disabled
        assert text == (label if labels.count(label) == 1 else f"{label} ({names[a]})")
    if g.hand_text is not None:  # the seat's own hidden information, and no one else's
        assert page.text_content("#private").startswith(f"player_{seat}")
        assert f"player_{1 - seat}" not in page.text_content("#private")


def plain(info: dict) -> dict:
    return json.loads(json.dumps({str(k): np.asarray(v).tolist() for k, v in info.items()}))


def shown_result(page, where) -> tuple[dict, list]:
    """The result table in ``where``: (the facts, the returns). A fact with
    a value per seat is a row with a cell per seat; the raw values ride in
    ``data-value``, the cells show them in words."""
    assert page.eval_on_selector_all(f"{where} > table.result", "ts => ts.length") == 1
    heads = page.eval_on_selector_all(f"{where} thead th", "ts => ts.map(t => t.textContent)")
    assert heads[1:] and all(h.startswith(f"player_{i}") for i, h in enumerate(heads[1:]))
    rows = page.eval_on_selector_all(
        f"{where} tbody tr",
        "trs => trs.map(tr => [tr.dataset.key || null, tr.querySelector('th').textContent,"
        " [...tr.querySelectorAll('td')]"
        ".map(td => [JSON.parse(td.dataset.value), td.textContent])])",
    )
    result, returns = {}, None
    for key, label, cells in rows:
        assert cells and all(text.strip() for _, text in cells), (label, cells)
        values = [raw for raw, _ in cells]
        if key is None:
            assert label == "return"
            returns = values
        else:
            assert label == key.replace("_", " ")
            result[key] = values if len(cells) > 1 else values[0]
    return result, returns


def check_result(page, g):
    assert g.over
    assert page.text_content("#status") == "Game over"
    result, returns = shown_result(page, "#result-text")
    assert result == plain(g.core.episode_info(g.state))
    assert np.allclose(returns, g.returns, atol=1e-3)
    assert page.eval_on_selector_all("#actions button", "bs => bs.length") == 0
    assert page.get_attribute("#save-replay", "href").endswith("/replay")


def play_to_end(page, server, gid, seat=0, shot=None, max_clicks=400):
    """Click the heuristic's choice until the game ends, checking the page
    against the server every few clicks; returns the number of clicks."""
    g = server.games[gid].session
    agent = make_agent("heuristic", g.core, seed=1)
    clicks = 0
    wait_ready(page, COMPILE_MS)
    while not g.over:
        assert clicks < max_clicks, f"{g.game} did not end in {max_clicks} clicks"
        if clicks % 10 == 0:
            check_turn(page, g, seat)
        if shot and clicks == 12:
            screenshot(page, shot)
        a = heuristic_choice(g, agent)
        page.click(f'#actions button[data-action="{a}"]')
        clicks += 1
        wait_ready(page)
    check_result(page, g)
    return clicks


# --- a person plays each game ------------------------------------------------------------
GAMES = [
    # game, its title, seats, seed (seeds with short games for the heuristic's choices)
    ("unbroken", "Unbroken", ["human"], 5),
    ("dungeon_crawler", "Dungeon Crawler", ["human", "heuristic"], 3),
    ("dungeon_kart", "Dungeon Kart", ["human", "heuristic"], 2),
    ("dcc_unstoppable", "DCC Unstoppable", ["human"], 2),
]


@pytest.mark.parametrize("game,title,seats,seed", GAMES, ids=[g[0] for g in GAMES])
def test_play_to_the_end(web, page, game, title, seats, seed):
    base, server = web
    gid = start_game(page, base, game, seats, seed)
    live = server.games[gid]
    assert live.session.seats == seats and live.session.seed == seed and not live.watched
    assert 0 in live.keys and "key=" in page.evaluate("location.hash")
    assert page.is_hidden("#watch-controls")
    wait_ready(page, COMPILE_MS)
    assert page.text_content("#title") == title
    assert page.text_content("#crumb") == f"/ {title}"
    clicks = play_to_end(page, server, gid, seat=0, shot=f"web_{game}.png")
    assert clicks == len([s for s in live.session.actors if s == 0])


# --- a game of agents, watched ------------------------------------------------------------
def decision_on_page(page) -> int:
    return int(re.search(r"decision (\d+)", page.text_content("#facts")).group(1))


def wait_decision(page, k, timeout=WAIT_MS):
    page.wait_for_function(
        "k => /decision (\\d+)/.test(document.getElementById('facts').textContent)"
        " && +document.getElementById('facts').textContent.match(/decision (\\d+)/)[1] >= k",
        arg=k,
        timeout=timeout,
    )


def test_watch_agents(web, page):
    base, server = web
    gid = start_game(page, base, "dungeon_kart", ["heuristic", "random"], 4)
    live = server.games[gid]
    g = live.session
    assert live.watched and not live.keys and "key=" not in page.evaluate("location.hash")
    page.wait_for_selector("#watch-controls:not([hidden])")
    assert decision_on_page(page) == 0 and not live.playing
    assert page.is_enabled("#play") and page.is_disabled("#pause")

    # Step: one decision each, the game paused
    pictures = {page.get_attribute("#picture", "src")}
    for k in (1, 2, 3):
        page.click("#step")
        wait_decision(page, k, COMPILE_MS)
        assert g.decisions == k and not live.playing
        pictures.add(page.get_attribute("#picture", "src"))
    assert page.get_attribute("#picture", "src") == g.picture()
    assert len(pictures) > 1
    assert page.text_content("#status") == f"player_{g.actor} to act · {g.core.phase_name(g.state)}"
    assert page.text_content("#table-text") == g.core.render_ansi(g.state)
    assert (
        page.eval_on_selector_all("#actions button", "bs => bs.length") == 0
    )  # the public sees no choices

    # every seat's view: the choices of the seat to act (not clickable) and all hidden lines
    page.select_option("#view-select", "all")
    page.wait_for_function("document.querySelectorAll('#actions button').length > 0")
    legal = [int(a) for a in np.flatnonzero(g.state["legal"])]
    shown = page.eval_on_selector_all(
        "#actions button", "bs => bs.map(b => [+b.dataset.action, b.disabled])"
    )
    assert shown == [[a, True] for a in legal]
    assert page.text_content("#actions-head") == "Choices offered"
    private = page.text_content("#private")
    assert "player_0" in private and "player_1" in private
    # one seat's view: its own hidden lines only
    page.select_option("#view-select", "1")
    page.wait_for_function("!document.getElementById('private').textContent.includes('player_0')")
    assert page.text_content("#private").startswith("player_1")
    assert page.input_value("#view-select") == "1"

    # the speed slider, then Play and Pause
    page.eval_on_selector("#speed", "e => { e.value = '3'; e.dispatchEvent(new Event('input')); }")
    page.wait_for_function("document.getElementById('speed-text').textContent === '10 per second'")
    assert live.speed == 10
    page.click("#play")
    page.wait_for_function("document.getElementById('play').disabled")
    assert live.playing
    wait_decision(page, 6)
    screenshot(page, "web_watch.png")
    page.click("#pause")
    page.wait_for_function("!document.getElementById('play').disabled")
    assert not live.playing
    time.sleep(0.3)
    k = g.decisions
    time.sleep(0.5)
    assert g.decisions == k, "a paused game moved"

    # to the end at full speed
    page.eval_on_selector("#speed", "e => { e.value = '6'; e.dispatchEvent(new Event('input')); }")
    page.wait_for_function("document.getElementById('speed-text').textContent === '200 per second'")
    page.click("#play")
    page.wait_for_selector("#result:not([hidden])")
    check_result(page, g)
    assert page.is_disabled("#play") and page.is_disabled("#step")


# --- replays: save, upload, scrub, export ------------------------------------------------
def frame_pos(page):
    m = re.match(r"decision (\d+) of (\d+)", page.text_content("#frame-pos"))
    return int(m.group(1)), int(m.group(2))


def wait_frame(page, k):
    page.wait_for_function(
        "k => document.getElementById('frame-pos').textContent.startsWith('decision ' + k + ' of')",
        arg=k,
    )


def test_replay_save_view_export(web, page, tmp_path, browser):
    base, server = web
    # a finished game: Unbroken played by the heuristic, watched at full speed
    gid = start_game(page, base, "unbroken", ["heuristic"], 1)
    g = server.games[gid].session
    page.eval_on_selector("#speed", "e => { e.value = '6'; e.dispatchEvent(new Event('input')); }")
    page.wait_for_function("document.getElementById('speed-text').textContent === '200 per second'")
    page.click("#play")
    page.wait_for_selector("#result:not([hidden])", timeout=COMPILE_MS)
    check_result(page, g)

    # Save replay: the file is the game's replay
    with page.expect_download() as dl:
        page.click("#save-replay")
    saved = tmp_path / dl.value.suggested_filename
    dl.value.save_as(saved)
    assert saved.name.startswith("unbroken-seed1-") and saved.suffix == ".json"
    rep = json.loads(saved.read_text())
    assert rep == json.loads(json.dumps(server.replay_of(gid)))
    n = g.decisions

    # open it through the lobby's upload
    page.click("#home")
    page.wait_for_selector("#lobby:not([hidden])")
    link = page.locator(f'#live-games a[href*="{gid}"]')
    assert link.text_content() == "Unbroken, seed 1: heuristic"
    assert f"({n} decisions, over)" in link.locator("xpath=..").text_content()
    before = set(server.replays)
    page.set_input_files("#replay-file", str(saved))
    page.wait_for_function("location.hash.includes('replay=')")
    page.wait_for_selector("#viewer:not([hidden])")
    wait_frame(page, 0)
    (rid,) = set(server.replays) - before
    tv = server.replays[rid]
    assert tv.decisions == n and tv.actions == g.actions
    assert frame_pos(page) == (0, n)
    assert page.text_content("#v-table") == tv.core.render_ansi(tv.history[0])

    def picture():
        return page.get_attribute("#v-picture", "src")

    first = picture()
    # the timeline to the middle
    mid = n // 2
    page.eval_on_selector(
        "#timeline", f"e => {{ e.value = '{mid}'; e.dispatchEvent(new Event('input')); }}"
    )
    wait_frame(page, mid)
    assert page.text_content("#v-table") == tv.core.render_ansi(tv.history[mid])
    assert picture() != first
    legal = [
        tv.core.action_label(tv.history[mid], int(a))
        for a in np.flatnonzero(tv.history[mid]["legal"])
    ]
    assert (
        page.eval_on_selector_all("#v-legal li", "ls => ls.map(l => l.textContent)") == []
    )  # public view
    middle = picture()
    page.click("#v-next")
    wait_frame(page, mid + 1)
    page.click("#v-prev")
    page.click("#v-prev")
    wait_frame(page, mid - 1)
    assert page.text_content("#v-table") == tv.core.render_ansi(tv.history[mid - 1])
    page.click("#v-first")
    wait_frame(page, 0)
    assert picture() == first
    page.click("#v-last")
    wait_frame(page, n)
    assert "over" in page.text_content("#frame-pos")
    assert shown_result(page, "#v-result")[0] == plain(tv.core.episode_info(tv.history[n]))
    # the seat's view shows its choices and hidden lines; then every seat
    page.eval_on_selector(
        "#timeline", f"e => {{ e.value = '{mid}'; e.dispatchEvent(new Event('input')); }}"
    )
    wait_frame(page, mid)
    assert picture() == middle
    page.select_option("#v-view", "0")
    page.wait_for_function("document.querySelectorAll('#v-legal li').length > 0")
    assert page.eval_on_selector_all("#v-legal li", "ls => ls.map(l => l.textContent)") == legal
    assert page.text_content("#v-private").startswith("player_0")
    assert page.get_attribute("#export", "href").endswith("view=0")
    page.select_option("#v-view", "all")
    page.wait_for_function("document.getElementById('export').href.endsWith('view=all')")
    assert frame_pos(page) == (mid, n)
    screenshot(page, "web_viewer.png")

    # export as HTML and open the file offline
    with page.expect_download() as dl:
        page.click("#export")
    html = tmp_path / "export.html"
    dl.value.save_as(html)
    ctx = browser.new_context(viewport=VIEWPORT, offline=True)
    try:
        off = ctx.new_page()
        requests = []
        off.on("request", lambda r: requests.append(r.url))
        off.goto(html.as_uri())
        off.wait_for_selector("#pic")
        assert off.text_content("#pos").startswith(f"decision 0 of {n}")
        src0 = off.get_attribute("#pic", "src")
        assert src0.startswith("data:image/")
        assert off.text_content("#table") == tv.core.render_ansi(tv.history[0])
        off.click("#next")
        assert off.text_content("#pos").startswith(f"decision 1 of {n}")
        assert off.text_content("#table") == tv.core.render_ansi(tv.history[1])
        off.eval_on_selector(
            "#t", f"e => {{ e.value = '{mid}'; e.dispatchEvent(new Event('input')); }}"
        )
        assert off.text_content("#pos").startswith(f"decision {mid} of {n}")
        assert off.text_content("#table") == tv.core.render_ansi(tv.history[mid])
        assert "player_0" in off.text_content("#priv")  # exported with every seat's view
        off.click("#last")
        assert off.text_content("#pos") == f"decision {n} of {n} · over"
        assert off.get_attribute("#pic", "src") != src0
        off.click("#first")
        assert off.get_attribute("#pic", "src") == src0
        assert all(u.startswith(("file:", "data:")) for u in requests), requests
    finally:
        ctx.close()


# --- a new game's table: nothing of the last one stays live ----------------------------
def test_no_stale_click_after_start(web, page, monkeypatch):
    """After Start, the previous game's table is cleared and nothing can be
    clicked until the new game's first view arrives (held back here); an
    action of the old table sent on the new game's socket is refused (it
    names the old game) and the new game stays at decision 0; the error
    banner clears on the next good view."""
    base, server = web
    old_gid = start_game(page, base, "unbroken", ["human"], 5)
    wait_ready(page, COMPILE_MS)
    old = page.eval_on_selector_all("#actions button", "bs => bs.map(b => +b.dataset.action)")
    assert old

    gate = threading.Event()
    real = server.view_for

    def held(live, conn):  # the new game's views wait for the gate
        if live.gid != old_gid:
            gate.wait(60)
        return real(live, conn)

    monkeypatch.setattr(server, "view_for", held)
    try:
        page.click("#home")
        page.wait_for_selector("#lobby:not([hidden])")
        gid = start_from_lobby(page, "unbroken", ["human"], 6, wait_table=False)
        assert gid != old_gid
        page.wait_for_selector("#table-page:not([hidden])")
        page.wait_for_function("socket !== null && socket.readyState === 1")
        g = server.games[gid].session
        both = [a for a in old if g.state["legal"][a]]
        assert both, "no action of the old table is legal in the new game"
        # the table is empty and nothing is clickable
        assert page.eval_on_selector_all("#actions button", "bs => bs.length") == 0
        assert (
            page.text_content("#table-text") == "" and page.get_attribute("#picture", "src") is None
        )
        assert page.is_hidden("#result")
        clicked = page.evaluate(
            "a => { const b = document.querySelector(`#actions button[data-action='${a}']`);"
            " if (b) b.click(); return !!b; }",
            both[0],
        )
        assert not clicked
        # an old table's action, sent on the new socket all the same: refused by the server
        page.evaluate(
            "([gid, a]) => socket.send(JSON.stringify({type: 'act', game: gid, decision: 0,"
            " action: a}))",
            [old_gid, both[0]],
        )
        time.sleep(0.3)
        assert g.decisions == 0
    finally:
        gate.set()
    page.wait_for_selector("#error:not([hidden])")
    assert "another game's table" in page.text_content("#error")
    assert g.decisions == 0 and server.games[old_gid].session.decisions == 0
    wait_ready(page)
    assert "decision 0" in page.text_content("#facts")
    a = heuristic_choice(g, make_agent("heuristic", g.core, seed=1))
    page.click(f'#actions button[data-action="{a}"]')
    page.wait_for_function("document.getElementById('error').hidden")
    wait_ready(page)
    assert g.decisions >= 1 and g.actions[0] == a


def test_wide_picture_fills_its_panel(web, page):
    """Dungeon Kart's wide track picture (719x266) takes the table's whole
    width, scaled up without distortion, instead of its own small size."""
    base, server = web
    start_game(page, base, "dungeon_kart", ["human", "heuristic"], 2)
    wait_ready(page, COMPILE_MS)
    page.wait_for_function(
        "document.getElementById('picture').complete"
        " && document.getElementById('picture').naturalWidth > 0"
    )
    box = page.evaluate(
        """() => {
          const p = document.getElementById('picture'), r = p.getBoundingClientRect();
          const t = document.getElementById('table-page'), cs = getComputedStyle(t);
          const inner = t.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
          return {w: r.width, h: r.height, nw: p.naturalWidth, nh: p.naturalHeight, inner};
        }"""
    )
    assert box["nw"] > 2 * box["nh"], box  # the wide picture this is about
    assert box["w"] >= box["inner"] - 4, box
    assert box["w"] >= 1.5 * box["nw"], box  # its legend grows with it (9 px at natural size)
    assert abs(box["w"] / box["h"] - box["nw"] / box["nh"]) < 0.02, box


def test_big_seed_shown_exactly(web, page, tmp_path):
    """Seeds travel as strings: a replay seeded above 2**53 shows its seed
    digit for digit (a JavaScript number would show 6103951615286742000)."""
    from dungeonrl.agents.replay import record_replay

    base, _ = web
    big = 6103951615286741525
    path = tmp_path / "big.json"
    path.write_text(json.dumps(record_replay("unbroken", ["heuristic"], seed=big).to_json()))
    page.goto(base + "/")
    page.wait_for_selector("#lobby:not([hidden])")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#viewer:not([hidden])")
    page.wait_for_function("document.getElementById('v-facts').textContent.startsWith('seed ')")
    assert page.text_content("#v-facts").startswith(f"seed {big} ·")


def test_only_the_starting_page_ends_or_paces(web, page, browser):
    """The page that started a game of agents paces it and can end it; a
    page that opened it from the lobby's list watches with its controls
    disabled and no End button. End closes the game on the server."""
    base, server = web
    gid = start_game(page, base, "unbroken", ["heuristic"], 3)
    page.wait_for_selector("#watch-controls:not([hidden])")
    assert page.is_enabled("#step") and page.is_visible("#end-game")
    ctx = browser.new_context(viewport=VIEWPORT)
    try:
        other = ctx.new_page()
        other.goto(base + "/")
        other.click(f'#live-games a[href*="{gid}"]')
        other.wait_for_selector("#watch-controls:not([hidden])")
        for control in ("#play", "#pause", "#step", "#speed"):
            assert other.is_disabled(control), control
        assert other.is_hidden("#end-game")
        other.select_option("#view-select", "0")  # a watcher still picks its own view
        other.wait_for_function("document.getElementById('private').textContent.length > 0")
    finally:
        ctx.close()
    page.click("#end-game")
    page.wait_for_selector("#lobby:not([hidden])")
    assert gid not in server.games
