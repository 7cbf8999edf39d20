"""A scripted heuristic player for Unbroken (numba): the game's
``policy_row``. The engine's generated loops (``kernels.policy_rows``,
``play_rows``) play it inside numba; ``agents/unbroken_heuristic.py`` wraps it
as an agent.

The heuristic reads only what the player can see (resources, weapon, Skills,
Conditions, the revealed monster, the public monster sheets of a Level, the
cards on the table); it never looks at deck order or an unrevealed monster.
Its plan:

* Travel: craft towards the best reachable Advanced weapon as soon as it is
  affordable, use travel abilities worth their cost, scout only when it is
  nearly free (Level 3 with Cunning at the bar: in this content Scouting's
  Effort and Time cost more than the knowledge is worth to it), value
  each revealed card (gains minus spends at resource values that follow its
  needs: Food for the coming Hunger Steps, Wood and Metal for its weapon
  path, Cunning for Trickery) minus an opportunity cost per Time unit against
  resting (Effort is worth more when the Effort held looks short of the
  coming fight), keep exploring while Time lasts and only accept an Ambush
  when it is cheap (a revealed monster's own Ambush, else the Level's mean;
  a Trickery it would rule out counts against it);
  before a fight, Focus spare Small Effort when its weapon's good attacks need
  Medium Effort;
* Trickery: always on Level 4 (it ends the game); on Levels 1-3 when the
  fight looks unaffordable or costs more than the Rewards and Skill it forgoes;
* Battle: each turn takes the option (weapon attack, damaging or breaking
  ability) with the lowest estimated total cost of the rest of the fight:
  its own cost, the expected harm of the monster turn it leaves, and the
  cheapest way to finish from there; Focus when no attack can be paid;
* Responses: roll changes and re-rolls when they avoid more harm than they
  cost, power boosts when they add real Wounds, every free gain;
* Hunger: eat the full requirement when it can.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..core.jit import JIT
from . import consts as C
from .rules import (legal_mask, weapon, pmod_sum, pmod_any, pmod_min, ops_applicable,
                    can_pay, passive_on, effort_ok, slot_ability)

# base value of one unit of each resource, in Small Effort
VAL = np.array([1.0, 2.2, 3.6, 2.0, 2.0, 1.6, 1.8, 0.3], np.float64)


SHORT_BONUS = 0.6
SCOUT_LOW = False
SCOUT_L4 = False
SCOUT_L3 = True
TAU = 1.5          # opportunity value of one Time unit in the Travel Phase
USE_COST = 0.8     # value of one character Ability Use


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
            short = max(0, tw - st.res[C.R_WOOD]) + max(0, tm - st.res[C.R_METAL])
            sc = weapon_quality(st, T, w2) + 3.0 * short
            if sc < best:
                best = sc
                bw = tw
                bm = tm
        if cands == 0:
            short = max(0, cw - st.res[C.R_WOOD]) + max(0, cm - st.res[C.R_METAL])
            sc = weapon_quality(st, T, w1) + 3.0 * short
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
            f += plan_cost(st, T, w, T.m_armor[m], T.m_health[m], monster_harm(st, T, m, VAL), True, 100)
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
    cost = T.w_atk_cost[w, k].copy()
    if st.combat == 1:
        for i in range(T.mod_n[C.PM_ATTACK_COST]):
            a = T.mod_ab[C.PM_ATTACK_COST, i]
            if passive_on(st, T, a):
                cost[T.ab_pa[a]] += T.ab_pn[a]
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


@njit(**JIT)
def travel_ability_value(st, T, ab, vals):
    """Value of a Travel/General action ability used in the Preparation Step."""
    s = 0.0
    for i in range(C.MAXOPS):
        code = T.ab_ops[ab, i, 0]
        a = T.ab_ops[ab, i, 1]
        b = T.ab_ops[ab, i, 2]
        if code == C.OP_NONE:
            break
        if code == C.OP_GAIN:
            n = b * (st.level if T.ab_ops[ab, i, 3] == 1 else 1)
            n = min(n, T.bars[a] - st.res[a])
            s += n * vals[a]
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
        a = T.ab_ops[ab, i, 1]
        b = T.ab_ops[ab, i, 2]
        if code == C.OP_NONE:
            break
        if code == C.OP_GAIN:
            n = b * (st.level if T.ab_ops[ab, i, 3] == 1 else 1)
            n = min(n, T.bars[a] - st.res[a])
            s += n * vals[a]
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
        if mod == C.PM_WOUND_REDUCE:
            return 6.0 * n
        if mod == C.PM_WEAPON_POWER:
            return 5.0 * n
        if mod == C.PM_BREAK_POWER:
            return 2.5 * n
        if mod == C.PM_REST_BONUS:
            return 3.0 * n
        if mod == C.PM_FOOD_REQ:
            return -4.0 * n
        if mod == C.PM_REVEAL:
            return 3.0 * n
        if mod == C.PM_TRICK_DISCOUNT:
            return 2.5 * n
        if mod == C.PM_TIME_START:
            return 1.5 * n
        if mod == C.PM_MONSTER_ROLL:
            return -3.0 * n
        if mod == C.PM_IGNORE:
            return 2.0
        return 1.0
    # responses and actions: rough value of the ops per use
    s = 0.0
    for i in range(C.MAXOPS):
        code = T.ab_ops[ab, i, 0]
        a = T.ab_ops[ab, i, 1]
        b = T.ab_ops[ab, i, 2]
        if code == C.OP_NONE:
            break
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
    if T.ab_trigger[ab] == C.T_BATTLE_START or T.ab_trigger[ab] == C.T_LEVEL_START \
            or T.ab_trigger[ab] == C.T_VICTORY:
        s *= 1.0
    return max(0.3, s)


# ---------------------------------------------------------------------------
# travel
# ---------------------------------------------------------------------------


@njit(**JIT)
def card_value(st, T, card, rest, vals, amb):
    tv = T.e_time[card]
    if rest:
        n = min(tv + pmod_sum(st, T, C.PM_REST_BONUS), T.bars[C.R_S] - st.res[C.R_S])
        v = n * vals[C.R_S]
        for i in range(T.trig_n[C.T_REST]):
            a = T.trig_ab[C.T_REST, i]
            if T.ab_owner_kind[a] == C.OWN_SKILL and st.skill_owned[T.ab_owner[a]] == 1:
                v += 0.8 * response_value(st, T, a, vals)
    else:
        v = 0.0
        if st.commit_now == 0 or can_pay(st, T.e_spend[card], 0):
            for r in range(C.NRES):
                g = min(T.e_gain[card, r], T.bars[r] - st.res[r] + T.e_spend[card, r])
                v += g * vals[r]
                v -= T.e_spend[card, r] * vals[r]
            for k in range(C.MAXOPS):
                code = T.e_ops[card, k, 0]
                if code == C.OP_SKILL:
                    v += 7.0
                elif code == C.OP_COMMIT:
                    v -= 1.0 + (2.0 if st.time - tv <= 2 else 0.0)
                elif code == C.OP_REVEAL:
                    v += 0.4 * T.e_ops[card, k, 2]
                elif code == C.OP_CURE:
                    for c in range(C.NCOND):
                        if (st.cond[c] & 1) == 1 and T.c_perm[c] == 0:
                            v += 2.5
                elif code == C.OP_GAIN_TIME:
                    v += TAU * min(T.e_ops[card, k, 2], T.time_track - st.time + tv)
                elif code == C.OP_CONDITION:
                    c = T.e_ops[card, k, 1]
                    if T.c_perm[c] == 1 and (st.cond[c] & 1) == 0:
                        v += 7.0
                    elif T.c_perm[c] == 0:
                        v -= 2.0
    v -= TAU * tv
    if tv >= st.time:
        v -= amb
        v += TAU * (tv - st.time)  # Time past the end is not really spent
    return v


@njit(**JIT)
def wants_medium(st, T):
    """Medium Effort the weapon's good wounding attacks would use."""
    w = weapon(st)
    s_only = False
    use_m = False
    for k in range(T.w_natk[w]):
        if T.w_atk_kind[w, k] == 1:
            c = T.w_atk_cost[w, k]
            if c[C.R_M] == 0 and c[C.R_L] == 0:
                if T.w_atk_power[w, k] >= 2 or (c[C.R_S] <= 1):
                    s_only = True
            elif c[C.R_M] > 0 and c[C.R_L] == 0:
                use_m = True
    return use_m, s_only


@njit(**JIT)
def prep_action(st, T, mask):
    vals = res_values(st, T)
    # 1. craft along the best path
    w = weapon(st)
    bestj = -1
    bq = weapon_quality(st, T, w) - 0.5
    for j in range(C.MAX_UPGRADES):
        if mask[C.A_CRAFT0 + j]:
            tc = T.w_upg_cost[w, j, C.R_TIME]
            if tc > 0 and st.time - tc <= 0 and st.time > 2:
                continue
            w1 = T.w_upg_to[w, j]
            q = weapon_quality(st, T, w1)
            q2 = 1e9
            for j2 in range(C.MAX_UPGRADES):
                w2 = T.w_upg_to[w1, j2]
                if w2 >= 0:
                    q2 = min(q2, weapon_quality(st, T, w2))
            if q2 < 1e8:
                q = 0.5 * q + 0.5 * q2
            if q < bq:
                bq = q
                bestj = j
    if bestj >= 0:
        return C.A_CRAFT0 + bestj
    # 2. travel abilities worth their cost
    best = -1
    bs = 0.3
    for a in range(C.A_SKILL0, C.A_KEEP0):
        if mask[a]:
            ab = slot_ability(st, T, a)
            if ab >= 0 and T.ab_kind[ab] == C.K_ACTION:
                sc = travel_ability_value(st, T, ab, vals)
                if sc > bs:
                    bs = sc
                    best = a
    if best >= 0:
        return best
    # 3. scout on the cheap Levels
    if SCOUT_LOW and mask[C.A_SCOUT] and st.level <= 2 and st.time >= 6 and st.res[C.R_S] >= 6:
        return C.A_SCOUT
    if SCOUT_L4 and mask[C.A_SCOUT] and st.level == 4 and st.time >= 5 and st.res[C.R_CUN] >= 3:
        return C.A_SCOUT
    if SCOUT_L3 and mask[C.A_SCOUT] and st.level == 3 and st.time >= 8 and st.res[C.R_CUN] >= T.bars[C.R_CUN] - 1:
        return C.A_SCOUT
    # 4. do not waste Small Effort past the bar
    if mask[C.A_FOCUS] and st.res[C.R_S] >= T.bars[C.R_S] - 1 and st.time >= 2:
        return C.A_FOCUS
    # 5. explore or fight
    amb = level_ambush(st, T, vals)
    explore = False
    if mask[C.A_EXPLORE]:
        if st.commit == 1 or not mask[C.A_FIGHT]:
            explore = True
        elif st.time >= 3:
            explore = True
        elif st.time == 2:
            explore = amb < 3.0
        else:
            explore = amb < 2.0
    if explore:
        return C.A_EXPLORE
    # getting ready: Focus spare Small Effort for Medium attacks
    use_m, s_only = wants_medium(st, T)
    if mask[C.A_FOCUS] and use_m and st.res[C.R_M] < 3:
        reserve = 6 if s_only else 3
        if st.res[C.R_S] >= 4 + reserve + 2 * st.level:
            return C.A_FOCUS
    if mask[C.A_FIGHT]:
        return C.A_FIGHT
    if mask[C.A_EXPLORE]:
        return C.A_EXPLORE
    return -1


@njit(**JIT)
def explore_action(st, T, mask):
    vals = res_values(st, T)
    amb = level_ambush(st, T, vals)
    best = -1
    bv = -1e9
    for i in range(st.revealed_n):
        card = st.revealed[i]
        if mask[C.A_RESOLVE0 + i]:
            v = card_value(st, T, card, False, vals, amb)
            if v > bv:
                bv = v
                best = C.A_RESOLVE0 + i
        if mask[C.A_REST0 + i]:
            v = card_value(st, T, card, True, vals, amb)
            if v > bv:
                bv = v
                best = C.A_REST0 + i
    return best


# ---------------------------------------------------------------------------
# battle
# ---------------------------------------------------------------------------


@njit(**JIT)
def effort_total(st):
    return st.res[C.R_S] + st.res[C.R_M] + st.res[C.R_L]


@njit(**JIT)
def opens_attack(st, T, ds, dm, dl):
    """Would an Effort conversion (ds, dm, dl) make some wounding or
    breaking weapon attack payable?"""
    w = weapon(st)
    s = st.res[C.R_S] + ds
    m = st.res[C.R_M] + dm
    l = st.res[C.R_L] + dl
    for k in range(T.w_natk[w]):
        if (T.w_atk_kind[w, k] == 0) != (st.m_armor > 0):
            continue
        c = atk_cost_vec(st, T, w, k)
        ok = True
        for r in range(C.R_CUN, C.NRES):
            if st.res[r] < c[r]:
                ok = False
        if ok and effort_ok(s, m, l, c[C.R_S], c[C.R_M], c[C.R_L]):
            return True
    return False


@njit(**JIT)
def battle_action(st, T, mask, extra):
    vals = res_values(st, T)
    m = st.monster
    harm = monster_harm(st, T, m, vals)
    w = weapon(st)
    A = st.m_armor
    H = st.m_health
    # doing nothing
    base = plan_cost(st, T, w, A, H, harm, True, 100)
    best = -1
    bcost = base + (0.0 if extra else harm) + 0.01
    for k in range(C.MAX_ATTACKS):
        a = C.A_ATTACK0 + k
        if not mask[a]:
            continue
        cost = atk_cost_vec(st, T, w, k)
        c = uses_cost(st, T, cost, 1, True)
        p = atk_power(st, T, w, k)
        A2 = A
        H2 = H
        if st.defend == 1:
            pass
        elif T.w_atk_kind[w, k] == 0:
            A2 = max(0, A - p)
        else:
            H2 = max(0, H - p)
        if H2 <= 0:
            tot = c
        else:
            tot = c + (0.0 if extra else harm) + plan_cost(st, T, w, A2, H2, harm, True, 100)
            if extra:
                tot += 0.0
        if tot < bcost:
            bcost = tot
            best = a
    if not extra:
        for a in range(C.A_SKILL0, C.A_KEEP0):
            if not mask[a]:
                continue
            ab = slot_ability(st, T, a)
            if ab < 0 or T.ab_kind[ab] != C.K_ACTION:
                continue
            A2 = A
            H2 = H
            gv = 0.0
            useful = False
            for i in range(C.MAXOPS):
                code = T.ab_ops[ab, i, 0]
                b = T.ab_ops[ab, i, 2]
                if code == C.OP_NONE:
                    break
                if code == C.OP_DAMAGE:
                    if A2 == 0 or T.ab_ops[ab, i, 3] == 1:
                        H2 = max(0, H2 - b)
                        useful = True
                elif code == C.OP_BREAK:
                    if A2 > 0:
                        A2 = max(0, A2 - b)
                        useful = True
                elif code == C.OP_GAIN:
                    n = b * (st.level if T.ab_ops[ab, i, 3] == 1 else 1)
                    gv += min(n, T.bars[T.ab_ops[ab, i, 1]] - st.res[T.ab_ops[ab, i, 1]]) * 1.0
                    useful = True
            if not useful:
                continue
            c = cost_value(T.ab_cost[ab], vals) - gv
            if T.ab_owner_kind[ab] == C.OWN_CHAR:
                c += USE_COST * 0.5
            if H2 <= 0:
                tot = c
            else:
                tot = c + harm + plan_cost(st, T, w, A2, H2, harm, True, 100)
            if tot < bcost:
                bcost = tot
                best = a
    if best >= 0:
        return best
    if extra:
        return C.A_PASS
    # nothing affordable helps: convert Effort if that opens an attack
    any_atk = False
    for k in range(C.MAX_ATTACKS):
        if mask[C.A_ATTACK0 + k]:
            any_atk = True
    if not any_atk:
        if mask[C.A_INSPIRE] and opens_attack(st, T, 0, -2, 1):
            return C.A_INSPIRE
        if mask[C.A_FOCUS] and opens_attack(st, T, -4, 1, 0):
            return C.A_FOCUS
        # any damaging ability at all
        for a in range(C.A_SKILL0, C.A_KEEP0):
            if mask[a]:
                ab = slot_ability(st, T, a)
                if ab >= 0 and T.ab_kind[ab] == C.K_ACTION:
                    for i in range(C.MAXOPS):
                        code = T.ab_ops[ab, i, 0]
                        if code == C.OP_DAMAGE or code == C.OP_BREAK or code == C.OP_GAIN:
                            return a
        return C.A_SKIP
    # an attack is affordable but judged not worth it: take the cheapest
    # that makes progress (skipping only feeds the monster)
    bc = 1e9
    for k in range(C.MAX_ATTACKS):
        a = C.A_ATTACK0 + k
        if mask[a]:
            c = uses_cost(st, T, atk_cost_vec(st, T, w, k), 1, True) / max(1, atk_power(st, T, w, k))
            if c < bc:
                bc = c
                best = a
    return best


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


@njit(**JIT)
def trick_action(st, T):
    if st.level == 4:
        return C.A_TRICK
    if trick_gain(st, T, res_values(st, T)) > 0.0:
        return C.A_TRICK
    return C.A_BATTLE


@njit(**JIT)
def heuristic_action(st, T, mask):
    ph = st.phase
    a = -1
    if ph == C.PH_PREP:
        a = prep_action(st, T, mask)
    elif ph == C.PH_EXPLORE:
        a = explore_action(st, T, mask)
    elif ph == C.PH_TRICK:
        a = trick_action(st, T)
    elif ph == C.PH_TURN:
        a = battle_action(st, T, mask, False)
    elif ph == C.PH_EXTRA:
        a = battle_action(st, T, mask, True)
    elif ph == C.PH_RESPOND:
        vals = res_values(st, T)
        bs = 0.05
        a = C.A_PASS
        for x in range(C.A_SKILL0, C.A_KEEP0):
            if mask[x]:
                ab = slot_ability(st, T, x)
                if ab >= 0:
                    sc = response_value(st, T, ab, vals)
                    if sc > bs:
                        bs = sc
                        a = x
    elif ph == C.PH_SKILLPICK:
        a = C.A_KEEP0
        bv = -1e9
        for i in range(st.skill_offer_n):
            v = skill_value(st, T, T.s_ab[st.skill_offer[i]])
            if v > bv:
                bv = v
                a = C.A_KEEP0 + i
    elif ph == C.PH_HUNGER:
        for k in range(C.MAX_EAT, -1, -1):
            if mask[C.A_EAT0 + k]:
                a = C.A_EAT0 + k
                break
    if a >= 0 and a < C.NUM_ACTIONS and mask[a]:
        return a
    # fallback: first legal action
    for x in range(C.NUM_ACTIONS):
        if mask[x]:
            return x
    return -1


@njit(**JIT)
def policy_row(st, T, prng):
    """The engine's name for the scripted policy (``prng`` is not needed:
    the heuristic breaks ties by action order)."""
    return heuristic_action(st, T, st.legal)
