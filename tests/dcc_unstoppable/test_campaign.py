"""The Dungeon Crawler Carl: Unstoppable campaign wrapper
(``envs/dcc_unstoppable/campaign.py``): Floors 1-3 as one episode, the
campaign sheet carried between games through the ``campaign`` reset
option."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

from dungeonrl.envs.core.errors import ResetNeededError
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable.campaign import (
    CAMPAIGN_ENV_ID,
    DEFEAT_PENALTY,
    DCCCampaignEnv,
    register_campaign,
)
from dungeonrl.envs.dcc_unstoppable.content import default_content

CC = default_content()
TT = CC.tables


def heuristic(env):
    """The game's scripted policy's action in the game being played."""
    inner = env._env
    out = np.zeros(1, np.int64)
    inner.core.policy_rows(
        inner._buf.states, np.zeros(1, np.int64), np.zeros((1, 2), np.uint64), out
    )
    return int(out[0])


def random_legal(env, rng, info):
    return int(rng.choice(np.flatnonzero(info["action_mask"])))


def owned_cores(st, seat=0):
    return sorted(
        int(st["sl_core"][s])
        for s in range(C.NTHREAT)
        if st["sl_owner"][s] == seat
        and st["sl_core"][s] >= 0
        and st["sl_zone"][s] in (C.Z_DECK, C.Z_HAND, C.Z_BATTLE)
    )


def play_until_game_ends(env, policy):
    """Step until one floor game ends; returns the step's 5-tuple."""
    info = {"action_mask": env.action_masks()}
    while True:
        out = env.step(policy(env, info))
        if out[2] or out[3] or "game" in out[4]:
            return out
        info = out[4]


def test_gymnasium_checker_and_registration():
    from gymnasium.utils.env_checker import check_env

    env_id = register_campaign()
    assert env_id == CAMPAIGN_ENV_ID and register_campaign() == env_id
    e = gym.make(env_id, max_attempts=2)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")
        check_env(e.unwrapped)
    e.close()


def test_a_won_floor_carries_xp_achievements_and_benefits_to_the_next_floor():
    e = DCCCampaignEnv(max_attempts=2)
    for seed in range(6):
        e.reset(seed=seed)
        obs, r, te, tr, info = play_until_game_ends(e, lambda env, i: heuristic(env))
        if info["game"]["outcome"] == C.O_WIN:
            break
    else:
        pytest.fail("the heuristic won no Floor 1 in 6 campaigns")
    assert r == 1.0 and not (te or tr)
    game, sheet = info["game"], info["campaign"]
    assert info["floor"] == 2 and info["attempt"] == 1 and sheet["floor_scores"][0] == game["xp"]
    spent = sum(int(TT.be_xp[CC.benefit_names.index(b)]) for b in sheet["bought"])
    assert sheet["xp"] == game["xp"] - spent >= 0
    st = e.state
    assert int(st["cfg_floor"]) == 2 and int(st["cfg_mode"]) == C.M_CAMPAIGN
    assert int(st["camp_xp"]) == sheet["xp"]
    assert st["camp_ben"][: len(sheet["benefits"])].tolist() == sheet["benefits"]
    assert st["camp_ach"].tolist() == sheet["achievements"]
    # greedy buying: nothing affordable is left
    assert e.affordable() == []
    assert sum(sheet["benefits"]) == len(sheet["bought"])
    # achievements ticked = those the floor-1 game completed
    assert sum(sheet["achievements"][0]) >= 0 and sheet["achievements"][1] == [0] * 4
    # the starting gold shows the bought Deep Pockets circles
    gb = CC.benefit_names.index("Deep Pockets")
    assert int(st["gold"][0]) >= C.START_GOLD + int(TT.be_n[gb]) * sheet["benefits"][gb]


def test_defeats_retry_the_same_floor_then_fail():
    rng = np.random.default_rng(0)
    e = DCCCampaignEnv(max_attempts=2, buy="none")
    e.reset(seed=3)
    pol = lambda env, info: random_legal(env, rng, info)  # noqa: E731
    obs, r, te, tr, info = play_until_game_ends(e, pol)
    assert info["game"]["outcome"] in (C.O_LOSS_HEALTH, C.O_LOSS_SKULL)  # random play loses
    assert r == -1.0 and not te and info["floor"] == 1 and info["attempt"] == 2
    assert info["campaign"]["defeats"] == [1, 0, 0] and info["campaign"]["bought"] == []
    obs, r, te, tr, info = play_until_game_ends(e, pol)
    assert te and info["campaign_over"] == "failed" and info["campaign"]["defeats"][0] == 2
    assert info["campaign"]["score"] is None
    with pytest.raises(Exception, match="reset"):
        e.step(0)


def test_start_sheet_deck_list_is_carried_into_every_game():
    rng = np.random.default_rng(1)
    names = ["Strike"] * 3 + ["Rest", "Haymaker", "Haymaker"]
    e = DCCCampaignEnv(max_attempts=3, buy="none")
    e.reset(seed=2, options={"campaign": {"decks": [names], "xp": 2}})
    # one physical card per entry: three of Carl's Strikes, both Haymakers
    want = owned_cores(e.state)
    assert len(set(want)) == len(want) == len(names)
    assert sorted(CC.core_names[c] for c in want) == sorted(names)
    assert int(e.state["camp_xp"]) == 2
    obs, r, te, tr, info = play_until_game_ends(e, lambda env, i: random_legal(env, rng, i))
    assert not te and info["attempt"] == 2
    assert owned_cores(e.state) == want
    assert int(e.state["camp_xp"]) == 2 + info["game"]["xp"]


def test_floor3_completion_score_and_race_kept():
    e = DCCCampaignEnv(max_attempts=3)
    done = None
    for seed in range(14):
        e.reset(seed=seed, options={"floor": 3})
        assert int(e.state["cfg_floor"]) == 3
        while True:
            obs, r, te, tr, info = e.step(heuristic(e))
            if "game" in info and not (te or tr) and info["floor"] == 3:
                # a retry of Floor 3 keeps the race and class of the first attempt
                st = e.state
                assert int(st["cfg_race"][0]) == e.series.race3 >= 0
                assert int(st["cfg_class"][0]) == e.series.klass3 >= 0
            if te or tr:
                break
        if info["campaign_over"] == "complete":
            done = info
            break
    assert done is not None, "the heuristic completed no Floor 3 in 14 tries"
    s = done["campaign"]
    assert r == 1.0 and te
    assert s["score"] == (
        sum(s["floor_scores"]) - DEFEAT_PENALTY * sum(s["defeats"]) + C.DIFF_XP[C.D_NORMAL]
    )


def test_buy_callable_and_bad_purchases():
    seen = []

    def buyer(sheet):
        seen.append(sheet["xp"])
        return ["Thick Skin"] if sheet["xp"] >= 4 else []

    e = DCCCampaignEnv(max_attempts=2, buy=buyer)
    rng = np.random.default_rng(5)
    e.reset(seed=7, options={"campaign": {"xp": 9}})
    obs, r, te, tr, info = play_until_game_ends(e, lambda env, i: random_legal(env, rng, i))
    assert seen and info["campaign"]["bought"] == ["Thick Skin"]
    assert info["campaign"]["xp"] == 9 + info["game"]["xp"] - 4
    with pytest.raises(ValueError, match="no circle left|cannot be bought"):
        e.buy_benefit("Thick Skin")  # 1 circle solo
    with pytest.raises(ValueError, match="unknown benefit"):
        e.buy_benefit("Gold Tooth")


def test_benefits_before_the_first_reset_are_a_reset_needed_error():
    # there is no sheet before reset(): a clear ResetNeededError, not a
    # TypeError from indexing None
    e = DCCCampaignEnv()
    with pytest.raises(ResetNeededError, match="before reset"):
        e.affordable()
    with pytest.raises(ResetNeededError, match="before reset"):
        e.buy_benefit("Thick Skin")
    e.reset(seed=0)
    assert e.affordable() == []  # a blank sheet: no XP to pay with


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"buy": "all"}, "buy"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"difficulty": "easy"}, "difficulty"),
        ({"crawler": "Mordecai"}, "crawler"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DCCCampaignEnv(**kwargs)


@pytest.mark.parametrize(
    "options,match",
    [
        ({"floor": 4}, "floor"),
        ({"campaign": {"gold": 1}}, "unknown campaign keys"),
        ({"campaign": 3}, "dict"),
    ],
)
def test_bad_reset_options(options, match):
    e = DCCCampaignEnv()
    with pytest.raises(ValueError, match=match):
        e.reset(seed=0, options=options)


def test_unknown_reset_option_warns_once_or_raises_in_strict_mode():
    e = DCCCampaignEnv()
    with pytest.warns(UserWarning, match="unknown reset option 'level'"):
        obs, info = e.reset(seed=0, options={"level": 2, "floor": 2})
    assert info["floor"] == 2  # the known key still applies
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same key again: no second warning
        e.reset(seed=0, options={"level": 2})
    with pytest.raises(ValueError, match="unknown_reset_options"):
        DCCCampaignEnv(unknown_reset_options="ignore")
    strict = DCCCampaignEnv(unknown_reset_options="raise")
    with pytest.raises(
        ValueError,
        match=r"unknown reset options \['level'\]; "
        r"accepted: \['campaign', 'floor'\]",
    ):
        strict.reset(seed=0, options={"level": 2})
