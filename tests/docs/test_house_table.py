"""The house table of envs/README.md (lines each game writes, by kind, and
the size of envs/core) is the one ``python -m dungeonrl.benchmarks.house``
measures from the tree; its counting rules hold on small sources."""

from __future__ import annotations

import os

from dungeonrl.benchmarks import house
from dungeonrl.envs import catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_readme_block_is_current():
    with open(os.path.join(ROOT, house.README), encoding="utf-8") as f:
        text = f.read()
    have = house.readme_block(text)
    assert have is not None, f"{house.README} has no {house.BEGIN} marker"
    assert have == house.markdown(ROOT), (
        f"{house.README}: the house table is stale; run "
        "python -m dungeonrl.benchmarks.house --write"
    )


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
        assert f"envs/{game}/kernels.py" in files["generated kernels (not written)"]


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
