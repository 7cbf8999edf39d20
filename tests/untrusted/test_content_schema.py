"""Content entries with a key left out or misspelled (issue 47): a key left
out takes the default its game's schema documents (the "Keys left out"
tables of ``envs/dcc_unstoppable/README.md``, ``envs/dungeon_kart/README.md``,
``envs/unbroken/data/VOCABULARY.md`` and ``envs/dungeon_crawler/README.md``)
or is refused naming it, never filled silently; an unknown key, a
misspelling such as ``opx`` for ``op``, is refused naming the key as
written, its file and its entry, in every file of every game."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import tomllib

from dungeonrl.benchmarks.fuzz import to_toml
from dungeonrl.envs.core.errors import ContentError

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("unbroken", "dungeon_crawler", "dungeon_kart", "dcc_unstoppable")
#: the page of each game that holds its "Keys left out" table
SCHEMA_DOCS = {
    "unbroken": "envs/unbroken/data/VOCABULARY.md",
    "dungeon_crawler": "envs/dungeon_crawler/README.md",
    "dungeon_kart": "envs/dungeon_kart/README.md",
    "dcc_unstoppable": "envs/dcc_unstoppable/README.md",
}
DOCUMENTED = tuple(SCHEMA_DOCS)
#: the kinds of entry an "every file" row names ("any op table"), per game:
#: the pattern of their shapes (an op table is an entry of an op list)
KINDS = {
    "dcc_unstoppable": {"op table": r"\.(play|exhaust|bonus|flip|ops|setup)(\[\])+$"},
    "unbroken": {
        "op table": r"\.(effects|alt|ambush)\[\]$",
        "resource table": r"(^|\.)(cost|spend|gain|trickery|rewards|score)$",
        "ability's `passive`": r"\.abilities\[\]\.passive$",
        "ability": r"\.abilities\[\]$",
    },
}


def _module(game: str):
    import importlib

    return importlib.import_module(f"dungeonrl.envs.{game}.content")


def _load(game: str, folder):
    return _module(game).load_content(str(folder))


def _files(game: str) -> list[str]:
    return sorted(p.name for p in Path(_module(game).DATA_DIR).glob("*.toml"))


def _entries(node, path=()) -> Iterator[tuple[tuple, dict]]:
    """(path, table) of every table below the document's top level."""
    if isinstance(node, dict):
        if path:
            yield path, node
        for k, v in node.items():
            yield from _entries(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _entries(v, path + (i,))


def _shape(path: tuple) -> str:
    """``("levelled", 3, "play", 0)`` -> ``levelled[].play[]`` (the tables' notation)."""
    out = ""
    for p in path:
        out += "[]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def _is_op(shape: str) -> bool:
    """An op table of Carl's."""
    return re.search(KINDS["dcc_unstoppable"]["op table"], shape) is not None


def _kinds(game: str, shape: str) -> list[str]:
    """The kinds of entry (``KINDS``) that an entry of ``shape`` is."""
    return [k for k, pat in KINDS.get(game, {}).items() if re.search(pat, shape)]


def _norm(x):
    """A comparable form of compiled content (arrays by dtype, shape and bytes)."""
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, dict):
        return tuple(sorted((str(k), _norm(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return tuple(_norm(v) for v in x)
    if hasattr(x, "__dict__") and not isinstance(x, type):
        return _norm({k: v for k, v in vars(x).items() if k not in ("folder", "record")})
    if hasattr(x, "__slots__"):
        return _norm({k: getattr(x, k) for k in x.__slots__ if hasattr(x, k)})
    return x


def _outcome(game: str, folder: Path, fname: str, doc: dict):
    """The compiled content of ``folder`` with ``fname`` replaced by ``doc``
    (normalised), or the error message."""
    (folder / fname).write_text(to_toml(doc))
    try:
        return ("content", _norm(_load(game, folder)))
    except ContentError as e:
        return ("error", str(e))


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def _schema(game: str) -> list[tuple[str, str, str, str]]:
    """Rows (file, entry, key, default) of the game's "Keys left out" table."""
    text = (ROOT / SCHEMA_DOCS[game]).read_text()
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[2].startswith("`") and ".toml" in cells[0] + cells[1]:
            rows.append(tuple(cells))
        elif len(cells) == 4 and cells[0] == "every file":
            rows.append(tuple(cells))
    assert rows, f"no 'Keys left out' table in {SCHEMA_DOCS[game]}"
    return rows


def _defaults(game: str) -> dict:
    """(file, shape, key) -> default: a TOML value, ("=", other key) for
    "the entry's `other`", ("^", key) for "the holding entry's `key`" (the
    entry two levels up: a character's for one of its abilities), or None
    for a default told in words. An "every file" row has file "*" and, as
    shape, the kind of entry it names (``KINDS``); its key cell may list
    several keys."""
    out = {}
    for file_cell, entry_cell, key_cell, default_cell in _schema(game):
        if default_cell.startswith("`"):
            default = tomllib.loads("v = " + default_cell.strip("`"))["v"]
        elif default_cell.startswith("the entry's `"):
            default = ("=", default_cell.split("`")[1])
        elif default_cell.startswith("the holding entry's `"):
            default = ("^", default_cell.split("`")[1])
        else:
            default = None
        if file_cell == "every file":
            kinds = [k for k in KINDS.get(game, {}) if entry_cell.startswith(f"any {k}")]
            assert kinds, f"{SCHEMA_DOCS[game]}: no kind of entry {entry_cell!r}"
            files, shapes = ["*"], [max(kinds, key=len)]
        else:
            files, shapes = [file_cell.strip("`")], re.findall(r"`([^`]+)`", entry_cell)
        for f in files:
            for s in shapes:
                for key in re.findall(r"`([^`]+)`", key_cell):
                    out[(f, s, key)] = default
    return out


def _documented(game: str, defaults: dict, fname: str, shape: str, key: str):
    rows = [(fname, shape, key)] + [("*", k, key) for k in _kinds(game, shape)]
    for row in rows:
        if row in defaults:
            return True, defaults[row]
    return False, None


def _applies(game: str, row: tuple, fname: str, shape: str) -> bool:
    """Whether a table row (file, shape, key) speaks of an entry of ``shape``."""
    f, s, _key = row
    if f == "*":
        return s in _kinds(game, shape)
    return f == fname and s == shape


def _value(default, doc: dict, path: tuple):
    """A row's default for the entry at ``path`` of ``doc``."""
    if isinstance(default, tuple):
        how, key = default
        return _get(doc, path if how == "=" else path[:-2])[key]
    return default


def _copy(game: str, tmp_path: Path) -> Path:
    folder = tmp_path / game
    shutil.copytree(_module(game).DATA_DIR, folder)
    return folder


def _sampled(
    doc: dict, per_shape: int = 2, by_keys: bool = False
) -> Iterator[tuple[tuple, dict, str]]:
    """(path, entry, key) of every key, at most ``per_shape`` entries per
    (shape, key), or with ``by_keys`` per (shape, key, the entry's set of
    keys): entries of one shape that write other keys (a buff with ``atk``
    and ``def``, one with ``atk`` alone) may take a default differently."""
    seen: dict = {}
    for path, entry in _entries(doc):
        for key in list(entry):
            k = (_shape(path), key, frozenset(entry) if by_keys else None)
            seen[k] = seen.get(k, 0) + 1
            if seen[k] <= per_shape:
                yield path, entry, key


@pytest.mark.parametrize("game", DOCUMENTED)
def test_a_key_left_out_takes_its_documented_default_or_is_refused_by_name(game, tmp_path):
    """Every key of the shipped entries, left out: the content is the one
    compiled with the key set to the documented default (or, where the
    default breaks a rule of the box, the same error); a key the table does
    not list is refused naming it."""
    defaults = _defaults(game)
    folder = _copy(game, tmp_path)
    silent = []
    for fname in _files(game):
        orig = tomllib.loads((folder / fname).read_text())
        for path, _entry, key in _sampled(orig, by_keys=True):
            shape = _shape(path)
            dropped = json.loads(json.dumps(orig))
            del _get(dropped, path)[key]
            if not _get(dropped, path):
                continue  # the table left empty: the case of its own key, above it
            got = _outcome(game, folder, fname, dropped)
            known, default = _documented(game, defaults, fname, shape, key)
            if not known:
                if got[0] == "content" or not re.search(rf"\b{re.escape(key)}\b", got[1]):
                    silent.append(
                        f"{fname} {shape} {key}: {got[0]} {got[1] if got[0] == 'error' else ''}"
                    )
                continue
            if default is None:
                continue  # a default told in words (checked by the game's tests)
            default = _value(default, orig, path)
            written = json.loads(json.dumps(orig))
            _get(written, path)[key] = default
            want = _outcome(game, folder, fname, written)
            if got[0] == "error" and re.search(rf"\b{re.escape(key)}\b", got[1]):
                continue  # required here (a rule needs the key), refused by name
            assert got == want, f"{fname} {shape} {key}: left out differs from {default!r}"
        (folder / fname).write_text(to_toml(orig))
    assert not silent, "keys filled without a documented default:\n" + "\n".join(silent)


@pytest.mark.parametrize("game", DOCUMENTED)
def test_every_documented_default_is_the_loaders(game, tmp_path):
    """Each row of the table, written into shipped entries of its shape that
    leave the key out, changes nothing: the documented value is the one the
    loader uses."""
    defaults = _defaults(game)
    folder = _copy(game, tmp_path)
    base = _norm(_load(game, folder))
    tried, written_out, refused = set(), set(), set()
    for fname in _files(game):
        orig = tomllib.loads((folder / fname).read_text())
        for path, entry in _entries(orig):
            shape = _shape(path)
            for row, default in defaults.items():
                key = row[2]
                if not _applies(game, row, fname, shape):
                    continue
                if key in entry:
                    written_out.add(row)
                if key in entry or default is None or row in tried:
                    continue
                value = _value(default, orig, path)
                written = json.loads(json.dumps(orig))
                _get(written, path)[key] = value
                got = _outcome(game, folder, fname, written)
                if got[0] == "error" and re.search(rf"\b{re.escape(key)}\b", got[1]):
                    refused.add(row)  # refused for this entry (`level` of a levelled core)
                    continue
                assert got == ("content", base), f"{fname} {shape}: {key} = {value!r} changed it"
                tried.add(row)
        (folder / fname).write_text(to_toml(orig))
    literal = {r for r, d in defaults.items() if d is not None}
    # a row no shipped entry leaves out is checked by the test above, which
    # leaves the key out of entries that write it
    unchecked = sorted(literal - tried - written_out - refused)
    assert not unchecked, f"rows no shipped entry exercises: {unchecked}"


@pytest.mark.parametrize("game", GAMES)
def test_a_misspelled_key_is_named_with_its_file_and_entry(game, tmp_path):
    """Every key of sampled entries, misspelled (``op`` -> ``opx``), in
    every file of every game: the error names the key as written and the
    file (not a missing ``op``)."""
    folder = _copy(game, tmp_path)
    for fname in _files(game):
        orig = tomllib.loads((folder / fname).read_text())
        for path, _entry, key in _sampled(orig, per_shape=1):
            doc = json.loads(json.dumps(orig))
            e = _get(doc, path)
            e[key + "x"] = e.pop(key)
            kind, msg = _outcome(game, folder, fname, doc)
            where = f"{fname} {_shape(path)}"
            assert kind == "error", f"{where}: {key}x accepted"
            assert f"{key}x" in msg and fname in msg, f"{where}: {msg}"
        (folder / fname).write_text(to_toml(orig))


@pytest.mark.parametrize("fname", ["cores.toml", "threats.toml", "bosses.toml", "upgrades.toml"])
def test_carl_opx_names_the_key_the_file_and_the_entry(fname, tmp_path):
    """The report's case: ``opx`` for ``op`` in an op table of each file."""
    folder = _copy("dcc_unstoppable", tmp_path)
    doc = tomllib.loads((folder / fname).read_text())
    path = next(p for p, _e in _entries(doc) if _is_op(_shape(p)))
    op = _get(doc, path)
    op["opx"] = op.pop("op")
    entry = _get(doc, path[:2])
    (folder / fname).write_text(to_toml(doc))
    with pytest.raises(ContentError) as ei:
        _load("dcc_unstoppable", folder)
    msg = str(ei.value)
    field = path[2] + "".join(f"[{p}]" for p in path[3:]) + ".opx"  # e.g. play[0].opx
    assert fname in msg and entry["name"] in msg and f"'{field}'" in msg, msg


def test_unbroken_passive_amount_left_out_is_refused_by_name(tmp_path):
    """A passive whose mod changes something by ``n`` (every mod but
    ``ignore``, ``monster_first`` and ``no_trick``) names a missing ``n``:
    the table's ``0`` is the default of the mods that take no amount only."""
    folder = _copy("unbroken", tmp_path)
    doc = tomllib.loads((folder / "skills.toml").read_text())
    skill = next(s for s in doc["skill"] if "n" in s["abilities"][0].get("passive", {}))
    del skill["abilities"][0]["passive"]["n"]
    (folder / "skills.toml").write_text(to_toml(doc))
    with pytest.raises(ContentError) as ei:
        _load("unbroken", folder)
    msg = str(ei.value)
    assert "skills.toml" in msg and skill["name"] in msg and "passive.n" in msg, msg
