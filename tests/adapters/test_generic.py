"""Tests of the generic adapters (``DungeonEnv``, ``DungeonVectorEnv``,
``DungeonSB3VecEnv``), the registry and the CLI, driven by the test-only
fixture game ``tests/helpers/fixture_game.py`` ("race to 10").

Game-specific behaviour is tested with each game; here the fixture only has
to be a real numba ``GameCore`` so every adapter path runs for real.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
import warnings

import gymnasium as gym
import numpy as np
import pytest
from helpers import fixture_game as fg

import dungeonrl
from dungeonrl import registry
from dungeonrl.cli import main as cli_main
from dungeonrl.envs import specs
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.vector import SAME_STEP, DungeonVectorEnv
from dungeonrl.envs.core.errors import (
    CorruptStateError,
    IllegalActionError,
    InvalidActionError,
    ResetNeededError,
    SnapshotError,
    UnknownGameError,
)
from dungeonrl.envs.core.snapshot import Snapshot

registry.register_game(fg.SPEC, "helpers.fixture_game")
ENV_ID = fg.SPEC.env_id
A = fg.NUM_ACTIONS


# --- helpers ---------------------------------------------------------------------------
def legal_random(rng, mask):
    """A uniformly random legal action of an int8/bool mask (1-D or 2-D)."""
    mask = np.asarray(mask, bool)
    if mask.ndim == 1:
        return int(rng.choice(np.flatnonzero(mask)))
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int64)


def seed_where(pred, env=None):
    """First seed whose reset mask satisfies ``pred``."""
    env = env or DungeonEnv("race")
    for seed in range(1000):
        _, info = env.reset(seed=seed)
        if pred(info["action_mask"]):
            return seed
    raise AssertionError("no such seed")


ODD_SEED = seed_where(lambda m: m[fg.STEP_2] == 0)  # step_2 illegal at reset


@pytest.fixture
def env():
    e = DungeonEnv("race")
    yield e
    e.close()


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    # Allowed: the observation Box is (-inf, inf) by design (GameSpec declares
    # no bounds) and gymnasium's checker warns about it; with
    # NUMBA_DISABLE_JIT=1 numpy warns about the RNG's intended uint64 wrap-around.
    msgs = [
        str(w.message)
        for w in caught
        if not issubclass(w.category, DeprecationWarning)
        and "infinity" not in str(w.message)
        and "overflow encountered" not in str(w.message)
    ]
    assert not msgs, msgs


# --- Gymnasium and SB3 checkers ----------------------------------------------------------
@pytest.mark.parametrize("dict_obs", [False, True])
def test_gymnasium_check_env(dict_obs, no_warnings):
    from gymnasium.utils.env_checker import check_env

    e = gym.make(ENV_ID, dict_obs=dict_obs, disable_env_checker=True)
    check_env(e.unwrapped)
    e.close()


@pytest.mark.parametrize("dict_obs", [False, True])
def test_sb3_check_env(dict_obs, no_warnings):
    from stable_baselines3.common.env_checker import check_env

    check_env(DungeonEnv("race", dict_obs=dict_obs), warn=True, skip_render_check=False)


def test_gym_make_and_spec(no_warnings):
    e = gym.make(ENV_ID, render_mode="ansi")
    assert isinstance(e.unwrapped, DungeonEnv)
    assert e.spec.max_episode_steps is None  # the core truncates itself
    assert e.spec.kwargs["game"] == "race"
    with pytest.raises(gym.error.ResetNeeded):  # gymnasium's OrderEnforcing
        e.step(0)
    e.reset(seed=0)
    assert isinstance(e.render(), str) and "pos 0/10" in e.render()
    e.close()
    e.close()


def test_reset_seeding_semantics(env):
    o1, _ = env.reset(seed=123)
    o2, _ = env.reset()
    o3, _ = env.reset(seed=123)
    o4, _ = env.reset()
    assert np.array_equal(o1, o3) and np.array_equal(o2, o4)
    # reset(seed=s) is the game of seed s, whatever the seeding history
    fresh = DungeonEnv("race")
    assert np.array_equal(fresh.reset(seed=123)[0], o1)
    seen = {env.reset(seed=s)[0].tobytes() for s in range(20)}
    assert len(seen) > 1


def test_step_types_and_episode_end(env):
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=1)
    assert obs.dtype == np.float32 and obs.shape == (fg.OBS_SIZE,)
    assert info["action_mask"].dtype == np.int8
    assert env.action_masks().dtype == bool
    for _ in range(fg.MAX_STEPS):
        obs, reward, terminated, truncated, info = env.step(legal_random(rng, info["action_mask"]))
        assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
        assert info["illegal_action"] is False
        if terminated or truncated:
            break
    assert terminated or truncated
    assert set(info) >= {"won", "final_pos", "action_mask", "illegal_action"}
    assert not info["action_mask"].any() and not env.action_masks().any()


def test_truncation_is_not_termination():
    e = DungeonEnv("race", max_steps=2)
    e.reset(seed=0)
    _, _, te, tr, _ = e.step(fg.STEP_1)
    assert (te, tr) == (False, False)
    _, _, te, tr, info = e.step(fg.STEP_1)
    assert (te, tr) == (False, True) and info["won"] is False


# --- bad input ---------------------------------------------------------------------------
BAD_ACTIONS = [
    1.0,
    np.float32(1),
    np.float64(0),
    True,
    False,
    np.bool_(True),
    "1",
    b"1",
    None,
    [1],
    (1,),
    np.array([1, 2]),
    np.array([[1]]),
    np.array([1.0]),
    np.array([], np.int64),
    np.array([True]),
    3,
    -1,
    np.int64(99),
    np.array(3),
    np.array([-1]),
    2**70,
]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_bad_actions_raise(env, action):
    env.reset(seed=0)
    before = env._buf.states.tobytes()
    with pytest.raises(InvalidActionError):
        env.step(action)
    assert env._buf.states.tobytes() == before


@pytest.mark.parametrize(
    "action",
    [1, np.int64(1), np.int8(1), np.uint8(1), np.array(1), np.array([1]), np.array([1], np.uint16)],
    ids=repr,
)
def test_integer_like_actions_accepted(env, action):
    env.reset(seed=0)
    env.step(action)


def test_step_before_reset_and_after_end(env):
    with pytest.raises(ResetNeededError, match="before reset"):
        env.step(0)
    env.reset(seed=ODD_SEED)
    _, reward, terminated, _, info = env.step(fg.STEP_2)  # illegal -> penalize
    assert terminated and info["illegal_action"] is True
    with pytest.raises(ResetNeededError, match="ended"):
        env.step(fg.STEP_1)
    t = DungeonEnv("race", max_steps=1)
    t.reset(seed=0)
    assert t.step(fg.STEP_1)[3] is True
    with pytest.raises(ResetNeededError):
        t.step(fg.STEP_1)


def test_penalize_policy(env):
    env.reset(seed=ODD_SEED)
    obs, reward, terminated, truncated, info = env.step(np.int64(fg.STEP_2))
    assert reward == fg.SPEC.illegal_penalty
    assert terminated is True and truncated is False
    assert info["illegal_action"] is True
    assert not info["action_mask"].any()


def test_raise_policy_names_action_and_phase_and_keeps_state():
    e = DungeonEnv("race", illegal_action="raise")
    for seed in range(100):  # a mid-game state forbidding step_2
        e.reset(seed=seed)
        e.step(fg.STEP_1)
        if not e.action_masks()[fg.STEP_2]:
            break
    state_before = e._buf.states.tobytes()
    snap_before = e.get_state()
    obs_before = e._buf.obs.copy()
    with pytest.raises(IllegalActionError) as exc:
        e.step(fg.STEP_2)
    msg = str(exc.value)
    assert "2" in msg and "step_2" in msg and "moving" in msg
    assert e._buf.states.tobytes() == state_before
    assert e.get_state() == snap_before
    assert np.array_equal(e._buf.obs, obs_before)
    e.step(fg.STEP_1)  # still usable


def test_constructor_validation():
    with pytest.raises(ValueError, match="illegal_action"):
        DungeonEnv("race", illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        DungeonEnv("race", render_mode="human")
    with pytest.raises(UnknownGameError, match="unknown game"):
        DungeonEnv("no-such-game")
    with pytest.raises(TypeError):
        DungeonEnv(fg.make_core(), max_steps=3)  # kwargs with a ready core


def test_render_and_close():
    e = DungeonEnv("race", render_mode="ansi")
    with pytest.raises(ResetNeededError):
        e.render()
    e.reset(seed=0)
    assert e.render().startswith("[@")
    e.close()
    e.close()


# --- snapshots -------------------------------------------------------------------------
def _play(env, actions):
    out = []
    for a in actions:
        obs, r, te, tr, info = env.step(a)
        out.append((obs.tobytes(), r, te, tr, info["action_mask"].tobytes()))
        if te or tr:
            break
    return out


def test_snapshot_roundtrip(env):
    env.reset(seed=7)
    env.step(fg.ROLL)  # consume chance before the snapshot
    snap = env.get_state()
    assert snap.game == "race" and snap.step_count == 1 and not snap.done
    actions = [fg.STEP_1] * 6
    first = _play(env, actions)
    env.set_state(snap)
    assert _play(env, actions) == first
    # serialised form
    data = snap.to_bytes()
    assert Snapshot.from_bytes(data) == snap
    env.set_state(data)
    assert _play(env, actions) == first
    # into a fresh env that was never reset
    other = DungeonEnv("race")
    other.set_state(snap)
    assert _play(other, actions) == first


def test_snapshot_of_finished_episode(env):
    env.reset(seed=ODD_SEED)
    env.step(fg.STEP_2)  # illegal: episode over
    snap = env.get_state()
    assert snap.done
    env.reset(seed=0)
    env.set_state(snap)
    with pytest.raises(ResetNeededError):
        env.step(fg.STEP_1)


def test_snapshot_rejects_wrong_game_layout_size_and_junk(env):
    env.reset(seed=1)
    snap = env.get_state()
    before = env._buf.states.tobytes()
    bad = [
        dataclasses.replace(snap, layout_version="0000deadbeef"),
        dataclasses.replace(snap, game="unbroken"),
        dataclasses.replace(snap, state=snap.state[:-1]),
        b"not a snapshot",
        snap.to_bytes()[:-3],
        object(),
    ]
    for s in bad:
        with pytest.raises(SnapshotError):
            env.set_state(s)
    assert env._buf.states.tobytes() == before
    with pytest.raises(ResetNeededError):
        DungeonEnv("race").get_state()


def test_snapshot_rejects_corrupt_record(env):
    env.reset(seed=1)
    rec = np.frombuffer(env.get_state().state, fg.STATE_DTYPE).copy()
    rec["pos"] = 99
    before = env._buf.states.tobytes()
    with pytest.raises(CorruptStateError, match="pos"):
        env.set_state(dataclasses.replace(env.get_state(), state=rec.tobytes()))
    assert env._buf.states.tobytes() == before


# --- aliasing ------------------------------------------------------------------------------
@pytest.mark.parametrize("dict_obs", [False, True])
def test_returned_arrays_do_not_alias(dict_obs):
    e = DungeonEnv("race", dict_obs=dict_obs)
    obs0, info0 = e.reset(seed=3)
    keep = {k: v.copy() for k, v in obs0.items()} if dict_obs else obs0.copy()
    obs1, _, _, _, info1 = e.step(fg.STEP_1)
    internals = [e._buf.obs, e._buf.masks, e._buf.states]
    returned = [info0["action_mask"], info1["action_mask"]]
    returned += list(obs0.values()) + list(obs1.values()) if dict_obs else [obs0, obs1]
    for r in returned:
        for b in internals:
            assert not np.shares_memory(r, b)
    for x, y in zip(returned, returned[1:]):
        assert not np.shares_memory(x, y)
    if dict_obs:
        assert all(np.array_equal(obs0[k], keep[k]) for k in keep)
    else:
        assert np.array_equal(obs0, keep)  # obs_t unchanged by step t+1
    assert not np.shares_memory(e.action_masks(), e._buf.masks)


# --- vector env -----------------------------------------------------------------------------
def test_vector_spaces_and_metadata(no_warnings):
    v = DungeonVectorEnv("race", num_envs=5)
    assert v.num_envs == 5
    assert v.metadata["autoreset_mode"] is SAME_STEP
    assert v.single_action_space == gym.spaces.Discrete(A)
    assert v.single_observation_space.shape == (fg.OBS_SIZE,)
    assert v.observation_space.shape == (5, fg.OBS_SIZE)
    assert v.action_space.shape == (5,)
    obs, infos = v.reset(seed=0)
    assert obs in v.observation_space
    assert infos["action_mask"].shape == (5, A) and infos["_action_mask"].all()
    actions = v.action_space.sample()
    assert actions.shape == (5,)
    assert v.action_masks().dtype == bool and v.action_masks().shape == (5, A)
    v.close()
    v.close()


@pytest.mark.parametrize("dict_obs", [False, True])
@pytest.mark.parametrize("n", [1, 5])
def test_vector_conformance_checker(n, dict_obs, no_warnings):
    from dungeonrl.envs.core.adapters.checker import check_vector_env

    out = check_vector_env(DungeonVectorEnv("race", num_envs=n, dict_obs=dict_obs), steps=40)
    assert out["episodes_ended"] > 0


def test_vector_checker_catches_aliasing(monkeypatch):
    from dungeonrl.envs.core.adapters import vector
    from dungeonrl.envs.core.adapters.checker import check_vector_env

    # a bug: hand out the kernels' own observation buffer, written again next step
    monkeypatch.setattr(vector._Runner, "observation", lambda self: self.buf.obs)
    with pytest.raises(AssertionError, match="share memory|not reproducible"):
        check_vector_env(DungeonVectorEnv("race", num_envs=2), steps=5)


def test_make_vec_uses_native_vector_env(no_warnings):
    v = gym.make_vec(ENV_ID, num_envs=3)
    assert isinstance(v, DungeonVectorEnv) and v.num_envs == 3
    obs, _ = v.reset(seed=1)
    assert obs.shape == (3, fg.OBS_SIZE)
    v.close()


def test_vector_seeding_matches_single_envs():
    v = DungeonVectorEnv("race", num_envs=4)
    obs, infos = v.reset(seed=10)
    for i in range(4):
        o, info = DungeonEnv("race").reset(seed=10 + i)
        assert np.array_equal(obs[i], o)
        assert np.array_equal(infos["action_mask"][i], info["action_mask"])
    obs_b, _ = v.reset(seed=[10, 11, 12, 13])
    assert np.array_equal(obs, obs_b)
    # unseeded resets follow the seeded np_random
    v.reset(seed=5)
    a, _ = v.reset()
    v.reset(seed=5)
    b, _ = v.reset()
    assert np.array_equal(a, b)
    with pytest.raises(ValueError):
        v.reset(seed=[1, 2])
    with pytest.raises(ValueError):
        v.reset(seed=-1)


def _run_vector(v, seed, actions_by_step):
    """Step ``v`` with a fixed action table, recording everything returned."""
    out = []
    obs, infos = v.reset(seed=seed)
    out.append((obs.copy(), infos["action_mask"].copy()))
    for acts in actions_by_step:
        obs, rew, te, tr, infos = v.step(acts)
        fo = infos.get("final_obs", np.full(v.num_envs, None, object))
        out.append(
            (
                obs.copy(),
                infos["action_mask"].copy(),
                rew.copy(),
                te.copy(),
                tr.copy(),
                [None if f is None else f.copy() for f in fo],
            )
        )
    return out


def test_vector_batched_equals_sequential():
    n, steps, seed = 4, 40, 21
    v = DungeonVectorEnv("race", num_envs=n)
    rng = np.random.default_rng(0)
    # actions that are legal for the batch: always step_1 or roll when legal
    table = []
    v.reset(seed=seed)
    for _ in range(steps):
        acts = legal_random(rng, v.action_masks())
        table.append(acts)
        v.step(acts)
    batched = _run_vector(DungeonVectorEnv("race", num_envs=n), seed, table)
    # the same run replayed: deterministic
    assert all(_eq(x, y) for x, y in zip(batched, _run_vector(v, seed, table)))
    for i in range(n):
        # a batch of one with env i's seed and actions gives env i's results
        single = _run_vector(
            DungeonVectorEnv("race", num_envs=1), seed + i, [t[i : i + 1] for t in table]
        )
        for b, s in zip(batched, single):
            assert np.array_equal(b[0][i], s[0][0]) and np.array_equal(b[1][i], s[1][0])
            if len(b) > 2:
                assert b[2][i] == s[2][0] and b[3][i] == s[3][0] and b[4][i] == s[4][0]
                assert _eq(b[5][i], s[5][0])
        # and the first episode equals DungeonEnv's
        e = DungeonEnv("race")
        o, _ = e.reset(seed=seed + i)
        assert np.array_equal(o, batched[0][0][i])
        for t, acts in enumerate(table):
            o, r, te, tr, _ = e.step(acts[i])
            b = batched[t + 1]
            assert np.float32(r) == b[2][i] and te == b[3][i] and tr == b[4][i]
            if te or tr:
                assert np.array_equal(o, b[5][i])  # final_obs
                break
            assert np.array_equal(o, b[0][i])


def _eq(x, y):
    if isinstance(x, tuple):
        return all(_eq(a, b) for a, b in zip(x, y))
    if isinstance(x, list):
        return len(x) == len(y) and all(_eq(a, b) for a, b in zip(x, y))
    if x is None or y is None:
        return x is y
    return np.array_equal(x, y)


@pytest.mark.parametrize("episode_info", [True, False])
def test_vector_same_step_autoreset_infos(episode_info):
    n = 3
    v = DungeonVectorEnv("race", num_envs=n, max_steps=3, episode_info=episode_info)
    v.reset(seed=0)
    lengths = np.zeros(n, int)
    seen_end = False
    for _ in range(7):
        obs, rew, te, tr, infos = v.step(np.full(n, fg.STEP_1))
        lengths += 1
        done = te | tr
        assert rew.dtype == np.float32 and te.dtype == bool and tr.dtype == bool
        assert infos["illegal_action"].shape == (n,) and infos["_illegal_action"].all()
        if not done.any():
            assert "final_obs" not in infos
            continue
        seen_end = True
        assert np.array_equal(infos["_final_obs"], done)
        assert np.array_equal(infos["_final_info"], done)
        fi = infos["final_info"]
        for i in range(n):
            if done[i]:
                assert infos["final_obs"][i].shape == (fg.OBS_SIZE,)
                assert infos["final_obs"][i][1] == 1.0  # steps == max_steps
                assert obs[i][1] == 0.0  # already the next episode
                assert infos["action_mask"][i].any()
                assert fi["episode"]["l"][i] == lengths[i]
                assert fi["_episode"][i]
                lengths[i] = 0
            else:
                assert infos["final_obs"][i] is None
        assert ("won" in fi) == episode_info
    assert seen_end


def test_vector_final_info_reports_illegal_and_core_info():
    v = DungeonVectorEnv("race", num_envs=2)
    v.reset(seed=[ODD_SEED, ODD_SEED])
    obs, rew, te, tr, infos = v.step(np.array([fg.STEP_2, fg.STEP_1]))
    assert te.tolist() == [True, False]
    assert rew[0] == fg.SPEC.illegal_penalty
    assert infos["illegal_action"].tolist() == [True, False]
    fi = infos["final_info"]
    assert fi["illegal_action"][0] and fi["_illegal_action"].tolist() == [True, False]
    assert fi["won"][0] == False and fi["final_pos"][0] == 0  # noqa: E712


def test_batch_infos_matches_gymnasium_add_info():
    from dungeonrl.envs.core.adapters.checker import _same
    from dungeonrl.envs.core.adapters.vector import batch_infos

    n = 5
    infos = [
        {
            "won": True,
            "pos": 3,
            "score": 1.5,
            "name": "a",
            "episode": {"r": 1.0, "l": 4},
            "vec": np.arange(3, dtype=np.int16),
        },
        {
            "won": False,
            "pos": 7,
            "episode": {"r": -1.0, "l": 9},
            "vec": np.ones(3, np.int16),
            "mixed": 1,
        },
        {"won": np.bool_(True), "name": "c", "mixed": 2.5, "episode": {"r": 0.5, "l": 1}},
    ]
    rows = [0, 2, 4]
    v = DungeonVectorEnv("race", num_envs=n)
    expected: dict = {}
    for r, info in zip(rows, infos):
        expected = v._add_info(expected, info, r)
    got = batch_infos(infos, rows, n)
    assert got.keys() == expected.keys()
    for k in got:
        if k == "mixed":  # _add_info truncates 2.5 to 2 (dtype of the first value)
            assert got[k].tolist() == [0.0, 0.0, 1.0, 0.0, 2.5]
            assert got[k].dtype == np.float64
        else:
            assert _same(got[k], expected[k]), k


VEC_BAD = [
    np.array([1.0, 1.0, 1.0]),
    np.array([True, False, True]),
    np.array([1, 1]),
    np.array([[1], [1], [1]]),
    np.array([1, 1, 3]),
    np.array([1, -1, 1]),
    1,
    "111",
    np.array([1, 1, 1], dtype=object),
]


@pytest.mark.parametrize("actions", VEC_BAD, ids=repr)
def test_vector_bad_actions(actions):
    v = DungeonVectorEnv("race", num_envs=3)
    v.reset(seed=0)
    before = v._run.buf.states.tobytes()
    with pytest.raises(InvalidActionError):
        v.step(actions)
    assert v._run.buf.states.tobytes() == before


def test_vector_reset_needed_and_list_actions():
    v = DungeonVectorEnv("race", num_envs=3)
    with pytest.raises(ResetNeededError):
        v.step(np.ones(3, np.int64))
    v.reset(seed=0)
    v.step([1, 1, 1])
    v.step(np.ones(3, np.int32))


def test_vector_strict_mode():
    v = DungeonVectorEnv("race", num_envs=2, illegal_action="raise")
    v.reset(seed=[0, ODD_SEED])
    before = v._run.buf.states.tobytes()
    with pytest.raises(IllegalActionError, match=r"env 1: illegal action 2 \(step_2\)"):
        v.step(np.array([fg.STEP_1, fg.STEP_2]))
    assert v._run.buf.states.tobytes() == before


def test_vector_step_determinism_and_no_aliasing():
    v = DungeonVectorEnv("race", num_envs=4, dict_obs=True)
    o1, i1 = v.reset(seed=9)
    assert o1 in v.observation_space
    acts = np.full(4, fg.STEP_1)
    s1 = v.step(acts)
    o2, i2 = v.reset(seed=9)
    s2 = v.step(acts)
    assert _eq(
        (s1[0]["observation"], s1[1], s1[2], s1[3]), (s2[0]["observation"], s2[1], s2[2], s2[3])
    )
    buf = v._run.buf
    returned = [
        o1["observation"],
        o1["action_mask"],
        i1["action_mask"],
        o2["observation"],
        s1[0]["observation"],
        s1[0]["action_mask"],
        s1[1],
        s1[2],
        s1[3],
        s1[4]["action_mask"],
        s1[4]["illegal_action"],
        s2[0]["observation"],
    ]
    for r in returned:
        for b in (
            buf.obs,
            buf.masks,
            buf.rewards,
            buf.terminated,
            buf.truncated,
            buf.illegal,
            buf.final_obs,
        ):
            assert not np.shares_memory(r, b)
    keep = s1[0]["observation"].copy()
    v.step(acts)
    assert np.array_equal(s1[0]["observation"], keep)


def test_vector_render():
    v = DungeonVectorEnv("race", num_envs=2, render_mode="ansi")
    v.reset(seed=0)
    frames = v.render()
    assert (
        isinstance(frames, tuple) and len(frames) == 2 and all(isinstance(f, str) for f in frames)
    )
    assert DungeonVectorEnv("race", num_envs=1).render() is None


# --- Stable-Baselines3 ------------------------------------------------------------------------
def test_sb3_vecenv_api():
    from stable_baselines3.common.vec_env import VecEnv

    Sb3 = dungeonrl.DungeonSB3VecEnv
    venv = Sb3("race", num_envs=3, max_steps=2)
    assert isinstance(venv, VecEnv)
    venv.seed(7)
    obs = venv.reset()
    ref, _ = DungeonVectorEnv("race", num_envs=3).reset(seed=7)
    assert np.array_equal(obs, ref)
    assert not np.shares_memory(obs, venv._run.buf.obs)
    assert [i["action_mask"].dtype for i in venv.reset_infos] == [np.int8] * 3
    masks = venv.env_method("action_masks")
    assert len(masks) == 3 and masks[0].dtype == bool and masks[0].shape == (A,)
    assert venv.env_method("action_masks", indices=[1])[0].shape == (A,)
    assert np.array_equal(np.stack(masks), venv.action_masks())
    assert venv.has_attr("action_masks") and not venv.has_attr("no_such_attr")
    assert venv.get_attr("render_mode") == [None] * 3
    assert venv.get_attr("illegal_action", indices=[0, 2]) == ["penalize"] * 2
    venv.set_attr("my_tag", 5)
    assert venv.get_attr("my_tag") == [5, 5, 5]
    assert venv.env_is_wrapped(gym.Wrapper) == [False] * 3
    with pytest.raises(AttributeError):
        venv.env_method("fly")
    obs, rew, dones, infos = venv.step(np.full(3, fg.STEP_1))
    assert rew.dtype == np.float32 and dones.dtype == bool and not dones.any()
    assert len(infos) == 3 and all("action_mask" in i for i in infos)
    obs, rew, dones, infos = venv.step(np.full(3, fg.STEP_1))  # max_steps=2: truncated
    assert dones.all()
    for i, info in enumerate(infos):
        assert info["TimeLimit.truncated"] is True
        assert info["terminal_observation"].shape == (fg.OBS_SIZE,)
        assert info["terminal_observation"][1] == 1.0 and obs[i][1] == 0.0
        assert info["episode"]["l"] == 2 and set(info["episode"]) == {"r", "l", "t"}
        assert info["won"] is False
    with pytest.raises(InvalidActionError):
        venv.step(np.full(3, 1.5))
    venv.close()
    venv.close()


def test_sb3_terminated_is_not_time_limit():
    venv = dungeonrl.DungeonSB3VecEnv("race", num_envs=1, seed=ODD_SEED)
    venv.reset()
    _, rew, dones, infos = venv.step(np.array([fg.STEP_2]))
    assert dones[0] and infos[0]["TimeLimit.truncated"] is False
    assert infos[0]["illegal_action"] is True and rew[0] == fg.SPEC.illegal_penalty


def test_sb3_step_before_reset():
    venv = dungeonrl.DungeonSB3VecEnv("race", num_envs=2)
    with pytest.raises(ResetNeededError):
        venv.step(np.ones(2, np.int64))


def test_maskable_ppo_smoke():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    venv = dungeonrl.DungeonSB3VecEnv("race", num_envs=4, seed=0)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu", verbose=0
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    assert len(model.ep_info_buffer) > 0  # "episode" infos reach the logger
    obs = venv.reset()
    for _ in range(30):
        actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=False)
        obs, _, _, infos = venv.step(actions)
        assert not any(i["illegal_action"] for i in infos)
    mean, _ = evaluate_policy(model, venv, n_eval_episodes=4, warn=False)
    assert fg.SPEC.reward_range[0] * fg.MAX_STEPS <= mean <= 1.0


def test_kernels_compiled_once_per_dtype_set():
    """Every adapter hands the core buffers of one dtype/layout set, so each
    kernel has a single compiled signature."""
    e = DungeonEnv("race")
    e.reset(seed=0)
    e.step(fg.STEP_1)
    v = DungeonVectorEnv("race", num_envs=3, max_steps=1)
    v.reset(seed=0)
    v.step(np.ones(3, np.int64))  # ends every game: re-step path
    s = dungeonrl.DungeonSB3VecEnv("race", num_envs=2, max_steps=1)
    s.reset()
    s.step(np.ones(2, np.int64))
    from helpers import fixture_kernels as fk

    for k in (fk.reset_batch, fk.step_observe, fk.mask_batch, fk.observe_batch, fk.step_autoreset):
        assert len(k.signatures) <= 1, (k, k.signatures)
    assert len(fk.step_observe.signatures) == 1 and len(fk.step_autoreset.signatures) == 1


# --- registry ----------------------------------------------------------------------------------
def test_registry_lookup():
    assert dungeonrl.get_spec("race") is registry.get_spec(ENV_ID)
    assert "race" in dungeonrl.list_games()
    assert registry.game_module("race") == "helpers.fixture_game"
    with pytest.raises(UnknownGameError, match="known games") as exc:
        dungeonrl.get_spec("nope")
    assert isinstance(exc.value, KeyError)
    assert "dungeonrl.envs.unbroken" in registry.GAMES


def test_registration_is_idempotent(no_warnings):
    n = len(gym.registry)
    registry.register_game(fg.SPEC, "helpers.fixture_game")
    registry.register_all()
    registry.register_all()
    assert len(gym.registry) == n
    with pytest.raises(ValueError, match="already"):
        registry.register_game(dataclasses.replace(fg.SPEC, version=9))
    with pytest.raises(ValueError, match="already taken"):
        registry.register_game(dataclasses.replace(fg.SPEC, name="race2"))


def test_unbroken_registered_when_written():
    import importlib.util

    spec = importlib.util.find_spec("dungeonrl.envs.unbroken")
    has_init = spec is not None and spec.origin not in (None, "namespace")
    assert ("unbroken" in dungeonrl.list_games()) == has_init


@pytest.fixture
def fake_modules(tmp_path, monkeypatch):
    """A folder on sys.path for throw-away game modules; registrations made
    from it are undone afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    names = set(specs.list_games())
    yield tmp_path
    for name in set(specs.list_games()) - names:
        spec = specs.forget(name)
        if spec is not None:
            gym.registry.pop(spec.env_id, None)
    for mod in [m for m in sys.modules if m.startswith(("fake_", "broken_"))]:
        del sys.modules[mod]


def test_registry_skips_only_missing_modules(fake_modules):
    assert registry.register_module("dungeonrl.envs.no_such_game_xyz") is None
    assert registry.register_module("no_such_top_level_game_xyz") is None
    assert registry.register_all(["dungeonrl.envs.no_such_game_xyz"]) == []
    (fake_modules / "fake_empty_game").mkdir()  # folder without __init__ yet
    assert registry.register_module("fake_empty_game") is None
    (fake_modules / "broken_game.py").write_text("import not_a_real_dependency_xyz\n")
    with pytest.raises(ModuleNotFoundError, match="not_a_real_dependency_xyz"):
        registry.register_module("broken_game")
    (fake_modules / "broken_nospec.py").write_text("X = 1\n")
    with pytest.raises(ImportError, match="SPEC"):
        registry.register_module("broken_nospec")


FAKE_GAME = textwrap.dedent('''
    """A fake game module: the fixture's rules under another name."""
    import dataclasses
    from helpers import fixture_game as fg

    def make_core(**kw):
        core = fg.RaceCore(**kw)
        core.spec = SPEC
        return core

    SPEC = dataclasses.replace(fg.SPEC, name="fake_race", env_id="dungeonrl-test/FakeRace-v1",
                               make_core=None)
''')


def test_registry_registers_a_game_module(fake_modules, no_warnings):
    pkg = fake_modules / "fake_race_game"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(FAKE_GAME)
    (pkg / "cli.py").write_text(
        "def bench(args):\n    return 7 if args.env == 'fake_race' else 3\n"
    )
    spec = registry.register_module("fake_race_game")
    assert spec.name == "fake_race" and spec.make_core is not None
    assert registry.register_module("fake_race_game") == spec  # idempotent
    e = gym.make("dungeonrl-test/FakeRace-v1")
    e.reset(seed=0)
    assert e.unwrapped.game_spec.name == "fake_race"
    assert registry.game_module("fake_race") == "fake_race_game"
    # the CLI finds the game's own implementation first
    assert cli_main(["bench", "--env", "fake_race"]) == 7
    assert cli_main(["bench", "--env", "dungeonrl-test/FakeRace-v1"]) == 7


# --- CLI ------------------------------------------------------------------------------------------
def test_cli_unknown_game(capsys):
    assert cli_main(["play", "--env", "no-such-game"]) == 2
    err = capsys.readouterr().err
    assert "unknown game 'no-such-game'" in err and "race" in err


def test_cli_usage(capsys):
    assert cli_main([]) == 2
    assert cli_main(["--version"]) == 0
    assert dungeonrl.__version__ in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        cli_main(["frobnicate"])
    assert exc.value.code == 2
    assert cli_main(["list"]) == 0
    assert "dungeonrl-test/Race-v0" in capsys.readouterr().out


def test_cli_generic_bench_and_play(capsys, monkeypatch):
    assert cli_main(["bench", "--env", "race", "--num-envs", "4", "--steps", "20"]) == 0
    assert "steps/s" in capsys.readouterr().out
    assert cli_main(["play", "--env", "race", "--random", "--seed", "3", "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("Game over") == 2 and "Legal actions:" in out
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("step_1\n9\n1\nq\n"))
    assert cli_main(["play", "--env", ENV_ID]) == 0
    out = capsys.readouterr().out
    assert "9 is out of range" in out and out.count("pos 2/10") == 1
    assert cli_main(["play", "--env", "race", "--bogus"]) == 2


def test_cli_plugins(capsys, monkeypatch, fake_modules):
    (fake_modules / "fake_cmd.py").write_text(
        "def main(args):\n    print('demo', args.env, args.seed, args.extra)\n"
    )
    monkeypatch.setitem(dungeonrl.cli.DEFAULTS, "demo", "fake_cmd:main")
    assert cli_main(["demo", "--env", "race", "--seed", "4", "--fast"]) == 0
    assert "demo race 4 ['--fast']" in capsys.readouterr().out
    monkeypatch.setitem(dungeonrl.cli.DEFAULTS, "train", "fake_missing_mod_xyz:main")
    assert cli_main(["train", "--env", "race"]) == 1
    assert "not available" in capsys.readouterr().err


def test_python_dash_m_runs():
    r = subprocess.run(
        [sys.executable, "-m", "dungeonrl", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and dungeonrl.__version__ in r.stdout
