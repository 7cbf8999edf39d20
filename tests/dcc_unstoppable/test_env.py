"""Dungeon Crawler Carl: Unstoppable through its adapters: the solo
Gymnasium env ``dungeonrl/DCCUnstoppable-v1``, the 2-seat co-op PettingZoo
env (``dungeonrl.envs.dcc_unstoppable_v1``), the team reward, the
``campaign`` reset option and argument errors."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from dungeonrl import registry
from dungeonrl.envs import dcc_unstoppable_v1
from dungeonrl.envs.dcc_unstoppable import SPEC
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable.content import default_content

ENV_ID = "dungeonrl/DCCUnstoppable-v1"
CC = default_content()


def owned_cores(st, seat=0):
    """Core ids of the sleeves seat ``seat`` owns in its deck, hand and
    battlefield (where a fresh game puts the starting deck)."""
    return sorted(
        int(st["sl_core"][s])
        for s in range(C.NTHREAT)
        if st["sl_owner"][s] == seat
        and st["sl_core"][s] >= 0
        and st["sl_zone"][s] in (C.Z_DECK, C.Z_HAND, C.Z_BATTLE)
    )


# --- Gymnasium (solo) --------------------------------------------------------------
def test_spec_is_single_agent_and_registered():
    assert SPEC.env_id == ENV_ID and not SPEC.multi_agent
    assert SPEC.min_players == 1 and SPEC.max_players == 2
    assert registry.get_spec(ENV_ID) is SPEC


def test_gymnasium_checker_solo_floor1():
    from gymnasium.utils.env_checker import check_env

    e = gym.make(ENV_ID, floor=1, difficulty="normal", mode="arcade")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")
        check_env(e.unwrapped)
    obs, info = e.reset(seed=4)
    assert obs.shape == (SPEC.obs_size,) and info["action_mask"].any()
    e.close()


def test_solo_episode_ends_with_a_win_or_loss_reward():
    e = gym.make(ENV_ID, floor=1, difficulty="normal", mode="arcade")
    rng = np.random.default_rng(0)
    obs, info = e.reset(seed=11)
    total, steps = 0.0, 0
    while True:
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, te, tr, info = e.step(a)
        total += r
        steps += 1
        if te or tr:
            break
    st = e.unwrapped._buf.states[0]
    if te:
        assert total == (1.0 if int(st["outcome"]) == C.O_WIN else -1.0)
    assert steps <= SPEC.max_episode_steps
    e.close()


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"floor": 4}, "floor"),
        ({"floor": "one"}, "floor"),
        ({"difficulty": "nightmare"}, "difficulty"),
        ({"mode": "story"}, "mode"),
        ({"crawler": "Mordecai"}, "crawler"),
        ({"race": "Goblinoid"}, "race"),
        ({"klass": ("draft", "preset", "none")}, "klass"),
        ({"num_players": 3}, "num_players"),
        ({"reward": "gold"}, "reward"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gym.make(ENV_ID, disable_env_checker=True, **kwargs)


# --- the campaign reset option -----------------------------------------------------
def test_campaign_reset_option_carries_deck_and_xp():
    e = gym.make(ENV_ID, floor=2, mode="campaign", disable_env_checker=True)
    names = ["Strike"] * 4 + ["Rest", "Haymaker"]
    e.reset(seed=5)
    default = owned_cores(e.unwrapped._buf.states[0])
    obs, info = e.reset(seed=5, options={"campaign": {"xp": 9, "decks": [names]}})
    st = e.unwrapped._buf.states[0]
    # each name takes its own physical copy (Carl's Strikes 0..3, one Haymaker)
    got = owned_cores(st)
    assert len(set(got)) == len(got) and sorted(CC.core_names[c] for c in got) == sorted(names)
    assert got != default
    e.unwrapped.core.check_state(st)
    assert int(st["camp_xp"]) == 9 and int(st["cfg_floor"]) == 2
    assert info["action_mask"].any() and obs.shape == (SPEC.obs_size,)
    # a plain reset afterwards goes back to the default deck (the option is per reset)
    e.reset(seed=5)
    assert owned_cores(e.unwrapped._buf.states[0]) == default
    e.close()


def test_campaign_benefits_and_achievements_loaded():
    gb = CC.benefit_names.index("Deep Pockets")
    ben = [0] * len(CC.benefit_names)
    ben[gb] = 2
    ach = np.zeros((C.NFLOOR, C.ACH_PER_FLOOR), int)
    ach[0, 1] = 1
    e = gym.make(ENV_ID, floor=2, mode="campaign", disable_env_checker=True)
    e.reset(seed=1, options={"campaign": {"benefits": ben, "achievements": ach.tolist()}})
    st = e.unwrapped._buf.states[0]
    assert int(st["camp_ben"][gb]) == 2 and st["camp_ach"].tolist() == ach.tolist()
    assert int(st["gold"][0]) == C.START_GOLD + 2 * 2
    e.close()


@pytest.mark.parametrize(
    "options,match",
    [
        ({"campaign": {"gold": 3}}, "unknown campaign keys"),
        ({"campaign": [1, 2]}, "must be a dict"),
        ({"campaign": {"decks": [["No Such Card"]]}}, r"decks\[0\]\[0\].*no core card"),
        ({"campaign": {"achievements": [[1, 0]]}}, "achievements"),
        ({"campaign": {"benefits": [-1]}}, "benefits"),
    ],
)
def test_bad_campaign_options_are_clear_errors(options, match):
    # a known option with a bad value is an error in the default mode
    e = gym.make(ENV_ID, mode="campaign", disable_env_checker=True)
    with pytest.raises(ValueError, match=match):
        e.reset(seed=0, options=options)
    e.close()


def test_unknown_reset_option_warns_once_or_raises_in_strict_mode():
    e = gym.make(ENV_ID, mode="campaign", disable_env_checker=True)
    with pytest.warns(UserWarning, match="unknown reset option 'seed_deck'.*'campaign'"):
        e.reset(seed=0, options={"seed_deck": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same key again: no second warning
        e.reset(seed=0, options={"seed_deck": 1})
    e.close()
    e = gym.make(ENV_ID, mode="campaign", unknown_reset_options="raise", disable_env_checker=True)
    with pytest.raises(
        ValueError,
        match="unknown reset option 'seed_deck'; accepted: "
        r"\['campaign'\]",
    ):
        e.reset(seed=0, options={"seed_deck": 1})
    e.close()


# --- PettingZoo (co-op) ------------------------------------------------------------
def test_pettingzoo_api_seed_render_coop():
    api_test(dcc_unstoppable_v1.env(num_players=2), num_cycles=200)
    seed_test(lambda: dcc_unstoppable_v1.env(num_players=2), num_cycles=200)
    render_test(
        lambda render_mode=None: dcc_unstoppable_v1.env(num_players=2, render_mode=render_mode)
    )


def _play_coop(seed, policy_rng, max_steps=3000):
    e = dcc_unstoppable_v1.env(num_players=2, max_steps=max_steps)
    e.reset(seed=seed)
    assert e.possible_agents == ["player_0", "player_1"]
    totals = dict.fromkeys(e.possible_agents, 0.0)
    final = {}
    for agent in e.agent_iter():
        obs, r, te, tr, info = e.last()
        totals[agent] += r
        if te or tr:
            final[agent] = (te, tr)
            e.step(None)
            continue
        e.step(int(policy_rng.choice(np.flatnonzero(obs["action_mask"]))))
    e.close()
    return totals, final


def test_team_reward_both_seats_get_the_same_final_reward():
    rng = np.random.default_rng(2)
    ended = 0
    for seed in range(4):
        totals, final = _play_coop(seed, rng)
        assert set(final) == {"player_0", "player_1"}
        assert totals["player_0"] == totals["player_1"], totals
        if final["player_0"][0]:
            assert totals["player_0"] in (-1.0, 1.0)
            ended += 1
    assert ended >= 1


def test_coop_bad_arguments():
    with pytest.raises(ValueError, match="num_players"):
        dcc_unstoppable_v1.env(num_players=3)
    with pytest.raises(ValueError, match="floor"):
        dcc_unstoppable_v1.env(num_players=2, floor=0)
