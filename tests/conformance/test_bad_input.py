"""Conformance suite: bad input, kernels compiled once, terminated vs truncated
(TESTING.md 9, 10).

Shared set-up: ``tests/helpers/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers.conformance_common import (
    GAMES,
    Batch,
    _collect,
    _figures,
    _multi_agent,
    _subprocess,
    aec_action,
    aec_done,
    aec_finish,
    get_core,
    hooks,
    make_env,
    random_legal,
    spec_of,
)

import dungeonrl
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv
from dungeonrl.envs.core.errors import CorruptStateError, InvalidActionError, ResetNeededError
from dungeonrl.envs.core.snapshot import Snapshot


# =====================================================================================
# 9. bad input, compile-once
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_bad_input(name):
    """Malformed actions raise InvalidActionError (whatever the policy),
    stepping before reset / after the end raises ResetNeededError, a
    corrupted record raises CorruptStateError; nothing crashes.
    Multi-agent games: through the AEC env (after the end, a finished agent
    takes only ``None``; once every agent is done, ResetNeededError)."""
    h = hooks(name)
    if _multi_agent(name):
        return _bad_input_aec(name, h)
    spec = spec_of(name)
    A = spec.num_actions
    count = 0
    for policy in ("penalize", "raise"):
        env = DungeonEnv(name, illegal_action=policy, **h.default_config)
        with pytest.raises(ResetNeededError):
            env.step(0)
        count += 1
        _, info = env.reset(seed=0)
        legal = int(np.flatnonzero(info["action_mask"])[0])
        before = env.get_state()
        for bad in (
            -1,
            A,
            A + 100,
            2**63 - 1,
            -(2**63),
            1.0,
            0.5,
            np.float32(1),
            "0",
            None,
            True,
            np.bool_(False),
            [0],
            (0,),
            np.array([0, 1]),
            np.array([[0]]),
            np.array(0.0),
            np.array([legal], np.float64),
            {"a": 0},
            1 + 0j,
        ):
            with pytest.raises(InvalidActionError):
                env.step(bad)
            count += 1
        assert env.get_state() == before, "a rejected action changed the env"
        for ok in (legal, np.int64(legal), np.uint8(legal), np.array(legal), np.array([legal])):
            env.set_state(before)
            env.step(ok)
        # run to the end, then step again
        rng = np.random.default_rng(1)
        env.reset(seed=1)
        env2 = DungeonEnv(name, illegal_action=policy, **h.truncate_config)
        _, info = env2.reset(seed=2)
        done = False
        while not done:
            _, _, te, tr, info = env2.step(int(random_legal(rng, info["action_mask"][None])[0]))
            done = te or tr
        with pytest.raises(ResetNeededError):
            env2.step(0)
        count += 1
    venv = DungeonVectorEnv(name, num_envs=3, **h.default_config)
    with pytest.raises(ResetNeededError):
        venv.step(np.zeros(3, np.int64))
    venv.reset(seed=0)
    for bad in (
        np.zeros(2, np.int64),
        np.zeros(4, np.int64),
        np.zeros((3, 1), np.int64),
        np.zeros(3, np.float32),
        np.array([0, -1, 0]),
        np.array([0, A, 0]),
        [0.5, 0, 0],
        np.array(["a", "b", "c"]),
        0,
        None,
    ):
        with pytest.raises(InvalidActionError):
            venv.step(bad)
        count += 1
    env = DungeonEnv(name, **h.default_config)
    env.reset(seed=0)
    snap = env.get_state()
    for _label, rec in h.corruptions(
        get_core(name, h.default_config), np.frombuffer(snap.state, get_core(name).state_dtype)
    ):
        with pytest.raises(CorruptStateError):
            env.set_state(dataclasses.replace(snap, state=rec.tobytes()))
        count += 1
    _figures(f"bad input {name}", bad_inputs=count, crashes=0)


BAD_ACTIONS = lambda A, legal: (  # noqa: E731
    -1,
    A,
    A + 100,
    2**63 - 1,
    -(2**63),
    1.0,
    0.5,
    np.float32(1),
    "0",
    None,
    True,
    np.bool_(False),
    [0],
    (0,),
    np.array([0, 1]),
    np.array([[0]]),
    np.array(0.0),
    np.array([legal], np.float64),
    {"a": 0},
    1 + 0j,
)


def _bad_input_aec(name, h):
    """test_bad_input through the AEC env of a multi-agent game."""
    spec = spec_of(name)
    A = spec.num_actions
    count = 0
    for policy in ("penalize", "raise"):
        env = make_env(name, illegal_action=policy, **h.default_config)
        for call in (
            lambda env=env: env.step(0),
            lambda env=env: env.observe(env.possible_agents[0]),
            env.get_state,
        ):
            with pytest.raises(ResetNeededError):
                call()
            count += 1
        env.reset(seed=0)
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        before = env.get_state()
        for bad in BAD_ACTIONS(A, legal):
            with pytest.raises(InvalidActionError):
                env.step(bad)
            count += 1
        assert env.get_state() == before, "a rejected action changed the env"
        for ok in (legal, np.int64(legal), np.uint8(legal), np.array(legal), np.array([legal])):
            env.set_state(before)
            env.step(ok)
        # run to the end: finished agents take None only, then ResetNeededError
        rng = np.random.default_rng(1)
        env2 = make_env(name, illegal_action=policy, **h.truncate_config)
        env2.reset(seed=2)
        while not aec_done(env2):
            env2.step(aec_action(env2, rng))
        for bad in (0, legal, np.int64(0)):
            with pytest.raises(InvalidActionError):
                env2.step(bad)
            count += 1
        aec_finish(env2)
        with pytest.raises(ResetNeededError):
            env2.step(0)
        with pytest.raises(ResetNeededError):
            env2.step(None)
        count += 2
    for kw in (
        {"num_players": spec.min_players - 1},
        {"num_players": spec.max_players + 1},
        {"num_players": 2.5},
        {"illegal_action": "ignore"},
        {"render_mode": "video"},
    ):
        with pytest.raises(ValueError):
            make_env(name, **kw)
        count += 1
    env = make_env(name, **h.default_config)
    env.reset(seed=0)
    snap = env.get_state()
    for _label, rec in h.corruptions(
        get_core(name, h.default_config), np.frombuffer(snap.state, get_core(name).state_dtype)
    ):
        with pytest.raises(CorruptStateError):
            env.set_state(dataclasses.replace(snap, state=rec.tobytes()))
        count += 1
    _figures(f"bad input {name} (AEC)", bad_inputs=count, crashes=0)


@pytest.mark.parametrize("name", GAMES)
def test_kernels_compiled_once(name):
    """After the single envs (both policies, snapshots) and vector envs
    (through autoresets) ran in a fresh process (so other tests' calls do
    not count), each batch kernel has exactly one compiled signature. (The
    SB3 VecEnv drives the same buffers as the vector env; importing torch
    here would only slow the test down.) Multi-agent games: the AEC env and
    the batch buffers' fused step."""
    hooks(name)
    got = _collect(_subprocess({"what": "signatures", "name": name}, {}))
    assert got, "hooks.batch_kernels() is empty"
    for k, sigs in got.items():
        assert len(sigs) == 1, f"{k} compiled {len(sigs)} times: {sigs}"


# =====================================================================================
# 10. terminated vs truncated
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_terminated_vs_truncated(name):
    """A core with a tiny step cap truncates (truncated True, terminated
    False, SB3 ``TimeLimit.truncated``); a game the rules finish terminates
    (terminated True, truncated False). Multi-agent games: through the AEC
    env (every agent flagged alike)."""
    h = hooks(name)
    if _multi_agent(name):
        return _terminated_vs_truncated_aec(name, h)
    spec = spec_of(name)
    rng = np.random.default_rng(0)
    truncs = terms = 0
    env = DungeonEnv(name, **h.truncate_config)
    for seed in range(20):
        _, info = env.reset(seed=seed)
        n = 0
        while True:
            _, r, te, tr, info = env.step(int(random_legal(rng, info["action_mask"][None])[0]))
            n += 1
            assert not (te and tr)
            if te or tr:
                break
        if tr:
            truncs += 1
            assert info.get("outcome", "truncated") == "truncated" and r == 0.0
        else:
            terms += 1
    assert truncs >= 10, "the tiny step cap never truncated"
    env = DungeonEnv(name, **h.default_config)
    for seed in range(10):
        _, info = env.reset(seed=seed)
        for _ in range(spec.max_episode_steps):
            _, r, te, tr, info = env.step(int(random_legal(rng, info["action_mask"][None])[0]))
            if te or tr:
                break
        assert te and not tr, "a random game did not terminate by the rules"
        assert not info["illegal_action"] and not info["action_mask"].any()
        assert spec.reward_range[0] <= r <= spec.reward_range[1]
    venv = DungeonVectorEnv(name, num_envs=4, **h.truncate_config)
    _, info = venv.reset(seed=0)
    seen_tr = False
    for _ in range(30):
        _, _, te, tr, info = venv.step(random_legal(rng, info["action_mask"]))
        assert not (te & tr).any()
        seen_tr |= bool(tr.any())
    assert seen_tr
    sb3 = dungeonrl.DungeonSB3VecEnv(name, num_envs=4, seed=0, **h.truncate_config)
    sb3.reset()
    flags = []
    for _ in range(30):
        _, _, dones, infos = sb3.step(random_legal(rng, sb3.action_masks()))
        flags += [i["TimeLimit.truncated"] for d, i in zip(dones, infos) if d]
    assert any(flags), "SB3 infos never flagged TimeLimit.truncated"
    _figures(f"terminated/truncated {name}", truncated=truncs, terminated_under_cap=terms)


def _terminated_vs_truncated_aec(name, h):
    """test_terminated_vs_truncated through the AEC env. Random multi-agent
    games can be long, so the games the rules end are played in the core
    (from the hooks' late-game starts when there are some) and their last
    decisions replayed through the AEC env from a snapshot."""
    spec = spec_of(name)
    rng = np.random.default_rng(0)
    truncs = terms = 0
    env = make_env(name, **h.truncate_config)
    for seed in range(20):
        env.reset(seed=seed)
        steps = 0
        while not aec_done(env):
            env.step(aec_action(env, rng))
            steps += 1
        te, tr = list(env.terminations.values()), list(env.truncations.values())
        assert len(set(te)) == 1 and len(set(tr)) == 1, "agents flagged differently"
        assert not (te[0] and tr[0])
        if tr[0]:
            truncs += 1
            assert steps == h.truncate_config["max_steps"]
            assert all(i.get("outcome", "truncated") == "truncated" for i in env.infos.values())
            assert not any(env.rewards.values()), "a truncation paid a reward"
        else:
            terms += 1
        aec_finish(env)
    assert truncs >= 10, "the tiny step cap never truncated"
    core = get_core(name, h.default_config)
    n, keep = 48, 6
    b = Batch(core, n)
    b.reset(np.arange(n) + 7)
    if h.jump_start is not None:
        h.jump_start(core, b.states, np.random.default_rng(1))
        b.refresh()
    hist, ends = [], []
    live = np.ones(n, bool)
    for _ in range(spec.max_episode_steps):
        if not live.any() or len(ends) >= 6:
            break
        acts = random_legal(rng, b.masks)
        hist = (hist + [(b.states.copy(), acts)])[-keep:]
        b.step(acts)
        b.refresh()
        for i in np.flatnonzero(live & b.terminated & ~b.illegal):
            ends.append((hist[0][0][i : i + 1].copy(), [int(a[i]) for _, a in hist]))
        live &= ~(b.terminated | b.truncated)
    assert len(ends) >= 3, "random games (from late-game starts) never ended by the rules"
    env = make_env(name, **h.default_config)
    for rec, acts in ends:
        env.set_state(
            Snapshot(game=spec.name, layout_version=spec.layout_version, state=rec.tobytes())
        )
        for a in acts:
            assert not aec_done(env)
            agent = env.agent_selection
            env.step(a)
        assert all(env.terminations.values()) and not any(env.truncations.values()), (
            "a game the rules ended was not terminated for every agent"
        )
        assert env.infos[agent]["illegal_action"] is False
        assert all(i.get("outcome") != "truncated" for i in env.infos.values())
        assert not env.observe(agent)["action_mask"].any()
        lo, hi = spec.reward_range
        assert all(lo <= r <= hi for r in env.rewards.values())
        aec_finish(env)
    _figures(
        f"terminated/truncated {name} (AEC)",
        truncated=truncs,
        terminated_under_cap=terms,
        terminated_by_rules=len(ends),
    )
