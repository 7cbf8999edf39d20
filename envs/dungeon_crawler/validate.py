"""Valid values of every Dungeon Crawler state field (``state.py``), as data,
and the cross-field rules; ``KernelCore.check_state`` proves a record is one the
rules could reach, or raises
:class:`~dungeonrl.envs.core.errors.CorruptStateError` naming the field and the
value.

The engine header's fields (``rng``, ``seed``, ``forced*``, ``steps``,
``max_steps``, ``num_players``, ``auto_advance``, ``reward_mode``,
``outcome``, ``actor``, ``legal``...) are declared once in
:mod:`dungeonrl.envs.core.validate`; this module gives the game's parameters
for them (:data:`PARAMS`) and its own fields (:data:`FIELD_RULES`). Zones:
every item and every action card is in exactly one place. Used at
``set_state`` time only, never per step.
"""

from __future__ import annotations

import numpy as np

from ..core.validate import FLAG, OneOf, Prefix, R, turn_flow
from . import consts as C
from .consts import AUTO_LIMIT

INT16_MAX = 2**15 - 1
INT32_MAX = 2**31 - 1
P = C.MAX_P
STAT_MAX = 4 + C.ROLL_BASE + C.REBAL_MAX  # best roll plus every rebalanced point
HP_MAX = STAT_MAX + C.NSLOT * 20  # base HP plus the item cap (content: <= 20)
MOD_MAX = C.HAND_MAX * 10  # a hand of cards at the content cap (10)
ADD_MAX = 127 - MOD_MAX  # an int8 modifier that a hand more cannot wrap

#: the game's name in error messages
GAME = "Dungeon Crawler"

#: configurations whose records the fuzzers corrupt and restore
#: (``dungeonrl.benchmarks.fuzz``, ``tests/untrusted/test_hardening.py``)
FUZZ_CONFIGS = ({"num_players": 2}, {"num_players": 4, "auto_advance": False}, {"num_players": 8})

PARAMS = {
    "forced_lo": 1,
    "forced_hi": 6,  # forced results are d6 / d4 faces
    "min_players": C.MIN_P,
    "max_players": C.MAX_P,
    "max_reward_mode": len(C.REWARD_MODES) - 1,
    "max_outcome": len(C.OUTCOME_NAMES) - 1,
}


def _seat(ctx):
    """num_players - 1"""
    return ctx.i("num_players") - 1


def _last_card(ctx):
    """n_cards - 1"""
    return int(ctx.T.n_cards) - 1


def _gold_cap(ctx):
    """gold_cap"""
    return int(ctx.T.gold_cap)


def _card_max(field, effect):
    def f(ctx):
        T = ctx.T
        n = int(T.n_cards)
        sel = np.asarray(T.card_effect[:n]) == effect
        vals = np.asarray(getattr(T, field)[:n], np.int64)[sel]
        return int(vals.max()) if vals.size else 0

    f.__doc__ = f"max {field} of the '{C.EFFECT_NAMES[effect]}' cards"
    return f


def _enchant_max(ctx):
    """3 x max atk of the 'enchant' cards"""
    return 3 * _card_max("card_atk", C.E_ENCHANT)(ctx)


def _final_hp(ctx):
    """max final boss HP"""
    return int(np.max(np.asarray(ctx.T.final_stats)[:, C.ST_HP]))


def _monster_hp(ctx):
    """max monster HP of the content"""
    T = ctx.T
    return int(
        max(np.max(T.mob_stats[:, 2]), np.max(T.boss_stats[:, 2]), np.max(T.final_stats[:, 2]))
    )


#: field -> rule, for every field of ``STATE_DTYPE`` that is not a header field
FIELD_RULES = {
    "round": R(0, INT32_MAX),
    "winner": R(-1, _seat),
    # flow
    "phase": R(0, C.NPHASE - 1),
    "turn": R(-1, _seat),
    "turn_dead": FLAG,
    "resume_ph": OneOf(C.PH_MOVE, C.PH_MAIN),
    "roll": R(0, C.MAX_MOVE),
    "moved": FLAG,
    "sprinted": FLAG,
    "shadow": FLAG,
    "cr_roll": OneOf(0, *range(1 + C.ROLL_BASE, 5 + C.ROLL_BASE)),
    "rebal_n": R(0, C.REBAL_SHIFTS),
    "pend_card": R(-1, _last_card),
    "pend_target": R(-1, _seat),
    # heroes
    "base": R(0, STAT_MAX),
    "rolled": OneOf(0, *range(1 + C.ROLL_BASE, 5 + C.ROLL_BASE)),
    "hp": R(0, HP_MAX),
    "gold": R(0, _gold_cap),
    "floor": R(0, C.NFLOOR - 1),
    "pos": R(-1, C.MAX_SQ - 1),
    "equip": R(-1, C.NITEM - 1),
    "vault": R(0, 2**C.NSLOT - 1),
    "hand": R(0, C.HAND_MAX),
    "hand_n": R(0, C.HAND_MAX),
    "poison": R(0, _card_max("card_turns", C.E_POISON)),
    "poison_dmg": R(0, _card_max("card_dmg", C.E_POISON)),
    "weak": R(0, _card_max("card_atk", C.E_WEAKNESS)),
    "curse": R(0, _card_max("card_atk", C.E_CURSE)),
    "enchant": R(0, _enchant_max),
    # Potions of Strength stack until the next combat, where str_bonus becomes
    # cb_atk, and cards played in the combat add to it: both int8, so each
    # stays MOD_MAX (a hand of cards at the content cap) below the field's
    # 127, or the next card would wrap them
    "str_bonus": R(0, ADD_MAX),
    "cb_atk": R(-MOD_MAX - 10, ADD_MAX),
    "cb_def": R(-MOD_MAX, MOD_MAX),
    "deaths": R(0, C.STAT_COUNT_MAX),
    "kills": R(0, C.STAT_COUNT_MAX),
    "boss_dmg": R(0, _final_hp),
    # board
    "sq_alive": FLAG,
    "sq_mob": R(-1, C.NMOB - 1),
    "sq_hp": R(0, _monster_hp),
    "sq_back": R(0, INT32_MAX),
    "final_boss": R(0, C.NFINAL - 1),
    # decks
    "item_deck": Prefix("item_deck_n", 0, C.NITEM - 1, fill=-1),
    "item_deck_n": R(0, C.NITEM),
    "item_disc": Prefix("item_disc_n", 0, C.NITEM - 1, fill=-1),
    "item_disc_n": R(0, C.NITEM),
    "card_deck": Prefix("card_deck_n", 0, _last_card, fill=-1),
    "card_deck_n": R(0, C.DECK_MAX),
    "card_disc": Prefix("card_disc_n", 0, _last_card, fill=-1),
    "card_disc_n": R(0, C.DECK_MAX),
    "offer": Prefix("offer_n", 0, C.NITEM - 1, fill=-1),
    "offer_n": R(0, C.OFFER_MAX),
    "offer_kind": R(0, len(C.OFFER_NAMES) - 1),
    "offer_seat": R(-1, _seat),
    # combat (the cb_* of the last combat stay until the next one starts)
    "cb_kind": R(0, len(C.OPP_NAMES) - 1),
    "cb_a": R(-1, _seat),
    "cb_b": R(-1, _seat),
    "cb_f": R(-1, C.NFLOOR - 1),
    "cb_sq": R(-1, C.MAX_SQ - 1),
    "cb_mob": R(-1, C.NMOB - 1),
    # a summoned mob's HP; the killing blow leaves it <= 0 until the next combat
    "cb_mhp": R(-999, _monster_hp),
    "cb_init_a": FLAG,
    "cb_win": FLAG,
    "cb_round": R(0, C.CB_ROUND_MAX),
    # loot
    "loot_killer": R(-1, _seat),
    "loot_victim": R(-1, _seat),
    "loot_left": R(0, C.NFLOOR),
}

CREATION = (C.PH_ASSIGN, C.PH_REBAL, C.PH_DRAFT)
OWN_TURN = (C.PH_MOVE, C.PH_MAIN, C.PH_TARGET, C.PH_SLOT, C.PH_SHOP, C.PH_ARMORY, C.PH_CHEST)
TARGETED = (
    C.E_AMBUSH,
    C.E_ASSASSINATE,
    C.E_SUMMON,
    C.E_RECALL,
    C.E_PICKPOCKET,
    C.E_STRIP,
    C.E_CURSE,
    C.E_POISON,
    C.E_WEAKNESS,
)


def _max_hp(ctx, h):
    eq = ctx.a("equip")[h]
    return int(ctx.a("base")[h, C.ST_HP]) + sum(int(ctx.T.item_hp[i]) for i in eq if i >= 0)


# --- cross-field rules --------------------------------------------------------------------
def flow(ctx):
    over = turn_flow(ctx, C.PHASE_NAMES, C.PH_OVER)
    ph, out, actor = ctx.i("phase"), ctx.i("outcome"), ctx.i("actor")
    win = ctx.i("winner")
    if (out == C.O_WIN) != (win >= 0):
        ctx.fail("winner", win, "a winning seat exactly when the game is won")
    steps, cap = ctx.i("steps"), ctx.i("max_steps")
    if out == C.O_TRUNCATED and steps != cap:
        ctx.fail("steps", steps, f"truncated before the step cap {cap}")
    turn = ctx.i("turn")
    creation = ph in CREATION
    if not over:
        if creation and turn != -1:
            ctx.fail("turn", turn, "a dungeon turn during the creation")
        if not creation and turn < 0:
            ctx.fail("turn", turn, "a dungeon phase without the turn's seat")
        if ph in OWN_TURN and actor != turn:
            ctx.fail(
                "actor", actor, f"phase {C.PHASE_NAMES[ph]} is decided by the turn's hero {turn}"
            )
        if ph == C.PH_MOVE and ctx.i("moved"):
            ctx.fail("moved", 1, "the move phase after moving")
        if ph == C.PH_MAIN and not ctx.i("moved"):
            ctx.fail("moved", 0, "the main phase before moving")
        if ctx.i("turn_dead") and ph != C.PH_LOOT:
            ctx.fail("turn_dead", 1, "the turn's hero died but its turn goes on")
    if turn >= 0:
        if not 1 <= ctx.i("roll") <= C.MAX_MOVE:
            ctx.fail("roll", ctx.i("roll"), f"a dungeon turn's move roll is 1..{C.MAX_MOVE}")
        if ctx.i("cr_roll"):
            ctx.fail("cr_roll", ctx.i("cr_roll"), "a creation roll left after the creation")
    if not over and ph == C.PH_ASSIGN and ctx.i("cr_roll") == 0:
        ctx.fail("cr_roll", 0, "the assign phase has a roll to place")
    if ph not in (C.PH_ASSIGN, C.PH_OVER) and ctx.i("cr_roll"):
        ctx.fail("cr_roll", ctx.i("cr_roll"), "a creation roll outside the assign phase")
    if not over:
        moved, res = ctx.i("moved"), ctx.i("resume_ph")
        if turn < 0 and (res != C.PH_MAIN or moved or ctx.i("sprinted") or ctx.i("shadow")):
            ctx.fail(
                "resume_ph",
                res,
                "the creation keeps the set-up turn fields "
                "(resume main, nothing moved, sprinted or shadowed)",
            )
        if turn >= 0 and res != (C.PH_MAIN if moved else C.PH_MOVE):
            ctx.fail(
                "resume_ph",
                res,
                f"a turn with moved = {moved} resumes at {'main' if moved else 'move'}",
            )
    # rounds: at most AUTO_LIMIT automatic decisions follow each agent decision
    cap = min((ctx.i("steps") + 1) * AUTO_LIMIT, INT32_MAX - AUTO_LIMIT - 1000)
    if ctx.i("round") > cap:
        ctx.fail("round", ctx.i("round"), f"more rounds than the decisions taken allow ({cap})")


def seats(ctx):
    """Seats beyond the table stay empty; heroes stand on their floor."""
    n = ctx.i("num_players")
    empty = {
        "base": 0,
        "rolled": 0,
        "equip": -1,
        "hand": 0,
        "hp": 0,
        "gold": 0,
        "hand_n": 0,
        "vault": 0,
        "pos": -1,
        "floor": 0,
        "poison": 0,
        "poison_dmg": 0,
        "weak": 0,
        "curse": 0,
        "enchant": 0,
        "str_bonus": 0,
        "cb_atk": 0,
        "cb_def": 0,
        "deaths": 0,
        "kills": 0,
        "boss_dmg": 0,
    }
    ctx.seats_left_empty(empty, n)
    started = ctx.i("turn") >= 0
    fl, pos = ctx.a("floor"), ctx.a("pos")
    for h in range(n):
        flen = int(ctx.T.floor_len[fl[h]])
        if not started and (pos[h] != 0 or fl[h] != 0):
            ctx.fail(
                "pos",
                pos[h],
                f"hero {h} waits at the entrance (floor 0, square 0) until the first turn",
            )
        if started and not 0 <= pos[h] < flen:
            ctx.fail("pos", pos[h], f"hero {h} outside floor {fl[h]}'s {flen} squares")
        if pos[h] >= flen:
            ctx.fail("pos", pos[h], f"hero {h} beyond floor {fl[h]}")
        if pos[h] >= 0 and int(ctx.T.sq_kind[fl[h], pos[h]]) == C.SQ_STAIRS:
            ctx.fail("pos", pos[h], f"hero {h} stands on the stairs")


def heroes(ctx):
    n, ph = ctx.i("num_players"), ctx.i("phase")
    over = ph == C.PH_OVER
    creating = (not over) and ph in CREATION
    actor = ctx.i("actor")
    base, rolled, hp = ctx.a("base"), ctx.a("rolled"), ctx.a("hp")
    for h in range(n):
        done = ctx.i("turn") >= 0 or (creating and h < actor)  # a finished hero
        if done and (rolled[h] == 0).any():
            ctx.fail("rolled", rolled[h], f"hero {h} is finished but has an open stat")
        if not (rolled[h] > 0).all() and (base[h] != rolled[h]).any():
            ctx.fail(
                "base", base[h], f"hero {h} is still assigning rolls, so its stats are its rolls"
            )
        if (rolled[h] > 0).all():
            if base[h].sum() != rolled[h].sum():
                ctx.fail("base", base[h], f"hero {h}'s stats do not sum to its rolls")
            if (base[h] < 1).any():
                ctx.fail("base", base[h], f"hero {h} has a stat below 1")
            if np.clip(rolled[h] - base[h], 0, None).sum() > C.REBAL_MAX:
                ctx.fail("base", base[h], f"more than {C.REBAL_MAX} points rebalanced")
        mh = _max_hp(ctx, h)
        if hp[h] > mh:
            ctx.fail("hp", hp[h], f"hero {h} above its max HP {mh}")
        if done and hp[h] < 1:
            ctx.fail("hp", hp[h], f"finished hero {h} has no HP")
        if creating and h == actor:
            want = mh if ph == C.PH_DRAFT else 0
            if hp[h] != want:
                ctx.fail(
                    "hp",
                    hp[h],
                    f"the hero being created has {want} HP in phase {C.PHASE_NAMES[ph]}",
                )
        if (
            creating
            and h > actor
            and (rolled[h].any() or base[h].any() or hp[h] or (ctx.a("equip")[h] != -1).any())
        ):
            ctx.fail("rolled", rolled[h], f"seat {h} is not created yet")
    if (ctx.a("poison") > 0).any() and (ctx.a("poison_dmg")[ctx.a("poison") > 0] <= 0).any():
        ctx.fail("poison_dmg", ctx.a("poison_dmg"), "poison without damage")
    ench = ctx.a("enchant")
    if ((ench > 0) & (ctx.a("equip")[:, C.SL_WEAPON] < 0)).any():
        ctx.fail("enchant", ench, "an enchantment without a weapon")
    # combat modifiers belong to the fighting seats of the current combat
    fighters = np.zeros(P, np.bool_)
    if ctx.i("cb_kind") != C.OPP_NONE:
        fighters[ctx.i("cb_a")] = True
        if ctx.i("cb_kind") == C.OPP_HERO:
            fighters[ctx.i("cb_b")] = True
    for f in ("cb_atk", "cb_def"):
        if ctx.a(f)[~fighters].any():
            ctx.fail(f, ctx.a(f), "combat modifiers of a seat that is not fighting")


def item_zones(ctx):
    """Every item in exactly one place: deck, discard, worn, an item offer."""
    n = ctx.i("num_players")
    eq = ctx.a("equip")
    slot_of = np.asarray(ctx.T.item_slot, np.int64)
    for h in range(n):
        for s in range(C.NSLOT):
            if eq[h, s] >= 0 and slot_of[eq[h, s]] != s:
                ctx.fail(
                    "equip",
                    eq[h, s],
                    f"hero {h} wears a {C.SLOT_NAMES[slot_of[eq[h, s]]]} "
                    f"item in the {C.SLOT_NAMES[s]} slot",
                )
    kind = ctx.i("offer_kind")
    off = ctx.a("offer")[: ctx.i("offer_n")]
    ids = [
        ctx.a("item_deck")[: ctx.i("item_deck_n")],
        ctx.a("item_disc")[: ctx.i("item_disc_n")],
        eq[:n][eq[:n] >= 0],
    ]
    if kind in (C.OF_DRAFT, C.OF_ARMORY, C.OF_CHEST):
        ids.append(off)
    cnt = np.bincount(np.concatenate(ids), minlength=C.NITEM)
    ctx.each_in_one_place("item_deck", cnt, "item", "deck, discard, worn, offer")


def card_zones(ctx):
    """Every action card copy in exactly one place: deck, discard, a hand, the shop."""
    n, T = ctx.i("num_players"), ctx.T
    nc = int(T.n_cards)
    hand = ctx.a("hand")
    if (hand.sum(axis=1) != ctx.a("hand_n")).any():
        ctx.fail("hand_n", ctx.a("hand_n"), "hand sizes differ from the cards held")
    if hand[:, nc:].any():
        ctx.fail("hand", hand, f"a card type beyond the content's {nc} is held")
    imm = np.asarray(T.card_kind[:nc]) == C.K_IMMEDIATE
    if hand[:, :nc][:, imm].any():
        ctx.fail("hand", hand, "an Immediate card is held in a hand")
    parts = [ctx.a("card_deck")[: ctx.i("card_deck_n")], ctx.a("card_disc")[: ctx.i("card_disc_n")]]
    off = ctx.a("offer")[: ctx.i("offer_n")]
    if ctx.i("offer_kind") == C.OF_SHOP:
        if (off >= nc).any():
            ctx.fail("offer", off, f"the shop offers a card type beyond the content's {nc}")
        parts.append(off)
    cnt = np.bincount(np.concatenate(parts), minlength=C.MAX_CARDS) + hand[:n].sum(axis=0)
    want = np.zeros(C.MAX_CARDS, np.int64)
    want[:nc] = np.asarray(T.card_copies[:nc], np.int64)
    if (cnt != want).any():
        k = int(np.flatnonzero(cnt != want)[0])
        ctx.fail(
            "card_deck",
            cnt[k],
            f"card type {k} has {cnt[k]} copies in play, the content "
            f"{want[k]} (every card in exactly one zone)",
        )


def offers(ctx):
    kind, on, seat = ctx.i("offer_kind"), ctx.i("offer_n"), ctx.i("offer_seat")
    ph, over = ctx.i("phase"), ctx.i("phase") == C.PH_OVER
    if kind == C.OF_NONE:
        if on or seat != -1:
            ctx.fail("offer_seat", seat, "an offer seat or size without an offer")
    else:
        if seat < 0:
            ctx.fail("offer_seat", seat, "an offer shown to no seat")
        if on < 1 and kind not in (C.OF_SHOP, C.OF_ARMORY):
            ctx.fail("offer_n", on, "an empty draft or chest")
    if not over:
        want = {
            C.PH_DRAFT: C.OF_DRAFT,
            C.PH_SHOP: C.OF_SHOP,
            C.PH_ARMORY: C.OF_ARMORY,
            C.PH_CHEST: C.OF_CHEST,
        }.get(ph, C.OF_NONE)
        if kind != want:
            ctx.fail(
                "offer_kind",
                kind,
                f"phase {C.PHASE_NAMES[ph]} needs offer kind {C.OFFER_NAMES[want]}",
            )
        if kind != C.OF_NONE and seat != ctx.i("actor"):
            ctx.fail("offer_seat", seat, "an offer shown to a seat that is not deciding")
        if ph == C.PH_CHEST and on != 1:
            ctx.fail("offer_n", on, "a chest offers one item")
        if ph == C.PH_DRAFT and on != C.DRAFT_N:
            ctx.fail("offer_n", on, f"a draft offers {C.DRAFT_N} items")


def pending(ctx):
    ph, over = ctx.i("phase"), ctx.i("phase") == C.PH_OVER
    pc, pt = ctx.i("pend_card"), ctx.i("pend_target")
    actor, n = ctx.i("actor"), ctx.i("num_players")
    eff = int(ctx.T.card_effect[pc]) if pc >= 0 else -1
    if over:
        return
    if ph == C.PH_TARGET:
        if pc < 0 or eff not in TARGETED or pt != -1:
            ctx.fail("pend_card", pc, "a target choice needs a targeted card pending")
    elif ph == C.PH_SLOT:
        ok = pc >= 0 and (
            (eff == C.E_VAULT and pt == actor)
            or (eff in (C.E_PICKPOCKET, C.E_STRIP) and 0 <= pt < n and pt != actor)
        )
        if not ok:
            ctx.fail(
                "pend_card",
                pc,
                "a slot choice needs Vault / Pickpocket / Strip pending on a valid seat",
            )
    elif pc != -1 or pt != -1:
        ctx.fail("pend_card", pc, "a card pending outside the target / slot choice")


def board(ctx):
    T = ctx.T
    alive, mob, hp, back = ctx.a("sq_alive"), ctx.a("sq_mob"), ctx.a("sq_hp"), ctx.a("sq_back")
    fb = ctx.i("final_boss")
    rnd = ctx.i("round")
    for f in range(C.NFLOOR):
        flen = int(T.floor_len[f])
        for q in range(C.MAX_SQ):
            k = int(T.sq_kind[f, q]) if q < flen else -1
            if alive[f, q] and k not in (C.SQ_CHEST, C.SQ_MOB, C.SQ_BOSS, C.SQ_LAIR):
                ctx.fail("sq_alive", 1, f"floor {f} square {q} cannot hold a monster or chest")
            if k == C.SQ_MOB:
                lo = f * C.MOBS_PER_FLOOR
                if not lo <= mob[f, q] < lo + C.MOBS_PER_FLOOR:
                    ctx.fail("sq_mob", mob[f, q], f"floor {f} square {q}: not a mob of this floor")
                mmax = int(T.mob_stats[mob[f, q], 2])
            else:
                if mob[f, q] != -1:
                    ctx.fail("sq_mob", mob[f, q], f"floor {f} square {q} is not a mob square")
                mmax = (
                    int(T.boss_stats[f, 2])
                    if k == C.SQ_BOSS
                    else int(T.final_stats[fb, 2])
                    if k == C.SQ_LAIR
                    else 0
                )
            monster = k in (C.SQ_MOB, C.SQ_BOSS, C.SQ_LAIR)
            if monster and alive[f, q]:
                if not 1 <= hp[f, q] <= mmax:
                    ctx.fail("sq_hp", hp[f, q], f"floor {f} square {q}: HP outside [1, {mmax}]")
            elif hp[f, q] != 0:
                ctx.fail(
                    "sq_hp", hp[f, q], f"floor {f} square {q}: HP on a square with no monster up"
                )
            if back[f, q] > rnd + int(T.respawn_rounds):
                ctx.fail("sq_back", back[f, q], f"floor {f} square {q}: respawn beyond the delay")
    lf = C.NFLOOR - 1
    lair = int(T.floor_len[lf]) - 1
    won = ctx.i("outcome") == C.O_WIN
    if won == bool(alive[lf, lair]):
        ctx.fail("sq_alive", alive[lf, lair], "the final boss is down exactly when the game is won")
    n = ctx.i("num_players")
    dealt = int(ctx.a("boss_dmg")[:n].sum())
    if dealt != int(T.final_stats[fb, 2]) - hp[lf, lair]:
        ctx.fail(
            "boss_dmg", ctx.a("boss_dmg"), "damage dealt to the final boss differs from its wounds"
        )


def combat(ctx):
    T = ctx.T
    ck, ca, cb, n = ctx.i("cb_kind"), ctx.i("cb_a"), ctx.i("cb_b"), ctx.i("num_players")
    ph, over = ctx.i("phase"), ctx.i("phase") == C.PH_OVER
    fight = ck != C.OPP_NONE
    if not over and fight != (ph == C.PH_COMBAT):
        ctx.fail("cb_kind", ck, f"combat kind and phase {C.PHASE_NAMES[ph]} disagree")
    if not fight:
        return
    if ctx.i("turn") < 0:
        ctx.fail("cb_kind", ck, "a combat during the creation")
    if not 0 <= ca < n:
        ctx.fail("cb_a", ca, "combat side A is not a seat")
    pvp = ck == C.OPP_HERO
    if pvp and not (0 <= cb < n and cb != ca):
        ctx.fail("cb_b", cb, "a PvP combat needs a rival seat")
    if not pvp and cb != -1:
        ctx.fail("cb_b", cb, "side B is a seat only in PvP")
    if not pvp and ctx.i("cb_win"):
        ctx.fail("cb_win", 1, "side B's window in a monster fight")
    if not over and ctx.i("actor") != (cb if ctx.i("cb_win") else ca):
        ctx.fail("actor", ctx.i("actor"), "the combat window is owed by another seat")
    cf, cq = ctx.i("cb_f"), ctx.i("cb_sq")
    fl, pos = ctx.a("floor"), ctx.a("pos")
    if ck in (C.OPP_MOB, C.OPP_BOSS, C.OPP_FINAL) and not over:
        want = {C.OPP_MOB: C.SQ_MOB, C.OPP_BOSS: C.SQ_BOSS, C.OPP_FINAL: C.SQ_LAIR}[ck]
        ok = (
            0 <= cf < C.NFLOOR
            and 0 <= cq < int(T.floor_len[cf])
            and int(T.sq_kind[cf, cq]) == want
            and ctx.a("sq_alive")[cf, cq] == 1
            and fl[ca] == cf
            and pos[ca] == cq
        )
        if not ok:
            ctx.fail("cb_sq", cq, "a board fight against no living monster on side A's square")
    if ck == C.OPP_SUMMON and not over:
        cm, mhp = ctx.i("cb_mob"), ctx.i("cb_mhp")
        ok = (
            cq == -1
            and cf >= 0
            and cf * C.MOBS_PER_FLOOR <= cm < (cf + 1) * C.MOBS_PER_FLOOR
            and fl[ca] == cf
            and 1 <= mhp <= int(T.mob_stats[cm, 2])
        )
        if not ok:
            ctx.fail(
                "cb_mob", cm, "a summoned mob not of the target's floor, or its HP outside [1, max]"
            )


def loot(ctx):
    ph, over = ctx.i("phase"), ctx.i("phase") == C.PH_OVER
    lk, lv, ll, n = (
        ctx.i("loot_killer"),
        ctx.i("loot_victim"),
        ctx.i("loot_left"),
        ctx.i("num_players"),
    )
    if over:
        return
    if ph == C.PH_LOOT:
        if not (lk == ctx.i("actor") and 0 <= lv < n and lv != lk and ll >= 1):
            ctx.fail(
                "loot_victim",
                lv,
                "loot owed by someone else than the killer, or nothing left to take",
            )
        eq = ctx.a("equip")[lv]
        vault = int(ctx.a("vault")[lv])
        if not any(eq[s] >= 0 and not (vault >> s) & 1 for s in range(C.NSLOT)):
            ctx.fail("loot_victim", lv, "the victim has no unvaulted item to loot")
    elif ll != 0:
        ctx.fail("loot_left", ll, "items left to loot outside the loot phase")


#: run in order after the field rules
CROSS_RULES = (flow, seats, heroes, item_zones, card_zones, offers, pending, board, combat, loot)
