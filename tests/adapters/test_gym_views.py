"""The usual Gymnasium / SB3 moves on every registered id.

* ``stable_baselines3.common.env_util.make_vec_env(id, n_envs=4)`` works
  (it asks for ``render_mode="rgb_array"`` and retries without it on
  ``TypeError``: :class:`RenderModeError` is one) and SB3's ``check_env``
  passes;
* ``gymnasium.make("dungeonrl/DungeonCrawler-v0")`` is the single-agent
  view (one seat against the opponent pool): Gymnasium's and SB3's checkers
  pass, a seeded reset replays exactly, seats rotate, the episode ends with
  the learner's outcome; ``gymnasium.make_vec`` gives the native vector env.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import dungeonrl
from dungeonrl.agents.selfplay_env import SelfPlayEnv
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv, RenderModeError
from dungeonrl.envs.core.errors import IllegalActionError, ResetNeededError

DC_ID = "dungeonrl/DungeonCrawler-v0"
UB_ID = "dungeonrl/Unbroken-v0"


def _first_legal(masks):
    return np.array([int(np.flatnonzero(m)[0]) for m in masks])


def test_sb3_make_vec_env_and_check_env():
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.env_util import make_vec_env

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render_mode.*")
        venv = make_vec_env(UB_ID, n_envs=4, seed=0)
    assert venv.num_envs == 4
    obs = venv.reset()
    assert obs.shape == (4, dungeonrl.get_spec(UB_ID).obs_size)
    ended = 0
    for _ in range(400):
        masks = np.stack(venv.env_method("action_masks"))
        obs, rew, done, infos = venv.step(_first_legal(masks))
        ended += int(done.sum())
        for i in np.flatnonzero(done):
            assert "episode" in infos[i] and "terminal_observation" in infos[i]
    assert ended > 0
    venv.close()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")
        check_env(DungeonEnv("unbroken"), warn=True)


def test_render_mode_error_is_value_and_type_error():
    with pytest.raises(RenderModeError, match="not supported") as exc:
        DungeonEnv("unbroken", render_mode="no_such_mode")
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, TypeError)


def test_gym_make_dungeon_crawler_is_the_selfplay_view():
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check

    e = gym.make(DC_ID)
    assert isinstance(e.unwrapped, SelfPlayEnv) and e.unwrapped.num_players == 2
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")
        check_env(gym.make(DC_ID, num_players=3, disable_env_checker=True).unwrapped)
        sb3_check(SelfPlayEnv("dungeon_crawler", dict_obs=True, opponents="random"), warn=True)


def _play(env, seed, policy_seed=0):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    traj = [obs]
    while True:
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, te, tr, info = env.step(a)
        traj.append(obs)
        if te or tr:
            return np.array(traj), r, te, tr, info


def test_selfplay_env_seeded_replay_seats_and_end():
    e = SelfPlayEnv("dungeon_crawler", num_players=3, max_steps=400)
    t1, r1, te1, tr1, info1 = _play(e, seed=4)
    t2, r2, *_ = _play(e, seed=4)
    np.testing.assert_array_equal(t1, t2)
    assert r1 == r2 and isinstance(r1, float)
    assert info1["seat"] == 4 % 3 and info1["opponents"] == "heuristic,heuristic"
    assert info1["outcome"] in ("win", "loss", "draw")
    assert not info1["action_mask"].any() and not e.action_masks().any()
    with pytest.raises(ResetNeededError):
        e.step(0)
    # unseeded resets rotate the seat
    seats = [e.reset()[1]["seat"] for _ in range(3)]
    assert sorted(seats) == [0, 1, 2]
    t3, *_ = _play(e, seed=5)
    assert not np.array_equal(t1[:5], t3[:5])
    strict = SelfPlayEnv("dungeon_crawler", illegal_action="raise", seat=1)
    obs, info = strict.reset(seed=0)
    assert info["seat"] == 1
    with pytest.raises(IllegalActionError):
        strict.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    with pytest.raises(ValueError, match="self"):
        SelfPlayEnv("dungeon_crawler", opponents="self:1")
    with pytest.raises(ValueError, match="seat"):
        SelfPlayEnv("dungeon_crawler", seat=2)
    with pytest.raises(ValueError, match="1-player"):
        SelfPlayEnv("unbroken")


def test_make_vec_dungeon_crawler():
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    v = gym.make_vec(DC_ID, num_envs=3, opponents="random", max_steps=50)
    assert isinstance(v, DungeonVectorEnv) and v.num_envs == 3
    obs, info = v.reset(seed=0)
    ended = 0
    for _ in range(60):
        obs, r, te, tr, info = v.step(_first_legal(info["action_mask"]))
        ended += int((te | tr).sum())
        assert obs.shape == (3, dungeonrl.get_spec(DC_ID).obs_size)
    assert ended >= 3
