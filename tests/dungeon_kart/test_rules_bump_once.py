"""Dungeon Kart: a Racer bumps each opponent at most once per turn (DK-108),
but may bump any number of different opponents (DK-107).

Scripted on a one-row board (every Bump but "ahead" meets the barrier):
the mover bumps a rival ahead, drives into its hex again and finds the
second Bump of that rival refused, while a Bump of another rival on the
same hex is still offered. The rule ids each test checks are listed in the
coverage table of ``envs/dungeon_kart/README.md``.
"""

import pytest
from helpers.kart_util import content, legal, new_state, step

from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart import hexgeo as H
from dungeonrl.envs.dungeon_kart import rules as R

LINE = "name: Line\ndir: E\n1 2 . . . . . . . ."
AHEAD = 1  # the Bump's side: 0 forward-left, 1 ahead, 2 forward-right


@pytest.fixture(scope="module")
def ct():
    return content((LINE,))


def cell(ct, q):
    tr = ct.tracks[ct.track_index("Line")]
    oq, orr = tr.offset
    return orr * H.BOARD_W + q + oq


def bump(p, o, n, side=AHEAD):
    """The action bumping seat ``o`` (seen from the mover ``p``) to ``side``."""
    return C.A_BUMP + 3 * ((o - p) % n - 1) + side


def race(ct, n):
    """``n`` racers on the Line board, the actor about to move with 6 MP."""
    s = new_state(n, seed=0, track=ct.track_index("Line"), ct=ct)
    st = s[0]
    p = int(st["actor"])
    for seat in range(n):
        st["pos"][seat] = cell(ct, 0)
        st["facing"][seat] = H.E
        st["speed"][seat] = 3
        st["crashed"][seat] = 0
    R._clear_turn(st)
    st["phase"] = C.PH_MOVE
    st["cur"] = p
    st["actor"] = p
    st["mp"] = 6
    st["turn_k"] = (p - int(st["first"])) % n
    st["freeze_k"] = n
    return s, p


def test_bump_each_opponent_once_per_turn(ct):
    """DK-108: after bumping a rival, the mover who joins it again may not
    bump it a second time this turn; the Bump is recorded for that rival."""
    s, p = race(ct, 2)
    st = s[0]
    o = 1 - p
    st["pos"][p] = st["pos"][o] = cell(ct, 2)
    assert legal(s, ct)[bump(p, o, 2)]
    step(s, bump(p, o, 2), ct)
    assert st["pos"][o] == cell(ct, 3) and st["mp"] == 5
    assert (int(st["bumped"]) >> o) & 1
    step(s, C.A_MOVE, ct)  # onto the bumped rival's hex again
    assert st["pos"][p] == cell(ct, 3) and st["cur"] == p
    m = legal(s, ct)
    assert not m[C.A_BUMP : C.A_BUMP + 3].any(), "the same rival bumped twice in one turn"
    assert m[C.A_MOVE]  # the mover drives on instead
    step(s, C.A_MOVE, ct)
    assert st["pos"][p] == cell(ct, 4) and st["pos"][o] == cell(ct, 3)


def test_bump_several_opponents_once_each(ct):
    """DK-107: a second rival on the hex may still be bumped after the
    first; DK-108: the first may not; both Bumps are recorded."""
    s, p = race(ct, 3)
    st = s[0]
    o1, o2 = (p + 1) % 3, (p + 2) % 3
    st["pos"][p] = st["pos"][o1] = cell(ct, 2)
    st["pos"][o2] = cell(ct, 7)
    step(s, bump(p, o1, 3), ct)
    assert st["pos"][o1] == cell(ct, 3)
    st["pos"][o2] = cell(ct, 3)  # a second rival waits on the same hex
    step(s, C.A_MOVE, ct)
    m = legal(s, ct)
    assert not m[bump(p, o1, 3) - AHEAD : bump(p, o1, 3) - AHEAD + 3].any()
    assert m[bump(p, o2, 3)]
    step(s, bump(p, o2, 3), ct)
    assert st["pos"][o2] == cell(ct, 4) and st["mp"] == 3
    assert (int(st["bumped"]) >> o1) & 1 and (int(st["bumped"]) >> o2) & 1
    m = legal(s, ct)
    assert not m[C.A_BUMP : C.A_BUMP + 3 * 2].any()
