"""``python -m dungeonrl.benchmarks.report``: the measured sections of
README.md and of the site's pages (``docs/**/*.md``) are generated from
``benchmarks/results``, the committed pages are what it generates, and a
section with no page, or a page with an unknown section, is an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from dungeonrl.benchmarks import report

ROOT = Path(__file__).resolve().parents[2]


def block(name: str, body: str = "STALE") -> str:
    return f"<!-- {name}:start -->\n{body}\n<!-- {name}:end -->\n"


def test_committed_pages_are_what_the_report_generates():
    changed = report.regenerate(str(ROOT), report.RESULTS, write=False)
    assert not changed, (
        f"stale generated sections in {sorted(changed)}: run python -m dungeonrl.benchmarks.report"
    )


def test_every_section_has_a_page_in_the_repository():
    homes = set()
    for path in report.pages(str(ROOT)):
        homes |= report.markers(Path(path).read_text())
    assert homes == set(report.SECTIONS)
    readme = report.markers((ROOT / "README.md").read_text())
    assert {"readme-speed", "readme-baselines"} <= readme


def test_sections_are_regenerated_in_every_page(tmp_path):
    docs = tmp_path / "docs" / "guide"
    docs.mkdir(parents=True)
    moved = {"bench-suite", "baselines"}
    (tmp_path / "README.md").write_text(
        "# x\n" + "".join(block(n) for n in report.SECTIONS if n not in moved)
    )
    (docs / "speed.md").write_text("# speed\n" + "".join(block(n) for n in sorted(moved)))
    (tmp_path / "docs" / "plain.md").write_text("# no markers\n")
    changed = report.regenerate(str(tmp_path), report.RESULTS)
    assert set(changed) == {str(tmp_path / "README.md"), str(docs / "speed.md")}
    page = (docs / "speed.md").read_text()
    assert "STALE" not in page and "| what | steps/s (median) | vs peer |" in page
    # the suite's plots, linked from the repository root, seen from docs/guide/
    assert "](../../benchmarks/results/suite_peers.png)" in page
    assert "](benchmarks/results/" not in page
    assert "STALE" not in (tmp_path / "README.md").read_text()
    # a second run changes nothing
    assert report.regenerate(str(tmp_path), report.RESULTS) == {}


def test_a_section_without_a_page_is_an_error(tmp_path):
    (tmp_path / "README.md").write_text(block("bench-suite"))
    with pytest.raises(SystemExit, match="no page carries the section"):
        report.regenerate(str(tmp_path), report.RESULTS, write=False)
    # asking for the one section that has a page is fine
    assert report.regenerate(str(tmp_path), report.RESULTS, only=["bench-suite"], write=False)


def test_an_unknown_section_is_an_error(tmp_path):
    (tmp_path / "README.md").write_text(
        "".join(block(n) for n in report.SECTIONS) + block("no-such-table")
    )
    with pytest.raises(SystemExit, match="unknown section"):
        report.regenerate(str(tmp_path), report.RESULTS, write=False)


def test_relink():
    body = "![plot](benchmarks/results/a.png) [site](https://x.org/a) [here](#top) `x](y)`"
    out = report.relink(body, "..")
    assert "![plot](../benchmarks/results/a.png)" in out
    assert "[site](https://x.org/a)" in out and "[here](#top)" in out
    assert report.relink(body, "") == body == report.relink(body, ".")


def test_check_mode_writes_nothing(tmp_path, capsys):
    (tmp_path / "README.md").write_text("".join(block(n) for n in report.SECTIONS))
    before = (tmp_path / "README.md").read_text()
    assert report.main(["--root", str(tmp_path), "--check"]) == 1
    assert (tmp_path / "README.md").read_text() == before
    assert "stale README.md" in capsys.readouterr().out
    assert report.main(["--root", str(tmp_path)]) == 0
    assert report.main(["--root", str(tmp_path), "--check"]) == 0
