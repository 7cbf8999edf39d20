"""The documentation site builds with ``mkdocs build --strict`` (what
``make docs`` runs): every warning is an error, so a broken link, a link to
a missing heading, a page missing from the nav, a nav entry without a page,
a missing included file or an API reference that cannot be collected fails
here. The strict build is also shown to fail on a broken link and on a
page left out of the nav, so a config that stopped being strict would be
caught.

Building imports nothing of the package (the API reference is read from
the sources by griffe), so it compiles no kernel: a few seconds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
pytest.importorskip("mkdocs")
pytest.importorskip("material")
pytest.importorskip("mkdocstrings_handlers.python")

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "mkdocs.yml"
TIMEOUT = 300


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=ROOT,  # pymdownx.snippets reads included docs from the repository root
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
    )


def config_with_docs(tmp_path: Path) -> tuple[Path, Path]:
    """mkdocs.yml over a copy of docs/ (to be broken by a test); the rest of
    the configuration (hooks, API paths, snippets) still reads the repository."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    cfg = yaml.safe_load(CONFIG.read_text())
    cfg["docs_dir"] = str(docs)
    cfg["hooks"] = [str(ROOT / h) for h in cfg["hooks"]]
    python = cfg["plugins"][1]["mkdocstrings"]["handlers"]["python"]
    python["paths"] = [str(ROOT / p) for p in python["paths"]]
    config = tmp_path / "mkdocs.yml"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return config, docs


def test_config_is_strict():
    cfg = yaml.safe_load(CONFIG.read_text())
    assert cfg["strict"] is True
    assert cfg["validation"]["links"]["not_found"] == "warn"
    assert cfg["validation"]["links"]["anchors"] == "warn"
    assert cfg["validation"]["nav"]["omitted_files"] == "warn"


def test_site_builds_strict(tmp_path):
    site = tmp_path / "site"
    r = build(CONFIG, site)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "WARNING" not in r.stderr, r.stderr[-4000:]
    # every page of the nav, a game's included doc and the API reference are there
    cfg = yaml.safe_load(CONFIG.read_text())

    def pages(nav):
        for item in nav:
            for v in item.values():
                yield from pages(v) if isinstance(v, list) else [v]

    for page in pages(cfg["nav"]):
        out = site / ("index.html" if page == "index.md" else page[:-3] + "/index.html")
        assert out.exists(), page
    kart = (site / "dungeon-kart" / "index.html").read_text()
    assert "Rule coverage" in kart and "Version history" in kart
    assert "repo/envs/dungeon_kart/race.png" in kart  # a repository picture, served
    assert (site / "repo" / "envs" / "dungeon_kart" / "race.png").exists()
    api = (site / "api" / "index.html").read_text()
    assert "DungeonEnv" in api and "BatchedMultiAgentEnv" in api


def test_strict_build_fails_on_a_broken_link(tmp_path):
    config, docs = config_with_docs(tmp_path)
    page = docs / "getting-started.md"
    page.write_text(page.read_text() + "\nSee [the missing page](no-such-page.md).\n")
    r = build(config, tmp_path / "site")
    assert r.returncode != 0
    assert "no-such-page.md" in r.stderr


def test_strict_build_fails_on_a_broken_anchor_and_a_page_out_of_the_nav(tmp_path):
    config, docs = config_with_docs(tmp_path)
    page = docs / "cli.md"
    page.write_text(page.read_text() + "\nSee [a section](training.md#no-such-section).\n")
    (docs / "orphan.md").write_text("# Orphan\n")
    r = build(config, tmp_path / "site")
    assert r.returncode != 0
    assert "no-such-section" in r.stderr and "orphan.md" in r.stderr
