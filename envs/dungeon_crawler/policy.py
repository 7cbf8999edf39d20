"""A scripted Dungeon Crawler hero (numba), for any seat.

What it does, decision by decision:

* creation: big rolls into ATK and HP, rebalances a little SPD into ATK,
  drafts the item with the largest bonus;
* movement: scores every legal destination: stairs and forward progress
  (it pushes for the final boss), chests, the armory and shop when it can
  pay, a mob / boss / rival only if an expected-damage duel says it wins
  (it avoids fights it would lose); the final boss's lair when the duel
  (with the boss's persistent wounds) says it can land the killing blow;
* cards: ambushes or assassinates a rival who is about to win (on the last
  floor near the lair, or who has hurt the final boss), drinks potions when
  hurt, vaults its best slot, enchants, curses / poisons / weakens the
  leader, pickpockets the leader's best piece;
* gear: buys and equips strict upgrades, takes better loot, discards worse;
* combat: plays buffs on the first round, flees with Coward's Escape or
  calls a Bodyguard when the duel is lost, otherwise fights.

``choose(st, T, prng)`` (the game's ``policy_row``) returns a legal action
of ``st.actor``; the engine's generated loops (``kernels.policy_rows``,
``advance_scripted``, ``play_rows``) play it for any seat inside numba.
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.jit import JIT, njit
from ..core.kernel.rng import rng_choice_mask
from . import consts as C
from .rules import eff_atk, eff_def, eff_spd, max_hp, rival_on, shift_pair


@njit(**JIT)
def duel(atk, dfn, hp, spd, oatk, odef, ohp, ospd, first_tie):
    """Expected-damage duel: True if the first side kills the second."""
    md = atk + 3.5 - odef
    md = md if md > 1.0 else 1.0
    od = oatk + 3.5 - dfn
    od = od if od > 1.0 else 1.0
    kill = np.ceil(ohp / md)
    die = np.ceil(hp / od)
    if kill < die:
        return True
    if kill == die and (spd > ospd or (spd == ospd and first_tie)):
        return True
    return False


@njit(**JIT)
def wins_vs_hero(st, T, h, o):
    return duel(
        eff_atk(st, T, h),
        eff_def(st, T, h),
        st.hp[h],
        eff_spd(st, T, h),
        eff_atk(st, T, o),
        eff_def(st, T, o),
        st.hp[o],
        eff_spd(st, T, o),
        True,
    )


@njit(**JIT)
def square_monster(st, T, f, q):
    """(atk, def, hp, spd) of the living monster on (f, q), hp 0 if none."""
    k = T.sq_kind[f, q]
    if not st.sq_alive[f, q]:
        return 0, 0, 0, 0
    if k == C.SQ_MOB:
        m = st.sq_mob[f, q]
        return T.mob_stats[m, 0], T.mob_stats[m, 1], st.sq_hp[f, q], T.mob_stats[m, 3]
    if k == C.SQ_BOSS:
        return T.boss_stats[f, 0], T.boss_stats[f, 1], st.sq_hp[f, q], T.boss_stats[f, 3]
    if k == C.SQ_LAIR:
        b = st.final_boss
        return T.final_stats[b, 0], T.final_stats[b, 1], st.sq_hp[f, q], T.final_stats[b, 3]
    return 0, 0, 0, 0


@njit(**JIT)
def item_value(T, it):
    if it < 0:
        return 0
    return T.item_atk[it] * 2 + T.item_def[it] * 2 + T.item_hp[it] + T.item_spd[it]


@njit(**JIT)
def upgrade(st, T, h, it):
    return item_value(T, it) - item_value(T, st.equip[h, T.item_slot[it]])


@njit(**JIT)
def threat(st, T, o):
    """How close seat o is to winning (bigger = closer)."""
    return st.floor[o] * 100 + st.pos[o] * 2 + st.boss_dmg[o] * 3


@njit(**JIT)
def about_to_win(st, T, o):
    last = C.NFLOOR - 1
    return st.floor[o] == last and (st.pos[o] >= T.floor_len[last] - 8 or st.boss_dmg[o] > 0)


@njit(**JIT)
def pick(st, a):
    if a >= 0 and a < C.NUM_ACTIONS and st.legal[a]:
        return a
    return -1


@njit(**JIT)
def best_target(st, T, h):
    best, bv = -1, -1
    for t in range(st.num_players):
        if st.legal[C.A_TARGET0 + t]:
            v = threat(st, T, t)
            if v > bv:
                best, bv = t, v
    return best


@njit(**JIT)
def card_of(T, eff):
    for c in range(T.n_cards):
        if T.card_effect[c] == eff:
            return c
    return -1


@njit(**JIT)
def play_effect(st, T, eff):
    """Action playing the first held, legal card with effect ``eff`` (-1)."""
    for c in range(T.n_cards):
        if T.card_effect[c] == eff and st.legal[C.A_PLAY0 + c]:
            return C.A_PLAY0 + c
    return -1


@njit(**JIT)
def turn_cards(st, T, h):
    """A card worth playing on the hero's own turn, or -1."""
    n = st.num_players
    # stop a rival about to win
    for o in range(n):
        if o != h and about_to_win(st, T, o) and not about_to_win(st, T, h):
            for eff in (C.E_AMBUSH, C.E_ASSASSINATE):
                a = play_effect(st, T, eff)
                if a >= 0 and (eff == C.E_ASSASSINATE or st.floor[o] == st.floor[h]):
                    if wins_vs_hero(st, T, h, o):
                        return a
            a = play_effect(st, T, C.E_RECALL)
            if a >= 0:
                return a
            a = play_effect(st, T, C.E_SUMMON)
            if a >= 0:
                return a
    mh = max_hp(st, T, h)
    if st.hp[h] * 2 < mh:
        a = play_effect(st, T, C.E_HEAL)
        if a >= 0:
            return a
    for eff in (
        C.E_ANTIDOTE,
        C.E_VAULT,
        C.E_ENCHANT,
        C.E_PICKPOCKET,
        C.E_CURSE,
        C.E_POISON,
        C.E_WEAKNESS,
        C.E_STRIP,
    ):
        a = play_effect(st, T, eff)
        if a >= 0:
            return a
    return -1


@njit(**JIT)
def move_score(st, T, h, d):
    """Value of walking d squares (signed) from here."""
    f = st.floor[h]
    q = st.pos[h] + d
    k = T.sq_kind[f, q]
    s = 0.6 * d + f * 3.0
    last = C.NFLOOR - 1
    me_a, me_d, me_h, me_s = eff_atk(st, T, h), eff_def(st, T, h), st.hp[h], eff_spd(st, T, h)
    r = rival_on(st, h, f, q)
    if q != 0 and r >= 0 and st.shadow == 0:
        return s + (4.0 if wins_vs_hero(st, T, h, r) else -30.0)
    if k == C.SQ_STAIRS:
        return s + 25.0
    if k == C.SQ_CHEST and st.sq_alive[f, q]:
        return s + 6.0
    if k == C.SQ_ARMORY:
        return s + (5.0 if st.gold[h] >= T.item_price[0] + 2 else -1.0)
    if k == C.SQ_SHOP:
        return s + (2.0 if st.gold[h] >= T.card_price and st.hand_n[h] < C.HAND_MAX else -1.0)
    if (k == C.SQ_MOB or k == C.SQ_BOSS or k == C.SQ_LAIR) and st.sq_alive[f, q]:
        oa, od, oh, os = square_monster(st, T, f, q)
        win = duel(me_a, me_d, me_h, me_s, oa, od, oh, os, True)
        if k == C.SQ_LAIR and f == last:
            return s + (100.0 if win else -40.0)
        if win:
            return s + (8.0 if k == C.SQ_BOSS else 3.0)
        return s - 40.0
    return s


@njit(**JIT)
def choose(st, T, prng):
    """The heuristic's action for ``st.actor`` (always legal)."""
    h = st.actor
    ph = st.phase
    a = -1
    if ph == C.PH_ASSIGN:
        order = (C.ST_ATK, C.ST_HP, C.ST_DEF, C.ST_SPD)
        hi = st.cr_roll >= 9
        for i in range(4):
            s = order[i] if hi else order[3 - i]
            if st.rolled[h, s] == 0:
                a = C.A_ASSIGN0 + s
                break
    elif ph == C.PH_REBAL:
        if st.base[h, C.ST_SPD] > 6:
            for k in range(12):
                x, y = shift_pair(k)
                if x == C.ST_SPD and y == C.ST_ATK:
                    a = pick(st, C.A_SHIFT0 + k)
        if a < 0:
            a = C.A_REBAL_DONE
    elif ph == C.PH_DRAFT:
        bv = -1
        for k in range(st.offer_n):
            v = item_value(T, st.offer[k])
            if v > bv:
                bv, a = v, C.A_DRAFT0 + k
    elif ph == C.PH_MOVE or ph == C.PH_MAIN:
        a = turn_cards(st, T, h)
        if a < 0 and ph == C.PH_MOVE:
            bs = -1e9
            for k in range(C.MAX_MOVE):
                for sgn in (1, -1):
                    act = (C.A_FWD0 if sgn == 1 else C.A_BACK0) + k
                    if st.legal[act]:
                        v = move_score(st, T, h, sgn * (k + 1))
                        if v > bs:
                            bs, a = v, act
        if a < 0:
            a = C.A_END
    elif ph == C.PH_TARGET:
        a = C.A_TARGET0 + best_target(st, T, h)
    elif ph == C.PH_SLOT:
        t = st.pend_target
        bv = -1
        for sl in range(C.NSLOT):
            if st.legal[C.A_SLOT0 + sl]:
                v = item_value(T, st.equip[t if t >= 0 else h, sl])
                if v > bv:
                    bv, a = v, C.A_SLOT0 + sl
    elif ph == C.PH_SHOP:
        a = C.A_LEAVE
        for k in range(st.offer_n):
            if st.legal[C.A_BUY0 + k]:
                e = T.card_effect[st.offer[k]]
                if (
                    e == C.E_HEAL
                    or e == C.E_BUFF
                    or e == C.E_ESCAPE
                    or e == C.E_AMBUSH
                    or e == C.E_VAULT
                    or e == C.E_CACHE
                ):
                    a = C.A_BUY0 + k
                    break
    elif ph == C.PH_ARMORY:
        a = C.A_LEAVE
        bv = 0
        for k in range(st.offer_n):
            if st.legal[C.A_BUY0 + k]:
                v = upgrade(st, T, h, st.offer[k])
                if v > bv:
                    bv, a = v, C.A_BUY0 + k
    elif ph == C.PH_CHEST:
        a = C.A_EQUIP if upgrade(st, T, h, st.offer[0]) > 0 else C.A_DECLINE
    elif ph == C.PH_COMBAT:
        if st.cb_kind == C.OPP_HERO:
            o = st.cb_b if h == st.cb_a else st.cb_a
            winning = wins_vs_hero(st, T, h, o)
        else:
            oa = np.int64(0)
            od = np.int64(0)
            os = np.int64(0)
            if st.cb_kind == C.OPP_SUMMON:
                oa, od, os = (
                    T.mob_stats[st.cb_mob, 0],
                    T.mob_stats[st.cb_mob, 1],
                    T.mob_stats[st.cb_mob, 3],
                )
                oh = np.int64(st.cb_mhp)
            else:
                oa, od, oh, os = square_monster(st, T, st.cb_f, st.cb_sq)
            winning = duel(
                eff_atk(st, T, h),
                eff_def(st, T, h),
                st.hp[h],
                eff_spd(st, T, h),
                oa,
                od,
                oh,
                os,
                st.cb_init_a == 1,
            )
        if not winning:
            a = play_effect(st, T, C.E_BODYGUARD)
            if a < 0:
                a = play_effect(st, T, C.E_BUFF)
            if a < 0 and st.hp[h] * 2 < max_hp(st, T, h):
                a = play_effect(st, T, C.E_HEAL)
            if a < 0 and not (st.cb_kind == C.OPP_FINAL):
                a = play_effect(st, T, C.E_ESCAPE)
        if a < 0:
            a = C.A_FIGHT
    elif ph == C.PH_LOOT:
        bv = -100
        v_ = st.loot_victim
        for sl in range(C.NSLOT):
            if st.legal[C.A_LOOT_TAKE0 + sl]:
                u = upgrade(st, T, h, st.equip[v_, sl])
                if u > bv:
                    bv = u
                    a = (C.A_LOOT_TAKE0 if u > 0 else C.A_LOOT_BURN0) + sl
    a = pick(st, a)
    if a < 0:
        a = rng_choice_mask(prng, st.legal)
    return a


#: the engine's name for the game's scripted policy
policy_row = choose
