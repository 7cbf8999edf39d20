"""Conformance suite: observation aliasing and batched == sequential, at the core
and the vector env (TESTING.md 7, 8).

Shared set-up: ``tests/helpers/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.conformance_common import (
    GAMES,
    Batch,
    _aec_config,
    _config_id,
    _figures,
    _multi_agent,
    _single_agent,
    aec_action,
    aec_done,
    get_core,
    hooks,
    make_env,
    random_legal,
    rbytes,
)

import dungeonrl
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv


# =====================================================================================
# 7. observation aliasing
# =====================================================================================
def _buffers(obj):
    return [v for v in vars(obj).values() if isinstance(v, np.ndarray)]


def _arrays(x):
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return [a for v in x if v is not None for a in _arrays(v)]
        return [x]
    if isinstance(x, dict):
        return [a for v in x.values() for a in _arrays(v)]
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in _arrays(v)]
    return []


def _assert_fresh(returned, bufs, what):
    for arr in _arrays(returned):
        for b in bufs:
            assert not np.shares_memory(arr, b), f"{what} shares memory with an internal buffer"


@pytest.mark.parametrize("dict_obs", [False, True])
@pytest.mark.parametrize("name", GAMES)
def test_observation_aliasing(name, dict_obs):
    """Arrays returned by reset/step (single env, vector env, SB3 VecEnv)
    share no memory with internal buffers, and obs_t is unchanged after
    step t+1. Multi-agent games: the AEC env's ``observe`` / ``last`` (dict
    observations only)."""
    h = hooks(name)
    if _multi_agent(name):
        if not dict_obs:
            pytest.skip("AEC observations are always dicts (checked with dict_obs=True)")
        return _aliasing_aec(name, h)
    rng = np.random.default_rng(0)
    env = DungeonEnv(name, dict_obs=dict_obs, **h.truncate_config)
    bufs = _buffers(env._buf)
    kept = []
    for ep in range(3):
        out = env.reset(seed=ep)
        _assert_fresh(out, bufs, "DungeonEnv.reset")
        kept.append((out, [a.copy() for a in _arrays(out)]))
        done = False
        while not done:
            a = int(random_legal(rng, out[-1]["action_mask"][None])[0])
            out = env.step(a)
            _assert_fresh(out, bufs, "DungeonEnv.step")
            kept.append((out, [a.copy() for a in _arrays(out)]))
            done = out[2] or out[3]
    for out, copies in kept:
        for a, c in zip(_arrays(out), copies):
            assert np.array_equal(a, c), "a returned array changed after later steps"
    # (the vector envs hand out the array the kernels just wrote and give their
    # buffers a new one: compare with the buffers as they are after each call)
    venv = DungeonVectorEnv(name, num_envs=4, dict_obs=dict_obs, **h.truncate_config)
    kept = []
    out = venv.reset(seed=0)
    _assert_fresh(out, _buffers(venv._run.buf), "DungeonVectorEnv.reset")
    kept.append((out, [a.copy() for a in _arrays(out)]))
    for _ in range(15):
        out = venv.step(random_legal(rng, out[-1]["action_mask"]))
        _assert_fresh(out, _buffers(venv._run.buf), "DungeonVectorEnv.step")
        kept.append((out, [a.copy() for a in _arrays(out)]))
    assert any("final_obs" in o[-1] for o, _ in kept), "no episode ended: autoreset untested"
    for out, copies in kept:
        for a, c in zip(_arrays(out), copies):
            assert np.array_equal(a, c), "a returned vector array changed after later steps"
    sb3 = dungeonrl.DungeonSB3VecEnv(
        name, num_envs=3, seed=0, dict_obs=dict_obs, **h.truncate_config
    )
    kept = []
    obs = sb3.reset()
    _assert_fresh(obs, _buffers(sb3._run.buf), "DungeonSB3VecEnv.reset")
    kept.append((obs, [a.copy() for a in _arrays(obs)]))
    for _ in range(15):
        out = sb3.step(random_legal(rng, sb3.action_masks()))
        _assert_fresh(out, _buffers(sb3._run.buf), "DungeonSB3VecEnv.step")
        kept.append((out, [a.copy() for a in _arrays(out)]))
    for out, copies in kept:
        for a, c in zip(_arrays(out), copies):
            assert np.array_equal(a, c), "a returned SB3 array changed after later steps"


def _aliasing_aec(name, h):
    rng = np.random.default_rng(0)
    env = make_env(name, **h.truncate_config)
    bufs = _buffers(env)
    assert bufs, "no internal buffers found"
    kept = []
    for ep in range(3):
        env.reset(seed=ep)
        while env.agents:
            for out in [env.observe(a) for a in env.agents] + [env.last()]:
                _assert_fresh(out, bufs, "DungeonAECEnv.observe / last")
                kept.append((out, [a.copy() for a in _arrays(out)]))
            env.step(None if aec_done(env) else aec_action(env, rng))
    for out, copies in kept:
        for a, c in zip(_arrays(out), copies):
            assert np.array_equal(a, c), "a returned array changed after later steps"


# =====================================================================================
# 8. batched == sequential
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_batched_equals_sequential_core(name):
    """N games stepped in one step_autoreset call equal the same N games
    stepped one per call (over many episodes); changing one row's action
    never changes another row's result."""
    h = hooks(name)
    compared = 0
    for ci, cfg in enumerate(h.configs):
        core = get_core(name, cfg)
        n = 12
        seeds = np.arange(n) + 40 * ci
        big = Batch(core, n)
        big.reset(seeds)
        singles = [Batch(core, 1) for _ in range(n)]
        for i, s in enumerate(singles):
            s.reset(seeds[i : i + 1])
        rng = np.random.default_rng(ci)
        for t in range(150):
            acts = random_legal(rng, big.masks)
            big.step_autoreset(acts)
            for i, s in enumerate(singles):
                s.step_autoreset(acts[i : i + 1])
                assert rbytes(big.states[i : i + 1]) == rbytes(s.states), (
                    f"{_config_id(cfg)} step {t} row {i}: records differ"
                )
                for x in ("obs", "masks", "rewards", "terminated", "truncated", "illegal"):
                    assert getattr(big, x)[i : i + 1].tobytes() == getattr(s, x).tobytes(), (
                        f"{_config_id(cfg)} step {t} row {i}: {x} differ"
                    )
                if s.terminated[0] or s.truncated[0]:
                    assert big.final_obs[i].tobytes() == s.final_obs[0].tobytes()
                    assert rbytes(big.final_states[i : i + 1]) == rbytes(s.final_states)
                compared += 1
        # one row's action never changes another row's result
        for _t in range(20):
            base = big.states.copy()
            acts = random_legal(rng, big.masks)
            j = int(rng.integers(n))
            alt_legal = np.flatnonzero(big.masks[j])
            ref = Batch(core, n)
            ref.states[:] = base
            ref.step_autoreset(acts)
            alt = Batch(core, n)
            alt.states[:] = base
            acts2 = acts.copy()
            acts2[j] = alt_legal[(np.searchsorted(alt_legal, acts[j]) + 1) % len(alt_legal)]
            alt.step_autoreset(acts2)
            others = np.arange(n) != j
            assert rbytes(ref.states[others]) == rbytes(alt.states[others]), (
                f"changing row {j}'s action changed other rows' records"
            )
            for x in ("obs", "masks", "rewards", "terminated", "truncated"):
                assert getattr(ref, x)[others].tobytes() == getattr(alt, x)[others].tobytes(), (
                    f"changing row {j}'s action changed other rows' {x}"
                )
            big.step_autoreset(acts)
    _figures(f"batched==sequential {name}", row_steps=compared, divergences=0)


@pytest.mark.parametrize("name", GAMES)
def test_vector_env_equals_single_envs(name):
    """DungeonVectorEnv(num_envs=N).reset(seed=s) steps exactly like N
    DungeonEnv reset with seeds s+i, up to each row's first episode end
    (final observation included)."""
    _single_agent(name)
    h = hooks(name)
    n = 6
    for cfg in h.configs:
        if _aec_config(name, cfg):
            continue  # (a multi-seat configuration: the AEC env's)
        venv = DungeonVectorEnv(name, num_envs=n, **cfg)
        singles = [DungeonEnv(name, **cfg) for _ in range(n)]
        vobs, vinfo = venv.reset(seed=123)
        live = np.ones(n, bool)
        sobs = []
        for i, e in enumerate(singles):
            o, info = e.reset(seed=123 + i)
            assert np.array_equal(o, vobs[i]) and np.array_equal(
                info["action_mask"], vinfo["action_mask"][i]
            )
            sobs.append(o)
        rng = np.random.default_rng(0)
        for _ in range(400):
            if not live.any():
                break
            acts = random_legal(rng, vinfo["action_mask"])
            vobs, vr, vte, vtr, vinfo = venv.step(acts)
            for i in np.flatnonzero(live):
                o, r, te, tr, info = singles[i].step(int(acts[i]))
                assert (r, te, tr) == (float(vr[i]), bool(vte[i]), bool(vtr[i]))
                if te or tr:
                    assert np.array_equal(o, vinfo["final_obs"][i])
                    live[i] = False
                else:
                    assert np.array_equal(o, vobs[i])
                    assert np.array_equal(info["action_mask"], vinfo["action_mask"][i])
        assert not live.any(), "some game did not end"
