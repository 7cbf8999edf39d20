"""The fast paths of the adapters (issue 12) give what the generic paths
give: compiled entry points, batched episode infos, the observation pool,
raw-word seeds and the checked AEC env's rejections."""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.benchmarks.suite.checks import RandomLegalSampler
from dungeonrl.envs import dungeon_crawler_v0
from dungeonrl.envs.core.adapters.aec import CheckedAECEnv, OrderError, OutOfBoundsActionError
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv, _ArrayPool, batch_infos
from dungeonrl.envs.core.common import draw_seeds, scatter_columns
from dungeonrl.envs.core.errors import InvalidActionError
from dungeonrl.envs.core.kernel.fastcall import entry_point


@pytest.mark.parametrize("bg", [np.random.PCG64, np.random.SFC64, np.random.MT19937])
def test_draw_seeds_same_as_integers(bg):
    a, b = np.random.Generator(bg(3)), np.random.Generator(bg(3))
    for n in (1, 7):
        got = draw_seeds(a, n)
        want = b.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)
        assert got.dtype == np.uint64 and np.array_equal(got, want)


def test_entry_point_is_compiled_overload_and_agrees():
    from dungeonrl.envs.core.batch import Batch
    from dungeonrl.envs.core.common import resolve_core

    core = resolve_core("unbroken", {})
    buf = Batch(core, 3)
    buf.reset(np.array([5, 6, 7], np.uint64))
    args = (buf.states, core.TR, buf.players, buf.obs)
    fn = entry_point(core.kernels.observe_batch, args)
    assert fn is not core.kernels.observe_batch
    want = np.zeros_like(buf.obs)
    core.observe(buf.states, buf.players, want)
    buf.obs[:] = -1
    fn(*args)
    assert np.array_equal(buf.obs, want)


def test_pool_never_reuses_a_held_array():
    first = np.zeros((4, 3), np.float32)
    pool = _ArrayPool(first)
    a = pool.free(first)  # first is handed out: a new array
    assert a is not first
    view = first[1]  # a view keeps its base alive
    del first
    b = pool.free(a)
    assert b is not view.base and b is not a
    del view
    c = pool.free(b)  # nothing holds the first array now
    assert c is pool.arrays[0]


def test_vector_env_returned_arrays_are_never_written_again():
    env = DungeonVectorEnv("unbroken", num_envs=16)
    obs, infos = env.reset(seed=1)
    kept = [obs.copy()]
    held = [obs]
    for _ in range(30):
        a = infos["action_mask"].argmax(1).astype(np.int64)
        obs, _, _, _, infos = env.step(a)
        for h, k in zip(held, kept):
            assert np.array_equal(h, k)
        held.append(obs)
        kept.append(obs.copy())


@pytest.mark.parametrize("game", ["unbroken", "dcc_unstoppable"])
def test_vector_final_info_columns_match_per_row_infos(game):
    env = DungeonVectorEnv(game, num_envs=64)
    _, infos = env.reset(seed=2)
    core, seen = env.core, 0
    sampler = RandomLegalSampler(4)
    a = np.zeros(env.num_envs, np.int64)
    for _ in range(400):
        sampler.batch(infos["action_mask"], a)
        _, _, te, tr, infos = env.step(a)
        done = np.flatnonzero(te | tr)
        if not len(done):
            continue
        fs = env._run.buf.final_states
        rows = [core.episode_info(fs[i]) for i in done]
        want = batch_infos(rows, done.tolist(), env.num_envs)
        got = scatter_columns(core.episode_info_batch(fs, done), done, env.num_envs)
        assert list(got) == list(want)
        for k in want:
            assert got[k].dtype == want[k].dtype, k
            assert list(got[k]) == list(want[k]), k
        fi = infos["final_info"]
        for k in want:
            assert list(fi[k]) == list(want[k]), k
        seen += 1
    assert seen > 5


def test_checked_aec_rejects_what_the_pettingzoo_wrappers_reject():
    e = dungeon_crawler_v0.env(num_players=3)
    assert isinstance(e, CheckedAECEnv)
    for name in ("rewards", "agents", "agent_selection", "num_agents", "infos"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(e, name)
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), e.state, lambda: e.agent_iter()):
        with pytest.raises(AssertionError):
            call()
    with pytest.raises(OrderError):
        e.step(0)
    e.reset(seed=4)
    n = e.action_space(e.agent_selection).n
    for bad in (-1, n, 1.0, "1", [0], np.array([0.0]), np.array([0, 1]), np.float32(0), True, None):
        with pytest.raises(OutOfBoundsActionError):
            e.step(bad)
        with pytest.raises(InvalidActionError):
            e.step(bad)
    obs = e.observe(e.agent_selection)
    e.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))  # numpy ints pass
    it = iter(e.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="step"):
        next(it)  # no step between two agents


def test_checked_aec_same_trajectory_as_raw():
    for seed in (0, 1):
        a, b = dungeon_crawler_v0.env(num_players=4), dungeon_crawler_v0.raw_env(num_players=4)
        a.reset(seed=seed)
        b.reset(seed=seed)
        for _ in range(400):
            if not a.agents:
                assert not b.agents
                break
            assert a.agent_selection == b.agent_selection
            oa, ra, ta, ua, ia = a.last()
            ob, rb, tb, ub, ib = b.last()
            for ag in a.agents:
                x, y = a.observe(ag), b.observe(ag)
                assert np.array_equal(x["observation"], y["observation"])
                assert np.array_equal(x["action_mask"], y["action_mask"])
            assert (ra, ta, ua, ia) == (rb, tb, ub, ib)
            act = None if (ta or ua) else int(np.flatnonzero(oa["action_mask"])[-1])
            a.step(act)
            b.step(act)
