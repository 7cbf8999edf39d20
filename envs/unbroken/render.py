"""Rendering of an Unbroken game and readable action labels.

* ``render_text`` (``render_mode="ansi"``, ``dungeonrl play unbroken``): the
  Display as text.
* ``render_rgb`` (``render_mode="rgb_array"``): the table as a picture,
  ``FRAME_H x FRAME_W`` RGB (``uint8``): resource bars, the Time Tracker,
  the weapon sheet with its attacks, skills, conditions, the monster card
  (its six combat faces once revealed), the revealed encounter cards or the
  skill offer, and a footer naming the phase and the choices on offer.
  Only what the player sees is drawn (never the generator, the undrawn
  decks or an unrevealed monster).
* ``describe_action``: a label for one action in one state.
"""

from __future__ import annotations

import numpy as np

from ..core.authoring.draw import Palette
from . import consts as C

RES_SHORT = ("S", "M", "L", "Cun", "Food", "Wood", "Metal", "Tres")


def _restable(vec, with_time=False):
    names = C.COST_NAMES if with_time else C.RES_NAMES
    parts = [f"{int(v)} {names[i]}" for i, v in enumerate(vec) if int(v)]
    return ", ".join(parts) if parts else "nothing"


def _ops_text(content, ops):
    out = []
    for op in ops:
        code, a, b, c, d = (int(x) for x in op)
        if code == C.OP_NONE:
            break
        name = C.OP_NAMES[code]
        if code in (C.OP_GAIN, C.OP_LOSE):
            out.append(f"{name} {b}{' x Level' if c else ''} {C.RES_NAMES[a]}")
        elif code == C.OP_REDUCE:
            out.append(f"reduce {b} {C.RES_NAMES[a]} -> {d} {C.RES_NAMES[c]}")
        elif code == C.OP_CONDITION:
            when = f"{c} rounds" if b == C.WHEN_ROUNDS else C.WHEN_NAMES[b].replace("_", " ")
            tok = f" [{d}]" if d else ""
            out.append(f"{content.condition_names[a]} ({when}){tok}")
        elif code in (C.OP_TOKENS, C.OP_CLEANSE, C.OP_EVADE):
            out.append(
                f"{name} {content.condition_names[a]} {b if code == C.OP_TOKENS else ''}".strip()
            )
        elif code == C.OP_DOWNGRADE:
            out.append("downgrade weapon " + ("permanently" if c else f"for {b} rounds"))
        elif code == C.OP_DAMAGE:
            out.append(f"deal {b} wounds{' (ignores armor)' if c else ''}")
        elif code in (
            C.OP_DEFEND,
            C.OP_COMMIT,
            C.OP_CURE,
            C.OP_SKILL,
            C.OP_EXTRA_ATTACK,
            C.OP_REROLL,
            C.OP_STRUGGLE,
            C.OP_TICK,
            C.OP_SKIP_TURN,
        ):
            out.append(name.upper() if code == C.OP_DEFEND else name)
        else:
            out.append(f"{name} {b}")
    return "; ".join(out)


def _conditions(s):
    """``(condition, state, tokens, rounds)`` of each condition held
    (state 1 active, 2 for the next Level, 3 both)."""
    for c in range(C.NCOND):
        v = int(s["cond"][c])
        if v:
            yield c, v, int(s["cond_tokens"][c]), int(s["cond_rounds"][c])


def render_text(core, s):
    ct = core.content
    T = core.T
    lines = []
    ph = int(s["phase"])
    lines.append(
        f"== Unbroken | {ct.character_names[int(s['character'])]} | "
        f"{C.DIFFICULTIES[int(s['difficulty'])]} | Level {int(s['level'])} | "
        f"{C.PHASE_NAMES[ph]} =="
    )
    res = s["res"]
    lines.append(
        "Effort S/M/L: {}/{}/{}   Cunning {}  Food {}  Wood {}  Metal {}  Treasure {}".format(
            *[int(x) for x in res]
        )
    )
    tdesc = "(paid in Small Effort)" if int(s["level"]) == 4 and int(s["combat"]) else ""
    lines.append(f"Time: {int(s['time'])} {tdesc}  Ability uses: {int(s['uses'])}")
    ws = [ct.weapon_names[int(w)] for w in s["wstack"][: int(s["wstack_n"])]]
    w = int(s["wstack"][int(s["wstack_n"]) - 1])
    lines.append(
        "Weapon: "
        + " > ".join(ws)
        + (f"  (set aside: {int(s['waside_n'])})" if int(s["waside_n"]) else "")
    )
    for k in range(int(T.w_natk[w])):
        kind = "break" if int(T.w_atk_kind[w, k]) == 0 else "wound"
        lines.append(
            f"   attack_{k}: {ct.attack_names[w][k]} - {kind} {int(T.w_atk_power[w, k])} "
            f"for {_restable(T.w_atk_cost[w, k])}"
        )
    skills = [ct.skill_names[i] for i in range(len(ct.skill_names)) if s["skill_owned"][i]]
    lines.append("Skills: " + (", ".join(skills) if skills else "none"))
    conds = []
    for c, v, tokens, rounds in _conditions(s):
        tag = {1: "active", 2: "next Level", 3: "active+next"}[v]
        extra = (f" [{tokens} tokens]" if tokens else "") + (
            f" ({rounds} rounds)" if rounds else ""
        )
        conds.append(f"{ct.condition_names[c]} ({tag}){extra}")
    lines.append("Conditions: " + (", ".join(conds) if conds else "none"))
    if int(s["m_revealed"]):
        m = int(s["monster"])
        lines.append(
            f"Monster: {ct.monster_names[m]} (Level {int(T.m_level[m])} #{int(T.m_number[m])}) "
            f"Armor {int(s['m_armor'])}/{int(s['m_armor_max'])} "
            f"Health {int(s['m_health'])}/{int(s['m_health_max'])}"
            + ("  DEFENDING" if int(s["defend"]) else "")
        )
        if T.m_can_trick[m]:
            lines.append(f"   trickery: {_restable(T.m_trick[m], True)}")
        for f in range(6):
            alt = (
                (" [else " + _ops_text(ct, T.m_face_alt[m, f]) + "]")
                if T.m_face_has_alt[m, f]
                else ""
            )
            lines.append(
                f"   {f + 1}: {C.FACE_TYPES[int(T.m_face_type[m, f])]}: "
                f"{_ops_text(ct, T.m_face_ops[m, f]) or 'nothing'}{alt}"
            )
    else:
        lines.append("Monster: not yet revealed")
    if int(s["in_battle"]):
        lines.append(f"Battle round {int(s['round'])}")
    if int(s["roll"]):
        lines.append(f"Monster combat roll: {int(s['roll'])}")
    if int(s["commit"]) or int(s["commit_now"]):
        lines.append("Committed to the next encounter")
    if int(s["reveal_bonus"]):
        lines.append(f"Next exploration reveals {int(s['reveal_bonus']):+d} cards")
    for i in range(int(s["revealed_n"])):
        card = int(s["revealed"][i])
        extra = _ops_text(ct, T.e_ops[card])
        lines.append(
            f"Card {i}: {ct.encounter_names[card]} (time {int(T.e_time[card])}): "
            f"spend {_restable(T.e_spend[card], True)} -> gain {_restable(T.e_gain[card])}"
            + (f"; {extra}" if extra else "")
        )
    for i in range(int(s["skill_offer_n"])):
        sk = int(s["skill_offer"][i])
        lines.append(f"Skill offer {i}: {ct.skill_names[sk]} - {ct.skill_texts[sk]}")
    if ph == C.PH_HUNGER:
        lines.append(f"Food requirement: {int(s['hunger_req'])}")
    if ph == C.PH_RESPOND:
        lines.append(f"Response window: {C.TRIGGER_NAMES[int(s['win_trigger'])]}")
    if ph == C.PH_OVER:
        out = C.OUTCOME_NAMES[int(s["outcome"])]
        line = f"Game over: {out}"
        if out == "win":
            line += f", score {int(s['score'])} ({ct.title_names[int(s['title'])]})"
        lines.append(line)
    return "\n".join(lines)


def describe_action(core, s, a):
    """Readable label of action ``a`` in state ``s``: what it does here (the
    weapon's attack, the card, the ability, the costs), else the declared
    meaning of its range (``consts.ACTIONS``)."""
    ct = core.content
    T = core.T
    rng, k = C.ACTIONS.decode(a)
    w = int(s["wstack"][int(s["wstack_n"]) - 1])
    if rng == "craft":
        to = int(T.w_upg_to[w, k])
        if to >= 0:
            return f"craft {ct.weapon_names[to]} ({_restable(T.w_upg_cost[w, k], True)})"
    elif rng == "attack":
        if k < int(T.w_natk[w]):
            kind = "break" if int(T.w_atk_kind[w, k]) == 0 else "wound"
            return (
                f"attack: {ct.attack_names[w][k]} ({kind} {int(T.w_atk_power[w, k])}, "
                f"{_restable(T.w_atk_cost[w, k])})"
            )
    elif rng in ("resolve", "rest"):
        if k < int(s["revealed_n"]):
            card = int(s["revealed"][k])
            verb = "rest on" if rng == "rest" else "resolve"
            return f"{verb} {ct.encounter_names[card]}"
    elif rng in ("skill", "character", "monster"):
        ab = -1
        if rng == "skill":
            ab = int(T.s_ab[k])
        elif rng == "character":
            ab = int(T.char_ab[int(s["character"]), k])
        elif int(s["monster"]) >= 0:
            ab = int(T.m_opt[int(s["monster"]), k])
        if ab >= 0:
            cost = _restable(T.ab_cost[ab], True)
            return f"use {ct.ability_names[ab]} ({cost}): {_ops_text(ct, T.ab_ops[ab])}"
    elif rng == "focus":
        return f"Focus: {C.FOCUS_COST_S} small -> 1 medium"
    elif rng == "inspiration":
        return f"Inspiration: {C.INSPIRE_COST_M} medium -> 1 large"
    elif rng == "plan":
        return f"Plan: {C.PLAN_COST_S} small -> 1 cunning"
    elif rng == "orienteer":
        return (
            f"Orienteer: {C.ORIENTEER_COST_S} small, reveal {int(T.orienteer_bonus)} "
            f"more cards next exploration"
        )
    elif rng == "scout":
        sc = C.SCOUT_COST[int(s["level"]) - 1]
        return f"Scout: {sc[0]} small, {sc[1]} cunning, {sc[2]} time; reveal the monster"
    elif rng == "trick":
        if int(s["monster"]) >= 0:
            return f"trick the monster: {_restable(T.m_trick[int(s['monster'])], True)}"
    elif rng == "keep":
        if k < int(s["skill_offer_n"]):
            return f"keep skill {ct.skill_names[int(s['skill_offer'][k])]}"
    return C.ACTIONS.label(a, ct)


# ---------------------------------------------------------------------------
# rgb_array: the table as a picture
# ---------------------------------------------------------------------------
FRAME_W, FRAME_H = 960, 640
#: background, panel fill, panel edge, ink, dim ink
PAL = Palette((26, 24, 30), (40, 38, 48), (78, 74, 92), (236, 232, 224), (160, 156, 170))
RES_COLORS = (
    (250, 204, 92),
    (240, 146, 56),
    (214, 72, 52),
    (168, 120, 232),
    (112, 196, 92),
    (164, 112, 64),
    (168, 180, 196),
    (250, 220, 40),
)
TIME_COLOR = (96, 170, 240)
FACE_COLORS = {
    "wound": (214, 72, 52),
    "steal": (250, 204, 92),
    "reduce": (240, 146, 56),
    "condition": (168, 120, 232),
    "defend": (120, 150, 200),
    "time": TIME_COLOR,
    "heal": (112, 196, 92),
    "other": (160, 156, 170),
}
PHASE_ASK = {
    "preparation": "Preparation: craft, convert Effort, scout, then explore or fight",
    "exploration": "Exploration: resolve a revealed card, or rest on one",
    "trickery": "Trickery: pay to slip past the monster, or battle it",
    "battle_turn": "Your battle turn: attack with the weapon or use an ability",
    "extra_attack": "An extra attack is granted: attack again or pass",
    "response": "Response window: use a response ability or pass",
    "skill_reward": "Skill reward: keep one of the offered skills",
    "hunger": "Hunger: eat Food before the next Level",
    "game_over": "Game over",
}
RES_ABBR = ("S", "M", "L", "Cun", "Food", "Wood", "Metal", "Tres", "Time")


def _short(vec, with_time=False):
    parts = [f"{int(v)} {RES_ABBR[i]}" for i, v in enumerate(vec) if int(v)]
    return " ".join(parts) if parts else "-"


def _draw_resources(cv, core, s, x0, y0):
    T = core.T
    cv.panel(x0, y0, x0 + 460, y0 + 180, PAL, "RESOURCES")
    for r in range(C.NRES):
        y = y0 + 24 + r * 19
        v, mx = int(s["res"][r]), int(T.bars[r])
        cv.text((x0 + 12, y - 1), C.RES_NAMES[r].capitalize(), 14, PAL.ink)
        pip = 11 if mx <= 14 else 10
        gap = 3 if mx <= 14 else 2
        cv.pips(x0 + 96, y + 1, v, mx, RES_COLORS[r], pip=pip, gap=gap)
        cv.text((x0 + 448, y - 1), f"{v}/{mx}", 14, PAL.ink, anchor="ra")


def _draw_time(cv, core, s, x0, y0):
    T = core.T
    track = int(T.time_track)
    t = int(s["time"])
    lvl = int(s["level"])
    cv.panel(x0, y0, x0 + 460, y0 + 60, PAL, "TIME TRACK")
    paid = "  (Level 4 combat: paid in Small Effort)" if lvl == 4 and int(s["combat"]) else ""
    cv.text((x0 + 448, y0 + 6), f"{t} left{paid}", 13, PAL.ink, 300, anchor="ra")
    bw = min(26, (440 - 2 * track) // max(1, track))
    for i in range(track):
        x = x0 + 12 + i * (bw + 2)
        cv.box(x, y0 + 26, x + bw, y0 + 48, fill=TIME_COLOR if i < t else (58, 58, 68), radius=3)
        if i + 1 == int(T.time_start[lvl - 1]):
            cv.box(x, y0 + 50, x + bw, y0 + 53, fill=PAL.ink)
        cv.text(
            (x + bw / 2, y0 + 37), str(i + 1), 10, (20, 20, 26) if i < t else PAL.dim, anchor="mm"
        )


def _draw_weapon(cv, core, s, x0, y0):
    ct, T = core.content, core.T
    n = int(s["wstack_n"])
    w = int(s["wstack"][n - 1])
    cv.panel(x0, y0, x0 + 460, y0 + 108, PAL, "WEAPON")
    cv.text((x0 + 80, y0 + 4), ct.weapon_names[w], 17, (250, 220, 160), 220)
    below = " < ".join(ct.weapon_names[int(x)] for x in s["wstack"][: n - 1][::-1])
    aside = f"  set aside: {int(s['waside_n'])}" if int(s["waside_n"]) else ""
    cv.text(
        (x0 + 448, y0 + 8),
        (f"over {below}" if below else "") + aside,
        11,
        PAL.dim,
        150,
        anchor="ra",
    )
    for k in range(int(T.w_natk[w])):
        y = y0 + 28 + k * 19
        brk = int(T.w_atk_kind[w, k]) == 0
        col = (120, 150, 200) if brk else (214, 72, 52)
        cv.chip(
            x0 + 12,
            y,
            f"{'BREAK' if brk else 'WOUND'} {int(T.w_atk_power[w, k])}",
            12,
            col,
            max_w=90,
        )
        cv.text((x0 + 104, y + 2), ct.attack_names[w][k], 14, PAL.ink, 190)
        cv.text(
            (x0 + 448, y + 2), "cost " + _short(T.w_atk_cost[w, k]), 13, PAL.dim, 150, anchor="ra"
        )


def _chips(cv, x0, y0, w, items, size=12, rows=2):
    x, y = x0, y0
    for text, col in items:
        cw = cv.text_width(text, size) + 10
        if x + cw > x0 + w:
            x = x0
            y += size + 10
            if y >= y0 + rows * (size + 10):
                cv.text(
                    (x0 + w, y0 + rows * (size + 10) - size - 6), "...", size, PAL.dim, anchor="ra"
                )
                return
        x += cv.chip(x, y, text, size, col, max_w=w) + 5


def _draw_skills_conditions(cv, core, s, x0, y0):
    ct = core.content
    cv.panel(x0, y0, x0 + 460, y0 + 62, PAL, "SKILLS")
    owned = [
        (ct.skill_names[i], (200, 190, 120))
        for i in range(len(ct.skill_names))
        if s["skill_owned"][i]
    ]
    if owned:
        _chips(cv, x0 + 12, y0 + 22, 440, owned, size=11)
    else:
        cv.text((x0 + 12, y0 + 26), "none yet", 13, PAL.dim)
    y1 = y0 + 68
    cv.panel(x0, y1, x0 + 460, y1 + 62, PAL, "CONDITIONS")
    conds = []
    for c, v, tokens, rounds in _conditions(s):
        tag = {1: "", 2: " (next Level)", 3: " (+ next Level)"}[v]
        extra = (f" [{tokens}]" if tokens else "") + (f" {rounds} rnd" if rounds else "")
        col = (222, 110, 110) if v & 1 else (150, 120, 150)
        conds.append((ct.condition_names[c] + tag + extra, col))
    if conds:
        _chips(cv, x0 + 12, y1 + 22, 440, conds, size=11)
    else:
        cv.text((x0 + 12, y1 + 26), "none", 13, PAL.dim)


def _draw_monster(cv, core, s, x0, y0):
    ct, T = core.content, core.T
    lvl = int(s["level"])
    cv.panel(x0, y0, x0 + 460, y0 + 250, PAL, f"MONSTER OF LEVEL {lvl}")
    if not int(s["m_revealed"]):
        cv.box(
            x0 + 150, y0 + 40, x0 + 310, y0 + 230, fill=(58, 44, 66), outline=PAL.edge, radius=10
        )
        cv.text((x0 + 230, y0 + 120), "?", 64, (120, 100, 140), anchor="mm")
        cv.text((x0 + 230, y0 + 200), "not yet revealed", 13, PAL.dim, anchor="mm")
        return
    m = int(s["monster"])
    cv.text((x0 + 12, y0 + 22), ct.monster_names[m], 20, (250, 200, 170), 300)
    cv.text(
        (x0 + 448, y0 + 26),
        f"Level {int(T.m_level[m])}  #{int(T.m_number[m])}",
        13,
        PAL.dim,
        anchor="ra",
    )
    am, hm = int(s["m_armor_max"]), int(s["m_health_max"])
    a, h = int(s["m_armor"]), int(s["m_health"])
    cv.text((x0 + 12, y0 + 54), "Armor", 13, PAL.ink)
    cv.bar(x0 + 70, y0 + 53, 160, 16, a, max(am, 1), (120, 150, 200), label=f"{a}/{am}")
    cv.text((x0 + 244, y0 + 54), "Health", 13, PAL.ink)
    cv.bar(x0 + 300, y0 + 53, 148, 16, h, max(hm, 1), (214, 72, 52), label=f"{h}/{hm}")
    flags = []
    if int(s["defend"]):
        flags.append("DEFENDING")
    if int(s["in_battle"]):
        flags.append(f"battle round {int(s['round'])}")
    if int(s["roll"]):
        flags.append(f"combat roll: {int(s['roll'])}")
    if T.m_can_trick[m]:
        flags.append("trick: " + _short(T.m_trick[m], True))
    cv.text((x0 + 12, y0 + 76), "   ".join(flags), 13, (250, 220, 160), 436)
    roll = int(s["roll"])
    for f in range(6):
        y = y0 + 98 + f * 24
        ftype = C.FACE_TYPES[int(T.m_face_type[m, f])]
        hi = roll == f + 1
        cv.box(x0 + 10, y, x0 + 450, y + 22, fill=(78, 60, 50) if hi else (50, 48, 58), radius=4)
        cv.box(x0 + 14, y + 3, x0 + 32, y + 19, fill=PAL.ink, radius=3)
        cv.text((x0 + 23, y + 11), str(f + 1), 13, (20, 20, 26), anchor="mm")
        cv.chip(x0 + 38, y + 2, ftype, 11, FACE_COLORS.get(ftype, PAL.dim), max_w=80)
        txt = _ops_text(ct, T.m_face_ops[m, f]) or "nothing"
        if T.m_face_has_alt[m, f]:
            txt += "  [else " + _ops_text(ct, T.m_face_alt[m, f]) + "]"
        cv.text((x0 + 122, y + 4), txt, 12, PAL.ink, 322)


def _draw_cards(cv, core, s, x0, y0):
    ct, T = core.content, core.T
    cv.panel(x0, y0, x0 + 460, y0 + 230, PAL)
    n_off = int(s["skill_offer_n"])
    if n_off:
        cv.text((x0 + 10, y0 + 6), "SKILL OFFER", 13, PAL.dim)
        for i in range(n_off):
            sk = int(s["skill_offer"][i])
            y = y0 + 28 + i * 100
            cv.box(
                x0 + 10, y, x0 + 450, y + 94, fill=(62, 58, 44), outline=(200, 190, 120), radius=6
            )
            cv.text((x0 + 20, y + 6), ct.skill_names[sk], 16, (250, 230, 160), 420)
            cv.wrap((x0 + 20, y + 30), ct.skill_texts[sk], 12, 420, 4, PAL.ink)
        return
    n = int(s["revealed_n"])
    bonus = (
        f"   next exploration {int(s['reveal_bonus']):+d} cards" if int(s["reveal_bonus"]) else ""
    )
    commit = "   committed" if int(s["commit"]) or int(s["commit_now"]) else ""
    cv.text((x0 + 10, y0 + 6), f"REVEALED ENCOUNTERS ({n}){bonus}{commit}", 13, PAL.dim, 440)
    if not n:
        cv.text((x0 + 230, y0 + 120), "no encounter card on the table", 13, PAL.dim, anchor="mm")
        return
    rh = min(48, 202 // n)
    for i in range(n):
        card = int(s["revealed"][i])
        y = y0 + 26 + i * rh
        cv.box(x0 + 10, y, x0 + 450, y + rh - 4, fill=(52, 62, 56), radius=5)
        cv.box(x0 + 10, y, x0 + 16, y + rh - 4, fill=(112, 196, 92), radius=2)
        cv.text((x0 + 22, y + 2), ct.encounter_names[card], 14, PAL.ink, 230)
        cv.text((x0 + 444, y + 2), f"time {int(T.e_time[card])}", 12, TIME_COLOR, anchor="ra")
        line = f"spend {_short(T.e_spend[card], True)}  ->  gain {_short(T.e_gain[card])}"
        extra = _ops_text(ct, T.e_ops[card])
        if extra:
            line += "; " + extra
        if rh >= 34:
            cv.text((x0 + 22, y + 19), line, 12, PAL.dim, 420)
        else:
            cv.text((x0 + 260, y + 3), line, 11, PAL.dim, 130)


def _draw_footer(cv, core, s, x0, y0):
    ph = C.PHASE_NAMES[int(s["phase"])]
    cv.panel(x0, y0, FRAME_W - 12, FRAME_H - 8, PAL)
    if ph == "game_over":
        out = C.OUTCOME_NAMES[int(s["outcome"])]
        msg = f"Game over: {out}"
        if out == "win":
            msg += f", score {int(s['score'])} ({core.content.title_names[int(s['title'])]})"
        cv.text((x0 + 12, y0 + 10), msg, 18, (250, 220, 160), FRAME_W - 50)
        return
    ask = PHASE_ASK.get(ph, ph)
    if ph == "hunger":
        ask += f" (requirement {int(s['hunger_req'])})"
    if ph == "response":
        ask += f" ({C.TRIGGER_NAMES[int(s['win_trigger'])].replace('_', ' ')})"
    cv.text((x0 + 12, y0 + 6), ask, 15, (250, 220, 160), FRAME_W - 50)
    legal = [int(a) for a in np.flatnonzero(s["legal"])]
    labels = [describe_action(core, s, a) for a in legal]
    corner = (FRAME_W - 24, FRAME_H - 28)
    cv.chip_rows(labels, (x0 + 12, y0 + 28), corner, PAL, 12, (70, 86, 110), 300, 20, 6)


def render_rgb(core, s):
    """The table as an RGB picture (``uint8``, ``(FRAME_H, FRAME_W, 3)``)."""
    from ..core.authoring.draw import Canvas

    ct = core.content
    cv = Canvas(FRAME_W, FRAME_H, PAL.bg)
    ph = int(s["phase"])
    cv.box(0, 0, FRAME_W, 40, fill=(58, 40, 40))
    cv.text((14, 8), "UNBROKEN", 20, (250, 220, 160))
    cv.text(
        (140, 11),
        f"{ct.character_names[int(s['character'])]}  |  "
        f"{C.DIFFICULTIES[int(s['difficulty'])]}  |  Level {int(s['level'])} of 4  |  "
        f"{C.PHASE_NAMES[ph].replace('_', ' ')}",
        16,
        PAL.ink,
        640,
    )
    cv.text(
        (FRAME_W - 14, 11),
        f"ability uses {int(s['uses'])}   step {int(s['steps'])}",
        14,
        PAL.dim,
        anchor="ra",
    )
    _draw_resources(cv, core, s, 12, 48)
    _draw_time(cv, core, s, 12, 234)
    _draw_weapon(cv, core, s, 12, 300)
    _draw_skills_conditions(cv, core, s, 12, 414)
    _draw_monster(cv, core, s, 488, 48)
    _draw_cards(cv, core, s, 488, 304)
    _draw_footer(cv, core, s, 12, 550)
    return cv.array()
