"""The layout version covers the rules code: a saved model or snapshot made
with other rules is refused, while a comment or docstring edit changes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dungeonrl.envs.core.spec import layout_version, normalised_source, source_digest
from dungeonrl.envs.dungeon_crawler import core as dc_core
from dungeonrl.envs.unbroken import core as ub_core

GAMES = {"unbroken": ub_core, "dungeon_crawler": dc_core}


def test_normalised_source_ignores_comments_docstrings_and_layout():
    a = 'def f(x):\n    """Doc."""\n    return x + 1  # one more\n'
    b = '# a header comment\n\ndef f(x):\n    """Another doc."""\n\n    return (x + 1)\n'
    c = "def f(x):\n    return x + 2\n"
    assert normalised_source(a) == normalised_source(b)
    assert normalised_source(a) != normalised_source(c)
    # a body that was only a docstring stays valid code
    assert normalised_source('def g():\n    """Only a doc."""\n') == normalised_source(
        "def g():\n    pass\n"
    )


def _copy_rules(tmp_path: Path, core) -> tuple[Path, str]:
    src = Path(core.rules.__file__)
    dst = tmp_path / "rules.py"
    shutil.copy(src, dst)
    return dst, dst.read_text()


def _edit(path: Path, text: str, old: str, new: str) -> None:
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_rules_edit_changes_the_layout_version_and_a_comment_does_not(game, tmp_path, monkeypatch):
    core = GAMES[game]
    base = core.make_spec().layout_version
    path, text = _copy_rules(tmp_path, core)
    sources = (path,) + tuple(core.RULES_SOURCES[1:])
    monkeypatch.setattr(core, "RULES_SOURCES", sources)
    assert core.make_spec().layout_version == base  # same code, other file

    # a comment, a blank line and a docstring edit: the same rules
    first_def = text.index("\ndef ") + 1
    _edit(path, text, text[first_def : first_def + 4], "# a note for readers\n\ndef ")
    commented = path.read_text()
    _edit(path, commented, '"""', '"""Edited docstring. ')
    assert core.make_spec().layout_version == base

    # one rule line changed: another layout version
    _edit(path, text, "return ", "return 1 + ")
    assert core.make_spec().layout_version != base


def test_every_game_digests_its_rules_constants_state_and_encoder():
    for game, core in GAMES.items():
        names = [Path(m.__file__).name for m in core.RULES_SOURCES]
        assert names == ["rules.py", "consts.py", "state.py", f"{game}.py"], names
        spec = core.make_spec()
        content = core.load_content()
        assert spec.layout_version == layout_version(
            core.STATE_DTYPE, content.digest, core.GAME.version, source_digest(*core.RULES_SOURCES)
        )
        assert spec.layout_version != layout_version(
            core.STATE_DTYPE, content.digest, core.GAME.version
        )


def test_source_digest_errors_and_order(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    assert source_digest(a, b) != source_digest(b, a)
    with pytest.raises(FileNotFoundError):
        source_digest(tmp_path / "missing.py")
    bad = tmp_path / "bad.py"
    bad.write_text("def (:\n")
    with pytest.raises(SyntaxError):
        source_digest(bad)
