"""Dungeon Crawler Carl: Unstoppable encoder and renderer at row level:
feature spec, finiteness, hidden information (resampling what a seat cannot
see leaves its observation unchanged; a visible change does change it), and
the two renderers."""

import numpy as np
import pytest

from dungeonrl.encoders import dcc_unstoppable as E
from dungeonrl.envs.core.kernel.rng import rng_choice_mask, rng_seed
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable import render as RD
from dungeonrl.envs.dcc_unstoppable import rules as R
from dungeonrl.envs.dcc_unstoppable.content import default_content
from dungeonrl.envs.dcc_unstoppable.state import STATE_DTYPE

CC = default_content()
T = CC.record[0]
SL_FIELDS = (
    "sl_core",
    "sl_up",
    "sl_dmg",
    "sl_loom",
    "sl_exh",
    "sl_owner",
    "sl_zone",
    "sl_seen",
    "sl_rep",
)


def cfg(floor=1):
    c = np.zeros(C.CFG_SIZE, np.int64)
    c[C.CFG_FLOOR] = floor
    c[C.CFG_RACE0 : C.CFG_RACE0 + 2] = C.RC_PRESET
    c[C.CFG_CLASS0 : C.CFG_CLASS0 + 2] = C.RC_PRESET
    c[C.CFG_DECK0 :] = -1
    return c


def played(num_players, seed, steps):
    arr = np.zeros(1, STATE_DTYPE)
    st = arr[0]
    rng_seed(st["rng"], seed, 0)
    st["num_players"] = num_players
    st["max_steps"] = 5000
    R.configure_row(st, cfg(1 + seed % 3))
    R.reset_row(st, T)
    mask = np.zeros(C.NUM_ACTIONS, np.uint8)
    rew = np.zeros(2, np.float32)
    pr = np.array([seed + 5, 0], np.uint64)
    for _ in range(steps):
        if st["outcome"]:
            break
        R.legal_row(st, T, mask)
        R.apply_row(st, T, rng_choice_mask(pr, mask), rew)
    return arr


def obs(arr, seat):
    out = np.zeros(E.OBS_SIZE, np.float32)
    E.encode_row(arr[0], T, seat, out)
    return out


def swap_sleeves(st, a, b):
    for f in SL_FIELDS:
        tmp = st[f][a].copy()
        st[f][a] = st[f][b]
        st[f][b] = tmp
    for f in ("deck", "hand", "disc", "bf", "play"):
        x = st[f]
        ma, mb = x == a, x == b
        x[ma], x[mb] = b, a
    t = st["tdeck"]
    ma, mb = t == a, t == b
    t[ma], t[mb] = b, a


def resample_hidden(arr, rng):
    st = arr[0]
    for p in range(st["num_players"]):
        n = st["deck_n"][p]
        if n > 2:
            st["deck"][p][: n - 1] = rng.permutation(st["deck"][p][: n - 1])
    for d in range(C.MAX_LEVEL_DECK):
        n = st["cdeck_n"][d]
        if n > 2:
            st["cdeck"][d][: n - 1] = rng.permutation(st["cdeck"][d][: n - 1])
    n = st["tdeck_n"]
    st["tdeck"][:n] = rng.permutation(st["tdeck"][:n])
    n = st["udeck_n"]
    st["udeck"][:n] = rng.permutation(st["udeck"][:n])
    n = st["dungeon_n"]
    st["dungeon"][:n] = rng.permutation(st["dungeon"][:n])
    st["rng"][:] = rng.integers(0, 2**62, size=2, dtype=np.uint64)
    # an unseen threat side in a hand trades places with one in the threat deck
    unseen = [s for s in st["hand"][0][: st["hand_n"][0]] if not st["sl_seen"][s]]
    if unseen and st["tdeck_n"]:
        swap_sleeves(st, int(unseen[0]), int(st["tdeck"][0]))


def test_feature_spec():
    names = E.feature_names()
    assert len(names) == E.OBS_SIZE == sum(k for _, _, k in E.FEATURES)
    assert len(set(names)) == len(names)
    assert E.SEAT_SIZE * 2 < E.OBS_SIZE


@pytest.mark.parametrize("num_players", [1, 2])
def test_hidden_information_resampling(num_players):
    rng = np.random.default_rng(num_players)
    checked = 0
    for seed in range(12):
        for steps in (5, 20, 45):
            arr = played(num_players, seed, steps)
            if arr[0]["outcome"]:
                continue
            for seat in range(num_players):
                o1 = obs(arr, seat)
                assert np.isfinite(o1).all()
                b = arr.copy()
                resample_hidden(b, rng)
                assert np.array_equal(o1, obs(b, seat)), (seed, steps, seat)
                checked += 1
                # positive control: what the seat sees changes the observation
                c = arr.copy()
                c[0]["health"][seat] -= 1
                assert not np.array_equal(o1, obs(c, seat))
    assert checked > 10


def test_renderers():
    for num_players in (1, 2):
        arr = played(num_players, 3, 15)
        st = arr[0]
        text = RD.render_ansi(st)
        assert "Danger" in text and "battlefield" in text
        assert ("Princess Donut" in text) == (num_players == 2)
        img = RD.render_rgb(st)
        assert img.shape == (720, 1100, 3) and img.dtype == np.uint8 and img.std() > 5
        for a in range(C.NUM_ACTIONS):
            assert isinstance(RD.describe_action(st, a), str)
