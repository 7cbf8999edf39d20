"""The fast Dungeon Kart encoder (a precomputed static row per hex plus the
dynamic overlay) writes exactly the bits of the per-hex reference encoder it
replaced (``tests/helpers/kart_encoder_ref.py``): on played states of every shipped
track and player count, for every seat; on states whose grass, tokens,
facings and kart positions are scrambled (every overlay branch, every
facing's wall turn); on a custom board; and on a row full of garbage (no
column is left from the previous observation)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.kart_encoder_ref import observe_batch_ref

from dungeonrl.encoders import dungeon_kart as enc
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart import hexgeo as H
from dungeonrl.envs.dungeon_kart.content import load_content
from dungeonrl.envs.dungeon_kart.core import DungeonKartCore

CUSTOM = """name: Wall Loop
dir: E
1 2 . . m w . . g . ."""


def _both(core, st, seats, fill=0.0):
    new = np.full((len(st), enc.OBS_SIZE), fill, np.float32)
    ref = np.zeros((len(st), enc.OBS_SIZE), np.float32)
    seats = np.ascontiguousarray(seats, np.int64)
    core.observe(st, seats, new)
    observe_batch_ref(st, core.TR, seats, ref)
    return new, ref


def _assert_same_bits(core, st, fill=0.0):
    n = int(st[0]["num_players"])
    for seat in range(n):
        new, ref = _both(core, st, np.full(len(st), seat), fill)
        bad = np.nonzero(new.view(np.uint32) != ref.view(np.uint32))
        if bad[0].size:
            i, j = int(bad[0][0]), int(bad[1][0])
            raise AssertionError(
                f"seat {seat}, row {i}: column {j} "
                f"({enc.FEATURE_NAMES[j]}) is {new[i, j]!r}, "
                f"the reference {ref[i, j]!r} ({bad[0].size} columns differ)"
            )


def _played(core, envs=16, chunks=6, steps=40, seed=0):
    st = core.alloc(envs)
    core.reset(st, np.arange(envs, dtype=np.uint64) + 100 * seed)
    obs = np.zeros((envs, core.spec.obs_size), np.float32)
    masks = np.zeros((envs, core.spec.num_actions), np.uint8)
    stats = np.zeros(4, np.int64)
    yield st
    for k in range(chunks):
        core.random_rollout(st, steps, 7 + k + seed, obs, masks, stats)
        yield st


@pytest.mark.parametrize("players", [2, 4, 8])
def test_played_states_match_the_reference(players):
    ct = load_content()
    tracks = [
        t for t in range(len(ct.track_names)) if int(ct.tables.tr_nstart[t]) >= players
    ]  # the tracks that seat them
    assert tracks
    for track in tracks:
        core = DungeonKartCore(num_players=players, track=track, draft="random")
        for st in _played(core):
            _assert_same_bits(core, st)


def test_scrambled_states_match_the_reference():
    core = DungeonKartCore(num_players=8, draft="random")
    gen = np.random.default_rng(3)
    for st in _played(core, envs=24, chunks=3, steps=30):
        st = st.copy()
        tk = int(st[0]["track"])
        on = np.flatnonzero(core.TR[0]["tr_terr"][tk] != C.T_OFF)
        for row in st:
            row["grass"][:] = gen.random(H.NCELL) < 0.2
            row["tok"][:] = np.where(
                gen.random(H.NCELL) < 0.3, gen.integers(0, C.K_GRASS + 1, H.NCELL), 0
            )
            row["facing"][:] = gen.integers(0, 6, C.MAX_P)
            # karts crowd the first kart's patch, some on one hex, some off-track
            base = int(row["pos"][0]) if row["pos"][0] >= 0 else int(on[0])
            for s in range(1, C.MAX_P):
                if gen.random() < 0.5:
                    row["pos"][s] = (
                        base + int(gen.integers(-3, 4)) + H.BOARD_W * int(gen.integers(-3, 4))
                    )
        _assert_same_bits(core, st)
    # positive control: grass on a patch hex changes the observation
    row = st[:1].copy()
    row[0]["grass"][:] = 0
    row[0]["tok"][:] = 0
    a, _ = _both(core, row, np.zeros(1))
    row[0]["grass"][int(row[0]["pos"][0])] = 1
    b, _ = _both(core, row, np.zeros(1))
    assert not np.array_equal(a, b)


def test_custom_board_and_a_dirty_row_match_the_reference():
    core = DungeonKartCore(num_players=2, track=CUSTOM, draft="random")
    for st in _played(core, envs=8, chunks=3, steps=20):
        _assert_same_bits(core, st, fill=np.nan)  # nothing of the old row survives
    core4 = DungeonKartCore(num_players=4, draft="random")
    for st in _played(core4, envs=8, chunks=2, steps=50):
        st = st.copy()
        st["pos"][:, 0] = -1  # no kart on the board: no patch
        _assert_same_bits(core4, st, fill=7.0)


def test_static_table_is_what_the_encoder_documents():
    ct = load_content()
    tab = ct.tables.hex_static
    assert tab.dtype == np.float32 and tab.shape == (C.MAX_TRACKS, H.NCELL, enc.SW)
    off = ct.tables.tr_terr == C.T_OFF
    assert not tab[off].any()  # off-track cells are all zero
    assert (tab[~off][:, 0] == 1.0).all()
    assert not tab[..., len(enc.STATIC_COLS) :].any()  # the padding
    # the static columns are the run before the tokens plus three; every
    # other patch column is dynamic (overlaid from the state)
    dyn = [
        enc.H_ME,
        enc.H_KARTS,
        enc.H_KSPEED,
        *range(enc.H_TOK, enc.H_FINISH),
        *range(enc.H_KFACE, enc.H_KFACE + 6),
    ]
    assert sorted(set(range(enc.HEXF)) - set(dyn)) == list(enc.STATIC_COLS)
    assert enc.S_RUN == enc.H_TOK
