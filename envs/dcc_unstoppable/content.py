"""Compile the Dungeon Crawler Carl: Unstoppable content (``data/*.toml``)
into ONE numpy structured record ``T`` (kernels get ``record[0]``).

``load_content(folder=None)`` validates every field against the counts of
the box (122 core sides, 93 threat sides, 17 bosses, 17 quest cards in quests
of 2-4 parts, 36 upgrades, 8 races, 8 classes, 6 danger tracks) and the
constraints of the inventory's "must be designed" section (D-01..D-10). Any
problem raises :class:`~dungeonrl.envs.core.errors.ContentError` naming the
file, the card and the field. The effect vocabulary is documented in
``envs/dcc_unstoppable/README.md``.

Id spaces (fixed, see ``consts``): core sides 0..99 are the levelled cores
(by level, file order), 100..115 the common starting cores (Carl's 8 then
Donut's 8), 116..121 the character cards (Carl's 3 then Donut's 3). Threat
sides 0..21 are the starting threats (Carl's 11 then Donut's 11), 22..75 the
threats, 76..92 the bosses. A sleeve is named by its threat side, so sleeve
ids equal threat ids; 93 and 94 are the two stairs cards.
"""

from __future__ import annotations

import os
from collections import namedtuple
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.authoring.content import (
    CompiledContent,
    Ctx,
    check_fields,
    check_folder,
    read_files,
    read_int,
    read_str,
    tables_record,
)
from ..core.errors import ContentError
from . import consts as C

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
FILES = ("cores", "threats", "bosses", "quests", "upgrades", "crawlers", "floors")

GROUPS = ("carl", "donut", "floor1", "floor2", "floor3", "extra", "boss")
G_CARL, G_DONUT, G_FLOOR1, G_FLOOR2, G_FLOOR3, G_EXTRA, G_BOSS = range(7)
CK_LEVELLED, CK_STARTING, CK_CHARACTER = 0, 1, 2
SIMPLE_OPS = ("gold", "ap", "health", "mana", "train")  # bonus / flip / setup

#: the cores' int8 tables of one value per core side (``c_nexh``, listed
#: after the op tables ``c_play`` and ``c_exh``, is one too)
CORE_INT8 = ("c_level", "c_cost", "c_stat", "c_type", "c_crawler", "c_kind", "c_tough", "c_strike")
TABLE_FIELDS = (
    *CORE_INT8,
    "c_play",
    "c_exh",
    "c_nexh",
    "t_atk",
    "t_def",
    "t_datk",
    "t_ddef",
    "t_kw",
    "t_bonus",
    "t_group",
    "t_boss_kind",
    "t_xp",
    "start_core",
    "start_threat",
    "q_quest",
    "q_part",
    "q_req",
    "q_n",
    "q_boss",
    "q_active",
    "q_xp",
    "quest_first",
    "quest_nparts",
    "n_quests",
    "u_cutout",
    "u_cost",
    "u_req",
    "u_dstat",
    "u_disc",
    "u_ops",
    "u_ap",
    "u_tough",
    "u_atk",
    "u_def",
    "u_kw",
    "r_gold",
    "r_health",
    "r_mana",
    "r_setup",
    "k_mod",
    "k_n",
    "cr_race",
    "cr_class",
    "tr_len",
    "tr_level",
    "tr_border",
    "tr_effect",
    "tr_trig",
    "tr_need",
    "ach_kind",
    "ach_n",
    "ach_xp",
    "be_kind",
    "be_n",
    "be_xp",
    "be_circles",
    "n_benefits",
)
#: tables derived from the ones above by the encoder (``feature_tables``):
#: each core's and each upgrade's fixed observation features and the danger
#: blocks of every (floor, mode, difficulty, marker space), float32, so a
#: card slot or the danger blocks of the observation are one row copy. Left out of ``digest``
#: (a function of the tables above and of the encoder's source, which the
#: rules digest covers).
DERIVED_FIELDS = ("c_feat", "u_feat", "tr_feat")
if TYPE_CHECKING:
    # mypy reads only literal field lists, and these are built from the names
    # above: to it a table set is Any (its numpy arrays are read by name)
    Tables = Any
    _BaseTables = Any
else:
    Tables = namedtuple("Tables", TABLE_FIELDS + DERIVED_FIELDS)
    _BaseTables = namedtuple("_BaseTables", TABLE_FIELDS)


@dataclass
class DCCContent(CompiledContent):
    core_names: tuple
    threat_names: tuple
    quest_names: tuple  # per quest card: "quest: part name"
    quest_titles: tuple  # per quest
    upgrade_names: tuple
    race_names: tuple
    class_names: tuple
    crawler_names: tuple
    achievement_names: tuple  # per floor, per slot: flat list floor-major
    benefit_names: tuple


def _bool(ctx, d, key):
    v = d.get(key, False)
    if not isinstance(v, bool):
        ctx.err(key, f"must be true or false, got {v!r}")
    return int(v)


def _kw(ctx, d, key="kw"):
    v = d.get(key, [])
    if not isinstance(v, list):
        ctx.err(key, "must be a list of keyword names")
    bits = 0
    for k in v:
        if k not in C.KEYWORD_NAMES:
            ctx.err(key, f"unknown keyword {k!r} (known: {', '.join(C.KEYWORD_NAMES)})")
        bits |= C.KEYWORD_BITS[C.KEYWORD_NAMES.index(k)]
    return bits


#: the keys of an op table
OP_KEYS = frozenset({"op", "n", "scale", "stat", "if", "min", "spell", "who"})


def _ops(ctx, lst, field, cap, simple=False):
    """Compile a list of op tables into a (cap, OPW) int16 array."""
    out = np.zeros((cap, C.OPW), np.int16)
    if lst is None:
        return out, 0
    if not isinstance(lst, list):
        ctx.err(field, "must be a list of op tables")
    if len(lst) > cap:
        ctx.err(field, f"at most {cap} ops, found {len(lst)}")
    for i, op in enumerate(lst):
        f = f"{field}[{i}]"
        if not isinstance(op, dict):
            ctx.err(f, f"must be an op table ({{ op = ... }}), got {type(op).__name__}")
        # an unknown key first: a misspelled 'op' is named as it was written
        for k in op:
            if k not in OP_KEYS:
                ctx.err(f"{f}.{k}", f"unknown key (allowed: {sorted(OP_KEYS)})")
        if "op" not in op:
            ctx.err(f + ".op", "is required (the op's name)")
        name = op["op"]
        if name not in C.OP_NAMES or name == "none":
            ctx.err(f + ".op", f"unknown op {name!r} (known: {', '.join(C.OP_NAMES[1:])})")
        if simple and name not in SIMPLE_OPS:
            ctx.err(f + ".op", f"only {', '.join(SIMPLE_OPS)} are allowed here (no decisions)")
        code = C.OP_NAMES.index(name)
        needs_n = code in (C.OP_DAMAGE, C.OP_GOLD, C.OP_AP, C.OP_HEALTH, C.OP_MANA)
        n = read_int(ctx, op, "n", default=None if needs_n else 1, lo=1, hi=20)
        scale = C.SCALE_NAMES.index(read_str(ctx, op, "scale", C.SCALE_NAMES, "none"))
        cond = C.COND_NAMES.index(read_str(ctx, op, "if", C.COND_NAMES, "none"))
        spell = read_int(ctx, op, "spell", default=0, lo=0, hi=C.MANA_CAP)
        if spell and cond != C.CD_NONE:
            ctx.err(f + ".spell", "an op has one condition: 'spell' or 'if', not both")
        if spell:
            cond = C.CD_SPELL
        arg = spell
        if cond in (C.CD_LEVEL, C.CD_FOCUS, C.CD_UNITE):
            arg = read_int(ctx, op, "min", lo=1, hi=10)
        elif "min" in op:
            ctx.err(f + ".min", "only used with if = level | focus | unite")
        stat = -1
        if scale == C.SC_FOCUS or cond == C.CD_FOCUS:
            stat = C.STAT_NAMES.index(read_str(ctx, op, "stat", C.STAT_NAMES))
        elif "stat" in op:
            ctx.err(f + ".stat", "only used with focus")
        if simple and (scale or cond):
            ctx.err(f, "bonus, flip and setup ops take no scale or condition")
        who = C.WHO_NAMES.index(read_str(ctx, op, "who", C.WHO_NAMES, "self"))
        if who != C.WHO_SELF and code not in (C.OP_HEALTH, C.OP_MANA, C.OP_GOLD):
            ctx.err(f + ".who", "only gold, health and mana may choose a player")
        out[i] = (code, n, scale, cond, arg, stat, who)
    return out, len(lst)


def _expand(ctx, entries, field, keys):
    """Each entry ``count`` times; an entry's keys are checked first (a
    misspelled ``count`` is named, not just seen in the total)."""
    if not isinstance(entries, list) or not entries:
        ctx.err(field, f"needs a non-empty list '{field} = [...]'")
    out = []
    for i, e in enumerate(entries):
        _table_entry(ctx, e, i, field)
        check_fields(ctx, e, keys)
        n = read_int(ctx, e, "count", default=1, lo=1, hi=10)
        out += [e] * n
    ctx.card = None
    return out


def _sort_level(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _table_entry(ctx, e, i, field):
    """Name entry ``i`` of list ``field`` for the errors; it must be a table."""
    if not isinstance(e, dict):
        ctx.card = f"#{i}"
        ctx.err(field, f"entries must be tables, got {type(e).__name__} {e!r}")
    ctx.card = e.get("name", f"#{i}")


class _Compiler:
    def __init__(self, folder):
        self.folder = folder
        self.raw = read_files(folder, FILES)

    def compile(self):
        t: dict[str, Any] = {}  # table name -> numpy array (or a size)
        names: dict[str, tuple[str, ...]] = {}
        self._cores(t, names)
        self._threats(t, names)
        self._starting(t)
        self._quests(t, names)
        self._upgrades(t, names)
        self._crawlers(t, names)
        self._floors(t, names)
        return _BaseTables(**t), names

    # -- cores -----------------------------------------------------------------
    def _cores(self, t, names):
        ctx = Ctx("cores")
        raw = self.raw["cores"]
        check_fields(ctx, raw, {"starting", "characters", "levelled"})
        keys = {
            "name",
            "level",
            "cost",
            "stat",
            "type",
            "count",
            "crawler",
            "play",
            "exhaust",
            "tough",
        }
        lev = _expand(ctx, raw.get("levelled"), "levelled", keys)
        # sort key only: a level that is not an int is refused by read_int below
        lev = sorted(enumerate(lev), key=lambda ie: (_sort_level(ie[1].get("level")), ie[0]))
        lev = [e for _, e in lev]
        start = _expand(ctx, raw.get("starting"), "starting", keys)
        chars = _expand(ctx, raw.get("characters"), "characters", keys)
        if len(lev) != C.NCORE_LEVELED:
            ctx.err(
                "levelled", f"needs {C.NCORE_LEVELED} cards (counts included), found {len(lev)}"
            )
        if len(start) != 16:
            ctx.err("starting", f"needs 16 cards (8 per crawler), found {len(start)}")
        if len(chars) != 6:
            ctx.err("characters", f"needs 6 cards (3 per crawler), found {len(chars)}")
        order = (
            [(e, CK_LEVELLED) for e in lev]
            + [(e, CK_STARTING) for e in start if e.get("crawler") == "carl"]
            + [(e, CK_STARTING) for e in start if e.get("crawler") != "carl"]
            + [(e, CK_CHARACTER) for e in chars if e.get("crawler") == "carl"]
            + [(e, CK_CHARACTER) for e in chars if e.get("crawler") != "carl"]
        )
        n = C.NCORE
        for k in (*CORE_INT8, "c_nexh"):
            t[k] = np.zeros(n, np.int8)
        t["c_play"] = np.zeros((n, C.CARD_OPS, C.OPW), np.int16)
        t["c_exh"] = np.zeros((n, C.NEXH, C.CARD_OPS, C.OPW), np.int16)
        cname = []
        per_level = np.zeros(7, int)
        for i, (e, kind) in enumerate(order):
            ctx.card = e.get("name", f"#{i}")
            check_fields(ctx, e, keys)
            name = read_str(ctx, e, "name")
            if kind == CK_LEVELLED:
                lv = read_int(ctx, e, "level", lo=1, hi=6)
                if "crawler" in e:
                    ctx.err("crawler", "only starting and character cards belong to a crawler")
                cr = -1
            else:
                lv = read_int(ctx, e, "level", default=0, lo=0, hi=0)
                cr = ("carl", "donut").index(read_str(ctx, e, "crawler", ("carl", "donut")))
            per_level[lv] += 1
            typ = C.SUBTYPE_NAMES.index(read_str(ctx, e, "type", C.SUBTYPE_NAMES))
            play, npl = _ops(ctx, e.get("play"), "play", C.CARD_OPS)
            exh = e.get("exhaust")
            nexh = 0
            if exh is not None:
                if typ != C.ALLY:
                    ctx.err("exhaust", "only allies have exhaust abilities")
                if not isinstance(exh, list) or not 1 <= len(exh) <= C.NEXH:
                    ctx.err("exhaust", f"must be a list of 1..{C.NEXH} op lists")
                for j, ab in enumerate(exh):
                    t["c_exh"][i, j], k2 = _ops(ctx, ab, f"exhaust[{j}]", C.CARD_OPS)
                    if k2 == 0:
                        ctx.err(f"exhaust[{j}]", "an exhaust ability needs at least one op")
                nexh = len(exh)
            if typ == C.ALLY and nexh == 0:
                ctx.err("exhaust", "an ally needs at least one exhaust ability")
            if typ == C.TACTIC and npl == 0:
                ctx.err("play", "a tactic needs at least one op")
            tough = _bool(ctx, e, "tough")
            if tough and typ != C.ALLY:
                ctx.err("tough", "Tough is an ally keyword")
            t["c_level"][i] = lv
            t["c_cost"][i] = read_int(ctx, e, "cost", lo=0, hi=C.AP_CAP)
            t["c_stat"][i] = C.STAT_NAMES.index(read_str(ctx, e, "stat", C.STAT_NAMES))
            t["c_type"][i] = typ
            t["c_crawler"][i] = cr
            t["c_kind"][i] = kind
            t["c_tough"][i] = tough
            t["c_strike"][i] = int(kind == CK_STARTING and name == "Strike")
            t["c_play"][i] = play
            t["c_nexh"][i] = nexh
            cname.append(name)
        ctx.card = None
        # D-01: every core deck must feed a 2-player draft from one level (4 cards)
        for lv in range(1, 7):
            if per_level[lv] < 2 * C.DRAFT_DUO:
                ctx.err(
                    "levelled",
                    f"level {lv} has {per_level[lv]} cards; at least "
                    f"{2 * C.DRAFT_DUO} are needed for the draft",
                )
            if per_level[lv] > C.CDECK_CAP:
                ctx.err("levelled", f"level {lv} has {per_level[lv]} cards (at most {C.CDECK_CAP})")
        for cr in range(2):
            s = sum(
                1
                for (e, k) in order
                if k == CK_STARTING and (e.get("crawler") == "carl") == (cr == 0)
            )
            c = sum(
                1
                for (e, k) in order
                if k == CK_CHARACTER and (e.get("crawler") == "carl") == (cr == 0)
            )
            if s != 8 or c != 3:
                ctx.err(
                    "crawler",
                    f"each crawler needs 8 starting and 3 character cards "
                    f"({('carl', 'donut')[cr]}: {s} and {c})",
                )
        strikes = [int(t["c_strike"][100 + 8 * cr : 108 + 8 * cr].sum()) for cr in range(2)]
        if strikes != [6, 6]:
            ctx.err("starting", f"each crawler needs 6 Strike cards, found {strikes}")
        names["core"] = tuple(cname)

    # -- threats and bosses ------------------------------------------------------
    def _threats(self, t, names):
        ctx = Ctx("threats")
        raw = self.raw["threats"]
        check_fields(ctx, raw, {"starting", "threats"})
        base = {"name", "atk", "def", "datk", "ddef", "kw", "count"}
        start = _expand(ctx, raw.get("starting"), "starting", base | {"group", "bonus"})
        thr = _expand(ctx, raw.get("threats"), "threats", base | {"group", "bonus"})
        bctx = Ctx("bosses")
        braw = self.raw["bosses"]
        check_fields(bctx, braw, {"bosses"})
        boss = _expand(bctx, braw.get("bosses"), "bosses", base | {"kind", "xp", "flip"})
        if len(start) != C.NSTART_THREAT:
            ctx.err("starting", f"needs {C.NSTART_THREAT} threats, found {len(start)}")
        if len(thr) != C.NFLOOR_THREAT:
            ctx.err("threats", f"needs {C.NFLOOR_THREAT} threats, found {len(thr)}")
        if len(boss) != C.NBOSS:
            bctx.err("bosses", f"needs {C.NBOSS} bosses, found {len(boss)}")
        start = [e for e in start if e.get("group") == "carl"] + [
            e for e in start if e.get("group") != "carl"
        ]
        n = C.NTHREAT
        for k in ("t_atk", "t_def", "t_datk", "t_ddef", "t_kw", "t_group", "t_boss_kind", "t_xp"):
            t[k] = np.zeros(n, np.int8)
        t["t_boss_kind"][:] = -1
        t["t_bonus"] = np.zeros((n, C.BONUS_OPS, C.OPW), np.int16)
        tname = []
        rows = (
            [(e, ctx, "start") for e in start]
            + [(e, ctx, "threat") for e in thr]
            + [(e, bctx, "boss") for e in boss]
        )
        for i, (e, cx, kind) in enumerate(rows):
            cx.card = e.get("name", f"#{i}")
            if kind == "boss":
                check_fields(cx, e, base | {"kind", "xp", "flip"})
                t["t_group"][i] = G_BOSS
                t["t_boss_kind"][i] = C.BOSS_KIND_NAMES.index(
                    read_str(cx, e, "kind", C.BOSS_KIND_NAMES)
                )
                t["t_xp"][i] = read_int(cx, e, "xp", lo=0, hi=20)
                t["t_bonus"][i], nf = _ops(cx, e.get("flip"), "flip", C.BONUS_OPS, simple=True)
                if nf == 0:
                    cx.err("flip", "a boss needs a flip side (at least one op)")
            else:
                check_fields(cx, e, base | {"group", "bonus"})
                allowed = (
                    ("carl", "donut")
                    if kind == "start"
                    else ("floor1", "floor2", "floor3", "extra")
                )
                t["t_group"][i] = GROUPS.index(read_str(cx, e, "group", allowed))
                t["t_bonus"][i], _ = _ops(cx, e.get("bonus"), "bonus", C.BONUS_OPS, simple=True)
            t["t_atk"][i] = read_int(cx, e, "atk", lo=0, hi=9)
            t["t_def"][i] = read_int(cx, e, "def", lo=0, hi=12)
            t["t_datk"][i] = _bool(cx, e, "datk")
            t["t_ddef"][i] = _bool(cx, e, "ddef")
            kw = _kw(cx, e)
            if kind == "start" and kw & C.KW_LOOMING:
                cx.err("kw", "starting threats may not be Looming (D-04)")
            if kind != "boss" and kw & C.KW_LOOMING:
                cx.err("kw", "only bosses are Looming in this content")
            t["t_kw"][i] = kw
            if (
                int(t["t_atk"][i]) + int(t["t_def"][i]) + int(t["t_datk"][i]) + int(t["t_ddef"][i])
                < 1
            ):
                cx.err("atk", "a threat needs a health of at least 1")
            tname.append(read_str(cx, e, "name"))
            cx.card = None
        for g, cr in ((G_CARL, "carl"), (G_DONUT, "donut")):
            idx = [i for i in range(C.NSTART_THREAT) if t["t_group"][i] == g]
            if len(idx) != 11:
                ctx.err("starting", f"{cr} needs 11 starting threats, found {len(idx)}")
            fast = sum(1 for i in idx if t["t_kw"][i] & C.KW_FAST)
            if fast > 4:  # D-04: setup must reach 3 non-Fast plus an on-deck card
                ctx.err("starting", f"{cr} has {fast} Fast starting threats (at most 4)")
        for g in (G_FLOOR1, G_FLOOR2, G_FLOOR3, G_EXTRA):
            if not (t["t_group"] == g).any():
                ctx.err("threats", f"group {GROUPS[g]} is empty")
        for bk, need in (
            (C.BK_NEIGHBORHOOD, 2),
            (C.BK_BOROUGH, 1),
            (C.BK_FLOOR2, 3),
            (C.BK_QUEST, 1),
        ):
            if (t["t_boss_kind"] == bk).sum() < need:
                bctx.err("bosses", f"needs at least {need} {C.BOSS_KIND_NAMES[bk]} bosses")
        names["threat"] = tuple(tname)

    def _starting(self, t):
        # starting deck of each crawler: its 8 common cores + 3 characters and
        # its 11 starting threats (paired at random at setup)
        sc = np.zeros((2, 11), np.int16)
        st = np.zeros((2, 11), np.int16)
        for cr in range(2):
            sc[cr, :8] = np.arange(100 + 8 * cr, 108 + 8 * cr)
            sc[cr, 8:] = np.arange(116 + 3 * cr, 119 + 3 * cr)
            st[cr] = np.arange(11 * cr, 11 * cr + 11)
        t["start_core"] = sc
        t["start_threat"] = st

    # -- quests -------------------------------------------------------------------
    def _quests(self, t, names):
        ctx = Ctx("quests")
        raw = self.raw["quests"]
        check_fields(ctx, raw, {"quests"})
        qs = raw.get("quests")
        if not isinstance(qs, list) or len(qs) != C.NQUEST_CARD:
            ctx.err(
                "quests",
                f"needs {C.NQUEST_CARD} quest cards, found "
                f"{len(qs) if isinstance(qs, list) else 0}",
            )
        n = C.NQUEST_CARD
        for k in ("q_quest", "q_part", "q_req", "q_n", "q_boss", "q_active", "q_xp"):
            t[k] = np.zeros(n, np.int8)
        titles = []
        qnames = []
        bosses = names["threat"]
        for i, e in enumerate(qs):
            ctx.card = e.get("name", f"#{i}") if isinstance(e, dict) else f"#{i}"
            if not isinstance(e, dict):
                ctx.err("quests", "entries must be tables")
            check_fields(ctx, e, {"quest", "part", "name", "req", "n", "boss", "active", "xp"})
            title = read_str(ctx, e, "quest")
            if title not in titles:
                titles.append(title)
            q = titles.index(title)
            part = read_int(ctx, e, "part", lo=1, hi=C.MAX_QUEST_PARTS)
            if part != int((t["q_quest"][:i] == q).sum()) + 1:
                ctx.err("part", f"parts of '{title}' must be listed in order 1, 2, ...")
            req = C.QREQ_NAMES.index(read_str(ctx, e, "req", C.QREQ_NAMES))
            boss = -1
            if req == C.QR_BOSS:
                bn = read_str(ctx, e, "boss")
                cand = [j for j in range(C.NTHREAT - C.NBOSS, C.NTHREAT) if bosses[j] == bn]
                if not cand or t["t_boss_kind"][cand[0]] != C.BK_QUEST:
                    ctx.err("boss", f"{bn!r} is not a quest boss of bosses.toml")
                boss = cand[0] - (C.NTHREAT - C.NBOSS)
                nn = 1
            else:
                if "boss" in e:
                    ctx.err("boss", "only a boss part names a boss")
                nn = read_int(ctx, e, "n", lo=1, hi=30)
            t["q_quest"][i] = q
            t["q_part"][i] = part - 1
            t["q_req"][i] = req
            t["q_n"][i] = nn
            t["q_boss"][i] = boss
            t["q_active"][i] = C.QACTIVE_NAMES.index(
                read_str(ctx, e, "active", C.QACTIVE_NAMES, "none")
            )
            t["q_xp"][i] = read_int(ctx, e, "xp", default=0, lo=0, hi=20)
            qnames.append(f"{title}: {read_str(ctx, e, 'name')}")
        ctx.card = None
        if len(titles) > C.MAX_QUESTS:
            ctx.err("quests", f"at most {C.MAX_QUESTS} quests, found {len(titles)}")
        first = np.zeros(C.MAX_QUESTS, np.int8)
        npart = np.zeros(C.MAX_QUESTS, np.int8)
        for q, title in enumerate(titles):
            idx = [i for i in range(n) if t["q_quest"][i] == q]
            ctx.card = title
            if idx != list(range(idx[0], idx[0] + len(idx))):
                ctx.err("quest", "the parts of one quest must be listed together")
            if not 2 <= len(idx) <= 4:
                ctx.err("part", f"a quest has 2 to 4 parts, found {len(idx)}")
            if t["q_xp"][idx[-1]] == 0:
                ctx.err("xp", "the last part gives the quest's XP (xp >= 1)")
            first[q], npart[q] = idx[0], len(idx)
        ctx.card = None
        t["quest_first"], t["quest_nparts"], t["n_quests"] = first, npart, len(titles)
        names["quest"] = tuple(qnames)
        names["quest_title"] = tuple(titles)

    # -- upgrades -------------------------------------------------------------------
    def _upgrades(self, t, names):
        ctx = Ctx("upgrades")
        raw = self.raw["upgrades"]
        check_fields(ctx, raw, {"upgrades"})
        ukeys = {
            "name",
            "cutout",
            "cost",
            "req",
            "discount_stat",
            "discount",
            "count",
            "ops",
            "ap",
            "tough",
            "atk",
            "def",
            "kw",
        }
        ups = _expand(ctx, raw.get("upgrades"), "upgrades", ukeys)
        if len(ups) != C.NUPGRADE:
            ctx.err("upgrades", f"needs {C.NUPGRADE} upgrades, found {len(ups)}")
        n = C.NUPGRADE
        for k in (
            "u_cutout",
            "u_cost",
            "u_req",
            "u_dstat",
            "u_disc",
            "u_ap",
            "u_tough",
            "u_atk",
            "u_def",
            "u_kw",
        ):
            t[k] = np.zeros(n, np.int8)
        t["u_ops"] = np.zeros((n, C.UPG_OPS, C.OPW), np.int16)
        un = []
        for i, e in enumerate(ups):
            ctx.card = e.get("name", f"#{i}")
            check_fields(ctx, e, ukeys)
            t["u_cutout"][i] = ("top", "bottom").index(
                read_str(ctx, e, "cutout", ("top", "bottom"))
            )
            t["u_cost"][i] = read_int(ctx, e, "cost", lo=0, hi=20)
            t["u_req"][i] = ("any", "tactic", "ally").index(
                read_str(ctx, e, "req", ("any", "tactic", "ally"), "any")
            )
            if "discount_stat" in e:
                t["u_dstat"][i] = C.STAT_NAMES.index(
                    read_str(ctx, e, "discount_stat", C.STAT_NAMES)
                )
                t["u_disc"][i] = read_int(ctx, e, "discount", lo=1, hi=int(t["u_cost"][i]))
            else:
                t["u_dstat"][i] = -1
                if "discount" in e:
                    ctx.err("discount", "needs discount_stat")
            t["u_ops"][i], _ = _ops(ctx, e.get("ops"), "ops", C.UPG_OPS)
            t["u_ap"][i] = read_int(ctx, e, "ap", default=0, lo=-2, hi=2)
            t["u_tough"][i] = _bool(ctx, e, "tough")
            if t["u_tough"][i] and t["u_req"][i] != 2:
                ctx.err("tough", "an upgrade granting Tough needs req = ally")
            t["u_atk"][i] = read_int(ctx, e, "atk", default=0, lo=0, hi=5)
            t["u_def"][i] = read_int(ctx, e, "def", default=0, lo=0, hi=5)
            t["u_kw"][i] = _kw(ctx, e)
            if t["u_kw"][i] & C.KW_LOOMING:
                ctx.err("kw", "an upgrade cannot make a threat Looming")
            un.append(read_str(ctx, e, "name"))
        ctx.card = None
        for cut in (0, 1):
            if not (t["u_cutout"] == cut).any():
                ctx.err("upgrades", "both cutouts (top and bottom) must exist")
        names["upgrade"] = tuple(un)

    # -- crawlers, races, classes ---------------------------------------------------
    def _crawlers(self, t, names):
        ctx = Ctx("crawlers")
        raw = self.raw["crawlers"]
        check_fields(ctx, raw, {"crawlers", "races", "classes"})
        races = raw.get("races")
        classes = raw.get("classes")
        crawlers = raw.get("crawlers")
        for key, lst, n in (
            ("races", races, C.NRACE),
            ("classes", classes, C.NCLASS),
            ("crawlers", crawlers, C.NCRAWLER),
        ):
            if not isinstance(lst, list) or len(lst) != n:
                ctx.err(key, f"needs {n} entries")
        t["r_gold"] = np.zeros(C.NRACE, np.int8)
        t["r_health"] = np.zeros(C.NRACE, np.int8)
        t["r_mana"] = np.zeros(C.NRACE, np.int8)
        t["r_setup"] = np.zeros((C.NRACE, 2, C.OPW), np.int16)
        rn = []
        for i, e in enumerate(races):
            _table_entry(ctx, e, i, "races")
            check_fields(ctx, e, {"name", "gold", "health", "mana", "setup"})
            rn.append(read_str(ctx, e, "name"))
            t["r_gold"][i] = read_int(ctx, e, "gold", lo=0, hi=20)
            t["r_health"][i] = read_int(ctx, e, "health", lo=1, hi=C.HEALTH_CAP)
            t["r_mana"][i] = read_int(ctx, e, "mana", lo=0, hi=C.MANA_CAP)
            t["r_setup"][i], _ = _ops(ctx, e.get("setup"), "setup", 2, simple=True)
        t["k_mod"] = np.zeros((C.NCLASS, C.MAX_CABIL), np.int8)
        t["k_n"] = np.zeros((C.NCLASS, C.MAX_CABIL), np.int8)
        kn = []
        for i, e in enumerate(classes):
            _table_entry(ctx, e, i, "classes")
            check_fields(ctx, e, {"name", "abilities"})
            kn.append(read_str(ctx, e, "name"))
            ab = e.get("abilities")
            if not isinstance(ab, list) or not 1 <= len(ab) <= C.MAX_CABIL:
                ctx.err("abilities", f"needs 1..{C.MAX_CABIL} abilities")
            for j, a in enumerate(ab):
                if not isinstance(a, dict):
                    ctx.err(f"abilities[{j}]", "must be a table")
                check_fields(ctx, a, {"mod", "n"})
                m = read_str(ctx, a, "mod", C.CMOD_NAMES[1:])
                t["k_mod"][i, j] = C.CMOD_NAMES.index(m)
                t["k_n"][i, j] = read_int(ctx, a, "n", default=1, lo=1, hi=5)
        t["cr_race"] = np.zeros(C.NCRAWLER, np.int8)
        t["cr_class"] = np.zeros(C.NCRAWLER, np.int8)
        cn = []
        for i, e in enumerate(crawlers):
            _table_entry(ctx, e, i, "crawlers")
            check_fields(ctx, e, {"name", "preset_race", "preset_class"})
            cn.append(read_str(ctx, e, "name"))
            t["cr_race"][i] = rn.index(read_str(ctx, e, "preset_race", rn))
            t["cr_class"][i] = kn.index(read_str(ctx, e, "preset_class", kn))
        ctx.card = None
        names["race"], names["class"], names["crawler"] = tuple(rn), tuple(kn), tuple(cn)

    # -- floors ------------------------------------------------------------------------
    def _floors(self, t, names):
        ctx = Ctx("floors")
        raw = self.raw["floors"]
        check_fields(ctx, raw, {"track", "achievements", "benefits"})
        tracks = raw.get("track")
        if not isinstance(tracks, list):
            ctx.err("track", "needs [[track]] tables")
        F, M = C.NFLOOR, 2
        t["tr_len"] = np.zeros((F, M), np.int8)
        t["tr_level"] = np.zeros((F, M, C.TRACK_MAX), np.int8)
        t["tr_border"] = np.zeros((F, M, C.TRACK_MAX), np.int8)
        t["tr_effect"] = np.zeros((F, M, C.TRACK_MAX), np.int8)
        t["tr_trig"] = np.zeros((F, M, C.MAX_TRIG, 3), np.int8)
        t["tr_need"] = np.zeros((F, M, C.NBK + 1), np.int8)
        seen = set()
        for e in tracks:
            if not isinstance(e, dict):
                ctx.err("track", "entries must be tables")
            ctx.card = f"track floor {e.get('floor', '?')} {e.get('mode', '?')}"
            check_fields(ctx, e, {"floor", "mode", "spaces", "triggers", "need"})
            f = read_int(ctx, e, "floor", lo=1, hi=F) - 1
            m = C.MODES.index(read_str(ctx, e, "mode", C.MODES))
            if (f, m) in seen:
                ctx.err("floor", "duplicate track")
            seen.add((f, m))
            toks = read_str(ctx, e, "spaces").split()
            if not 2 <= len(toks) <= C.TRACK_MAX - 1:
                ctx.err("spaces", f"needs 2..{C.TRACK_MAX - 1} spaces, found {len(toks)}")
            prev = 0
            for s, tok in enumerate(toks):
                if not tok[0].isdigit() or int(tok[0]) > 5:
                    ctx.err("spaces", f"space {s} ({tok!r}) must start with a danger level 0-5")
                lv = int(tok[0])
                if lv < prev:
                    ctx.err("spaces", f"space {s}: danger levels never decrease")
                if s == 0 and (lv != 0 or len(tok) > 1):
                    ctx.err("spaces", "the start space is plain level 0")
                prev = lv
                border, eff = 0, 0
                for ch in tok[1:]:
                    if ch in "gyr" and border == 0:
                        border = C.BORDER_CHARS.index(ch)
                    elif ch in "$m" and eff == 0:
                        eff = C.SPACE_EFFECT_CHARS.index(ch)
                    else:
                        ctx.err("spaces", f"space {s} ({tok!r}): unknown or repeated mark {ch!r}")
                t["tr_level"][f, m, s] = lv
                t["tr_border"][f, m, s] = border
                t["tr_effect"][f, m, s] = eff
            sk = len(toks)
            t["tr_level"][f, m, sk] = 5
            t["tr_len"][f, m] = sk + 1
            cnt = [sum(1 for s in range(sk) if t["tr_border"][f, m, s] == b) for b in (1, 2, 3)]
            if not cnt[0] < cnt[1] < cnt[2]:  # D-10 guidance: harder = faster
                ctx.err("spaces", f"needs fewer green than yellow than red spaces, found {cnt}")
            trig = e.get("triggers", [])
            if not isinstance(trig, list) or len(trig) > C.MAX_TRIG:
                ctx.err("triggers", f"a list of at most {C.MAX_TRIG} tables")
            stairs = 0
            for j, g in enumerate(trig):
                check_fields(ctx, g, {"level", "do", "kind"})
                lv = read_int(ctx, g, "level", lo=2, hi=6)
                do = C.TRIGGER_NAMES.index(read_str(ctx, g, "do", C.TRIGGER_NAMES[1:]))
                kind = 0
                if do == C.TR_BOSS:
                    kind = C.BOSS_KIND_NAMES.index(read_str(ctx, g, "kind", C.BOSS_KIND_NAMES[:3]))
                stairs += do == C.TR_STAIRS
                if do == C.TR_QUEST and f != 2:
                    ctx.err("triggers", "quests are Floor 3's dungeon deck")
                t["tr_trig"][f, m, j] = (lv, do, kind)
            if stairs != 1:
                ctx.err("triggers", "exactly one stairs trigger is needed")
            need = e.get("need", {})
            if not isinstance(need, dict):
                ctx.err("need", "must be a table")
            for k, _v in need.items():
                keys = C.BOSS_KIND_NAMES[:3] + ("quests",)
                if k not in keys:
                    ctx.err(f"need.{k}", f"unknown (known: {', '.join(keys)})")
                idx = C.NBK if k == "quests" else C.BOSS_KIND_NAMES.index(k)
                t["tr_need"][f, m, idx] = read_int(ctx, need, k, lo=0, hi=3)
        ctx.card = None
        if len(seen) != F * M:
            ctx.err("track", f"needs one track per floor and mode ({F * M}), found {len(seen)}")
        achs = raw.get("achievements")
        if not isinstance(achs, list):
            ctx.err("achievements", "needs a list")
        t["ach_kind"] = np.zeros((F, C.ACH_PER_FLOOR), np.int8)
        t["ach_n"] = np.zeros((F, C.ACH_PER_FLOOR), np.int8)
        t["ach_xp"] = np.zeros((F, C.ACH_PER_FLOOR), np.int8)
        an: list[list[str]] = [[] for _ in range(F)]
        for i, e in enumerate(achs):
            _table_entry(ctx, e, i, "achievements")
            check_fields(ctx, e, {"floor", "name", "kind", "n", "xp"})
            f = read_int(ctx, e, "floor", lo=1, hi=F) - 1
            j = len(an[f])
            if j >= C.ACH_PER_FLOOR:
                ctx.err("floor", f"{C.ACH_PER_FLOOR} achievements per floor")
            an[f].append(read_str(ctx, e, "name"))
            t["ach_kind"][f, j] = C.ACH_KIND_NAMES.index(read_str(ctx, e, "kind", C.ACH_KIND_NAMES))
            t["ach_n"][f, j] = read_int(ctx, e, "n", lo=1, hi=60)
            t["ach_xp"][f, j] = read_int(ctx, e, "xp", lo=1, hi=10)
        ctx.card = None
        if any(len(a) != C.ACH_PER_FLOOR for a in an):
            ctx.err("achievements", f"needs {C.ACH_PER_FLOOR} achievements per floor")
        bens = raw.get("benefits")
        if not isinstance(bens, list) or not 1 <= len(bens) <= C.MAX_BENEFITS:
            ctx.err("benefits", f"needs 1..{C.MAX_BENEFITS} benefits")
        t["be_kind"] = np.zeros(C.MAX_BENEFITS, np.int8)
        t["be_n"] = np.zeros(C.MAX_BENEFITS, np.int8)
        t["be_xp"] = np.zeros(C.MAX_BENEFITS, np.int8)
        t["be_circles"] = np.zeros((C.MAX_BENEFITS, 2), np.int8)
        bn = []
        for i, e in enumerate(bens):
            _table_entry(ctx, e, i, "benefits")
            check_fields(ctx, e, {"name", "kind", "n", "xp", "circles"})
            bn.append(read_str(ctx, e, "name"))
            t["be_kind"][i] = C.BENEFIT_KIND_NAMES.index(
                read_str(ctx, e, "kind", C.BENEFIT_KIND_NAMES)
            )
            t["be_n"][i] = read_int(ctx, e, "n", lo=1, hi=5)
            t["be_xp"][i] = read_int(ctx, e, "xp", lo=1, hi=50)
            c = e.get("circles")
            if (
                not isinstance(c, list)
                or len(c) != 2
                or any(isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 5 for x in c)
            ):
                ctx.err("circles", "must be [solo, two players], each 1..5")
            t["be_circles"][i] = c
        ctx.card = None
        t["n_benefits"] = len(bens)
        names["achievement"] = tuple(a for f in an for a in f)
        names["benefit"] = tuple(bn)


def load_content(folder=None) -> DCCContent:
    """Read, validate and compile the content folder (default: ``data/``)."""
    folder = check_folder(folder, DATA_DIR)
    base, names = _Compiler(folder).compile()
    tables = _derive(base)
    return DCCContent.compiled(
        tables,
        folder,
        digest_of=base,
        core_names=names["core"],
        threat_names=names["threat"],
        quest_names=names["quest"],
        quest_titles=names["quest_title"],
        upgrade_names=names["upgrade"],
        race_names=names["race"],
        class_names=names["class"],
        crawler_names=names["crawler"],
        achievement_names=names["achievement"],
        benefit_names=names["benefit"],
    )


def _derive(base) -> Tables:
    """The full tables: ``base`` plus the encoder's derived feature tables
    (``DERIVED_FIELDS``), computed by the encoder's own per-card functions."""
    from ...encoders import dcc_unstoppable as enc

    c_feat = np.zeros((C.NCORE, enc.CORE_F), np.float32)
    u_feat = np.zeros((C.NUPGRADE, enc.UPG_F), np.float32)
    tr_feat = np.zeros(
        (C.NFLOOR, len(C.MODES), len(C.DIFFICULTIES), C.TRACK_MAX, enc.TRACK_F), np.float32
    )
    derived = dict(c_feat=c_feat, u_feat=u_feat, tr_feat=tr_feat)
    scratch = tables_record(Tables(**base._asdict(), **{k: v.copy() for k, v in derived.items()}))
    # a record view: its fields read as attributes in the interpreter too (NUMBA_DISABLE_JIT)
    enc.feature_tables(scratch.view(np.recarray)[0], c_feat, u_feat, tr_feat)
    for v in derived.values():
        v.flags.writeable = False
    return Tables(**base._asdict(), **derived)


_CACHE: dict[str, DCCContent] = {}


def default_content() -> DCCContent:
    """The packaged content, compiled once per process."""
    if "c" not in _CACHE:
        _CACHE["c"] = load_content()
    return _CACHE["c"]


__all__ = ["load_content", "default_content", "DCCContent", "ContentError"]
