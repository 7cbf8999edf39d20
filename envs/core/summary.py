"""A finished game's summary (``GameCore.episode_info`` and the vector
env's ``episode_info_batch``) read from named record fields, written once:
:func:`field_summary`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["field_summary"]


def field_summary(outcome_names: Sequence[str], **fields: str) -> tuple[Callable, Callable]:
    """``(episode_info, episode_info_batch)`` methods of a core whose
    summary is the outcome's name (``outcome_names[outcome]``, ``"?"`` for a
    code it does not name) and the int value of each record field
    ``fields[key]`` under ``key``, in that order. The batch form reads single
    fields of the finished rows, never whole records, as ``{key: (values,
    None)}`` columns."""
    lut = np.array(list(outcome_names), dtype=object)

    def episode_info(self, state) -> dict:
        out = int(state["outcome"])
        info = {"outcome": lut[out] if 0 <= out < len(lut) else "?"}
        info.update((key, int(state[f])) for key, f in fields.items())
        return info

    def episode_info_batch(self, states, rows) -> dict:
        out = states["outcome"][rows].astype(np.int64)
        known = (out >= 0) & (out < len(lut))
        names = np.where(known, lut[np.where(known, out, 0)], "?").astype(object)
        cols = {"outcome": (names, None)}
        cols.update((key, (states[f][rows].astype(np.int64), None)) for key, f in fields.items())
        return cols

    episode_info.__doc__ = "The game's summary: its outcome and " + ", ".join(fields) + "."
    episode_info_batch.__doc__ = "``episode_info`` of the rows ``rows`` of ``states`` at once."
    return episode_info, episode_info_batch
