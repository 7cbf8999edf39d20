"""Unbroken rules as numba kernels over one state record.

Layering: this module knows nothing about spaces, agents or rendering. It
exposes the engine's row contract (``envs/README.md``): ``configure_row``,
``reset_row``, ``legal_row``, ``apply_row`` and ``finish_row``, operating on
one record of ``state.STATE_DTYPE`` and the content ``tables``. The step
wrapper (illegal actions, auto-advance, truncation) and every batch loop are
the engine's (``kernels.py``, generated).

Flow: the game is a state machine. ``phase`` says which decision the player
owes now; ``stage`` says where the automatic part of the rules resumes.
``run`` executes stages (dice, monster turns, mandatory responses, upkeep)
until a decision is needed. Responses open a *window* (phase ``response``)
when at least one optional Response (skill, character, monster offer) can be
used; the player uses any of them once each, then passes; mandatory
Responses (monster sheets, Conditions) then resolve in card order, and the
flow resumes at ``win_resume``.

All chance goes through ``core.chance`` (``roll_die`` is its six-sided roll).
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.jit import JIT, JIT_INLINE, njit
from ..core.kernel import chance
from ..core.kernel.zones import pile_draw, pile_new_deck, pile_push
from . import consts as C
from .state import NAB_MAX

# ---------------------------------------------------------------------------
# chance
# ---------------------------------------------------------------------------


@njit(**JIT)
def roll_die(st):
    """The Slashes Die (1..6); tests queue results with ``chance.force``."""
    return chance.roll(st, 6)


# ---------------------------------------------------------------------------
# resources and payments
# ---------------------------------------------------------------------------


@njit(**JIT)
def gain(st, T, r, n):
    if n <= 0:
        return
    v = st.res[r] + n
    if v > T.bars[r]:
        v = T.bars[r]
    st.res[r] = v


@njit(**JIT)
def effort_ok(s, m, l, ns, nm, nl):
    """Can Effort (s, m, l) pay (ns, nm, nl), higher categories standing in
    one for one for lower ones?"""
    if l < nl:
        return False
    l_left = l - nl
    m_short = nm - m
    if m_short > 0:
        if l_left < m_short:
            return False
        l_left -= m_short
        m_left = 0
    else:
        m_left = m - nm
    s_short = ns - s
    if s_short > 0 and m_left + l_left < s_short:
        return False
    return True


@njit(**JIT)
def effort_pay(st, ns, nm, nl):
    """Pay Effort (feasibility checked by the caller): each category from
    itself first; a shortfall of Small is covered by Medium, then Large; a
    shortfall of Medium by Large."""
    st.res[C.R_L] -= nl
    if st.res[C.R_M] >= nm:
        st.res[C.R_M] -= nm
    else:
        st.res[C.R_L] -= nm - st.res[C.R_M]
        st.res[C.R_M] = 0
    if st.res[C.R_S] >= ns:
        st.res[C.R_S] -= ns
    else:
        short = ns - st.res[C.R_S]
        st.res[C.R_S] = 0
        k = min(short, st.res[C.R_M])
        st.res[C.R_M] -= k
        st.res[C.R_L] -= short - k


@njit(**JIT)
def lose_effort(st, cat, n):
    """A forced Effort loss. If it cannot be paid in full the player dies."""
    if n <= 0:
        return True
    ns = n if cat == C.R_S else 0
    nm = n if cat == C.R_M else 0
    nl = n if cat == C.R_L else 0
    if not effort_ok(st.res[C.R_S], st.res[C.R_M], st.res[C.R_L], ns, nm, nl):
        st.res[C.R_S] = 0
        st.res[C.R_M] = 0
        st.res[C.R_L] = 0
        st.dead = 1
        return False
    effort_pay(st, ns, nm, nl)
    return True


@njit(**JIT)
def time_paid_in_small(st):
    """On Level 4, from Step 1A/1B on, the Time Tracker is gone: Time costs
    and losses are paid in Small Effort."""
    return st.level == 4 and st.combat == 1


@njit(**JIT)
def can_pay(st, cost, extra_s):
    """Can the player pay ``cost`` (a 9-vector incl. Time) plus ``extra_s``
    Small Effort now?"""
    return can_pay_from(st, cost, extra_s, C.R_CUN)


@njit(**JIT_INLINE)
def can_pay_from(st, cost, extra_s, first):
    """``can_pay`` with the resources from index ``first`` on (Effort and
    Time always): the ones before are checked by the caller."""
    ns = cost[C.R_S] + extra_s
    t = cost[C.R_TIME]
    if t > 0:
        if time_paid_in_small(st):
            ns += t
        elif st.time < t:
            return False
    for r in range(first, C.NRES):
        if st.res[r] < cost[r]:
            return False
    return effort_ok(st.res[C.R_S], st.res[C.R_M], st.res[C.R_L], ns, cost[C.R_M], cost[C.R_L])


@njit(**JIT)
def pay(st, cost, extra_s):
    ns = cost[C.R_S] + extra_s
    t = cost[C.R_TIME]
    if t > 0:
        if time_paid_in_small(st):
            ns += t
        else:
            st.time -= t
    for r in range(C.R_CUN, C.NRES):
        st.res[r] -= cost[r]
    effort_pay(st, ns, cost[C.R_M], cost[C.R_L])


@njit(**JIT)
def lose_time(st, n):
    if n <= 0:
        return
    if time_paid_in_small(st):
        lose_effort(st, C.R_S, n)
    else:
        st.time = max(0, st.time - n)


# ---------------------------------------------------------------------------
# abilities: owners, requirements, passives
# ---------------------------------------------------------------------------


@njit(**JIT)
def owner_active(st, T, a):
    k = T.ab_owner_kind[a]
    o = T.ab_owner[a]
    if k == C.OWN_SKILL:
        return st.skill_owned[o] == 1
    if k == C.OWN_CHAR:
        return st.character == o
    if k == C.OWN_MONSTER:
        return st.monster == o and st.m_revealed == 1
    return (st.cond[o] & 1) == 1


@njit(**JIT)
def weapon(st):
    return st.wstack[st.wstack_n - 1]


@njit(**JIT)
def req_ok(st, T, a):
    q = T.ab_req[a]
    if q == C.RQ_NONE:
        return True
    if q == C.RQ_ARMOR:
        return st.m_revealed == 1 and st.m_armor > 0
    if q == C.RQ_NO_ARMOR:
        return st.m_revealed == 1 and st.m_armor == 0
    if q == C.RQ_ADVANCED:
        return T.w_tier[weapon(st)] == 1
    if q == C.RQ_BASIC:
        return T.w_tier[weapon(st)] == 0
    if q == C.RQ_REVEALED:
        return st.m_revealed == 1
    return (st.cond[T.ab_req_arg[a]] & 1) == 1


@njit(**JIT)
def passive_on(st, T, a):
    """A passive applies while its card is in play; monster passives only
    from the start of the Combat Phase."""
    if not owner_active(st, T, a):
        return False
    if T.ab_owner_kind[a] == C.OWN_MONSTER and st.combat == 0:
        return False
    return req_ok(st, T, a)


@njit(**JIT)
def pmod_sum(st, T, mod):
    s = 0
    for i in range(T.mod_n[mod]):
        a = T.mod_ab[mod, i]
        if passive_on(st, T, a):
            s += T.ab_pn[a]
    return s


@njit(**JIT)
def pmod_any(st, T, mod, arg):
    """Is a passive of this mod (with argument ``arg``, or any if -1) on?"""
    for i in range(T.mod_n[mod]):
        a = T.mod_ab[mod, i]
        if (arg < 0 or T.ab_pa[a] == arg) and passive_on(st, T, a):
            return True
    return False


@njit(**JIT)
def pmod_min(st, T, mod, default):
    v = default
    for i in range(T.mod_n[mod]):
        a = T.mod_ab[mod, i]
        if passive_on(st, T, a) and T.ab_pn[a] < v:
            v = T.ab_pn[a]
    return v


@njit(**JIT)
def ability_usable(st, T, a):
    """Owner in play, requirement met, cost payable, an Ability Use left for
    character abilities."""
    if a < 0 or not owner_active(st, T, a) or not req_ok(st, T, a):
        return False
    if T.ab_owner_kind[a] == C.OWN_CHAR and st.uses <= 0:
        return False
    return can_pay(st, T.ab_cost[a], 0)


# ---------------------------------------------------------------------------
# conditions, weapons, monster
# ---------------------------------------------------------------------------


@njit(**JIT)
def gain_condition(st, c, when, rounds, tokens):
    """Gain Condition ``c`` (duplicates: a waiting one stays waiting; an
    active timed one is extended; an active untimed one is unchanged)."""
    if when == C.WHEN_NEXT:
        st.cond[c] |= 2
        if tokens > st.cond_tokens[c] or (st.cond[c] & 1) == 0:
            st.cond_tokens[c] = tokens
        return
    if (st.cond[c] & 1) == 1:
        if st.cond_rounds[c] > 0:
            add = rounds if when == C.WHEN_ROUNDS else 0
            st.cond_rounds[c] = min(100, st.cond_rounds[c] + add)
            if when == C.WHEN_NOW:
                st.cond_rounds[c] = 0  # now lasts the whole combat
        st.cond_tokens[c] = min(100, st.cond_tokens[c] + tokens)
        return
    st.cond[c] |= 1
    st.cond_tokens[c] = tokens
    st.cond_rounds[c] = rounds if when == C.WHEN_ROUNDS else 0


@njit(**JIT)
def drop_condition(st, c):
    """Discard the active copy of ``c`` (a waiting copy stays waiting)."""
    st.cond[c] &= 2
    if st.cond[c] == 0:
        st.cond_tokens[c] = 0
    st.cond_rounds[c] = 0


@njit(**JIT)
def downgrade(st, rounds, permanent):
    if st.wstack_n <= 1:
        return  # Bare Hands cannot be downgraded
    top = st.wstack[st.wstack_n - 1]
    st.wstack[st.wstack_n - 1] = -1
    st.wstack_n -= 1
    if not permanent:
        st.waside[st.waside_n] = top
        st.waside_n += 1
        if rounds > st.waside_rounds:
            st.waside_rounds = rounds


@njit(**JIT)
def restore_weapons(st):
    while st.waside_n > 0:
        st.waside_n -= 1
        st.wstack[st.wstack_n] = st.waside[st.waside_n]
        st.waside[st.waside_n] = -1
        st.wstack_n += 1
    st.waside_rounds = 0


@njit(**JIT)
def reveal_monster(st, T):
    if st.monster < 0:
        st.monster = T.m_by_level[st.level - 1, roll_die(st) - 1]
    if st.m_revealed == 0:
        st.m_revealed = 1
        m = st.monster
        st.m_armor = T.m_armor[m]
        st.m_armor_max = T.m_armor[m]
        st.m_health = T.m_health[m]
        st.m_health_max = T.m_health[m]


@njit(**JIT)
def monster_gain(st, T, armor, health):
    if armor != 0:
        st.m_armor_max = min(T.armor_cap, st.m_armor_max + armor)
        st.m_armor = max(0, min(st.m_armor_max, st.m_armor + armor))
    if health != 0:
        st.m_health_max = min(T.health_cap, st.m_health_max + health)
        st.m_health = max(0, min(st.m_health_max, st.m_health + health))


@njit(**JIT)
def wound_monster(st, n, pierce):
    """Wounds from an action or Response (weapon attacks are resolved in
    ``resolve_attack``). Armor blocks them unless ``pierce``."""
    if n <= 0 or (st.m_armor > 0 and not pierce):
        return
    st.m_health = max(0, st.m_health - n)


# ---------------------------------------------------------------------------
# effects
# ---------------------------------------------------------------------------


@njit(**JIT)
def op_applicable(st, T, ops, i):
    """Can op ``i`` be applied in full (used to pick a bracketed
    alternative)?"""
    code = ops[i, 0]
    a = ops[i, 1]
    b = ops[i, 2]
    if code == C.OP_LOSE:
        if a <= C.R_L:
            ns = b if a == C.R_S else 0
            nm = b if a == C.R_M else 0
            nl = b if a == C.R_L else 0
            return effort_ok(st.res[C.R_S], st.res[C.R_M], st.res[C.R_L], ns, nm, nl)
        return st.res[a] >= b
    if code == C.OP_WOUND:
        n = max(0, b - pmod_sum(st, T, C.PM_WOUND_REDUCE))
        return effort_ok(st.res[C.R_S], st.res[C.R_M], st.res[C.R_L], n, 0, 0)
    if code == C.OP_REDUCE:
        return st.res[a] >= b
    if code == C.OP_LOSE_TIME:
        if time_paid_in_small(st):
            return effort_ok(st.res[C.R_S], st.res[C.R_M], st.res[C.R_L], b, 0, 0)
        return True
    if code == C.OP_DOWNGRADE:
        return st.wstack_n > 1
    return True


@njit(**JIT)
def ops_applicable(st, T, ops):
    for i in range(C.MAXOPS):
        if ops[i, 0] == C.OP_NONE:
            break
        if not op_applicable(st, T, ops, i):
            return False
    return True


@njit(**JIT)
def unpayable_effort_loss(st, T, ops):
    """Does the effect hold an Effort loss that cannot be paid?"""
    for i in range(C.MAXOPS):
        c = ops[i, 0]
        if c == C.OP_NONE:
            break
        if c == C.OP_WOUND or (c == C.OP_LOSE and ops[i, 1] <= C.R_L) or c == C.OP_LOSE_TIME:
            if not op_applicable(st, T, ops, i):
                return True
    return False


@njit(**JIT)
def apply_ops(st, T, ops, src_cond):
    """Apply an effect list. ``src_cond`` is the Condition the effect is
    printed on (for ``tick`` and ``struggle``), or -1."""
    for i in range(C.MAXOPS):
        code = ops[i, 0]
        if code == C.OP_NONE:
            break
        if st.dead:
            return
        a = ops[i, 1]
        b = ops[i, 2]
        c = ops[i, 3]
        d = ops[i, 4]
        if code == C.OP_GAIN:
            gain(st, T, a, b * (st.level if c else 1))
        elif code == C.OP_LOSE:
            if a <= C.R_L:
                lose_effort(st, a, b)
            else:
                st.res[a] = max(0, st.res[a] - b)
        elif code == C.OP_WOUND:
            lose_effort(st, C.R_S, max(0, b - pmod_sum(st, T, C.PM_WOUND_REDUCE)))
        elif code == C.OP_REDUCE:
            if st.res[a] >= b:
                st.res[a] -= b
                gain(st, T, c, d)
        elif code == C.OP_LOSE_TIME:
            lose_time(st, b)
        elif code == C.OP_GAIN_TIME:
            if not time_paid_in_small(st):
                st.time = min(T.time_track, st.time + b)
        elif code == C.OP_DEFEND:
            st.defend = 1
        elif code == C.OP_CONDITION:
            gain_condition(st, a, b, c, d)
        elif code == C.OP_TOKENS:
            if (st.cond[a] & 1) == 1:
                st.cond_tokens[a] = max(0, min(100, st.cond_tokens[a] + b))
                if b < 0 and st.cond_tokens[a] == 0:
                    drop_condition(st, a)
        elif code == C.OP_DOWNGRADE:
            downgrade(st, b, c == 1)
        elif code == C.OP_MON_ARMOR:
            if st.m_revealed:
                monster_gain(st, T, b, 0)
        elif code == C.OP_MON_HEALTH:
            if st.m_revealed:
                monster_gain(st, T, 0, b)
        elif code == C.OP_MON_HEAL:
            if st.m_revealed:
                st.m_health = min(st.m_health_max, st.m_health + b)
        elif code == C.OP_DAMAGE:
            if st.in_battle:
                wound_monster(st, b, c == 1)
        elif code == C.OP_BREAK:
            if st.in_battle:
                st.m_armor = max(0, st.m_armor - b)
        elif code == C.OP_REVEAL:
            st.reveal_bonus = max(-8, min(8, st.reveal_bonus + b))
        elif code == C.OP_COMMIT:
            st.commit = 1
        elif code == C.OP_CURE:
            for k in range(C.NCOND):
                if (st.cond[k] & 1) == 1 and T.c_perm[k] == 0:
                    drop_condition(st, k)
        elif code == C.OP_CLEANSE:
            st.cond[a] = 0
            st.cond_tokens[a] = 0
            st.cond_rounds[a] = 0
        elif code == C.OP_SKILL:
            st.skill_pending += 1
        elif code == C.OP_USES:
            st.uses = min(4, st.uses + b)
        elif code == C.OP_EXTRA_ATTACK:
            st.extra_attack = 1
        elif code == C.OP_ROLL:
            if st.roll > 0:
                st.roll = max(1, min(6, st.roll + b))
        elif code == C.OP_REROLL:
            if st.roll > 0:
                st.roll = max(1, min(6, roll_die(st) + pmod_sum(st, T, C.PM_MONSTER_ROLL)))
        elif code == C.OP_POWER:
            if st.pend_atk >= 0:
                st.pend_power += b
        elif code == C.OP_EVADE:
            st.evade |= 1 << a
        elif code == C.OP_STRUGGLE:
            if src_cond >= 0 and (st.cond[src_cond] & 1) == 1:
                if (st.evade >> src_cond) & 1 == 0:
                    if roll_die(st) <= st.cond_tokens[src_cond]:
                        st.lose_turn = 1
                st.cond_tokens[src_cond] -= 1
                if st.cond_tokens[src_cond] <= 0:
                    drop_condition(st, src_cond)
        elif code == C.OP_TICK:
            if src_cond >= 0 and (st.cond[src_cond] & 1) == 1:
                st.cond_tokens[src_cond] -= 1
                if st.cond_tokens[src_cond] <= 0:
                    drop_condition(st, src_cond)
        elif code == C.OP_SKIP_TURN:
            st.lose_turn = 1


@njit(**JIT)
def apply_ability(st, T, a):
    """Pay and apply a player-chosen ability (action or optional Response)."""
    if T.ab_owner_kind[a] == C.OWN_CHAR:
        st.uses -= 1
    pay(st, T.ab_cost[a], 0)
    src = T.ab_owner[a] if T.ab_owner_kind[a] == C.OWN_COND else -1
    apply_ops(st, T, T.ab_ops[a], src)


# ---------------------------------------------------------------------------
# response windows
# ---------------------------------------------------------------------------


@njit(**JIT)
def optional_response_ok(st, T, a):
    return (
        a >= 0
        and T.ab_kind[a] == C.K_RESPONSE
        and T.ab_optional[a] == 1
        and T.ab_trigger[a] == st.win_trigger
        and st.win_used[a] == 0
        and ability_usable(st, T, a)
    )


@njit(**JIT)
def any_optional(st, T):
    trig = st.win_trigger
    for i in range(T.trig_n[trig]):
        a = T.trig_ab[trig, i]
        if optional_response_ok(st, T, a):
            return True
    return False


@njit(**JIT)
def fire(st, T, trig, resume):
    """Open the Response window of a trigger; returns the next stage."""
    st.win_trigger = trig
    st.win_resume = resume
    for i in range(T.trig_n[trig]):
        st.win_used[T.trig_ab[trig, i]] = 0
    if T.trig_n[trig] == 0:
        return resume
    if any_optional(st, T):
        st.phase = C.PH_RESPOND
        return C.S_WAIT
    return C.S_MANDATORY


@njit(**JIT)
def run_mandatory(st, T):
    trig = st.win_trigger
    for i in range(T.trig_n[trig]):
        a = T.trig_ab[trig, i]
        if T.ab_optional[a] == 1 or st.win_used[a] == 1:
            continue
        if not owner_active(st, T, a) or not req_ok(st, T, a):
            continue
        if T.ab_owner_kind[a] == C.OWN_MONSTER and st.combat == 0:
            continue
        st.win_used[a] = 1
        if not can_pay(st, T.ab_cost[a], 0):
            continue
        pay(st, T.ab_cost[a], 0)
        src = T.ab_owner[a] if T.ab_owner_kind[a] == C.OWN_COND else -1
        apply_ops(st, T, T.ab_ops[a], src)
        if st.dead:
            return


# ---------------------------------------------------------------------------
# flow
# ---------------------------------------------------------------------------


@njit(**JIT)
def offer_skills(st, after):
    """Reveal up to 2 Skills (reshuffling the Skill discard if needed)."""
    st.skill_offer_n = 0
    for _ in range(2):
        if st.skill_deck_n == 0 and st.skill_disc_n > 0:
            for i in range(st.skill_disc_n):
                st.skill_deck[i] = st.skill_disc[i]
                st.skill_disc[i] = -1
            st.skill_deck_n = st.skill_disc_n
            st.skill_disc_n = 0
            chance.shuffle(st, st.skill_deck, st.skill_deck_n)
        if st.skill_deck_n == 0:
            break
        st.skill_deck_n -= 1
        st.skill_offer[st.skill_offer_n] = st.skill_deck[st.skill_deck_n]
        st.skill_deck[st.skill_deck_n] = -1
        st.skill_offer_n += 1
    if st.skill_offer_n == 0:
        return after
    st.skill_after = after
    st.phase = C.PH_SKILLPICK
    return C.S_WAIT


@njit(**JIT)
def begin_combat(st, T):
    st.combat = 1
    st.reveal_bonus = 0  # an unused Orienteer / reveal bonus lapses with the Travel Phase
    reveal_monster(st, T)
    if st.level < 4:
        st.time = T.time_start[st.level]
    else:
        st.time = 0


@njit(**JIT)
def trick_cost_ok(st, T):
    m = st.monster
    if T.m_can_trick[m] == 0 or pmod_any(st, T, C.PM_NO_TRICK, -1):
        return False
    disc = pmod_sum(st, T, C.PM_TRICK_DISCOUNT)
    if st.res[C.R_CUN] < max(0, T.m_trick[m, C.R_CUN] - disc):
        return False
    # the rest of the cost, Cunning left out
    return can_pay_from(st, T.m_trick[m], 0, C.R_FOOD)


@njit(**JIT)
def monster_first(st, T):
    return T.diff_mfirst[st.difficulty] == 1 or pmod_any(st, T, C.PM_MONSTER_FIRST, -1)


@njit(**JIT)
def face_needs_reroll(st, T, ops):
    """Duplicate Condition rules: a Condition already waiting for the next
    Level, or already active without a duration, makes the roll re-rolled."""
    for i in range(C.MAXOPS):
        if ops[i, 0] == C.OP_NONE:
            break
        if ops[i, 0] == C.OP_CONDITION:
            c = ops[i, 1]
            when = ops[i, 2]
            if when == C.WHEN_NEXT:
                if (st.cond[c] & 2) == 2:
                    return True
            elif (st.cond[c] & 1) == 1 and (st.cond_rounds[c] == 0 or when == C.WHEN_NOW):
                return True
    return False


@njit(**JIT)
def apply_monster_effect(st, T, main, alt, has_alt):
    """A monster effect is applied whole or not at all: if some part cannot
    be applied in full, the bracketed alternative applies instead, or nothing
    happens when there is none -- except an Effort loss the player cannot
    pay, which kills (UNB-137/138, A15, A16)."""
    if ops_applicable(st, T, main):
        apply_ops(st, T, main, -1)
    elif has_alt:
        apply_ops(st, T, alt, -1)
    elif unpayable_effort_loss(st, T, main):
        apply_ops(st, T, main, -1)


@njit(**JIT)
def apply_face(st, T):
    m = st.monster
    f = st.roll - 1
    st.roll = 0
    if pmod_any(st, T, C.PM_IGNORE, T.m_face_type[m, f]):
        return
    apply_monster_effect(st, T, T.m_face_ops[m, f], T.m_face_alt[m, f], T.m_face_has_alt[m, f] == 1)


@njit(**JIT)
def resolve_attack(st, T):
    """Land the pending weapon attack (after its Responses)."""
    k = st.pend_atk
    w = weapon(st)
    p = max(0, st.pend_power)
    st.pend_atk = -1
    if st.defend == 1:
        st.defend = 0
        return
    if T.w_atk_kind[w, k] == 0:
        st.m_armor = max(0, st.m_armor - p)
    else:
        p = min(p, pmod_min(st, T, C.PM_MAX_WOUNDS, 1 << 14))
        st.m_health = max(0, st.m_health - p)


@njit(**JIT)
def final_score(st, T):
    s = 0
    for r in range(C.NRES):
        s += st.res[r] * T.score_pts[r]
    return s


@njit(**JIT)
def end_level(st, T):
    """End of Combat Phase upkeep (Levels 1-3) and the move to the next Level."""
    restore_weapons(st)
    for c in range(C.NCOND):
        if (st.cond[c] & 1) == 1 and T.c_perm[c] == 0:
            st.cond[c] &= 2
        st.cond_rounds[c] = 0
        if (st.cond[c] & 2) == 2:
            st.cond[c] = 1
        if st.cond[c] == 0:
            st.cond_tokens[c] = 0
    st.level += 1
    st.uses = st.level
    st.combat = 0
    st.in_battle = 0
    clear_encounter(st)


@njit(**JIT_INLINE)
def clear_encounter(st):
    """No monster and nothing of a fight with one (a Level's start)."""
    st.monster = -1
    st.m_revealed = 0
    st.m_armor = 0
    st.m_armor_max = 0
    st.m_health = 0
    st.m_health_max = 0
    st.defend = 0
    st.ambushed = 0
    st.tricked = 0
    st.round = 0


@njit(**JIT_INLINE)
def start_player_turn(st):
    """The player's turn in a battle round starts with no lost turn, no
    Evade and no extra attack."""
    st.lose_turn = 0
    st.evade = 0
    st.extra_attack = 0


@njit(**JIT_INLINE)
def turn_end(st, other):
    """The end of one side's turn: the round ends after both sides' turns,
    else the ``other`` side's turn comes."""
    if st.first_done == 1:
        return C.S_ROUND_END
    st.first_done = 1
    return other


BATTLE_STAGES = (
    C.S_ROUND_START,
    C.S_PLAYER_TURN,
    C.S_TURN_CHECK,
    C.S_AFTER_ATTACK,
    C.S_PLAYER_TURN_END,
    C.S_MONSTER_TURN,
    C.S_APPLY_ROLL,
    C.S_MONSTER_TURN_END,
    C.S_ROUND_END,
)


@njit(**JIT)
def is_battle_stage(s):
    for b in BATTLE_STAGES:
        if s == b:
            return True
    return False


@njit(**JIT)
def run(st, T, stage):
    """Execute automatic stages from ``stage`` until a decision is owed."""
    while True:
        if st.dead:
            st.outcome = C.O_LOSS
            st.phase = C.PH_OVER
            st.stage = C.S_WAIT
            return
        if stage == C.S_WAIT:
            st.stage = C.S_WAIT
            return
        if st.skill_pending > 0:
            st.skill_pending -= 1
            stage = offer_skills(st, stage)
            continue
        if st.in_battle == 1 and st.m_health <= 0 and is_battle_stage(stage):
            stage = C.S_VICTORY
        stage = run_stage(st, T, stage)


@njit(**JIT_INLINE)
def run_stage(st, T, stage):
    if stage == C.S_MANDATORY:
        run_mandatory(st, T)
        return st.win_resume
    if stage == C.S_LEVEL_START:
        st.time = max(0, min(T.time_track, st.time + pmod_sum(st, T, C.PM_TIME_START)))
        return fire(st, T, C.T_LEVEL_START, C.S_PREP)
    if stage == C.S_PREP:
        st.phase = C.PH_PREP
        return C.S_WAIT
    if stage == C.S_REVEAL:
        st.commit_now = st.commit
        st.commit = 0
        if st.commit_now == 1:
            n = 1
        else:
            n = T.reveal_base + st.reveal_bonus + pmod_sum(st, T, C.PM_REVEAL)
            n = max(1, min(T.reveal_max, n))
        st.reveal_bonus = 0
        st.revealed_n = 0
        for _ in range(n):
            card, dn, sn = pile_draw(st, st.enc_deck, st.enc_deck_n, st.enc_disc, st.enc_disc_n)
            st.enc_deck_n = dn
            st.enc_disc_n = sn
            if card < 0:
                break
            st.revealed[st.revealed_n] = card
            st.revealed_n += 1
        if st.revealed_n == 0:
            return C.S_PREP  # no card anywhere (impossible with the shipped deck)
        st.phase = C.PH_EXPLORE
        return C.S_WAIT
    if stage == C.S_AFTER_CARD:
        if st.time <= 0:
            st.ambushed = 1
            return C.S_AMBUSH
        return C.S_PREP
    if stage == C.S_AMBUSH:
        st.ambushed = 1
        begin_combat(st, T)
        amb = T.m_ambush[st.monster]
        apply_monster_effect(st, T, amb, amb, False)
        return fire(st, T, C.T_AMBUSHED, C.S_BATTLE_START)
    if stage == C.S_TRICKERY:
        begin_combat(st, T)
        if trick_cost_ok(st, T):
            st.phase = C.PH_TRICK
            return C.S_WAIT
        return C.S_BATTLE_START
    if stage == C.S_BATTLE_START:
        st.in_battle = 1
        st.round = 0
        st.defend = 0
        ha = pmod_sum(st, T, C.PM_MONSTER_HEALTH)
        aa = pmod_sum(st, T, C.PM_MONSTER_ARMOR)
        monster_gain(st, T, aa, ha)
        return fire(st, T, C.T_BATTLE_START, C.S_ROUND_START)
    if stage == C.S_ROUND_START:
        if st.round > 0:
            for c in range(C.NCOND):
                if st.cond_rounds[c] > 0 and (st.cond[c] & 1) == 1:
                    st.cond_rounds[c] -= 1
                    if st.cond_rounds[c] == 0:
                        drop_condition(st, c)
            if st.waside_rounds > 0:
                st.waside_rounds -= 1
                if st.waside_rounds == 0:
                    restore_weapons(st)
        if st.round < 32767:  # the int16 field's max: a record there stays there
            st.round += 1
        st.first_done = 0
        st.rerolls = 0
        if monster_first(st, T):
            return C.S_MONSTER_TURN
        return C.S_PLAYER_TURN
    if stage == C.S_PLAYER_TURN:
        start_player_turn(st)
        return fire(st, T, C.T_TURN_START, C.S_TURN_CHECK)
    if stage == C.S_TURN_CHECK:
        if st.lose_turn == 1:
            st.lose_turn = 0
            return C.S_PLAYER_TURN_END
        st.phase = C.PH_TURN
        return C.S_WAIT
    if stage == C.S_ATTACK_RESOLVE:
        resolve_attack(st, T)
        if st.pend_armor0 > 0 and st.m_armor == 0:
            return fire(st, T, C.T_ARMOR_BROKEN, C.S_AFTER_ATTACK)
        return C.S_AFTER_ATTACK
    if stage == C.S_AFTER_ATTACK:
        if st.extra_attack == 1:
            st.extra_attack = 0
            if any_attack(st, T):
                st.phase = C.PH_EXTRA
                return C.S_WAIT
        return C.S_PLAYER_TURN_END
    if stage == C.S_PLAYER_TURN_END:
        return turn_end(st, C.S_MONSTER_TURN)
    if stage == C.S_MONSTER_TURN:
        st.roll = max(1, min(6, roll_die(st) + pmod_sum(st, T, C.PM_MONSTER_ROLL)))
        return fire(st, T, C.T_MONSTER_ROLL, C.S_APPLY_ROLL)
    if stage == C.S_APPLY_ROLL:
        m = st.monster
        f = st.roll - 1
        ops = T.m_face_ops[m, f]
        if not ops_applicable(st, T, ops) and T.m_face_has_alt[m, f] == 1:
            ops = T.m_face_alt[m, f]  # the bracketed alternative is what would apply
        if (
            not pmod_any(st, T, C.PM_IGNORE, T.m_face_type[m, f])
            and face_needs_reroll(st, T, ops)
            and st.rerolls < 12
        ):
            st.rerolls += 1
            return C.S_MONSTER_TURN
        apply_face(st, T)
        return C.S_MONSTER_TURN_END
    if stage == C.S_MONSTER_TURN_END:
        return turn_end(st, C.S_PLAYER_TURN)
    if stage == C.S_ROUND_END:
        return fire(st, T, C.T_ROUND_END, C.S_ROUND_START)
    if stage == C.S_VICTORY:
        st.in_battle = 0
        st.m_health = 0
        st.pend_atk = -1
        return fire(st, T, C.T_VICTORY, C.S_REWARDS)
    if stage == C.S_REWARDS:
        m = st.monster
        for r in range(C.NRES):
            gain(st, T, r, T.m_reward[m, r])
        st.m_armor = 0
        st.m_health = 0
        if st.level < 4:
            st.skill_pending += 1
        return C.S_HUNGER
    if stage == C.S_HUNGER:
        st.in_battle = 0
        st.hunger_req = max(0, min(C.MAX_EAT, st.level + pmod_sum(st, T, C.PM_FOOD_REQ)))
        st.phase = C.PH_HUNGER
        return C.S_WAIT
    if stage == C.S_END_LEVEL:
        if st.level == 4:
            st.outcome = C.O_WIN
            st.score = final_score(st, T)
            t = 0
            for i in range(T.title_min.shape[0]):
                if st.score >= T.title_min[i]:
                    t = i
            st.title = t
            st.phase = C.PH_OVER
            return C.S_WAIT
        end_level(st, T)
        return C.S_LEVEL_START
    # unknown stage: corrupt record; end the game rather than loop
    st.dead = 1
    return C.S_WAIT


# ---------------------------------------------------------------------------
# legality
# ---------------------------------------------------------------------------


@njit(**JIT)
def add_attack_surcharges(st, T, cost):
    """Add the active attack-cost passives (monster surcharges) to ``cost``."""
    for i in range(T.mod_n[C.PM_ATTACK_COST]):
        a = T.mod_ab[C.PM_ATTACK_COST, i]
        if passive_on(st, T, a):
            cost[T.ab_pa[a]] += T.ab_pn[a]


@njit(**JIT)
def attack_cost(st, T, w, k):
    """The full cost of weapon attack ``k`` (the weapon's cost plus monster
    surcharges), written into ``st.scratch``."""
    cost = st.scratch
    for r in range(C.NCOST):
        cost[r] = T.w_atk_cost[w, k, r]
    add_attack_surcharges(st, T, cost)
    return cost


@njit(**JIT)
def attack_cost_ok(st, T, k):
    w = weapon(st)
    if k >= T.w_natk[w]:
        return False
    if T.w_atk_kind[w, k] == 0:
        if st.m_armor <= 0:
            return False
    elif st.m_armor > 0:
        return False
    return can_pay(st, attack_cost(st, T, w, k), 0)


@njit(**JIT)
def any_attack(st, T):
    for k in range(C.MAX_ATTACKS):
        if attack_cost_ok(st, T, k):
            return True
    return False


@njit(**JIT)
def scout_cost(st, T):
    c = st.scratch
    for r in range(C.NCOST):
        c[r] = 0
    sc = C.SCOUT_COST[st.level - 1]
    c[C.R_S] = sc[0]
    c[C.R_CUN] = sc[1]
    c[C.R_TIME] = sc[2]
    return c


@njit(**JIT)
def sheet_in_deck(st, w):
    """Is weapon sheet ``w`` in the Weapon Deck (neither equipped nor in the
    stack nor set aside by a temporary downgrade)?"""
    for i in range(st.wstack_n):
        if st.wstack[i] == w:
            return False
    for i in range(st.waside_n):
        if st.waside[i] == w:
            return False
    return True


@njit(**JIT)
def general_mask(st, T, mask, travel):
    """Focus, Inspiration, Plan, Craft, downgrade (Preparation Step or
    Battle Step), plus Orienteer and Scout in the Preparation Step."""
    s, m, l = st.res[C.R_S], st.res[C.R_M], st.res[C.R_L]
    mask[C.A_FOCUS] = 1 if effort_ok(s, m, l, C.FOCUS_COST_S, 0, 0) else 0
    mask[C.A_INSPIRE] = 1 if effort_ok(s, m, l, 0, C.INSPIRE_COST_M, 0) else 0
    mask[C.A_PLAN] = 1 if effort_ok(s, m, l, C.PLAN_COST_S, 0, 0) else 0
    w = weapon(st)
    for j in range(C.MAX_UPGRADES):
        to = T.w_upg_to[w, j]
        if to >= 0 and sheet_in_deck(st, to) and can_pay(st, T.w_upg_cost[w, j], 0):
            mask[C.A_CRAFT0 + j] = 1
    mask[C.A_DOWNGRADE] = 1 if st.wstack_n > 1 else 0
    if travel:
        if st.commit == 0 and effort_ok(s, m, l, C.ORIENTEER_COST_S, 0, 0):
            mask[C.A_ORIENTEER] = 1
        if st.m_revealed == 0 and can_pay(st, scout_cost(st, T), 0):
            mask[C.A_SCOUT] = 1


@njit(**JIT)
def ability_slots_mask(st, T, mask, kind, window):
    """Skills, character abilities and monster offers usable now as actions
    (kind = action, matching window) or as optional Responses."""
    for i in range(T.n_skills):
        if st.skill_owned[i] == 1:
            a = T.s_ab[i]
            if slot_ok(st, T, a, kind, window):
                mask[C.A_SKILL0 + i] = 1
    for j in range(C.MAX_CHAR_AB):
        a = T.char_ab[st.character, j]
        if a >= 0 and slot_ok(st, T, a, kind, window):
            mask[C.A_CHAR0 + j] = 1
    if st.monster >= 0 and st.m_revealed == 1:
        for j in range(C.MAX_MON_OPT):
            a = T.m_opt[st.monster, j]
            if a >= 0 and slot_ok(st, T, a, kind, window):
                mask[C.A_MON0 + j] = 1


@njit(**JIT)
def ability_has_target(st, T, a):
    """An action made only of Wound effects that Armor stops is offered only
    when the monster has no Armor; one made only of Armor breaks only when
    it has Armor (the same rule as weapon attacks, UNB-117 / UNB-A20)."""
    only_damage = True
    only_break = True
    n = 0
    for i in range(C.MAXOPS):
        code = T.ab_ops[a, i, 0]
        if code == C.OP_NONE:
            break
        n += 1
        if not (code == C.OP_DAMAGE and T.ab_ops[a, i, 3] == 0):
            only_damage = False
        if code != C.OP_BREAK:
            only_break = False
    if n == 0:
        return True
    if only_damage and (st.in_battle == 0 or st.m_armor > 0):
        return False
    if only_break and (st.in_battle == 0 or st.m_armor == 0):
        return False
    return True


@njit(**JIT)
def slot_ok(st, T, a, kind, window):
    if T.ab_kind[a] != kind:
        return False
    if kind == C.K_ACTION:
        return (
            (T.ab_window[a] & window) != 0
            and ability_usable(st, T, a)
            and ability_has_target(st, T, a)
        )
    return optional_response_ok(st, T, a)


@njit(**JIT)
def legal_mask(st, T, mask):
    """Fill ``mask`` (uint8, NUM_ACTIONS) with the legal actions; all zero
    when the game is over."""
    for i in range(C.NUM_ACTIONS):
        mask[i] = 0
    ph = st.phase
    if st.outcome != C.O_PLAYING or ph == C.PH_OVER:
        return
    if ph == C.PH_PREP:
        general_mask(st, T, mask, True)
        ability_slots_mask(st, T, mask, C.K_ACTION, C.WIN_TRAVEL)
        if st.commit == 0 or st.time <= 0:
            mask[C.A_FIGHT] = 1
        if st.time > 0:
            mask[C.A_EXPLORE] = 1
    elif ph == C.PH_EXPLORE:
        for i in range(st.revealed_n):
            card = st.revealed[i]
            if st.commit_now == 1 or can_pay(st, T.e_spend[card], 0):
                mask[C.A_RESOLVE0 + i] = 1
            if st.commit_now == 0:
                mask[C.A_REST0 + i] = 1
    elif ph == C.PH_TRICK:
        mask[C.A_TRICK] = 1
        mask[C.A_BATTLE] = 1
    elif ph == C.PH_TURN:
        for k in range(C.MAX_ATTACKS):
            if attack_cost_ok(st, T, k):
                mask[C.A_ATTACK0 + k] = 1
        general_mask(st, T, mask, False)
        ability_slots_mask(st, T, mask, C.K_ACTION, C.WIN_BATTLE)
        mask[C.A_SKIP] = 1
    elif ph == C.PH_EXTRA:
        for k in range(C.MAX_ATTACKS):
            if attack_cost_ok(st, T, k):
                mask[C.A_ATTACK0 + k] = 1
        mask[C.A_PASS] = 1
    elif ph == C.PH_RESPOND:
        ability_slots_mask(st, T, mask, C.K_RESPONSE, 0)
        mask[C.A_PASS] = 1
    elif ph == C.PH_SKILLPICK:
        for i in range(st.skill_offer_n):
            mask[C.A_KEEP0 + i] = 1
    elif ph == C.PH_HUNGER:
        top = min(st.hunger_req, st.res[C.R_FOOD], C.MAX_EAT)
        for k in range(top + 1):
            mask[C.A_EAT0 + k] = 1


# ---------------------------------------------------------------------------
# applying one (legal) action
# ---------------------------------------------------------------------------


@njit(**JIT)
def do_general(st, T, a):
    """Focus, Inspiration, Plan, Craft, downgrade, Orienteer, Scout."""
    if a == C.A_FOCUS:
        effort_pay(st, C.FOCUS_COST_S, 0, 0)
        gain(st, T, C.R_M, 1)
    elif a == C.A_INSPIRE:
        effort_pay(st, 0, C.INSPIRE_COST_M, 0)
        gain(st, T, C.R_L, 1)
    elif a == C.A_PLAN:
        effort_pay(st, C.PLAN_COST_S, 0, 0)
        gain(st, T, C.R_CUN, 1)
    elif a == C.A_CRAFT0 or a == C.A_CRAFT0 + 1:
        w = weapon(st)
        j = a - C.A_CRAFT0
        pay(st, T.w_upg_cost[w, j], 0)
        # crafting over a temporary downgrade replaces the set-aside sheets:
        # they go back to the Weapon Deck, so the stack stays one upgrade chain
        for i in range(st.waside_n):
            st.waside[i] = -1
        st.waside_n = 0
        st.waside_rounds = 0
        st.wstack[st.wstack_n] = T.w_upg_to[w, j]
        st.wstack_n += 1
        return T.w_upg_cost[w, j, C.R_TIME] > 0
    elif a == C.A_DOWNGRADE:
        downgrade(st, 0, True)
    elif a == C.A_ORIENTEER:
        effort_pay(st, C.ORIENTEER_COST_S, 0, 0)
        st.reveal_bonus = min(8, st.reveal_bonus + T.orienteer_bonus)
    elif a == C.A_SCOUT:
        c = scout_cost(st, T)
        pay(st, c, 0)
        reveal_monster(st, T)
        return True
    return False


@njit(**JIT)
def slot_ability(st, T, a):
    """Ability index behind a skill / character / monster action slot."""
    if a >= C.A_SKILL0 and a < C.A_SKILL0 + C.MAX_SKILLS:
        return T.s_ab[a - C.A_SKILL0]
    if a >= C.A_CHAR0 and a < C.A_CHAR0 + C.MAX_CHAR_AB:
        return T.char_ab[st.character, a - C.A_CHAR0]
    if a >= C.A_MON0 and a < C.A_MON0 + C.MAX_MON_OPT:
        return T.m_opt[st.monster, a - C.A_MON0]
    return -1


@njit(**JIT)
def start_attack(st, T, k):
    w = weapon(st)
    pay(st, attack_cost(st, T, w, k), 0)
    st.pend_atk = k
    p = T.w_atk_power[w, k]
    if T.w_atk_kind[w, k] == 0:
        p += pmod_sum(st, T, C.PM_BREAK_POWER)
    else:
        p += pmod_sum(st, T, C.PM_WEAPON_POWER)
    st.pend_power = p
    st.pend_armor0 = st.m_armor
    return fire(st, T, C.T_ATTACK, C.S_ATTACK_RESOLVE)


@njit(**JIT)
def apply_action(st, T, a):
    """Apply a legal action and run the rules to the next decision."""
    ph = st.phase
    nxt = C.S_WAIT
    if ph == C.PH_PREP:
        if a == C.A_FIGHT:
            nxt = C.S_AMBUSH if st.time <= 0 else C.S_TRICKERY
        elif a == C.A_EXPLORE:
            nxt = C.S_REVEAL
        elif a >= C.A_SKILL0:
            ab = slot_ability(st, T, a)
            had = st.time
            apply_ability(st, T, ab)
            nxt = (
                C.S_AMBUSH
                if (T.ab_cost[ab, C.R_TIME] > 0 and st.time <= 0 and had > 0)
                else C.S_PREP
            )
        else:
            spent_time = do_general(st, T, a)
            nxt = C.S_AMBUSH if (spent_time and st.time <= 0) else C.S_PREP
    elif ph == C.PH_EXPLORE:
        rest = a >= C.A_REST0
        i = a - (C.A_REST0 if rest else C.A_RESOLVE0)
        card = st.revealed[i]
        for j in range(st.revealed_n):
            if j != i:
                st.enc_disc_n = pile_push(st.enc_disc, st.enc_disc_n, st.revealed[j])
            st.revealed[j] = -1
        st.revealed_n = 0
        if rest:
            gain(st, T, C.R_S, T.e_time[card] + pmod_sum(st, T, C.PM_REST_BONUS))
        elif can_pay(st, T.e_spend[card], 0):
            pay(st, T.e_spend[card], 0)
            for r in range(C.NRES):
                gain(st, T, r, T.e_gain[card, r])
            apply_ops(st, T, T.e_ops[card], -1)
        # else: committed and unable to pay: nothing happens, Time still passes
        st.commit_now = 0
        st.time = max(0, st.time - T.e_time[card])
        st.enc_disc_n = pile_push(st.enc_disc, st.enc_disc_n, card)
        if rest:
            nxt = fire(st, T, C.T_REST, C.S_AFTER_CARD)
        else:
            nxt = C.S_AFTER_CARD
    elif ph == C.PH_TRICK:
        if a == C.A_TRICK:
            m = st.monster
            cost = st.scratch
            for r in range(C.NCOST):
                cost[r] = T.m_trick[m, r]
            cost[C.R_CUN] = max(0, cost[C.R_CUN] - pmod_sum(st, T, C.PM_TRICK_DISCOUNT))
            pay(st, cost, 0)
            st.tricked = 1
            nxt = C.S_HUNGER
        else:
            nxt = C.S_BATTLE_START
    elif ph == C.PH_TURN or ph == C.PH_EXTRA:
        if a >= C.A_ATTACK0 and a < C.A_ATTACK0 + C.MAX_ATTACKS:
            nxt = start_attack(st, T, a - C.A_ATTACK0)
        elif a == C.A_SKIP or a == C.A_PASS:
            nxt = C.S_PLAYER_TURN_END
        elif a >= C.A_SKILL0:
            apply_ability(st, T, slot_ability(st, T, a))
            nxt = C.S_PLAYER_TURN_END
        else:
            do_general(st, T, a)
            nxt = C.S_PLAYER_TURN_END
    elif ph == C.PH_RESPOND:
        if a == C.A_PASS:
            nxt = C.S_MANDATORY
        else:
            ab = slot_ability(st, T, a)
            st.win_used[ab] = 1
            apply_ability(st, T, ab)
            if st.dead:
                nxt = C.S_MANDATORY
            elif any_optional(st, T):
                nxt = C.S_WAIT
            else:
                nxt = C.S_MANDATORY
    elif ph == C.PH_SKILLPICK:
        k = a - C.A_KEEP0
        for i in range(st.skill_offer_n):
            s = st.skill_offer[i]
            if i == k:
                st.skill_owned[s] = 1
            else:
                st.skill_disc[st.skill_disc_n] = s
                st.skill_disc_n += 1
            st.skill_offer[i] = -1
        st.skill_offer_n = 0
        nxt = st.skill_after
    elif ph == C.PH_HUNGER:
        k = a - C.A_EAT0
        st.res[C.R_FOOD] -= k
        gain(st, T, C.R_S, k)
        miss = st.hunger_req - k
        lose_effort(st, C.R_S, miss * (miss + 1) // 2)
        nxt = C.S_END_LEVEL
    run(st, T, nxt)


# ---------------------------------------------------------------------------
# reset, step, auto-advance
# ---------------------------------------------------------------------------


@njit(**JIT)
def configure_row(st, cfg):
    """Config vector: (character or -1 for random each episode, difficulty)."""
    st.cfg_character = cfg[0]
    st.difficulty = cfg[1]


@njit(**JIT)
def reset_row(st, T):
    """Set up a new game (Setup + difficulty) in record ``st``; the engine
    has set the header. The forced-dice queue (a test hook) is left as it
    is, so a test can script the setup rolls too."""
    for i in range(NAB_MAX):
        st.win_used[i] = 0
    difficulty = st.difficulty
    cfg_character = st.cfg_character
    st.character = cfg_character if cfg_character >= 0 else chance.pick(st, C.NCHAR)
    st.score = 0
    st.title = -1
    st.phase = C.PH_PREP
    st.stage = C.S_WAIT
    st.level = 1
    st.combat = 0
    st.in_battle = 0
    st.dead = 0
    for r in range(C.NRES):
        st.res[r] = 0
    st.res[C.R_S] = T.diff_small[difficulty]
    if T.diff_bonus[difficulty, 0] >= 0:
        gain(st, T, T.diff_bonus[difficulty, roll_die(st) - 1], 1)
    st.time = T.time_start[0]
    st.uses = 1
    for i in range(C.WSTACK):
        st.wstack[i] = -1
        st.waside[i] = -1
    st.wstack[0] = 0
    st.wstack_n = 1
    st.waside_n = 0
    st.waside_rounds = 0
    st.enc_deck_n, st.enc_disc_n = pile_new_deck(
        st, st.enc_deck, st.enc_disc, T.deck_cards, T.deck_size
    )
    for i in range(C.MAX_REVEAL):
        st.revealed[i] = -1
    st.revealed_n = 0
    st.reveal_bonus = 0
    st.commit = 0
    st.commit_now = 0
    for i in range(C.MAX_SKILLS):
        st.skill_deck[i] = i if i < T.n_skills else -1
        st.skill_disc[i] = -1
        st.skill_owned[i] = 0
    st.skill_deck_n = T.n_skills
    st.skill_disc_n = 0
    chance.shuffle(st, st.skill_deck, st.skill_deck_n)
    st.skill_offer[0] = -1
    st.skill_offer[1] = -1
    st.skill_offer_n = 0
    st.skill_pending = 0
    st.skill_after = 0
    for c in range(C.NCOND):
        st.cond[c] = 0
        st.cond_tokens[c] = 0
        st.cond_rounds[c] = 0
    clear_encounter(st)
    start_player_turn(st)
    st.first_done = 0
    st.pend_atk = -1
    st.pend_power = 0
    st.pend_armor0 = 0
    st.roll = 0
    st.rerolls = 0
    st.win_trigger = 0
    st.win_resume = 0
    st.hunger_req = 0
    if T.diff_skill[difficulty] == 1:
        st.skill_pending = 1
    run(st, T, C.S_LEVEL_START)


@njit(**JIT)
def terminal_reward(st, T):
    if st.outcome == C.O_WIN:
        if st.reward_mode == 1:
            return 1.0 + min(1.0, st.score / 100.0)
        return 1.0
    if st.outcome == C.O_LOSS:
        if st.reward_mode == 1:
            return -1.0 + 0.2 * (st.level - 1)
        return -1.0
    return 0.0


@njit(**JIT)
def legal_row(st, T, mask):
    """The legal mask into ``mask``; returns how many actions are legal."""
    legal_mask(st, T, mask)
    n = 0
    for i in range(C.NUM_ACTIONS):
        n += mask[i] != 0
    return n


@njit(**JIT_INLINE)
def apply_row(st, T, a, rew):
    """Apply the legal action ``a``; the final reward when the game ends."""
    apply_action(st, T, a)
    if st.phase == C.PH_OVER:
        rew[0] = terminal_reward(st, T)


@njit(**JIT)
def finish_row(st, T):
    """The engine ended the game (illegal action or step cap)."""
    st.phase = C.PH_OVER
