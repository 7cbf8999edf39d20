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
