"""What the benchmark commands (``python -m dungeonrl.benchmarks.X``) share:
their parser, their on/off options, and the JSON file of a result."""

from __future__ import annotations

import argparse
import json


def parser(name: str, doc: str | None = None, **kwargs) -> argparse.ArgumentParser:
    """The parser of ``python -m dungeonrl.benchmarks.<name>``, described by
    the first paragraph of ``doc`` (its module's docstring) where given."""
    if doc is not None:
        kwargs.setdefault("description", doc.split("\n\n")[0])
    return argparse.ArgumentParser(prog=f"python -m {__package__}.{name}", **kwargs)


def add_flags(p, helps: dict[str, str]) -> None:
    """An on/off option (``store_true``) for each name of ``helps``, with its help."""
    for name, text in helps.items():
        p.add_argument(name, action="store_true", help=text)


def save_json(doc, path: str | None) -> None:
    """Write ``doc`` to ``path`` (UTF-8, indent 1); nothing when ``path`` is empty."""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
