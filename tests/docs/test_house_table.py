"""The house table of envs/README.md (lines each game writes, by kind, and
the size of envs/core) is the one ``python -m dungeonrl.benchmarks.house``
measures from the tree; its counting rules hold on small sources."""

from __future__ import annotations

import os

from dungeonrl.benchmarks import house
from dungeonrl.envs import catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


#: how far a published count may drift from the tree before the table must be
#: rewritten: everyday edits move line counts a little; a new module, a moved
#: file or a game's new part changes the rows or moves a count further
TOLERANCE = 0.10
SLACK = 25


def _cells(block: str) -> list[list[str]]:
    """The table rows of a block, as cells (numbers without separators)."""
    rows = []
    for line in block.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([c.strip().strip("*").replace(",", "") for c in line.strip("|").split("|")])
    return rows


def _drifted(have: str, want: str) -> list[str]:
    """Cells of ``have`` that differ from ``want`` beyond the tolerance
    (labels must match exactly; numbers within 10 % or 25 lines)."""
    a, b = _cells(have), _cells(want)
    if len(a) != len(b):
        return [f"{len(a)} table rows published, {len(b)} measured"]
    out = []
    for ra, rb in zip(a, b):
        if len(ra) != len(rb):
            out.append(f"row {ra[0]!r}: {len(ra)} cells, {len(rb)} measured")
            continue
        for x, y in zip(ra, rb):
            if x.isdigit() and y.isdigit():
                if abs(int(x) - int(y)) > max(SLACK, TOLERANCE * int(y)):
                    out.append(f"row {ra[0]!r}: {x} published, {y} measured")
            elif x != y:
                out.append(f"{x!r} published where the tree gives {y!r}")
    return out


def test_readme_block_is_current():
    with open(os.path.join(ROOT, house.README), encoding="utf-8") as f:
        text = f.read()
    have = house.readme_block(text)
    assert have is not None, f"{house.README} has no {house.BEGIN} marker"
    drift = _drifted(have, house.markdown(ROOT))
    assert not drift, (
        f"{house.README}: the house table is stale ({'; '.join(drift[:5])}); run "
        "python -m dungeonrl.benchmarks.house --write"
    )


def test_drift_check_tolerates_small_edits_only():
    table = "| kind | `a` |\n|---|---:|\n| rules | 1,000 |\n| docs | 40 |\n"
    assert not _drifted(table, table.replace("1,000", "1,090"))
    assert _drifted(table, table.replace("1,000", "1,200"))
    assert not _drifted(table, table.replace("| 40 |", "| 60 |"))
    assert _drifted(table, table.replace("| 40 |", "| 70 |"))
    assert _drifted(table, table.replace("rules", "rule"))
    assert _drifted(table, table + "| tests | 5 |\n")


def test_python_counts_code_not_docs_comments_or_blanks():
    src = '''"""Module doc,
two lines."""
import os  # a comment


# only a comment
def f(x):
    """One doc line."""
    s = """a string,
not a docstring"""
    return (x +
            1)
'''
    code, docs = house.count_python(src)
    assert (code, docs) == (6, 3)
    assert house.count_toml("# c\n\n[a]\nx = 1 # y\n") == 2
    assert house.count_markdown("# T\n\ntext\n") == 2


def test_every_game_file_is_claimed_once():
    for game in catalog.GAMES:
        files = house.game_files(game, ROOT)
        assert files["unclaimed"] == [], (game, files["unclaimed"])
        seen = [f for kind, fs in files.items() if kind != "unclaimed" for f in fs]
        assert len(seen) == len(set(seen)), game
        assert files["rules"] and files["encoder"] and files["tests"], game
        # measured from the generator's output: the module need not be written yet
        assert files[house.KERNELS] in ([], [f"envs/{game}/kernels.py"])
        assert house.game_counts(game, ROOT)[0][house.KERNELS] > 400


def test_aliases_match_whole_words():
    assert house._has_name("tests/test_dcc_rules.py", ("dcc",))
    assert house._has_name("tests/test_dungeon_kart_env.py", ("dungeon_kart",))
    assert not house._has_name("tests/test_dungeon_kart_env.py", ("kart_env_x",))
    assert not house._has_name("tests/test_karting.py", ("kart",))
    assert house._has_name("tests/unbroken/test_rules_battle.py", ("unbroken",))


def test_write_replaces_only_the_block(tmp_path):
    text = f"intro\n{house.BEGIN}\nold\n{house.END}\noutro\n"
    new = house.replace_block(text, "| t |")
    assert new == f"intro\n{house.BEGIN}\n| t |\n{house.END}\noutro\n"
    assert house.readme_block(new) == "| t |"
