"""Streaming stores for big observation batches (envs/core/kernel/memops.py,
issue 12): ``stream_f32`` writes exactly what a plain copy writes, at any
offset and length; the vector-env kernel of a game that streams gives the
same observations, masks, rewards and final rows whether a batch is big
enough to be streamed or not."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from dungeonrl.benchmarks.suite.checks import RandomLegalSampler
from dungeonrl.benchmarks.suite.games import make_core
from dungeonrl.envs.core.batch import Batch
from dungeonrl.envs.core.kernel.memops import (
    STREAM_BATCH_BYTES,
    store_fence,
    stream_f32,
    stream_rows,
)
from dungeonrl.registry import get_spec


@njit(cache=False)
def _stream(dst, src):
    stream_f32(dst, src)
    store_fence()


@njit(cache=False)
def _decide(n, floats):
    return stream_rows(n, 4 * floats)  # float32 rows


def test_stream_copy_is_a_plain_copy_at_every_offset_and_length():
    rng = np.random.default_rng(0)
    big = np.zeros(4200, np.float32)
    for off in range(0, 33):  # every alignment within a 64-byte line
        for n in (0, 1, 3, 15, 16, 17, 31, 32, 33, 64, 100, 1000, 3633):
            src = rng.standard_normal(n).astype(np.float32)
            big[:] = -7.0
            _stream(big[off : off + n], src)
            assert np.array_equal(big[off : off + n], src), (off, n)
            assert (big[:off] == -7.0).all() and (big[off + n :] == -7.0).all(), (off, n)


def test_stream_copy_of_unaligned_and_strided_destinations():
    rng = np.random.default_rng(1)
    raw = np.zeros(4 * 300 + 8, np.uint8)
    dst = raw[1 : 1 + 1200].view(np.float32)  # not aligned to 4 bytes: plain stores
    src = rng.standard_normal(300).astype(np.float32)
    _stream(dst, src)
    assert np.array_equal(dst, src)
    m = np.zeros((50, 2), np.float32)  # not contiguous: the element loop
    s2 = rng.standard_normal(50).astype(np.float32)
    _stream(m[:, 1], s2)
    assert np.array_equal(m[:, 1], s2) and (m[:, 0] == 0).all()


def test_only_big_batches_are_streamed():
    for row in (428, 841, 3633):
        need = -(-STREAM_BATCH_BYTES // (4 * row))  # rows for a big enough batch
        assert _decide(need, row) and not _decide(need - 1, row)
    assert not _decide(1, 3633)  # one env (AEC, single env) never


def test_the_games_that_stream_declare_it():
    from dungeonrl.envs.core.kernel.freshness import load_kernels

    kernels = {
        g: load_kernels(g)
        for g in ("unbroken", "dungeon_crawler", "dungeon_kart", "dcc_unstoppable")
    }
    assert {g for g, k in kernels.items() if k.STREAM_OBS} == {
        "unbroken",
        "dungeon_kart",
        "dcc_unstoppable",
    }


def _step_all(game, players, n, chunk, steps):
    """Random legal play on ``n`` rows for ``steps`` fused steps, the kernel
    called on slices of ``chunk`` rows; everything it wrote, per step."""
    spec = get_spec(game)
    core = make_core(spec, players)
    buf = Batch(core, n)
    buf.reset(np.arange(n, dtype=np.uint64) + np.uint64(11))
    sampler = RandomLegalSampler(5)
    k = core.kernels.step_autoreset
    out = []
    for _ in range(steps):
        sampler.batch(buf.masks, buf.actions)
        for a in range(0, n, chunk):
            b = slice(a, a + chunk)
            k(
                buf.states[b],
                core.TR,
                buf.actions[b],
                buf.players_out[b],
                buf.obs[b],
                buf.masks[b],
                buf.rewards[b],
                buf.terminated[b],
                buf.truncated[b],
                buf.illegal[b],
                buf.final_obs[b],
                buf.final_states[b],
            )
        done = buf.terminated | buf.truncated
        out.append(
            (
                buf.obs.copy(),
                buf.masks.copy(),
                buf.rewards.copy(),
                done,
                buf.final_obs[done].copy(),
                buf.players_out.copy(),
                buf.illegal.copy(),
            )
        )
    return out


@pytest.mark.parametrize(
    "game,players", [("unbroken", 1), ("dungeon_kart", 2), ("dcc_unstoppable", 1)]
)
def test_streamed_batches_match_plain_ones(game, players):
    size = get_spec(game).obs_size
    n = -(-STREAM_BATCH_BYTES // (4 * size)) + 3  # just big enough to stream
    assert _decide(n, size) and not _decide(64, size)
    whole = _step_all(game, players, n, n, 4)
    parts = _step_all(game, players, n, 64, 4)
    for t, (a, b) in enumerate(zip(whole, parts)):
        for x, y in zip(a, b):
            assert np.array_equal(x, y), (game, t)
