"""Dungeon Kart encoder: size and names, egocentric patch, and hidden
information (resampling what a seat cannot see leaves its observation
unchanged; changing what it can see changes it)."""

import numpy as np
from helpers.kart_util import content, greedy, new_state, step

from dungeonrl.encoders import dungeon_kart as E
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart import hexgeo as H


def obs(s, ct, seat):
    out = np.zeros(E.OBS_SIZE, np.float32)
    E.encode_row(s[0], ct.record[0], seat, out)
    return out


def _played(n=4, steps=150, seed=5):
    ct = content()
    s = new_state(n, seed=seed, ct=ct)
    prng = np.random.default_rng(seed)
    for _ in range(steps):
        if s[0]["outcome"]:
            break
        step(s, greedy(s, ct, prng), ct)
    return s, ct


def test_names_and_size():
    assert len(E.FEATURE_NAMES) == E.OBS_SIZE == len(set(E.FEATURE_NAMES))
    assert E.NPATCH == 61


def test_patch_is_egocentric():
    s, ct = _played(steps=0)
    st = s[0]
    p = int(st["actor"])
    o0 = obs(s, ct, p)
    me = E.HEX_NAMES.index("me")
    centre = E._off.index((0, 0))
    assert o0[E.O_PATCH + centre * E.HEXF + me] == 1.0
    # turning the kart and the whole board by the same angle changes nothing
    # in the patch only if the board were symmetric; instead check that the
    # hex ahead in the patch is the world hex across the kart's facing
    ahead = E._off.index((1, 0))
    for f in range(6):
        st["facing"][p] = f
        o = obs(s, ct, p)
        n = H.neighbour_cell(int(st["pos"][p]), f)
        on = ct.tables.tr_terr[st["track"], n] != C.T_OFF
        assert o[E.O_PATCH + ahead * E.HEXF] == float(on)


def test_hidden_information_resampling():
    s, ct = _played()
    st = s[0]
    n = int(st["num_players"])
    for p in range(n):
        base = obs(s, ct, p)
        for trial in range(5):
            c = s.copy()
            r = np.random.default_rng(trial)
            # other seats' card kinds, deck orders, the bag and the generator
            for o in range(n):
                if o != p and c[0]["spell"][o] >= 0:
                    # swap the card for another one still in a deck
                    d = int(r.integers(3))
                    if c[0]["deck_n"][d] > 0:
                        i = int(r.integers(c[0]["deck_n"][d]))
                        c[0]["spell"][o], c[0]["deck"][d, i] = c[0]["deck"][d, i], c[0]["spell"][o]
            for d in range(3):
                k = int(c[0]["deck_n"][d])
                c[0]["deck"][d, :k] = r.permutation(c[0]["deck"][d, :k])
            k = int(c[0]["bag_n"])
            c[0]["bag"][:k] = r.permutation(c[0]["bag"][:k])
            c[0]["rng"][:] = r.integers(0, 2**62, 2)
            c[0]["forced"][:] = r.integers(0, 6, 16)
            assert np.array_equal(obs(c, ct, p), base)
    # positive controls: own card, a rival's coins and position are visible
    p = 0
    base = obs(s, ct, p)
    c = s.copy()
    c[0]["spell"][p] = 0 if c[0]["spell"][p] != 0 else 1
    assert not np.array_equal(obs(c, ct, p), base)
    c = s.copy()
    c[0]["coins"][1] += 1
    assert not np.array_equal(obs(c, ct, p), base)


def test_observation_finite_and_bounded():
    s, ct = _played(n=8, steps=300, seed=9)
    for p in range(8):
        o = obs(s, ct, p)
        assert np.isfinite(o).all() and np.abs(o).max() <= 10


def test_rival_in_the_patch_is_egocentric():
    s, ct = _played(n=2, steps=0)
    st = s[0]
    p = int(st["actor"])
    o = (p + 1) % int(st["num_players"])
    karts = E.HEX_NAMES.index("karts")
    fac0 = E.HEX_NAMES.index("kart_facing_0")
    for f in range(6):
        n = H.neighbour_cell(int(st["pos"][p]), f)
        st["facing"][p] = f
        st["pos"][o] = n
        st["facing"][o] = (f + 1) % 6
        ob = obs(s, ct, p)
        i = E._off.index((1, 0))
        base = E.O_PATCH + i * E.HEXF
        assert ob[base + karts] == 0.5
        assert ob[base + fac0 + 1] == 1.0  # rival faces one side to the right
