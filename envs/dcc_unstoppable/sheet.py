"""The campaign sheet of Dungeon Crawler Carl: Unstoppable: what a sheet may
hold, and how it is written into the config vector that
``rules.configure_row`` reads (layout: ``consts.CFG_*``).

A sheet (the ``campaign`` argument / reset option) carries a campaign from
game to game (DCC-081, DCC-236..259): the XP box, the benefits bought (at
most the circles of a benefit for the table size, DCC-252/253), the
achievements ticked (each scores once, DCC-239), and per seat the deck list
(each physical card in exactly one place; a seat's starting and character
cards are its own crawler's) and the upgrades in its cutouts (one per cutout,
fitting the card's type). :func:`check_campaign` checks a sheet whole before
anything is written: real ints only (a bool, string or float is refused),
ranges from the record's fields and the rules, card and upgrade names
resolved against the content; a bad entry raises ``ValueError`` naming the
field. :func:`write_sheet` lays a checked sheet out in the config vector."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from . import consts as C

#: keys of a campaign sheet
SHEET_KEYS = ("xp", "benefits", "achievements", "decks", "upgrades")
#: the XP box is the int16 record field ``camp_xp``
XP_MAX = 2**15 - 1
_CUT = ("top", "bottom")
_TYPE = ("a tactic", "an ally")


# --- the campaign sheet --------------------------------------------------------------
def _bad(field, msg):
    return ValueError(f"campaign sheet: {field} {msg}")


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _int(field, v, lo, hi) -> int:
    if not _is_int(v):
        raise _bad(field, f"must be an int in [{lo}, {hi}], got {type(v).__name__} {v!r}")
    if not lo <= int(v) <= hi:
        raise _bad(field, f"must be in [{lo}, {hi}], got {int(v)}")
    return int(v)


def _list(field, v, most=None, exactly=None) -> list:
    if not isinstance(v, (list, tuple, np.ndarray)) or (isinstance(v, np.ndarray) and v.ndim == 0):
        raise _bad(field, f"must be a list, got {type(v).__name__} {v!r}")
    v = list(v)
    if exactly is not None and len(v) != exactly:
        raise _bad(field, f"must have {exactly} entries, got {len(v)}")
    if most is not None and len(v) > most:
        raise _bad(field, f"takes at most {most} entries, got {len(v)}")
    return v


def _resolve(
    field: str,
    v: object,
    names: Sequence[str],
    what: str,
    rule: tuple[Callable[[int], bool], str],
    used: dict[int, str],
    pending: list[tuple[str, str, list[int]]],
) -> int | None:
    """A card / upgrade entry: an id (kept for the second pass) or a name
    (resolved in the second pass to a free copy of that name). ``rule``: which
    ids the entry may hold, and why another is refused."""
    eligible, why = rule
    if isinstance(v, str):
        ids = [i for i, n in enumerate(names) if n == v]
        if not ids:
            raise _bad(field, f"is {v!r}, which is no {what} of the content")
        ok = [i for i in ids if eligible(i)]
        if not ok:
            raise _bad(field, f"is {v!r}, {why}")
        pending.append((field, v, ok))
        return None
    i = _int(field, v, 0, len(names) - 1) if _is_int(v) else None
    if i is None:
        raise _bad(field, f"must be a {what} name or id, got {type(v).__name__} {v!r}")
    if not eligible(i):
        raise _bad(field, f"is {what} {i} ({names[i]!r}), {why}")
    if i in used:
        raise _bad(field, f"is {what} {i} ({names[i]!r}), already listed as {used[i]}")
    used[i] = field
    return i


def _slot(lst: list, k: int) -> Callable[[int], None]:
    """Where the second pass writes a name's id: ``lst[k]``."""

    def put(i: int) -> None:
        lst[k] = i

    return put


def _assign(
    pending: list[tuple[str, str, list[int]]],
    used: dict[int, str],
    slots: list[Callable[[int], None]],
    names: Sequence[str],
    what: str,
) -> None:
    """Second pass: each name takes the lowest copy no earlier entry holds."""
    for (field, v, ok), slot in zip(pending, slots):
        free = [i for i in ok if i not in used]
        if not free:
            raise _bad(
                field,
                f"is {v!r}: the content has {len(ok)} such {what}(s) and "
                f"every one is already listed ({', '.join(used[i] for i in ok)})",
            )
        used[free[0]] = field
        slot(free[0])


def check_sheet_option(value) -> dict:
    """The ``campaign`` reset option's type, as every entry point checks it
    (solo, vector, SB3, co-op AEC and Parallel, the campaign wrapper): a
    dict, else ``ValueError`` naming what it got (``None`` too: leave the
    key out for no sheet)."""
    if not isinstance(value, dict):
        raise ValueError(
            "reset option 'campaign' must be a dict (xp, benefits, "
            f"achievements, decks, upgrades), got {type(value).__name__}"
        )
    return value


def seat_crawlers(num_players, crawler) -> tuple:
    """The crawler of each seat: solo the configured one, co-op Carl and Donut."""
    return (int(crawler),) if num_players == 1 else (0, 1)


def check_campaign(camp, content, num_players=None, crawler=0) -> dict:
    """The validated campaign sheet, normalised: ``xp`` an int, ``benefits``
    a circle count per benefit, ``achievements`` 3 x 4 flags (0 / 1),
    ``decks`` per seat a list of core ids (each a physical card listed once
    over every seat), ``upgrades`` per seat a list of (entry, upgrade id)
    pairs (each physical upgrade once, one per cutout of an entry, fitting
    the card's type). ``num_players`` (None: 1 or 2, as the sheet has decks)
    sets the seats and the benefit circles (DCC-253); ``crawler`` (solo)
    which starting and character cards a deck may hold. Anything else
    raises ``ValueError`` naming the field and the allowed range."""
    if camp is None:
        camp = {}
    if not isinstance(camp, dict):
        raise ValueError(
            "campaign sheet must be a dict (xp, benefits, achievements, decks, "
            f"upgrades), got {type(camp).__name__}"
        )
    unknown = [k for k in camp if k not in SHEET_KEYS]
    if unknown:
        raise ValueError(
            f"unknown campaign keys {sorted(map(str, unknown))}; accepted: {list(SHEET_KEYS)}"
        )
    T = content.tables
    xp = _int("xp", camp.get("xp", 0), 0, XP_MAX)
    # benefits: circles filled, at most the benefit's circles for the table size
    nb = len(content.benefit_names)
    ben = _list("benefits", camp.get("benefits", []), most=nb)
    seats_for_circles = (1, 2) if num_players is None else (num_players,)
    out_ben = [0] * nb
    for b, v in enumerate(ben):
        hi = max(int(T.be_circles[b, n - 1]) for n in seats_for_circles)
        out_ben[b] = _int(f"benefits[{b}] ({content.benefit_names[b]})", v, 0, hi)
    # achievements: 3 x 4 flags
    ach = _list(
        "achievements",
        camp.get("achievements", [[0] * C.ACH_PER_FLOOR] * C.NFLOOR),
        exactly=C.NFLOOR,
    )
    out_ach = []
    for fl, row in enumerate(ach):
        row = _list(f"achievements[{fl}]", row, exactly=C.ACH_PER_FLOOR)
        flags = []
        for j, v in enumerate(row):
            if not (isinstance(v, (bool, np.bool_)) or _is_int(v)) or int(v) not in (0, 1):
                raise _bad(
                    f"achievements[{fl}][{j}]",
                    f"must be a flag (0, 1, False or True), got {type(v).__name__} {v!r}",
                )
            flags.append(int(v))
        out_ach.append(flags)
    # decks: per seat a deck list; each physical card in one place
    seats = 2 if num_players is None else int(num_players)
    decks = _list("decks", camp.get("decks", []), most=seats)
    if num_players is None:
        seats = max(1, len(decks))
    crawlers = seat_crawlers(seats, crawler)
    names = content.core_names
    used: dict[int, str] = {}
    out_decks = []
    # names resolved in the second pass: (field, name, eligible ids) and the
    # slot each one's id is written to
    pending: list[tuple[str, str, list[int]]] = []
    slots: list[Callable[[int], None]] = []
    for p, deck in enumerate(decks):
        deck = _list(f"decks[{p}]", deck, most=C.CAMP_DECK)
        cr = crawlers[p]
        crname = content.crawler_names[cr]

        def eligible(i: int, cr: int = cr) -> bool:
            return int(T.c_crawler[i]) in (-1, cr)

        why = f"a starting or character card of another crawler (seat {p} plays {crname})"
        ids = [-1] * len(deck)
        for k, card in enumerate(deck):
            i = _resolve(
                f"decks[{p}][{k}]", card, names, "core card", (eligible, why), used, pending
            )
            if i is None:
                slots.append(_slot(ids, k))
            else:
                ids[k] = i
        out_decks.append(ids)
    _assign(pending, used, slots, names, "core card")
    # upgrades: per seat (entry, upgrade); each physical upgrade once, one per cutout
    ups = _list("upgrades", camp.get("upgrades", []), most=seats)
    unames = content.upgrade_names
    uused: dict[int, str] = {}
    out_ups = []
    pending, slots = [], []

    def any_upgrade(i: int) -> bool:
        return True

    any_seat = (any_upgrade, "")  # every upgrade fits any seat's deck: no refusal to explain

    taken: dict = {}
    for p, lst in enumerate(ups):
        lst = _list(f"upgrades[{p}]", lst, most=2 * C.CAMP_DECK)
        n = len(out_decks[p]) if p < len(out_decks) else 0
        rows = []
        for j, pair in enumerate(lst):
            f = f"upgrades[{p}][{j}]"
            pair = _list(f, pair, exactly=2)
            if n == 0:
                raise _bad(
                    f,
                    f"upgrades a deck entry of seat {p}, which has no deck list "
                    f"(decks[{p}] is empty or missing)",
                )
            k = _int(f + "[0] (deck entry)", pair[0], 0, n - 1)
            u = _resolve(f + "[1]", pair[1], unames, "upgrade", any_seat, uused, pending)
            row = [k, u]
            rows.append(row)
            if u is None:
                slots.append(_slot(row, 1))
        out_ups.append(rows)
    _assign(pending, uused, slots, unames, "upgrade")
    for p, rows in enumerate(out_ups):
        for j, (k, u) in enumerate(rows):
            f = f"upgrades[{p}][{j}]"
            c = out_decks[p][k]
            cut = int(T.u_cutout[u])
            if (p, k, cut) in taken:
                raise _bad(
                    f,
                    f"puts {unames[u]!r} in the {_CUT[cut]} cutout of deck entry {k}, "
                    f"which {taken[p, k, cut]} already fills",
                )
            taken[p, k, cut] = f
            req = int(T.u_req[u])
            typ = int(T.c_type[c])
            if (req == 1 and typ != C.TACTIC) or (req == 2 and typ != C.ALLY):
                raise _bad(
                    f,
                    f"puts {unames[u]!r} (needs {_TYPE[req - 1]}) on deck entry {k} "
                    f"{names[c]!r}, {_TYPE[typ]}",
                )
    return {
        "xp": xp,
        "benefits": out_ben,
        "achievements": out_ach,
        "decks": out_decks,
        "upgrades": [[tuple(r) for r in rows] for rows in out_ups],
    }


def write_sheet(c: np.ndarray, sheet: dict, tables) -> None:
    """Write a checked sheet (:func:`check_campaign`) into the config vector
    ``c`` (its campaign entries, ``consts.CFG_XP`` on)."""
    c[C.CFG_DECK0 :] = -1
    c[C.CFG_XP] = sheet["xp"]
    c[C.CFG_BEN0 : C.CFG_BEN0 + len(sheet["benefits"])] = sheet["benefits"]
    c[C.CFG_ACH0 : C.CFG_ACH0 + C.NFLOOR * C.ACH_PER_FLOOR] = np.ravel(sheet["achievements"])
    for p, deck in enumerate(sheet["decks"]):
        for k, core in enumerate(deck):
            c[C.CFG_DECK0 + p * C.CAMP_DECK + k] = core
    for p, ups in enumerate(sheet["upgrades"]):
        for k, u in ups:
            cut = int(tables.u_cutout[u])
            c[C.CFG_UPG0 + (p * C.CAMP_DECK + k) * 2 + cut] = u
