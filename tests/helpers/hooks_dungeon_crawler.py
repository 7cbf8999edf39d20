"""Conformance hooks of Dungeon Crawler (2-8 player PvP, PettingZoo AEC):
found by ``tests/helpers/game_hooks.py`` (see its module doc for what each hook is).

The invariant checker is written from the rules (``envs/dungeon_crawler/
README.md``) and the record's documented fields (``state.py``) over the
content tables ``core.T``; it never calls a kernel (``rules.py``,
``rules_py.py``, the encoder). It is vectorised over a batch of records and
robust to corrupted records (indices are clipped before table lookups, so a
broken record raises ``AssertionError``, never ``IndexError``).

Hidden information is resampled from one seat's point of view
(``player=``) by the game's own sampler (``core.resample_from_infostate``,
``envs/dungeon_crawler/infostate.py``): rivals' hands (sizes kept, Hand
cards only), the action deck order, the item deck order, an offer shown to
another seat, the generator.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from helpers.game_hooks import GameHooks, Violations, as_batch, as_row

#: step caps of the soak configurations: random creation alone takes about
#: 30 / 60 / 120 decisions at 2 / 4 / 8 seats (median), so the caps leave
#: about 70-130 dungeon decisions per game (jump starts skip the creation).
CAPS = {2: 100, 4: 160, 8: 250}


def _C():
    from dungeonrl.envs.dungeon_crawler import consts

    return consts


def _max_hp(T, S):
    """Maximum HP of every seat: base HP + the worn items' HP (``(n, MAX_P)``)."""
    C = _C()
    eq = S["equip"].astype(np.int64)
    worn = eq >= 0
    ihp = np.asarray(T.item_hp, np.int64)[np.clip(eq, 0, C.NITEM - 1)] * worn
    return S["base"][:, :, C.ST_HP].astype(np.int64) + ihp.sum(axis=2)


def _spd_bonus(T, it):
    return int(T.item_spd[it]) if it >= 0 else 0


def _zone_counts(v, zones, nvals, N):
    """Copies of each id over several piles (``(N, nvals)``), like
    ``game_hooks.pile_counts`` (size, id-range and empty-slot checks per
    pile) but with one count over all piles. ``zones``: ``(what, cards,
    cap, counts)``."""
    mats = []
    for what, cards, cap, cnt in zones:
        cards = np.asarray(cards)[:, :cap].astype(np.int64)
        cnt = np.asarray(cnt).astype(np.int64)
        v.need((cnt >= 0) & (cnt <= cap), f"{what} size outside [0, {cap}]", cnt)
        inside = np.arange(cap)[None, :] < np.clip(cnt, 0, cap)[:, None]
        v.need(
            ((cards == -1) | inside).all(axis=1), f"{what} slot beyond its count is not -1", cards
        )
        ok = (cards >= 0) & (cards < nvals)
        v.need((ok | ~inside).all(axis=1), f"{what} holds an id outside [0, {nvals})", cards)
        mats.append(np.where(inside & ok, cards, -1))
    m = np.concatenate(mats, axis=1)
    r, c = np.nonzero(m >= 0)
    return np.bincount(r * nvals + m[r, c], minlength=N * nvals).reshape(N, nvals)


# -- invariant checks, one function per part of the record (run in order; each
# reads what the earlier ones worked out from the namespace ``g``) ------------
def _inv_table_and_flow(g) -> None:
    """Invariants: table and flow."""
    C, P, S, core, i64, v = g.C, g.P, g.S, g.core, g.i64, g.v
    n = i64("num_players")
    v.need((n >= C.MIN_P) & (n <= C.MAX_P), "num_players outside 2..8", n)
    nc = np.clip(n, C.MIN_P, C.MAX_P)
    seat = np.arange(P)[None, :] < nc[:, None]  # (N, P) seats in the game
    phase, outcome, actor, turn = i64("phase"), i64("outcome"), i64("actor"), i64("turn")
    v.need((phase >= 0) & (phase < C.NPHASE), "phase out of range", phase)
    v.need((outcome >= 0) & (outcome < len(C.OUTCOME_NAMES)), "outcome out of range", outcome)
    over = phase == C.PH_OVER
    live = ~over
    v.need(
        over == (outcome != C.O_PLAYING),
        "phase and outcome disagree on whether the game is over",
        outcome,
    )
    v.need(~over | (actor == -1), "a finished game has an acting seat", actor)
    v.need(over | ((actor >= 0) & (actor < nc)), "acting seat outside the table", actor)
    ac = np.clip(actor, 0, P - 1)
    win = outcome == C.O_WIN
    winner = i64("winner")
    v.need(
        np.where(win, (winner >= 0) & (winner < nc), winner == -1),
        "winner set without a win, or a win without exactly one winning seat",
        winner,
    )
    steps, cap = i64("steps"), i64("max_steps")
    v.need((steps >= 0) & (steps <= cap), "steps outside [0, max_steps]", steps)
    v.need(
        (cap >= 1) & (cap <= core.spec.max_episode_steps),
        "max_steps outside [1, the spec's cap]",
        cap,
    )
    v.need(
        (outcome != C.O_TRUNCATED) | (steps == cap),
        "truncated before the step cap",
        np.stack([steps, cap], 1),
    )
    v.need(over | (steps < cap), "a running game at its step cap", np.stack([steps, cap], 1))
    v.need(i64("last_actor") < nc, "last_actor outside the table", i64("last_actor"))
    v.need(
        (i64("reward_mode") >= 0) & (i64("reward_mode") < len(C.REWARD_MODES)),
        "reward mode out of range",
        i64("reward_mode"),
    )
    for f in ("auto_advance", "turn_dead", "moved", "sprinted", "shadow", "cb_init_a", "cb_win"):
        v.need((S[f] == 0) | (S[f] == 1), f"flag {f} not 0/1", S[f])
    v.need(i64("round") >= 0, "negative round", i64("round"))

    # stored mask: 0/1, all zero iff over; auto-advance leaves no forced decision
    legal = S["legal"]
    v.need(((legal == 0) | (legal == 1)).all(axis=1), "legal mask holds values other than 0/1")
    nleg = legal.astype(np.int64).sum(axis=1)
    v.need((nleg > 0) == live, "stored legal mask all-zero iff game over is broken", nleg)
    v.need(
        over | (S["auto_advance"] == 0) | (nleg >= 2),
        "auto_advance left a decision with a single legal action",
        nleg,
    )

    creation = (phase == C.PH_ASSIGN) | (phase == C.PH_REBAL) | (phase == C.PH_DRAFT)
    dungeon = live & ~creation
    v.need(~creation | (turn == -1), "a dungeon turn during the creation", turn)
    v.need(~dungeon | ((turn >= 0) & (turn < nc)), "dungeon phase without a valid turn seat", turn)
    started = turn >= 0
    v.need((turn >= -1) & (turn < nc), "turn seat outside the table", turn)
    v.need(
        ~started | (i64("cr_roll") == 0), "creation roll left after the creation", i64("cr_roll")
    )
    own_turn = np.isin(
        phase, (C.PH_MOVE, C.PH_MAIN, C.PH_TARGET, C.PH_SLOT, C.PH_SHOP, C.PH_ARMORY, C.PH_CHEST)
    )
    v.need(
        ~(live & own_turn) | (actor == turn),
        "a turn-only decision owed by a seat other than the turn's hero",
        np.stack([actor, turn], 1),
    )
    v.need(~(live & (phase == C.PH_MOVE)) | (S["moved"] == 0), "move phase after moving")
    v.need(~(live & (phase == C.PH_MAIN)) | (S["moved"] == 1), "main phase without moving")
    v.need(
        (i64("resume_ph") == C.PH_MOVE) | (i64("resume_ph") == C.PH_MAIN),
        "resume phase is neither move nor main",
        i64("resume_ph"),
    )
    roll = i64("roll")
    v.need(
        ~started | ((roll >= 1) & (roll <= C.MAX_MOVE)),
        f"movement roll outside 1..{C.MAX_MOVE}",
        roll,
    )
    v.need(
        ~(live & (S["turn_dead"] == 1)) | (phase == C.PH_LOOT),
        "the turn's hero died but its turn goes on",
        phase,
    )
    g.ac, g.actor, g.creation, g.live, g.nc, g.over = ac, actor, creation, live, nc, over
    g.phase, g.seat, g.started, g.win, g.winner = phase, seat, started, win, winner


def _inv_heroes(g) -> None:
    """Invariants: heroes."""
    C, N, P, S, T, ac, actor, creation = g.C, g.N, g.P, g.S, g.T, g.ac, g.actor, g.creation
    i64, live, phase, rows, seat, started = g.i64, g.live, g.phase, g.rows, g.seat, g.started
    v = g.v
    base, rolled = i64("base"), i64("rolled")
    hp, mh = i64("hp"), _max_hp(T, S)
    gold = i64("gold")
    v.need(
        ((gold >= 0) & (gold <= int(T.gold_cap))).all(axis=1),
        f"gold outside [0, {int(T.gold_cap)}]",
        gold,
    )
    created = np.zeros((N, P), bool)  # seats with a finished hero
    created[started] = seat[started]
    cre_live = creation & live
    created |= cre_live[:, None] & (np.arange(P)[None, :] < actor[:, None])
    # the seat being created: rolls locked into stats, base = rolls until REBAL
    cs = cre_live
    cur_rolled, cur_base = rolled[rows, ac], base[rows, ac]
    v.need(
        ~cs
        | (
            (cur_rolled == 0) | ((cur_rolled >= 1 + C.ROLL_BASE) & (cur_rolled <= 4 + C.ROLL_BASE))
        ).all(axis=1),
        "a creation roll outside 7..10",
        cur_rolled,
    )
    asg = cs & (phase == C.PH_ASSIGN)
    v.need(~asg | (cur_rolled == 0).any(axis=1), "assign phase with every stat locked")
    v.need(~asg | (cur_base == cur_rolled).all(axis=1), "stats moved before the rebalance")
    v.need(
        ~asg | ((i64("cr_roll") >= 7) & (i64("cr_roll") <= 10)),
        "assign phase without a 7..10 roll",
        i64("cr_roll"),
    )
    v.need(~(cs & ~asg) | (cur_rolled > 0).all(axis=1), "rebalance/draft with an open stat")
    v.need(
        ~(cs & ~asg) | (cur_base.sum(1) == cur_rolled.sum(1)),
        "rebalance created or lost points",
        np.stack([cur_base.sum(1), cur_rolled.sum(1)], 1),
    )
    v.need(
        ~cs | (hp[rows, ac] == np.where(phase == C.PH_DRAFT, mh[rows, ac], 0)),
        "HP of the hero being created (0, full after the rebalance)",
        hp[rows, ac],
    )
    v.need(~cs | (S["equip"][rows, ac] == -1).all(axis=1), "gear before the draft")
    later = cre_live[:, None] & seat & (np.arange(P)[None, :] > actor[:, None])
    blank = (
        (later[:, :, None] & ((rolled != 0) | (base != 0))).any(axis=(1, 2))
        | (later & (hp != 0)).any(axis=1)
        | (later[:, :, None] & (S["equip"] != -1)).any(axis=(1, 2))
    )
    v.need(~blank, "a seat not yet created has stats, HP or gear")
    v.need(
        ~(cre_live[:, None] & seat & (gold != int(T.start_gold))).any(axis=1),
        "gold changed during the creation",
        gold,
    )
    v.need(
        ~(cre_live[:, None, None] & (S["hand"] != 0)).any(axis=(1, 2)),
        "cards in hand during the creation",
    )
    # finished heroes: 6+1d4 per stat, at most 4 points moved, every stat >= 1
    moved_pts = np.clip(rolled - base, 0, None).sum(axis=2)
    c3 = created[:, :, None]
    v.need(
        ~(c3 & ((rolled < 1 + C.ROLL_BASE) | (rolled > 4 + C.ROLL_BASE))).any(axis=(1, 2)),
        "a hero's stat roll outside 7..10",
        rolled,
    )
    v.need(~(c3 & (base < 1)).any(axis=(1, 2)), "a hero's base stat below 1", base)
    v.need(
        ~(created & (base.sum(2) != rolled.sum(2))).any(axis=1),
        "a hero's base stats do not sum to its rolls",
        base.sum(2) - rolled.sum(2),
    )
    v.need(
        (S["rebal_n"] >= 0) & (S["rebal_n"] <= C.REBAL_SHIFTS),
        f"more than {C.REBAL_SHIFTS} rebalance shifts",
        S["rebal_n"],
    )
    v.need(
        ~(created & (moved_pts > C.REBAL_MAX)).any(axis=1),
        f"more than {C.REBAL_MAX} points rebalanced",
        moved_pts,
    )
    v.need(
        ~(created & ((hp < 1) | (hp > mh))).any(axis=1),
        "a hero's HP outside [1, max HP]",
        np.stack([hp, mh], 1),
    )
    # seats beyond the table stay empty
    out_ = ~seat
    empty = (
        (out_[:, :, None] & ((base != 0) | (rolled != 0))).any(axis=(1, 2))
        | (out_[:, :, None] & (S["equip"] != -1)).any(axis=(1, 2))
        | (out_[:, :, None] & (S["hand"] != 0)).any(axis=(1, 2))
        | (
            out_
            & (
                (hp != 0)
                | (gold != 0)
                | (S["hand_n"] != 0)
                | (S["vault"] != 0)
                | (S["pos"] != -1)
                | (S["floor"] != 0)
            )
        ).any(axis=1)
    )
    v.need(~empty, "a seat beyond the table holds a hero")

    fl, pos = i64("floor"), i64("pos")
    flc = np.clip(fl, 0, C.NFLOOR - 1)
    flen = np.asarray(T.floor_len, np.int64)
    ok_f = (fl >= 0) & (fl < C.NFLOOR)
    v.need((ok_f | ~seat).all(axis=1), "a hero's floor out of range", fl)
    ok_p = (pos >= 0) & (pos < flen[flc])
    v.need((ok_p | ~seat).all(axis=1), "a hero outside its floor's squares", pos)
    kind = np.asarray(T.sq_kind, np.int64)
    here = kind[flc, np.clip(pos, 0, C.MAX_SQ - 1)]
    v.need(~(seat & (here == C.SQ_STAIRS)).any(axis=1), "a hero stands on the stairs")
    v.need(((S["vault"] >= 0) & (S["vault"] < 64)).all(axis=1), "vault bits beyond 6 slots")
    # (Potions of Strength stack until the next combat: no upper bound but the field's)
    for f, hi in (
        ("poison", int(np.max(T.card_turns))),
        ("weak", 127),
        ("curse", 127),
        ("str_bonus", 127),
        ("enchant", 127),
    ):
        x = i64(f)
        v.need(((x >= 0) & (x <= hi)).all(axis=1), f"status {f} outside [0, {hi}]", x)
    eff = np.asarray(T.card_effect, np.int64)
    used = np.arange(C.MAX_CARDS) < int(T.n_cards)

    def vals(e, fld):
        return {0} | {
            int(getattr(T, fld)[c]) for c in range(C.MAX_CARDS) if used[c] and eff[c] == e
        }

    for f, e, fld in (
        ("weak", C.E_WEAKNESS, "card_atk"),
        ("curse", C.E_CURSE, "card_atk"),
        ("poison_dmg", C.E_POISON, "card_dmg"),
    ):
        v.need(
            np.isin(S[f], sorted(vals(e, fld))).all(axis=1),
            f"status {f} not a value its card gives",
            S[f],
        )
    v.need(~((S["poison"] > 0) & (S["poison_dmg"] <= 0)).any(axis=1), "poison without damage")
    ench_max = max(
        [3 * int(T.card_atk[c]) for c in range(C.MAX_CARDS) if used[c] and eff[c] == C.E_ENCHANT]
        or [0]
    )
    v.need((i64("enchant") <= ench_max).all(axis=1), f"enchant above {ench_max}", S["enchant"])
    v.need(
        ~((S["enchant"] > 0) & (S["equip"][:, :, C.SL_WEAPON] < 0)).any(axis=1),
        "an enchantment without a weapon",
    )
    no_cb = S["cb_kind"] == C.OPP_NONE
    v.need(
        ~no_cb | ((S["cb_atk"] == 0) & (S["cb_def"] == 0)).all(axis=1),
        "combat modifiers outside a combat",
        np.concatenate([S["cb_atk"], S["cb_def"]], 1),
    )
    for f in ("deaths", "kills", "boss_dmg"):
        v.need((S[f] >= 0).all(axis=1), f"negative {f}", S[f])
    g.eff, g.fl, g.flc, g.flen, g.here, g.kind = eff, fl, flc, flen, here, kind
    g.pos, g.used = pos, used


def _inv_items(g) -> None:
    """Invariants: items: every item in exactly one place, worn items in their slot."""
    C, N, S, T, i64, seat, v = g.C, g.N, g.S, g.T, g.i64, g.seat, g.v
    eq = i64("equip")
    v.need(((eq >= -1) & (eq < C.NITEM)).all(axis=(1, 2)), "worn item id out of range", eq)
    islot = np.asarray(T.item_slot, np.int64)[np.clip(eq, 0, C.NITEM - 1)]
    v.need(
        ((eq < 0) | (islot == np.arange(C.NSLOT)[None, None, :])).all(axis=(1, 2)),
        "an item worn in another slot",
    )
    okind = i64("offer_kind")
    v.need((okind >= 0) & (okind < len(C.OFFER_NAMES)), "offer kind out of range", okind)
    on = i64("offer_n")
    v.need((on >= 0) & (on <= C.OFFER_MAX), f"offer size outside [0, {C.OFFER_MAX}]", on)
    onc = np.clip(on, 0, C.OFFER_MAX)
    off = i64("offer")
    inside = np.arange(C.OFFER_MAX)[None, :] < onc[:, None]
    v.need(((off == -1) | inside).all(axis=1), "offer slot beyond its count is not -1", off)
    is_item = np.isin(okind, (C.OF_DRAFT, C.OF_ARMORY, C.OF_CHEST))
    worn = np.where(seat[:, :, None], eq, -1).reshape(N, -1)
    worn_n = (worn >= 0).sum(axis=1)
    worn_sorted = -np.sort(-worn, axis=1)  # ids first, then -1
    items = _zone_counts(
        v,
        (
            ("item deck", S["item_deck"], C.NITEM, S["item_deck_n"]),
            ("item discard", S["item_disc"], C.NITEM, S["item_disc_n"]),
            ("worn items", worn_sorted, worn_sorted.shape[1], worn_n),
            (
                "item offer",
                np.where(is_item[:, None], off, -1),
                C.OFFER_MAX,
                np.where(is_item, onc, 0),
            ),
        ),
        C.NITEM,
        N,
    )
    v.need(
        (items == 1).all(axis=1),
        "items not each in exactly one place (deck + discard + worn + offer; count per "
        "item id shown)",
        items,
    )
    g.off, g.okind, g.on, g.onc = off, okind, on, onc


def _inv_cards(g) -> None:
    """Invariants: action cards."""
    C, N, S, T, i64, off, okind, onc = g.C, g.N, g.S, g.T, g.i64, g.off, g.okind, g.onc
    seat, used, v = g.seat, g.used, g.v
    hand = i64("hand")
    v.need((hand >= 0).all(axis=(1, 2)), "negative card count in a hand")
    hn = i64("hand_n")
    v.need(((hn >= 0) & (hn <= C.HAND_MAX)).all(axis=1), f"hand size outside 0..{C.HAND_MAX}", hn)
    v.need(
        (hand.sum(axis=2) == hn).all(axis=1),
        "hand size differs from the cards held",
        np.stack([hand.sum(axis=2), hn], 1),
    )
    immediate = (np.asarray(T.card_kind, np.int64) == C.K_IMMEDIATE) | ~used
    v.need(
        ~(hand[:, :, immediate] != 0).any(axis=(1, 2)),
        "an Immediate (or unused) card type held in a hand",
    )
    shop = okind == C.OF_SHOP
    cards = _zone_counts(
        v,
        (
            ("action deck", S["card_deck"], C.DECK_MAX, S["card_deck_n"]),
            ("action discard", S["card_disc"], C.DECK_MAX, S["card_disc_n"]),
            ("shop offer", np.where(shop[:, None], off, -1), C.OFFER_MAX, np.where(shop, onc, 0)),
        ),
        C.MAX_CARDS,
        N,
    )
    cards += (hand * seat[:, :, None]).sum(axis=1)
    want = np.asarray(T.card_copies, np.int64) * used
    v.need(
        (cards == want[None, :]).all(axis=1),
        "action cards not each in exactly one place (shown: copies minus expected)",
        cards - want[None, :],
    )


def _inv_offers(g) -> None:
    """Invariants: offers: who sees them and in which phase."""
    C, N, actor, i64, live, nc, okind = g.C, g.N, g.actor, g.i64, g.live, g.nc, g.okind
    on, over, phase, v = g.on, g.over, g.phase, g.v
    oseat = i64("offer_seat")
    # (a shop or armory bought empty stays open until the hero leaves)
    v.need(
        np.where(
            okind == C.OF_NONE,
            (on == 0) & (oseat == -1),
            (oseat >= 0)
            & (oseat < nc)
            & ((on >= 1) | (okind == C.OF_SHOP) | (okind == C.OF_ARMORY)),
        ),
        "offer without a seat / seat without an offer",
        np.stack([okind, on, oseat], 1),
    )
    want_kind = np.full(N, C.OF_NONE)
    for ph, k in (
        (C.PH_DRAFT, C.OF_DRAFT),
        (C.PH_SHOP, C.OF_SHOP),
        (C.PH_ARMORY, C.OF_ARMORY),
        (C.PH_CHEST, C.OF_CHEST),
    ):
        want_kind[phase == ph] = k
    v.need(
        over | (okind == want_kind),
        "offer kind does not match the phase",
        np.stack([phase, okind], 1),
    )
    v.need(
        ~(live & (okind != C.OF_NONE)) | (oseat == actor),
        "an offer shown to a seat that is not deciding",
        np.stack([oseat, actor], 1),
    )
    v.need(~(live & (phase == C.PH_CHEST)) | (on == 1), "a chest offers other than one item", on)


def _inv_pending(g) -> None:
    """Invariants: pending card plays."""
    C, T, actor, eff, i64, live, nc = g.C, g.T, g.actor, g.eff, g.i64, g.live, g.nc
    phase, v = g.phase, g.v
    pc, pt = i64("pend_card"), i64("pend_target")
    pcc = np.clip(pc, 0, C.MAX_CARDS - 1)
    pe = eff[pcc]
    targeted = np.isin(
        pe,
        (
            C.E_AMBUSH,
            C.E_ASSASSINATE,
            C.E_SUMMON,
            C.E_RECALL,
            C.E_PICKPOCKET,
            C.E_STRIP,
            C.E_CURSE,
            C.E_POISON,
            C.E_WEAKNESS,
        ),
    )
    tgt = live & (phase == C.PH_TARGET)
    slot = live & (phase == C.PH_SLOT)
    v.need(
        ~tgt | ((pc >= 0) & (pc < int(T.n_cards)) & targeted & (pt == -1)),
        "target choice without a targeted card pending",
        np.stack([pc, pt], 1),
    )
    v.need(
        ~slot
        | (
            (pc >= 0)
            & (pc < int(T.n_cards))
            & np.where(
                pe == C.E_VAULT,
                pt == actor,
                np.isin(pe, (C.E_PICKPOCKET, C.E_STRIP)) & (pt >= 0) & (pt < nc) & (pt != actor),
            )
        ),
        "slot choice without Vault / Pickpocket / Strip pending on a valid seat",
        np.stack([pc, pt], 1),
    )
    v.need(
        ~(live & ~tgt & ~slot) | ((pc == -1) & (pt == -1)),
        "a card pending outside the target / slot choice",
        np.stack([pc, pt], 1),
    )


def _inv_board(g) -> None:
    """Invariants: board."""
    C, P, S, T, flc, flen, here, i64 = g.C, g.P, g.S, g.T, g.flc, g.flen, g.here, g.i64
    kind, live, pos, rows, seat, v, win = g.kind, g.live, g.pos, g.rows, g.seat, g.v, g.win
    winner = g.winner
    fb = i64("final_boss")
    v.need((fb >= 0) & (fb < C.NFINAL), "final boss out of range", fb)
    fbc = np.clip(fb, 0, C.NFINAL - 1)
    alive, smob, shp = i64("sq_alive"), i64("sq_mob"), i64("sq_hp")
    on_board = np.arange(C.MAX_SQ)[None, :] < flen[:, None]  # (F, SQ)
    k3 = kind[None]
    v.need(((alive == 0) | (alive == 1)).all(axis=(1, 2)), "square alive flag not 0/1")
    can_live = np.isin(k3, (C.SQ_CHEST, C.SQ_MOB, C.SQ_BOSS, C.SQ_LAIR)) & on_board[None]
    v.need(~((alive == 1) & ~can_live).any(axis=(1, 2)), "a non-encounter square is up")
    mob_sq = (k3 == C.SQ_MOB) & on_board[None]
    roster_lo = (np.arange(C.NFLOOR) * C.MOBS_PER_FLOOR)[None, :, None]
    v.need(
        np.where(
            mob_sq, (smob >= roster_lo) & (smob < roster_lo + C.MOBS_PER_FLOOR), smob == -1
        ).all(axis=(1, 2)),
        "a mob square's mob is not of its floor's roster (or a mob off a mob square)",
    )
    mob_max = np.asarray(T.mob_stats, np.int64)[np.clip(smob, 0, C.NMOB - 1), 2]
    boss_max = np.broadcast_to(np.asarray(T.boss_stats, np.int64)[:, 2][None, :, None], alive.shape)
    fin_max = np.asarray(T.final_stats, np.int64)[fbc, 2]
    mmax = np.where(
        k3 == C.SQ_MOB,
        mob_max,
        np.where(k3 == C.SQ_BOSS, boss_max, np.where(k3 == C.SQ_LAIR, fin_max[:, None, None], 0)),
    )
    monster = np.isin(k3, (C.SQ_MOB, C.SQ_BOSS, C.SQ_LAIR)) & on_board[None]
    v.need(
        np.where(monster & (alive == 1), (shp >= 1) & (shp <= mmax), shp == 0).all(axis=(1, 2)),
        "monster HP outside [1, max] while up, or not 0 when down",
    )
    back = i64("sq_back")
    rnd = i64("round")
    v.need(
        ((back >= 0) & (back <= rnd[:, None, None] + int(T.respawn_rounds))).all(axis=(1, 2)),
        "respawn round beyond the respawn delay",
    )
    lf = C.NFLOOR - 1
    lair = int(T.floor_len[lf]) - 1
    lair_hp = shp[:, lf, lair]
    v.need(
        ~win | ((alive[:, lf, lair] == 0) & (lair_hp == 0)),
        "a win with the final boss alive",
        lair_hp,
    )
    v.need(win | (alive[:, lf, lair] == 1), "the final boss is down but no one won")
    bd = (i64("boss_dmg") * seat).sum(axis=1)
    v.need(
        bd == fin_max - lair_hp,
        "damage dealt to the final boss differs from its wounds",
        np.stack([bd, fin_max - lair_hp], 1),
    )
    v.need(
        ~win | (S["boss_dmg"][rows, np.clip(winner, 0, P - 1)] > 0),
        "the winner never struck the final boss",
    )
    # a hero on a living monster's square is fighting it
    up_here = alive[rows[:, None], flc, np.clip(pos, 0, C.MAX_SQ - 1)] == 1
    mon_here = np.isin(here, (C.SQ_MOB, C.SQ_BOSS, C.SQ_LAIR))
    fighting = (np.arange(P)[None, :] == i64("cb_a")[:, None]) & np.isin(
        i64("cb_kind"), (C.OPP_MOB, C.OPP_BOSS, C.OPP_FINAL)
    )[:, None]
    v.need(
        ~(live[:, None] & seat & up_here & mon_here & ~fighting).any(axis=1),
        "a hero stands on a living monster's square outside its fight",
    )
    g.alive = alive


def _inv_combat(g) -> None:
    """Invariants: combat."""
    C, P, S, T, actor, alive, fl, flen = g.C, g.P, g.S, g.T, g.actor, g.alive, g.fl, g.flen
    i64, kind, live, nc, over, phase, pos = g.i64, g.kind, g.live, g.nc, g.over, g.phase, g.pos
    rows, started, v = g.rows, g.started, g.v
    ck, ca, cb = i64("cb_kind"), i64("cb_a"), i64("cb_b")
    v.need((ck >= 0) & (ck < len(C.OPP_NAMES)), "combat kind out of range", ck)
    fight = ck != C.OPP_NONE
    v.need(
        over | (fight == (phase == C.PH_COMBAT)),
        "combat kind and phase disagree",
        np.stack([phase, ck], 1),
    )
    v.need(~fight | ((ca >= 0) & (ca < nc)), "combat side A is not a seat", ca)
    pvp = ck == C.OPP_HERO
    v.need(
        ~fight | np.where(pvp, (cb >= 0) & (cb < nc) & (cb != ca), cb == -1),
        "combat side B invalid (a rival in PvP, none otherwise)",
        np.stack([ca, cb], 1),
    )
    v.need(~fight | started, "a combat during the creation")
    v.need(~(fight & ~pvp) | (S["cb_win"] == 0), "side B window in a monster fight")
    v.need(
        ~(live & fight) | (actor == np.where(S["cb_win"] == 1, cb, ca)),
        "combat window owed by the wrong seat",
        np.stack([actor, ca, cb], 1),
    )
    v.need(i64("cb_round") >= 0, "negative combat round", i64("cb_round"))
    board_m = np.isin(ck, (C.OPP_MOB, C.OPP_BOSS, C.OPP_FINAL))
    cf, csq = i64("cb_f"), i64("cb_sq")
    cfc, csqc = np.clip(cf, 0, C.NFLOOR - 1), np.clip(csq, 0, C.MAX_SQ - 1)
    want_sq = np.where(ck == C.OPP_MOB, C.SQ_MOB, np.where(ck == C.OPP_BOSS, C.SQ_BOSS, C.SQ_LAIR))
    cac = np.clip(ca, 0, P - 1)
    v.need(
        ~(live & board_m)
        | (
            (cf >= 0)
            & (cf < C.NFLOOR)
            & (csq >= 0)
            & (csq < flen[cfc])
            & (kind[cfc, csqc] == want_sq)
            & (alive[rows, cfc, csqc] == 1)
            & (fl[rows, cac] == cf)
            & (pos[rows, cac] == csq)
        ),
        "board fight not against a living monster on side A's square",
        np.stack([ck, cf, csq], 1),
    )
    summ = ck == C.OPP_SUMMON
    cm = i64("cb_mob")
    cm_max = np.asarray(T.mob_stats, np.int64)[np.clip(cm, 0, C.NMOB - 1), 2]
    v.need(
        ~(live & summ)
        | (
            (csq == -1)
            & (cm >= cf * C.MOBS_PER_FLOOR)
            & (cm < (cf + 1) * C.MOBS_PER_FLOOR)
            & (fl[rows, cac] == cf)
            & (i64("cb_mhp") >= 1)
            & (i64("cb_mhp") <= cm_max)
        ),
        "summoned mob not of the target's floor, or its HP outside [1, max]",
        np.stack([cm, cf, i64("cb_mhp")], 1),
    )


def _inv_loot(g) -> None:
    """Invariants: loot after a hero kill."""
    C, P, S, actor, i64, live, nc, phase = g.C, g.P, g.S, g.actor, g.i64, g.live, g.nc, g.phase
    rows, v = g.rows, g.v
    loot = live & (phase == C.PH_LOOT)
    lk, lv, ll = i64("loot_killer"), i64("loot_victim"), i64("loot_left")
    lvc = np.clip(lv, 0, P - 1)
    vbits = (S["vault"][rows, lvc].astype(np.int64)[:, None] >> np.arange(C.NSLOT)) & 1
    unv = ((S["equip"][rows, lvc] >= 0) & (vbits == 0)).sum(axis=1)
    v.need(
        ~loot
        | (
            (lk == actor)
            & (lv >= 0)
            & (lv < nc)
            & (lv != lk)
            & (ll >= 1)
            & (ll <= C.NFLOOR)
            & (unv >= 1)
        ),
        "loot owed by someone else than the killer, or nothing left to take",
        np.stack([lk, lv, ll, unv], 1),
    )
    v.need(~(live & ~loot) | (ll == 0), "items left to loot outside the loot phase", ll)


_INVARIANTS = (
    _inv_table_and_flow,
    _inv_heroes,
    _inv_items,
    _inv_cards,
    _inv_offers,
    _inv_pending,
    _inv_board,
    _inv_combat,
    _inv_loot,
)


class DungeonCrawlerHooks(GameHooks):
    name = "dungeon_crawler"
    # 2, 4 and 8 seats; the 4-seat games also cover winner_only rewards and
    # auto_advance=False (single-legal decisions taken by the player)
    configs = [
        {"num_players": 2, "max_steps": CAPS[2]},
        {"num_players": 4, "max_steps": CAPS[4], "reward": "winner_only", "auto_advance": False},
        {"num_players": 8, "max_steps": CAPS[8]},
    ]
    #: per configuration and start kind: 340 reset + 340 jump starts per seat
    #: count here (1,020 games per start kind), plus 1,000 games per seat count
    #: played to the end in dungeon_crawler/test_game.py
    soak_games = 340
    #: samples spread over creation and dungeon (conformance_common.sampled_states)
    sample_every = 9
    default_config = {"num_players": 4}
    truncate_config = {"num_players": 3, "max_steps": 5}
    short_config = {"max_steps": 30}
    chance_fields = ("rng",)
    hidden_parts = ("hand", "card_deck", "item_deck", "offer", "rng", "seed")
    known_bugs = {}

    # -- invariants ------------------------------------------------------------------------
    def check_invariants(self, core, state) -> None:
        """Vectorised: ``state`` may be a record, a 1-row array or a batch."""
        C = _C()
        S = as_batch(state)
        T = core.T
        v = Violations("Dungeon Crawler")
        i64 = lambda f: S[f].astype(np.int64)  # noqa: E731
        N = len(S)
        P = C.MAX_P
        rows = np.arange(N)
        g = SimpleNamespace(C=C, S=S, T=T, v=v, i64=i64, N=N, P=P, rows=rows, core=core)
        for section in _INVARIANTS:
            section(g)
        v.raise_if_any(S)

    def check_transition(self, core, before, after) -> None:
        """``after`` is ``before`` plus one decision (no autoreset); rows of
        games already over in ``before`` are skipped. Batches allowed."""
        C = _C()
        B, A = as_batch(before), as_batch(after)
        live = B["phase"] != C.PH_OVER
        B, A = B[live], A[live]
        v = Violations("Dungeon Crawler transition")
        for f in (
            "seed",
            "episode",
            "num_players",
            "reward_mode",
            "auto_advance",
            "max_steps",
            "final_boss",
        ):
            v.need(A[f] == B[f], f"{f} changed", np.stack([B[f], A[f]], 1))
        v.need(
            A["steps"].astype(np.int64) == B["steps"].astype(np.int64) + 1,
            "the decision counter did not go up by one",
            np.stack([B["steps"], A["steps"]], 1),
        )
        v.need(
            A["last_actor"] == B["actor"],
            "last_actor is not the seat that decided",
            np.stack([B["actor"], A["last_actor"]], 1),
        )
        v.need(
            (A["rng"][:, 0] == B["rng"][:, 0]) & (A["rng"][:, 1] >= B["rng"][:, 1]),
            "generator key changed or its counter went back",
        )
        v.need(A["round"] >= B["round"], "the table round went back")
        for f in ("deaths", "kills", "boss_dmg"):
            v.need((A[f].astype(np.int64) >= B[f]).all(axis=1), f"{f} went down")
        v.need(((A["vault"] & B["vault"]) == B["vault"]).all(axis=1), "a vaulted slot was lost")
        done = (B["rolled"] > 0).all(axis=2)
        v.need(
            ~(done[:, :, None] & (A["rolled"] != B["rolled"])).any(axis=(1, 2)),
            "a finished hero's rolls changed",
        )
        T = core.T
        lf = C.NFLOOR - 1
        lair = int(T.floor_len[lf]) - 1
        v.need(A["sq_hp"][:, lf, lair] <= B["sq_hp"][:, lf, lair], "the final boss healed")
        for f in range(C.NFLOOR):
            q = int(T.boss_sq[f])
            if q >= 0:
                v.need(
                    ~((B["sq_alive"][:, f, q] == 0) & (A["sq_alive"][:, f, q] == 1)),
                    f"the floor {f + 1} boss came back",
                )
        v.raise_if_any(B)

    # -- hidden information --------------------------------------------------------------
    # (resample_hidden: the game's own sampler, envs/dungeon_crawler/infostate.py,
    # through GameHooks.resample_hidden)
    def change_visible(self, core, state, player=0):
        out = as_row(state)
        s = out[0]
        g = int(s["gold"][player])
        s["gold"][player] = g + 1 if g < int(core.T.gold_cap) else g - 1
        return out

    # -- snapshots, kernels, interpreter -----------------------------------------------------
    def corruptions(self, core, state) -> list:
        C = _C()
        out = []

        def edit(label, fn):
            r = as_row(state)
            fn(r[0])
            out.append((label, r))

        edit("phase out of range", lambda s: s.__setitem__("phase", 99))
        edit(
            "acting seat beyond the table", lambda s: s.__setitem__("actor", int(s["num_players"]))
        )
        edit("hero floor out of range", lambda s: s["floor"].__setitem__(0, C.NFLOOR))
        edit("hero square beyond the floor", lambda s: s["pos"].__setitem__(1, 40))
        edit("worn item id out of range", lambda s: s["equip"].__setitem__((0, 0), 999))
        edit("item deck size out of range", lambda s: s.__setitem__("item_deck_n", 500))
        edit("negative action deck size", lambda s: s.__setitem__("card_deck_n", -1))
        edit("offer size out of range", lambda s: s.__setitem__("offer_n", 5))
        edit("final boss out of range", lambda s: s.__setitem__("final_boss", 7))
        edit("combat kind out of range", lambda s: s.__setitem__("cb_kind", 9))
        edit("negative card count in a hand", lambda s: s["hand"].__setitem__((0, 0), -1))
        edit(
            "hand size differs from the cards held",
            lambda s: s["hand_n"].__setitem__(0, int(s["hand_n"][0]) + 1),
        )
        edit(
            "stored mask does not match",
            lambda s: s["legal"].__setitem__(slice(None), 1 - np.asarray(s["legal"])),
        )
        return out

    def batch_kernels(self) -> list:
        from dungeonrl.envs.dungeon_crawler import kernels

        # the AEC env steps with the fused step_autoreset (no step_batch)
        return [
            kernels.reset_batch,
            kernels.mask_batch,
            kernels.observe_batch,
            kernels.step_autoreset,
            kernels.refresh_batch,
        ]

    def prepare_interpreted(self, core, wrap) -> None:
        core.TR = wrap(core.TR)

    # -- late-game starts --------------------------------------------------------------------
    def jump_start(self, core, states, rng):
        """Turn freshly reset records (seat 0 assigning its first roll) into
        a dungeon turn of seat 0 deep in the game: every hero created (rolls
        6+1d4, no points moved), on floor 2 or 3 (mostly 3) on a quiet
        square, wounded, with random gear, gold and Hand cards taken from the
        piles; mid bosses and mobs wounded or killed, the final boss wounded
        (the damage credited to the heroes), a later table round. Every
        invariant of :meth:`check_invariants` holds; masks are recomputed with
        ``core.refresh``. Rows whose new start would be a single-legal
        decision under auto-advance are left as reset. Returns the rows
        edited."""
        C = _C()
        T = core.T
        rows = np.flatnonzero(
            (states["phase"] == C.PH_ASSIGN)
            & (states["turn"] == -1)
            & (states["actor"] == 0)
            & (states["steps"] == 0)
            & (states["item_deck_n"] == C.NITEM)
        )
        kind = np.asarray(T.sq_kind)
        hand_kind = {c for c in range(int(T.n_cards)) if int(T.card_kind[c]) == C.K_HAND}
        quiet = [
            [
                q
                for q in range(int(T.floor_len[f]))
                if int(kind[f, q]) in (C.SQ_EMPTY, C.SQ_START, C.SQ_SHOP, C.SQ_ARMORY)
            ]
            for f in range(C.NFLOOR)
        ]
        per_slot = [
            [it for it in range(C.NITEM) if int(T.item_slot[it]) == sl] for sl in range(C.NSLOT)
        ]
        done = []
        for i in rows:
            keep = states[i : i + 1].copy()
            s = states[i]
            n = int(s["num_players"])
            rnd = int(rng.integers(3, 60))
            s["round"] = rnd
            # heroes: rolls, gear (a fresh deal has every item in the deck)
            taken = set()
            for h in range(n):
                r = 6 + rng.integers(1, 5, size=C.NSTAT)
                s["rolled"][h] = r
                s["base"][h] = r
                for sl in range(C.NSLOT):
                    if rng.random() < 0.6:
                        free = [it for it in per_slot[sl] if it not in taken]
                        it = free[int(rng.integers(len(free)))]
                        taken.add(it)
                        s["equip"][h, sl] = it
                mh = int(r[C.ST_HP]) + sum(int(T.item_hp[it]) for it in s["equip"][h] if it >= 0)
                s["hp"][h] = int(rng.integers(max(1, mh // 3), mh + 1))
                s["gold"][h] = int(rng.integers(0, 40))
                f = 2 if rng.random() < 0.7 else 1
                s["floor"][h] = f
                s["pos"][h] = quiet[f][int(rng.integers(len(quiet[f])))]
                if rng.random() < 0.2:
                    s["vault"][h] = 1 << int(rng.integers(C.NSLOT))
            idk = [int(x) for x in s["item_deck"][: int(s["item_deck_n"])] if int(x) not in taken]
            s["item_deck"][:] = -1
            s["item_deck"][: len(idk)] = idk
            s["item_deck_n"] = len(idk)
            # hands: Hand cards dealt from the action deck
            cdk = [int(x) for x in s["card_deck"][: int(s["card_deck_n"])]]
            sizes = rng.integers(0, C.HAND_MAX + 1, size=n)
            hk = [k for k, c in enumerate(cdk) if c in hand_kind]
            picks = [int(k) for k in rng.choice(hk, size=int(sizes.sum()), replace=False)]
            j = 0
            for h in range(n):
                for k in picks[j : j + int(sizes[h])]:
                    s["hand"][h, cdk[k]] += 1
                j += int(sizes[h])
                s["hand_n"][h] = int(sizes[h])
            dealt = set(picks)
            cdk = [c for k, c in enumerate(cdk) if k not in dealt]
            s["card_deck"][:] = -1
            s["card_deck"][: len(cdk)] = cdk
            s["card_deck_n"] = len(cdk)
            # board: mobs and mid bosses wounded or killed, the final boss wounded
            for f in range(C.NFLOOR):
                for q in range(int(T.floor_len[f])):
                    k = int(kind[f, q])
                    if k == C.SQ_MOB and rng.random() < 0.3:
                        s["sq_alive"][f, q] = 0
                        s["sq_hp"][f, q] = 0
                        s["sq_back"][f, q] = rnd + int(rng.integers(0, int(T.respawn_rounds) + 1))
                    elif k in (C.SQ_MOB, C.SQ_BOSS) and (k == C.SQ_MOB or rng.random() < 0.5):
                        s["sq_hp"][f, q] = int(rng.integers(1, int(s["sq_hp"][f, q]) + 1))
                    elif k == C.SQ_BOSS:
                        s["sq_alive"][f, q] = 0
                        s["sq_hp"][f, q] = 0
                    elif k == C.SQ_LAIR:
                        full = int(s["sq_hp"][f, q])
                        left = int(rng.integers(1, full + 1))
                        s["sq_hp"][f, q] = left
                        for _ in range(full - left):  # credit the wounds to heroes
                            s["boss_dmg"][int(rng.integers(n))] += 1
            s["phase"] = C.PH_MOVE
            s["turn"] = 0
            s["actor"] = 0
            s["cr_roll"] = 0
            s["resume_ph"] = C.PH_MOVE
            s["roll"] = int(rng.integers(1, 7)) + _spd_bonus(T, int(s["equip"][0, C.SL_BOOTS]))
            core.refresh(states[i : i + 1])
            if int(s["auto_advance"]) and int(states[i]["legal"].sum()) < 2:
                states[i : i + 1] = keep
                continue
            done.append(i)
        return np.asarray(done, np.int64)


HOOKS = DungeonCrawlerHooks()
