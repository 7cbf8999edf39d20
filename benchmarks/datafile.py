"""The benchmarks' data files: ``benchmarks/data/<name>.toml``.

Per-game settings of a benchmark (which games it measures, with which
options, and what it expects) live in a data file beside the others, never
in the benchmark's code, so that a game joins a benchmark by adding rows
there. :func:`load` reads a file; :func:`rows` checks the records of one of
its arrays of tables (the keys each must have, those it may have, and that
each ``game`` is one of the catalog's), so a typo fails when the benchmark
starts with the file's name and the record's place.
"""

from __future__ import annotations

import os
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover  (Python 3.10)
    import tomli as tomllib

#: the folder of the data files
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def path(name: str) -> str:
    """The path of ``benchmarks/data/<name>.toml``."""
    return os.path.join(DATA, f"{name}.toml")


def load(name_or_path: str) -> dict[str, Any]:
    """The parsed data file: a name (``"baselines"``) or a path to a ``.toml``."""
    p = name_or_path if name_or_path.endswith(".toml") else path(name_or_path)
    with open(p, "rb") as f:
        return tomllib.load(f)


def check_game(game: Any, where: str) -> str:
    """``game`` if it is a game of the catalog, else a ``ValueError`` naming
    ``where`` and the games there are."""
    from ..envs.catalog import GAMES

    if game not in GAMES:
        raise ValueError(f"{where}: unknown game {game!r}; the games: {', '.join(GAMES)}")
    return str(game)


def check_keys(record: Any, where: str, required=(), optional=()) -> dict[str, Any]:
    """``record`` if it is a table holding every key of ``required`` and no
    key outside ``required`` and ``optional``; its ``game``, where it has
    one, is checked with :func:`check_game`."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: expected a table, got {type(record).__name__}")
    missing = [k for k in required if k not in record]
    unknown = sorted(set(record) - set(required) - set(optional))
    if missing or unknown:
        raise ValueError(f"{where}: missing keys {missing}, unknown keys {unknown}")
    if "game" in record:
        check_game(record["game"], where)
    return record


def rows(data: dict[str, Any], key: str, where: str, required=(), optional=()) -> list[dict]:
    """The records of the array of tables ``key`` of ``data`` (see
    :func:`check_keys`); ``where`` names the file in errors."""
    return [
        check_keys(r, f"{where} [[{key}]] #{i + 1}", required, optional)
        for i, r in enumerate(data.get(key, []))
    ]
