"""Compile the Dungeon Crawler content files (TOML) into numpy tables.

``load_content(folder)`` reads ``items.toml``, ``cards.toml``,
``monsters.toml`` and ``board.toml``, validates every field and returns a
:class:`CrawlerContent`: ``tables`` (a namedtuple of numpy arrays, for
Python code) and ``record`` (the same tables packed in ONE structured numpy
record, which is what every kernel receives: ``T = tabs[0]``), plus the
names used by action names, rendering and the docs. A problem raises
:class:`~dungeonrl.envs.core.errors.ContentError` naming the file, the
entry and the field.
"""

from __future__ import annotations

import os
from collections import namedtuple
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.authoring.content import (
    CompiledContent,
    ContentCache,
    Ctx,
    check_fields,
    check_unique,
    read_files,
    read_int,
    read_list,
    read_named,
    read_str,
    read_table,
)
from . import consts as C

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
FILES = ("items", "cards", "monsters", "board")

TABLE_FIELDS = (
    "item_slot",
    "item_tier",
    "item_atk",
    "item_def",
    "item_hp",
    "item_spd",
    "card_effect",
    "card_kind",
    "card_family",
    "card_copies",
    "card_atk",
    "card_def",
    "card_heal",
    "card_move",
    "card_gold",
    "card_turns",
    "card_dmg",
    "n_cards",
    "deck_cards",
    "deck_size",
    "mob_stats",
    "mob_gold",
    "boss_stats",
    "boss_gold",
    "final_stats",
    "sq_kind",
    "floor_len",
    "boss_sq",
    "start_gold",
    "gold_cap",
    "card_price",
    "item_price",
    "chest_gold",
    "respawn_rounds",
)
# mypy reads only literal field lists; TABLE_FIELDS stays the one list of names
Tables = namedtuple("Tables", TABLE_FIELDS)  # type: ignore[misc]

EFFECT_ARGS = {  # which numeric fields each effect reads (others must be absent)
    "combat_buff": ("atk", "def"),
    "sprint": ("move",),
    "curse": ("atk",),
    "enchant": ("atk",),
    "cache": ("gold",),
    "poison": ("turns", "dmg"),
    "weakness": ("atk",),
    "heal": ("heal", "atk"),
    "well": ("heal",),
}
#: (effect, field) -> (lo, hi, default): the values the rules can take. A
#: modifier (combat_buff) may be negative; a loss (curse, weakness, poison)
#: is given as a positive amount; heal -1 means "to full", 0 is not a heal;
#: a move, gold or turn count is at least 1 (a negative move deadlocks a game,
#: negative gold would drive a hero's gold below zero).
ARG_RANGES = {
    ("combat_buff", "atk"): (-5, 10, 0),
    ("combat_buff", "def"): (-5, 10, 0),
    ("sprint", "move"): (1, 10, None),
    ("curse", "atk"): (1, 10, None),
    ("enchant", "atk"): (1, 10, None),
    ("cache", "gold"): (1, 50, None),
    ("poison", "turns"): (1, 10, None),
    ("poison", "dmg"): (1, 10, None),
    ("weakness", "atk"): (1, 10, None),
    ("heal", "heal"): (-1, 50, None),
    ("heal", "atk"): (0, 10, 0),
    ("well", "heal"): (-1, 50, None),
}
TOP_KEYS = {
    "items": C.SLOT_NAMES,
    "cards": ("cards",),
    "monsters": ("floor", "finals"),
    "board": ("floors", "economy"),
}
NUM_FIELDS = ("atk", "def", "heal", "move", "gold", "turns", "dmg")
STAT_FIELDS = ("atk", "def", "hp", "spd")
SLOT_STATS = {
    "weapon": ("atk",),
    "gloves": ("atk",),
    "helmet": ("def",),
    "chest": ("def", "hp"),
    "pants": ("def",),
    "boots": ("spd",),
}


@dataclass
class CrawlerContent(CompiledContent):
    item_names: tuple
    card_names: tuple
    mob_names: tuple  # NMOB, floor-major
    boss_names: tuple  # mid-floor bosses of floors 1 and 2
    final_names: tuple
    floor_names: tuple
    layouts: tuple  # the board strings


_Ctx = Ctx
_int = read_int
_str = read_str
_table = read_table
_list = read_list
_unknown = check_fields


def _items(raw, t, names):
    ctx = _Ctx("items")
    for k in ("item_slot", "item_tier", "item_atk", "item_def", "item_hp", "item_spd"):
        t[k] = np.zeros(C.NITEM, np.int8)
    seen: set[str] = set()
    i = 0
    for s, slot in enumerate(C.SLOT_NAMES):
        ctx.entry = None
        lst = _list(ctx, raw, slot, C.PER_SLOT)
        counts = [0] * C.NTIER
        prev_best = [0] * C.NTIER
        for j, it in enumerate(lst):
            # read_named checks the unknown keys first
            name = read_named(ctx, it, j, "item", ("name", "tier") + SLOT_STATS[slot], seen, slot)
            seen.add(name)
            tier = C.TIER_NAMES.index(_str(ctx, it, "tier", C.TIER_NAMES))
            counts[tier] += 1
            hi = 5 if slot == "boots" else 20
            vals = {k: _int(ctx, it, k, lo=1, hi=hi) for k in SLOT_STATS[slot]}
            t["item_slot"][i] = s
            t["item_tier"][i] = tier
            for k, v in vals.items():
                t["item_" + k][i] = v
            prev_best[tier] = max(prev_best[tier], sum(vals.values()))
            names.append(name)
            i += 1
        ctx.entry = slot
        if tuple(counts) != C.TIER_COUNTS:
            ctx.err("tier", f"a slot needs {C.TIER_COUNTS} items per tier, got {tuple(counts)}")


def _cards(raw, t, names):
    ctx = _Ctx("cards")
    lst = _list(ctx, raw, "cards")
    if not 1 <= len(lst) <= C.MAX_CARDS:
        ctx.err("cards", f"need 1..{C.MAX_CARDS} card kinds, got {len(lst)}")
    for k in ("card_effect", "card_kind", "card_family", "card_copies") + tuple(
        "card_" + f for f in NUM_FIELDS
    ):
        t[k] = np.zeros(C.MAX_CARDS, np.int8)
    deck = []
    for c, cd in enumerate(lst):
        # read_named checks the unknown keys first (the effect's own below)
        name = read_named(ctx, cd, c, "card", CARD_KEYS, names)
        eff = _str(ctx, cd, "effect", C.EFFECT_NAMES)
        args = EFFECT_ARGS.get(eff, ())
        _unknown(ctx, cd, ("name", "family", "kind", "copies", "effect") + args)
        t["card_effect"][c] = C.EFFECT_NAMES.index(eff)
        t["card_kind"][c] = C.KIND_NAMES.index(_str(ctx, cd, "kind", C.KIND_NAMES))
        t["card_family"][c] = C.FAMILY_NAMES.index(_str(ctx, cd, "family", C.FAMILY_NAMES))
        n = _int(ctx, cd, "copies", lo=1, hi=10)
        t["card_copies"][c] = n
        for f in args:
            lo, hi, default = ARG_RANGES[(eff, f)]
            v = _int(ctx, cd, f, default, lo=lo, hi=hi)
            if f == "heal" and v == 0:
                ctx.err(f, "must be -1 (to full) or 1..50, got 0")
            t["card_" + f][c] = v
        if eff == "combat_buff" and t["card_atk"][c] == 0 and t["card_def"][c] == 0:
            ctx.err("atk", "a combat buff changes atk or def")
        if eff in ("combat_buff", "escape", "bodyguard") and t["card_kind"][c] != C.K_HAND:
            ctx.err("kind", "combat buffs and reactions must be hand cards")
        if eff in ("cache", "reshuffle", "well") and t["card_kind"][c] != C.K_IMMEDIATE:
            ctx.err("kind", f"effect '{eff}' is only implemented as an immediate card")
        if t["card_kind"][c] == C.K_IMMEDIATE and eff not in ("cache", "reshuffle", "well"):
            ctx.err("kind", f"effect '{eff}' needs a decision, so it must be a hand card")
        deck += [c] * n
        names.append(name)
    ctx.entry = None
    if len(deck) > C.DECK_MAX:
        ctx.err("copies", f"at most {C.DECK_MAX} cards in all, got {len(deck)}")
    t["n_cards"] = len(lst)
    t["deck_cards"] = np.full(C.DECK_MAX, -1, np.int8)
    t["deck_cards"][: len(deck)] = deck
    t["deck_size"] = len(deck)


#: the keys of a monster entry (a final boss has no gold)
MONSTER_KEYS = ("name",) + STAT_FIELDS + ("gold",)
#: every key a card entry may hold (each effect reads its own, EFFECT_ARGS)
CARD_KEYS = ("name", "family", "kind", "copies", "effect") + tuple(
    sorted({a for args in EFFECT_ARGS.values() for a in args})
)


def _stats(ctx, d, with_gold=True):
    allowed = ("name",) + STAT_FIELDS + (("gold",) if with_gold else ())
    _unknown(ctx, d, allowed)
    # SPD is compared with a hero's SPD (<= 14 + boots); 0..30 covers every contest
    st = [
        _int(ctx, d, k, lo=0 if k != "hp" else 1, hi=30 if k == "spd" else 200) for k in STAT_FIELDS
    ]
    g = _int(ctx, d, "gold", lo=0, hi=99) if with_gold else 0
    return st, g


def _monsters(raw, t, out):
    ctx = _Ctx("monsters")
    floors = _list(ctx, raw, "floor", C.NFLOOR)
    t["mob_stats"] = np.zeros((C.NMOB, 4), np.int16)
    t["mob_gold"] = np.zeros(C.NMOB, np.int16)
    t["boss_stats"] = np.zeros((C.NFLOOR, 4), np.int16)
    t["boss_gold"] = np.zeros(C.NFLOOR, np.int16)
    for f, fl in enumerate(floors):
        ctx.entry = f"floor {f + 1}"
        _unknown(ctx, fl, ("name", "mobs", "boss"))  # unknown keys first
        out["floor_names"].append(_str(ctx, fl, "name"))
        mobs = _list(ctx, fl, "mobs", C.MOBS_PER_FLOOR)
        for m, mob in enumerate(mobs):
            ctx.entry = f"floor {f + 1} mob #{m + 1}"
            _unknown(ctx, mob, MONSTER_KEYS)  # unknown keys first
            out["mob_names"].append(_str(ctx, mob, "name"))
            ctx.entry = f"floor {f + 1} mob '{mob['name']}'"
            st, g = _stats(ctx, mob)
            t["mob_stats"][f * 2 + m] = st
            t["mob_gold"][f * 2 + m] = g
        ctx.entry = f"floor {f + 1}"
        if f < C.NFLOOR - 1:
            boss = _table(ctx, fl, "boss")
            ctx.entry = f"floor {f + 1} boss"
            _unknown(ctx, boss, MONSTER_KEYS)
            out["boss_names"].append(_str(ctx, boss, "name"))
            st, g = _stats(ctx, boss)
            t["boss_stats"][f] = st
            t["boss_gold"][f] = g
        elif "boss" in fl:
            ctx.err("boss", "the last floor has the final boss instead")
    ctx.entry = None
    finals = _list(ctx, raw, "finals", C.NFINAL)
    t["final_stats"] = np.zeros((C.NFINAL, 4), np.int16)
    for k, fb in enumerate(finals):
        ctx.entry = f"final boss #{k + 1}"
        _unknown(ctx, fb, MONSTER_KEYS[:-1])  # (no gold)
        out["final_names"].append(_str(ctx, fb, "name"))
        st, _ = _stats(ctx, fb, with_gold=False)
        t["final_stats"][k] = st
    check_unique(ctx, out["floor_names"], "floor")
    check_unique(ctx, out["mob_names"] + out["boss_names"] + out["final_names"], "monster")


def _board(raw, t, out):
    ctx = _Ctx("board")
    floors = _list(ctx, raw, "floors", C.NFLOOR)
    t["sq_kind"] = np.zeros((C.NFLOOR, C.MAX_SQ), np.int8)
    t["floor_len"] = np.zeros(C.NFLOOR, np.int8)
    t["boss_sq"] = np.full(C.NFLOOR, -1, np.int8)
    for f, s in enumerate(floors):
        ctx.entry = f"floor {f + 1}"
        if not isinstance(s, str) or not 8 <= len(s) <= C.MAX_SQ:
            ctx.err("floors", f"a floor is a string of 8..{C.MAX_SQ} squares")
        for i, ch in enumerate(s):
            if ch not in C.SQ_CHARS:
                ctx.err("floors", f"unknown square {ch!r} at {i} (known: {C.SQ_CHARS})")
            t["sq_kind"][f, i] = C.SQ_CHARS.index(ch)
        last = C.SQ_LAIR if f == C.NFLOOR - 1 else C.SQ_STAIRS
        if s[0] != "S" or s.count("S") != 1:
            ctx.err("floors", "a floor starts with its one start square 'S'")
        if s[-1] != C.SQ_CHARS[last] or s.count(C.SQ_CHARS[last]) != 1:
            ctx.err("floors", f"a floor ends with its one '{C.SQ_CHARS[last]}' square")
        if s.count("$") != 1 or s.count("A") != 1:
            ctx.err("floors", "a floor has exactly one shop '$' and one armory 'A'")
        nb = s.count("B")
        if (f < C.NFLOOR - 1 and nb != 1) or (f == C.NFLOOR - 1 and nb != 0):
            ctx.err("floors", "floors 1-2 have one mid-floor boss 'B', the last none")
        if "X" in s[:-1] or ">" in s[:-1]:
            ctx.err("floors", "stairs / lair only as the last square")
        t["floor_len"][f] = len(s)
        if nb:
            t["boss_sq"][f] = s.index("B")
        out["layouts"].append(s)
    ctx.entry = "economy"
    eco = _table(ctx, raw, "economy")
    _unknown(
        ctx,
        eco,
        ("start_gold", "gold_cap", "card_price", "item_price", "chest_gold", "respawn_rounds"),
    )
    t["gold_cap"] = _int(ctx, eco, "gold_cap", lo=1, hi=999)
    t["start_gold"] = _int(ctx, eco, "start_gold", lo=0, hi=t["gold_cap"])
    t["card_price"] = _int(ctx, eco, "card_price", lo=0, hi=99)
    t["respawn_rounds"] = _int(ctx, eco, "respawn_rounds", lo=1, hi=100)
    ip = _list(ctx, eco, "item_price", C.NTIER)
    cg = _list(ctx, eco, "chest_gold", C.NFLOOR)
    for v in ip + cg:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= int(t["gold_cap"]):
            ctx.err("item_price/chest_gold", f"entries must be integers 0..99, got {v!r}")
    t["item_price"] = np.array(ip, np.int16)
    t["chest_gold"] = np.array(cg, np.int16)


def compile_content(raw):
    """The tables of the files ``raw`` and the name lists of the content,
    by :class:`CrawlerContent` field."""
    t: dict[str, Any] = {}  # table name -> array (or int for a size)
    names: dict[str, list[str]] = {"item_names": [], "card_names": []}
    out: dict[str, list[str]] = {
        k: [] for k in ("mob_names", "boss_names", "final_names", "floor_names", "layouts")
    }
    _items(raw["items"], t, names["item_names"])
    _cards(raw["cards"], t, names["card_names"])
    _monsters(raw["monsters"], t, out)
    _board(raw["board"], t, out)
    return Tables(**t), names | out


def _compile_folder(folder) -> CrawlerContent:
    tables, out = compile_content(read_files(folder, FILES, TOP_KEYS))
    return CrawlerContent.compiled(tables, folder, **{k: tuple(v) for k, v in out.items()})


#: ``load_content(folder=None)``: the content of ``folder`` (default: the
#: shipped data), compiled once per digest of its files' bytes
load_content = ContentCache(FILES).loader(DATA_DIR, _compile_folder)
