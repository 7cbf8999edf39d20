"""The compact observation (``obs_dtype="float16"``, envs/core/kernel/half.py).

* the kernels' rounding to half precision (the native vector conversion,
  its streamed variant and the portable integer version) gives numpy's
  ``astype(np.float16)`` bits at every offset and length, ties and
  subnormals included;
* the information test, for every game and seat count: a float16 batch
  and a float32 batch played in lockstep hold the same games (masks,
  rewards, ends identical), and every compact observation is the float32
  observation rounded to half (bit for bit), so decoding it
  (``astype(np.float32)``) gives the float32 observation exactly for
  integer values up to 2,048 and within a relative 2**-11 otherwise;
* the adapters: spaces, argument errors, final observations, a
  self-play view;
* the default observation is untouched (its goldens are
  tests/golden; here: the float32 batch beside a float16 one is the
  batch alone).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from numba import njit

from dungeonrl.benchmarks.suite.games import make_core
from dungeonrl.envs.core.batch import Batch
from dungeonrl.envs.core.kernel.half import HALF_NATIVE, f16_bits_soft, half_row, stream_row
from dungeonrl.envs.core.kernel.memops import store_fence
from dungeonrl.envs.core.validate import check_obs_dtype
from dungeonrl.registry import get_spec


@njit(cache=False)
def _half(dst, src):
    half_row(dst, src)


@njit(cache=False)
def _stream(dst, src):
    stream_row(dst, src)
    store_fence()


@njit(cache=False)
def _soft_all(src, out):
    for j in range(src.shape[0]):
        out[j] = f16_bits_soft(src[j])


def _numpy_bits(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # beyond half's range: infinity, as intended
        return x.astype(np.float16).view(np.uint16)


def _hard_floats(rng, n: int) -> np.ndarray:
    """Random float32 bit patterns (NaN excluded: its payload is not
    specified) plus the edges: zeros, the half range's ends, subnormals,
    exact ties of the half grid."""
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[~np.isnan(x)]
    h = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    h = h[np.isfinite(h)].astype(np.float64)
    grid = np.sort(h)
    mids = (grid[:-1] + grid[1:]) / 2  # ties: exactly between two halves
    edges = np.array(
        [
            0.0,
            -0.0,
            65504,
            65519.99,
            65520,
            1e9,
            -1e9,
            np.inf,
            -np.inf,
            2**-24,
            2**-25,
            2**-26,
            3 * 2**-26,
            6.1e-5,
            1 / 3,
            0.1,
            20 / 12,
        ],
        np.float64,
    )
    return np.concatenate([x, grid, mids, edges, -mids]).astype(np.float32)


def test_portable_rounding_is_numpys_on_every_kind_of_float():
    x = _hard_floats(np.random.default_rng(0), 400_000)
    out = np.zeros(len(x), np.uint16)
    _soft_all(x, out)
    want = _numpy_bits(x)
    bad = np.flatnonzero(out != want)
    assert not len(bad), [(float(x[i]), hex(out[i]), hex(want[i])) for i in bad[:5]]


def test_portable_rounding_keeps_nan_a_nan():
    out = np.zeros(2, np.uint16)
    _soft_all(np.array([np.nan, -np.nan], np.float32), out)
    assert np.isnan(out.view(np.float16)).all()


def test_row_conversion_is_numpys_at_every_offset_and_length():
    rng = np.random.default_rng(1)
    vals = _hard_floats(rng, 5000)
    big = np.zeros(4200, np.uint16)
    for off in range(0, 33):  # every 2-byte alignment within a 64-byte line
        for n in (0, 1, 7, 15, 16, 17, 31, 32, 33, 64, 100, 1000, 3633):
            src = rng.choice(vals, n).astype(np.float32)
            for fn in (_half, _stream):
                big[:] = 0xABCD
                fn(big[off : off + n], src)
                assert np.array_equal(big[off : off + n], _numpy_bits(src)), (fn, off, n)
                assert (big[:off] == 0xABCD).all() and (big[off + n :] == 0xABCD).all()


def test_row_conversion_of_odd_and_strided_destinations():
    rng = np.random.default_rng(2)
    src = rng.standard_normal(300).astype(np.float32)
    raw = np.zeros(2 * 300 + 8, np.uint8)
    dst = raw[1 : 1 + 600].view(np.uint16)  # not aligned to 2 bytes: plain stores
    for fn in (_half, _stream):
        dst[:] = 0
        fn(dst, src)
        assert np.array_equal(dst, _numpy_bits(src))
    m = np.zeros((50, 2), np.uint16)  # not contiguous: the element loop
    s2 = rng.standard_normal(50).astype(np.float32)
    _half(m[:, 1], s2)
    assert np.array_equal(m[:, 1], _numpy_bits(s2)) and (m[:, 0] == 0).all()


def test_this_machine_converts_natively():
    # every CI machine of the project is x86-64 with F16C (or ARM64); the
    # portable path is still checked above
    assert HALF_NATIVE


# --- the information test ---------------------------------------------------------------
CONFIGS = [
    ("unbroken", 1),
    ("dungeon_crawler", 2),
    ("dungeon_crawler", 4),
    ("dungeon_crawler", 8),
    ("dungeon_kart", 2),
    ("dungeon_kart", 4),
    ("dungeon_kart", 8),
    ("dcc_unstoppable", 1),
    ("dcc_unstoppable", 2),
]
#: half precision keeps 11 significant bits: rounding moves a normal value
#: by at most half a unit in the last place, 2**-11 of it
REL_TOL = 2.0**-11
#: below half's smallest normal (2**-14) the step is fixed, 2**-24
ABS_TOL = 2.0**-25


def check_decodes(f32: np.ndarray, f16: np.ndarray, where) -> None:
    """``f16`` is ``f32`` rounded to half, and decodes within the stated
    tolerance (exactly for integers up to 2,048)."""
    assert f16.dtype == np.float16 and f32.dtype == np.float32
    assert np.array_equal(f32.astype(np.float16).view(np.uint16), f16.view(np.uint16)), where
    dec = f16.astype(np.float32)
    assert np.isfinite(dec).all() and np.isfinite(f32).all(), where  # nothing beyond half's range
    ints = (f32 == np.round(f32)) & (np.abs(f32) <= 2048)
    assert np.array_equal(dec[ints], f32[ints]), where
    err = np.abs(dec.astype(np.float64) - f32)
    assert (err <= np.maximum(REL_TOL * np.abs(f32), ABS_TOL)).all(), where


def _lockstep(core, n: int, steps: int, seed: int):
    """A float32 and a float16 batch of the same games, random legal play
    (the same actions), the fused step; yields after every step."""
    a, b = Batch(core, n), Batch(core, n, "float16")
    seeds = np.arange(n, dtype=np.uint64) + np.uint64(seed)
    a.reset(seeds)
    b.reset(seeds)
    rng = np.random.default_rng(seed)
    yield a, b
    for _ in range(steps):
        act = (rng.random(a.masks.shape) * (a.masks != 0)).argmax(1)
        a.actions[:] = act
        b.actions[:] = act
        a.fused_step()
        b.fused_step()
        yield a, b


@pytest.mark.parametrize("game,players", CONFIGS, ids=[f"{g}-{p}p" for g, p in CONFIGS])
def test_compact_observation_carries_the_same_information(game, players):
    core = make_core(get_spec(game), players)
    seen_ends = 0
    nonint = 0
    for t, (a, b) in enumerate(_lockstep(core, 48, 160, 3)):
        where = (game, players, t)
        assert np.array_equal(a.masks, b.masks), where
        assert np.array_equal(a.rewards, b.rewards), where
        assert np.array_equal(a.terminated, b.terminated), where
        assert np.array_equal(a.truncated, b.truncated), where
        assert np.array_equal(a.players_out, b.players_out), where
        check_decodes(a.obs, b.obs, where)
        nonint += int((a.obs != np.round(a.obs)).sum())
        done = a.terminated | a.truncated
        if done.any():
            seen_ends += int(done.sum())
            check_decodes(a.final_obs[done], b.final_obs[done], where)
            fa, fb = a.final_states[done], b.final_states[done]
            assert all(np.array_equal(fa[k], fb[k]) for k in fa.dtype.names), where
    assert nonint > 0  # fractional features were exercised, not only one-hots
    if game in ("unbroken", "dcc_unstoppable"):  # the others outlast 160 random steps
        assert seen_ends > 0


@pytest.mark.parametrize("game,players", [("dungeon_kart", 2), ("dcc_unstoppable", 1)])
def test_big_compact_batches_are_streamed_and_round_alike(game, players):
    """A half batch big enough to be streamed (in the games that stream)
    holds the same rounded rows as the float32 batch beside it."""
    from dungeonrl.envs.core.kernel.memops import STREAM_BATCH_BYTES

    core = make_core(get_spec(game), players)
    n = -(-STREAM_BATCH_BYTES // (2 * core.spec.obs_size)) + 3
    for t, (a, b) in enumerate(_lockstep(core, n, 4, 7)):
        check_decodes(a.obs, b.obs, (game, t))
        assert np.array_equal(a.masks, b.masks) and np.array_equal(a.rewards, b.rewards)
        done = a.terminated | a.truncated
        check_decodes(a.final_obs[done], b.final_obs[done], (game, t))


@pytest.mark.parametrize("game,players", [("dungeon_kart", 2), ("dcc_unstoppable", 2)])
def test_compact_observation_of_every_seat_and_subset(game, players):
    """``observe_batch`` and ``observe_rows`` (the multi-agent views) round
    the same way, from any seat."""
    core = make_core(get_spec(game), players)
    n = 12
    buf = Batch(core, n)
    buf.reset(np.arange(n, dtype=np.uint64))
    for seat in range(players):
        seats = np.full(n, seat, np.int64)
        f32 = np.zeros((n, core.spec.obs_size), np.float32)
        f16 = np.zeros((n, core.spec.obs_size), np.float16)
        buf.observe_states(buf.states, seats, f32)
        buf.observe_states(buf.states, seats, f16)
        check_decodes(f32, f16, seat)
        rows = np.array([1, 5, 7])
        g32, g16 = np.zeros_like(f32), np.zeros_like(f16)
        m = np.zeros_like(buf.masks)
        buf.observe_some(buf.states, rows, seats, g32, m)
        buf.observe_some(buf.states, rows, seats, g16, m)
        check_decodes(g32[rows], g16[rows], seat)
        assert not g16[np.setdiff1d(np.arange(n), rows)].any()


# --- adapters ------------------------------------------------------------------------------
def test_single_env_compact_observation():
    env = gym.make("dungeonrl/Unbroken-v0", obs_dtype="float16")
    ref = gym.make("dungeonrl/Unbroken-v0")
    assert env.observation_space.dtype == np.float16
    assert ref.observation_space.dtype == np.float32
    o16, i16 = env.reset(seed=4)
    o32, i32 = ref.reset(seed=4)
    rng = np.random.default_rng(4)
    for t in range(200):
        assert o16.dtype == np.float16 and o16 in env.observation_space
        check_decodes(o32, o16, "single")
        a = int(rng.choice(np.flatnonzero(i32["action_mask"])))
        o16, r16, te16, tr16, i16 = env.step(a)
        o32, r32, te32, tr32, i32 = ref.step(a)
        assert (r16, te16, tr16) == (r32, te32, tr32)
        if te32 or tr32:
            o16, i16 = env.reset(seed=t)
            o32, i32 = ref.reset(seed=t)


def test_vector_env_compact_observation_and_final_obs():
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    env = DungeonVectorEnv("dcc_unstoppable", num_envs=6, obs_dtype="float16")
    ref = DungeonVectorEnv("dcc_unstoppable", num_envs=6)
    assert env.single_observation_space.dtype == np.float16
    assert env.observation_space.dtype == np.float16
    o16, i16 = env.reset(seed=9)
    o32, _ = ref.reset(seed=9)
    rng = np.random.default_rng(9)
    ended = 0
    for t in range(300):
        assert o16 in env.observation_space
        check_decodes(o32, o16, t)
        act = (rng.random(i16["action_mask"].shape) * i16["action_mask"]).argmax(1)
        o16, _, _, _, i16 = env.step(act)
        o32, _, _, _, i32 = ref.step(act)
        if "final_obs" in i32:
            for k in np.flatnonzero(i32["_final_obs"]):
                check_decodes(i32["final_obs"][k], i16["final_obs"][k], t)
                ended += 1
    assert ended > 0


def test_obs_dtype_errors_are_clear():
    for bad in ("float64", "half-ish", np.int8, 16, None, True):
        with pytest.raises(ValueError, match="obs_dtype"):
            check_obs_dtype(bad)
    with pytest.raises(ValueError, match="obs_dtype"):
        gym.make("dungeonrl/Unbroken-v0", obs_dtype="uint8")
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    for bad in ("", "float64", 0):
        with pytest.raises(ValueError, match="obs_dtype"):
            DungeonVectorEnv("unbroken", num_envs=2, obs_dtype=bad)
    assert check_obs_dtype(np.float16) == np.float16 and check_obs_dtype("float32") == np.float32


def test_gymnasium_checker_passes_on_the_compact_env():
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make("dungeonrl/Unbroken-v0", obs_dtype="float16").unwrapped)


def test_pettingzoo_envs_compact_observation():
    from pettingzoo.test import api_test, parallel_api_test

    from dungeonrl.envs.core.adapters.aec import DungeonAECEnv
    from dungeonrl.envs.core.adapters.parallel import DungeonParallelEnv

    env = DungeonAECEnv("dungeon_kart", obs_dtype="float16", num_players=3)
    ref = DungeonAECEnv("dungeon_kart", num_players=3)
    space = env.observation_space("player_0")["observation"]
    assert space.dtype == np.float16
    env.reset(seed=5)
    ref.reset(seed=5)
    rng = np.random.default_rng(5)
    for t in range(150):
        for agent in env.agents:  # every seat's view, not only the acting one
            o16, o32 = env.observe(agent), ref.observe(agent)
            assert o16["observation"] in space
            check_decodes(o32["observation"], o16["observation"], (t, agent))
            assert np.array_equal(o16["action_mask"], o32["action_mask"])
        mask = ref.observe(ref.agent_selection)["action_mask"]
        a = int(rng.choice(np.flatnonzero(mask)))
        env.step(a)
        ref.step(a)
    api_test(DungeonAECEnv("dungeon_crawler", obs_dtype="float16"), num_cycles=60)
    parallel_api_test(DungeonParallelEnv("dungeon_kart", obs_dtype="float16"), num_cycles=60)


def test_selfplay_view_compact_observation():
    from dungeonrl.agents.algos.selfplay import make_view

    core = make_core(get_spec("dungeon_crawler"), 2)
    views = [
        make_view(core, 16, "random:1", seed=2, snapshot_slots=0, obs_dtype=d)
        for d in ("float32", "float16")
    ]
    for v in views:
        v.reset(np.arange(16, dtype=np.uint64))
    rng = np.random.default_rng(2)
    for t in range(60):
        a, b = views
        assert b.obs.dtype == np.float16
        check_decodes(a.obs, b.obs, t)
        act = (rng.random(a.masks.shape) * (a.masks != 0)).argmax(1)
        a.actions[:] = act
        b.actions[:] = act
        a.fused_step()
        b.fused_step()
        assert np.array_equal(a.reward, b.reward)


def test_maskable_ppo_learns_from_the_compact_vec_env():
    """SB3 stores the float16 observations as they come (its rollout buffer
    takes the space's dtype) and casts them to float32 in the policy."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv

    venv = DungeonSB3VecEnv("unbroken", num_envs=4, seed=0, obs_dtype="float16")
    assert venv.observation_space.dtype == np.float16
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu", verbose=0
    )
    model.learn(total_timesteps=256)
    assert model.rollout_buffer.observations.dtype == np.float16
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks())
    _, _, _, infos = venv.step(actions)
    assert not any(i["illegal_action"] for i in infos)
