"""Dungeon Kart: the First Player marker: drawn at random (DK-015), passed
clockwise at the end of every round (DK-215), with the turn order it sets
(DK-065, DK-248).

At the end of every round the marker passes one seat clockwise (to the
next seat number, the direction turns go round the table) and its new
holder opens the next round. With two seats either direction gives the
same seat, so these races have four: a marker passed the wrong way round
then hands the next round to the wrong seat at once. The rule ids each
test checks are listed in the coverage table of
``envs/dungeon_kart/README.md``.
"""

import numpy as np
import pytest
from helpers.kart_util import content, greedy, new_state, step

from dungeonrl.envs.dungeon_kart import consts as C

N = 4


@pytest.fixture(scope="module")
def ct():
    return content()


def turn_starts(seed, ct, rounds=5):
    """Race ``N`` greedy racers for ``rounds`` rounds on the shipped track;
    per round: the marker's holder and the seats in the order their turns
    began (a turn begins with the speed choice, or the facing choice after
    a Crash)."""
    s = new_state(N, seed=seed, track=0, ct=ct)
    st = s[0]
    prng = np.random.default_rng(seed)
    out = {}
    seen = None
    while int(st["round"]) < rounds and int(st["outcome"]) == 0:
        r = int(st["round"])
        first, order = out.setdefault(r, (int(st["first"]), []))
        assert int(st["first"]) == first, "the marker moved during a round"
        if int(st["phase"]) in (C.PH_SPEED, C.PH_FACING) and seen != (r, int(st["cur"])):
            seen = (r, int(st["cur"]))
            order.append(int(st["cur"]))
        step(s, greedy(s, ct, prng), ct)
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_first_player_marker_passes_clockwise(ct, seed):
    """DK-215: each round's First Player is the seat after the last
    round's; DK-065, DK-248: that seat takes the round's first turn and
    the others follow clockwise."""
    rounds = turn_starts(seed, ct)
    assert len(rounds) >= 4
    firsts = [rounds[r][0] for r in sorted(rounds)]
    for a, b in zip(firsts, firsts[1:]):
        assert b == (a + 1) % N, f"marker went {a} -> {b}, not clockwise"
    for r, (first, order) in rounds.items():
        if len(order) == N:  # every seat still racing took its turn
            assert order == [(first + k) % N for k in range(N)], (r, first, order)
    assert any(len(order) == N for _, order in rounds.values())


def test_first_player_is_drawn_at_random(ct):
    """DK-015: the first First Player is drawn at random: over 400 seeds
    every one of the four seats holds the marker at the start, each about a
    quarter of the time (at least 70 of the 100 expected), and opens the
    race."""
    firsts = []
    for seed in range(400):
        st = new_state(N, seed=seed, track=0, ct=ct)[0]
        firsts.append(int(st["first"]))
        assert int(st["cur"]) == firsts[-1] or int(st["phase"]) != C.PH_SPEED
    counts = np.bincount(firsts, minlength=N)
    assert counts.min() >= 70, counts
