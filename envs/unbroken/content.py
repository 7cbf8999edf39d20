"""Compile the Unbroken content files (TOML) into numpy tables.

``load_content(folder)`` reads the files described in
``data/VOCABULARY.md``, validates every field and returns an
:class:`UnbrokenContent`: ``tables`` (a namedtuple of C-contiguous numpy
arrays, passed as one argument to every kernel) plus the names used for
action names, rendering and the encoder. A problem raises
:class:`~dungeonrl.envs.core.errors.ContentError` naming the file, the card
and the field.
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
    read_bool,
    read_files,
    read_int,
    read_str,
    read_text,
)
from . import consts as C

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
FILES = ("rules", "characters", "weapons", "monsters", "encounters", "skills", "conditions")

TABLE_FIELDS = (
    # rules
    "bars",
    "time_start",
    "time_track",
    "armor_cap",
    "health_cap",
    "reveal_base",
    "reveal_max",
    "orienteer_bonus",
    "diff_small",
    "diff_bonus",
    "diff_skill",
    "diff_mfirst",
    "score_pts",
    "title_min",
    # characters
    "char_ab",
    # weapons
    "w_tier",
    "w_natk",
    "w_atk_kind",
    "w_atk_cost",
    "w_atk_power",
    "w_upg_to",
    "w_upg_cost",
    # monsters
    "m_level",
    "m_number",
    "m_armor",
    "m_health",
    "m_ambush",
    "m_can_trick",
    "m_trick",
    "m_reward",
    "m_face_type",
    "m_face_ops",
    "m_face_alt",
    "m_face_has_alt",
    "m_by_level",
    "m_opt",
    # encounters
    "e_time",
    "e_spend",
    "e_gain",
    "e_ops",
    "deck_cards",
    # skills and conditions
    "s_ab",
    "c_ab",
    "c_perm",
    # abilities
    "ab_kind",
    "ab_window",
    "ab_trigger",
    "ab_cost",
    "ab_req",
    "ab_req_arg",
    "ab_ops",
    "ab_pmod",
    "ab_pn",
    "ab_pa",
    "ab_owner_kind",
    "ab_owner",
    "ab_optional",
    "trig_ab",
    "trig_n",
    "mod_ab",
    "mod_n",
    # sizes
    "n_skills",
    "n_enc_types",
    "deck_size",
)
# mypy reads only literal field lists; TABLE_FIELDS stays the one list of names
Tables = namedtuple("Tables", TABLE_FIELDS)  # type: ignore[misc]


@dataclass
class UnbrokenContent(CompiledContent):
    character_names: tuple
    character_blurbs: tuple
    weapon_names: tuple
    attack_names: tuple  # per weapon, tuple of attack names
    monster_names: tuple
    encounter_names: tuple
    skill_names: tuple
    skill_texts: tuple
    condition_names: tuple
    ability_names: tuple
    title_names: tuple
    char_ability_names: tuple  # per character


_Ctx = Ctx
_int = read_int
_str = read_str
_bool = read_bool
_text = read_text
_fields = check_fields
#: the keys of a weapon entry
WEAPON_KEYS = ("name", "tier", "attacks", "upgrades")
#: every key an op table may hold (each op takes some of them; the others
#: are refused as "not an argument of op ...")
OP_KEYS = frozenset(
    {
        "op",
        "res",
        "n",
        "per_level",
        "to",
        "m",
        "name",
        "when",
        "rounds",
        "tokens",
        "permanent",
        "pierce",
    }
)

#: the passive mods that take no amount: ``n`` is required by every other mod
PASSIVE_NO_AMOUNT = ("ignore", "monster_first", "no_trick")
#: the largest amount a content number may give or cost (resources, powers)
AMOUNT_MAX = 99
#: keys each kind of table may hold (anything else is a misspelling)
FILE_KEYS = {
    "rules": ("bars", "time", "monster_tracker", "reveal", "difficulty", "score", "title"),
    "characters": ("character",),
    "weapons": ("weapon",),
    "monsters": ("monster",),
    "encounters": ("card",),
    "skills": ("skill",),
    "conditions": ("condition",),
}


def _restable(ctx, d, key, allow_time=False):
    _fields(ctx, d, d.keys())  # d itself must be a table
    v = d.get(key, {})
    if not isinstance(v, dict):
        ctx.err(key, f"must be a table of resources, got {v!r}")
    names = C.COST_NAMES if allow_time else C.RES_NAMES
    out = np.zeros(C.NCOST if allow_time else C.NRES, np.int16)
    for k, n in v.items():
        if k not in names:
            ctx.err(f"{key}.{k}", f"unknown resource (known: {', '.join(names)})")
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= AMOUNT_MAX:
            ctx.err(f"{key}.{k}", f"must be an integer in 0..{AMOUNT_MAX}, got {n!r}")
        out[names.index(k)] = n
    return out


class _Compiler:
    def __init__(self, folder):
        self.folder = folder
        self.raw = read_files(folder, FILES, FILE_KEYS)
        self.abilities = []  # list of dicts (compiled rows)
        self.ability_names = []

    # -- helpers ---------------------------------------------------------------
    def _list(self, file, key, count=None, lo=None, hi=None):
        ctx = _Ctx(file + ".toml")
        v = self.raw[file].get(key)
        if not isinstance(v, list) or not v:
            ctx.err(key, f"needs a list of [[{key}]] tables")
        if count is not None and len(v) != count:
            ctx.err(key, f"needs exactly {count} entries, found {len(v)}")
        if lo is not None and len(v) < lo:
            ctx.err(key, f"needs at least {lo} entries, found {len(v)}")
        if hi is not None and len(v) > hi:
            ctx.err(key, f"allows at most {hi} entries, found {len(v)}")
        return v

    def ops(self, ctx, lst, field):
        out = np.zeros((C.MAXOPS, C.OPW), np.int32)
        if lst is None:
            return out, 0
        if not isinstance(lst, list):
            ctx.err(field, "must be a list of op tables")
        if len(lst) > C.MAXOPS:
            ctx.err(field, f"at most {C.MAXOPS} ops, found {len(lst)}")
        for i, op in enumerate(lst):
            f = f"{field}[{i}]"
            if not isinstance(op, dict):
                ctx.err(f, f"must be an op table ({{ op = ... }}), got {type(op).__name__}")
            for k in op:  # unknown keys first: a misspelled key is named as written
                if k not in OP_KEYS:
                    ctx.err(f + "." + k, f"unknown key (allowed: {sorted(OP_KEYS)})")
            if "op" not in op:
                ctx.err(f + ".op", "is required (the op's name)")
            name = op["op"]
            if not isinstance(name, str) or name not in C.OP_NAMES or name == "none":
                ctx.err(f + ".op", f"unknown op {name!r}")
            code = C.OP_NAMES.index(name)
            a = b = c = d = 0
            allowed = {"op"}

            def res(key, op=op, allowed=allowed):
                allowed.add(key)
                r = _str(ctx, op, key, choices=C.RES_NAMES)
                return C.RES_NAMES.index(r)

            def num(key, default=None, lo=None, hi=AMOUNT_MAX, op=op, allowed=allowed):
                allowed.add(key)
                return _int(ctx, op, key, default=default, lo=lo, hi=hi)

            def cond(key="name", f=f, op=op, allowed=allowed):
                allowed.add(key)
                n = _str(ctx, op, key)
                if n not in self.condition_names:
                    ctx.err(
                        f + "." + key,
                        f"unknown condition {n!r} (conditions.toml "
                        f"names {list(self.condition_names)})",
                    )
                return self.condition_names.index(n)

            if code in (C.OP_GAIN,):
                a, b = res("res"), num("n", lo=0)
                allowed.add("per_level")
                c = 1 if _bool(ctx, op, "per_level") else 0
            elif code == C.OP_LOSE:
                a, b = res("res"), num("n", lo=0)
            elif code in (
                C.OP_WOUND,
                C.OP_LOSE_TIME,
                C.OP_GAIN_TIME,
                C.OP_MON_ARMOR,
                C.OP_MON_HEALTH,
                C.OP_MON_HEAL,
                C.OP_BREAK,
                C.OP_USES,
                C.OP_POWER,
            ):
                b = num("n", lo=0)
            elif code == C.OP_REVEAL:  # the reveal bonus is kept in -8..8
                b = num("n", lo=-C.MAX_REVEAL, hi=C.MAX_REVEAL)
            elif code == C.OP_ROLL:  # a change to a d6 roll
                b = num("n", lo=-6, hi=6)
            elif code == C.OP_REDUCE:
                a, b = res("res"), num("n", lo=1)
                c, d = res("to"), num("m", lo=0)
            elif code == C.OP_CONDITION:
                a = cond()
                allowed.update({"when", "rounds", "tokens"})
                w = _str(ctx, op, "when", choices=C.WHEN_NAMES)
                b = C.WHEN_NAMES.index(w)
                c = _int(ctx, op, "rounds", default=0, lo=0, hi=20)
                if b == C.WHEN_ROUNDS and c < 1:
                    ctx.err(f + ".rounds", "when = 'rounds' needs rounds >= 1")
                d = _int(ctx, op, "tokens", default=0, lo=0, hi=20)
            elif code == C.OP_TOKENS:  # tokens are kept in 0..100
                a, b = cond(), num("n", lo=-20, hi=20)
            elif code in (C.OP_CLEANSE, C.OP_EVADE):
                a = cond()
            elif code == C.OP_DOWNGRADE:
                allowed.update({"rounds", "permanent"})
                perm = _bool(ctx, op, "permanent")
                c = 1 if perm else 0
                b = _int(ctx, op, "rounds", default=0, lo=0, hi=20)
                if not perm and b < 1:
                    ctx.err(f + ".rounds", "a temporary downgrade needs rounds >= 1")
            elif code == C.OP_DAMAGE:
                b = num("n", lo=0)
                allowed.add("pierce")
                c = 1 if _bool(ctx, op, "pierce") else 0
            for k in op:
                if k not in allowed:
                    ctx.err(f + "." + k, f"not an argument of op {name!r}")
            out[i] = (code, a, b, c, d)
        return out, len(lst)

    def ability(self, ctx, ab, owner_kind, owner, field, optional_default):
        if not isinstance(ab, dict):
            ctx.err(field, "must be a table")
        known = {
            "name",
            "kind",
            "window",
            "trigger",
            "cost",
            "requires",
            "effects",
            "passive",
            "optional",
            "text",
        }
        for k in ab:
            if k not in known:
                ctx.err(f"{field}.{k}", "unknown field")
        kind = C.KIND_NAMES.index(_str(ctx, ab, "kind", choices=C.KIND_NAMES))
        name = _text(ctx, ab, "name", ctx.card or "ability")
        _text(ctx, ab, "text")
        row = dict(
            kind=kind,
            window=0,
            trigger=0,
            cost=_restable(ctx, ab, "cost", True),
            req=0,
            req_arg=0,
            pmod=0,
            pn=0,
            pa=0,
            owner_kind=owner_kind,
            owner=owner,
            optional=optional_default,
        )
        if kind == C.K_ACTION:
            row["window"] = C.WINDOW_NAMES[_str(ctx, ab, "window", choices=C.WINDOW_NAMES)]
        if kind == C.K_RESPONSE:
            t = _str(ctx, ab, "trigger", choices=C.TRIGGER_NAMES[1:])
            row["trigger"] = C.TRIGGER_NAMES.index(t)
        if "optional" in ab:
            if not isinstance(ab["optional"], bool):
                ctx.err(field + ".optional", "must be true or false")
            row["optional"] = 1 if ab["optional"] else 0
        if "requires" in ab:
            r = _str(ctx, ab, "requires")
            if r.startswith("condition:"):
                cn = r.split(":", 1)[1]
                if cn not in self.condition_names:
                    ctx.err(
                        field + ".requires",
                        f"unknown condition {cn!r} (conditions.toml "
                        f"names {list(self.condition_names)})",
                    )
                row["req"], row["req_arg"] = C.RQ_CONDITION, self.condition_names.index(cn)
            elif r in C.REQ_NAMES[1:-1]:
                row["req"] = C.REQ_NAMES.index(r)
            else:
                ctx.err(field + ".requires", f"unknown requirement {r!r}")
        row["ops"], n = self.ops(ctx, ab.get("effects"), field + ".effects")
        if kind == C.K_PASSIVE:
            p = ab.get("passive")
            if not isinstance(p, dict):
                ctx.err(field + ".passive", "a passive needs a passive = { mod = ... } table")
            _fields(ctx, p, ("mod", "n", "type", "res"))
            mod = _str(ctx, p, "mod", choices=C.MOD_NAMES[1:])
            row["pmod"] = C.MOD_NAMES.index(mod)
            if mod not in PASSIVE_NO_AMOUNT and "n" not in p:
                ctx.err(field + ".passive.n", f"is required (mod {mod!r} changes by n)")
            row["pn"] = _int(ctx, p, "n", default=0, lo=-10, hi=10)
            if "type" in p:
                row["pa"] = C.FACE_TYPES.index(_str(ctx, p, "type", choices=C.FACE_TYPES))
            elif "res" in p:
                row["pa"] = C.RES_NAMES.index(_str(ctx, p, "res", choices=C.RES_NAMES))
            elif row["pmod"] == C.PM_IGNORE:
                ctx.err(field + ".passive.type", "ignore needs a face type")
            if row["pmod"] == C.PM_ATTACK_COST and "res" not in p:
                ctx.err(field + ".passive.res", "attack_cost needs a resource")
            if n:
                ctx.err(field + ".effects", "a passive has no effects")
        elif n == 0:
            ctx.err(field + ".effects", "an action or response needs effects")
        self.abilities.append(row)
        self.ability_names.append(str(name))
        return len(self.abilities) - 1

    # -- compile -----------------------------------------------------------------
    def compile(self):
        t: dict[str, Any] = {}  # table name -> array (or int for a size)
        # conditions first: names are referenced everywhere
        conds = self._list("conditions", "condition", count=C.NCOND)
        ctx = _Ctx("conditions.toml")
        self.condition_names = []
        for i, c in enumerate(conds):
            ctx.card = f"condition #{i + 1}"
            # unknown keys first: a misspelled key is named as it was written
            _fields(ctx, c, ("name", "permanent", "abilities", "text"))
            self.condition_names.append(_str(ctx, c, "name"))
            _text(ctx, c, "text")
        check_unique(ctx, self.condition_names, "condition")
        self._rules(t)
        self._characters(t)
        self._weapons(t)
        self._monsters(t)
        self._encounters(t)
        self._skills(t)
        c_ab = np.full((C.NCOND, 3), -1, np.int16)
        c_perm = np.zeros(C.NCOND, np.int8)
        for i, c in enumerate(conds):
            ctx.card = self.condition_names[i]
            c_perm[i] = 1 if _bool(ctx, c, "permanent") else 0
            abl = c.get("abilities", [])
            if not isinstance(abl, list) or len(abl) > 3:
                ctx.err("abilities", "must be a list of at most 3 abilities")
            for j, ab in enumerate(abl):
                c_ab[i, j] = self.ability(ctx, ab, C.OWN_COND, i, f"abilities[{j}]", 0)
        t["c_ab"], t["c_perm"] = c_ab, c_perm
        self._abilities(t)
        tables = Tables(
            **{
                k: (int(t[k]) if np.ndim(t[k]) == 0 else np.ascontiguousarray(t[k]))
                for k in TABLE_FIELDS
            }
        )
        return tables

    def _rules(self, t):
        r = self.raw["rules"]
        ctx = _Ctx("rules.toml")
        ctx.card = "[bars]"
        bars = _restable(ctx, r, "bars")
        for k, res in enumerate(C.RES_NAMES):  # a bar left out is refused by name
            if bars[k] <= 0:
                why = "every bar needs a maximum >= 1"
                ctx.err(f"bars.{res}", why if res in r.get("bars", {}) else f"is required ({why})")
        t["bars"] = bars
        ctx.card = "[time]"
        tm = r.get("time", {})
        _fields(ctx, tm, ("start", "track"))
        st = tm.get("start")
        if (
            not isinstance(st, list)
            or len(st) != 4
            or not all(isinstance(x, int) and not isinstance(x, bool) and 0 < x <= 60 for x in st)
        ):
            ctx.err("start", "must list 4 starting Times in 1..60")
        t["time_track"] = np.int16(_int(ctx, tm, "track", lo=max(st), hi=60))
        t["time_start"] = np.array(st, np.int16)
        ctx.card = "[monster_tracker]"
        mt = r.get("monster_tracker", {})
        _fields(ctx, mt, ("armor", "health"))
        t["armor_cap"] = np.int16(_int(ctx, mt, "armor", lo=1, hi=AMOUNT_MAX))
        t["health_cap"] = np.int16(_int(ctx, mt, "health", lo=1, hi=AMOUNT_MAX))
        ctx.card = "[reveal]"
        rv = r.get("reveal", {})
        _fields(ctx, rv, ("base", "max", "orienteer_bonus"))
        t["reveal_base"] = np.int16(_int(ctx, rv, "base", lo=1, hi=C.MAX_REVEAL))
        t["reveal_max"] = np.int16(_int(ctx, rv, "max", lo=1, hi=C.MAX_REVEAL))
        t["orienteer_bonus"] = np.int16(_int(ctx, rv, "orienteer_bonus", lo=0, hi=C.MAX_REVEAL))
        ds, db, dk, dm = (
            np.zeros(3, np.int16),
            np.full((3, 6), -1, np.int8),
            np.zeros(3, np.int8),
            np.zeros(3, np.int8),
        )
        ctx.card = "[difficulty]"
        _fields(ctx, r.get("difficulty", {}), C.DIFFICULTIES)
        for i, dname in enumerate(C.DIFFICULTIES):
            ctx.card = f"[difficulty.{dname}]"
            d = r.get("difficulty", {}).get(dname)
            if not isinstance(d, dict):
                ctx.err("difficulty", "missing")
            _fields(ctx, d, ("small", "bonus_roll", "start_skill", "monster_first"))
            ds[i] = _int(ctx, d, "small", lo=0, hi=int(bars[C.R_S]))
            roll = d.get("bonus_roll", [])
            if not isinstance(roll, list) or len(roll) not in (0, 6):
                ctx.err("bonus_roll", "must list 6 resources (one per die face) or be empty")
            for j, rn in enumerate(roll):
                if not isinstance(rn, str) or rn not in C.RES_NAMES:
                    ctx.err("bonus_roll", f"unknown resource {rn!r}")
                db[i, j] = C.RES_NAMES.index(rn)
            dk[i] = 1 if _bool(ctx, d, "start_skill") else 0
            dm[i] = 1 if _bool(ctx, d, "monster_first") else 0
        t["diff_small"], t["diff_bonus"], t["diff_skill"], t["diff_mfirst"] = ds, db, dk, dm
        ctx.card = "[score]"
        t["score_pts"] = _restable(ctx, r, "score")
        titles = r.get("title", [])
        ctx.card = "[[title]]"
        if not isinstance(titles, list) or len(titles) != 6:
            ctx.err("title", "needs exactly 6 titles")
        for x in titles:
            _fields(ctx, x, ("name", "min"))
        mins = [_int(ctx, x, "min", lo=0, hi=9999) for x in titles]
        if mins[0] != 0 or sorted(mins) != mins:
            ctx.err("min", "titles must start at 0 and rise")
        self.title_names = tuple(_str(ctx, x, "name") for x in titles)
        check_unique(ctx, self.title_names, "title")
        t["title_min"] = np.array(mins, np.int16)

    def _characters(self, t):
        chars = self._list("characters", "character", count=C.NCHAR)
        ctx = _Ctx("characters.toml")
        t["char_ab"] = np.full((C.NCHAR, C.MAX_CHAR_AB), -1, np.int16)
        self.character_names, self.character_blurbs, self.char_ability_names = [], [], []
        for i, ch in enumerate(chars):
            ctx.card = f"character #{i + 1}"
            _fields(ctx, ch, ("name", "personas", "blurb", "abilities"))  # unknown keys first
            name = _str(ctx, ch, "name")
            ctx.card = name
            per = ch.get("personas", [])
            if not isinstance(per, list) or not all(isinstance(x, str) for x in per):
                ctx.err("personas", "must be a list of names")
            self.character_names.append(name)
            self.character_blurbs.append(_text(ctx, ch, "blurb"))
            abl = ch.get("abilities")
            if not isinstance(abl, list) or not 1 <= len(abl) <= C.MAX_CHAR_AB:
                ctx.err("abilities", f"needs 1 to {C.MAX_CHAR_AB} abilities")
            names = []
            for j, ab in enumerate(abl):
                if isinstance(ab, dict) and ab.get("kind") == "passive":
                    ctx.err(f"abilities[{j}].kind", "character abilities are actions or responses")
                t["char_ab"][i, j] = self.ability(ctx, ab, C.OWN_CHAR, i, f"abilities[{j}]", 1)
                names.append(self.ability_names[-1])
            self.char_ability_names.append(tuple(names))
        check_unique(ctx, self.character_names, "character")

    def _weapons(self, t):
        ws = self._list("weapons", "weapon", count=C.NWEAPON)
        ctx = _Ctx("weapons.toml")
        for i, w in enumerate(ws):
            ctx.card = f"weapon #{i + 1}"
            _fields(ctx, w, WEAPON_KEYS)  # unknown keys first
            _str(ctx, w, "name")
        self.weapon_names = [w["name"] for w in ws]
        check_unique(ctx, self.weapon_names, "weapon")
        t["w_tier"] = np.zeros(C.NWEAPON, np.int8)
        t["w_natk"] = np.zeros(C.NWEAPON, np.int8)
        t["w_atk_kind"] = np.zeros((C.NWEAPON, C.MAX_ATTACKS), np.int8)
        t["w_atk_cost"] = np.zeros((C.NWEAPON, C.MAX_ATTACKS, C.NCOST), np.int16)
        t["w_atk_power"] = np.zeros((C.NWEAPON, C.MAX_ATTACKS), np.int16)
        t["w_upg_to"] = np.full((C.NWEAPON, C.MAX_UPGRADES), -1, np.int8)
        t["w_upg_cost"] = np.zeros((C.NWEAPON, C.MAX_UPGRADES, C.NCOST), np.int16)
        self.attack_names = []
        for i, w in enumerate(ws):
            ctx.card = f"weapon #{i + 1}"
            ctx.card = _str(ctx, w, "name")
            t["w_tier"][i] = ("basic", "advanced").index(
                _str(ctx, w, "tier", choices=("basic", "advanced"))
            )
            atks = w.get("attacks")
            if not isinstance(atks, list) or not 1 <= len(atks) <= C.MAX_ATTACKS:
                ctx.err("attacks", f"needs 1 to {C.MAX_ATTACKS} attacks")
            t["w_natk"][i] = len(atks)
            names = []
            for j, a in enumerate(atks):
                f = f"attacks[{j}]"
                if not isinstance(a, dict):
                    ctx.err(f, "must be a table")
                _fields(ctx, a, ("name", "kind", "cost", "power"))
                if "name" not in a:  # no placeholder: the name is in the action names
                    ctx.err(f + ".name", "is required (the attack's name)")
                names.append(_str(ctx, a, "name"))
                t["w_atk_kind"][i, j] = ("break", "wound").index(
                    _str(ctx, a, "kind", choices=("break", "wound"))
                )
                t["w_atk_cost"][i, j] = _restable(ctx, a, "cost", True)
                if t["w_atk_cost"][i, j, C.R_TIME]:
                    ctx.err(f + ".cost.time", "attacks cannot cost Time")
                t["w_atk_power"][i, j] = _int(ctx, a, "power", lo=1, hi=AMOUNT_MAX)
            self.attack_names.append(tuple(names))
            ups = w.get("upgrades", [])
            if not isinstance(ups, list) or len(ups) > C.MAX_UPGRADES:
                ctx.err("upgrades", f"at most {C.MAX_UPGRADES} upgrades")
            for j, u in enumerate(ups):
                _fields(ctx, u, ("to", "cost"))
                to = _str(ctx, u, "to")
                if to not in self.weapon_names or self.weapon_names.index(to) <= i:
                    ctx.err(f"upgrades[{j}].to", f"must name a later weapon, got {to!r}")
                t["w_upg_to"][i, j] = self.weapon_names.index(to)
                t["w_upg_cost"][i, j] = _restable(ctx, u, "cost", True)
        if self.weapon_names[0] is None or t["w_tier"][0] != 0:
            ctx.card = self.weapon_names[0]
            ctx.err("tier", "the first weapon (the starting Bare Hands) must be basic")

    def _monsters(self, t):
        ms = self._list("monsters", "monster", count=C.NMONSTER)
        ctx = _Ctx("monsters.toml")
        n = C.NMONSTER
        t["m_level"] = np.zeros(n, np.int8)
        t["m_number"] = np.zeros(n, np.int8)
        t["m_armor"] = np.zeros(n, np.int16)
        t["m_health"] = np.zeros(n, np.int16)
        t["m_ambush"] = np.zeros((n, C.MAXOPS, C.OPW), np.int32)
        t["m_can_trick"] = np.zeros(n, np.int8)
        t["m_trick"] = np.zeros((n, C.NCOST), np.int16)
        t["m_reward"] = np.zeros((n, C.NRES), np.int16)
        t["m_face_type"] = np.zeros((n, 6), np.int8)
        t["m_face_ops"] = np.zeros((n, 6, C.MAXOPS, C.OPW), np.int32)
        t["m_face_alt"] = np.zeros((n, 6, C.MAXOPS, C.OPW), np.int32)
        t["m_face_has_alt"] = np.zeros((n, 6), np.int8)
        t["m_by_level"] = np.full((C.NLEVEL, C.PER_LEVEL), -1, np.int8)
        t["m_opt"] = np.full((n, C.MAX_MON_OPT), -1, np.int16)
        self.monster_names = []
        self._monster_abilities = []
        for i, m in enumerate(ms):
            ctx.card = f"monster #{i + 1}"
            _fields(
                ctx,
                m,
                (
                    "name",
                    "level",
                    "number",
                    "armor",
                    "health",
                    "ambush",
                    "trickery",
                    "rewards",
                    "faces",
                    "abilities",
                    "text",
                ),
            )  # unknown keys first: a misspelled key is named as it was written
            ctx.card = _str(ctx, m, "name")
            self.monster_names.append(ctx.card)
            _text(ctx, m, "text")
            lv = _int(ctx, m, "level", lo=1, hi=4)
            num = _int(ctx, m, "number", lo=1, hi=6)
            if t["m_by_level"][lv - 1, num - 1] != -1:
                ctx.err("number", f"Level {lv} already has a monster number {num}")
            t["m_by_level"][lv - 1, num - 1] = i
            t["m_level"][i], t["m_number"][i] = lv, num
            t["m_armor"][i] = _int(ctx, m, "armor", lo=0, hi=int(t["armor_cap"]))
            t["m_health"][i] = _int(ctx, m, "health", lo=1, hi=int(t["health_cap"]))
            t["m_ambush"][i], _ = self.ops(ctx, m.get("ambush", []), "ambush")
            if "trickery" in m:
                t["m_can_trick"][i] = 1
                t["m_trick"][i] = _restable(ctx, m, "trickery", True)
            t["m_reward"][i] = _restable(ctx, m, "rewards")
            faces = m.get("faces")
            if not isinstance(faces, list) or len(faces) != 6:
                ctx.err("faces", "needs exactly 6 combat faces (die 1..6)")
            for j, fc in enumerate(faces):
                f = f"faces[{j}]"
                if not isinstance(fc, dict):
                    ctx.err(f, "must be a table")
                _fields(ctx, fc, ("type", "effects", "alt", "text"))
                t["m_face_type"][i, j] = C.FACE_TYPES.index(
                    _str(ctx, fc, "type", choices=C.FACE_TYPES)
                )
                t["m_face_ops"][i, j], _ = self.ops(ctx, fc.get("effects", []), f + ".effects")
                if "alt" in fc:
                    t["m_face_alt"][i, j], k = self.ops(ctx, fc["alt"], f + ".alt")
                    t["m_face_has_alt"][i, j] = 1 if k else 0
            self._monster_abilities.append((ctx.card, m.get("abilities", [])))
        check_unique(ctx, self.monster_names, "monster")
        for lv in range(C.NLEVEL):
            if (t["m_by_level"][lv] < 0).any():
                ctx.card = None
                ctx.err("level", f"Level {lv + 1} needs monsters numbered 1 to 6")
        for i, (name, abl) in enumerate(self._monster_abilities):
            ctx.card = name
            if not isinstance(abl, list):
                ctx.err("abilities", "must be a list")
            k = 0
            for j, ab in enumerate(abl):
                a = self.ability(ctx, ab, C.OWN_MONSTER, i, f"abilities[{j}]", 0)
                row = self.abilities[a]
                if row["optional"] or row["kind"] == C.K_ACTION:
                    row["optional"] = 1
                    if k >= C.MAX_MON_OPT:
                        ctx.err("abilities", f"at most {C.MAX_MON_OPT} player options per monster")
                    t["m_opt"][i, k] = a
                    k += 1

    def _encounters(self, t):
        cards = self._list("encounters", "card")
        ctx = _Ctx("encounters.toml")
        ne = len(cards)
        t["e_time"] = np.zeros(ne, np.int16)
        t["e_spend"] = np.zeros((ne, C.NCOST), np.int16)
        t["e_gain"] = np.zeros((ne, C.NRES), np.int16)
        t["e_ops"] = np.zeros((ne, C.MAXOPS, C.OPW), np.int32)
        deck = []
        self.encounter_names = []
        for i, c in enumerate(cards):
            ctx.card = f"card #{i + 1}"
            _fields(ctx, c, ("name", "time", "spend", "gain", "effects", "copies", "text"))
            ctx.card = _str(ctx, c, "name")  # (unknown keys first, above)
            self.encounter_names.append(ctx.card)
            _text(ctx, c, "text")
            t["e_time"][i] = _int(ctx, c, "time", lo=1, hi=10)
            t["e_spend"][i] = _restable(ctx, c, "spend", True)
            t["e_gain"][i] = _restable(ctx, c, "gain")
            t["e_ops"][i], _ = self.ops(ctx, c.get("effects", []), "effects")
            deck += [i] * _int(ctx, c, "copies", default=1, lo=1, hi=C.DECK_CAP)
        check_unique(ctx, self.encounter_names, "encounter")
        ctx.card = None
        if not 1 <= len(deck) <= C.DECK_CAP:
            ctx.err("copies", f"the deck must hold 1 to {C.DECK_CAP} cards, found {len(deck)}")
        t["deck_cards"] = np.array(deck, np.int16)
        t["deck_size"] = np.int16(len(deck))
        t["n_enc_types"] = np.int16(ne)

    def _skills(self, t):
        sk = self._list("skills", "skill", lo=2, hi=C.MAX_SKILLS)
        ctx = _Ctx("skills.toml")
        t["s_ab"] = np.full(C.MAX_SKILLS, -1, np.int16)
        self.skill_names, self.skill_texts = [], []
        for i, s in enumerate(sk):
            ctx.card = f"skill #{i + 1}"
            _fields(ctx, s, ("name", "text", "abilities"))  # unknown keys first
            ctx.card = _str(ctx, s, "name")
            self.skill_names.append(ctx.card)
            self.skill_texts.append(_text(ctx, s, "text"))
            abl = s.get("abilities")
            if not isinstance(abl, list) or len(abl) != 1:
                ctx.err("abilities", "a skill has exactly one ability")
            t["s_ab"][i] = self.ability(ctx, abl[0], C.OWN_SKILL, i, "abilities[0]", 1)
        check_unique(ctx, self.skill_names, "skill")
        t["n_skills"] = np.int16(len(sk))

    def _abilities(self, t):
        ab = self.abilities
        n = len(ab)
        t["ab_kind"] = np.array([a["kind"] for a in ab], np.int8)
        t["ab_window"] = np.array([a["window"] for a in ab], np.int8)
        t["ab_trigger"] = np.array([a["trigger"] for a in ab], np.int8)
        t["ab_cost"] = np.array([a["cost"] for a in ab], np.int16).reshape(n, C.NCOST)
        t["ab_req"] = np.array([a["req"] for a in ab], np.int8)
        t["ab_req_arg"] = np.array([a["req_arg"] for a in ab], np.int16)
        t["ab_ops"] = np.array([a["ops"] for a in ab], np.int32).reshape(n, C.MAXOPS, C.OPW)
        t["ab_pmod"] = np.array([a["pmod"] for a in ab], np.int8)
        t["ab_pn"] = np.array([a["pn"] for a in ab], np.int16)
        t["ab_pa"] = np.array([a["pa"] for a in ab], np.int16)
        t["ab_owner_kind"] = np.array([a["owner_kind"] for a in ab], np.int8)
        t["ab_owner"] = np.array([a["owner"] for a in ab], np.int16)
        t["ab_optional"] = np.array([a["optional"] for a in ab], np.int8)
        trig_ab = np.full((C.NTRIG, max(n, 1)), -1, np.int16)
        trig_n = np.zeros(C.NTRIG, np.int16)
        mod_ab = np.full((C.NMOD, max(n, 1)), -1, np.int16)
        mod_n = np.zeros(C.NMOD, np.int16)
        for i, a in enumerate(ab):
            if a["kind"] == C.K_RESPONSE:
                trig_ab[a["trigger"], trig_n[a["trigger"]]] = i
                trig_n[a["trigger"]] += 1
            elif a["kind"] == C.K_PASSIVE:
                mod_ab[a["pmod"], mod_n[a["pmod"]]] = i
                mod_n[a["pmod"]] += 1
        t.update(trig_ab=trig_ab, trig_n=trig_n, mod_ab=mod_ab, mod_n=mod_n)


def _compile_folder(folder) -> UnbrokenContent:
    comp = _Compiler(folder)
    tables = comp.compile()
    content = UnbrokenContent.compiled(
        tables,
        folder,
        character_names=tuple(comp.character_names),
        character_blurbs=tuple(comp.character_blurbs),
        weapon_names=tuple(comp.weapon_names),
        attack_names=tuple(comp.attack_names),
        monster_names=tuple(comp.monster_names),
        encounter_names=tuple(comp.encounter_names),
        skill_names=tuple(comp.skill_names),
        skill_texts=tuple(comp.skill_texts),
        condition_names=tuple(comp.condition_names),
        ability_names=tuple(comp.ability_names),
        title_names=comp.title_names,
        char_ability_names=tuple(comp.char_ability_names),
    )
    return content


#: ``load_content(folder=None)``: the content of ``folder`` (default: the
#: shipped data), compiled once per digest of its files' bytes
load_content = ContentCache(FILES).loader(DATA_DIR, _compile_folder)
