"""Text rendering of an Unbroken game (the Display) and readable action
labels, for ``render_mode="ansi"`` and ``dungeonrl play unbroken``."""
from __future__ import annotations

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
            when = C.WHEN_NAMES[b]
            extra = f" {c} rounds" if b == C.WHEN_ROUNDS else ""
            tok = f" [{d}]" if d else ""
            out.append(f"{content.condition_names[a]} ({when}{extra}){tok}")
        elif code in (C.OP_TOKENS, C.OP_CLEANSE, C.OP_EVADE):
            out.append(f"{name} {content.condition_names[a]} {b if code == C.OP_TOKENS else ''}".strip())
        elif code == C.OP_DOWNGRADE:
            out.append("downgrade weapon " + ("permanently" if c else f"for {b} rounds"))
        elif code == C.OP_DAMAGE:
            out.append(f"deal {b} wounds{' (ignores armor)' if c else ''}")
        elif code in (C.OP_DEFEND, C.OP_COMMIT, C.OP_CURE, C.OP_SKILL, C.OP_EXTRA_ATTACK,
                      C.OP_REROLL, C.OP_STRUGGLE, C.OP_TICK, C.OP_SKIP_TURN):
            out.append(name.upper() if code == C.OP_DEFEND else name)
        else:
            out.append(f"{name} {b}")
    return "; ".join(out)


def render_text(core, s):
    ct = core.content
    T = core.T
    lines = []
    ph = int(s["phase"])
    lines.append(f"== Unbroken | {ct.character_names[int(s['character'])]} | "
                 f"{C.DIFFICULTIES[int(s['difficulty'])]} | Level {int(s['level'])} | "
                 f"{C.PHASE_NAMES[ph]} ==")
    res = s["res"]
    lines.append("Effort S/M/L: {}/{}/{}   Cunning {}  Food {}  Wood {}  Metal {}  Treasure {}".format(
        *[int(x) for x in res]))
    tdesc = "(paid in Small Effort)" if int(s["level"]) == 4 and int(s["combat"]) else ""
    lines.append(f"Time: {int(s['time'])} {tdesc}  Ability uses: {int(s['uses'])}")
    ws = [ct.weapon_names[int(w)] for w in s["wstack"][: int(s["wstack_n"])]]
    w = int(s["wstack"][int(s["wstack_n"]) - 1])
    lines.append("Weapon: " + " > ".join(ws) + (f"  (set aside: {int(s['waside_n'])})" if int(s["waside_n"]) else ""))
    for k in range(int(T.w_natk[w])):
        kind = "break" if int(T.w_atk_kind[w, k]) == 0 else "wound"
        lines.append(f"   attack_{k}: {ct.attack_names[w][k]} - {kind} {int(T.w_atk_power[w, k])} "
                     f"for {_restable(T.w_atk_cost[w, k])}")
    skills = [ct.skill_names[i] for i in range(len(ct.skill_names)) if s["skill_owned"][i]]
    lines.append("Skills: " + (", ".join(skills) if skills else "none"))
    conds = []
    for c in range(C.NCOND):
        v = int(s["cond"][c])
        if v:
            tag = {1: "active", 2: "next Level", 3: "active+next"}[v]
            extra = ""
            if int(s["cond_tokens"][c]):
                extra += f" [{int(s['cond_tokens'][c])} tokens]"
            if int(s["cond_rounds"][c]):
                extra += f" ({int(s['cond_rounds'][c])} rounds)"
            conds.append(f"{ct.condition_names[c]} ({tag}){extra}")
    lines.append("Conditions: " + (", ".join(conds) if conds else "none"))
    if int(s["m_revealed"]):
        m = int(s["monster"])
        lines.append(f"Monster: {ct.monster_names[m]} (Level {int(T.m_level[m])} #{int(T.m_number[m])}) "
                     f"Armor {int(s['m_armor'])}/{int(s['m_armor_max'])} "
                     f"Health {int(s['m_health'])}/{int(s['m_health_max'])}"
                     + ("  DEFENDING" if int(s["defend"]) else ""))
        if T.m_can_trick[m]:
            lines.append(f"   trickery: {_restable(T.m_trick[m], True)}")
        for f in range(6):
            alt = (" [else " + _ops_text(ct, T.m_face_alt[m, f]) + "]") if T.m_face_has_alt[m, f] else ""
            lines.append(f"   {f + 1}: {C.FACE_TYPES[int(T.m_face_type[m, f])]}: "
                         f"{_ops_text(ct, T.m_face_ops[m, f]) or 'nothing'}{alt}")
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
        lines.append(f"Card {i}: {ct.encounter_names[card]} (time {int(T.e_time[card])}): "
                     f"spend {_restable(T.e_spend[card], True)} -> gain {_restable(T.e_gain[card])}"
                     + (f"; {extra}" if extra else ""))
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
            return (f"attack: {ct.attack_names[w][k]} ({kind} {int(T.w_atk_power[w, k])}, "
                    f"{_restable(T.w_atk_cost[w, k])})")
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
        return (f"Orienteer: {C.ORIENTEER_COST_S} small, reveal {int(T.orienteer_bonus)} "
                f"more cards next exploration")
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
