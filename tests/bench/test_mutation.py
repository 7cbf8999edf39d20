"""The mutation check (``benchmarks/mutation.py``): the tool itself works.

The full catalogues (``benchmarks/mutants/*.toml``) recompile a game's
kernels for every mutant and run as a benchmark, not here. Here: every
catalogue is well formed and still matches the code exactly once per
mutant (catalogue rot is an error); and a smoke run of two cheap mutants
(pure-Python track building, one caught, one not) through the real tool,
in a copy of the checkout, leaves the checkout byte for byte as it was and
removes its copy. The committed kill table is what the tool renders from
its results file.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dungeonrl.benchmarks import mutation

ROOT = Path(__file__).resolve().parents[2]
CONTENT = "envs/dungeon_kart/content.py"

SMOKE = '''
game = "dungeon_kart"
tests = ["tests/dungeon_kart/test_content.py::test_builder_errors_name_tile_and_edge"]

[[mutant]]
id = "smoke-overlap-not-checked"
rule = "DK-023"
family = "skipped effect"
file = "envs/dungeon_kart/content.py"
original = """            if g in cells:
                ctx.err(
                    "tiles",
                    f"overlap: tile {fid} hex"""
replacement = """            if g in cells and not cells:
                ctx.err(
                    "tiles",
                    f"overlap: tile {fid} hex"""

[[mutant]]
id = "smoke-overlap-message-reworded"
rule = "DK-023"
family = "skipped effect"
file = "envs/dungeon_kart/content.py"
original = 'f"overlap: tile {fid} hex {list(p)} lands on tile "'
replacement = 'f"overlap: tile {fid} hex {tuple(p)} lands on tile "'
'''


def test_every_catalogue_applies_once_and_names_a_covered_rule():
    mutants = mutation.load_all()
    files = mutation.test_files(ROOT)
    for game in sorted({m.game for m in mutants}):
        ms = [m for m in mutants if m.game == game]
        assert len(ms) >= 12, game
        assert {m.family for m in ms} == set(mutation.FAMILIES), game
        table = mutation.coverage(game, ROOT)
        for m in ms:
            mutation.check_applies(m, ROOT)
            ids, names = mutation.named_tests(m, table, files)
            assert ids and names, f"{m.id}: the coverage table cites no test for {m.rule}"


def test_catalogue_rot_is_an_error(tmp_path):
    m = mutation.load_catalogue(_write(tmp_path, SMOKE))[0]
    gone = mutation.Mutant(**{**m.__dict__, "original": m.original + "  # not in the code"})
    with pytest.raises(mutation.CatalogueError, match="occurs 0 times"):
        mutation.check_applies(gone, ROOT)
    bad = _write(tmp_path, SMOKE.replace('family = "skipped effect"', 'family = "typo"', 1))
    with pytest.raises(mutation.CatalogueError, match="family 'typo'"):
        mutation.load_catalogue(bad)


def test_committed_kill_table_is_what_the_tool_renders():
    data = json.loads(mutation.RESULTS.read_text())
    text = mutation.DOC.read_text()
    body = text.split("<!-- mutation:start -->\n")[1].split("<!-- mutation:end -->")[0]
    assert body == mutation.markdown(data) + "\n"
    assert data["summary"] == mutation.summary(data["mutants"])


def test_smoke_run_kills_in_a_copy_and_leaves_the_checkout_alone(tmp_path):
    cat = tmp_path / "catalogue"
    cat.mkdir()
    _write(cat, SMOKE)
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / "mutation.json"
    before = hashlib.sha256((ROOT / CONTENT).read_bytes()).hexdigest()
    cmd = [sys.executable, "-m", "dungeonrl.benchmarks.mutation", "dungeon_kart"]
    cmd += ["--catalogue", str(cat), "--json", str(out), "--no-docs", "--workdir", str(work)]
    cmd += ["--timeout", "120"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    log = res.stdout + res.stderr
    assert res.returncode == 1, log  # one survivor: the check does not pass
    rows = {r["id"]: r for r in json.loads(out.read_text())["mutants"]}
    killed = rows["smoke-overlap-not-checked"]
    assert killed["status"] == "killed", log
    assert killed["first_failure"] == (
        "tests/dungeon_kart/test_content.py::test_builder_errors_name_tile_and_edge"
    )
    assert killed["named"] is True  # the coverage table cites it for DK-023
    assert rows["smoke-overlap-message-reworded"]["status"] == "survived", log
    # the checkout was never touched, and the copy is gone
    assert hashlib.sha256((ROOT / CONTENT).read_bytes()).hexdigest() == before
    assert list(work.iterdir()) == []


def _write(folder: Path, text: str) -> Path:
    path = folder / "dungeon_kart.toml"
    path.write_text(text)
    return path
