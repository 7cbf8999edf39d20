"""What things are worth to the Unbroken heuristic (numba), the first half of
its scripted policy (``policy.py`` holds the decisions by phase).

* resource values: one unit of each resource in Small Effort, shifted by
  what the coming Levels need (Food for Hunger, Wood and Metal for the
  weapon path, Effort for the fight);
* monsters: the expected harm of a face, a monster turn, an Ambush;
* fight planning: the cheapest way to finish a fight from here (weapon
  attacks and abilities, their costs, the harm of the turns they leave);
* abilities: the value of a travel ability, a Response or a Skill.

Like the policy it reads only what the player can see.
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.jit import JIT, JIT_INLINE, njit
from . import consts as C
from .rules import (
    add_attack_surcharges,
    can_pay,
    ops_applicable,
    pmod_any,
    pmod_min,
    pmod_sum,
    weapon,
)

# base value of one unit of each resource, in Small Effort
VAL = np.array([1.0, 2.2, 3.6, 2.0, 2.0, 1.6, 1.8, 0.3], np.float64)


SHORT_BONUS = 0.6
SCOUT_LOW = False
SCOUT_L4 = False
SCOUT_L3 = True
TAU = 1.5  # opportunity value of one Time unit in the Travel Phase
USE_COST = 0.8  # value of one character Ability Use

# a passive Skill's worth per point of its modifier (NaN: a flat worth)
PASSIVE_PER_POINT = np.full(C.NMOD, np.nan)
for _mod, _worth in (
    (C.PM_WOUND_REDUCE, 6.0),
    (C.PM_WEAPON_POWER, 5.0),
    (C.PM_BREAK_POWER, 2.5),
    (C.PM_REST_BONUS, 3.0),
    (C.PM_FOOD_REQ, -4.0),
    (C.PM_REVEAL, 3.0),
    (C.PM_TRICK_DISCOUNT, 2.5),
    (C.PM_TIME_START, 1.5),
    (C.PM_MONSTER_ROLL, -3.0),
):
    PASSIVE_PER_POINT[_mod] = _worth


# ---------------------------------------------------------------------------
# resource values
# ---------------------------------------------------------------------------


@njit(**JIT)
def food_need(st, T):
    """Food still to be eaten in this and the coming Hunger Steps."""
    req = 0
    fr = pmod_sum(st, T, C.PM_FOOD_REQ)
    for lv in range(st.level, 5):
        req += max(0, lv + fr)
    return req


@njit(**JIT)
def upg_cost(T, w, j, r):
    return T.w_upg_cost[w, j, r]


@njit(**JIT)
def weapon_quality(st, T, w):
    """Estimated cost of beating a reference Level 3-4 monster (Armor 2,
    Health 12, 2.5 harm a turn) with weapon ``w`` (lower is better)."""
    return plan_cost(st, T, w, 2, 12, 2.5, False, 100)


@njit(**JIT)
def path_score(st, T, w, wood, metal):
    """How good a weapon path ending at ``w`` that costs ``wood`` and
    ``metal`` is (lower is better): the weapon's quality plus the materials
    still missing."""
    short = max(0, wood - st.res[C.R_WOOD]) + max(0, metal - st.res[C.R_METAL])
    return weapon_quality(st, T, w) + 3.0 * short


@njit(**JIT)
def material_need(st, T):
    """(wood, metal) still needed along the best weapon path from here."""
    w = weapon(st)
    if T.w_tier[w] == 1:
        return 0, 0
    best = 1e9
    bw = 0
    bm = 0
    for j in range(C.MAX_UPGRADES):
        w1 = T.w_upg_to[w, j]
        if w1 < 0:
            continue
        cw = upg_cost(T, w, j, C.R_WOOD)
        cm = upg_cost(T, w, j, C.R_METAL)
        cands = 0
        for j2 in range(C.MAX_UPGRADES):
            w2 = T.w_upg_to[w1, j2]
            if w2 < 0:
                continue
            cands += 1
            tw = cw + upg_cost(T, w1, j2, C.R_WOOD)
            tm = cm + upg_cost(T, w1, j2, C.R_METAL)
            sc = path_score(st, T, w2, tw, tm)
            if sc < best:
                best = sc
                bw = tw
                bm = tm
        if cands == 0:
            sc = path_score(st, T, w1, cw, cm)
            if sc < best:
                best = sc
                bw = cw
                bm = cm
    return bw, bm


@njit(**JIT)
def has_ability_cost(st, T, r):
    """Does one of the character's abilities or owned Skills spend ``r``?"""
    for j in range(C.MAX_CHAR_AB):
        a = T.char_ab[st.character, j]
        if a >= 0 and T.ab_cost[a, r] > 0:
            return True
    for i in range(T.n_skills):
        if st.skill_owned[i] == 1 and T.ab_cost[T.s_ab[i], r] > 0:
            return True
    return False


@njit(**JIT)
def effort_worth(st):
    """Effort held, Medium and Large at their attack worth."""
    return st.res[C.R_S] + 2.0 * st.res[C.R_M] + 3.0 * st.res[C.R_L]


@njit(**JIT)
def effort_need(st, T):
    """Effort the rest of this Level will likely ask for: the fight (the
    revealed monster, else the mean over the Level's monster sheets) and the
    coming Hunger Step, plus a reserve for the next Level."""
    w = weapon(st)
    if st.m_revealed == 1:
        m = st.monster
        f = plan_cost(st, T, w, st.m_armor, st.m_health, monster_harm(st, T, m, VAL), True, 100)
    else:
        f = 0.0
        for k in range(C.PER_LEVEL):
            m = T.m_by_level[st.level - 1, k]
            f += plan_cost(
                st, T, w, T.m_armor[m], T.m_health[m], monster_harm(st, T, m, VAL), True, 100
            )
        f /= C.PER_LEVEL
    miss = max(0, st.level - st.res[C.R_FOOD])
    return f + miss * (miss + 1) / 2.0 + (3.0 if st.level < 4 else 0.0)


@njit(**JIT)
def res_values(st, T):
    """Value of one more unit of each resource now (Small Effort units)."""
    v = VAL.copy()
    ratio = effort_worth(st) / max(1.0, effort_need(st, T))
    k = 1.0
    if ratio < 1.4:
        k = 1.0 + SHORT_BONUS * min(1.0, (1.4 - ratio) / 0.8)
    v[C.R_S] = k
    v[C.R_M] = VAL[C.R_M] * k
    v[C.R_L] = VAL[C.R_L] * k
    fneed = food_need(st, T)
    if st.res[C.R_FOOD] >= fneed:
        v[C.R_FOOD] = 0.4
    elif st.res[C.R_FOOD] < st.level:
        v[C.R_FOOD] = 2.4
    else:
        v[C.R_FOOD] = 1.6
    nw, nm = material_need(st, T)
    v[C.R_WOOD] = 2.4 if st.res[C.R_WOOD] < nw else 0.5
    v[C.R_METAL] = 2.6 if st.res[C.R_METAL] < nm else 0.6
    if has_ability_cost(st, T, C.R_WOOD):
        v[C.R_WOOD] = max(v[C.R_WOOD], 1.8 if st.res[C.R_WOOD] < 4 else 0.8)
    if has_ability_cost(st, T, C.R_METAL):
        v[C.R_METAL] = max(v[C.R_METAL], 1.8 if st.res[C.R_METAL] < 4 else 0.8)
    # Cunning: a little for abilities and Scouting, more on the way to a
    # Level 4 Trickery Cost
    c = st.res[C.R_CUN]
    if st.level >= 3:
        v[C.R_CUN] = 2.2 if c < 7 else 0.5
    elif has_ability_cost(st, T, C.R_CUN):
        v[C.R_CUN] = 2.2 if c < 2 else (1.2 if c < 5 else 0.4)
    else:
        v[C.R_CUN] = 1.6 if c < 3 else 0.5
    if st.res[C.R_S] >= T.bars[C.R_S] - 2:
        v[C.R_S] = 0.5
    return v


# ---------------------------------------------------------------------------
# monsters
# ---------------------------------------------------------------------------


@njit(**JIT)
def ops_harm(st, T, ops, vals):
    """Estimated harm (Small Effort units) of monster ops on the player."""
    h = 0.0
    wr = pmod_sum(st, T, C.PM_WOUND_REDUCE)
    for i in range(C.MAXOPS):
        code = ops[i, 0]
        a = ops[i, 1]
        b = ops[i, 2]
        if code == C.OP_NONE:
            break
        if code == C.OP_WOUND:
            h += max(0, b - wr)
        elif code == C.OP_LOSE:
            if a <= C.R_L:
                h += b * 1.0
            else:
                h += min(b, st.res[a]) * vals[a]
        elif code == C.OP_REDUCE:
            h += b * vals[a] - ops[i, 4] * vals[ops[i, 3]]
        elif code == C.OP_LOSE_TIME:
            h += b * (1.0 if st.level == 4 else 0.6)
        elif code == C.OP_DEFEND:
            h += 1.5
        elif code == C.OP_CONDITION:
            h += 1.5 + 0.5 * ops[i, 4]
        elif code == C.OP_TOKENS:
            h += 0.5 * b
        elif code == C.OP_DOWNGRADE:
            if st.wstack_n > 1:
                h += 1.5 if ops[i, 3] == 0 else 5.0
        elif code == C.OP_MON_ARMOR or code == C.OP_MON_HEALTH or code == C.OP_MON_HEAL:
            h += 1.2 * b
        elif code == C.OP_SKIP_TURN:
            h += 2.0
    return h


@njit(**JIT)
def face_harm(st, T, m, f, vals):
    if pmod_any(st, T, C.PM_IGNORE, T.m_face_type[m, f]):
        return 0.0
    if ops_applicable(st, T, T.m_face_ops[m, f]) or T.m_face_has_alt[m, f] == 0:
        return ops_harm(st, T, T.m_face_ops[m, f], vals)
    return ops_harm(st, T, T.m_face_alt[m, f], vals)


@njit(**JIT)
def monster_harm(st, T, m, vals):
    """Average harm of one monster turn, with the roll modifiers in play."""
    mr = pmod_sum(st, T, C.PM_MONSTER_ROLL)
    h = 0.0
    for d in range(1, 7):
        f = max(1, min(6, d + mr)) - 1
        h += face_harm(st, T, m, f, vals)
    h /= 6.0
    # round-end responses of the sheet (regrowth and the like)
    for i in range(T.trig_n[C.T_ROUND_END]):
        a = T.trig_ab[C.T_ROUND_END, i]
        if T.ab_owner_kind[a] == C.OWN_MONSTER and T.ab_owner[a] == m:
            h += ops_harm(st, T, T.ab_ops[a], vals)
    for c in range(C.NCOND):
        if (st.cond[c] & 1) == 1:
            for i in range(T.trig_n[C.T_ROUND_END]):
                a = T.trig_ab[C.T_ROUND_END, i]
                if T.ab_owner_kind[a] == C.OWN_COND and T.ab_owner[a] == c:
                    h += ops_harm(st, T, T.ab_ops[a], vals)
            for i in range(T.trig_n[C.T_TURN_START]):
                a = T.trig_ab[C.T_TURN_START, i]
                if T.ab_owner_kind[a] == C.OWN_COND and T.ab_owner[a] == c:
                    h += ops_harm(st, T, T.ab_ops[a], vals)
    return h


@njit(**JIT)
def trick_affordable(st, T, m):
    """Could the Trickery Cost of monster ``m`` be paid from what is held?"""
    if T.m_can_trick[m] == 0 or pmod_any(st, T, C.PM_NO_TRICK, -1):
        return False
    cost = T.m_trick[m].copy()
    cost[C.R_CUN] = max(0, cost[C.R_CUN] - pmod_sum(st, T, C.PM_TRICK_DISCOUNT))
    cost[C.R_TIME] = 0
    return can_pay(st, cost, 0)


@njit(**JIT)
def level_ambush(st, T, vals):
    """Expected cost of being Ambushed: the monster's Ambush effect (the
    revealed one's, else the Level's mean) and the Trickery it rules out."""
    if st.m_revealed == 1:
        h = ops_harm(st, T, T.m_ambush[st.monster], vals) + 0.5
        if trick_affordable(st, T, st.monster):
            if st.level == 4:
                h += 20.0
            else:
                gain = trick_gain(st, T, vals)
                if gain > 0.0:
                    h += gain
        return h
    h = 0.0
    for k in range(C.PER_LEVEL):
        m = T.m_by_level[st.level - 1, k]
        h += ops_harm(st, T, T.m_ambush[m], vals)
        if trick_affordable(st, T, m):
            h += 20.0 if st.level == 4 else 0.0
    return h / C.PER_LEVEL + 0.5


# ---------------------------------------------------------------------------
# fight planning
# ---------------------------------------------------------------------------


@njit(**JIT)
def atk_cost_vec(st, T, w, k):
    """Cost of weapon attack ``k`` of weapon ``w``, with the surcharges of a
    battle under way (a copy: the policy never writes to the record)."""
    cost = T.w_atk_cost[w, k].copy()
    if st.combat == 1:
        add_attack_surcharges(st, T, cost)
    return cost


@njit(**JIT)
def atk_power(st, T, w, k):
    p = T.w_atk_power[w, k]
    if T.w_atk_kind[w, k] == 0:
        p += pmod_sum(st, T, C.PM_BREAK_POWER)
    else:
        p += pmod_sum(st, T, C.PM_WEAPON_POWER)
        p = min(p, pmod_min(st, T, C.PM_MAX_WOUNDS, 1 << 14))
    return max(0, p)


@njit(**JIT)
def uses_cost(st, T, cost, n, held):
    """Value of paying ``cost`` ``n`` times; Medium and Large Effort beyond
    what is held (``held`` False: assume held) are priced as Focus /
    Inspiration conversions."""
    v = 0.0
    v += cost[C.R_S] * n
    for r in range(C.R_CUN, C.NRES):
        v += cost[r] * n * VAL[r]
        if held and cost[r] * n > st.res[r]:
            v += 50.0
    needm = cost[C.R_M] * n
    needl = cost[C.R_L] * n
    if held:
        hl = st.res[C.R_L]
        hm = st.res[C.R_M]
        ul = min(needl, hl)
        v += ul * 3.0 + (needl - ul) * 9.5
        hl -= ul
        um = min(needm, hm)
        v += um * 2.0
        rest = needm - um
        ul2 = min(rest, hl)
        v += ul2 * 3.0 + (rest - ul2) * 5.0
    else:
        v += needm * 2.2 + needl * 3.6
    return v


@njit(**JIT)
def plan_cost(st, T, w, armor, health, harm, held, nturn_cap):
    """Estimated cost (Effort spent plus harm taken) of removing ``armor``
    then ``health`` with repeated uses of the best single attack of weapon
    ``w`` for each part."""
    total = 0.0
    for part in range(2):
        x = armor if part == 0 else health
        if x <= 0:
            continue
        kind = part
        best = 1e6
        for k in range(T.w_natk[w]):
            if T.w_atk_kind[w, k] != kind:
                continue
            p = atk_power(st, T, w, k)
            if p <= 0:
                continue
            n = (x + p - 1) // p
            c = uses_cost(st, T, atk_cost_vec(st, T, w, k), n, held) + n * harm
            if c < best:
                best = c
        if best > 1e5:
            best = 4.0 * x + x * harm  # no such attack: crude
        total += best
    return total


@njit(**JIT)
def fight_cost(st, T, armor, health):
    vals = res_values(st, T)
    harm = monster_harm(st, T, st.monster, vals)
    return plan_cost(st, T, weapon(st), armor, health, harm, True, 100)


@njit(**JIT)
def trick_gain(st, T, vals):
    """How much better tricking the revealed monster looks than fighting it
    (<= 0: fight). A fight that looks unaffordable makes it large."""
    m = st.monster
    need = fight_cost(st, T, st.m_armor, st.m_health)
    budget = effort_worth(st)
    cost = T.m_trick[m].copy()
    cost[C.R_CUN] = max(0, cost[C.R_CUN] - pmod_sum(st, T, C.PM_TRICK_DISCOUNT))
    tc = cost_value(cost, vals)
    rew = 5.0  # the Skill
    for r in range(C.NRES):
        rew += T.m_reward[m, r] * vals[r]
    g = need - rew - tc
    if need > 0.85 * budget:
        g = max(g, 10.0)
    return g


# ---------------------------------------------------------------------------
# abilities
# ---------------------------------------------------------------------------


@njit(**JIT)
def cost_value(cost, vals):
    v = 0.0
    for r in range(C.NRES):
        v += cost[r] * vals[r]
    v += cost[C.R_TIME] * TAU
    return v


@njit(**JIT_INLINE)
def gain_value(st, T, ab, i, vals):
    """Worth of op ``i`` of ability ``ab``, a Gain (per Level when flagged),
    as much as fits under the resource's bar, at the values ``vals``."""
    a = T.ab_ops[ab, i, 1]
    n = T.ab_ops[ab, i, 2] * (st.level if T.ab_ops[ab, i, 3] == 1 else 1)
    n = min(n, T.bars[a] - st.res[a])
    return n * vals[a]


@njit(**JIT)
def travel_ability_value(st, T, ab, vals):
    """Value of a Travel/General action ability used in the Preparation Step."""
    s = 0.0
    for i in range(C.MAXOPS):
        code = T.ab_ops[ab, i, 0]
        if code == C.OP_NONE:
            break
        b = T.ab_ops[ab, i, 2]
        if code == C.OP_GAIN:
            s += gain_value(st, T, ab, i, vals)
        elif code == C.OP_GAIN_TIME:
            s += TAU * min(b, T.time_track - st.time)
        elif code == C.OP_REVEAL:
            s += 0.4 * b
        elif code == C.OP_CURE or code == C.OP_CLEANSE:
            s += 0.5
        else:
            s -= 1.0
    s -= cost_value(T.ab_cost[ab], vals)
    if T.ab_owner_kind[ab] == C.OWN_CHAR:
        s -= USE_COST * (1.5 if st.level == 1 else 1.0)
    return s


@njit(**JIT)
def response_value(st, T, ab, vals):
    """Value of using an optional Response now."""
    s = 0.0
    m = st.monster
    for i in range(C.MAXOPS):
        code = T.ab_ops[ab, i, 0]
        if code == C.OP_NONE:
            break
        a = T.ab_ops[ab, i, 1]
        b = T.ab_ops[ab, i, 2]
        if code == C.OP_GAIN:
            s += gain_value(st, T, ab, i, vals)
        elif code == C.OP_GAIN_TIME:
            if st.level < 4:
                s += TAU * b
        elif code == C.OP_ROLL:
            if st.roll > 0 and m >= 0:
                nr = max(1, min(6, st.roll + b))
                s += face_harm(st, T, m, st.roll - 1, vals) - face_harm(st, T, m, nr - 1, vals)
        elif code == C.OP_REROLL:
            if st.roll > 0 and m >= 0:
                s += face_harm(st, T, m, st.roll - 1, vals) - monster_harm(st, T, m, vals) - 0.3
        elif code == C.OP_POWER:
            if st.pend_atk >= 0 and st.defend == 0:
                w = weapon(st)
                k = st.pend_atk
                p = st.pend_power
                if T.w_atk_kind[w, k] == 0:
                    tgt = st.m_armor
                    cap = 1 << 14
                else:
                    tgt = st.m_health
                    cap = pmod_min(st, T, C.PM_MAX_WOUNDS, 1 << 14)
                gainp = min(p + b, cap, tgt) - min(p, cap, tgt)
                s += 1.8 * gainp
        elif code == C.OP_DAMAGE:
            if st.in_battle == 1 and (st.m_armor == 0 or T.ab_ops[ab, i, 3] == 1):
                s += 1.8 * min(b, st.m_health)
        elif code == C.OP_BREAK:
            if st.in_battle == 1:
                s += 1.5 * min(b, st.m_armor)
        elif code == C.OP_EVADE:
            c = a
            if (st.cond[c] & 1) == 1:
                s += 4.0 * min(6, st.cond_tokens[c]) / 6.0
        elif code == C.OP_EXTRA_ATTACK:
            s += 3.0
        elif code == C.OP_USES:
            s += USE_COST * b
        elif code == C.OP_CURE or code == C.OP_CLEANSE:
            s += 1.0
        elif code == C.OP_MON_HEAL or code == C.OP_MON_HEALTH or code == C.OP_MON_ARMOR:
            s -= 1.2 * b
        elif code == C.OP_WOUND:
            s -= b
    s -= cost_value(T.ab_cost[ab], vals)
    if T.ab_owner_kind[ab] == C.OWN_CHAR:
        s -= USE_COST
    return s


@njit(**JIT)
def skill_value(st, T, ab):
    """Static worth of a Skill card for the rest of the game."""
    k = T.ab_kind[ab]
    if k == C.K_PASSIVE:
        mod = T.ab_pmod[ab]
        n = T.ab_pn[ab]
        per_point = PASSIVE_PER_POINT[mod]
        if not np.isnan(per_point):
            return per_point * n
        if mod == C.PM_IGNORE:
            return 2.0
        return 1.0
    # responses and actions: rough value of the ops per use
    s = 0.0
    for i in range(C.MAXOPS):
        code = T.ab_ops[ab, i, 0]
        if code == C.OP_NONE:
            break
        a = T.ab_ops[ab, i, 1]
        b = T.ab_ops[ab, i, 2]
        if code == C.OP_GAIN:
            s += b * (2.5 if T.ab_ops[ab, i, 3] == 1 else 1.0) * VAL[a]
        elif code == C.OP_DAMAGE:
            s += 1.6 * b + (0.5 if T.ab_ops[ab, i, 3] == 1 else 0.0)
        elif code == C.OP_BREAK:
            s += 1.2 * b
        elif code == C.OP_POWER:
            s += 1.4 * b
        elif code == C.OP_ROLL:
            s += 1.0
        elif code == C.OP_REROLL:
            s += 1.2
        elif code == C.OP_EXTRA_ATTACK:
            s += 3.0
        elif code == C.OP_GAIN_TIME:
            s += TAU * b
        elif code == C.OP_SKILL:
            s += 4.0
    c = 0.0
    for r in range(C.NRES):
        c += T.ab_cost[ab, r] * VAL[r]
    s -= 0.8 * c
    if (
        T.ab_trigger[ab] == C.T_BATTLE_START
        or T.ab_trigger[ab] == C.T_LEVEL_START
        or T.ab_trigger[ab] == C.T_VICTORY
    ):
        s *= 1.0
    return max(0.3, s)
