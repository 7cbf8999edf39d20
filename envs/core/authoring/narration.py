"""A running narration of a game for one seat, for ``dungeonrl play``.

Each game with a ``narrate`` module (``dungeonrl.envs.<game>.narrate``)
provides ``narrate(core, prev, state, seat) -> list[str]`` (events between
two records), ``hand_text(core, state, seat)`` and ``legend(core)``.
:class:`Narrator` keeps the previous record so a play loop can report every
step (its own and the rivals') and print them together at the seat's next
decision::

    nar = Narrator(core, seat=0)
    nar.reset(states[0])                 # after env.reset
    ...
    env.step(a); nar.record(states[0])   # after every step, any seat
    ...
    for line in nar.flush(): print(line) # before asking seat 0
"""

from __future__ import annotations

import importlib

__all__ = ["Narrator", "narration_module"]


def narration_module(core):
    """The ``narrate`` module of a core's game (``ValueError`` if it has none)."""
    name = core.spec.name
    try:
        return importlib.import_module(f"dungeonrl.envs.{name}.narrate")
    except ModuleNotFoundError as e:
        raise ValueError(f"{name} has no narration module") from e


class Narrator:
    """Collects the events of a game, told to ``seat``, between flushes."""

    def __init__(self, core, seat: int = 0):
        self.core = core
        self.seat = int(seat)
        self.mod = narration_module(core)
        self.prev = None
        self.lines: list = []

    def reset(self, state) -> None:
        """Start from ``state`` (a new game): nothing to tell yet."""
        self.prev = state.copy()
        self.lines = []

    def record(self, state) -> list:
        """Add the events from the last recorded state to ``state``; returns them."""
        if self.prev is None:
            raise RuntimeError("Narrator.record() called before reset()")
        new = self.mod.narrate(self.core, self.prev, state, self.seat)
        self.lines.extend(new)
        self.prev = state.copy()
        return new

    def flush(self) -> list:
        """The events collected since the last flush (and forget them)."""
        out, self.lines = self.lines, []
        return out

    def hand(self, state) -> list:
        return self.mod.hand_text(self.core, state, self.seat)

    def legend(self) -> list:
        return self.mod.legend(self.core)
