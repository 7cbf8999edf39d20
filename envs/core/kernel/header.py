"""The state header every game record starts with.

A game's state record is ``HEADER_FIELDS`` + ``("legal", uint8, (A,))`` +
the game's own fields, built by :func:`state_dtype`. The engine (the
generated step wrapper and batch loops, see :mod:`.codegen`) reads and
writes the header; the game's rules read it and write only ``actor`` and
``outcome`` (and the chance fields, through :mod:`.chance`).

==============  =========  ===============================================
field           dtype      meaning
==============  =========  ===============================================
rng             u64[2]     counter generator (key, counter); hidden
seed            u64        seed of this env's stream
episode         i64        episodes started on this stream (autoreset)
forced          i8[16]     test hook: chance results to use first; hidden
forced_n        i8         how many forced results are queued (0..16)
forced_i        i8         how many of them were used (0..forced_n)
steps           i32        agent decisions taken this episode
max_steps       i32        truncation cap on agent decisions (>= 1)
num_players     i8         seats in this game
auto_advance    i8         1: single-legal-action decisions are taken by the engine
reward_mode     i8         the game's reward variant (index into its list)
outcome         i8         O_PLAYING, O_TRUNCATED, O_ILLEGAL or a game outcome
actor           i8         seat owing the next decision, -1 once over
last_actor      i8         seat that took the last decision (-1 before the first)
legal           u8[A]      legal mask of ``actor`` (1 = legal); zero once over
==============  =========  ===============================================

Outcome codes 0-2 belong to the engine; a game numbers its own outcomes
(win, loss, ...) from :data:`O_GAME` up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: engine outcomes; games number theirs from O_GAME
O_PLAYING, O_TRUNCATED, O_ILLEGAL = 0, 1, 2
O_GAME = 3
FORCED_CAP = 16

HEADER_FIELDS: list[tuple[Any, ...]] = [
    ("rng", np.uint64, (2,)),
    ("seed", np.uint64),
    ("episode", np.int64),
    ("forced", np.int8, (FORCED_CAP,)),
    ("forced_n", np.int8),
    ("forced_i", np.int8),
    ("steps", np.int32),
    ("max_steps", np.int32),
    ("num_players", np.int8),
    ("auto_advance", np.int8),
    ("reward_mode", np.int8),
    ("outcome", np.int8),
    ("actor", np.int8),
    ("last_actor", np.int8),
]
HEADER_NAMES: tuple[str, ...] = tuple(f[0] for f in HEADER_FIELDS) + ("legal",)
#: header fields never encoded into an observation
HIDDEN_HEADER = ("rng", "seed", "episode", "forced", "forced_n", "forced_i")


def state_dtype(game_fields, num_actions: int, align: bool = True) -> np.dtype:
    """The record of one game: the header, its legal mask, then ``game_fields``
    (a list of numpy dtype field tuples). A game field may not reuse a header
    name."""
    clash = sorted(set(HEADER_NAMES) & {f[0] for f in game_fields})
    if clash:
        raise ValueError(f"game fields {clash} clash with the engine header")
    return np.dtype(
        HEADER_FIELDS + [("legal", np.uint8, (int(num_actions),))] + list(game_fields), align=align
    )
