"""The paired A/B command (benchmarks/ab.py): its parsing, its summary and
the package folder it builds for each side; one tiny real comparison of a
checkout with itself."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dungeonrl.benchmarks import ab


def test_parse_games():
    assert ab.parse_games("unbroken, dungeon_crawler:4,") == [
        ("unbroken", 0),
        ("dungeon_crawler", 4),
    ]
    with pytest.raises(SystemExit, match="NAME:PLAYERS"):
        ab.parse_games("dungeon_crawler:four")
    with pytest.raises(SystemExit, match="no games"):
        ab.parse_games(" , ")


def test_seats():
    assert ab.seats("unbroken") == 1
    assert ab.seats("dungeon_crawler") == 4 and ab.seats("dungeon_crawler", 2) == 2
    with pytest.raises(SystemExit, match="not 99"):
        ab.seats("dungeon_crawler", 99)
    with pytest.raises(SystemExit, match="no_such_game"):
        ab.seats("no_such_game")


def test_summary_is_median_of_per_round_ratios():
    # the machine halves its speed in the second half: both sides slow down
    # together, the per-round ratio stays 2 (this side twice as fast)
    base = [2.0, 2.0, 4.0, 4.0]
    this = [1.0, 1.0, 2.0, 2.0]
    s = ab.summarize(base, this)
    assert s["speedup"] == 2.0 and s["min"] == s["max"] == 2.0 and s["rounds"] == 4
    assert s["base_us"] == 3.0 and s["this_us"] == 1.5
    s = ab.summarize([1.0, 1.0, 1.0], [2.0, 1.0, 0.5])
    assert s["speedup"] == 1.0 and s["min"] == 0.5 and s["max"] == 2.0


def test_revision(tmp_path):
    assert ab.revision(tmp_path) == "unknown"
    rev = ab.revision(ab.here())
    assert rev == "unknown" or len(rev.split("+")[0]) >= 7


def test_package_root_links_the_subpackages(tmp_path):
    root = ab.package_root(ab.here(), tmp_path / "pkg")
    pkg = root / "dungeonrl"
    for sub in ab.SUBPACKAGES:
        assert (pkg / sub).is_symlink() and (pkg / sub).resolve() == ab.here() / sub
    assert (pkg / "__init__.py").resolve() == ab.here() / "dungeonrl" / "__init__.py"
    with pytest.raises(SystemExit, match="not a dungeonrl checkout"):
        ab.package_root(tmp_path, tmp_path / "other")


def test_checkout_against_itself(tmp_path):
    out = tmp_path / "ab.json"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "dungeonrl.benchmarks.ab",
            "--base",
            str(ab.here()),
            "--games",
            "unbroken",
            "--rounds",
            "2",
            "--turn-seconds",
            "0.01",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "unbroken 1p" in r.stdout and "speedup" in r.stdout
    import json

    doc = json.loads(out.read_text())
    assert doc["base"] == doc["this"] == ab.revision(ab.here())
    res = doc["results"][0]
    assert res["game"] == "unbroken" and res["rounds"] == 2 and res["speedup"] > 0


def test_mode_argument_and_its_checks():
    assert ab.mode_arg(False) == "0" and ab.mode_arg(True) == "1"
    assert ab.mode_arg(False, 4096) == "batch:4096"
    assert ab.mode_arg(False, 4096, "float16") == "batch16:4096"
    for bad in (["--batch", "-1"], ["--batch", "8", "--rules"], ["--obs-dtype", "float16"]):
        with pytest.raises(SystemExit):
            ab.main(["--base", str(ab.here()), *bad])


def test_batch_mode_against_itself(tmp_path):
    """The fused step with the compact observation, this checkout on both sides."""
    out = tmp_path / "ab.json"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "dungeonrl.benchmarks.ab",
            "--base",
            str(ab.here()),
            "--games",
            "dungeon_crawler:2",
            "--batch",
            "16",
            "--obs-dtype",
            "float16",
            "--rounds",
            "2",
            "--turn-seconds",
            "0.01",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    import json

    doc = json.loads(out.read_text())
    res = doc["results"][0]
    assert doc["batch"] == 16 and res["batch"] == 16 and res["players"] == 2
    assert doc["obs_dtype"] == res["obs_dtype"] == "float16"
    assert res["base_us"] > 0 and res["this_us"] > 0
