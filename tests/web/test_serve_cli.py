"""``dungeonrl serve``: its options, its refusals (exit 2 with a message),
and a real server started in a subprocess on a free port."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import httpx
import pytest

from dungeonrl.cli import main

GAMES = {"unbroken", "dungeon_crawler", "dungeon_kart", "dcc_unstoppable"}


def test_help(capsys):
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    for opt in [
        "--host",
        "--port",
        "--agent",
        "--replay-dir",
        "--max-games",
        "--max-connections",
        "--idle-minutes",
    ]:
        assert opt in out


@pytest.mark.parametrize(
    "args,message",
    [
        (["--port", "70000"], "port 70000 is outside 0..65535"),
        (["--port", "x"], "'x' is not a port number"),
        (["--port", "-1"], "port -1 is outside"),
        (["--replay-dir", "/no/such/folder"], "--replay-dir /no/such/folder: no such folder"),
        (["--agent", "no_such_thing"], "--agent no_such_thing: not a file or module:attribute"),
        (["--max-games", "0"], "--max-games"),
        (["--max-connections", "x"], "--max-connections"),
        (["--idle-minutes", "0"], "'0' must be above 0"),
        (["--idle-minutes", "soon"], "'soon' is not a number"),
        (["--colour", "red"], "unrecognized arguments"),
    ],
)
def test_bad_options(capsys, args, message):
    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert "dungeonrl serve" in err and message in err, err


def test_serves_the_app(tmp_path):
    """``python -m dungeonrl serve --port 0`` prints its address; the page
    and the catalog answer there; SIGINT stops it cleanly."""
    (tmp_path / "r.json").write_text("{}")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "dungeonrl", "serve", "--port", "0", "--replay-dir", str(tmp_path)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = ""
        deadline = time.monotonic() + 60
        while "http://" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                pytest.fail(f"serve exited {proc.returncode}: {proc.stderr.read()}")
        m = re.search(r"open (http://127\.0\.0\.1:(\d+)/)", line)
        assert m and int(m.group(2)) > 0, line
        url = m.group(1)
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200 and "<html" in page.text.lower()
        cat = httpx.get(url + "api/catalog", timeout=10).json()
        assert {g["name"] for g in cat["games"]} == GAMES
        for g in cat["games"]:
            assert all(a[:2] == ["heuristic", "random"] for a in g["agents"].values())
        assert httpx.get(url + "api/replays/files", timeout=10).json() == {"files": ["r.json"]}
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture
def no_listen(monkeypatch):
    """``serve`` builds its app, then returns at once instead of listening
    (so a server that wrongly starts ends the test instead of hanging it)."""
    import uvicorn

    async def serve(self, sockets=None):
        return None

    monkeypatch.setattr(uvicorn.Server, "serve", serve)


def test_agents_checked_when_the_server_starts(tmp_path, monkeypatch, capsys, no_listen):
    """Every ``--agent`` is imported or loaded when ``serve`` starts: one
    that cannot be stops it (exit 2, the reason), instead of being offered
    in every menu and refused when a page picks it."""
    (tmp_path / "mybots_serve.py").write_text(
        "def first_legal(obs, mask):\n    return mask.argmax(axis=1)\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for agent, message in [
        ("no_such_module_xyz:Bot", "cannot import module 'no_such_module_xyz'"),
        ("mybots_serve:nope", "module 'mybots_serve' has no attribute 'nope'"),
        (str(tmp_path / "mybots_serve.py"), "loads for no game here"),
    ]:
        assert main(["serve", "--port", "0", "--agent", agent]) == 2, agent
        err = capsys.readouterr().err
        assert err.startswith("dungeonrl serve: ") and message in err, err
    assert main(["serve", "--port", "0", "--agent", "mybots_serve:first_legal"]) == 0


def test_agents_offered_where_they_load(tmp_path, monkeypatch):
    """A saved model is offered for the game and seat counts it loads for
    only; a ``module:attribute`` agent for every game."""
    from starlette.testclient import TestClient

    from dungeonrl.agents import pretrained
    from dungeonrl.agents.policy import model_file
    from dungeonrl.web.app import make_app
    from dungeonrl.web.server import ServerConfig

    (tmp_path / "mybots_offer.py").write_text(
        "def first_legal(obs, mask):\n    return mask.argmax(axis=1)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    name = next(n for n in pretrained.names() if pretrained.card(n)["game"] == "unbroken")
    model = model_file(pretrained.PREFIX + name)
    config = ServerConfig(agents=(model, "mybots_offer:first_legal"))
    with TestClient(make_app(config)) as client:
        cat = {g["name"]: g["agents"] for g in client.get("/api/catalog").json()["games"]}
        for game, counts in cat.items():
            for n, agents in counts.items():
                assert "mybots_offer:first_legal" in agents
                assert (model in agents) == (game == "unbroken"), (game, n)
        r = client.post(
            "/api/games",
            json={"game": "dungeon_kart", "players": 2, "seats": ["human", model]},
        )
        assert r.status_code == 400 and "is not offered here" in r.json()["error"]
