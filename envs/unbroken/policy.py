"""A scripted heuristic player for Unbroken (numba): the game's
``policy_row``. The engine's generated loops (``kernels.policy_rows``,
``play_rows``) play it inside numba; ``envs/unbroken/heuristic.py`` wraps it
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

from ..core.kernel.jit import JIT, njit
from . import consts as C
from .policy_values import (
    SCOUT_L3,
    SCOUT_L4,
    SCOUT_LOW,
    TAU,
    USE_COST,
    atk_cost_vec,
    atk_power,
    cost_value,
    level_ambush,
    monster_harm,
    plan_cost,
    res_values,
    response_value,
    skill_value,
    travel_ability_value,
    trick_gain,
    uses_cost,
    weapon_quality,
)
from .rules import can_pay, effort_ok, pmod_sum, slot_ability, weapon

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
    if (
        SCOUT_L3
        and mask[C.A_SCOUT]
        and st.level == 3
        and st.time >= 8
        and st.res[C.R_CUN] >= T.bars[C.R_CUN] - 1
    ):
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
    lg = st.res[C.R_L] + dl
    for k in range(T.w_natk[w]):
        if (T.w_atk_kind[w, k] == 0) != (st.m_armor > 0):
            continue
        c = atk_cost_vec(st, T, w, k)
        ok = True
        for r in range(C.R_CUN, C.NRES):
            if st.res[r] < c[r]:
                ok = False
        if ok and effort_ok(s, m, lg, c[C.R_S], c[C.R_M], c[C.R_L]):
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
            c = uses_cost(st, T, atk_cost_vec(st, T, w, k), 1, True) / max(
                1, atk_power(st, T, w, k)
            )
            if c < bc:
                bc = c
                best = a
    return best


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
