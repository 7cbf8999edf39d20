"""Dungeon Crawler observation encoder: what one seat can see, as a flat
float32 vector.

This is an *observation* (not a full information state): from seat ``p``'s
point of view it holds the phase and whether ``p`` must act, ``p``'s own
stats, gear, statuses, hand (card counts), creation rolls and any offer
``p`` is looking at; for every rival (in seat order after ``p``) the public
facts: floor, square, HP, stats, gold, hand *size*, gear tiers, vaulted
slots and statuses; the combat in progress; the board (which mobs, bosses
and chests are up, and monster wounds); the final boss; pile sizes.

It never reads another seat's hand, an offer shown to another seat, the
order of the item or action decks, the random generator or the forced-dice
queue. ``OBSERVATION`` declares the blocks (name, shape, meaning, value range),
``FEATURES`` lists ``(name, offset, size)`` of each and
``feature_names()`` one name per column; ``encode(st, T, p, out)`` is a
numba kernel writing ``OBS_SIZE`` floats into a preallocated row.
"""

from __future__ import annotations

import numpy as np

from ..envs.core.kernel.jit import JIT, JIT_INLINE, njit
from ..envs.core.layout import ObsLayout, block
from ..envs.dungeon_crawler import consts as C
from ..envs.dungeon_crawler.rules import hero_stats, rebal_moved


INF = float("inf")
NRIV = C.MAX_P - 1
#: the columns of one rival's block (seat order after the observer)
RIVAL_COLUMNS = (
    ("present",)
    + tuple(f"floor:{f}" for f in range(C.NFLOOR))
    + ("square", "hp", "max_hp")
    + tuple(f"eff:{s}" for s in ("atk", "def", "spd"))
    + ("gold", "hand_size")
    + tuple(f"gear_tier:{s}" for s in C.SLOT_NAMES)
    + tuple(f"vault:{s}" for s in C.SLOT_NAMES)
    + ("poison", "weak", "curse", "enchant", "strength", "to_act", "my_turn", "boss_damage")
)
RIV = len(RIVAL_COLUMNS)  # 1 + 3 + 1 + 2 + 3 + 1 + 1 + NSLOT + NSLOT + 5 + 2 + 1
#: the columns of one offer slot
OFFER_COLUMNS = (
    ("present",)
    + tuple(f"card:{c}" for c in range(C.MAX_CARDS))
    + tuple(f"item_slot:{s}" for s in C.SLOT_NAMES)
    + ("item_tier", "item_bonus", "price")
)
OFFER = len(OFFER_COLUMNS)  # 1 + MAX_CARDS + NSLOT + 3
GEAR_COLUMNS = ("worn", "tier", "bonus")
GEAR = len(GEAR_COLUMNS)  # per own slot
COMBAT_COLUMNS = (
    ("active", "side_a", "side_b")
    + tuple(f"opponent:{o}" for o in C.OPP_NAMES)
    + tuple(f"opp_{s}" for s in C.STAT_NAMES)
    + ("opp_hp_fraction", "my_window", "round")
    + tuple(f"rival_opponent:{r}" for r in range(C.MAX_P))
)

# Value ranges: stats, HP and gold are scaled by 1/10 and have no fixed cap
# (the Box is unbounded); fractions and flags lie in [0, 1].
OBSERVATION = ObsLayout(
    "dungeon_crawler",
    [
        block("phase", C.NPHASE, "the phase (one-hot)", labels=C.PHASE_NAMES),
        block("to_act", 1, "1 when this seat must act"),
        block("seat", C.MAX_P, "this seat (one-hot)"),
        block("num_players", 1, "number of heroes / 8"),
        block("my_turn", 1, "1 on this seat's turn"),
        block("round", 1, "round / 100", high=INF),
        block("step_fraction", 1, "decisions taken / the step cap"),
        block("base", C.NSTAT, "base stats / 10", high=INF, labels=C.STAT_NAMES),
        block(
            "effective",
            C.NSTAT,
            "effective stats (gear, statuses) / 10",
            high=INF,
            labels=C.STAT_NAMES,
        ),
        block("hp", 1, "HP / 10", high=INF),
        block("hp_fraction", 1, "HP / max HP"),
        block("gold", 1, "gold / 10", high=INF),
        block("floor", C.NFLOOR, "the hero's floor (one-hot)"),
        block("square", 1, "the hero's square / 32"),
        block("vault", C.NSLOT, "1 for each vaulted slot", labels=C.SLOT_NAMES),
        block(
            "status",
            8,
            "poison turns and damage, weak, curse, enchant, strength / 3; "
            "combat ATK and DEF bonus / 5 (may be negative)",
            low=-INF,
            high=INF,
            labels=(
                "poison_turns",
                "poison_dmg",
                "weak",
                "curse",
                "enchant",
                "strength",
                "combat_atk",
                "combat_def",
            ),
        ),
        block("hand_size", 1, "cards in the hand / 5"),
        block("hand", C.MAX_CARDS, "copies of each action card type in the hand", high=C.HAND_MAX),
        block(
            "gear",
            (C.NSLOT, GEAR),
            "each slot: worn, tier / 4, stat bonus / 5",
            high=INF,
            labels=(C.SLOT_NAMES, GEAR_COLUMNS),
        ),
        block(
            "move",
            4,
            "this turn's move roll / 10, moved, sprinted, shadow-stepped",
            high=INF,
            labels=("roll", "moved", "sprinted", "shadow_step"),
        ),
        block(
            "creation",
            1 + C.NSTAT + 1,
            "creation roll, locked rolls / 10, points moved / 4",
            high=INF,
            labels=("roll",) + tuple(f"locked:{s}" for s in C.STAT_NAMES) + ("points_moved",),
        ),
        block("offer_kind", 5, "the offer this seat is looking at (one-hot)", labels=C.OFFER_NAMES),
        block(
            "offer",
            (C.OFFER_MAX, OFFER),
            "each offer slot: card or item (slot, tier / 4, bonus / 5), price / 10",
            high=INF,
            labels=([f"offer{i}" for i in range(C.OFFER_MAX)], OFFER_COLUMNS),
            prefix=False,
        ),
        block("pending_card", C.MAX_CARDS, "the card being played (one-hot)"),
        block("pending_target", C.MAX_P, "its target, relative seat (one-hot)"),
        block(
            "rival",
            (NRIV, RIV),
            "the public facts of each rival, in seat order after this one",
            high=INF,
            labels=([f"rival{r + 1}" for r in range(NRIV)], RIVAL_COLUMNS),
            prefix=False,
        ),
        block(
            "combat",
            len(COMBAT_COLUMNS),
            "the combat in progress: sides, opponent kind and stats / 10, HP fraction, round / 10",
            high=INF,
            labels=COMBAT_COLUMNS,
        ),
        block(
            "loot",
            1 + C.MAX_P + 1,
            "looting: this seat loots, the victim (relative seat), items left / 3",
            labels=("i_loot",) + tuple(f"victim:{r}" for r in range(C.MAX_P)) + ("left",),
        ),
        block(
            "board",
            (C.NFLOOR, C.MAX_SQ, 3),
            "each square: monster or chest up, monster HP fraction, mob kind (1-2)",
            high=2.0,
            labels=(
                [f"f{f + 1}" for f in range(C.NFLOOR)],
                [f"sq{q}" for q in range(C.MAX_SQ)],
                ("up", "hp_fraction", "mob_kind"),
            ),
        ),
        block(
            "final_boss",
            C.NFINAL + 1,
            "the final boss (one-hot) and its HP fraction",
            labels=tuple(str(k) for k in range(C.NFINAL)) + ("hp_fraction",),
        ),
        block(
            "piles",
            4,
            "item deck and discard / 162, action card deck and discard / 62",
            labels=("item_deck", "item_discard", "card_deck", "card_discard"),
        ),
    ],
)
OBS_SIZE = OBSERVATION.size
FEATURES = OBSERVATION.features  # (name, offset, size) of every block
OFF = {name: off for name, off, _ in FEATURES}

#: FRAC[m, h] = float32(h / m) for 0 <= h < 64, 1 <= m < 64: HP fractions
#: without a division (``_frac`` divides outside the table)
FRAC = np.zeros((64, 64), np.float32)
FRAC[1:] = (np.arange(64)[None, :] / np.arange(1, 64)[:, None]).astype(np.float32)
# Scaling by constants: ``x * (1 / d)`` instead of ``x / d`` (a division is
# slow). For an integer |x| < 2**24 both give the same float32 (x / d is
# either not dyadic, so far from every float32 rounding midpoint compared
# with the product's error of one float64 ulp, or x / d = (x / m) / 2**s is
# a float32 itself); the scaled fields are small integers (the unbounded
# round counter keeps its division).
R10, R3, R5, R4, R8 = 1.0 / 10.0, 1.0 / 3.0, 1.0 / 5.0, 1.0 / 4.0, 1.0 / 8.0
RSQ, RHAND, R162, R62 = 1.0 / C.MAX_SQ, 1.0 / C.HAND_MAX, 1.0 / 162.0, 1.0 / 62.0

O_PHASE, O_TOACT, O_SEAT, O_NP = OFF["phase"], OFF["to_act"], OFF["seat"], OFF["num_players"]
O_MYTURN, O_ROUND, O_STEP = OFF["my_turn"], OFF["round"], OFF["step_fraction"]
O_BASE, O_EFF, O_HP, O_HPF = OFF["base"], OFF["effective"], OFF["hp"], OFF["hp_fraction"]
O_GOLD, O_FLOOR, O_SQ, O_VAULT = OFF["gold"], OFF["floor"], OFF["square"], OFF["vault"]
O_STATUS, O_HANDN, O_HAND, O_GEAR = OFF["status"], OFF["hand_size"], OFF["hand"], OFF["gear"]
O_MOVE, O_CREATE, O_OFKIND, O_OFFER = OFF["move"], OFF["creation"], OFF["offer_kind"], OFF["offer"]
O_PCARD, O_PTGT, O_RIV, O_CB = (
    OFF["pending_card"],
    OFF["pending_target"],
    OFF["rival"],
    OFF["combat"],
)
O_LOOT, O_BOARD, O_FINAL, O_PILES = OFF["loot"], OFF["board"], OFF["final_boss"], OFF["piles"]


def feature_names():
    """One name per observation column."""
    return OBSERVATION.names()


@njit(**JIT_INLINE)
def _rel(st, p, q):
    """Relative index of seat q from p (0 = p itself)."""
    n = st.num_players
    return (q - p + n) % n


@njit(**JIT_INLINE)
def _item_bonus(T, it):
    return T.item_atk[it] + T.item_def[it] + T.item_hp[it] + T.item_spd[it]


@njit(**JIT_INLINE)
def _mon_max(st, T, f, q):
    k = T.sq_kind[f, q]
    if k == C.SQ_MOB:
        m = st.sq_mob[f, q]
        return T.mob_stats[m, 2] if m >= 0 else 1
    if k == C.SQ_BOSS:
        return T.boss_stats[f, 2]
    if k == C.SQ_LAIR:
        return T.final_stats[st.final_boss, 2]
    return 1


@njit(**JIT_INLINE)
def _frac(h, m):
    """float32(h / m) of two integers (``m != 0``), from ``FRAC`` when small."""
    if h >= 0 and h < 64 and m > 0 and m < 64:
        return FRAC[m, h]
    return h / m


@njit(**JIT_INLINE)
def _zero(out, a, b):
    out[a:b] = 0.0


@njit(**JIT)
def encode_row(st, T, p, out):
    """Write seat ``p``'s observation of record ``st`` into ``out`` (every
    column: a block is either written whole or zeroed first, so ``out`` may
    hold anything before)."""
    n = st.num_players
    if p < 0 or p >= n:
        _zero(out, 0, OBS_SIZE)
        return
    _zero(out, O_PHASE, O_PHASE + C.NPHASE)
    out[O_PHASE + st.phase] = 1.0
    out[O_TOACT] = 1.0 if st.actor == p else 0.0
    _zero(out, O_SEAT, O_SEAT + C.MAX_P)
    out[O_SEAT + p] = 1.0
    out[O_NP] = n * R8
    out[O_MYTURN] = 1.0 if st.turn == p else 0.0
    out[O_ROUND] = st.round / 100.0
    out[O_STEP] = st.steps / max(st.max_steps, 1)
    # own hero (the stat formulas are the rules' own: rules.hero_stats)
    for s in range(C.NSTAT):
        out[O_BASE + s] = st.base[p, s] * R10
    atk, dfn, mh, spd = hero_stats(st, T, p)
    out[O_EFF + 0] = atk * R10
    out[O_EFF + 1] = dfn * R10
    out[O_EFF + 2] = mh * R10
    out[O_EFF + 3] = spd * R10
    out[O_HP] = st.hp[p] * R10
    out[O_HPF] = _frac(st.hp[p], mh) if mh > 0 else 0.0
    out[O_GOLD] = st.gold[p] * R10
    _zero(out, O_FLOOR, O_FLOOR + C.NFLOOR)
    out[O_FLOOR + st.floor[p]] = 1.0
    out[O_SQ] = st.pos[p] * RSQ
    for sl in range(C.NSLOT):
        out[O_VAULT + sl] = (st.vault[p] >> sl) & 1
    out[O_STATUS + 0] = st.poison[p] * R3
    out[O_STATUS + 1] = st.poison_dmg[p] * R3
    out[O_STATUS + 2] = st.weak[p] * R3
    out[O_STATUS + 3] = st.curse[p] * R3
    out[O_STATUS + 4] = st.enchant[p] * R3
    out[O_STATUS + 5] = st.str_bonus[p] * R3
    out[O_STATUS + 6] = st.cb_atk[p] * R5
    out[O_STATUS + 7] = st.cb_def[p] * R5
    out[O_HANDN] = st.hand_n[p] * RHAND
    for c in range(C.MAX_CARDS):
        out[O_HAND + c] = st.hand[p, c]
    for sl in range(C.NSLOT):
        it = st.equip[p, sl]
        b = O_GEAR + GEAR * sl
        if it >= 0:
            out[b] = 1.0
            out[b + 1] = (T.item_tier[it] + 1) * R4
            out[b + 2] = _item_bonus(T, it) * R5
        else:
            out[b] = 0.0
            out[b + 1] = 0.0
            out[b + 2] = 0.0
    if st.turn == p:
        out[O_MOVE] = st.roll * R10
        out[O_MOVE + 1] = st.moved
        out[O_MOVE + 2] = st.sprinted
        out[O_MOVE + 3] = st.shadow
    else:
        _zero(out, O_MOVE, O_MOVE + 4)
    out[O_CREATE] = st.cr_roll * R10 if st.actor == p else 0.0
    for s in range(C.NSTAT):
        out[O_CREATE + 1 + s] = st.rolled[p, s] * R10
    out[O_CREATE + 1 + C.NSTAT] = rebal_moved(st, p) * R4
    # an offer is seen only by the hero looking at it
    _zero(out, O_OFKIND, O_OFFER + C.OFFER_MAX * OFFER)
    if st.offer_seat == p and st.offer_kind != C.OF_NONE:
        out[O_OFKIND + st.offer_kind] = 1.0
        for k in range(st.offer_n):
            b = O_OFFER + OFFER * k
            x = st.offer[k]
            out[b] = 1.0
            if st.offer_kind == C.OF_SHOP:
                out[b + 1 + x] = 1.0
                out[b + 1 + C.MAX_CARDS + C.NSLOT + 2] = T.card_price * R10
            else:
                out[b + 1 + C.MAX_CARDS + T.item_slot[x]] = 1.0
                out[b + 1 + C.MAX_CARDS + C.NSLOT] = (T.item_tier[x] + 1) * R4
                out[b + 1 + C.MAX_CARDS + C.NSLOT + 1] = _item_bonus(T, x) * R5
                out[b + 1 + C.MAX_CARDS + C.NSLOT + 2] = T.item_price[T.item_tier[x]] * R10
    else:
        out[O_OFKIND] = 1.0
    _zero(out, O_PCARD, O_RIV)
    if st.actor == p and st.pend_card >= 0:
        out[O_PCARD + st.pend_card] = 1.0
    if st.actor == p and st.pend_target >= 0:
        out[O_PTGT + _rel(st, p, st.pend_target)] = 1.0
    # rivals (public facts only); the blocks of absent seats are zero
    for r in range(1, n):
        q = (p + r) % n
        b = O_RIV + RIV * (r - 1)
        out[b] = 1.0
        out[b + 1] = 0.0
        out[b + 2] = 0.0
        out[b + 3] = 0.0
        out[b + 1 + st.floor[q]] = 1.0
        out[b + 4] = st.pos[q] * RSQ
        out[b + 5] = st.hp[q] * R10
        atk, dfn, mh_q, spd = hero_stats(st, T, q)
        out[b + 6] = mh_q * R10
        out[b + 7] = atk * R10
        out[b + 8] = dfn * R10
        out[b + 9] = spd * R10
        out[b + 10] = st.gold[q] * R10
        out[b + 11] = st.hand_n[q] * RHAND
        for sl in range(C.NSLOT):
            it = st.equip[q, sl]
            out[b + 12 + sl] = (T.item_tier[it] + 1) * R4 if it >= 0 else 0.0
            out[b + 18 + sl] = (st.vault[q] >> sl) & 1
        out[b + 24] = st.poison[q] * R3
        out[b + 25] = st.weak[q] * R3
        out[b + 26] = st.curse[q] * R3
        out[b + 27] = st.enchant[q] * R3
        out[b + 28] = st.str_bonus[q] * R3
        out[b + 29] = 1.0 if st.actor == q else 0.0
        out[b + 30] = 1.0 if st.turn == q else 0.0
        out[b + 31] = st.boss_dmg[q] * R10
    _zero(out, O_RIV + RIV * (n - 1), O_CB)
    # combat and loot
    _zero(out, O_CB, O_BOARD)
    if st.cb_kind != C.OPP_NONE:
        out[O_CB] = 1.0
        out[O_CB + 1] = 1.0 if st.cb_a == p else 0.0
        out[O_CB + 2] = 1.0 if (st.cb_kind == C.OPP_HERO and st.cb_b == p) else 0.0
        out[O_CB + 3 + st.cb_kind] = 1.0
        if st.cb_kind != C.OPP_HERO:
            k = st.cb_kind
            for s in range(C.NSTAT):
                if k == C.OPP_MOB:
                    v = T.mob_stats[st.sq_mob[st.cb_f, st.cb_sq], s]
                elif k == C.OPP_BOSS:
                    v = T.boss_stats[st.cb_f, s]
                elif k == C.OPP_FINAL:
                    v = T.final_stats[st.final_boss, s]
                else:
                    v = T.mob_stats[st.cb_mob, s]
                out[O_CB + 9 + s] = v * R10
            hpn = st.cb_mhp if k == C.OPP_SUMMON else st.sq_hp[st.cb_f, st.cb_sq]
            mx = (
                T.mob_stats[st.cb_mob, 2]
                if k == C.OPP_SUMMON
                else _mon_max(st, T, st.cb_f, st.cb_sq)
            )
            out[O_CB + 13] = _frac(hpn, mx)
        else:
            o = st.cb_b if st.cb_a == p else st.cb_a
            out[O_CB + 16 + _rel(st, p, o)] = 1.0
        out[O_CB + 14] = 1.0 if st.actor == p else 0.0
        out[O_CB + 15] = st.cb_round * R10
    if st.phase == C.PH_LOOT:
        out[O_LOOT] = 1.0 if st.loot_killer == p else 0.0
        out[O_LOOT + 1 + _rel(st, p, st.loot_victim)] = 1.0
        out[O_LOOT + 1 + C.MAX_P] = st.loot_left * R3
    # board: every square written (squares beyond a floor's end are zero)
    for f in range(C.NFLOOR):
        fl = T.floor_len[f]
        for q in range(fl):
            b = O_BOARD + 3 * (f * C.MAX_SQ + q)
            if st.sq_alive[f, q]:
                out[b] = 1.0
                k = T.sq_kind[f, q]
                if k == C.SQ_MOB or k == C.SQ_BOSS or k == C.SQ_LAIR:
                    out[b + 1] = _frac(st.sq_hp[f, q], _mon_max(st, T, f, q))
                else:
                    out[b + 1] = 0.0
                out[b + 2] = 1.0 + (st.sq_mob[f, q] % C.MOBS_PER_FLOOR) if k == C.SQ_MOB else 0.0
            else:
                out[b] = 0.0
                out[b + 1] = 0.0
                out[b + 2] = 0.0
        _zero(out, O_BOARD + 3 * (f * C.MAX_SQ + fl), O_BOARD + 3 * (f + 1) * C.MAX_SQ)
    _zero(out, O_FINAL, O_FINAL + C.NFINAL)
    out[O_FINAL + st.final_boss] = 1.0
    out[O_FINAL + C.NFINAL] = _frac(
        st.sq_hp[C.NFLOOR - 1, T.floor_len[C.NFLOOR - 1] - 1], T.final_stats[st.final_boss, 2]
    )
    out[O_PILES] = st.item_deck_n * R162
    out[O_PILES + 1] = st.item_disc_n * R162
    out[O_PILES + 2] = st.card_deck_n * R62
    out[O_PILES + 3] = st.card_disc_n * R62
