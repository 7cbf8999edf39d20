"""Build and validate the config vector that ``rules.configure_row`` reads
(layout: ``consts.CFG_*``). Env adapters call :func:`make_config` with the
user's keyword arguments / reset options; bad values raise ``ValueError``
naming the argument."""
from __future__ import annotations

import numpy as np

from . import consts as C


def _choice(name, value, names):
    if isinstance(value, str):
        if value not in names:
            raise ValueError(f"{name} must be one of {list(names)}, got {value!r}")
        return names.index(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < len(names):
        return int(value)
    raise ValueError(f"{name} must be one of {list(names)}, got {value!r}")


def _rc(name, value, names, content):
    if value in ("draft", None):
        return C.RC_DRAFT
    if value == "preset":
        return C.RC_PRESET
    if value == "none":
        return C.RC_NONE
    return _choice(name, value, names)


def make_config(floor=1, difficulty="normal", mode="arcade", crawler="Carl",
                race=None, klass=None, campaign=None, content=None):
    """The int64 config vector.

    ``race`` / ``klass``: a name or id, ``"draft"`` (draw 3 and choose, the
    arcade default), ``"preset"`` (the portrait's pair) or ``"none"`` (the
    campaign default before Floor 3); a single value or a pair (per seat).
    ``campaign``: None, or a dict with ``xp`` (int), ``benefits`` (list of
    circle counts per benefit), ``achievements`` (3 x 4 flags), ``decks``
    (per seat a list of core names or ids, at most 24) and ``upgrades`` (per
    seat a list of (entry index, upgrade name or id)).
    """
    from .content import default_content
    cc = default_content() if content is None else content
    if isinstance(floor, bool) or floor not in (1, 2, 3):
        raise ValueError(f"floor must be 1, 2 or 3, got {floor!r}")
    c = np.zeros(C.CFG_SIZE, np.int64)
    c[C.CFG_FLOOR] = floor
    c[C.CFG_DIFFICULTY] = _choice("difficulty", difficulty, C.DIFFICULTIES)
    m = _choice("mode", mode, C.MODES)
    c[C.CFG_MODE] = m
    c[C.CFG_CRAWLER] = _choice("crawler", crawler, cc.crawler_names)
    default = "draft" if m == C.M_ARCADE else "none"
    for key, val, names, base in (("race", race, cc.race_names, C.CFG_RACE0),
                                  ("klass", klass, cc.class_names, C.CFG_CLASS0)):
        val = default if val is None else val
        pair = val if isinstance(val, (list, tuple)) else (val, val)
        if len(pair) != 2:
            raise ValueError(f"{key} takes one value or a pair, got {val!r}")
        for p in range(2):
            c[base + p] = _rc(key, pair[p], names, cc)
    c[C.CFG_DECK0:] = -1
    camp = campaign or {}
    unknown = set(camp) - {"xp", "benefits", "achievements", "decks", "upgrades"}
    if unknown:
        raise ValueError(f"unknown campaign keys {sorted(unknown)}")
    c[C.CFG_XP] = int(camp.get("xp", 0))
    ben = list(camp.get("benefits", []))
    if len(ben) > len(cc.benefit_names) or any(int(b) < 0 for b in ben):
        raise ValueError(f"benefits: at most {len(cc.benefit_names)} non-negative counts")
    c[C.CFG_BEN0:C.CFG_BEN0 + len(ben)] = ben
    ach = np.asarray(camp.get("achievements", np.zeros((C.NFLOOR, C.ACH_PER_FLOOR))), np.int64)
    if ach.shape != (C.NFLOOR, C.ACH_PER_FLOOR):
        raise ValueError(f"achievements must be {C.NFLOOR} x {C.ACH_PER_FLOOR} flags")
    c[C.CFG_ACH0:C.CFG_ACH0 + ach.size] = (ach.ravel() != 0)
    for p, deck in enumerate(camp.get("decks", [])):
        if p >= 2 or len(deck) > C.CAMP_DECK:
            raise ValueError(f"decks: per seat at most {C.CAMP_DECK} cards, 2 seats")
        for k, card in enumerate(deck):
            c[C.CFG_DECK0 + p * C.CAMP_DECK + k] = _choice("deck card", card, cc.core_names)
    for p, ups in enumerate(camp.get("upgrades", [])):
        for k, u in ups:
            ui = _choice("upgrade", u, cc.upgrade_names)
            if c[C.CFG_DECK0 + p * C.CAMP_DECK + k] < 0:
                raise ValueError(f"upgrade on deck entry {k} of seat {p}, which is empty")
            cut = int(cc.tables.u_cutout[ui])
            c[C.CFG_UPG0 + (p * C.CAMP_DECK + k) * 2 + cut] = ui
    return c
