"""Build the config vector that ``rules.configure_row`` reads (layout:
``consts.CFG_*``) from a core's keyword arguments; bad values raise
``ValueError`` naming the argument. The campaign sheet in it (the
``campaign`` argument / reset option) is checked and laid out by
``sheet.py`` (its names are importable from here too)."""

from __future__ import annotations

import numpy as np

from ..core.options import name_arg
from . import consts as C
from .sheet import SHEET_KEYS, XP_MAX, check_campaign, check_sheet_option, write_sheet

__all__ = [
    "OPTIONS",
    "game_options",
    "make_config",
    "SHEET_KEYS",
    "XP_MAX",
    "check_campaign",
    "check_sheet_option",
]
#: the game's own options (a core's keyword arguments besides the engine's
#: and ``campaign``) and their defaults, declared once
OPTIONS = dict(floor=1, difficulty="normal", mode="arcade", crawler="Carl", race=None, klass=None)
#: the words a race / class value may be besides a name or an id
RACE_CLASS_WORDS = {None: C.RC_DRAFT, "draft": C.RC_DRAFT, "preset": C.RC_PRESET, "none": C.RC_NONE}


def game_options(**given) -> dict:
    """``given`` over the defaults of :data:`OPTIONS` (``TypeError`` for a
    key that is none of them)."""
    unknown = sorted(given.keys() - OPTIONS.keys())
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r} (options: {list(OPTIONS)})")
    return {**OPTIONS, **given}


def make_config(campaign=None, content=None, num_players=None, **options):
    """The int64 config vector of the game's ``options`` (:data:`OPTIONS`:
    ``floor``, ``difficulty``, ``mode``, ``crawler``, ``race``, ``klass``).

    ``race`` / ``klass``: a name or id, ``"draft"`` (draw 3 and choose, the
    arcade default), ``"preset"`` (the portrait's pair) or ``"none"`` (the
    campaign default before Floor 3); a single value or a pair (per seat).
    ``campaign``: None, or a campaign sheet (``sheet.check_campaign``): a dict
    with ``xp`` (int), ``benefits`` (list of circle counts per benefit),
    ``achievements`` (3 x 4 flags), ``decks`` (per seat a list of core names
    or ids, at most 24; a name takes the next copy of that card no earlier
    entry holds, a seat's starting and character cards are its crawler's)
    and ``upgrades`` (per seat a list of (entry index, upgrade name or id)).
    ``num_players``: the table size the sheet is checked for (None: as many
    seats as the sheet has decks).
    """
    from .content import default_content

    cc = default_content() if content is None else content
    o = game_options(**options)
    floor, race, klass = o["floor"], o["race"], o["klass"]
    if isinstance(floor, bool) or floor not in (1, 2, 3):
        raise ValueError(f"floor must be 1, 2 or 3, got {floor!r}")
    c = np.zeros(C.CFG_SIZE, np.int64)
    c[C.CFG_FLOOR] = floor
    c[C.CFG_DIFFICULTY] = name_arg(o["difficulty"], C.DIFFICULTIES, "difficulty")
    c[C.CFG_MODE] = m = name_arg(o["mode"], C.MODES, "mode")
    c[C.CFG_CRAWLER] = name_arg(o["crawler"], cc.crawler_names, "crawler")
    default = "draft" if m == C.M_ARCADE else "none"
    for key, val, names, base in (
        ("race", race, cc.race_names, C.CFG_RACE0),
        ("klass", klass, cc.class_names, C.CFG_CLASS0),
    ):
        val = default if val is None else val
        pair = val if isinstance(val, (list, tuple)) else (val, val)
        if len(pair) != 2:
            raise ValueError(f"{key} takes one value or a pair, got {val!r}")
        for p in range(2):
            c[base + p] = name_arg(pair[p], names, key, RACE_CLASS_WORDS)
    write_sheet(c, check_campaign(campaign, cc, num_players, int(c[C.CFG_CRAWLER])), cc.tables)
    return c
