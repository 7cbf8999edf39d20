"""The engine's series of games (``envs/core/adapters/series.py``): games of
the fixture played one after another as one Gymnasium episode."""

from __future__ import annotations

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from helpers import fixture_game as fg

from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.series import SeriesEnv, register_series, series_vector_env
from dungeonrl.envs.core.errors import ResetNeededError


class Tour:
    """A test series: ``games`` games in a row, each with one step fewer
    than the last (the configuration key); the reset option ``games`` says
    how many. Every game's result is kept; the tour ends after the last."""

    reset_keys = ("games",)

    def begin(self, options):
        n = options.get("games", 3)
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"games must be an int >= 1, got {n!r}")
        self.left, self.played = n, []

    def next_game(self):
        return fg.MAX_STEPS - len(self.played), {}

    def game_info(self, info):
        return {**info, "game_no": len(self.played) + 1}

    def game_over(self, state, truncated, info):
        self.played.append(int(state["outcome"]))
        self.left -= 1
        info["played"] = list(self.played)
        return None if self.left == 0 else {"previous": self.played[-1]}


class TourEnv(SeriesEnv):
    env_id = "dungeonrl-test/Tour-v0"

    def __init__(self, unknown_reset_options="warn"):
        super().__init__(unknown_reset_options)
        self.series = Tour()
        self._open(fg.MAX_STEPS)

    def _make_core(self, key):
        return fg.make_core(max_steps=key)


def play(env, seed, games=3):
    obs, info = env.reset(seed=seed, options={"games": games})
    trace = [(info["game_no"], tuple(obs))]
    while True:
        obs, r, te, tr, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        trace.append((info["game_no"], tuple(obs), r, te, tr, info.get("previous")))
        if te or tr:
            return trace, info


def test_games_follow_one_another_and_the_series_ends_after_the_last():
    env = TourEnv()
    trace, info = play(env, seed=1)
    assert [t[0] for t in trace][-1] == 3 and len(info["played"]) == 3
    # the first step of a new game carries the handover and neither flag
    handovers = [t for t in trace[1:] if t[5] is not None]
    assert len(handovers) == 2 and not any(t[3] or t[4] for t in handovers)
    # one env per configuration, each game's own step cap
    assert sorted(env._envs) == [fg.MAX_STEPS - 2, fg.MAX_STEPS - 1, fg.MAX_STEPS]
    assert all(isinstance(e, DungeonEnv) for e in env._envs.values())
    assert play(TourEnv(), seed=1)[0] == trace  # a seeded reset replays the series


def started(seed=4):
    env = TourEnv()
    env.reset(seed=seed, options={"games": 2})
    env.step(1)
    return env


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_play_on_as_the_original(how):
    env = started()
    other = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    for _ in range(40):
        assert np.array_equal(env.action_masks(), other.action_masks())
        x, y = env.step(1), other.step(1)
        assert np.array_equal(x[0], y[0]) and x[1:4] == y[1:4]
        if x[2] or x[3]:
            break
    assert x[2] or x[3]


def test_reset_options_and_order_of_calls():
    env = TourEnv()
    with pytest.raises(ResetNeededError):
        env.step(0)
    with pytest.raises(ValueError, match="must be a dict"):
        env.reset(seed=0, options=[1])
    with pytest.raises(ValueError, match="games"):
        env.reset(seed=0, options={"games": 0})
    with pytest.warns(UserWarning, match="Tour-v0: unknown reset option 'x'"):
        env.reset(seed=0, options={"x": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per key
        env.reset(seed=0, options={"x": 1})
    strict = TourEnv(unknown_reset_options="raise")
    with pytest.raises(ValueError, match=r"unknown reset options \['x'\]; accepted: \['games'\]"):
        strict.reset(seed=0, options={"x": 1})
    with pytest.raises(ValueError, match="unknown_reset_options"):
        TourEnv(unknown_reset_options="maybe")


def test_vector_entry_point_and_registration():
    vec = series_vector_env(TourEnv, 2)
    obs, info = vec.reset(seed=0)
    assert obs.shape == (2, fg.OBS_SIZE)
    vec.close()
    with pytest.raises(ValueError, match="num_envs"):
        series_vector_env(TourEnv, 0)
    env_id = "dungeonrl-test/Tour-v0"
    assert register_series(env_id, f"{__name__}:TourEnv", f"{__name__}:series_vector_env") == env_id
    assert register_series(env_id, "unused:Unused", "unused:unused") == env_id  # idempotent
    assert isinstance(gym.make(env_id).unwrapped, TourEnv)
