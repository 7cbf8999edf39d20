"""Conformance suite: Gymnasium's and SB3's env checkers and
``gymnasium.make_vec``.

Shared set-up: ``tests/helpers/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers.conformance_common import (
    GAMES,
    _single_agent,
    hooks,
    random_legal,
    spec_of,
)

from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv


# =====================================================================================
# 12. ecosystem checkers
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_and_sb3_check_env(name):
    _single_agent(name)
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    spec = spec_of(name)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")
        for dict_obs in (False, True):
            e = gym.make(spec.env_id, dict_obs=dict_obs, disable_env_checker=True)
            gym_check(e.unwrapped)
            e.close()
            sb3_check(DungeonEnv(name, dict_obs=dict_obs), warn=True)


@pytest.mark.parametrize("name", GAMES)
def test_make_vec(name):
    _single_agent(name)
    import gymnasium as gym

    from dungeonrl.envs.core.adapters.checker import check_vector_env

    spec = spec_of(name)
    v = gym.make_vec(spec.env_id, num_envs=3)
    assert isinstance(v, DungeonVectorEnv) and v.num_envs == 3
    obs, info = v.reset(seed=0)
    assert obs.shape == (3, spec.obs_size) and info["action_mask"].shape == (3, spec.num_actions)
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs, r, te, tr, info = v.step(random_legal(rng, info["action_mask"]))
        assert obs in v.observation_space and r.shape == (3,)
    v.close()
    res = check_vector_env(
        gym.make_vec(spec.env_id, num_envs=3, **hooks(name).truncate_config), steps=40
    )
    assert res["episodes_ended"] > 0
