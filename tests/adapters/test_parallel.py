"""The PettingZoo Parallel form and the global state of the multi-agent
games (``envs/core/adapters/parallel.py``, ``DungeonAECEnv.state``).

Checked: PettingZoo's ``parallel_api_test``, ``parallel_seed_test`` and
``state_test`` at 2, 3 and 5 seats; the parallel trajectory equals the AEC
env's for the same seed and actions; only the acting seat has a mask; the
other seats' actions are ignored (anything of their space or ``None``); bad
input raises; ``state()`` is every seat's observation concatenated.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test
from pettingzoo.test.state_test import state_test

import dungeonrl  # noqa: F401  (registers)
from dungeonrl.envs import dungeon_crawler_v0
from dungeonrl.envs.core.adapters.parallel import DungeonParallelEnv
from dungeonrl.envs.core.errors import (
    IllegalActionError,
    InvalidActionError,
    ResetNeededError,
)
from dungeonrl.envs.dungeon_crawler import SPEC


def _quiet():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.filterwarnings("ignore", message=".*infinity.*")
    return ctx


@pytest.mark.parametrize("n", [2, 3, 5])
def test_parallel_api_seed_and_state(n):
    ctx = _quiet()
    try:
        parallel_api_test(dungeon_crawler_v0.parallel_env(num_players=n), num_cycles=300)
        parallel_seed_test(lambda: dungeon_crawler_v0.parallel_env(num_players=n), num_cycles=300)
        state_test(
            dungeon_crawler_v0.env(num_players=n),
            dungeon_crawler_v0.parallel_env(num_players=n),
            num_cycles=10,
        )
    finally:
        ctx.__exit__(None, None, None)


def _legal(rng, mask):
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("n", [2, 4])
def test_parallel_equals_aec(n):
    """Same seed, same actions: identical observations, masks, rewards,
    terminations and infos, step for step, to the end of a capped game."""
    par = dungeon_crawler_v0.parallel_env(num_players=n, max_steps=120)
    aec = dungeon_crawler_v0.raw_env(num_players=n, max_steps=120)
    obs, infos = par.reset(seed=11)
    aec.reset(seed=11)
    rng = np.random.default_rng(0)
    steps = 0
    while par.agents:
        actor = aec.agent_selection
        assert infos[actor]["to_play"] == actor
        for a in par.agents:
            ref = aec.observe(a)
            np.testing.assert_array_equal(obs[a]["observation"], ref["observation"])
            np.testing.assert_array_equal(obs[a]["action_mask"], ref["action_mask"])
            assert obs[a]["action_mask"].any() == (a == actor)
        act = _legal(rng, obs[actor]["action_mask"])
        # the other seats send anything of their space, or None
        actions = {
            a: (None if k % 2 else par.action_space(a).sample())
            for k, a in enumerate(par.agents)
            if a != actor
        }
        actions[actor] = act
        obs, rew, te, tr, infos = par.step(actions)
        aec.step(act)
        steps += 1
        for a in rew:
            assert rew[a] == aec.rewards[a] and isinstance(rew[a], float)
            assert te[a] == aec.terminations[a] and tr[a] == aec.truncations[a]
        if any(te.values()) or any(tr.values()):
            assert par.agents == []
            assert all(tr.values()) and not any(te.values())  # the 120-step cap
            for a in rew:
                np.testing.assert_array_equal(obs[a]["observation"], aec.observe(a)["observation"])
                assert not obs[a]["action_mask"].any()
                assert infos[a]["outcome"] == "truncated" and infos[a]["to_play"] is None
    assert steps == 120


def test_parallel_bad_input_and_policy():
    par = dungeon_crawler_v0.parallel_env(num_players=3)
    with pytest.raises(ResetNeededError):
        par.step({})
    obs, infos = par.reset(seed=2)
    actor = infos["player_0"]["to_play"]
    legal = int(np.flatnonzero(obs[actor]["action_mask"])[0])
    others = [a for a in par.agents if a != actor]
    with pytest.raises(InvalidActionError, match="must send"):
        par.step({others[0]: 0})
    with pytest.raises(InvalidActionError, match="unknown"):
        par.step({actor: legal, "player_9": 0})
    with pytest.raises(InvalidActionError):
        par.step({actor: legal, others[0]: SPEC.num_actions})  # out of range, ignored or not
    with pytest.raises(InvalidActionError):
        par.step({actor: 1.5})
    with pytest.raises(InvalidActionError):
        par.step([legal])
    before = par.state()
    # nothing was applied by the failed calls
    np.testing.assert_array_equal(before, par.state())
    illegal = int(np.flatnonzero(obs[actor]["action_mask"] == 0)[0])
    obs, rew, te, tr, infos = par.step({actor: illegal})  # penalize: the game ends
    assert all(te.values()) and rew[actor] == SPEC.illegal_penalty
    assert infos[actor]["illegal_action"] and par.agents == []
    with pytest.raises(ResetNeededError):
        par.step({actor: legal})
    strict = dungeon_crawler_v0.parallel_env(num_players=3, illegal_action="raise")
    obs, infos = strict.reset(seed=2)
    s0 = strict.state()
    with pytest.raises(IllegalActionError):
        strict.step({actor: illegal})
    np.testing.assert_array_equal(s0, strict.state())
    assert strict.agents == strict.possible_agents


def test_state_is_every_seat_observation():
    for env in (
        dungeon_crawler_v0.raw_env(num_players=3),
        dungeon_crawler_v0.parallel_env(num_players=3),
    ):
        with pytest.raises(ResetNeededError):
            env.state()
        env.reset(seed=5)
        aec = env if not isinstance(env, DungeonParallelEnv) else env._aec
        s = env.state()
        assert s.shape == env.state_space.shape == (3 * SPEC.obs_size,)
        assert s.dtype == np.float32 and s in env.state_space
        want = np.concatenate([aec.observe(a)["observation"] for a in aec.possible_agents])
        np.testing.assert_array_equal(s, want)
        s[:] = 0  # a fresh array each call
        assert env.state().any()


def test_pettingzoo_registry_parallel():
    import pettingzoo

    e = pettingzoo.make("parallel", "dungeonrl/DungeonCrawler-v0", num_players=2)
    obs, _ = e.reset(seed=0)
    assert isinstance(e.unwrapped, DungeonParallelEnv)
    assert set(obs) == {"player_0", "player_1"}
