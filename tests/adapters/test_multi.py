"""The batched multi-agent API (``envs/core/adapters/multi.py``).

The reference is the PettingZoo AEC env, game by game: with the same seeds
and the same actions, the batch must give the same seat to act, every
seat's observation, the actor's mask, every seat's reward and the same
episode ends (truncation by a small step cap, termination by an illegal
action), with the finished games' last observations in the infos. The
generic path (a core whose fused kernel does not report the seat to act)
must equal the fast path.
"""

from __future__ import annotations

import numpy as np
import pytest

import dungeonrl  # noqa: F401
from dungeonrl.envs import dungeon_crawler_v0
from dungeonrl.envs.core.adapters.multi import BatchedMultiAgentEnv, observe_seats
from dungeonrl.envs.core.errors import (
    IllegalActionError,
    InvalidActionError,
    ResetNeededError,
)
from dungeonrl.envs.dungeon_crawler import SPEC, DungeonCrawlerCore

CAP = 60


def _actions(rng, masks, illegal_rows=()):
    out = np.zeros(len(masks), np.int64)
    for i, m in enumerate(masks):
        legal = np.flatnonzero(m)
        out[i] = rng.choice(legal) if i not in illegal_rows else np.flatnonzero(m == 0)[0]
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_batch_equals_aec_game_by_game(players):
    N, seed = 4, 100
    env = BatchedMultiAgentEnv("dungeon_crawler", N, num_players=players, max_steps=CAP)
    obs, infos = env.reset(seed=seed)
    aecs = [dungeon_crawler_v0.raw_env(num_players=players, max_steps=CAP) for _ in range(N)]
    for i, e in enumerate(aecs):
        e.reset(seed=seed + i)
    assert obs.shape == (N, players, SPEC.obs_size)
    rng = np.random.default_rng(1)
    live = np.ones(N, bool)  # compared until each game's first episode ends
    ended = {}
    returns = np.zeros((N, players))
    for t in range(CAP + 5):
        for i, e in enumerate(aecs):
            if not live[i]:
                continue
            assert infos["to_play"][i] == int(e.agent_selection.split("_")[1])
            for p, a in enumerate(e.possible_agents):
                ref = e.observe(a)
                np.testing.assert_array_equal(obs[i, p], ref["observation"])
                if p == infos["to_play"][i]:
                    np.testing.assert_array_equal(infos["action_mask"][i], ref["action_mask"])
        # game 3 sends an illegal action at step 7: it ends (penalize)
        acts = _actions(rng, infos["action_mask"], illegal_rows=(3,) if t == 7 else ())
        obs, rew, te, tr, infos = env.step(acts)
        assert rew.shape == (N, players) and rew.dtype == np.float32
        returns += rew
        for i, e in enumerate(aecs):
            if not live[i]:
                continue
            e.step(int(acts[i]))
            np.testing.assert_array_equal(rew[i], [e.rewards[a] for a in e.possible_agents])
            assert te[i] == any(e.terminations.values())
            assert tr[i] == any(e.truncations.values())
            if te[i] or tr[i]:
                live[i] = False
                ended[i] = t
                assert infos["_final_obs"][i] and infos["_final_info"][i]
                for p, a in enumerate(e.possible_agents):
                    np.testing.assert_array_equal(
                        infos["final_obs"][i, p], e.observe(a)["observation"]
                    )
                fi = infos["final_info"][i]
                assert fi["length"] == (8 if i == 3 else CAP)
                np.testing.assert_allclose(fi["return"], returns[i])
                assert fi["illegal_action"] == (i == 3)
                assert fi["outcome"] == e.infos["player_0"]["outcome"]
                # same-step autoreset: a fresh game is already running in row i
                assert infos["action_mask"][i].any() and 0 <= infos["to_play"][i] < players
        if not live.any():
            break
    assert ended == {3: 7, 0: CAP - 1, 1: CAP - 1, 2: CAP - 1}


@pytest.mark.parametrize("observe", ["all", "actor"])
def test_ready_core_and_actor_mode_equal_the_all_seats_env(observe):
    N = 5
    fast = BatchedMultiAgentEnv("dungeon_crawler", N, num_players=3, max_steps=30)
    other = BatchedMultiAgentEnv(
        DungeonCrawlerCore(num_players=3, max_steps=30), N, observe=observe
    )
    o1, i1 = fast.reset(seed=9)
    o2, i2 = other.reset(seed=9)
    rng = np.random.default_rng(4)
    seen_end = False
    for _ in range(70):
        rows = np.arange(N)
        want = o1 if observe == "all" else o1[rows, i1["to_play"]]
        np.testing.assert_array_equal(o2, want)
        np.testing.assert_array_equal(i2["to_play"], i1["to_play"])
        np.testing.assert_array_equal(i2["action_mask"], i1["action_mask"])
        np.testing.assert_array_equal(other.state(), fast.state())
        np.testing.assert_array_equal(fast.state(), o1.reshape(N, -1))
        acting = i1["to_play"].copy()
        acts = _actions(rng, i1["action_mask"])
        o1, r1, te1, tr1, i1 = fast.step(acts)
        o2, r2, te2, tr2, i2 = other.step(acts)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(te1 | tr1, te2 | tr2)
        if "final_obs" in i1:
            seen_end = True
            d = np.flatnonzero(i1["_final_obs"])
            fo = i1["final_obs"][d]
            want = fo if observe == "all" else fo[np.arange(len(d)), acting[d]]
            np.testing.assert_array_equal(i2["final_obs"][d], want)
    assert seen_end


def test_observe_seats_matches_observe():
    core = DungeonCrawlerCore(num_players=4)
    st = core.alloc(3)
    core.reset(st, np.arange(3, dtype=np.uint64))
    out = observe_seats(core, st, np.zeros((3, 4, SPEC.obs_size), np.float32))
    one = np.zeros((3, SPEC.obs_size), np.float32)
    core.observe(st, np.array([2, 0, 3], np.int64), one)
    np.testing.assert_array_equal(out[[0, 1, 2], [2, 0, 3]], one)
    assert not np.array_equal(out[0, 0], out[0, 1])  # seats see different things


def test_bad_input_and_strict_mode():
    with pytest.raises(ValueError, match="num_envs"):
        BatchedMultiAgentEnv("dungeon_crawler", 0)
    with pytest.raises(ValueError, match="observe"):
        BatchedMultiAgentEnv("dungeon_crawler", 2, observe="seat")
    env = BatchedMultiAgentEnv("dungeon_crawler", 2, num_players=2, illegal_action="raise")
    with pytest.raises(ResetNeededError):
        env.step(np.zeros(2, np.int64))
    with pytest.raises(ResetNeededError):
        env.state()
    obs, infos = env.reset(seed=0)
    for bad in (
        np.zeros(3, np.int64),
        np.zeros(2, np.float32),
        np.array([0, SPEC.num_actions]),
        np.array([-1, 0]),
    ):
        with pytest.raises(InvalidActionError):
            env.step(bad)
    snap = env.states.copy()
    acts = _actions(np.random.default_rng(0), infos["action_mask"], illegal_rows=(1,))
    with pytest.raises(IllegalActionError, match="env 1"):
        env.step(acts)
    for f in snap.dtype.names:  # field by field (copies need not keep padding bytes)
        np.testing.assert_array_equal(env.states[f], snap[f], err_msg=f)
    assert env.action_masks().dtype == bool and env.to_play.shape == (2,)
