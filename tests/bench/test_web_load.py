"""The web load test (benchmarks/web_load.py): its table, and a short run
against a real ``dungeonrl serve`` (one game at a time, two seconds, no
pictures) that must answer decisions and meet no error."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("websockets")
pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from dungeonrl.benchmarks import web_load


def _row(games, pictures, rate, p50):
    return {
        "games": games,
        "pictures": pictures,
        "decisions_per_s": rate,
        "latency_ms": {"p50": p50, "p95": 2 * p50, "p99": 3 * p50, "max": 4 * p50},
        "errors": 0,
    }


def test_markdown_lists_every_level():
    doc = {
        "rows": [_row(1, True, 41.6, 21.3), _row(8, False, 1234.5, 4.25)],
        "seconds": 12.0,
        "errors": 0,
        "machine": {"cores": 2, "cpu": "X"},
        "load": [1.5, 1.0, 1.0],
        "date": "2026-12-02",
        "command": "python -m dungeonrl.benchmarks.web_load --json x.json",
    }
    md = web_load.markdown(doc)
    assert "| 1 | yes | 42 | 21 ms | 43 ms | 64 ms |" in md
    assert "| 8 | no | 1,234 | 4.2 ms | 8.5 ms | 13 ms |" in md
    assert "0 errors" in md and "load 1.5 at the start" in md


def test_short_run(tmp_path):
    out = tmp_path / "web_load.json"
    rc = web_load.main(["--games", "1", "--seconds", "2", "--no-pictures", "--json", str(out)])
    doc = json.loads(out.read_text())
    assert rc == 0
    assert doc["errors"] == 0 and doc["games_left_open"] == 0, doc
    assert {"command", "date", "machine", "load", "rows"} <= set(doc)
    (row,) = doc["rows"]
    assert row["games"] == 1 and row["pictures"] is False
    assert row["errors"] == 0, row["error_samples"]
    assert row["decisions"] > 0 and row["decisions_per_s"] > 0
    lat = row["latency_ms"]
    assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]
    assert "--no-pictures" in doc["command"]
