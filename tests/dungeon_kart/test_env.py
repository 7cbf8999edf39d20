"""Dungeon Kart through its adapters: PettingZoo (AEC and parallel, the
checks of ``pettingzoo.test`` at 2, 3, 5 and 8 players), the Gymnasium
single-agent view (``gym.make("dungeonrl/DungeonKart-v1")``), a custom text
board as ``track=``, clear errors for bad arguments, and random play with
the conformance invariants at zero tolerance."""

from __future__ import annotations

import os
import sys

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.envs import dungeon_kart_v1
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart.core import DungeonKartCore

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MUD = """name: Mud Straight
dir: E
1 2 . . m . . . ."""


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_pettingzoo_api_seed_render(n):
    api_test(dungeon_kart_v1.env(num_players=n, max_rounds=6), num_cycles=300)
    seed_test(lambda: dungeon_kart_v1.env(num_players=n, max_rounds=6), num_cycles=300)
    render_test(
        lambda render_mode=None: dungeon_kart_v1.env(
            num_players=n, max_rounds=6, render_mode=render_mode
        )
    )


def test_parallel_api():
    parallel_api_test(dungeon_kart_v1.parallel_env(num_players=3, max_rounds=4), num_cycles=400)


def test_rgb_picture_from_the_aec_env():
    e = dungeon_kart_v1.env(num_players=3, render_mode="rgb_array")
    e.reset(seed=2)
    img = e.render()
    assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
    assert img.std() > 10  # a picture, not a blank canvas


def test_gym_make_single_agent_view():
    env = gym.make("dungeonrl/DungeonKart-v1", num_players=2, max_rounds=8)
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(3000):
        mask = info["action_mask"]
        a = int(rng.choice(np.flatnonzero(mask)))
        obs, r, term, trunc, info = env.step(a)
        assert env.observation_space.contains(obs)
        if term or trunc:
            ended += 1
            assert -1.0 <= r <= 1.0
            obs, info = env.reset()
    assert ended >= 2
    env.close()


def test_custom_text_board_as_track():
    e = dungeon_kart_v1.env(num_players=2, track=MUD)
    e.reset(seed=1)
    core = e.unwrapped.core
    assert core.content.track_names[core.track] == "Mud Straight"
    # the heuristic races both seats to the line on the small board
    from dungeonrl.envs.dungeon_kart.hooks import SCRIPTED_HEURISTIC, play_rows

    st = core.alloc(8)
    core.reset(st, np.arange(8, dtype=np.uint64))
    codes = np.full((8, C.MAX_P), SCRIPTED_HEURISTIC, np.int8)
    prng = np.zeros((8, 2), np.uint64)
    prng[:, 0] = np.arange(8, dtype=np.uint64) + 1
    ret = np.zeros((8, C.MAX_P), np.float32)
    length = np.zeros(8, np.int64)
    play_rows(st, core.TR, codes, prng, ret, length)
    assert (st["outcome"] == C.O_RACE_OVER).all()
    assert (st["finished"][:, :2].sum(axis=1) >= 1).all()
    np.testing.assert_allclose(ret[:, :2].sum(axis=1), 0.0, atol=1e-6)  # zero-sum


def test_bad_arguments_clear_errors():
    with pytest.raises(ValueError, match="start hexes"):
        dungeon_kart_v1.env(num_players=3, track=MUD)  # 2 start hexes, 3 racers
    with pytest.raises(Exception, match="unknown track 'Nowhere'"):
        dungeon_kart_v1.env(num_players=2, track="Nowhere")
    with pytest.raises(ValueError, match="num_players"):
        dungeon_kart_v1.env(num_players=9)
    with pytest.raises(ValueError, match="num_players"):
        DungeonKartCore(num_players=1)
    with pytest.raises(ValueError, match="draft"):
        DungeonKartCore(num_players=2, draft="auction")
    with pytest.raises(ValueError, match="max_rounds"):
        DungeonKartCore(num_players=2, max_rounds=0)


@pytest.mark.parametrize("n", [2, 4, 8])
def test_karts_never_stop_on_one_hex(n):
    """Random play through the engine: the conformance invariants, "no two
    karts stopped on one hex" among them, hold with zero tolerance (the
    mask's look-ahead, DK-078; this was a pinned known bug)."""
    from helpers import game_hooks

    h = game_hooks.HOOKS["dungeon_kart"]
    assert not h.known_bugs
    core = DungeonKartCore(num_players=n, max_rounds=8)
    games = 200
    st = core.alloc(games)
    core.reset(st, np.arange(games, dtype=np.uint64) + 1)
    masks = np.zeros((games, C.NUM_ACTIONS), np.uint8)
    rew = np.zeros((games, n), np.float32)
    te, tr, il = np.zeros(games, bool), np.zeros(games, bool), np.zeros(games, bool)
    rng = np.random.default_rng(n)
    for _ in range(150):
        core.legal_mask(st, masks)
        live = masks.any(axis=1)
        u = rng.random(masks.shape)
        u[masks == 0] = -1
        core.step(st, u.argmax(axis=1), rew, te, tr, il)
        h.check_invariants(core, st[live])
        assert not il.any()


SPRINT3 = """name: Dash
dir: E
1 2 3 . . g . . . .
 4 . . . m . . . ."""


def test_placements_are_the_rewards_ranking(monkeypatch):
    """``episode_info["placements"]`` is the ranking the rewards pay: both
    come from ``rules.final_ranks`` (spied on here), and on every finished
    race of a random soak (a few hundred games on small sprints, 2-4
    players) the placements order the seats exactly as their rewards do,
    and each reward is the mean score of the places its tie group spans.
    The random play leans to Move and speeding up, so most races finish."""
    from dungeonrl.envs.dungeon_kart import rules

    calls = []
    real = rules.final_ranks

    def spy(state, out):
        calls.append(1)
        return real(state, out)

    monkeypatch.setattr(rules, "final_ranks", spy)
    finished = ties = unfinished = 0
    for n, track, games in ((2, MUD, 120), (3, SPRINT3, 100), (4, SPRINT3, 100)):
        core = DungeonKartCore(num_players=n, track=track, draft="random", max_rounds=30)
        st = core.alloc(games)
        core.reset(st, np.arange(games, dtype=np.uint64) + 7 * n)
        masks = np.zeros((games, C.NUM_ACTIONS), np.uint8)
        rew = np.zeros((games, n), np.float32)
        total = np.zeros((games, n), np.float64)
        te, tr, il = np.zeros(games, bool), np.zeros(games, bool), np.zeros(games, bool)
        rng = np.random.default_rng(n)
        for _ in range(2000):
            core.legal_mask(st, masks)
            if not masks.any():
                break
            u = rng.random(masks.shape)
            u[:, C.A_MOVE] += 0.6
            u[:, C.A_SPEED + 2] += 0.3
            u[masks == 0] = -1
            core.step(st, u.argmax(axis=1), rew, te, tr, il)
            total += rew
            assert not il.any()
        assert (st["outcome"] != 0).all()
        for i in np.flatnonzero(st["outcome"] == C.O_RACE_OVER):
            before = len(calls)
            place = core.episode_info(st[i])["placements"]
            assert len(calls) == before + 1
            r = total[i]
            # the same order as the rewards (ties included)
            assert place == [int((r > r[s] + 1e-6).sum()) for s in range(n)]
            for s in range(n):
                tie = place.count(place[s])
                want = np.mean([1 - 2 * k / (n - 1) for k in range(place[s], place[s] + tie)])
                assert abs(r[s] - want) < 1e-5
            finished += 1
            ties += len(set(place)) < n
            unfinished += not all(st["finished"][i, :n])
    assert finished >= 250 and ties >= 5 and unfinished >= 20, (finished, ties, unfinished)
