"""The scripted Dungeon Kart heuristic: always legal, finishes races, and
beats random play clearly."""

import numpy as np
import pytest
from helpers.kart_util import check_invariants, content, new_state

from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart import rules as R
from dungeonrl.envs.dungeon_kart.policy import policy_row


def _game(n, seed, track, hero_seats, ct, check=False):
    T = ct.record[0]
    s = new_state(n, seed=seed, track=track, ct=ct, max_rounds=40)
    st = s[0]
    prng = np.array([seed, 0], np.uint64)
    r = np.random.default_rng(seed)
    rew = np.zeros(n, np.float32)
    mask = np.zeros(C.NUM_ACTIONS, np.uint8)
    while st["outcome"] == 0:
        R.legal_row(st, T, mask)
        if st["actor"] in hero_seats:
            a = policy_row(st, T, prng)
            assert mask[a], C.ACTIONS.names()[a]
        else:
            a = int(r.choice(np.flatnonzero(mask)))
        R.apply_row(st, T, a, rew)
        if check:
            check_invariants(st, ct)
    return st, rew


def test_heuristic_self_play_finishes():
    ct = content()
    for track in range(4):
        st, rew = _game(4, 50 + track, track, set(range(4)), ct, check=True)
        assert st["outcome"] == C.O_RACE_OVER and st["round"] < 40
        assert abs(float(rew.sum())) < 1e-5


@pytest.mark.parametrize("n", [2, 4, 8])
def test_heuristic_beats_random(n):
    ct = content()
    wins = 0
    games = 12
    for g in range(games):
        hero = g % n
        st, rew = _game(n, 200 + g, g % 4, {hero}, ct)
        wins += int(rew[hero] == rew.max() and rew.max() > 0)
    assert wins >= games - 2
