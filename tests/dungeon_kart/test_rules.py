"""Dungeon Kart rule scenarios at row level (no engine): hand-built small
boards, forced dice, the rulebook's worked examples, and a random-play soak
with an independent invariant checker."""

import numpy as np
import pytest
from helpers.kart_util import (
    check_invariants,
    content,
    greedy,
    legal,
    new_state,
    step,
    stopped_apart,
)

from dungeonrl.envs.core.kernel import chance
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart import hexgeo as H
from dungeonrl.envs.dungeon_kart import rules as R

LINE = "name: Line\ndir: E\n1 2 . . m m . . . ."
TWO = "name: Two\ndir: E\n1 . g . . .\n 2 3 . . . ."
LAVA = "name: Lava\ndir: E\n1 . L . . .\n 2 3 . . . ."
BOOK = "name: Book\ndir: E\n1 2 . S . . . ."
COIN = "name: Coin\ndir: E\n1 2 $ S . . . ."
WIDE = "name: Wide\ndir: E\n1 2 . . . .\n 3 4 . . . ."
BOARDS = (LINE, TWO, LAVA, BOOK, COIN, WIDE)
PLAIN, TRACTION, HANDLING, HEAVY = 6, 1, 2, 3  # dashboard ids (see dashboards.toml)


@pytest.fixture(scope="module")
def ct():
    return content(BOARDS)


def tidx(ct, name):
    return ct.track_index(name)


def cell(ct, name, q, r):
    tr = ct.tracks[tidx(ct, name)]
    oq, orr = tr.offset
    return (r + orr) * H.BOARD_W + q + oq


def board(ct, name, n=2, seed=0, **kw):
    return new_state(n, seed=seed, track=tidx(ct, name), ct=ct, **kw)


def put(s, ct, name, p, q, r, facing=H.E, speed=3, dash=PLAIN, coins=0):
    st = s[0]
    st["pos"][p] = cell(ct, name, q, r)
    st["facing"][p] = facing
    st["speed"][p] = speed
    st["dash"][p] = dash
    st["coins"][p] = coins
    st["crashed"][p] = 0


def begin_move(s, p, mp):
    st = s[0]
    R._clear_turn(st)
    st["phase"] = C.PH_MOVE
    st["cur"] = p
    st["actor"] = p
    st["mp"] = mp
    # p takes the first turn of the round
    st["turn_k"] = (p - int(st["first"])) % int(st["num_players"])
    st["freeze_k"] = st["num_players"]


def racer_id(ct, name):
    return ct.racer_names.index(name)


# ------------------------------------------------------------------ speed (DK-067..071)
@pytest.mark.parametrize(
    "speed,frozen,legal_deltas", [(1, 0, {0, 1}), (3, 0, {-1, 1}), (6, 0, {-1, 0}), (4, 1, {0})]
)
def test_speed_change_choices(ct, speed, frozen, legal_deltas):
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    assert s[0]["phase"] == C.PH_SPEED
    s[0]["speed"][p] = speed
    s[0]["frozen"][p] = frozen
    m = legal(s, ct)
    got = {d - 1 for d in range(3) if m[C.A_SPEED + d]}
    assert got == legal_deltas
    d = max(legal_deltas)
    step(s, C.A_SPEED + d + 1, ct)
    assert s[0]["speed"][p] == speed + d
    assert s[0]["mp"] == ct.tables.dash_mp[s[0]["dash"][p], speed + d - 1]  # DK-071


# ------------------------------------------------------------------ worked examples
def test_mud_shortcut_and_last_hex_allowance(ct):
    """DK-140: 4 MP, mud (3) then a second mud hex with the last 1 MP; the turn
    ends there and the speed drops to the Mud marker."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    put(s, ct, "Line", p, 3, 0, speed=5)
    put(s, ct, "Line", 1 - p, 0, 0)
    begin_move(s, p, 4)
    step(s, C.A_MOVE, ct)
    assert s[0]["mp"] == 1 and s[0]["pos"][p] == cell(ct, "Line", 4, 0)
    assert legal(s, ct)[C.A_MOVE]  # DK-085, DK-091
    step(s, C.A_MOVE, ct)
    assert s[0]["pos"][p] == cell(ct, "Line", 5, 0)
    assert s[0]["cur"] != p  # DK-086..088: the turn is over
    assert s[0]["crashed"][p] == 0  # not a Crash
    assert s[0]["speed"][p] == ct.tables.dash_pen[PLAIN, C.T_MUD]  # DK-134, DK-138


def test_leaving_mud_pays_road_and_takes_no_mud_penalty(ct):
    """DK-137, DK-141."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    put(s, ct, "Line", p, 5, 0, speed=4)
    put(s, ct, "Line", 1 - p, 0, 0)
    begin_move(s, p, 1)
    step(s, C.A_MOVE, ct)
    assert s[0]["mp"] == 0
    step(s, C.A_END, ct)
    assert s[0]["speed"][p] == 4 and s[0]["crashed"][p] == 0


def test_zero_mp_cannot_enter(ct):
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    put(s, ct, "Line", p, 2, 0)
    put(s, ct, "Line", 1 - p, 0, 0)
    begin_move(s, p, 0)
    m = legal(s, ct)
    assert not m[C.A_MOVE] and not m[C.A_DRIFT_L] and m[C.A_END]  # DK-090


@pytest.mark.parametrize("dash,cost", [(PLAIN, 1), (HANDLING, 0)])
def test_turn_cost_handling(ct, dash, cost):
    """DK-058, DK-095, DK-096: 1 MP even in a 3-pip hex; 0 with Handling."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    put(s, ct, "Line", p, 4, 0, dash=dash)
    put(s, ct, "Line", 1 - p, 0, 0)
    begin_move(s, p, 5)
    step(s, C.A_TURN_R, ct)
    assert s[0]["mp"] == 5 - cost and s[0]["facing"][p] == H.SE
    m = legal(s, ct)
    assert not m[C.A_TURN_L] and not m[C.A_TURN_R]  # DK-094: once per turn


def test_extra_turn_from_a_power_costs_one_even_with_handling(ct):
    """DK-059 (Porkus' upper power)."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    put(s, ct, "Line", p, 4, 0, dash=HANDLING, coins=2)
    s[0]["racer"][p] = racer_id(ct, "Porkus")
    put(s, ct, "Line", 1 - p, 0, 0)
    begin_move(s, p, 5)
    step(s, C.A_TURN_R, ct)
    assert s[0]["mp"] == 5
    step(s, C.A_POWER + 0, ct)
    assert s[0]["coins"][p] == 0 and s[0]["pw_used"][p, 0] == 1
    step(s, C.A_TURN_L, ct)
    assert s[0]["mp"] == 4 and s[0]["facing"][p] == H.E
    assert not legal(s, ct)[C.A_POWER + 0]  # DK-203


@pytest.mark.parametrize("dash,cost", [(PLAIN, 2), (TRACTION, 1)])
def test_drift_cost_traction(ct, dash, cost):
    """DK-097, DK-100, DK-101: drift left into grass."""
    s = board(ct, "Two", n=3)
    p = int(s[0]["actor"])
    for o in range(3):
        put(s, ct, "Two", o, 0, o % 2 + (o == 2) * 0, facing=H.E)
    put(s, ct, "Two", p, 1, 1, dash=dash)
    others = [o for o in range(3) if o != p]
    put(s, ct, "Two", others[0], 0, 0)
    put(s, ct, "Two", others[1], 0, 1)
    begin_move(s, p, 5)
    step(s, C.A_DRIFT_L, ct)
    assert s[0]["pos"][p] == cell(ct, "Two", 2, 0) and s[0]["facing"][p] == H.E
    assert s[0]["mp"] == 5 - cost
    assert not legal(s, ct)[C.A_DRIFT_R]  # DK-098


def test_power_drift_ignores_traction(ct):
    """DK-062: Croak's extra Drift pays the hex's pips even with Traction."""
    s = board(ct, "Two", n=3)
    p = int(s[0]["actor"])
    others = [o for o in range(3) if o != p]
    put(s, ct, "Two", others[0], 0, 0)
    put(s, ct, "Two", others[1], 0, 1)
    put(s, ct, "Two", p, 0, 1, dash=TRACTION, coins=2)
    s[0]["racer"][p] = racer_id(ct, "King Croak")
    s[0]["pos"][p] = cell(ct, "Two", 1, 0)
    begin_move(s, p, 6)
    step(s, C.A_DRIFT_R, ct)  # (1,0) -> (1,1) road, Traction: 1
    assert s[0]["mp"] == 5
    step(s, C.A_POWER + 0, ct)  # upper: extra Drift
    step(s, C.A_DRIFT_L, ct)  # (1,1) -> (2,0) grass: 2 pips
    assert s[0]["mp"] == 3


def test_bump_into_the_barrier(ct):
    """DK-110, DK-111, DK-116: the bumped kart stays and Crashes; the bumper
    needs MP to leave the shared hex afterwards."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    o = 1 - p
    put(s, ct, "Line", p, 2, 0)
    put(s, ct, "Line", o, 2, 0, speed=4)
    begin_move(s, p, 1)
    m = legal(s, ct)
    assert not m[C.A_BUMP + 0]  # 1 MP: nothing left to exit
    assert m[C.A_BUMP + 1]  # ahead is free
    assert not m[C.A_END]  # may not stop on a kart
    begin_move(s, p, 2)
    step(s, C.A_BUMP + 0, ct)  # forward-left: the barrier
    assert s[0]["pos"][o] == cell(ct, "Line", 2, 0)
    assert s[0]["speed"][o] == 1 and s[0]["crashed"][o] == 1
    assert s[0]["mp"] == 1 and s[0]["cur"] == p
    m = legal(s, ct)
    assert not m[C.A_BUMP : C.A_BUMP + 3].any()  # DK-108: once per opponent
    step(s, C.A_MOVE, ct)
    assert s[0]["pos"][p] == cell(ct, "Line", 3, 0)


def test_bump_into_mud_drops_speed_at_once_and_heavy_is_free(ct):
    """DK-060, DK-112, DK-115."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    o = 1 - p
    put(s, ct, "Line", p, 3, 0, dash=HEAVY)
    put(s, ct, "Line", o, 3, 0, speed=5)
    begin_move(s, p, 1)
    step(s, C.A_BUMP + 1, ct)
    assert s[0]["pos"][o] == cell(ct, "Line", 4, 0)
    assert s[0]["speed"][o] == ct.tables.dash_pen[PLAIN, C.T_MUD]
    assert s[0]["mp"] == 1


def test_wall_crash_with_mp_left_and_free_facing(ct):
    """DK-183, DK-187, DK-127: Move into the wall with 3 MP left."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    put(s, ct, "Line", p, 3, 0, facing=H.NE, speed=4)
    put(s, ct, "Line", 1 - p, 0, 0)
    begin_move(s, p, 3)
    step(s, C.A_MOVE, ct)
    st = s[0]
    assert st["pos"][p] == cell(ct, "Line", 3, 0)
    assert st["speed"][p] == 1 and st["crashed"][p] == 1 and st["cur"] != p
    # the other seat plays; then the crashed kart picks any facing first
    while st["cur"] != p or st["phase"] not in (C.PH_FACING, C.PH_SPEED):
        m = legal(s, ct)
        a = C.A_END if m[C.A_END] else int(np.flatnonzero(m)[0])
        step(s, a, ct)
    assert st["phase"] == C.PH_FACING and legal(s, ct)[C.A_FACE : C.A_FACE + 6].all()
    step(s, C.A_FACE + H.E, ct)
    assert st["facing"][p] == H.E and st["phase"] == C.PH_SPEED


def test_unspent_mp_is_a_crash(ct):
    """DK-075."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    put(s, ct, "Line", p, 3, 0, speed=4)
    put(s, ct, "Line", 1 - p, 0, 0)
    begin_move(s, p, 2)
    step(s, C.A_END, ct)
    assert s[0]["crashed"][p] == 1 and s[0]["speed"][p] == 1


def test_brake(ct):
    """DK-117, DK-118, DK-A46."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    put(s, ct, "Line", p, 6, 0, speed=5)
    put(s, ct, "Line", 1 - p, 0, 0)
    begin_move(s, p, 3)
    step(s, C.A_BRAKE, ct)
    assert s[0]["speed"][p] == 3 and s[0]["mp"] == 2
    assert not legal(s, ct)[C.A_BRAKE]


def test_lava_crash_back_and_coin(ct):
    """DK-142..144."""
    s = board(ct, "Lava", n=3)
    p = int(s[0]["actor"])
    others = [o for o in range(3) if o != p]
    put(s, ct, "Lava", others[0], 0, 1)
    put(s, ct, "Lava", others[1], 1, 1)
    put(s, ct, "Lava", p, 1, 0, coins=2, speed=4)
    begin_move(s, p, 4)
    step(s, C.A_MOVE, ct)
    assert s[0]["pos"][p] == cell(ct, "Lava", 1, 0)
    assert s[0]["coins"][p] == 1 and s[0]["speed"][p] == 1 and s[0]["crashed"][p]
    assert not legal(s, ct)[C.A_DRIFT_L] if s[0]["cur"] == p else True


def test_spell_hex_with_a_full_hand(ct):
    """DK-188..193: only the Racer without a spell takes a marker; at the end
    of the round it draws from its Placement spot's deck (DK-214)."""
    s = board(ct, "Book")
    st = s[0]
    p = int(st["actor"])
    o = 1 - p
    card = int(st["deck"][0, st["deck_n"][0] - 1])
    st["deck_n"][0] -= 1
    st["spell"][p] = card
    put(s, ct, "Book", o, 2, 0)
    put(s, ct, "Book", p, 2, 0)
    st["pos"][o] = cell(ct, "Book", 0, 0)
    begin_move(s, p, 1)
    step(s, C.A_MOVE, ct)  # p (full hand) enters S
    assert st["marker"][p] == 0 and st["spell"][p] == card
    st["pos"][p] = cell(ct, "Book", 5, 0)
    put(s, ct, "Book", o, 2, 0)
    begin_move(s, o, 1)
    step(s, C.A_MOVE, ct)
    assert st["marker"][o] == 1
    st["pos"][o] = cell(ct, "Book", 3, 0)
    rew = np.zeros(2, np.float32)
    st["turn_k"] = 2
    R._advance(st, ct.record[0], rew)  # end of round
    assert st["marker"][o] == 0 and st["spell"][o] >= 0
    letter = ct.tables.place_deck[2, st["place"][o] - 1]
    assert ct.tables.card_deck[st["spell"][o]] == letter
    check_invariants(st, ct)


def test_placement_tie_shares_a_spot(ct):
    """DK-223..225: two tied for 1st, the next Racer is 3rd."""
    s = board(ct, "Two", n=3)
    st = s[0]
    put(s, ct, "Two", 0, 4, 0)
    put(s, ct, "Two", 1, 4, 1)
    put(s, ct, "Two", 2, 2, 1)
    R.compute_places(st, ct.record[0])
    assert st["place"][:3].tolist() == [1, 1, 3]


def test_reversing_over_the_line_does_not_lead(ct):
    """DK-222, DK-A36: on a circuit the last tile counts only after the lap."""
    T = ct.tables
    s = new_state(2, seed=1, track=0, ct=ct)
    st = s[0]
    last = int(T.tr_ntiles[0]) - 1
    back = int(np.flatnonzero(T.tr_tile[0] == last)[0])
    fwd = int(np.flatnonzero((T.tr_tile[0] == 0) & (T.tr_terr[0] == C.T_ROAD))[0])
    st["pos"][0], st["visited"][0] = back, 1 | (1 << last)
    st["pos"][1], st["visited"][1] = fwd, 1
    R.compute_places(st, ct.record[0])
    assert st["place"][:2].tolist() == [2, 1]
    st["visited"][0] = (1 << (last + 1)) - 1  # a real lap: now it leads
    R.compute_places(st, ct.record[0])
    assert st["place"][:2].tolist() == [1, 2]


@pytest.mark.parametrize(
    "tok,forced,expect",
    [
        ("hero", (), dict(crashed=1, speed=1, tok_left=False, at=True)),
        ("fangroot", (), dict(crashed=1, speed=1, tok_left=True, at=True)),
        ("tar", (), dict(crashed=0, speed=4, tok_left=True, at=True)),
        ("zombie", (), dict(crashed=0, speed=2, tok_left=False, at=True)),
        ("gravestone", (), dict(crashed=1, speed=1, tok_left=True, at=False)),
        ("lava_puddle", (), dict(crashed=1, speed=1, tok_left=True, at=False, coins=0)),
        ("smashinator", (1,), dict(crashed=0, speed=5, tok_left=True, at=True, coins=3)),
        ("smashinator", (5,), dict(crashed=1, speed=1, tok_left=True, at=True)),
    ],
)
def test_hazards(ct, tok, forced, expect):
    """DK-155..173, DK-179, DK-180 (Smash die forced)."""
    s = board(ct, "Book")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Book", 1 - p, 0, 0)
    put(s, ct, "Book", p, 4, 0, speed=5, coins=1)
    target = cell(ct, "Book", 5, 0)
    st["tok"][target] = C.TOKEN_NAMES.index(tok)
    begin_move(s, p, 3)
    chance.force(st, list(forced))
    step(s, C.A_MOVE, ct)
    assert st["crashed"][p] == expect["crashed"]
    assert st["speed"][p] == expect["speed"]
    assert (st["tok"][target] != 0) == expect["tok_left"]
    assert (st["pos"][p] == target) == expect["at"]
    if "coins" in expect:
        assert st["coins"][p] == expect["coins"]
    assert st["cur"] != p or tok == "smashinator"  # movement ended
    if tok == "smashinator" and not expect["crashed"]:
        assert st["cur"] == p and st["mp"] == 2


def test_boost_travels_free(ct):
    """DK-165..167: Boost die forced to its last face (3 hexes)."""
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Line", 1 - p, 0, 0)
    put(s, ct, "Line", p, 1, 0)
    st["tok"][cell(ct, "Line", 2, 0)] = C.K_BOOST
    begin_move(s, p, 5)
    chance.force(st, [6])
    step(s, C.A_MOVE, ct)
    assert st["pos"][p] == cell(ct, "Line", 5, 0) and st["mp"] == 4
    assert st["pen_worst"] == ct.tables.dash_pen[PLAIN, C.T_MUD]


def test_bomb_blast(ct):
    """DK-174..177: the kart that hits it and karts next to it Crash."""
    s = board(ct, "Two", n=3)
    st = s[0]
    p = int(st["actor"])
    others = [o for o in range(3) if o != p]
    put(s, ct, "Two", p, 2, 1, speed=4)
    put(s, ct, "Two", others[0], 3, 0, speed=4)  # next to the bomb hex (3,1)
    put(s, ct, "Two", others[1], 0, 1, speed=4)  # far away
    st["tok"][cell(ct, "Two", 3, 1)] = C.K_BOMB
    st["tok"][cell(ct, "Two", 4, 1)] = C.K_TAR
    begin_move(s, p, 3)
    step(s, C.A_MOVE, ct)
    assert st["crashed"][p] and st["crashed"][others[0]] and not st["crashed"][others[1]]
    assert st["tok"][cell(ct, "Two", 3, 1)] == 0 and st["tok"][cell(ct, "Two", 4, 1)] == 0


def test_fangroot_adjacent_spins_out(ct):
    """DK-157, DK-A26."""
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Line", 1 - p, 0, 0)
    put(s, ct, "Line", p, 6, 0, speed=5)
    st["tok"][cell(ct, "Line", 8, 0)] = C.K_FANGROOT
    begin_move(s, p, 1)
    step(s, C.A_MOVE, ct)
    step(s, C.A_END, ct)
    assert st["speed"][p] == 2 and st["crashed"][p] == 0


def test_fireball_and_freeze(ct):
    """Fireball Crashes a rival (DK-209); Freeze at round start stops its
    speed change (DK-070, DK-196, DK-247)."""
    s = board(ct, "Line")
    st = s[0]
    T = ct.tables
    fire = [c for c in range(T.n_cards) if ct.spell_names[T.card_kind[c]] == "Fireball"][0]
    frz = [c for c in range(T.n_cards) if ct.spell_names[T.card_kind[c]] == "Freeze"][0]
    for d in range(3):
        keep = [c for c in st["deck"][d, : st["deck_n"][d]] if c not in (fire, frz)]
        st["deck"][d, :] = -1
        st["deck"][d, : len(keep)] = keep
        st["deck_n"][d] = len(keep)
    p = int(st["actor"])
    o = 1 - p
    put(s, ct, "Line", o, 0, 0, speed=4)
    put(s, ct, "Line", p, 2, 0)
    st["spell"][p] = fire
    begin_move(s, p, 2)
    step(s, C.A_SPELL + 1, ct)
    assert st["crashed"][o] == 1 and st["speed"][o] == 1 and st["spell"][p] == -1
    # Freeze: the holder decides at the start of the next round
    st["spell"][o] = frz
    step(s, C.A_MOVE, ct)
    step(s, C.A_MOVE, ct)
    assert st["cur"] == o and st["phase"] == C.PH_FACING
    step(s, C.A_FACE + H.E, ct)
    step(s, C.A_SPEED + 2, ct)
    while st["round"] == 0:
        m = legal(s, ct)
        step(s, C.A_MOVE if m[C.A_MOVE] else int(np.flatnonzero(m)[-1]), ct)
    assert st["phase"] == C.PH_FREEZE and st["actor"] == o
    step(s, C.A_SPELL + 1, ct)
    assert st["frozen"][p] == 1
    while st["actor"] != p:
        m = legal(s, ct)
        step(s, C.A_MOVE if m[C.A_MOVE] else int(np.flatnonzero(m)[-1]), ct)
    m = legal(s, ct)
    if st["phase"] == C.PH_FACING:
        step(s, C.A_FACE, ct)
        m = legal(s, ct)
    assert np.flatnonzero(m[C.A_SPEED : C.A_SPEED + 3]).tolist() == [1]


def test_croak_speeds_up_a_second_time(ct):
    """DK-209, DK-G10: only right after the speed change."""
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Line", 1 - p, 0, 0)
    put(s, ct, "Line", p, 2, 0, speed=2, coins=3)
    st["racer"][p] = racer_id(ct, "King Croak")
    step(s, C.A_SPEED + 2, ct)  # 2 -> 3
    mp3 = int(st["mp"])
    assert legal(s, ct)[C.A_POWER + C.MAX_P]  # lower power
    step(s, C.A_POWER + C.MAX_P, ct)
    assert st["speed"][p] == 4
    assert st["mp"] == mp3 + ct.tables.dash_mp[PLAIN, 3] - ct.tables.dash_mp[PLAIN, 2]
    assert st["coins"][p] == 0


def test_finish_final_round_and_ranking(ct):
    """DK-226..234: the crosser's MP left is its score; the seat after it
    still plays; the game ends with the zero-sum ranking."""
    s = board(ct, "Line", n=3)
    st = s[0]
    p = int(st["actor"])
    a, b = (p + 1) % 3, (p + 2) % 3
    put(s, ct, "Line", a, 0, 0, coins=2)
    put(s, ct, "Line", b, 1, 0, coins=1)
    put(s, ct, "Line", p, 8, 0)
    begin_move(s, a, 3)  # a is second this round
    st["first"] = p
    st["turn_k"] = 1
    put(s, ct, "Line", a, 8, 0)
    st["pos"][p] = cell(ct, "Line", 0, 0)
    step(s, C.A_MOVE, ct)
    step(s, C.A_MOVE, ct)  # across the line
    assert st["finished"][a] and st["finish_mp"][a] == 2 and st["final_round"]
    assert st["cur"] == b  # b still takes its turn
    rew = None
    while st["outcome"] == 0:
        assert st["actor"] == b
        m = legal(s, ct)
        rew = step(
            s,
            C.A_SPEED + 2
            if m[C.A_SPEED + 2]
            else (C.A_MOVE if m[C.A_MOVE] else int(np.flatnonzero(m)[-1])),
            ct,
        )
    assert st["outcome"] == C.O_RACE_OVER and st["actor"] == -1
    assert rew[a] == 1.0 and abs(float(rew.sum())) < 1e-6


def test_setup_draft_positions_and_coins(ct):
    """DK-015..020, DK-034, DK-035, DK-040."""
    s = new_state(8, seed=3, track=0, draft=C.DRAFT_PICK, ct=ct)
    st = s[0]
    f = int(st["first"])
    assert st["phase"] == C.PH_DRAFT_RACER and st["offer_n"] == 9
    for i in range(8):
        assert st["actor"] == (f + i) % 8
        step(s, C.A_PICK + 0, ct)
    assert st["phase"] == C.PH_DRAFT_DASH and st["offer_n"] == 8
    for i in range(8):
        assert st["actor"] == (f + 7 - i) % 8
        step(s, C.A_PICK + 0, ct)
    assert len(set(st["racer"][:8].tolist())) == 8 and sorted(st["dash"][:8]) == list(range(8))
    T = ct.tables
    for seat in range(8):
        posn = (seat - f) % 8 + 1
        assert T.tr_start[0, st["pos"][seat]] == posn
        assert st["coins"][seat] == (1 if posn >= 4 else 0)
        assert st["place"][seat] == posn
    assert st["cur"] == f and st["phase"] == C.PH_SPEED


# ------------------------------------------------------------------ never stopped on a kart
def test_drive_through_a_kart(ct):
    """DK-077, DK-079: a kart drives through another kart's hex, but not
    into it with its last MP."""
    s = board(ct, "Line")
    p = int(s[0]["actor"])
    o = 1 - p
    put(s, ct, "Line", p, 2, 0)
    put(s, ct, "Line", o, 3, 0)
    begin_move(s, p, 1)
    m = legal(s, ct)
    assert not m[C.A_MOVE]  # 0 MP left on the kart's hex
    begin_move(s, p, 2)
    step(s, C.A_MOVE, ct)
    assert s[0]["pos"][p] == cell(ct, "Line", 3, 0) and s[0]["mp"] == 1
    m = legal(s, ct)
    assert m[C.A_MOVE] and not m[C.A_END] and not m[C.A_BRAKE]
    step(s, C.A_MOVE, ct)  # mud for 3 MP: last-hex allowance
    assert s[0]["pos"][p] == cell(ct, "Line", 4, 0) and s[0]["cur"] != p


def test_no_turn_or_brake_that_strands(ct):
    """DK-078: with 2 MP on a shared hex, a Brake or a Turn would leave 1 MP
    and only an occupied hex ahead, so neither is offered (the bug the
    last-MP check had); the Bump sideways into the barrier (DK-111 allows it:
    1 MP is left to exit) strands the bumper too and goes."""
    s = board(ct, "Line", n=3)
    st = s[0]
    p = int(st["actor"])
    o, q = [x for x in range(3) if x != p]
    put(s, ct, "Line", p, 2, 0)
    put(s, ct, "Line", o, 2, 0)
    put(s, ct, "Line", q, 3, 0)
    begin_move(s, p, 2)
    m = legal(s, ct)
    assert np.flatnonzero(m).tolist() == [C.A_MOVE]
    # with 3 MP the same Brake, Turn and barrier Bump leave a way out
    begin_move(s, p, 3)
    m = legal(s, ct)
    k = (o - p) % 3
    assert m[C.A_MOVE] and m[C.A_BRAKE] and m[C.A_TURN_L] and m[C.A_TURN_R]
    assert m[C.A_BUMP + 3 * (k - 1) + 0] and not m[C.A_END]
    step(s, C.A_BRAKE, ct)
    m = legal(s, ct)
    assert m[C.A_MOVE] and not m[C.A_TURN_L] and not m[C.A_END]


def test_heavy_drift_onto_a_kart(ct):
    """DK-078, DK-114: a Heavy kart may not Drift with its last MP onto a
    kart it then cannot Bump (every destination is taken or a wall with no
    MP left to exit); it may Move onto a kart it can Bump away for free."""
    s = board(ct, "Wide", n=4)
    st = s[0]
    p = int(st["actor"])
    o, q, r = [x for x in range(4) if x != p]
    put(s, ct, "Wide", p, 1, 1, dash=HEAVY)
    put(s, ct, "Wide", o, 2, 0)  # forward-left of p
    put(s, ct, "Wide", q, 3, 0)  # ahead of o
    put(s, ct, "Wide", r, 2, 1)  # forward-right of o, ahead of p
    begin_move(s, p, 1)
    m = legal(s, ct)
    assert not m[C.A_DRIFT_L] and not m[C.A_DRIFT_R]
    assert m[C.A_MOVE]
    step(s, C.A_MOVE, ct)
    assert st["pos"][p] == st["pos"][r] and st["mp"] == 0
    m = legal(s, ct)
    k = (r - p) % 4
    assert not m[C.A_END]
    assert m[C.A_BUMP + 3 * (k - 1) + 1]  # ahead (3, 1) is free
    assert not m[C.A_BUMP + 3 * (k - 1) + 0]  # (3, 0) holds q
    step(s, C.A_BUMP + 3 * (k - 1) + 1, ct)
    assert st["pos"][r] == cell(ct, "Wide", 3, 1)
    assert legal(s, ct)[C.A_END]
    step(s, C.A_END, ct)
    assert stopped_apart(st, p) and st["cur"] != p


def test_boost_halts_in_front_of_a_kart(ct):
    """DK-A47 fix: Boost travel stops in the hex before a kart (no Crash),
    and the turn goes on from there."""
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Line", 1 - p, 4, 0)
    put(s, ct, "Line", p, 1, 0)
    st["tok"][cell(ct, "Line", 2, 0)] = C.K_BOOST
    begin_move(s, p, 5)
    chance.force(st, [6])  # 3 hexes of travel
    step(s, C.A_MOVE, ct)
    assert st["pos"][p] == cell(ct, "Line", 3, 0) and st["mp"] == 4
    assert st["cur"] == p and not st["crashed"][p]


def test_puddle_return_to_an_occupied_hex(ct):
    """DK-A47 fix: a kart leaving a shared hex into a Lava Puddle Crashes and
    stays in the puddle's hex instead of going back onto the other kart."""
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    o = 1 - p
    put(s, ct, "Line", p, 2, 0, coins=2)
    put(s, ct, "Line", o, 2, 0)
    st["tok"][cell(ct, "Line", 3, 0)] = C.K_LAVAPUDDLE
    begin_move(s, p, 3)
    step(s, C.A_MOVE, ct)
    assert st["pos"][p] == cell(ct, "Line", 3, 0) and st["crashed"][p]
    assert st["coins"][p] == 1 and st["cur"] != p


def _every_path_clean(s, ct, p, budget):
    """Play every sequence of offered actions to the end of ``p``'s
    movement (no chance involved); each must end with ``p`` off the other
    karts. Returns the number of paths."""
    st = s[0]
    m = legal(s, ct)
    shared = not stopped_apart(st, p)
    acts = np.flatnonzero(m)
    assert len(acts) > 0
    if shared:
        assert C.A_END not in acts, "End (a stop on a kart) offered"
    paths = 0
    for a in acts:
        c = s.copy()
        R.apply_row(c[0], ct.record[0], int(a), np.zeros(int(st["num_players"]), np.float32))
        if c[0]["cur"] != p or c[0]["phase"] != C.PH_MOVE:
            assert c[0]["finished"][p] or stopped_apart(c[0], p), (
                f"{C.action_name(int(a))} ended the movement on a kart"
            )
            paths += 1
        else:
            paths += _every_path_clean(c, ct, p, budget)
        budget[0] -= 1
        if budget[0] <= 0:
            break
    return paths


@pytest.mark.parametrize("seed", range(6))
def test_look_ahead_random_positions(ct, seed):
    """DK-077..079, exhaustively: hand random crowded positions on the
    Beginner Track (no tokens, no spells) to a mover on another kart's hex
    and play out every sequence of offered actions: none ends with the mover
    stopped on a kart, End is never offered on a shared hex, and the mask is
    never empty."""
    T = ct.tables
    prng = np.random.default_rng(seed)
    cells = [
        c
        for c in range(H.NCELL)
        if T.tr_tile[0, c] >= 0 and C.TERRAIN_PIPS[int(T.tr_terr[0, c])] > 0
    ]
    tried = 0
    for _ in range(40):
        n = int(prng.integers(2, 6))
        s = new_state(n, seed=seed, track=0, ct=ct)
        st = s[0]
        st["tok"][:] = 0
        p = int(st["actor"])
        c0 = int(prng.choice(cells))
        near = [c for c in cells if 0 < H.cell_distance(c, c0) <= 2]
        if len(near) < n:
            continue
        spots = [c0, c0] + [int(x) for x in prng.choice(near, n - 2, replace=False)]
        for i, x in enumerate([p] + [o for o in range(n) if o != p]):
            st["pos"][x] = spots[i]
            st["facing"][x] = int(prng.integers(6))
            st["speed"][x] = 3
            st["dash"][x] = int(prng.integers(C.NDASH))
            st["coins"][x] = 0
            st["spell"][x] = -1
            st["crashed"][x] = 0
        begin_move(s, p, int(prng.integers(0, 5)))
        # (a random position may already be hopeless, e.g. 0 MP on a kart:
        # play can never reach it, since the move that led there was refused)
        if not R.can_clear(
            st, ct.record[0], p, c0, int(st["facing"][p]), int(st["mp"]), 0, 0, 0, 0, 0, 0
        ):
            continue
        assert _every_path_clean(s, ct, p, [4000]) > 0
        tried += 1
    assert tried >= 20


# ------------------------------------------------------------------ soaks
def _soak(n, games, policy, ct, max_rounds, seed0):
    prng = np.random.default_rng(seed0)
    finished = 0
    for g in range(games):
        s = new_state(
            n, seed=seed0 * 1000 + g, track=g % 4, draft=g % 2, ct=ct, max_rounds=max_rounds
        )
        st = s[0]
        steps = 0
        while st["outcome"] == 0:
            m = legal(s, ct)
            assert m.any()
            a = greedy(s, ct, prng) if policy == "greedy" else int(prng.choice(np.flatnonzero(m)))
            pc, pk, pr = int(st["cur"]), int(st["turn_k"]), int(st["round"])
            voluntary_end = (
                a == C.A_END and st["mp"] == 0 and st["phase"] == C.PH_MOVE and m.sum() > 1
            )
            driving = a in (C.A_MOVE, C.A_DRIFT_L, C.A_DRIFT_R) and st["phase"] == C.PH_MOVE
            step(s, a, ct)
            steps += 1
            check_invariants(st, ct)
            turn_over = st["turn_k"] != pk or st["round"] != pr or st["outcome"] != 0
            if turn_over and not st["finished"][pc]:
                c = int(st["pos"][pc])
                clean = voluntary_end or (
                    driving and not st["crashed"][pc] and st["tok"][c] == 0 and st["speed"][pc] > 2
                )
                if clean:  # a stop the Racer chose: never on another kart (DK-078)
                    assert stopped_apart(st, pc), f"seat {pc} stopped on another kart"
            assert steps < 40 * max_rounds * n + 200
        finished += int(st["outcome"] == C.O_RACE_OVER)
    return finished


@pytest.mark.parametrize("n,games", [(2, 120), (4, 100), (8, 80)])
def test_random_play_soak(ct, n, games):
    _soak(n, games, "random", ct, max_rounds=8, seed0=n)


@pytest.mark.parametrize("n", [2, 4, 8])
def test_greedy_races_finish(ct, n):
    assert _soak(n, 2, "greedy", ct, max_rounds=40, seed0=100 + n) == 2


def test_setup_hazards_from_the_bag_and_decks_by_letter(ct):
    """DK-027..030, DK-037."""
    T = ct.tables
    s = new_state(4, seed=11, track=0, ct=ct)
    st = s[0]
    haz = np.flatnonzero(T.tr_haz[0])
    assert len(haz) > 0
    bag_names = [C.TOKEN_NAMES.index(b) for b in C.BAG_TOKENS] + list(
        range(C.K_EPIC0, C.K_EPIC0 + C.NEPIC)
    )
    assert all(st["tok"][c] in bag_names for c in haz)
    assert st["bag_n"] == T.bag_size - len(haz)
    # off the hazard hexes only the Zombies of guarded Epic Heroes (DK-033)
    other = st["tok"][np.flatnonzero(T.tr_haz[0] == 0)]
    assert set(other.tolist()) <= {0, C.K_ZOMBIE}
    placed = sorted(st["tok"][haz].tolist() + st["bag"][: st["bag_n"]].tolist())
    assert placed == sorted(T.bag[: T.bag_size].tolist())
    for d in range(3):
        cards = st["deck"][d, : st["deck_n"][d]]
        assert (T.card_deck[cards] == d).all() and len(cards) == T.deck_size[d]


def test_coin_hex_pays_every_entry_but_not_the_start_hex(ct):
    """DK-145..147, DK-A48: coins and spellbooks only on entering."""
    s = board(ct, "Coin")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Coin", 1 - p, 0, 0)
    put(s, ct, "Coin", p, 1, 0)
    begin_move(s, p, 3)
    step(s, C.A_MOVE, ct)
    assert st["coins"][p] == 1
    put(s, ct, "Coin", p, 2, 0, coins=1)
    begin_move(s, p, 2)
    step(s, C.A_BRAKE, ct)  # stays on the coin hex
    assert st["coins"][p] == 1
    step(s, C.A_MOVE, ct)  # onto the spellbook
    assert st["marker"][p] == 1 and st["coins"][p] == 1
    put(s, ct, "Coin", 1 - p, 1, 0)
    begin_move(s, 1 - p, 1)
    step(s, C.A_MOVE, ct)  # a second Racer is paid too
    assert st["coins"][1 - p] == 1


def test_racer_on_a_hazard_makes_an_obstacle(ct):
    """DK-154, DK-A24: entering that hex Crashes the mover in place; a Drift
    there is not offered."""
    s = board(ct, "Two", n=3)
    st = s[0]
    p = int(st["actor"])
    others = [o for o in range(3) if o != p]
    put(s, ct, "Two", others[0], 3, 0)
    st["tok"][cell(ct, "Two", 3, 0)] = C.K_TAR
    put(s, ct, "Two", others[1], 0, 1)
    put(s, ct, "Two", p, 2, 1, speed=4)
    begin_move(s, p, 3)
    assert not legal(s, ct)[C.A_DRIFT_L]
    st["facing"][p] = H.NE
    step(s, C.A_MOVE, ct)
    assert st["pos"][p] == cell(ct, "Two", 2, 1) and st["crashed"][p] == 1


def test_empty_deck_reshuffles_its_discards(ct):
    """DK-G11: a marker holder draws from the reshuffled discard pile; with
    no card anywhere in that deck it keeps the marker."""
    s = board(ct, "Line")
    st = s[0]
    T = ct.tables
    d = int(T.place_deck[2, 0])
    k = int(st["deck_n"][d])
    st["disc"][d, :k] = st["deck"][d, :k]
    st["disc_n"][d] = k
    st["deck"][d, :] = -1
    st["deck_n"][d] = 0
    put(s, ct, "Line", 0, 6, 0)
    put(s, ct, "Line", 1, 2, 0)
    st["marker"][0] = 1
    st["turn_k"] = 2
    st["freeze_k"] = 2
    R._advance(st, ct.record[0], np.zeros(2, np.float32))
    assert st["place"][0] == 1 and st["marker"][0] == 0 and st["spell"][0] >= 0
    assert st["deck_n"][d] == k - 1 and st["disc_n"][d] == 0
    check_invariants(st, ct)


def test_same_seed_same_game_and_seeds_differ(ct):
    """Determinism at row level: a seeded game replays bit-identically."""

    def play(seed):
        s = new_state(4, seed=seed, track=1, draft=C.DRAFT_PICK, ct=ct)
        prng = np.random.default_rng(7)
        trace = []
        for _ in range(300):
            if s[0]["outcome"]:
                break
            m = legal(s, ct)
            a = int(prng.choice(np.flatnonzero(m)))
            step(s, a, ct)
            trace.append(s.tobytes())
        return trace

    a, b = play(3), play(3)
    assert a == b
    assert play(4) != a


def _hero(ct, hit=None, round_end=None):
    T = ct.tables
    for e in range(C.NEPIC):
        if hit is not None and C.EPIC_HIT[T.epic_hit[e]] != hit:
            continue
        if round_end is not None and C.EPIC_ROUND[T.epic_round[e]] != round_end:
            continue
        return e
    raise AssertionError("no such hero in heroes.toml")


def test_at_most_one_epic_hero_per_tile(ct):
    """DK-027, DK-031, DK-A31: all 11 in the bag; never two on a tile."""
    T = ct.tables
    assert sorted(T.bag[: T.bag_size].tolist()).count(C.K_EPIC0) == 1
    assert len(ct.hero_names) == 11
    seen = 0
    for seed in range(40):
        tk = seed % 4
        s = new_state(2, seed=seed, track=tk, ct=ct)
        st = s[0]
        cells = np.flatnonzero(st["tok"] >= C.K_EPIC0)
        tiles = T.tr_tile[tk, cells].tolist()
        assert len(tiles) == len(set(tiles))
        seen += len(cells)
    assert seen > 0


@pytest.mark.parametrize(
    "hit,expect",
    [
        ("rob", dict(crashed=1, at=True)),
        ("gift", dict(crashed=0, at=True)),
        ("bounce", dict(crashed=1, at=False)),
        ("scroll", dict(crashed=0, at=True)),
        ("spin_out", dict(crashed=0, at=True)),
        ("crash", dict(crashed=1, at=True)),
    ],
)
def test_epic_hero_hits(ct, hit, expect):
    """DK-G16: each hit effect of data/heroes.toml."""
    T = ct.tables
    e = _hero(ct, hit=hit)
    s = board(ct, "Book")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Book", 1 - p, 0, 0)
    put(s, ct, "Book", p, 4, 0, speed=5, coins=3)
    target = cell(ct, "Book", 5, 0)
    st["tok"][target] = C.K_EPIC0 + e
    begin_move(s, p, 3)
    step(s, C.A_MOVE, ct)
    assert st["crashed"][p] == expect["crashed"]
    assert st["speed"][p] == (1 if expect["crashed"] else 2)
    assert (st["pos"][p] == target) == expect["at"]
    assert (st["tok"][target] == 0) == bool(T.epic_remove[e])
    amt = int(T.epic_amt[e])
    assert st["coins"][p] == {"rob": 3 - amt, "gift": 3 + amt}.get(hit, 3)
    assert st["marker"][p] == (1 if hit == "scroll" else 0)
    assert st["cur"] != p  # movement ended


@pytest.mark.parametrize("effect", ["quake", "tax", "summon", "fuse"])
def test_epic_hero_round_end(ct, effect):
    """DK-211: Epic Heroes act in end-of-round step 1."""
    e = _hero(ct, round_end=effect)
    s = board(ct, "Two", n=3)
    st = s[0]
    put(s, ct, "Two", 0, 3, 0, speed=5, coins=2)  # next to the hero
    put(s, ct, "Two", 1, 5, 1, speed=5, coins=2)  # 2 hexes away
    put(s, ct, "Two", 2, 0, 1, speed=5, coins=2)  # far
    hero = cell(ct, "Two", 3, 1)
    st["tok"][hero] = C.K_EPIC0 + e
    st["turn_k"] = 3
    st["freeze_k"] = 3
    R._advance(st, ct.record[0], np.zeros(3, np.float32))
    if effect == "quake":
        assert st["speed"][:3].tolist() == [2, 5, 5]
    elif effect == "tax":
        assert st["coins"][:3].tolist() == [1, 1, 2]
    else:
        want = C.K_ZOMBIE if effect == "summon" else C.K_BOMB
        east = cell(ct, "Two", 4, 1)  # first free side: east
        assert st["tok"][east] == want
        assert st["tok"][hero] == C.K_EPIC0 + e


def _card(ct, name):
    T = ct.tables
    return [c for c in range(T.n_cards) if ct.spell_names[T.card_kind[c]] == name][0]


def _take(st, card):
    """Move ``card`` from its deck into nobody's hand yet (caller places it)."""
    for d in range(3):
        k = int(st["deck_n"][d])
        lst = [c for c in st["deck"][d, :k] if c != card]
        if len(lst) < k:
            st["deck"][d, :] = -1
            st["deck"][d, : len(lst)] = lst
            st["deck_n"][d] = len(lst)


@pytest.mark.parametrize(
    "spell",
    [
        "Zombie Attack",
        "Overgrowth",
        "Rolling Bomb",
        "Goblin Nitro",
        "Smoke Bomb",
        "Crystal Cache",
        "Tailwind",
    ],
)
def test_spell_effects(ct, spell):
    """DK-194..200 and DK-G11: each spell effect resolves at once; the card
    goes to its deck's discard pile."""
    s = board(ct, "Line")
    st = s[0]
    T = ct.tables
    p = int(st["actor"])
    o = 1 - p
    card = _card(ct, spell)
    _take(st, card)
    st["spell"][p] = card
    put(s, ct, "Line", o, 4, 0, speed=5)
    put(s, ct, "Line", p, 3, 0, speed=4, coins=0)
    amt = int(T.sp_amount[T.card_kind[card]])
    if spell == "Tailwind":
        st["speed"][p] = 3
        step(s, C.A_SPELL, ct)  # start of turn, before the speed
        step(s, C.A_SPEED + 2, ct)
        assert st["mp"] == T.dash_mp[PLAIN, 3] + amt
    else:
        begin_move(s, p, 3)
        k = 1 if T.sp_target[T.card_kind[card]] else 0
        step(s, C.A_SPELL + k, ct)
        ahead = cell(ct, "Line", 5, 0)
        if spell == "Zombie Attack":
            assert st["tok"][ahead] == C.K_ZOMBIE
        elif spell == "Overgrowth":
            assert st["grass"][ahead] == 1 and R.pips(st, ct.record[0], ahead) == 2
        elif spell == "Rolling Bomb":
            assert st["tok"][cell(ct, "Line", 2, 0)] == C.K_BOMB
        elif spell == "Goblin Nitro":
            assert st["mp"] == 3 + amt
        elif spell == "Smoke Bomb":
            assert st["speed"][o] == 2
        elif spell == "Crystal Cache":
            assert st["coins"][p] == amt
    d = T.card_deck[card]
    assert st["spell"][p] == -1 and card in st["disc"][d, : st["disc_n"][d]].tolist()


def test_powers_steal_spin_and_rebump(ct):
    """DK-201..208: Belladonna steals and spins; Porkus bumps again."""
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    o = 1 - p
    put(s, ct, "Line", o, 4, 0, speed=5, coins=2)
    put(s, ct, "Line", p, 3, 0, coins=5)
    st["racer"][p] = racer_id(ct, "Belladonna")
    begin_move(s, p, 3)
    step(s, C.A_POWER + 1, ct)  # upper: steal 1 from the rival
    assert st["coins"][p] == 5 - 2 + 1 and st["coins"][o] == 1
    step(s, C.A_POWER + C.MAX_P + 1, ct)  # lower: spin out within 2
    assert st["speed"][o] == 2 and st["coins"][p] == 4 - 3
    # Porkus: bump, then pay to bump the same rival again
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    o = 1 - p
    put(s, ct, "Line", o, 2, 0, speed=5)
    put(s, ct, "Line", p, 2, 0, coins=3, dash=HEAVY)
    st["racer"][p] = racer_id(ct, "Porkus")
    begin_move(s, p, 4)
    step(s, C.A_BUMP + 1, ct)  # ahead to (3,0)
    assert st["pos"][o] == cell(ct, "Line", 3, 0)
    step(s, C.A_MOVE, ct)  # join it again
    assert not legal(s, ct)[C.A_BUMP + 1]
    step(s, C.A_POWER + C.MAX_P, ct)  # lower: rebump
    step(s, C.A_BUMP + 1, ct)
    assert st["pos"][o] == cell(ct, "Line", 4, 0)


# ------------------------------------------------------ held-out rule checks
def test_any_time_spell_before_the_speed_change(ct):
    """DK-198, DK-253: a spell with no timing may be cast at any point of the
    owner's turn, so also before the speed choice (turn step 1); the speed
    choice is still there afterwards. A Nitro cast then adds its MP at the
    speed change."""
    T = ct.tables
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    o = 1 - p
    put(s, ct, "Line", o, 4, 0, speed=4)
    put(s, ct, "Line", p, 2, 0, speed=3)
    fire = _card(ct, "Fireball")
    _take(st, fire)
    st["spell"][p] = fire
    assert st["phase"] == C.PH_SPEED and st["actor"] == p
    m = legal(s, ct)
    assert m[C.A_SPELL + 1] and not m[C.A_SPELL]  # a rival, never self
    assert m[C.A_SPEED] and m[C.A_SPEED + 2]
    step(s, C.A_SPELL + 1, ct)
    assert st["crashed"][o] == 1 and st["speed"][o] == 1 and st["spell"][p] == -1
    assert st["phase"] == C.PH_SPEED and st["actor"] == p  # the speed choice follows
    step(s, C.A_SPEED + 2, ct)
    assert st["mp"] == T.dash_mp[PLAIN, 3]
    # Goblin Nitro before the speed change: its MP come with the new setting
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Line", 1 - p, 0, 0)
    put(s, ct, "Line", p, 2, 0, speed=3)
    nitro = _card(ct, "Goblin Nitro")
    _take(st, nitro)
    st["spell"][p] = nitro
    step(s, C.A_SPELL, ct)
    step(s, C.A_SPEED, ct)  # 3 -> 2
    assert st["mp"] == T.dash_mp[PLAIN, 1] + T.sp_amount[T.card_kind[nitro]]


@pytest.mark.parametrize(
    "spell,at_speed,in_move",
    [("Freeze", False, False), ("Tailwind", True, False), ("Fireball", True, True)],
)
def test_spell_timings_by_step(ct, spell, at_speed, in_move):
    """DK-196..198: start-of-round spells only at the round start, start-of-
    turn spells only before the speed change, the rest at both steps."""
    T = ct.tables
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Line", 1 - p, 4, 0)
    put(s, ct, "Line", p, 2, 0, speed=3)
    card = _card(ct, spell)
    _take(st, card)
    st["spell"][p] = card
    k = 1 if T.sp_target[T.card_kind[card]] else 0
    assert bool(legal(s, ct)[C.A_SPELL + k]) == at_speed
    begin_move(s, p, 3)
    assert bool(legal(s, ct)[C.A_SPELL + k]) == in_move


def _circuit_line(ct):
    """(track, cell, side) of a finish crossing straight ahead on a shipped
    circuit whose hex beyond the line has pips."""
    T = ct.tables
    for tk in range(len(ct.track_names)):
        if T.tr_kind[tk] != C.TR_CIRCUIT:
            continue
        for c in np.flatnonzero(T.tr_finish[tk]):
            for d in range(6):
                n = H.neighbour_cell(int(c), d)
                if (
                    (T.tr_finish[tk, c] >> d) & 1
                    and n >= 0
                    and C.TERRAIN_PIPS[int(T.tr_terr[tk, n])] > 0
                ):
                    return tk, int(c), d
    raise AssertionError("no circuit finish found")


@pytest.mark.parametrize("mp", [1, 3])
def test_crossing_the_line_is_free_on_a_circuit(ct, mp):
    """README "Finish" (DK-A41, DK-084, DK-231): the crossing enters no hex,
    so it costs nothing; the MP held at the line is the score. (Before, a
    circuit charged the pips of tile 1's hex beyond the line.)"""
    T = ct.tables
    tk, c, d = _circuit_line(ct)
    s = new_state(2, seed=0, track=tk, ct=ct)
    st = s[0]
    p = int(st["actor"])
    o = 1 - p
    st["tok"][:] = 0
    st["pos"][p], st["facing"][p], st["dash"][p] = c, d, PLAIN
    st["visited"][p] = (1 << int(T.tr_ntiles[tk])) - 1
    st["pos"][o] = int(np.flatnonzero((T.tr_tile[tk] == 0) & (T.tr_start[tk] == 2))[0])
    begin_move(s, p, mp)
    assert R.entry_cost(st, ct.record[0], p, d) == 0
    step(s, C.A_MOVE, ct)
    assert st["finished"][p] and st["finish_mp"][p] == mp and st["crashed"][p] == 0


@pytest.mark.parametrize(
    "act,dash", [(C.A_MOVE, PLAIN), (C.A_DRIFT_L, TRACTION), (C.A_DRIFT_L, PLAIN)]
)
def test_crossing_the_line_is_free_on_a_sprint(ct, act, dash):
    """The same rule on a sprint, by Move or Drift, with Traction too (its
    1-MP Drift does not apply: nothing is drifted into)."""
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Line", 1 - p, 0, 0)
    put(s, ct, "Line", p, 9, 0, dash=dash)  # the last hex before the line
    begin_move(s, p, 2)
    step(s, act, ct)
    assert st["finished"][p] and st["finish_mp"][p] == 2


def test_crossing_needs_one_mp_held(ct):
    """DK-090: free as it is, the crossing is a Move, which 0 MP cannot make."""
    s = board(ct, "Line")
    st = s[0]
    p = int(st["actor"])
    put(s, ct, "Line", 1 - p, 0, 0)
    put(s, ct, "Line", p, 9, 0)
    begin_move(s, p, 0)
    m = legal(s, ct)
    assert not m[C.A_MOVE] and not m[C.A_DRIFT_L] and m[C.A_END]


@pytest.mark.parametrize("speed,after", [(1, 1), (2, 2), (4, 2)])
def test_spin_out_at_setting_one_keeps_setting_one(ct, speed, after):
    """DK-123, DK-A17 (the reading taken): a Spin Out sets the second-lowest
    setting but never raises speed, so a kart at setting 1 stays at 1. The
    Smash die is forced to its Spin Out face (4)."""
    s = board(ct, "Book")
    st = s[0]
    p = int(st["actor"])
    o = 1 - p
    put(s, ct, "Book", o, 0, 0)
    put(s, ct, "Book", p, 4, 0, speed=speed)
    target = cell(ct, "Book", 5, 0)
    st["tok"][target] = C.K_SMASH
    assert ct.tables.smash_eff[3] == C.SM_SPIN
    begin_move(s, p, 3)
    chance.force(st, [4])
    step(s, C.A_MOVE, ct)
    assert st["last_smash"] == 4
    assert st["pos"][p] == target and st["crashed"][p] == 0
    assert st["speed"][p] == after  # and so after the turn's end
    assert st["cur"] == o  # the movement (and turn) ended
