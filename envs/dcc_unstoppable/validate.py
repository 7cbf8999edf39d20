"""Valid values of every Dungeon Crawler Carl: Unstoppable state field
(``state.py``), as data, and the cross-field rules; ``KernelCore.check_state``
proves a record is one the rules could reach, or raises
:class:`~dungeonrl.envs.core.errors.CorruptStateError` naming the field and the
value.

The engine header's fields are declared once in
:mod:`dungeonrl.envs.core.validate`; this module gives the game's parameters
for them (:data:`PARAMS`) and its own fields (:data:`FIELD_RULES`). Zones:
every sleeve lies in exactly the pile its ``sl_zone`` / ``sl_owner`` name,
every core side in exactly one place (box, a core deck, the draft reveal or
one sleeve), every upgrade in the deck, the market or one sleeve's cutout.
:func:`check_config`: a record belongs to the configuration of the core
that loads it. Used at ``set_state`` time only, never per step.
"""

from __future__ import annotations

import numpy as np

from ..core.options import check_config_fields
from ..core.validate import FLAG, OneOf, Prefix, R, turn_flow
from . import consts as C

INT16_MAX = 2**15 - 1
INT32_MAX = 2**31 - 1
P = C.NPLAYERS_MAX
S = C.NSLEEVE
BOSS0 = C.NSTART_THREAT + C.NFLOOR_THREAT  # first boss sleeve id

#: the game's name in error messages
GAME = "DCC Unstoppable"

#: configurations whose records the fuzzers corrupt and restore
#: (``dungeonrl.benchmarks.fuzz``, ``tests/untrusted/test_hardening.py``)
FUZZ_CONFIGS = (
    {"num_players": 1},
    {"floor": 2, "auto_advance": False},
    {"floor": 3, "difficulty": "hard", "reward": "score"},
)

PARAMS = {
    "forced_lo": 0,
    "forced_hi": 127,
    "min_players": 1,
    "max_players": P,
    "max_reward_mode": len(C.REWARD_MODES) - 1,
    "max_outcome": len(C.OUTCOME_NAMES) - 1,
}


def _seat(ctx):
    """num_players - 1"""
    return ctx.i("num_players") - 1


def _skull(ctx):
    """the track's skull space (tr_len - 1)"""
    return int(ctx.T.tr_len[ctx.i("cfg_floor") - 1, ctx.i("cfg_mode")]) - 1


def _n_quests(ctx):
    """n_quests"""
    return int(ctx.T.n_quests)


FIELD_RULES = {
    # configuration
    "cfg_floor": R(1, C.NFLOOR),
    "cfg_difficulty": R(0, len(C.DIFFICULTIES) - 1),
    "cfg_mode": OneOf(C.M_ARCADE, C.M_CAMPAIGN),
    "cfg_crawler": R(0, C.NCRAWLER - 1),
    "cfg_race": R(C.RC_NONE, C.NRACE - 1),
    "cfg_class": R(C.RC_NONE, C.NCLASS - 1),
    "camp_xp": R(0, INT16_MAX),
    "camp_ben": R(0, 20),
    "camp_ach": FLAG,
    "camp_deck": R(-1, C.NCORE - 1),
    "camp_upg": R(-1, C.NUPGRADE - 1),
    # flow
    "phase": R(0, C.NPHASE - 1),
    "dec": R(0, C.NDEC - 1),
    "dec_player": R(0, _seat),
    "turn": R(0, 30000),
    "crawler": R(-1, C.NCRAWLER - 1),
    "main_done": FLAG,
    "passes": R(0, C.PASS_CAP),
    "setup_seat": R(0, P),
    "race_offer": R(-1, C.NRACE - 1),
    "class_offer": R(-1, C.NCLASS - 1),
    "space_queue": FLAG,
    # the pending resolution
    "pend": R(-INT16_MAX, INT16_MAX),  # rows checked against the content's ops below
    "pend_n": R(0, C.MAXOPS),
    "pend_i": R(0, C.MAXOPS),
    "pend_src": R(-1, S - 1),
    "pend_abil": R(0, C.NEXH),
    "pend_elim": FLAG,
    "pend_upg": R(-1, C.MARKET_SIZE - 1),
    "sac_queue": R(0, 100),
    "sac_excl": R(-1, S - 1),
    # players
    "health": R(0, C.HEALTH_CAP),
    "mana": R(0, C.MANA_CAP),
    "gold": R(0, 30000),
    "ap": R(0, C.AP_CAP),
    "level": R(0, 100),
    "small": R(0, C.MAX_LEVEL_DECK),
    "race": R(-1, C.NRACE - 1),
    "klass": R(-1, C.NCLASS - 1),
    "descended": R(0, 2),
    "levels_after_stairs": R(0, 100),
    "fresh": FLAG,
    # piles (sleeve ids)
    "deck": R(-1, S - 1),
    "deck_n": R(0, C.PILE_CAP),
    "hand": R(-1, S - 1),
    "hand_n": R(0, C.PILE_CAP),
    "disc": R(-1, S - 1),
    "disc_n": R(0, C.PILE_CAP),
    "bf": R(-1, S - 1),
    "bf_n": R(0, C.BF_CAP),
    "play": R(-1, S - 1),
    "play_n": R(0, C.PLAY_CAP),
    # sleeves
    "sl_core": R(-1, C.NCORE - 1),
    "sl_up": R(-1, C.NUPGRADE - 1),
    "sl_dmg": R(0, 100),
    "sl_loom": FLAG,
    "sl_exh": FLAG,
    "sl_owner": R(-1, _seat),
    "sl_zone": R(0, len(C.ZONE_NAMES) - 1),
    "sl_seen": FLAG,
    "sl_rep": R(0, 100),
    # supply
    "core_zone": R(0, len(C.CORE_ZONE_NAMES) - 1),
    "cdeck": R(-1, C.NCORE - 1),
    "cdeck_n": R(0, C.CDECK_CAP),
    "reveal": R(-1, C.NCORE - 1),
    "reveal_lv": R(0, C.MAX_LEVEL_DECK),
    "reveal_set": R(-1, P - 1),
    "draft_seat": R(0, _seat),
    "draft_first": R(-1, P - 1),
    "draft_keep": R(-1, C.NCORE - 1),
    "tdeck": Prefix("tdeck_n", 0, C.NTHREAT - 1, fill=-1),
    "tdeck_n": R(0, C.NTHREAT),
    "udeck": R(-1, C.NUPGRADE - 1),
    "udeck_n": R(0, C.NUPGRADE),
    "market": R(-1, C.NUPGRADE - 1),
    "upg_zone": R(0, 2),
    "dungeon": R(-1, C.NTHREAT - 1),
    "dungeon_n": R(0, C.NBOSS),
    # danger track
    "danger": R(0, _skull),
    # Floor 3 quests
    "quest_order": R(-1, C.MAX_QUESTS - 1),
    "quest_next": R(0, _n_quests),
    "quest": R(-1, C.MAX_QUESTS - 1),
    "quest_part": R(0, C.MAX_QUEST_PARTS),  # = the part count once the last part is done
    "quest_prog": R(0, 100),
    "quest_owner": R(0, _seat),
    "quest_boss": R(-1, S - 1),
    "quests_done": R(0, _n_quests),
    "quest_xp": R(0, INT16_MAX),
    # records and scoring
    "defeats": R(0, INT16_MAX),
    "turn_defeats": R(0, 127),
    "bosses": R(0, C.NBOSS),
    "boss_xp": R(0, INT16_MAX),
    "bought": R(0, C.NUPGRADE),
    "ach": FLAG,
    "extra": FLAG,
    "xp": R(0, INT16_MAX),
    "score": R(0, INT16_MAX * 100),
}

PILES = (
    ("deck", C.Z_DECK),
    ("hand", C.Z_HAND),
    ("disc", C.Z_DISCARD),
    ("bf", C.Z_BATTLE),
    ("play", C.Z_PLAY),
)
SETUP = (C.PH_RACE, C.PH_CLASS)


# --- cross-field rules --------------------------------------------------------------------
def flow(ctx):
    over = turn_flow(ctx, C.PHASE_NAMES, C.PH_OVER)
    ph, _out, actor = ctx.i("phase"), ctx.i("outcome"), ctx.i("actor")
    if ctx.i("pend_i") > ctx.i("pend_n"):
        ctx.fail("pend_i", ctx.i("pend_i"), f"past the {ctx.i('pend_n')} pending ops")
    # a Cleanup space decision stays recorded through the next Draft (start_main clears it)
    if ph in (C.PH_CLEANUP, C.PH_DRAFT) + SETUP and ctx.i("dec") not in (
        C.DEC_SPACE_ELIM,
        C.DEC_SPACE_MARKET,
        C.DEC_NONE,
    ):
        if not (ph == C.PH_DRAFT and ctx.i("dec") == C.DEC_BOTTOM):  # solo order, DCC-125
            ctx.fail(
                "dec", ctx.i("dec"), f"phase {C.PHASE_NAMES[ph]} has no pending Main Phase decision"
            )
    # (a game truncated at max_steps keeps the decision it was waiting on)
    if (
        not over
        and ctx.i("dec") == C.DEC_BOTTOM
        and (ph != C.PH_DRAFT or ctx.i("num_players") != 1)
    ):
        ctx.fail("dec", ctx.i("dec"), "the bottom-order decision belongs to the solo Draft")
    # the Cleanup phase waits on a player only for an optional danger-space effect
    if (
        not over
        and ph == C.PH_CLEANUP
        and ctx.i("dec") not in (C.DEC_SPACE_ELIM, C.DEC_SPACE_MARKET)
    ):
        ctx.fail("dec", ctx.i("dec"), "the Cleanup phase waits only on a danger-space decision")
    n = ctx.i("num_players")
    if not over and ph in SETUP and ctx.i("setup_seat") >= n:
        ctx.fail("setup_seat", ctx.i("setup_seat"), "a setup choice after the setup")
    # the seat that acts is the one the phase waits on: the setup seat, the
    # drafting seat, or the seat whose decision is pending
    if not over:
        owner = "setup_seat" if ph in SETUP else "draft_seat" if ph == C.PH_DRAFT else "dec_player"
        if actor != ctx.i(owner):
            ctx.fail(
                "actor", actor, f"phase {C.PHASE_NAMES[ph]} waits on seat {owner} = {ctx.i(owner)}"
            )


def seats(ctx):
    """Seats beyond the table stay as the setup left them; seats at the
    table have their crawler, level discs and piles."""
    n = ctx.i("num_players")
    empty = {
        "health": 0,
        "mana": 0,
        "gold": 0,
        "ap": 0,
        "level": 0,
        "small": 0,
        "race": -1,
        "klass": -1,
        "crawler": -1,
        "deck_n": 0,
        "hand_n": 0,
        "disc_n": 0,
        "bf_n": 0,
        "play_n": 0,
        "main_done": 0,
        "sac_queue": 0,
        "defeats": 0,
        "turn_defeats": 0,
        "descended": 0,
        "levels_after_stairs": 0,
        "fresh": 0,
    }
    ctx.seats_left_empty(empty, n)
    cr = ctx.a("crawler")[:n]
    if (cr < 0).any() or (n == 2 and sorted(cr.tolist()) != [0, 1]):
        ctx.fail("crawler", cr, "each seat plays its own crawler")
    # descended: 1 from the Descend action (Main Phase) to the next turn's start, then 2;
    # the floor ends (a win) at the end of the Main Phase in which the last crawler left
    ph, desc = ctx.i("phase"), ctx.a("descended")[:n]
    if ph != C.PH_OVER:
        if (desc == 2).all() or (ph != C.PH_MAIN and (desc != 0).all()):
            ctx.fail("descended", desc, "every crawler went down the stairs, yet the floor goes on")
        if ph not in (C.PH_MAIN, C.PH_CLEANUP) and (desc == 1).any():
            ctx.fail(
                "descended",
                desc,
                f"a crawler that descended this turn in phase {C.PHASE_NAMES[ph]}",
            )
        if ph in SETUP and desc.any():
            ctx.fail("descended", desc, "a crawler descended during the setup")
    if ctx.i("phase") not in SETUP:
        lv, sm = ctx.a("level")[:n], ctx.a("small")[:n]
        if (lv < 1).any() or (sm < 1).any():
            ctx.fail("level", lv, "level discs start at 1 once the setup is over")


def zones(ctx):
    """Every sleeve in the pile its zone and owner name (once), the other
    zones without an owner; core sides and upgrades each in one place."""
    n = ctx.i("num_players")
    zone, owner = ctx.a("sl_zone"), ctx.a("sl_owner")
    seen = np.zeros(S, np.int64)
    for f, z in PILES:
        piles, counts = ctx.a(f), ctx.a(f + "_n")
        for p in range(P):
            k = int(counts[p])
            if k > piles.shape[1]:
                ctx.fail(f + "_n", k, f"more than the pile's {piles.shape[1]} slots")
            head, tail = piles[p, :k], piles[p, k:]
            if (tail != -1).any():
                ctx.fail(f, piles[p], f"seat {p}: slots beyond {f}_n = {k} must be -1")
            if (head < 0).any():
                ctx.fail(f, piles[p], f"seat {p}: an empty slot inside the pile")
            bad = (zone[head] != z) | (owner[head] != p)
            if bad.any():
                s = int(head[bad][0])
                ctx.fail(
                    "sl_zone",
                    zone[s],
                    f"sleeve {s} lies in seat {p}'s {f} but says "
                    f"zone {C.ZONE_NAMES[zone[s]]} of seat {owner[s]}",
                )
            np.add.at(seen, head, 1)
    in_pile = np.isin(zone, [z for _, z in PILES])
    if ((seen != 1) & in_pile).any() or ((seen != 0) & ~in_pile).any():
        s = int(np.flatnonzero(((seen != 1) & in_pile) | ((seen != 0) & ~in_pile))[0])
        ctx.fail("sl_zone", zone[s], f"sleeve {s} is in {int(seen[s])} piles")
    if (owner[in_pile] >= n).any():
        ctx.fail("sl_owner", owner, "a sleeve owned by a seat not at the table")
    # threat deck and dungeon: listed exactly where the zone says
    for f, z, cnt in (("tdeck", C.Z_TDECK, "tdeck_n"), ("dungeon", C.Z_DUNGEON, "dungeon_n")):
        arr, k = ctx.a(f), ctx.i(cnt)
        if (arr[k:] != -1).any() or (arr[:k] < 0).any():
            ctx.fail(f, arr, f"the first {cnt} = {k} slots hold sleeves, the rest -1")
        want = np.sort(np.flatnonzero(zone == z))
        if not np.array_equal(np.sort(arr[:k]), want):
            ctx.fail(f, arr, f"does not list exactly the sleeves in zone {C.ZONE_NAMES[z]}")
    if (ctx.a("dungeon")[: ctx.i("dungeon_n")] < BOSS0).any():
        ctx.fail("dungeon", ctx.a("dungeon"), "the dungeon deck holds only bosses")
    # core sides
    cz, slc = ctx.a("core_zone"), ctx.a("sl_core")
    where = np.zeros(C.NCORE, np.int64)
    live = slc >= 0
    np.add.at(where, slc[live], 1)
    if ((where > 0) != (cz == C.CZ_SLEEVE)).any() or (where > 1).any():
        c = int(np.flatnonzero(((where > 0) != (cz == C.CZ_SLEEVE)) | (where > 1))[0])
        ctx.fail("core_zone", cz[c], f"core {c} is in {int(where[c])} sleeves")
    cdeck, cdn = ctx.a("cdeck"), ctx.a("cdeck_n")
    inc = np.zeros(C.NCORE, np.int64)
    for d in range(C.MAX_LEVEL_DECK):
        k = int(cdn[d])
        if (cdeck[d, k:] != -1).any() or (cdeck[d, :k] < 0).any():
            ctx.fail("cdeck", cdeck[d], f"core deck {d + 1}: {k} cores, then -1")
        np.add.at(inc, cdeck[d, :k], 1)
    if ((inc > 0) != (cz == C.CZ_CDECK)).any() or (inc > 1).any():
        c = int(np.flatnonzero(((inc > 0) != (cz == C.CZ_CDECK)) | (inc > 1))[0])
        ctx.fail("core_zone", cz[c], f"core {c} is listed {int(inc[c])} times in the core decks")
    rv = ctx.a("reveal")
    inr = np.zeros(C.NCORE, np.int64)
    np.add.at(inr, rv[rv >= 0], 1)
    # kept this draft: sleeved (and the list cleared) when the draft ends; a game
    # truncated during the draft (e.g. at the bottom-order decision) keeps its list
    kp = ctx.a("draft_keep")
    np.add.at(inr, kp[kp >= 0], 1)
    if ((inr > 0) != (cz == C.CZ_REVEAL)).any() or (inr > 1).any():
        c = int(np.flatnonzero(((inr > 0) != (cz == C.CZ_REVEAL)) | (inr > 1))[0])
        ctx.fail("core_zone", cz[c], f"core {c} is revealed {int(inr[c])} times")
    # sleeves with a core are the crawlers' cards: in a pile, eliminated or descended
    if (live & ~in_pile & ~np.isin(zone, [C.Z_ELIM, C.Z_DESCENDED, C.Z_TROPHY])).any():
        s = int(
            np.flatnonzero(live & ~in_pile & ~np.isin(zone, [C.Z_ELIM, C.Z_DESCENDED, C.Z_TROPHY]))[
                0
            ]
        )
        ctx.fail("sl_core", slc[s], f"sleeve {s} with a core side lies in {C.ZONE_NAMES[zone[s]]}")
    # upgrades: deck, market or a cutout
    uz, ud, udn, mk = ctx.a("upg_zone"), ctx.a("udeck"), ctx.i("udeck_n"), ctx.a("market")
    if (ud[udn:] != -1).any() or (ud[:udn] < 0).any():
        ctx.fail("udeck", ud, f"the first udeck_n = {udn} slots hold upgrades, the rest -1")
    for arr, z, f in ((ud[:udn], 0, "udeck"), (mk[mk >= 0], 1, "market")):
        times = np.bincount(arr, minlength=C.NUPGRADE)
        if (times > 1).any() or ((times > 0) != (uz == z)).any():
            u = int(np.flatnonzero((times > 1) | ((times > 0) != (uz == z)))[0])
            ctx.fail(f, arr, f"upgrade {u}: zone {int(uz[u])} disagrees with the {f}")
    ups = ctx.a("sl_up")
    ups = ups[ups >= 0]
    if len(set(ups.tolist())) != ups.size or (uz[ups] != 2).any():
        ctx.fail("sl_up", ctx.a("sl_up"), "an upgrade sleeved twice, or sleeved and elsewhere")


def pending(ctx):
    """Pending op rows are rows of the content (card abilities, upgrades) or
    a basic spell."""
    T = ctx.T
    known = {tuple(r) for r in np.asarray(T.c_play).reshape(-1, C.OPW).tolist()}
    known |= {tuple(r) for r in np.asarray(T.c_exh).reshape(-1, C.OPW).tolist()}
    known |= {tuple(r) for r in np.asarray(T.u_ops).reshape(-1, C.OPW).tolist()}
    for cost in range(C.SPELL_DMG_COST + 1):
        known.add((C.OP_DAMAGE, 1, 0, C.CD_SPELL, cost, 0, C.WHO_SELF))
        known.add((C.OP_HEALTH, 1, 0, C.CD_SPELL, cost, 0, C.WHO_CHOOSE))
    for i, r in enumerate(ctx.a("pend").tolist()):
        if tuple(r) not in known:
            ctx.fail("pend", r, f"pending op {i} is no op of the content")


def campaign(ctx):
    """The campaign sheet in the record is one ``config.check_campaign``
    accepts: benefit circles within the table size's, deck lists only for
    seats at the table, listed first, each core once over both seats (a
    levelled one never back in the supply), a seat's starting and character
    cards its own crawler's; upgrades on listed entries, in their own
    cutout, fitting the card's type, each upgrade once."""
    T = ctx.T
    n = ctx.i("num_players")
    ben = ctx.a("camp_ben")
    nb = int(T.n_benefits)
    hi = np.zeros(C.MAX_BENEFITS, np.int64)
    hi[:nb] = np.asarray(T.be_circles)[:nb, n - 1]
    if (ben > hi).any():
        b = int(np.flatnonzero(ben > hi)[0])
        ctx.fail("camp_ben", ben, f"benefit {b} has {int(hi[b])} circles at {n} seat(s)")
    deck, upg = ctx.a("camp_deck"), ctx.a("camp_upg")
    if (deck[n:] != -1).any() or (upg[n:] != -1).any():
        ctx.fail("camp_deck", deck, f"a deck list for a seat not at the table ({n} seat(s))")
    listed = deck[deck >= 0]
    if len(set(listed.tolist())) != listed.size:
        ctx.fail("camp_deck", deck, "a core card listed twice")
    cr = ctx.a("crawler")
    owner = np.asarray(T.c_crawler)
    for p in range(n):
        k = int((deck[p] >= 0).sum())
        if (deck[p, :k] < 0).any():
            ctx.fail("camp_deck", deck[p], f"seat {p}: the deck list has a gap")
        own = owner[deck[p, :k]]
        if ((own >= 0) & (own != cr[p])).any():
            ctx.fail("camp_deck", deck[p], f"seat {p}: another crawler's starting card")
        for e in range(C.CAMP_DECK):
            for cut in range(2):
                u = int(upg[p, e, cut])
                if u < 0:
                    continue
                if e >= k:
                    ctx.fail("camp_upg", upg[p], f"seat {p}: an upgrade on empty entry {e}")
                typ, req = int(T.c_type[deck[p, e]]), int(T.u_req[u])
                if (
                    int(T.u_cutout[u]) != cut
                    or (req == 1 and typ != C.TACTIC)
                    or (req == 2 and typ != C.ALLY)
                ):
                    ctx.fail("camp_upg", upg[p], f"seat {p}: upgrade {u} does not fit entry {e}")
    ups = upg[upg >= 0]
    if len(set(ups.tolist())) != ups.size:
        ctx.fail("camp_upg", upg, "an upgrade listed twice")
    lev = listed[listed < C.NCORE_LEVELED]
    cz = ctx.a("core_zone")[lev]
    if np.isin(cz, [C.CZ_CDECK, C.CZ_REVEAL]).any():
        ctx.fail("core_zone", cz, "a core card of a deck list is in the supply")


def scoring(ctx):
    """The XP the end of the game pays is the rules': ``bosses`` counts and
    ``boss_xp`` sums the bosses in the trophy piles, ``quests_done`` and
    ``quest_xp`` the quests drawn and finished (a record claiming more could
    pay a reward outside the declared range)."""
    T = ctx.T
    trophy = np.flatnonzero(ctx.a("sl_zone")[: C.NTHREAT] == C.Z_TROPHY)
    if (trophy < BOSS0).any():
        ctx.fail("sl_zone", ctx.a("sl_zone"), "only bosses go to a trophy pile")
    kinds = np.bincount(np.asarray(T.t_boss_kind)[trophy], minlength=len(ctx.a("bosses")))
    if not np.array_equal(kinds[: len(ctx.a("bosses"))], ctx.a("bosses")):
        ctx.fail(
            "bosses", ctx.a("bosses"), f"the trophy piles hold {kinds.tolist()} bosses by kind"
        )
    want = int(np.asarray(T.t_xp, np.int64)[trophy].sum())
    if ctx.i("boss_xp") != want:
        ctx.fail("boss_xp", ctx.i("boss_xp"), f"the trophy bosses are worth {want} XP")
    nxt, q = ctx.i("quest_next"), ctx.i("quest")
    order = ctx.a("quest_order")
    nq = int(T.n_quests)
    if ctx.i("cfg_floor") == C.NFLOOR:
        if sorted(order[:nq].tolist()) != list(range(nq)) or (order[nq:] != -1).any():
            ctx.fail("quest_order", order, f"Floor 3 shuffles the {nq} quests")
    elif (order != -1).any() or nxt or q >= 0:
        ctx.fail("quest_order", order, "quests are drawn on Floor 3 only")
    if q >= 0 and (nxt < 1 or int(order[nxt - 1]) != q):
        ctx.fail("quest", q, "the active quest is not the last one drawn")
    done = [int(x) for x in order[:nxt] if int(x) != q]
    if ctx.i("quests_done") != len(done):
        ctx.fail("quests_done", ctx.i("quests_done"), f"{len(done)} quests drawn and finished")
    xp = sum(int(T.q_xp[int(T.quest_first[d]) + int(T.quest_nparts[d]) - 1]) for d in done)
    if ctx.i("quest_xp") != xp:
        ctx.fail("quest_xp", ctx.i("quest_xp"), f"the finished quests are worth {xp} XP")


def quests(ctx):
    """The quest under way is the last one drawn from the quest order, on
    one of its own parts (the part index reaches the part count only as the
    quest is finished, and then no quest is under way)."""
    q = ctx.i("quest")
    if q < 0:
        return
    nxt = ctx.i("quest_next")
    if nxt < 1 or int(ctx.a("quest_order")[nxt - 1]) != q:
        ctx.fail("quest", q, f"the quest under way is not the last one drawn (quest_next = {nxt})")
    parts = int(ctx.T.quest_nparts[q])
    if ctx.i("quest_part") >= parts:
        ctx.fail("quest_part", ctx.i("quest_part"), f"quest {q} has parts 0..{parts - 1}")


CROSS_RULES = (flow, seats, zones, pending, campaign, scoring, quests)


#: record fields that hold the configuration (the config vector's entries)
CONFIG_FIELDS = (
    ("cfg_floor", C.CFG_FLOOR),
    ("cfg_difficulty", C.CFG_DIFFICULTY),
    ("cfg_mode", C.CFG_MODE),
    ("cfg_crawler", C.CFG_CRAWLER),
)
#: the names of the configuration values (races, classes and crawlers: the content's)
CONFIG_NAMES = {"cfg_difficulty": C.DIFFICULTIES, "cfg_mode": C.MODES}
CONFIG_NAMES["reward_mode"] = C.REWARD_MODES
RC_WORDS = {C.RC_DRAFT: "draft", C.RC_PRESET: "preset", C.RC_NONE: "none"}


def check_config(s, core) -> None:
    """A record made under another floor, difficulty, mode, crawler, race /
    class setting, reward mode, step cap or auto-advance setting than
    ``core``'s raises ``SnapshotError`` naming the field and both values
    (``KernelCore.check_state`` calls it after the rules)."""
    cfg, content = core.cfg, core.content
    want = {f: cfg[i] for f, i in CONFIG_FIELDS}
    want.update(reward_mode=core.reward_mode, max_steps=core.max_steps)
    want["auto_advance"] = core.auto_advance
    for p in range(C.NPLAYERS_MAX):
        want[f"cfg_race[{p}]"] = cfg[C.CFG_RACE0 + p]
        want[f"cfg_class[{p}]"] = cfg[C.CFG_CLASS0 + p]
    names = dict(CONFIG_NAMES, cfg_crawler=content.crawler_names)
    names["cfg_race"] = {**dict(enumerate(content.race_names)), **RC_WORDS}
    names["cfg_class"] = {**dict(enumerate(content.class_names)), **RC_WORDS}
    check_config_fields(s, want, names)
