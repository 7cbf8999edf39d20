"""What a game writes, by kind, and the engine's size, measured from the tree.

``python -m dungeonrl.benchmarks.house`` prints two Markdown tables: the
lines each game of :mod:`dungeonrl.envs.catalog` writes, by kind (rules,
content, encoder, render, scripted policy, state check, the game's own
adapter code, agent hooks, CLI companions, tests, docs, and the generated
kernels it does not write), and the size of each module of ``envs/core``.
``--write`` replaces the block between ``<!-- house:begin -->`` and
``<!-- house:end -->`` in ``envs/README.md``; ``--check`` exits 1 when that
block differs from the tree at all (``tests/docs/test_house_table.py``
accepts counts within 10 % or 25 lines, so everyday edits do not need a
rewrite, and fails on anything more or on changed rows).

What is counted:

* Python: **code lines**: lines holding code, not blank, not only a
  comment, not part of a docstring (module, class or function docstrings:
  those are the doc pages, counted under docs).
* TOML (content, a game's declaration): lines that are neither blank nor
  only a comment.
* docs: the non-blank lines of the game's Markdown files plus the
  non-blank docstring lines of every Python file counted for the game.

Files are found by glob patterns per kind (:data:`KINDS`, ``{g}`` is the
game's short name, ``{a}`` any of its names in file names: the short name
and its declared aliases), never by a list of files; the first kind whose
pattern matches a file takes it. A file under ``envs/<game>/`` that no
kind takes is listed under the table, so a restructured tree shows what
the patterns miss. The generated kernels are not checked in (written on
first use), so their row is measured from what the code generator writes
(:func:`dungeonrl.envs.core.kernel.codegen.source`, which imports the
game's kernel facts and finds its modules); their pattern only claims a
file already written. Nothing else here imports a game.
"""

from __future__ import annotations

import argparse
import ast
import glob
import io
import os
import sys
import tokenize

from dungeonrl.envs import catalog

__all__ = [
    "aliases",
    "KINDS",
    "KERNELS",
    "BEGIN",
    "END",
    "count_python",
    "count_toml",
    "game_counts",
    "engine_counts",
    "markdown",
    "replace_block",
    "main",
]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join("envs", "README.md")
BEGIN = "<!-- house:begin -->"
END = "<!-- house:end -->"


def aliases(game: str) -> tuple[str, ...]:
    """Other names a game goes by in file names (tests, agents), as its
    declaration states them (``GameEntry.aliases``): a file matches when
    one of the game's names is a run of its ``_``-separated words."""
    entry = catalog.ENTRIES.get(game)
    return tuple(entry.aliases) if entry is not None else ()


#: (kind, patterns), in the order files are claimed. ``{g}``: the short
#: name; ``{a}``: a pattern tried with each of the game's names.
KERNELS = "generated kernels (not written)"
KINDS: list[tuple[str, tuple[str, ...]]] = [
    (KERNELS, ("envs/{g}/kernels.py",)),
    ("content data (TOML)", ("envs/{g}/data/*.toml", "envs/{g}/data/**/*.toml")),
    ("content loader", ("envs/{g}/content.py", "envs/{g}/content/*.py")),
    ("encoder", ("encoders/{g}.py", "encoders/{g}/*.py")),
    ("render and narration", ("envs/{g}/render*.py", "envs/{g}/narrat*.py")),
    ("scripted policy", ("envs/{g}/policy*.py",)),
    ("state check", ("envs/{g}/validate*.py",)),
    ("agent hooks", ("envs/{g}/hooks.py", "envs/{g}/heuristic.py", "agents/{a}_*.py")),
    ("declaration", ("envs/{g}/game.toml", "envs/{g}/game.py")),
    (
        "game core, config and wrappers",
        (
            "envs/{g}/__init__.py",
            "envs/{g}/core.py",
            "envs/{g}/config.py",
            "envs/{g}/campaign.py",
            "envs/{g}_v[0-9]*.py",
        ),
    ),
    # whatever else the game's package holds is rules: consts, state record,
    # row functions and their helpers
    ("rules", ("envs/{g}/*.py", "envs/{g}/**/*.py")),
    ("tests", ("tests/*{a}*.py", "tests/**/*{a}*.py", "tests/**/*{a}*/**/*.py")),
]
#: the Markdown files of a game's docs (docstrings are added to them)
DOCS = ("envs/{g}/*.md", "envs/{g}/**/*.md")
#: kinds whose lines are not written by the game (shown, not in the total)
NOT_WRITTEN = {KERNELS}
DOC_KIND = "docs (Markdown + docstrings)"

_SKIP_TOKENS = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}


# --------------------------------------------------------------------------------
def _docstring_lines(tree: ast.AST, lines: list[str]) -> set[int]:
    out: set[int] = set()
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        if isinstance(node, owners) and ast.get_docstring(node, clean=False) is not None:
            doc = node.body[0]
            first, last = doc.lineno, doc.end_lineno or doc.lineno
            out.update(i for i in range(first, last + 1) if lines[i - 1].strip())
    return out


def count_python(text: str) -> tuple[int, int]:
    """``(code lines, docstring lines)`` of a Python source (see the module
    docstring for what counts)."""
    lines = text.splitlines()
    docs = _docstring_lines(ast.parse(text), lines)
    code: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in _SKIP_TOKENS:
            continue
        code.update(range(tok.start[0], tok.end[0] + 1))
    code -= docs
    code = {i for i in code if i <= len(lines) and lines[i - 1].strip()}
    return len(code), len(docs)


def count_toml(text: str) -> int:
    """Lines of a TOML file that are neither blank nor only a comment."""
    return sum(1 for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#"))


def count_markdown(text: str) -> int:
    """Non-blank lines of a Markdown file."""
    return sum(1 for ln in text.splitlines() if ln.strip())


def _read(root: str, rel: str) -> str:
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def _names(game: str) -> tuple[str, ...]:
    return (game, *aliases(game))


def _has_name(path: str, names: tuple[str, ...]) -> bool:
    """True when the ``_``-separated words of the file's name, or of one of
    its folders, hold one of ``names``."""
    parts = os.path.splitext(path)[0].replace(os.sep, "/").split("/")
    for part in parts:
        words = part.split("_")
        for name in names:
            w = name.split("_")
            if any(words[i : i + len(w)] == w for i in range(len(words) - len(w) + 1)):
                return True
    return False


def _expand(pattern: str, game: str) -> list[str]:
    """The patterns of one kind for a game (``{a}`` once per name)."""
    if "{a}" in pattern:
        return [pattern.format(g=game, a=a) for a in _names(game)]
    return [pattern.format(g=game)]


def _glob(root: str, pattern: str) -> list[str]:
    hits = glob.glob(os.path.join(root, pattern), recursive=True)
    return sorted(
        os.path.relpath(h, root).replace(os.sep, "/")
        for h in hits
        if os.path.isfile(h) and "__pycache__" not in h
    )


def game_files(game: str, root: str = ROOT) -> dict[str, list[str]]:
    """kind -> the files of ``game`` it claims (first kind wins); the key
    ``"unclaimed"`` lists files under ``envs/<game>/`` no kind took."""
    taken: set[str] = set()
    out: dict[str, list[str]] = {}
    other_games = [g for g in catalog.GAMES if g != game]
    for kind, patterns in KINDS:
        files = []
        for pattern in patterns:
            for p in _expand(pattern, game):
                for f in _glob(root, p):
                    if f in taken:
                        continue
                    if "{a}" in pattern and not _has_name(f, _names(game)):
                        continue  # e.g. *kart* matching a longer word
                    if "{a}" in pattern and any(
                        _has_name(f, (o,)) for o in other_games if len(o) > len(game) and game in o
                    ):
                        continue
                    taken.add(f)
                    files.append(f)
        out[kind] = sorted(files)
    pkg = f"envs/{game}"
    out["unclaimed"] = [
        f for f in _glob(root, pkg + "/**/*") if f not in taken and f.endswith((".py", ".toml"))
    ]
    return out


def game_counts(game: str, root: str = ROOT) -> tuple[dict[str, int], list[str]]:
    """kind -> lines of ``game`` (see the module docstring), and the
    unclaimed files."""
    files = game_files(game, root)
    counts: dict[str, int] = {}
    doc_lines = 0
    for kind, _ in KINDS:
        n = 0
        for f, text in _texts(kind, files[kind], game, root):
            if f.endswith(".py"):
                code, docs = count_python(text)
                n += code
                doc_lines += docs
            elif f.endswith(".toml"):
                n += count_toml(text)
        counts[kind] = n
    for pattern in DOCS:
        for f in _glob(root, pattern.format(g=game)):
            doc_lines += count_markdown(_read(root, f))
    counts[DOC_KIND] = doc_lines
    return counts, files["unclaimed"]


def _texts(kind: str, files: list[str], game: str, root: str):
    """``(file, text)`` of a kind's files; the generated kernels as the
    code generator writes them, whether or not a file is on disk."""
    if kind == KERNELS:
        from dungeonrl.envs.core.kernel import codegen, sources

        with sources.suspended():
            return [(f"envs/{game}/kernels.py", codegen.source(game))]
    return [(f, _read(root, f)) for f in files]


def engine_counts(root: str = ROOT) -> list[tuple[str, int, int]]:
    """``(module, code lines, docstring lines)`` of every module of envs/core."""
    out = []
    for f in _glob(root, "envs/core/**/*.py"):
        code, docs = count_python(_read(root, f))
        out.append((f.removeprefix("envs/core/"), code, docs))
    return out


# --------------------------------------------------------------------------------
def markdown(root: str = ROOT) -> str:
    """The two tables (games by kind, envs/core by module) as Markdown."""
    games = list(catalog.GAMES)
    per = {g: game_counts(g, root) for g in games}
    kinds = [k for k, _ in KINDS if k not in NOT_WRITTEN] + [DOC_KIND]
    lines = [
        "| lines (code; TOML entries; docs) | " + " | ".join(f"`{g}`" for g in games) + " |",
        "|---|" + "---:|" * len(games),
    ]
    for kind in kinds:
        lines.append(f"| {kind} | " + " | ".join(f"{per[g][0][kind]:,}" for g in games) + " |")
    written = {g: sum(per[g][0][k] for k in kinds if k != DOC_KIND) for g in games}
    lines.append(
        "| **written by the game (without docs)** | "
        + " | ".join(f"**{written[g]:,}**" for g in games)
        + " |"
    )
    for kind in sorted(NOT_WRITTEN):
        lines.append(f"| {kind} | " + " | ".join(f"{per[g][0][kind]:,}" for g in games) + " |")
    fixture = os.path.join(root, "tests", "helpers", "fixture_game.py")
    if os.path.exists(fixture):
        code, _ = count_python(_read(root, "tests/helpers/fixture_game.py"))
        lines += [
            "",
            f"The fixture game (`tests/helpers/fixture_game.py`, every kind in one file): "
            f"{code:,} code lines.",
        ]
    unclaimed = sorted(f for g in games for f in per[g][1])
    if unclaimed:
        lines += [
            "",
            "Not counted (no kind's pattern takes them): "
            + ", ".join(f"`{f}`" for f in unclaimed)
            + ".",
        ]
    eng = engine_counts(root)
    lines += ["", "| `envs/core` module | code lines | docstring lines |", "|---|---:|---:|"]
    for name, code, docs in sorted(eng, key=lambda r: (-r[1], r[0])):
        lines.append(f"| `{name}` | {code:,} | {docs:,} |")
    lines.append(
        f"| **total ({len(eng)} modules)** | **{sum(r[1] for r in eng):,}** | "
        f"**{sum(r[2] for r in eng):,}** |"
    )
    return "\n".join(lines)


def readme_block(text: str) -> str | None:
    """The text between the markers (None if the README has none)."""
    _, opened, rest = text.partition(BEGIN)
    if not opened:
        return None
    block, closed, _ = rest.partition(END)
    if not closed:
        raise ValueError(f"marker {BEGIN!r} is not closed by {END!r}")
    return block.strip("\n")


def replace_block(text: str, table: str) -> str:
    """``text`` with the block between the markers replaced by ``table``."""
    if readme_block(text) is None:
        raise ValueError(f"no {BEGIN!r} marker")
    i = text.find(BEGIN) + len(BEGIN)
    j = text.find(END, i)
    return text[:i] + "\n" + table + "\n" + text[j:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m dungeonrl.benchmarks.house",
        description="lines a game writes, by kind, and the size of envs/core, from the tree",
    )
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help=f"replace the marked block of {README}")
    group.add_argument(
        "--check", action="store_true", help=f"exit 1 when the marked block of {README} is stale"
    )
    ap.add_argument("--root", default=ROOT, help="the checkout to measure (default: this one)")
    args = ap.parse_args(argv)
    table = markdown(args.root)
    path = os.path.join(args.root, README)
    if not (args.write or args.check):
        print(table)
        return 0
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if args.check:
        if readme_block(text) != table:
            print(
                f"{README}: the house table is stale; run "
                "python -m dungeonrl.benchmarks.house --write",
                file=sys.stderr,
            )
            return 1
        return 0
    new = replace_block(text, table)
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
