"""Dungeon Crawler rules as numba kernels over one state record.

Layering: no spaces, agent names or rendering here. The module exposes the
engine's row contract (``envs/README.md``): ``configure_row``,
``reset_row``, ``legal_row``, ``apply_row`` and ``finish_row``, all on one
record of ``state.STATE_DTYPE`` and the content record ``T``. The step
wrapper (illegal actions, auto-advance, truncation) and every batch loop are
the engine's (``kernels.py``, generated).

Flow: ``phase`` names the decision owed and ``actor`` the seat owing it (the
AEC agent to act). Creation runs seat by seat (assign x4, rebalance, draft),
then dungeon turns go round the table from seat 0: turn start (poison,
draw one action card, movement roll), MOVE (walk, or play cards first),
the landing square (which may open a sub-phase: shop, armory, chest,
combat, loot), MAIN (play cards) and END. Combats are fought round by
round: side A's window, side B's window in PvP, then both strikes.

All chance goes through ``core.chance`` (``roll_die`` / ``roll_d4`` are its
forced-queue rolls; tests queue results with ``chance.force``).
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.jit import JIT, JIT_INLINE, njit
from ..core.kernel import chance
from ..core.kernel.zones import pile_draw, pile_new_deck, pile_push
from . import consts as C


# ---------------------------------------------------------------------------
# chance
# ---------------------------------------------------------------------------
@njit(**JIT_INLINE)
def roll_die(st):
    """1d6 from this game's generator; a queued forced result is used first."""
    return chance.roll(st, 6)


@njit(**JIT_INLINE)
def roll_d4(st):
    """1d4 (creation rolls); shares the forced queue with ``roll_die``."""
    return chance.roll(st, 4)


@njit(**JIT_INLINE)
def gear_sum(st, T, h, stat):
    s = 0
    for sl in range(C.NSLOT):
        it = st.equip[h, sl]
        if it >= 0:
            if stat == C.ST_ATK:
                s += T.item_atk[it]
            elif stat == C.ST_DEF:
                s += T.item_def[it]
            elif stat == C.ST_HP:
                s += T.item_hp[it]
            else:
                s += T.item_spd[it]
    return s


# The hero stat formulas, each written once: ``_atk``/``_def`` take the gear
# bonus, so one pass over the slots (``hero_stats``, the encoder's) and one
# stat at a time (``eff_atk``..., the rules') share them.
@njit(**JIT_INLINE)
def _atk(st, h, gear):
    v = np.int64(st.base[h, C.ST_ATK]) + gear + st.enchant[h] - st.curse[h] + st.cb_atk[h]
    return v if v > 0 else 0


@njit(**JIT_INLINE)
def _def(st, h, gear):
    v = np.int64(st.base[h, C.ST_DEF]) + gear + st.cb_def[h]
    return v if v > 0 else 0


@njit(**JIT_INLINE)
def max_hp(st, T, h):
    return np.int64(st.base[h, C.ST_HP]) + gear_sum(st, T, h, C.ST_HP)


@njit(**JIT_INLINE)
def eff_atk(st, T, h):
    return _atk(st, h, gear_sum(st, T, h, C.ST_ATK))


@njit(**JIT_INLINE)
def eff_def(st, T, h):
    return _def(st, h, gear_sum(st, T, h, C.ST_DEF))


@njit(**JIT_INLINE)
def eff_spd(st, T, h):
    return np.int64(st.base[h, C.ST_SPD]) + gear_sum(st, T, h, C.ST_SPD)


@njit(**JIT_INLINE)
def hero_stats(st, T, h):
    """(ATK, DEF, max HP, SPD) of hero ``h`` in one pass over its gear:
    ``eff_atk``, ``eff_def``, ``max_hp``, ``eff_spd`` together."""
    ga = 0
    gd = 0
    gh = 0
    gs = 0
    for sl in range(C.NSLOT):
        it = st.equip[h, sl]
        if it >= 0:
            ga += T.item_atk[it]
            gd += T.item_def[it]
            gh += T.item_hp[it]
            gs += T.item_spd[it]
    return (
        _atk(st, h, ga),
        _def(st, h, gd),
        np.int64(st.base[h, C.ST_HP]) + gh,
        np.int64(st.base[h, C.ST_SPD]) + gs,
    )


@njit(**JIT_INLINE)
def boots_bonus(st, T, h):
    it = st.equip[h, C.SL_BOOTS]
    return np.int64(T.item_spd[it]) if it >= 0 else 0


@njit(**JIT_INLINE)
def gain_gold(st, T, h, n):
    g = st.gold[h] + n
    if g > T.gold_cap:
        g = T.gold_cap
    st.gold[h] = g


@njit(**JIT)
def heal(st, T, h, n):
    m = max_hp(st, T, h)
    v = st.hp[h] + n if n >= 0 else m
    st.hp[h] = v if v < m else m


# ---------------------------------------------------------------------------
# items and cards
# ---------------------------------------------------------------------------
@njit(**JIT_INLINE)
def discard_item(st, it):
    st.item_disc_n = pile_push(st.item_disc, st.item_disc_n, it)


@njit(**JIT)
def draw_item(st):
    it, st.item_deck_n, st.item_disc_n = pile_draw(
        st, st.item_deck, st.item_deck_n, st.item_disc, st.item_disc_n
    )
    return it


@njit(**JIT)
def draw_card(st):
    c, st.card_deck_n, st.card_disc_n = pile_draw(
        st, st.card_deck, st.card_deck_n, st.card_disc, st.card_disc_n
    )
    return c


@njit(**JIT_INLINE)
def discard_card(st, c):
    st.card_disc_n = pile_push(st.card_disc, st.card_disc_n, c)


@njit(**JIT)
def set_slot(st, T, h, sl, it):
    """Put item ``it`` (or -1) in slot ``sl`` of hero ``h``; returns the old
    item (the caller decides where it goes). Max HP changes move current HP
    with them (a gain heals the same amount, a loss caps it)."""
    old_max = max_hp(st, T, h)
    old = st.equip[h, sl]
    st.equip[h, sl] = it
    if sl == C.SL_WEAPON:
        st.enchant[h] = 0  # an enchantment lives on the weapon
    new_max = max_hp(st, T, h)
    if new_max > old_max:
        st.hp[h] += new_max - old_max
    if st.hp[h] > new_max:
        st.hp[h] = new_max
    return old


@njit(**JIT)
def equip_item(st, T, h, it):
    """Wear ``it``; a replaced piece goes to the item discard."""
    old = set_slot(st, T, h, T.item_slot[it], it)
    if old >= 0:
        discard_item(st, old)


@njit(**JIT_INLINE)
def vaulted(st, h, sl):
    return (st.vault[h] >> sl) & 1


@njit(**JIT_INLINE)
def n_unvaulted(st, h):
    n = 0
    for sl in range(C.NSLOT):
        if st.equip[h, sl] >= 0 and vaulted(st, h, sl) == 0:
            n += 1
    return n


# ---------------------------------------------------------------------------
# board
# ---------------------------------------------------------------------------
@njit(**JIT_INLINE)
def rival_on(st, h, f, sq):
    """First other hero (seat order after h) on (f, sq), or -1."""
    n = st.num_players
    for k in range(1, n):
        o = (h + k) % n
        if st.floor[o] == f and st.pos[o] == sq:
            return o
    return -1


@njit(**JIT_INLINE)
def anyone_on(st, f, sq):
    for o in range(st.num_players):
        if st.floor[o] == f and st.pos[o] == sq:
            return True
    return False


@njit(**JIT_INLINE)
def interesting(st, T, h, f, sq):
    k = T.sq_kind[f, sq]
    if k == C.SQ_SHOP or k == C.SQ_ARMORY or k == C.SQ_STAIRS or k == C.SQ_LAIR:
        return True
    if (k == C.SQ_CHEST or k == C.SQ_MOB or k == C.SQ_BOSS) and st.sq_alive[f, sq]:
        return True
    if sq != 0 and rival_on(st, h, f, sq) >= 0:
        return True
    return False


@njit(**JIT_INLINE)
def full_move(st, T, h, d):
    """Squares the hero walks in direction d (+1/-1) with the whole roll:
    clipped by the floor's ends and by a living mid-floor boss (which stops
    a walker on its square unless Shadow Step is active)."""
    f = st.floor[h]
    p = st.pos[h]
    n = T.floor_len[f]
    k = 0
    while k < st.roll:
        q = p + d * (k + 1)
        if q < 0 or q >= n:
            break
        k += 1
        if T.sq_kind[f, q] == C.SQ_BOSS and st.sq_alive[f, q] and st.shadow == 0:
            break
    return k


@njit(**JIT)
def place_mob(st, T, f, sq):
    m = f * C.MOBS_PER_FLOOR + chance.pick(st, C.MOBS_PER_FLOOR)
    st.sq_mob[f, sq] = m
    st.sq_hp[f, sq] = T.mob_stats[m, 2]
    st.sq_alive[f, sq] = 1


@njit(**JIT)
def respawn_squares(st, T):
    for f in range(C.NFLOOR):
        for sq in range(T.floor_len[f]):
            k = T.sq_kind[f, sq]
            if (
                (k == C.SQ_MOB or k == C.SQ_CHEST)
                and st.sq_alive[f, sq] == 0
                and st.sq_back[f, sq] <= st.round
                and not anyone_on(st, f, sq)
            ):
                if k == C.SQ_MOB:
                    place_mob(st, T, f, sq)
                else:
                    st.sq_alive[f, sq] = 1


# ---------------------------------------------------------------------------
# turn structure
# ---------------------------------------------------------------------------
@njit(**JIT)
def resolve_immediate(st, T, h, c):
    e = T.card_effect[c]
    if e == C.E_CACHE:
        gain_gold(st, T, h, T.card_gold[c])
    elif e == C.E_RESHUFFLE:
        # the item discard goes back into the item deck, which is reshuffled
        for i in range(st.item_disc_n):
            st.item_deck[st.item_deck_n] = st.item_disc[i]
            st.item_deck_n += 1
            st.item_disc[i] = -1
        st.item_disc_n = 0
        chance.shuffle(st, st.item_deck, st.item_deck_n)
    elif e == C.E_WELL:
        for o in range(st.num_players):
            if st.floor[o] == st.floor[h]:
                heal(st, T, o, T.card_heal[c])
    discard_card(st, c)


@njit(**JIT)
def gain_card(st, T, h, c):
    if T.card_kind[c] == C.K_IMMEDIATE:
        resolve_immediate(st, T, h, c)
    else:
        st.hand[h, c] += 1
        st.hand_n[h] += 1


@njit(**JIT)
def clear_turn(st):
    """A turn's flags as it starts: nobody killed, no move, Sprint or Shadow
    yet, no card waiting for a target."""
    st.turn_dead = 0
    st.moved = 0
    st.sprinted = 0
    st.shadow = 0
    st.pend_card = -1
    st.pend_target = -1


@njit(**JIT)
def begin_turn(st, T, h):
    st.turn = h
    clear_turn(st)
    if st.poison[h] > 0:
        d = st.poison_dmg[h]
        st.hp[h] = st.hp[h] - d if st.hp[h] - d >= 1 else 1
        st.poison[h] -= 1
    if st.hand_n[h] < C.HAND_MAX:
        c = draw_card(st)
        if c >= 0:
            gain_card(st, T, h, c)
    st.roll = roll_die(st) + boots_bonus(st, T, h)
    st.resume_ph = C.PH_MOVE
    st.phase = C.PH_MOVE
    st.actor = h


@njit(**JIT)
def end_turn(st, T):
    n = st.num_players
    nxt = (st.turn + 1) % n
    if nxt == 0:
        st.round += 1
        respawn_squares(st, T)
    begin_turn(st, T, nxt)


@njit(**JIT)
def resume(st, T):
    """Back to the turn's hero after a sub-phase (or end the turn)."""
    if st.phase == C.PH_OVER:
        return
    if st.turn_dead:
        end_turn(st, T)
        return
    st.phase = st.resume_ph
    st.actor = st.turn


# ---------------------------------------------------------------------------
# death
# ---------------------------------------------------------------------------
@njit(**JIT)
def hero_dies(st, T, v, killer):
    """Hero ``v`` reached 0 HP. A hero killer loots afterwards (phase LOOT);
    a monster kill loses random unvaulted items to the item discard. The
    victim respawns at the start square of the floor at full HP."""
    if st.deaths[v] < C.STAT_COUNT_MAX:
        st.deaths[v] += 1
    due = st.floor[v] + 1
    st.pos[v] = 0
    st.poison[v] = 0
    st.weak[v] = 0
    st.curse[v] = 0
    st.str_bonus[v] = 0
    if v == st.turn:
        st.turn_dead = 1
    if killer >= 0:
        if st.kills[killer] < C.STAT_COUNT_MAX:
            st.kills[killer] += 1
        k = n_unvaulted(st, v)
        st.loot_left = due if due < k else k
        st.loot_killer = killer
        st.loot_victim = v
    else:
        for _ in range(due):
            k = n_unvaulted(st, v)
            if k == 0:
                break
            j = chance.pick(st, k)
            for sl in range(C.NSLOT):
                if st.equip[v, sl] >= 0 and vaulted(st, v, sl) == 0:
                    if j == 0:
                        discard_item(st, set_slot(st, T, v, sl, -1))
                        break
                    j -= 1
    st.hp[v] = max_hp(st, T, v)


# ---------------------------------------------------------------------------
# combat
# ---------------------------------------------------------------------------
@njit(**JIT)
def prep_hero(st, h):
    st.cb_atk[h] = st.str_bonus[h] - st.weak[h]
    st.cb_def[h] = 0
    st.str_bonus[h] = 0
    st.weak[h] = 0


@njit(**JIT)
def set_combat(st, kind, a, b, f, sq, mob, mhp, init_a):
    """Write the combat record: opponent kind, attacker and defender, the
    square's floor and index, a summoned monster and its health, initiative;
    no winner yet, round 0."""
    st.cb_kind = kind
    st.cb_a = a
    st.cb_b = b
    st.cb_f = f
    st.cb_sq = sq
    st.cb_mob = mob
    st.cb_mhp = mhp
    st.cb_init_a = init_a
    st.cb_win = 0
    st.cb_round = 0


@njit(**JIT)
def start_combat(st, T, kind, a, b, f, sq, mob, init_a):
    mhp = T.mob_stats[mob, 2] if kind == C.OPP_SUMMON else 0
    set_combat(st, kind, a, b, f, sq, mob, mhp, init_a)
    prep_hero(st, a)
    if kind == C.OPP_HERO:
        prep_hero(st, b)
    st.phase = C.PH_COMBAT
    st.actor = a


@njit(**JIT_INLINE)
def mon_stat(st, T, i):
    k = st.cb_kind
    if k == C.OPP_MOB:
        return np.int64(T.mob_stats[st.sq_mob[st.cb_f, st.cb_sq], i])
    if k == C.OPP_BOSS:
        return np.int64(T.boss_stats[st.cb_f, i])
    if k == C.OPP_FINAL:
        return np.int64(T.final_stats[st.final_boss, i])
    return np.int64(T.mob_stats[st.cb_mob, i])


@njit(**JIT_INLINE)
def mon_hp(st):
    if st.cb_kind == C.OPP_SUMMON:
        return np.int64(st.cb_mhp)
    return np.int64(st.sq_hp[st.cb_f, st.cb_sq])


@njit(**JIT_INLINE)
def damage(atk, roll, dfn):
    d = atk + roll - dfn
    return d if d > 1 else 1


@njit(**JIT)
def end_combat(st, T):
    a = st.cb_a
    st.cb_atk[a] = 0
    st.cb_def[a] = 0
    if st.cb_kind == C.OPP_HERO:
        st.cb_atk[st.cb_b] = 0
        st.cb_def[st.cb_b] = 0
    st.cb_kind = C.OPP_NONE
    st.cb_win = 0
    if st.phase == C.PH_OVER:
        return
    if st.loot_left > 0:
        st.phase = C.PH_LOOT
        st.actor = st.loot_killer
    else:
        st.loot_left = 0
        resume(st, T)


@njit(**JIT)
def monster_killed(st, T, h):
    k = st.cb_kind
    if st.kills[h] < C.STAT_COUNT_MAX:
        st.kills[h] += 1
    if k == C.OPP_MOB:
        gain_gold(st, T, h, T.mob_gold[st.sq_mob[st.cb_f, st.cb_sq]])
        st.sq_alive[st.cb_f, st.cb_sq] = 0
        st.sq_hp[st.cb_f, st.cb_sq] = 0
        st.sq_back[st.cb_f, st.cb_sq] = st.round + T.respawn_rounds
    elif k == C.OPP_BOSS:
        gain_gold(st, T, h, T.boss_gold[st.cb_f])
        st.sq_alive[st.cb_f, st.cb_sq] = 0
        st.sq_hp[st.cb_f, st.cb_sq] = 0
    elif k == C.OPP_FINAL:
        st.sq_alive[st.cb_f, st.cb_sq] = 0
        st.sq_hp[st.cb_f, st.cb_sq] = 0
        st.outcome = C.O_WIN
        st.winner = h
        st.phase = C.PH_OVER
        st.actor = -1
    else:
        gain_gold(st, T, h, T.mob_gold[st.cb_mob])


@njit(**JIT)
def strike_hero_side(st, T, s):
    """Side s (0 = A, 1 = B) strikes; returns True if the target died."""
    a = st.cb_a
    if st.cb_kind == C.OPP_HERO:
        att = a if s == 0 else st.cb_b
        tgt = st.cb_b if s == 0 else a
        d = damage(eff_atk(st, T, att), roll_die(st), eff_def(st, T, tgt))
        st.hp[tgt] -= d
        if st.hp[tgt] <= 0:
            hero_dies(st, T, tgt, att)
            return True
        return False
    if s == 0:
        d = damage(eff_atk(st, T, a), roll_die(st), mon_stat(st, T, 1))
        if st.cb_kind == C.OPP_FINAL:
            hp0 = mon_hp(st)
            st.boss_dmg[a] += d if d < hp0 else hp0
        if st.cb_kind == C.OPP_SUMMON:
            st.cb_mhp -= d
            dead = st.cb_mhp <= 0
        else:
            st.sq_hp[st.cb_f, st.cb_sq] -= d
            dead = st.sq_hp[st.cb_f, st.cb_sq] <= 0
        if dead:
            monster_killed(st, T, a)
            return True
        return False
    d = damage(mon_stat(st, T, 0), roll_die(st), eff_def(st, T, a))
    st.hp[a] -= d
    if st.hp[a] <= 0:
        hero_dies(st, T, a, -1)
        return True
    return False


@njit(**JIT)
def resolve_round(st, T):
    """Both sides strike once, the faster first (ties: whoever started the
    fight). Returns True if the combat ended."""
    a = st.cb_a
    spa = eff_spd(st, T, a)
    spb = eff_spd(st, T, st.cb_b) if st.cb_kind == C.OPP_HERO else mon_stat(st, T, 3)
    first = 0 if (spa > spb or (spa == spb and st.cb_init_a)) else 1
    if st.cb_round < C.CB_ROUND_MAX:
        st.cb_round += 1
    if strike_hero_side(st, T, first):
        return True
    return strike_hero_side(st, T, 1 - first)


@njit(**JIT)
def escape(st, T, h):
    """Coward's Escape: the hero leaves the combat. A hero fleeing a monster
    on the board steps back one square off it."""
    k = st.cb_kind
    if (k == C.OPP_MOB or k == C.OPP_BOSS or k == C.OPP_FINAL) and h == st.cb_a:
        if st.pos[h] > 0:
            st.pos[h] -= 1
    end_combat(st, T)


# ---------------------------------------------------------------------------
# landing and movement
# ---------------------------------------------------------------------------
@njit(**JIT)
def open_offer(st, T, h, kind, n):
    st.offer_kind = kind
    st.offer_seat = h
    st.offer_n = 0
    for _ in range(n):
        x = draw_card(st) if kind == C.OF_SHOP else draw_item(st)
        if x < 0:
            break
        st.offer[st.offer_n] = x
        st.offer_n += 1


@njit(**JIT)
def close_offer(st):
    for k in range(st.offer_n):
        if st.offer_kind == C.OF_SHOP:
            discard_card(st, st.offer[k])
        elif st.offer_kind != C.OF_NONE:
            discard_item(st, st.offer[k])
        st.offer[k] = -1
    st.offer_n = 0
    st.offer_kind = C.OF_NONE
    st.offer_seat = -1


@njit(**JIT)
def take_offer(st, k):
    x = st.offer[k]
    for j in range(k, st.offer_n - 1):
        st.offer[j] = st.offer[j + 1]
    st.offer_n -= 1
    st.offer[st.offer_n] = -1
    return x


@njit(**JIT)
def land(st, T, h):
    f = st.floor[h]
    sq = st.pos[h]
    st.resume_ph = C.PH_MAIN
    r = rival_on(st, h, f, sq)
    if sq != 0 and r >= 0 and st.shadow == 0:
        start_combat(st, T, C.OPP_HERO, h, r, f, -1, 0, 1)
        return
    k = T.sq_kind[f, sq]
    if k == C.SQ_CHEST and st.sq_alive[f, sq]:
        st.sq_alive[f, sq] = 0
        st.sq_back[f, sq] = st.round + T.respawn_rounds
        gain_gold(st, T, h, T.chest_gold[f])
        open_offer(st, T, h, C.OF_CHEST, 1)
        if st.offer_n > 0:
            st.phase = C.PH_CHEST
            st.actor = h
            return
        close_offer(st)
    elif k == C.SQ_MOB and st.sq_alive[f, sq]:
        start_combat(st, T, C.OPP_MOB, h, -1, f, sq, 0, 1)
        return
    elif k == C.SQ_BOSS and st.sq_alive[f, sq]:
        start_combat(st, T, C.OPP_BOSS, h, -1, f, sq, 0, 1)
        return
    elif k == C.SQ_LAIR and st.sq_alive[f, sq]:
        start_combat(st, T, C.OPP_FINAL, h, -1, f, sq, 0, 1)
        return
    elif k == C.SQ_SHOP or k == C.SQ_ARMORY:
        open_offer(st, T, h, C.OF_SHOP if k == C.SQ_SHOP else C.OF_ARMORY, C.OFFER_MAX)
        if st.offer_n > 0:
            st.phase = C.PH_SHOP if k == C.SQ_SHOP else C.PH_ARMORY
            st.actor = h
            return
        close_offer(st)
    elif k == C.SQ_STAIRS:
        st.floor[h] = f + 1
        st.pos[h] = 0
    resume(st, T)


# ---------------------------------------------------------------------------
# cards
# ---------------------------------------------------------------------------
@njit(**JIT_INLINE)
def target_ok(st, T, h, e, t):
    if t == h or t >= st.num_players:
        return False
    if e == C.E_AMBUSH:
        return st.floor[t] == st.floor[h]
    if e == C.E_ASSASSINATE or e == C.E_SUMMON:
        return True
    if e == C.E_RECALL:
        return st.floor[t] > 0
    if e == C.E_PICKPOCKET or e == C.E_STRIP:
        return st.floor[t] == st.floor[h] and n_unvaulted(st, t) > 0
    if e == C.E_CURSE:
        return st.curse[t] == 0
    if e == C.E_POISON:
        return st.poison[t] == 0
    if e == C.E_WEAKNESS:
        return st.weak[t] == 0
    return False


@njit(**JIT_INLINE)
def any_target(st, T, h, e):
    for t in range(st.num_players):
        if target_ok(st, T, h, e, t):
            return True
    return False


@njit(**JIT_INLINE)
def needs_target(e):
    return (
        e == C.E_AMBUSH
        or e == C.E_ASSASSINATE
        or e == C.E_SUMMON
        or e == C.E_RECALL
        or e == C.E_PICKPOCKET
        or e == C.E_STRIP
        or e == C.E_CURSE
        or e == C.E_POISON
        or e == C.E_WEAKNESS
    )


@njit(**JIT_INLINE)
def card_ok_turn(st, T, h, c):
    """Can hero h play card type c now, on its own turn (MOVE / MAIN)?"""
    e = T.card_effect[c]
    if needs_target(e):
        return any_target(st, T, h, e)
    if e == C.E_SPRINT:
        return st.phase == C.PH_MOVE and st.sprinted == 0
    if e == C.E_SHADOW:
        return st.phase == C.PH_MOVE and st.shadow == 0
    if e == C.E_ENCHANT:
        return st.equip[h, C.SL_WEAPON] >= 0 and st.enchant[h] < 3 * T.card_atk[c]
    if e == C.E_VAULT:
        return st.vault[h] != (1 << C.NSLOT) - 1
    if e == C.E_ANTIDOTE:
        return st.poison[h] > 0 or st.weak[h] > 0 or st.curse[h] > 0
    if e == C.E_HEAL:
        return st.hp[h] < max_hp(st, T, h) or T.card_atk[c] > 0
    return False


@njit(**JIT_INLINE)
def card_ok_combat(st, T, h, c):
    """Can hero h (whose combat window is open) play card type c?"""
    e = T.card_effect[c]
    if e == C.E_BUFF or e == C.E_ESCAPE:
        return True
    if e == C.E_HEAL:
        return st.hp[h] < max_hp(st, T, h) or T.card_atk[c] > 0
    if e == C.E_BODYGUARD:
        return st.cb_kind == C.OPP_HERO and h == st.cb_b and st.cb_round == 0
    return False


@njit(**JIT_INLINE)
def spend_card(st, h, c):
    st.hand[h, c] -= 1
    st.hand_n[h] -= 1
    discard_card(st, c)


@njit(**JIT)
def play_untargeted(st, T, h, c):
    e = T.card_effect[c]
    spend_card(st, h, c)
    if e == C.E_SPRINT:
        st.sprinted = 1
        r = st.roll + T.card_move[c]
        st.roll = r if r < C.MAX_MOVE else C.MAX_MOVE
    elif e == C.E_SHADOW:
        st.shadow = 1
    elif e == C.E_ENCHANT:
        st.enchant[h] += T.card_atk[c]
    elif e == C.E_ANTIDOTE:
        st.poison[h] = 0
        st.weak[h] = 0
        st.curse[h] = 0
    elif e == C.E_HEAL:
        heal(st, T, h, T.card_heal[c])
        if st.phase == C.PH_COMBAT:
            st.cb_atk[h] += T.card_atk[c]
        else:
            st.str_bonus[h] += T.card_atk[c]
    elif e == C.E_BUFF:
        st.cb_atk[h] += T.card_atk[c]
        st.cb_def[h] += T.card_def[c]
    elif e == C.E_ESCAPE:
        escape(st, T, h)
    elif e == C.E_BODYGUARD:
        end_combat(st, T)


@njit(**JIT)
def play_on_target(st, T, h, c, t):
    """Resolve a targeted card (slot choices happen in phase SLOT)."""
    e = T.card_effect[c]
    if e == C.E_AMBUSH or e == C.E_ASSASSINATE:
        start_combat(st, T, C.OPP_HERO, h, t, 0, -1, 0, 1)
        return
    if e == C.E_SUMMON:
        f = st.floor[t]
        m = f * C.MOBS_PER_FLOOR + chance.pick(st, C.MOBS_PER_FLOOR)
        start_combat(st, T, C.OPP_SUMMON, t, -1, f, -1, m, 0)
        return
    if e == C.E_PICKPOCKET or e == C.E_STRIP:
        st.pend_card = c
        st.pend_target = t
        st.phase = C.PH_SLOT
        st.actor = h
        return
    if e == C.E_RECALL:
        st.floor[t] -= 1
        st.pos[t] = 0
    elif e == C.E_CURSE:
        st.curse[t] = T.card_atk[c]
    elif e == C.E_POISON:
        st.poison[t] = T.card_turns[c]
        st.poison_dmg[t] = T.card_dmg[c]
    elif e == C.E_WEAKNESS:
        st.weak[t] = T.card_atk[c]
    resume(st, T)


# ---------------------------------------------------------------------------
# setup
# ---------------------------------------------------------------------------
@njit(**JIT)
def begin_creation(st, h):
    st.actor = h
    st.phase = C.PH_ASSIGN
    st.cr_roll = C.ROLL_BASE + roll_d4(st)


@njit(**JIT)
def configure_row(st, cfg):
    """No configuration beyond the header (seats, reward mode)."""


@njit(**JIT)
def reset_row(st, T):
    """Set up a new game in record ``st`` (the engine has set the header).
    The forced-dice queue is kept (a test hook that can script the creation
    rolls too)."""
    num_players = st.num_players
    st.round = 0
    st.winner = -1
    st.turn = -1
    clear_turn(st)
    st.resume_ph = C.PH_MAIN
    st.roll = 0
    for h in range(C.MAX_P):
        for s in range(C.NSTAT):
            st.base[h, s] = 0
            st.rolled[h, s] = 0
        for sl in range(C.NSLOT):
            st.equip[h, sl] = -1
        for c in range(C.MAX_CARDS):
            st.hand[h, c] = 0
        st.hp[h] = 0
        st.gold[h] = T.start_gold if h < num_players else 0
        st.floor[h] = 0
        st.pos[h] = 0 if h < num_players else -1
        st.vault[h] = 0
        st.hand_n[h] = 0
        st.poison[h] = 0
        st.poison_dmg[h] = 0
        st.weak[h] = 0
        st.curse[h] = 0
        st.enchant[h] = 0
        st.str_bonus[h] = 0
        st.cb_atk[h] = 0
        st.cb_def[h] = 0
        st.deaths[h] = 0
        st.kills[h] = 0
        st.boss_dmg[h] = 0
    # board
    st.final_boss = chance.pick(st, C.NFINAL)
    for f in range(C.NFLOOR):
        for sq in range(C.MAX_SQ):
            st.sq_alive[f, sq] = 0
            st.sq_mob[f, sq] = -1
            st.sq_hp[f, sq] = 0
            st.sq_back[f, sq] = 0
            if sq >= T.floor_len[f]:
                continue
            k = T.sq_kind[f, sq]
            if k == C.SQ_MOB:
                place_mob(st, T, f, sq)
            elif k == C.SQ_CHEST:
                st.sq_alive[f, sq] = 1
            elif k == C.SQ_BOSS:
                st.sq_alive[f, sq] = 1
                st.sq_hp[f, sq] = T.boss_stats[f, 2]
            elif k == C.SQ_LAIR:
                st.sq_alive[f, sq] = 1
                st.sq_hp[f, sq] = T.final_stats[st.final_boss, 2]
    # decks
    for i in range(C.NITEM):
        st.item_deck[i] = i
        st.item_disc[i] = -1
    st.item_deck_n = C.NITEM
    st.item_disc_n = 0
    chance.shuffle(st, st.item_deck, st.item_deck_n)
    st.card_deck_n, st.card_disc_n = pile_new_deck(
        st, st.card_deck, st.card_disc, T.deck_cards, T.deck_size
    )
    for k in range(C.OFFER_MAX):
        st.offer[k] = -1
    st.offer_n = 0
    st.offer_kind = C.OF_NONE
    st.offer_seat = -1
    set_combat(st, C.OPP_NONE, -1, -1, 0, -1, 0, 0, 1)  # no combat
    st.loot_killer = -1
    st.loot_victim = -1
    st.loot_left = 0
    begin_creation(st, 0)


# ---------------------------------------------------------------------------
# the legal mask
# ---------------------------------------------------------------------------
@njit(**JIT_INLINE)
def shift_pair(k):
    """(from, to) stats of rebalance action offset k in 0..11."""
    a = k // 3
    j = k % 3
    return a, (j if j < a else j + 1)


@njit(**JIT_INLINE)
def rebal_moved(st, h):
    m = 0
    for s in range(C.NSTAT):
        d = st.rolled[h, s] - st.base[h, s]
        if d > 0:
            m += d
    return m


@njit(**JIT_INLINE)
def mark_playable(st, T, h, out, combat):
    """Mark the card types hero h holds and may play now: in its combat
    window (``combat``) or on its own turn."""
    left = st.hand_n[h]  # cards still to find in the hand
    for c in range(T.n_cards):
        if left <= 0:
            break
        k = st.hand[h, c]
        if k > 0:
            left -= k
            ok = card_ok_combat(st, T, h, c) if combat else card_ok_turn(st, T, h, c)
            if ok:
                out[C.A_PLAY0 + c] = 1


@njit(**JIT)
def legal_mask(st, T, out):
    for a in range(C.NUM_ACTIONS):
        out[a] = 0
    ph = st.phase
    h = st.actor
    if ph == C.PH_OVER or h < 0:
        return
    if ph == C.PH_ASSIGN:
        for s in range(C.NSTAT):
            if st.rolled[h, s] == 0:
                out[C.A_ASSIGN0 + s] = 1
    elif ph == C.PH_REBAL:
        moved = rebal_moved(st, h)
        # at most REBAL_SHIFTS shift actions: every split within the limit is
        # reachable in REBAL_MAX of them, with as many again to change one's
        # mind, and shifting back and forth cannot go on forever
        for k in range(12 if st.rebal_n < C.REBAL_SHIFTS else 0):
            a, b = shift_pair(k)
            if st.base[h, a] <= 1:
                continue
            # moving a point out of a (into b) changes "points taken out"
            # by +1 if a is at/below its roll, -1 if b is below its roll
            dm = (1 if st.base[h, a] <= st.rolled[h, a] else 0) - (
                1 if st.base[h, b] < st.rolled[h, b] else 0
            )
            if moved + dm <= C.REBAL_MAX:
                out[C.A_SHIFT0 + k] = 1
        out[C.A_REBAL_DONE] = 1
    elif ph == C.PH_DRAFT:
        for k in range(st.offer_n):
            out[C.A_DRAFT0 + k] = 1
    elif ph == C.PH_MOVE or ph == C.PH_MAIN:
        if ph == C.PH_MOVE:
            for d in (1, -1):
                full = full_move(st, T, h, d)
                base = C.A_FWD0 if d == 1 else C.A_BACK0
                for k in range(1, full + 1):
                    if k == full or interesting(st, T, h, st.floor[h], st.pos[h] + d * k):
                        out[base + k - 1] = 1
        else:
            out[C.A_END] = 1
        mark_playable(st, T, h, out, False)
    elif ph == C.PH_TARGET:
        e = T.card_effect[st.pend_card]
        for t in range(st.num_players):
            if target_ok(st, T, h, e, t):
                out[C.A_TARGET0 + t] = 1
    elif ph == C.PH_SLOT:
        t = st.pend_target
        for sl in range(C.NSLOT):
            if st.pend_card >= 0 and T.card_effect[st.pend_card] == C.E_VAULT:
                if vaulted(st, h, sl) == 0:
                    out[C.A_SLOT0 + sl] = 1
            elif st.equip[t, sl] >= 0 and vaulted(st, t, sl) == 0:
                out[C.A_SLOT0 + sl] = 1
    elif ph == C.PH_SHOP:
        for k in range(st.offer_n):
            c = st.offer[k]
            if st.gold[h] >= T.card_price and (
                T.card_kind[c] == C.K_IMMEDIATE or st.hand_n[h] < C.HAND_MAX
            ):
                out[C.A_BUY0 + k] = 1
        out[C.A_LEAVE] = 1
    elif ph == C.PH_ARMORY:
        for k in range(st.offer_n):
            if st.gold[h] >= T.item_price[T.item_tier[st.offer[k]]]:
                out[C.A_BUY0 + k] = 1
        out[C.A_LEAVE] = 1
    elif ph == C.PH_CHEST:
        out[C.A_EQUIP] = 1
        out[C.A_DECLINE] = 1
    elif ph == C.PH_COMBAT:
        out[C.A_FIGHT] = 1
        mark_playable(st, T, h, out, True)
    elif ph == C.PH_LOOT:
        v = st.loot_victim
        for sl in range(C.NSLOT):
            if st.equip[v, sl] >= 0 and vaulted(st, v, sl) == 0:
                out[C.A_LOOT_TAKE0 + sl] = 1
                out[C.A_LOOT_BURN0 + sl] = 1


@njit(**JIT)
def finish_creation(st, T, h):
    if h + 1 < st.num_players:
        begin_creation(st, h + 1)
    else:
        begin_turn(st, T, 0)


@njit(**JIT)
def apply_action(st, T, a):
    h = st.actor
    ph = st.phase
    if ph == C.PH_ASSIGN:
        s = a - C.A_ASSIGN0
        st.rolled[h, s] = st.cr_roll
        st.base[h, s] = st.cr_roll
        done = True
        for j in range(C.NSTAT):
            if st.rolled[h, j] == 0:
                done = False
        if done:
            st.cr_roll = 0
            st.rebal_n = 0
            st.phase = C.PH_REBAL
        else:
            st.cr_roll = C.ROLL_BASE + roll_d4(st)
    elif ph == C.PH_REBAL:
        if a == C.A_REBAL_DONE:
            st.hp[h] = max_hp(st, T, h)
            open_offer(st, T, h, C.OF_DRAFT, C.DRAFT_N)
            if st.offer_n > 0:
                st.phase = C.PH_DRAFT
            else:
                close_offer(st)
                finish_creation(st, T, h)
        else:
            sa, sb = shift_pair(a - C.A_SHIFT0)
            st.base[h, sa] -= 1
            st.base[h, sb] += 1
            st.rebal_n += 1
    elif ph == C.PH_DRAFT:
        it = take_offer(st, a - C.A_DRAFT0)
        equip_item(st, T, h, it)
        st.hp[h] = max_hp(st, T, h)
        # the items not taken go back into the item deck, which is reshuffled
        for k in range(st.offer_n):
            st.item_deck[st.item_deck_n] = st.offer[k]
            st.item_deck_n += 1
            st.offer[k] = -1
        st.offer_n = 0
        st.offer_kind = C.OF_NONE
        st.offer_seat = -1
        chance.shuffle(st, st.item_deck, st.item_deck_n)
        finish_creation(st, T, h)
    elif ph == C.PH_MOVE or ph == C.PH_MAIN:
        if a == C.A_END:
            end_turn(st, T)
        elif a >= C.A_PLAY0 and a < C.A_PLAY0 + C.MAX_CARDS:
            c = a - C.A_PLAY0
            e = T.card_effect[c]
            st.resume_ph = ph
            if needs_target(e):
                spend_card(st, h, c)
                st.pend_card = c
                st.phase = C.PH_TARGET
            elif e == C.E_VAULT:
                spend_card(st, h, c)
                st.pend_card = c
                st.pend_target = h
                st.phase = C.PH_SLOT
            else:
                play_untargeted(st, T, h, c)
        else:
            if a >= C.A_BACK0:
                d = -(a - C.A_BACK0 + 1)
            else:
                d = a - C.A_FWD0 + 1
            st.pos[h] += d
            st.moved = 1
            land(st, T, h)
    elif ph == C.PH_TARGET:
        t = a - C.A_TARGET0
        c = st.pend_card
        st.pend_card = -1
        play_on_target(st, T, h, c, t)
    elif ph == C.PH_SLOT:
        sl = a - C.A_SLOT0
        c = st.pend_card
        t = st.pend_target
        e = T.card_effect[c]
        st.pend_card = -1
        st.pend_target = -1
        if e == C.E_VAULT:
            st.vault[h] |= np.uint8(1 << sl)
        elif e == C.E_PICKPOCKET:
            it = set_slot(st, T, t, sl, -1)
            equip_item(st, T, h, it)
        else:
            discard_item(st, set_slot(st, T, t, sl, -1))
        resume(st, T)
    elif ph == C.PH_SHOP or ph == C.PH_ARMORY:
        if a == C.A_LEAVE:
            close_offer(st)
            resume(st, T)
        elif ph == C.PH_SHOP:
            c = take_offer(st, a - C.A_BUY0)
            st.gold[h] -= T.card_price
            gain_card(st, T, h, c)
        else:
            it = take_offer(st, a - C.A_BUY0)
            st.gold[h] -= T.item_price[T.item_tier[it]]
            equip_item(st, T, h, it)
    elif ph == C.PH_CHEST:
        if a == C.A_EQUIP:
            equip_item(st, T, h, take_offer(st, 0))
        close_offer(st)
        resume(st, T)
    elif ph == C.PH_COMBAT:
        if a == C.A_FIGHT:
            if st.cb_kind == C.OPP_HERO and st.cb_win == 0:
                st.cb_win = 1
                st.actor = st.cb_b
            else:
                if resolve_round(st, T):
                    end_combat(st, T)
                else:
                    st.cb_win = 0
                    st.actor = st.cb_a
        else:
            play_untargeted(st, T, h, a - C.A_PLAY0)
    elif ph == C.PH_LOOT:
        v = st.loot_victim
        if a >= C.A_LOOT_BURN0:
            discard_item(st, set_slot(st, T, v, a - C.A_LOOT_BURN0, -1))
        else:
            equip_item(st, T, h, set_slot(st, T, v, a - C.A_LOOT_TAKE0, -1))
        st.loot_left -= 1
        if st.loot_left <= 0 or n_unvaulted(st, v) == 0:
            st.loot_left = 0
            st.loot_killer = -1
            st.loot_victim = -1
            resume(st, T)


@njit(**JIT)
def terminal_rewards(st, rew):
    n = st.num_players
    for p in range(rew.shape[0]):
        rew[p] = 0.0
    if st.outcome == C.O_WIN:
        for p in range(n):
            if p < rew.shape[0]:
                if p == st.winner:
                    rew[p] = 1.0
                elif st.reward_mode == 0:
                    rew[p] = -1.0 / (n - 1)


@njit(**JIT)
def legal_row(st, T, mask):
    """The legal mask of ``st.actor`` into ``mask``; returns the legal count."""
    legal_mask(st, T, mask)
    n = 0
    for a in range(C.NUM_ACTIONS):
        n += mask[a]
    return n


@njit(**JIT_INLINE)
def apply_row(st, T, a, rew):
    """Apply the legal action ``a``; every seat's final reward at game end."""
    apply_action(st, T, a)
    if st.phase == C.PH_OVER:
        terminal_rewards(st, rew)


@njit(**JIT)
def finish_row(st, T):
    """The engine ended the game (illegal action or step cap)."""
    st.phase = C.PH_OVER
