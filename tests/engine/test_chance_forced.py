"""Forced shuffles (envs/core/kernel/chance.py): a test queues the order a shuffle
leaves its pile in, next to forced dice; a forced shuffle is always a
permutation of the pile, whatever the queue holds; unforced shuffles draw
exactly as the generator's Fisher-Yates shuffle; two games' setup decks and
the shared reshuffle of ``zones.pile_draw`` obey a forced order."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from dungeonrl.envs.core.errors import CorruptStateError
from dungeonrl.envs.core.kernel import chance
from dungeonrl.envs.core.kernel.header import FORCED_CAP, state_dtype
from dungeonrl.envs.core.kernel.rng import rng_seed, rng_shuffle
from dungeonrl.envs.core.kernel.zones import pile_draw

REC = state_dtype(
    [
        ("deck", np.int16, (20,)),
        ("disc", np.int16, (20,)),
        ("deck_n", np.int8),
        ("disc_n", np.int8),
    ],
    1,
)


@njit(cache=False)
def _shuffle(states, arr, n):
    chance.shuffle(states[0], arr, n)


@njit(cache=False)
def _roll(states, sides):
    return chance.roll(states[0], sides)


@njit(cache=False)
def _draw(states):
    st = states[0]
    c, st.deck_n, st.disc_n = pile_draw(st, st.deck, st.deck_n, st.disc, st.disc_n)
    return c


def _rec(seed=3):
    states = np.zeros(1, REC)
    rng_seed(states[0]["rng"], seed, 0)
    return states


def _shuffled(states, cards):
    arr = np.array(cards, np.int16)
    _shuffle(states, arr, len(arr))
    return arr.tolist()


def test_a_forced_order_is_the_pile_after_the_shuffle():
    states = _rec()
    before = states[0]["rng"].copy()
    chance.force(states[0], [[2, 0, 1]])
    assert _shuffled(states, [10, 11, 12]) == [12, 10, 11]  # arr[[2, 0, 1]]
    # partial: the listed cards go on top (the end) in order, the rest keep theirs
    chance.force_order(states[0], [0, 3])
    assert _shuffled(states, [10, 11, 12, 13, 14]) == [11, 12, 14, 10, 13]
    chance.force(states[0], [[]])  # an empty order: as it is
    assert _shuffled(states, [5, 6, 7, 8]) == [5, 6, 7, 8]
    assert int(states[0]["forced_i"]) == int(states[0]["forced_n"])
    assert np.array_equal(states[0]["rng"], before)  # forced: no draws


def test_results_and_orders_wait_for_their_own_kind_of_call():
    states = _rec()
    chance.force(states[0], [4, [1, 0], 6])
    assert _roll(states, 6) == 4
    assert _shuffled(states, [7, 8]) == [8, 7]
    assert _roll(states, 6) == 6
    # a shuffle meeting a result draws freely and leaves the result queued
    chance.force(states[0], [5])
    arr = _shuffled(states, list(range(30)))
    assert sorted(arr) == list(range(30)) and int(states[0]["forced_i"]) == 0
    assert _roll(states, 6) == 5
    # a die meeting an order rolls freely and leaves the order queued
    chance.force(states[0], [[1, 0]])
    assert 1 <= _roll(states, 6) <= 6 and int(states[0]["forced_i"]) == 0
    assert _shuffled(states, [3, 4]) == [4, 3]


def test_unforced_shuffle_draws_exactly_as_the_generator():
    for seed in range(20):
        for n in (0, 1, 2, 5, 17):
            states = _rec(seed)
            r = states[0]["rng"].copy()
            want = np.arange(n, dtype=np.int16)
            rng_shuffle(r, want, n)
            assert _shuffled(states, list(range(n))) == want.tolist()
            assert np.array_equal(states[0]["rng"], r)


def test_any_queue_content_still_shuffles_to_a_permutation():
    rng = np.random.default_rng(0)
    for trial in range(400):
        states = _rec(trial)
        k = int(rng.integers(1, FORCED_CAP + 1))
        raw = rng.integers(-128, 0, size=k)  # any negative entries: markers, positions
        raw[rng.random(k) < 0.1] = 3  # results in between
        states[0]["forced"][:k] = raw
        states[0]["forced_n"] = k
        states[0]["forced_i"] = 0
        n = int(rng.integers(0, 21))
        cards = rng.permutation(40)[:n].tolist()
        for _ in range(3):
            cards = _shuffled(states, cards)
            assert len(cards) == n and len(set(cards)) == n
        assert 0 <= int(states[0]["forced_i"]) <= k


def test_duplicate_and_out_of_range_positions_stay_a_permutation():
    states = _rec()
    # the raw encoding: order of 3 positions: 1, 1 (again -> 2), 99 (-> the last, 3)
    states[0]["forced"][:4] = [-4, -2, -2, -100]
    states[0]["forced_n"], states[0]["forced_i"] = 4, 0
    assert _shuffled(states, [10, 11, 12, 13]) == [10, 11, 12, 13]
    states[0]["forced"][:4] = [-4, -4, -4, -4]  # positions 3, 3 -> 0, 3 -> 1
    states[0]["forced_i"] = 0
    assert _shuffled(states, [10, 11, 12, 13]) == [12, 13, 10, 11]


def test_order_for_turns_a_pile_into_the_wanted_one():
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 5, 12, 16):
        for _ in range(30):
            before = rng.permutation(50)[:n].tolist()
            after = rng.permutation(before).tolist()
            try:
                order = chance.order_for(before, after)
            except ValueError:
                assert n == 16  # too long for the queue
                continue
            states = _rec()
            chance.force_order(states[0], order)
            assert _shuffled(states, before) == after
            top = after[-3:]
            states = _rec()
            chance.force_order(states[0], chance.order_for(before, top))
            got = _shuffled(states, before)
            assert got[len(got) - len(top) :] == top
    assert chance.order_for([4, 5, 6], [4, 5, 6]) == []
    assert chance.order_for([4, 5, 6], [4, 6, 5]) == [1]  # 4 and 6 stay below
    with pytest.raises(ValueError, match="card 9"):
        chance.order_for([1, 2], [9])


def test_force_refuses_bad_queues_before_changing_anything():
    states = _rec()
    chance.force(states[0], [2])
    for bad, err, what in (
        ([list(range(16))], ValueError, "at most 15 positions"),
        ([[1, 1]], ValueError, "once"),
        ([[128]], ValueError, "0..127"),
        ([-1], ValueError, "0..127"),
        ([[True]], TypeError, "int"),
        ([1.5], TypeError, "int"),
        ([3] * 14 + [[1, 2]], ValueError, "16"),
    ):
        with pytest.raises(err, match=what):
            chance.force(states[0], bad)
        assert states[0]["forced"][0] == 2 and int(states[0]["forced_n"]) == 1


def test_the_reshuffle_of_pile_draw_is_forced():
    states = _rec()
    st = states[0]
    st["disc"][:4] = [20, 21, 22, 23]
    st["disc_n"], st["deck_n"] = 4, 0
    chance.force_order(st, [2, 0, 3, 1])
    assert _draw(states) == 21  # the pile is now 22 20 23 21: 21 on top
    assert st["deck"][:3].tolist() == [22, 20, 23] and int(st["disc_n"]) == 0


# --- two games: forced setup decks, and the header check accepts orders -------------------
def _reset(core, forced, seed=11):
    st = core.alloc(1)
    chance.force(st[0], forced)
    core.reset(st, np.array([seed], np.uint64))
    return st[0]


def test_unbroken_setup_decks_follow_forced_orders():
    from dungeonrl.envs.unbroken.core import make_core

    core = make_core()
    base = _reset(core, [[]])  # the encounter deck as built
    n = int(base["enc_deck_n"])
    built = base["enc_deck"][:n].tolist()
    assert built == core.T.deck_cards[:n].tolist()
    want_top = [built[0], built[5], built[2]]
    skills = int(base["skill_deck_n"])
    st = _reset(core, [chance.order_for(built, want_top), [1, 0]])
    assert st["enc_deck"][n - 3 : n].tolist() == want_top
    assert st["skill_deck"][skills - 2 : skills].tolist() == [1, 0]  # the second shuffle
    # a record with a queued order passes the header check; a bad result does not
    st = _reset(core, [[]])
    chance.force(st, [[3, 1], 6])
    core.check_state(st)
    st["forced"][2] = 0  # Unbroken results are die faces 1..6
    with pytest.raises(CorruptStateError, match="'forced'"):
        core.check_state(st)


def test_carl_setup_core_deck_follows_a_forced_order():
    from dungeonrl.envs.dcc_unstoppable.core import make_core

    core = make_core(race="none", klass="none")  # straight to the first draft
    base = _reset(core, [[]])
    n = int(base["cdeck_n"][0])
    built = base["cdeck"][0, :n].tolist()
    assert built == sorted(built)  # level-1 cores in id order
    want = [built[3], built[0], built[7]]
    st = _reset(core, [chance.order_for(built, want)])
    # the draft revealed the top three: the last listed first
    assert sorted(st["reveal"][:3].tolist()) == sorted(want)
    assert st["reveal"][0] == built[7]
    core.check_state(st)
