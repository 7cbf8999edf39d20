"""Rendering of a Dungeon Crawler game: ``ansi`` (a text map of each floor
with heroes on it, plus one status line per hero) and ``rgb_array`` (a
numpy uint8 picture of the three floors: one colored cell per square, hero
tokens drawn as colored dots). No extra dependencies."""
from __future__ import annotations

import numpy as np

from . import consts as C
from .rules_py import hero_view


def _mon_name(core, s, f, q):
    ct = core.content
    k = int(core.T.sq_kind[f, q])
    if k == C.SQ_MOB:
        return ct.mob_names[int(s["sq_mob"][f, q])]
    if k == C.SQ_BOSS:
        return ct.boss_names[f]
    if k == C.SQ_LAIR:
        return ct.final_names[int(s["final_boss"])]
    return ""


def render_text(core, s):
    ct, T = core.content, core.T
    n = int(s["num_players"])
    out = [f"== Dungeon Crawler | {n} heroes | round {int(s['round'])} | "
           f"{C.PHASE_NAMES[int(s['phase'])]} | to act: "
           f"{'-' if int(s['actor']) < 0 else 'player_%d' % int(s['actor'])} =="]
    if int(s["outcome"]) != C.O_PLAYING:
        w = int(s["winner"])
        out.append(f"game over: {C.OUTCOME_NAMES[int(s['outcome'])]}"
                   + (f", winner player_{w}" if w >= 0 else ""))
    for f in range(C.NFLOOR):
        L = int(T.floor_len[f])
        row = []
        for q in range(L):
            ch = C.SQ_CHARS[int(T.sq_kind[f, q])]
            k = int(T.sq_kind[f, q])
            if k in (C.SQ_MOB, C.SQ_CHEST, C.SQ_BOSS, C.SQ_LAIR) and not s["sq_alive"][f, q]:
                ch = "." if k != C.SQ_LAIR else "x"
            here = [h for h in range(n) if int(s["floor"][h]) == f and int(s["pos"][h]) == q]
            if here:
                ch = str(here[0]) if len(here) == 1 else "*"
            row.append(ch)
        out.append(f"F{f + 1} {ct.floor_names[f]:<13} |{''.join(row)}|")
    boss_hp = []
    for f in range(C.NFLOOR):
        q = int(T.boss_sq[f]) if f < C.NFLOOR - 1 else int(T.floor_len[f]) - 1
        name = _mon_name(core, s, f, q)
        hp = int(s["sq_hp"][f, q])
        boss_hp.append(f"{name} {hp if s['sq_alive'][f, q] else 'dead'}")
    out.append("bosses: " + "; ".join(boss_hp))
    for h in range(n):
        v = hero_view(core, s, h)
        gear = ",".join(C.TIER_NAMES[t][0].upper() if t >= 0 else "-" for t in v["tiers"])
        flags = "".join(x for x, on in (("P", v["poison"]), ("W", v["weak"]), ("C", v["curse"]),
                                        ("E", v["enchant"])) if on)
        mark = ">" if int(s["actor"]) == h else " "
        out.append(f"{mark}player_{h}: F{v['floor'] + 1} sq{v['pos']:>2} HP {v['hp']}/{v['max_hp']} "
                   f"ATK {v['atk']} DEF {v['def']} SPD {v['spd']} gold {v['gold']} "
                   f"hand {v['hand_n']} gear[{gear}] vault {v['vault']:06b} {flags}")
    if C.PHASE_NAMES[int(s["phase"])] == "assign":
        out.append(f"creation roll to lock into a stat: {int(s['cr_roll'])}")
    if int(s["cb_kind"]) != C.OPP_NONE:
        a = int(s["cb_a"])
        if int(s["cb_kind"]) == C.OPP_HERO:
            opp = f"player_{int(s['cb_b'])}"
        elif int(s["cb_kind"]) == C.OPP_SUMMON:
            opp = f"summoned {ct.mob_names[int(s['cb_mob'])]} (HP {int(s['cb_mhp'])})"
        else:
            f, q = int(s["cb_f"]), int(s["cb_sq"])
            opp = f"{_mon_name(core, s, f, q)} (HP {int(s['sq_hp'][f, q])})"
        out.append(f"combat: player_{a} vs {opp}, round {int(s['cb_round'])}")
    return "\n".join(out)


_COLORS = {
    C.SQ_EMPTY: (60, 60, 60), C.SQ_START: (90, 140, 90), C.SQ_CHEST: (200, 170, 40),
    C.SQ_MOB: (170, 50, 50), C.SQ_SHOP: (60, 110, 200), C.SQ_ARMORY: (140, 80, 200),
    C.SQ_BOSS: (230, 20, 20), C.SQ_STAIRS: (220, 220, 220), C.SQ_LAIR: (255, 0, 120),
}
HERO_COLORS = [(255, 255, 255), (0, 255, 255), (255, 255, 0), (0, 255, 0),
               (255, 128, 0), (255, 0, 255), (128, 128, 255), (255, 160, 160)]
CELL = 16


def render_rgb(core, s):
    T = core.T
    n = int(s["num_players"])
    img = np.zeros((C.NFLOOR * (CELL + 4) + 4, C.MAX_SQ * CELL + 4, 3), np.uint8)
    img[:] = (20, 20, 24)
    for f in range(C.NFLOOR):
        y0 = 4 + f * (CELL + 4)
        for q in range(int(T.floor_len[f])):
            k = int(T.sq_kind[f, q])
            col = _COLORS[k]
            if k in (C.SQ_MOB, C.SQ_CHEST, C.SQ_BOSS, C.SQ_LAIR) and not s["sq_alive"][f, q]:
                col = _COLORS[C.SQ_EMPTY]
            x0 = 2 + q * CELL
            img[y0:y0 + CELL - 2, x0:x0 + CELL - 2] = col
        for h in range(n):
            if int(s["floor"][h]) != f:
                continue
            x0 = 2 + int(s["pos"][h]) * CELL
            dy, dx = divmod(h, 4)
            yy, xx = y0 + 2 + dy * 6, x0 + 1 + dx * 3
            img[yy:yy + 4, xx:xx + 3] = HERO_COLORS[h]
    return img


def describe_action(core, s, a):
    """Readable label of action ``a`` in state ``s``: the declared meaning of
    its range (``consts.ACTIONS``), with the offered card or item named."""
    rng, k = C.ACTIONS.decode(a)
    label = C.ACTIONS.label(a, core.content)
    if (rng == "buy" and int(s["offer_kind"]) != C.OF_NONE) or rng == "draft":
        x = int(s["offer"][k])
        if x >= 0:
            shop = rng == "buy" and int(s["offer_kind"]) == C.OF_SHOP
            return f"{label} ({(core.content.card_names if shop else core.content.item_names)[x]})"
    return label
