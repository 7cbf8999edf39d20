"""Every ``dungeonrl play|train|eval|bench|demo ...`` command shown on a page
of the documentation site (``docs/*.md``, with the docs it includes: a
game's own doc, the engine guide) parses with the command tree, as the
README's do (tests/cli/test_cli.py). A synopsis with placeholders
(``[--agent ...]``, ``GAME``, ``a|b``) is not a command and is skipped."""

from __future__ import annotations

import re
import shlex

import pytest

pytest.importorskip("torch")

from dungeonrl import cli

from .test_readme import DOCS, page_text

COMMAND = re.compile(r"^\s*(?:\$ )?(dungeonrl (?:play|train|eval|bench|demo)\b[^`\n#]*)", re.M)


def commands(text: str) -> list[str]:
    """The command lines of a page, continuation lines (``\\``) joined."""
    text = re.sub(r"[ \t]*\\\n\s*", " ", text)
    return [m.group(1).strip() for m in COMMAND.finditer(text)]


def is_synopsis(argv: list[str]) -> bool:
    return any(
        a.startswith("[") or a.endswith("]") or "|" in a or re.fullmatch(r"[A-Z]+", a) for a in argv
    )


def parse(line: str) -> None:
    argv = shlex.split(line.split("&&")[0])[1:]
    if is_synopsis(argv):
        return
    command, rest = argv[0], argv[1:]
    game, env, rest = cli._split_game(rest)
    if game is None and command == "bench":
        cli._command_node("bench").parse_args(rest)
        return
    leaf = cli._leaf_parser(command, game or env or "unbroken")
    assert leaf is not None, line
    try:
        leaf.parse_args(rest)
    except SystemExit as e:  # pragma: no cover - shows the failing line
        raise AssertionError(f"documented command does not parse: {line}") from e


def test_commands_are_found():
    assert commands("dungeonrl train x --a 1 \\\n    --b 2   # note\n") == [
        "dungeonrl train x --a 1 --b 2"
    ]
    lines = [c for p in sorted(DOCS.glob("**/*.md")) for c in commands(page_text(p))]
    assert len(lines) >= 40


@pytest.mark.parametrize("path", sorted(DOCS.glob("**/*.md")), ids=lambda p: p.name)
def test_documented_commands_parse(path):
    for line in commands(page_text(path)):
        parse(line)
