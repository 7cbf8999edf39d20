"""Counts in words for what the commands print: ``1 game``, ``2 games``,
``2..8 players``, ``1 player`` (never ``1 games`` or ``1..1 players``)."""

from __future__ import annotations

__all__ = ["count", "count_range"]


def count(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, plural unless ``n`` is 1 (``many``: an irregular
    plural; default ``word + "s"``); thousands separated."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def count_range(lo: int, hi: int, word: str, many: str | None = None) -> str:
    """``lo`` to ``hi`` of ``word`` (``2..8 players``), or one count when
    they are equal (``1 player``)."""
    if lo == hi:
        return count(lo, word, many)
    return f"{lo:,}..{hi:,} {many or word + 's'}"
