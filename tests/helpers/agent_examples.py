"""Agents written the way a user writes them (the public protocol of
``dungeonrl.agents.protocol``), importable as ``helpers.agent_examples:NAME`` by
the tests (``tests/`` is on the path)."""

from __future__ import annotations

import numpy as np


def first_legal(obs, mask):
    """The lowest legal action of every row."""
    return mask.argmax(axis=1)


class LastLegal:
    """The highest legal action; counts its per-game resets."""

    name = "last-legal"

    def __init__(self):
        self.resets = []

    def reset(self, rows):
        self.resets.append(np.asarray(rows).copy())

    def act(self, obs, mask):
        return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)


class NeedsArgs:
    def __init__(self, size):
        self.size = size


def wrong_count(obs, mask):
    return np.zeros(len(obs) + 1, np.int64)


def out_of_range(obs, mask):
    return np.full(len(obs), mask.shape[1], np.int64)


def fractional(obs, mask):
    return np.full(len(obs), 0.5)


NOT_AN_AGENT = 42
