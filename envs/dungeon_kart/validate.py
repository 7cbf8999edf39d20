"""Valid values of every Dungeon Kart state field (``state.py``), as data,
and the cross-field rules; ``KernelCore.check_state`` proves a record is one the
rules could reach, or raises
:class:`~dungeonrl.envs.core.errors.CorruptStateError` naming the field and the
value.

The engine header's fields are declared once in
:mod:`dungeonrl.envs.core.validate`; this module gives the game's parameters
for them (:data:`PARAMS`) and its own fields (:data:`FIELD_RULES`). Zones:
every spell card is in exactly one of its deck's draw pile, its deck's
discard pile or one seat's hand. Used at ``set_state`` time only, never per
step.
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.header import O_TRUNCATED
from ..core.validate import FLAG, OneOf, Prefix, R, turn_flow
from . import consts as C
from .hexgeo import NCELL

INT16_MAX = 2**15 - 1
INT32_MAX = 2**31 - 1
P = C.MAX_P
PIPS = np.array(C.TERRAIN_PIPS, np.int64)
#: coins gained per step are a few (hex coins, Smash, Crystal, Gift, Steal);
#: the cap keeps ``coins += a`` far from the int16 limit
COIN_MAX = 20_000
#: MP in one turn: a dial value plus spells, powers, Smash faces (all <= 9 each)
MP_MAX = 2_000

#: the game's name in error messages
GAME = "Dungeon Kart"

#: configurations whose records the fuzzers corrupt and restore
#: (``dungeonrl.benchmarks.fuzz``, ``tests/untrusted/test_hardening.py``)
FUZZ_CONFIGS = (
    {"num_players": 2},
    {"num_players": 4, "auto_advance": False},
    {"num_players": 6, "draft": "random"},
)

PARAMS = {
    "forced_lo": 0,
    "forced_hi": 127,  # below(n) results and d6 faces share the queue
    "min_players": C.MIN_P,
    "max_players": C.MAX_P,
    "max_reward_mode": len(C.REWARD_MODES) - 1,
    "max_outcome": C.O_RACE_OVER,
}


def _seat(ctx):
    """num_players - 1"""
    return ctx.i("num_players") - 1


def _n(ctx):
    """num_players"""
    return ctx.i("num_players")


def _last_card(ctx):
    """n_cards - 1"""
    return int(ctx.T.n_cards) - 1


def _last_track(ctx):
    """n_tracks - 1"""
    return int(ctx.T.n_tracks) - 1


def _max_rounds(ctx):
    """max_rounds"""
    return ctx.i("max_rounds")


def _bag_size(ctx):
    """bag_size"""
    return int(ctx.T.bag_size)


def _all_tiles(ctx):
    """2**n_tiles(track) - 1"""
    t = int(ctx.s["track"])
    return (1 << int(ctx.T.tr_ntiles[t])) - 1


#: field -> rule, for every field of ``STATE_DTYPE`` that is not a header field
FIELD_RULES = {
    # flow
    "phase": R(0, len(C.PHASE_NAMES) - 1),
    "round": R(0, _max_rounds),
    "first": R(0, _seat),
    "turn_k": R(0, _n),
    "cur": R(0, _seat),
    "freeze_k": R(0, _n),
    "final_round": FLAG,
    "finish_seq": R(0, _n),
    # configuration
    "track": R(0, _last_track),
    "draft_mode": OneOf(C.DRAFT_PICK, C.DRAFT_RANDOM),
    "max_rounds": R(1, 10_000),
    # draft
    "offer": R(-1, max(C.NRACER, C.NDASH) - 1),
    "offer_n": R(0, P + 1),
    "draft_k": R(0, P),
    # racers
    "racer": R(-1, C.NRACER - 1),
    "dash": R(-1, C.NDASH - 1),
    "pos": R(-1, NCELL - 1),
    "prev": R(-1, NCELL - 1),
    "facing": R(0, 5),
    "speed": R(0, C.NSET),
    "coins": R(0, COIN_MAX),
    "spell": R(-1, _last_card),
    "marker": FLAG,
    "crashed": FLAG,
    "frozen": FLAG,
    "finished": FLAG,
    "finish_mp": R(0, MP_MAX),
    "finish_no": R(0, _n),
    "visited": R(0, _all_tiles),
    "place": R(0, _n),
    "pw_used": FLAG,
    # the current turn
    "mp": R(0, MP_MAX),
    "turn_used": FLAG,
    "drift_used": FLAG,
    "brake_used": FLAG,
    "extra_turns": R(0, 2),  # one per power, each power once a round
    "extra_drifts": R(0, 2),
    "bumped": R(0, 2**P - 1),
    "rebump": OneOf(0),  # no rule sets it (the rebump power clears ``bumped``)
    "acted": FLAG,
    "no_cast": FLAG,
    "pen_worst": R(1, C.NO_PENALTY),
    "tail_mp": R(0, 9 * C.NDECK * 8),
    "move_over": FLAG,
    "ended_ok": FLAG,
    # board
    "tok": R(0, C.NTOK - 1),
    "grass": FLAG,
    # spells and hazards
    "deck": R(-1, _last_card),
    "deck_n": R(0, C.DECK_MAX),
    "disc": R(-1, _last_card),
    "disc_n": R(0, C.DECK_MAX),
    "bag": Prefix("bag_n", 1, C.NTOK - 1, fill=0),
    "bag_n": R(0, _bag_size),
    "last_smash": R(0, 6),
    "last_boost": R(0, 6),
}

DRAFT = (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH)
TURN = (C.PH_FACING, C.PH_SPEED, C.PH_MOVE)


# --- cross-field rules --------------------------------------------------------------------
def flow(ctx):
    over = turn_flow(ctx, C.PHASE_NAMES, C.PH_OVER, "race")
    ph, out, actor = ctx.i("phase"), ctx.i("outcome"), ctx.i("actor")
    if not over and actor != ctx.i("cur"):
        ctx.fail("actor", actor, f"the deciding seat is cur = {ctx.i('cur')}")
    rnd, mr = ctx.i("round"), ctx.i("max_rounds")
    if not over and rnd >= mr:
        ctx.fail("round", rnd, f"a running race at its round cap {mr}")
    if out == C.O_RACE_OVER and not ctx.i("final_round"):
        ctx.fail("final_round", 0, "the race ended as finished before anyone crossed the line")
    if out == O_TRUNCATED and ctx.i("steps") != ctx.i("max_steps") and rnd != mr:
        ctx.fail("outcome", out, "truncated before the step cap and the round cap")
    if ctx.i("draft_mode") == C.DRAFT_RANDOM and ph in DRAFT:
        ctx.fail("phase", ph, "a draft phase with the random draft")
    if ph == C.PH_FREEZE:
        n, fk = ctx.i("num_players"), ctx.i("freeze_k")
        if fk >= n or ctx.i("turn_k"):
            ctx.fail("freeze_k", fk, "the Freeze scan runs before the round's first turn")
        if (ctx.i("first") + fk) % n != ctx.i("cur"):
            ctx.fail("cur", ctx.i("cur"), f"Freeze scan step {fk} is not seat {ctx.i('cur')}'s")
    if ph in TURN:
        n = ctx.i("num_players")
        if ctx.i("turn_k") >= n or ctx.i("freeze_k") != n:
            ctx.fail("turn_k", ctx.i("turn_k"), "a turn outside the round's turn order")
        cur = ctx.i("cur")
        if (ctx.i("first") + ctx.i("turn_k")) % n != cur:
            ctx.fail(
                "cur",
                cur,
                f"turn {ctx.i('turn_k')} of the round after first seat "
                f"{ctx.i('first')} is not seat {cur}'s",
            )
        if ctx.a("finished")[cur]:
            ctx.fail("cur", cur, "a finished Racer takes no turn")
        if ph == C.PH_FACING and not ctx.a("crashed")[cur]:
            ctx.fail("crashed", 0, "the facing choice follows a Crash")
        if ph != C.PH_MOVE and (
            ctx.i("acted")
            or ctx.i("move_over")
            or ctx.i("turn_used")
            or ctx.i("drift_used")
            or ctx.i("brake_used")
            or ctx.i("bumped")
        ):
            ctx.fail("acted", ctx.i("acted"), "movement actions before the speed change")
        if ph == C.PH_MOVE and ctx.i("move_over"):
            ctx.fail("move_over", 1, "a move decision after the movement ended")
    if ph == C.PH_MOVE:
        n = ctx.i("num_players")
        if ctx.i("bumped") >> n:
            ctx.fail("bumped", ctx.i("bumped"), f"bumped seats beyond the {n} at the table")
        extra_grants(ctx)
    elif ph != C.PH_OVER:
        for f, v in (
            ("mp", None),
            ("turn_used", 0),
            ("drift_used", 0),
            ("brake_used", 0),
            ("extra_turns", 0),
            ("extra_drifts", 0),
            ("bumped", 0),
            ("acted", 0),
            ("no_cast", 0),
            ("pen_worst", C.NO_PENALTY),
            ("move_over", 0),
            ("ended_ok", 0),
        ):
            if v is not None and ctx.i(f) != v:
                ctx.fail(f, ctx.i(f), f"turn field outside a turn's movement must be {v}")


def extra_grants(ctx):
    """The turn's extra turns and drifts come from the mover's powers used
    this round (each once a round, one extra each): no more of them than
    such powers used (a record with more failed only when the next power
    pushed the count past its range)."""
    cur = ctx.i("cur")
    racer = int(ctx.a("racer")[cur])
    if racer < 0:
        return
    used = np.asarray(ctx.a("pw_used")[cur], np.int64)
    effects = np.asarray(ctx.T.pw_effect[racer], np.int64)
    for f, effect in (("extra_turns", C.PW_EXTRA_TURN), ("extra_drifts", C.PW_EXTRA_DRIFT)):
        granted = int(((effects == effect) & (used != 0)).sum())
        if ctx.i(f) > granted:
            ctx.fail(f, ctx.i(f), f"more than the {granted} granted by powers used this round")


def before_race(ctx) -> bool:
    """The record is of a race not started yet: a draft phase, or a game
    that ended during the draft (an illegal action, the step cap)."""
    ph, n = ctx.i("phase"), ctx.i("num_players")
    if ph in DRAFT:
        return True
    unplaced = (ctx.a("racer")[:n] < 0).any() or (ctx.a("dash")[:n] < 0).any()
    return ph == C.PH_OVER and bool(unplaced)


#: fields that hold the reset's value until the race starts (the draft
#: changes none of them), with that value
DRAFT_GLOBALS = (
    ("round", 0),
    ("turn_k", 0),
    ("freeze_k", 0),
    ("finish_seq", 0),
    ("final_round", 0),
    ("mp", 0),
    ("tail_mp", 0),
    ("last_smash", 0),
    ("last_boost", 0),
)


def draft_globals(ctx):
    """Before the race starts, every field of the race holds the reset's
    value: checked here, for the record as given, not when the first turn
    would read it (a draft record with ``final_round`` set was accepted
    and failed only after the draft)."""
    if not before_race(ctx):
        return
    for f, v in DRAFT_GLOBALS:
        if ctx.i(f) != v:
            ctx.fail(
                f, ctx.i(f), f"must be {v} before the race starts (the draft does not change it)"
            )
    if ctx.a("grass").any():
        c = int(np.flatnonzero(ctx.a("grass"))[0])
        ctx.fail("grass", ctx.a("grass")[c], f"Overgrowth on hex {c} before the race starts")
    if ctx.a("disc_n").any():
        ctx.fail("disc_n", ctx.a("disc_n"), "a spell discarded before the race starts")


def seats(ctx):
    """Seats beyond the table stay as the reset left them; racers in the race
    stand on drivable hexes of their track."""
    n = ctx.i("num_players")
    empty = {
        "racer": -1,
        "dash": -1,
        "pos": -1,
        "prev": -1,
        "facing": 0,
        "speed": 0,
        "coins": 0,
        "spell": -1,
        "marker": 0,
        "crashed": 0,
        "frozen": 0,
        "finished": 0,
        "finish_mp": 0,
        "finish_no": 0,
        "visited": 0,
        "place": 0,
        "pw_used": 0,
    }
    ctx.seats_left_empty(empty, n)
    ph = ctx.i("phase")
    T, tk = ctx.T, ctx.i("track")
    racer, dash = ctx.a("racer")[:n], ctx.a("dash")[:n]
    if ph in DRAFT:
        if ph == C.PH_DRAFT_DASH and (racer < 0).any():
            ctx.fail("racer", racer, "the dashboard draft follows the racer draft")
        # the race fields stay as the reset left them until the karts are placed
        for f, v in (
            ("dash", -1),
            ("pos", -1),
            ("prev", -1),
            ("facing", 0),
            ("speed", 0),
            ("coins", 0),
            ("spell", -1),
            ("marker", 0),
            ("crashed", 0),
            ("frozen", 0),
            ("finished", 0),
            ("finish_mp", 0),
            ("finish_no", 0),
            ("visited", 0),
            ("place", 0),
            ("pw_used", 0),
        ):
            if (ctx.a(f)[:n] != v).any() and not (f == "dash" and ph == C.PH_DRAFT_DASH):
                ctx.fail(f, ctx.a(f)[:n], f"must be {v} during the draft")
        for f, a, hi in (("racer", racer, C.NRACER), ("dash", dash, C.NDASH)):
            got = a[a >= 0]
            if len(set(got.tolist())) != got.size:
                ctx.fail(f, a, "two seats drafted the same id")
            if hi == C.NDASH and ph == C.PH_DRAFT_RACER and got.size:
                ctx.fail(f, a, "dashboards before the racer draft ended")
        return
    if ph == C.PH_OVER and ((racer < 0).any() or (dash < 0).any()):
        return  # the game ended during the draft (an illegal action, the step cap)
    # the race: every seat drafted and placed
    for f, a in (("racer", racer), ("dash", dash)):
        if (a < 0).any() or len(set(a.tolist())) != n:
            ctx.fail(f, a, "each seat holds its own drafted id once the race runs")
    fin = ctx.a("finished")[:n]
    pos, prev = ctx.a("pos")[:n], ctx.a("prev")[:n]
    speed = ctx.a("speed")[:n]
    if ((speed < 1) | (speed > C.NSET)).any():
        ctx.fail("speed", speed, f"a racing kart's speed setting is 1..{C.NSET}")
    terr = np.asarray(T.tr_terr[tk], np.int64)
    for s in range(n):
        if fin[s]:
            if pos[s] != -1:
                ctx.fail("pos", pos[s], f"finished Racer {s} is off the board (-1)")
            continue
        for f, c in (("pos", pos[s]), ("prev", prev[s])):
            if not 0 <= c < NCELL or terr[c] == C.T_OFF:
                ctx.fail(f, c, f"Racer {s} is not on a hex of track {tk}")
        if PIPS[terr[pos[s]]] == 0:
            ctx.fail("pos", pos[s], f"Racer {s} stands on impassable terrain")
        if ctx.a("spell")[s] >= 0 and ctx.a("marker")[s]:
            ctx.fail("marker", 1, f"Racer {s} holds a spell card and a marker")
    k = int(fin.sum())
    if k != ctx.i("finish_seq"):
        ctx.fail("finish_seq", ctx.i("finish_seq"), f"{k} Racers have finished")
    if ctx.i("final_round") != (k > 0):
        ctx.fail(
            "final_round", ctx.i("final_round"), "the final round starts with the first finish"
        )
    no = ctx.a("finish_no")[:n]
    if sorted(no[fin == 1].tolist()) != list(range(1, k + 1)) or (no[fin == 0] != 0).any():
        ctx.fail("finish_no", no, "finishers are numbered 1..finish_seq in crossing order")
    if (ctx.a("finish_mp")[:n][fin == 0] != 0).any():
        ctx.fail("finish_mp", ctx.a("finish_mp")[:n], "MP left is kept only by finishers")
    place = ctx.a("place")[:n]
    if ((place < 1) | (place > n)).any():
        ctx.fail("place", place, f"a Placement spot is 1..{n}")
    if (ctx.a("visited")[:n] & 1 == 0).any():
        ctx.fail("visited", ctx.a("visited")[:n], "every kart starts on route tile 0")


def board(ctx):
    """Tokens and Overgrowth lie on hexes of the track."""
    terr = np.asarray(ctx.T.tr_terr[ctx.i("track")], np.int64)
    off = terr == C.T_OFF
    for f in ("tok", "grass"):
        v = ctx.a(f)
        if (v[off] != 0).any():
            c = int(np.flatnonzero(off & (v != 0))[0])
            ctx.fail(f, v[c], f"hex {c} is not on the track")


def zones(ctx):
    """Every spell card in exactly one place: its deck's draw or discard pile,
    or one seat's hand."""
    T = ctx.T
    nc = int(T.n_cards)
    where = np.zeros(nc, np.int64)
    deck, disc = ctx.a("deck"), ctx.a("disc")
    for f, piles, counts in (("deck", deck, ctx.a("deck_n")), ("disc", disc, ctx.a("disc_n"))):
        for d in range(C.NDECK):
            k = int(counts[d])
            if (piles[d, k:] != -1).any():
                ctx.fail(
                    f, piles[d], f"deck {C.DECK_NAMES[d]}: slots beyond {f}_n = {k} must be -1"
                )
            head = piles[d, :k]
            if (head < 0).any():
                ctx.fail(f, piles[d], f"deck {C.DECK_NAMES[d]}: an empty slot inside the pile")
            if (np.asarray(T.card_deck)[head] != d).any():
                ctx.fail(
                    f, piles[d], f"a card in deck {C.DECK_NAMES[d]}'s piles belongs to another deck"
                )
            np.add.at(where, head, 1)
    hand = ctx.a("spell")
    np.add.at(where, hand[hand >= 0], 1)
    if (where != 1).any():
        c = int(np.flatnonzero(where != 1)[0])
        ctx.fail("spell", c, f"spell card {c} is in {int(where[c])} places (must be one)")


def draft(ctx):
    """The draft's offer row."""
    ph, n = ctx.i("phase"), ctx.i("num_players")
    offer, k = ctx.a("offer"), ctx.i("offer_n")
    if ph == C.PH_OVER and ((ctx.a("racer")[:n] < 0).any() or (ctx.a("dash")[:n] < 0).any()):
        return  # the game ended during the draft: its offer row stays as it was
    if ph not in DRAFT:
        if k or (offer != -1).any():
            ctx.fail("offer", offer, "no offer outside the draft")
        want = n if ctx.i("draft_mode") == C.DRAFT_PICK else 0
        if ctx.i("draft_k") != want:
            ctx.fail("draft_k", ctx.i("draft_k"), f"the finished draft leaves draft_k = {want}")
        return
    hi = C.NRACER if ph == C.PH_DRAFT_RACER else C.NDASH
    want = n + 1 if ph == C.PH_DRAFT_RACER else min(n + 1, C.NDASH)
    if k != want:
        ctx.fail("offer_n", k, f"the draft lays out {want} ids")
    if (offer[k:] != -1).any() or (offer[:k] >= hi).any():
        ctx.fail("offer", offer, f"offer ids are 0..{hi - 1} in the first {k} slots")
    left = offer[:k][offer[:k] >= 0]
    dk = ctx.i("draft_k")
    if dk >= n or left.size != k - dk or len(set(left.tolist())) != left.size:
        ctx.fail("draft_k", dk, f"{dk} picks leave {k - dk} distinct ids on offer")
    first = ctx.i("first")
    picker = (first + dk) % n if ph == C.PH_DRAFT_RACER else (first + n - 1 - dk) % n
    if ctx.i("cur") != picker:
        ctx.fail("cur", ctx.i("cur"), f"pick {dk} of the draft is seat {picker}'s")
    own = ctx.a("racer" if ph == C.PH_DRAFT_RACER else "dash")[:n]
    taken = own[own >= 0]
    if taken.size != dk or set(taken.tolist()) & set(left.tolist()):
        ctx.fail(
            "racer" if ph == C.PH_DRAFT_RACER else "dash",
            own,
            f"{dk} picks made, none of them still on offer",
        )


CROSS_RULES = (flow, draft_globals, seats, board, zones, draft)
