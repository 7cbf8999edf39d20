"""Dungeon Crawler Carl: Unstoppable fast encoder (issue #14): the
observation is bit-identical to the reference encoder
(``tests/helpers/dcc_encoder_reference.py``, the per-call path it replaced) on every
record met along random games (solo floors 1-3, co-op, both seats), and the
derived feature tables are exactly the per-card functions' output."""

import numpy as np
import pytest
from helpers.dcc_encoder_reference import encode_row as reference_encode_row

from dungeonrl.encoders import dcc_unstoppable as E
from dungeonrl.envs.core.kernel.jit import JIT, njit
from dungeonrl.envs.core.kernel.rng import rng_seed
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable import kernels as K
from dungeonrl.envs.dcc_unstoppable.content import DERIVED_FIELDS, default_content
from dungeonrl.envs.dcc_unstoppable.core import DCCCore

CC = default_content()


@njit(**JIT)
def _compare_along(states, tabs, n_steps, seed, fast, ref, counts):
    """Random legal play on every row; after every step encode every seated
    seat with both encoders. Returns the first (row, step, seat) whose
    observations differ in any bit, or (-1, -1, -1). ``counts``: [compared
    observations, upgraded sleeves met in a hand or play area, threats
    seen]."""
    T = tabs[0]
    prng = np.zeros(2, np.uint64)
    rew = np.zeros(K.MAX_SEATS, np.float32)
    fb = fast.view(np.uint32)
    rb = ref.view(np.uint32)
    for i in range(states.shape[0]):
        rng_seed(prng, seed, i)
        st = states[i]
        for t in range(n_steps):
            a = K.sample_legal(prng, st.legal)
            te, tr, il = K.step_row(st, T, a, rew)
            if te or tr:
                K.restart(st, T)
            for p in range(st.num_players):
                fast[:] = 1.0  # junk: the encoder must clear what it does not write
                E.encode_row(st, T, p, fast)
                reference_encode_row(st, T, p, ref)
                counts[0] += 1
                for j in range(fb.shape[0]):
                    if fb[j] != rb[j]:
                        return i, t, p
                for h in range(min(st.hand_n[p], C.HAND_SLOTS)):
                    s = st.hand[p, h]
                    if s >= 0 and (st.sl_up[s, 0] >= 0 or st.sl_up[s, 1] >= 0):
                        counts[1] += 1
                for h in range(min(st.play_n[p], C.PLAY_SLOTS)):
                    s = st.play[p, h]
                    if s >= 0 and (st.sl_up[s, 0] >= 0 or st.sl_up[s, 1] >= 0):
                        counts[1] += 1
                counts[2] += st.bf_n[p]
    return -1, -1, -1


@pytest.mark.parametrize("players,floor", [(1, 1), (1, 2), (1, 3), (2, 1), (2, 3)])
def test_fast_encoder_is_bit_identical_to_the_reference(players, floor):
    core = DCCCore(num_players=players, floor=floor)
    st = core.alloc(8)
    core.reset(st, np.arange(8, dtype=np.uint64) + 100 * floor)
    fast = np.zeros(core.spec.obs_size, np.float32)
    ref = np.zeros(core.spec.obs_size, np.float32)
    counts = np.zeros(3, np.int64)
    where = _compare_along(st, core.TR, 600, 11 + floor, fast, ref, counts)
    assert where == (-1, -1, -1), f"observations differ at (row, step, seat) {where}"
    assert counts[0] == 8 * 600 * players
    # the comparison met the cases the fast path treats apart
    assert counts[1] > 0, "no upgraded sleeve in a hand or play area was met"
    assert counts[2] > 0, "no battlefield threat was met"


def test_derived_tables_are_the_per_card_features():
    T = CC.record[0]
    for c in range(C.NCORE):
        row = np.zeros(E.CORE_F, np.float32)
        E.core_id_feats(T, c, row, 0)
        assert CC.tables.c_feat[c].tobytes() == row.tobytes(), c
    for u in range(C.NUPGRADE):
        row = np.zeros(E.UPG_F, np.float32)
        E.upg_feats(T, u, row, 0)
        assert CC.tables.u_feat[u].tobytes() == row.tobytes(), u
    for f in DERIVED_FIELDS:
        assert CC.record[0][f].tobytes() == getattr(CC.tables, f).tobytes(), f
    for f in range(C.NFLOOR):
        for m in range(len(C.MODES)):
            for d in range(len(C.DIFFICULTIES)):
                for x in range(C.TRACK_MAX):
                    row = np.zeros(E.TRACK_F, np.float32)
                    E.track_feats(T, f, m, d, x, row, 0)
                    assert CC.tables.tr_feat[f, m, d, x].tobytes() == row.tobytes(), (f, m, d, x)


def test_derived_tables_stay_out_of_the_content_digest():
    from collections import namedtuple

    from dungeonrl.envs.core.authoring.content import tables_digest

    base_fields = tuple(f for f in CC.tables._fields if f not in DERIVED_FIELDS)
    Base = namedtuple("Base", base_fields)
    base = Base(**{f: getattr(CC.tables, f) for f in base_fields})
    assert tables_digest(base) == CC.digest
    assert set(DERIVED_FIELDS) <= set(CC.record.dtype.names)
    assert not CC.tables.c_feat.flags.writeable and not CC.tables.u_feat.flags.writeable


def test_reciprocal_scaling_is_exact_for_every_divisor_used():
    """The fast encoder writes ``x * (1.0 / d)`` where the reference wrote
    ``x / d``: the float32 stored is the same for every integer |x| < 2**20
    (state fields are small ints), for each divisor the source uses."""
    import inspect
    import re

    used = {float(d) for d in re.findall(r"\(1\.0 / (\d+\.0)\)", inspect.getsource(E))}
    assert {5.0, 10.0, 40.0} <= used
    x = np.arange(-(1 << 20), 1 << 20, dtype=np.int64).astype(np.float64)
    for d in sorted(used):
        a = (x / d).astype(np.float32).view(np.uint32)
        b = (x * (1.0 / d)).astype(np.float32).view(np.uint32)
        assert np.array_equal(a, b), d
