"""A scripted heuristic for Dungeon Crawler Carl: Unstoppable (solo, and as
either co-op seat): ``policy_row(st, T, prng) -> action`` for ``st.actor``.

Plan: take the portrait's preset race/class; draft the card with the most
damage per action point (solo: the weaker of the two others goes lowest
under the deck); in the Main Phase go down the stairs when allowed,
buy an upgrade that adds damage or action points (or makes a card cheaper)
when the gold allows, exhaust allies, play affordable cards (best value
first), cast the damage spell with spare mana, heal when low, then end.
Damage goes to a threat it defeats (highest attack first, on-deck threats
count: they draw a card), then to an awake boss, otherwise to the most
dangerous active threat; a Looming boss is woken only when the team still
needs its kind for the stairs and a stairs card is in a deck (then it is
the main target). Optional costs are paid, optional eliminations and market
refreshes declined. ``prng`` breaks no ties here (the heuristic is
deterministic); it is accepted for the engine's contract.
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.jit import JIT, njit
from . import consts as C
from . import rules as R


@njit(**JIT)
def core_value(T, c):
    v = 0.0
    for i in range(C.CARD_OPS):
        code = T.c_play[c, i, 0]
        if code == C.OP_NONE:
            break
        n = T.c_play[c, i, 1]
        if T.c_play[c, i, 3] == C.CD_SPELL:
            n = n * 0.6
        if code == C.OP_DAMAGE:
            v += 1.5 * n
        elif code == C.OP_AP:
            v += 1.2 * n
        else:
            v += 0.5 * n
    for j in range(T.c_nexh[c]):
        for i in range(C.CARD_OPS):
            if T.c_exh[c, j, i, 0] == C.OP_DAMAGE:
                v += 1.2 * T.c_exh[c, j, i, 1]
            elif T.c_exh[c, j, i, 0] != C.OP_NONE:
                v += 0.4 * T.c_exh[c, j, i, 1]
    return v / (1.0 + T.c_cost[c])


@njit(**JIT)
def boss_needed(st, T, s):
    """Boss s is of a kind the team still needs for the stairs (quest
    bosses always: they complete their quest part)."""
    k = T.t_boss_kind[s]
    if k < 0:
        return False
    if k == C.BK_QUEST:
        return True
    f = st.cfg_floor - 1
    return st.bosses[k] < T.tr_need[f, st.cfg_mode, k] * st.num_players


@njit(**JIT)
def pick_target(st, T, mask, n):
    """Best damage target for n damage, or -1 to skip."""
    best = -1
    best_v = -1e9
    hunting = False
    for q in range(st.num_players):
        if st.sl_zone[C.STAIRS0 + q] == C.Z_DECK:
            hunting = True
    for q in range(st.num_players):
        for t in range(C.TSLOTS):
            a = C.A_TGT0 + q * C.TSLOTS + t
            if not mask[a]:
                continue
            s = R.target_sleeve(st, q, t)
            left = R.t_health(st, T, s) - st.sl_dmg[s]
            atk = R.t_attack(st, T, s)
            kw = R.t_keywords(st, T, s)
            boss = T.t_group[s] == 6
            v = 0.0
            if left <= n:
                v = 100.0 + 3.0 * atk - left
            elif boss and st.sl_loom[s]:
                # wake a Looming boss only when the team needs it and the
                # stairs are on their way (then it is the main target)
                if hunting and boss_needed(st, T, s):
                    v = 20.0 - 0.1 * left
                else:
                    v = -50.0 - left
            elif boss:
                v = 30.0 + atk - 0.1 * left  # an awake boss: finish it
            elif t == C.ONDECK:
                v = 1.0 - left
            else:
                v = 10.0 + 2.0 * atk - left
            if (kw & C.KW_RETALIATE) and st.health[st.actor] <= 2:
                v -= 200.0
            if v > best_v:
                best_v = v
                best = a
    if best_v < -40.0 and mask[C.A_SKIP]:
        return -1
    return best


@njit(**JIT)
def upgrade_value(T, u):
    """Worth of upgrade u on a card of the heuristic (damage and cheaper
    cards; others are not bought: their threat sides hurt)."""
    v = -0.5 * T.u_atk[u]
    for i in range(C.UPG_OPS):
        code = T.u_ops[u, i, 0]
        if code == C.OP_DAMAGE and T.u_ops[u, i, 3] != C.CD_SPELL:
            v += 2.0 * T.u_ops[u, i, 1]
        elif code == C.OP_AP:
            v += 2.0 * T.u_ops[u, i, 1]
    v -= 2.0 * T.u_ap[u]
    return v


@njit(**JIT)
def policy_row(st, T, prng):
    mask = np.zeros(C.NUM_ACTIONS, np.uint8)
    n = R.legal_row(st, T, mask)
    if n == 0:
        return -1
    p = st.actor
    ph = st.phase
    if ph == C.PH_RACE:
        return C.A_PRESET
    if ph == C.PH_CLASS:
        for i in range(3):
            if mask[C.A_CLASS0 + i]:
                return C.A_CLASS0 + i
    if ph == C.PH_DRAFT:
        # keep the most valuable card; in the bottom order (DCC-125) send the
        # least valuable one lowest, so the better one comes back sooner
        low = st.dec == C.DEC_BOTTOM
        best = -1
        bv = -1.0
        for i in range(2 * C.DRAFT_DUO):
            if mask[C.A_DRAFT0 + i]:
                v = core_value(T, st.reveal[i])
                if low:
                    v = -v
                if best < 0 or v > bv:
                    bv = v
                    best = C.A_DRAFT0 + i
        return best
    d = st.dec
    if d == C.DEC_TARGET:
        op = st.pend[st.pend_i]
        a = pick_target(st, T, mask, R.op_amount(st, T, p, op))
        return C.A_SKIP if a < 0 else a
    if d == C.DEC_PAY:
        return C.A_YES
    if d == C.DEC_HEAL:
        q = 0
        for k in range(st.num_players):
            if st.health[k] < st.health[q]:
                q = k
        return C.A_PLAYER0 + q
    if d == C.DEC_SACRIFICE or d == C.DEC_UPGRADE or d == C.DEC_REFRESH:
        best = -1
        bv = 1e9
        for a in range(C.A_HAND0, C.A_PLAY0 + C.PLAY_SLOTS):
            if mask[a]:
                s = R.elim_target(st, p, a)
                v = core_value(T, st.sl_core[s])
                if d == C.DEC_UPGRADE or d == C.DEC_REFRESH:
                    v = -v
                if v < bv:
                    bv = v
                    best = a
        if best >= 0:
            return best
    if mask[C.A_SKIP] and d != C.DEC_NONE:
        return C.A_SKIP
    if d == C.DEC_NONE:
        if mask[C.A_DESCEND]:
            return C.A_DESCEND
        best = -1
        bv = 0.9
        for m in range(C.MARKET_SIZE):
            if mask[C.A_BUY0 + m]:
                v = upgrade_value(T, st.market[m])
                if v > bv:
                    bv = v
                    best = C.A_BUY0 + m
        if best >= 0:
            return best
        for a in range(C.A_EXH0, C.A_EXH0 + C.PLAY_SLOTS * C.NEXH):
            if mask[a]:
                return a
        best = -1
        bv = -1.0
        for h in range(C.HAND_SLOTS):
            if mask[C.A_HAND0 + h]:
                v = core_value(T, st.sl_core[st.hand[p, h]])
                if v > bv:
                    bv = v
                    best = C.A_HAND0 + h
        if best >= 0:
            return best
        if mask[C.A_SPELL_HEAL] and st.health[p] <= 5:
            return C.A_SPELL_HEAL
        if mask[C.A_SPELL_DMG]:
            tm = np.zeros(C.NUM_ACTIONS, np.uint8)
            for q in range(st.num_players):
                for t in range(C.TSLOTS):
                    if R.target_ok(st, T, q, t):
                        tm[C.A_TGT0 + q * C.TSLOTS + t] = 1
            if pick_target(st, T, tm, 1) >= 0:
                return C.A_SPELL_DMG
        if mask[C.A_END]:
            return C.A_END
    for a in range(C.NUM_ACTIONS):
        if mask[a]:
            return a
    return -1
