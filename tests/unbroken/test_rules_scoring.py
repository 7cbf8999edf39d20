"""Unbroken rule scenarios: rewards, Levels and scoring (battle rewards and
trackers, the next Level's start, the final score, titles and the reward
modes).

Each test sets a game up by editing its state record, queues die results,
plays actions by name and checks the rule's arithmetic (helpers in
``tests/helpers/unbroken_util.py``). Expected numbers are read from the content
tables; only numbers the rulebook itself fixes are written out.
The rule ids each test checks are listed in the coverage table of
``envs/unbroken/README.md``.
"""

import numpy as np
import pytest
from helpers.unbroken_util import Game, battle, monster_where, pass_windows

from dungeonrl.envs.unbroken import consts as C
from dungeonrl.envs.unbroken import rules


@pytest.mark.parametrize(
    "treasure,cunning,title",
    [
        (0, 0, "Prey"),
        (0, 1, "Cast-off"),
        (1, 1, "Survivor"),
        (2, 1, "Avenger"),
        (3, 1, "Revenant"),
        (4, 1, "Nemesis"),
    ],
)
def test_score_titles(treasure, cunning, title):
    g = Game()
    g.goto_level(4)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 0
    for r in range(C.NRES):
        g["res"][r] = 0
    g.set_res(treasure=treasure, cunning=cunning)
    g.refresh()
    r = g.act("eat_0")
    assert g["outcome"] == C.O_WIN and r == 1.0
    expect = treasure * int(g.T.score_pts[C.R_TREAS]) + cunning * int(g.T.score_pts[C.R_CUN])
    assert int(g["score"]) == expect
    assert g.ct.title_names[int(g["title"])] == title
    assert g.core.episode_info(g.s)["title"] == title


def test_score_reward_shaping():
    g = Game(reward="score")
    g.goto_level(4)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 0
    for r in range(C.NRES):
        g["res"][r] = 0
    g.set_res(treasure=3)
    g.refresh()
    r = g.act("eat_0")
    assert r == pytest.approx(1.0 + 30 / 100)


def test_final_score_counts_every_resource_but_not_time():
    """UNB-185..193: the score is the points of what is held; Small Effort
    is worth 0 and Time nothing."""
    scores = []
    for time, small in ((0, 0), (7, 15)):
        g = Game()
        g.goto_level(4)
        g["phase"] = C.PH_HUNGER
        g["hunger_req"] = 0
        for r in range(C.NRES):
            g["res"][r] = 2
        g.set_res(small=small, time=time)
        g.refresh()
        g.act("eat_0")
        assert int(g["outcome"]) == C.O_WIN
        expect = sum(int(g["res"][r]) * int(g.T.score_pts[r]) for r in range(C.NRES))
        assert int(g["score"]) == expect
        scores.append(int(g["score"]))
    assert scores[0] == scores[1]
    assert int(Game().T.score_pts[C.R_S]) == 0


def test_trackers_set_once_ambush_changes_kept():
    """UNB-A19/113: the Battle Step adds start-of-battle passives to the
    trackers as Step 1A/1B left them; it does not reset them."""
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1 and int(g.T.m_armor[i]) >= 1)
    g["monster"] = m
    g.set_res(small=20)
    s = g.st[0]
    rules.begin_combat(s, g.core.TR[0])  # Step 1A/1B: trackers set
    s["m_armor"] = 0  # e.g. an Ambush Effect changed them
    s["m_health"] = int(g.T.m_health[m]) - 1
    rules.run(s, g.core.TR[0], C.S_BATTLE_START)
    assert int(s["m_armor"]) == 0 and int(s["m_health"]) == int(g.T.m_health[m]) - 1
    # an Ambush Effect giving Paranoid "now" counts at battle start
    g2 = Game()
    par = g2.cond("Paranoid")
    hag = monster_where(
        g2,
        lambda i: any(
            int(o[0]) == C.OP_CONDITION and int(o[1]) == par and int(o[2]) == C.WHEN_NOW
            for o in g2.T.m_ambush[i]
        ),
    )
    bonus = int(g2.T.ab_pn[[a for a in g2.T.c_ab[par] if a >= 0][0]])
    g2.goto_level(int(g2.T.m_level[hag]))
    g2["monster"] = hag
    g2.set_res(small=20, time=0)
    g2.refresh()
    g2.act("fight")
    assert int(g2["ambushed"]) == 1
    assert int(g2["m_health_max"]) == int(g2.T.m_health[hag]) + bonus


def test_rewards_respect_the_bars():
    """UNB-161/045: Rewards are gained up to each bar's maximum."""
    g = Game()
    m = monster_where(
        g, lambda i: int(g.T.m_level[i]) == 1 and int(g.T.m_reward[i, C.R_CUN :].sum()) > 0
    )
    r = [r for r in range(C.R_CUN, C.NRES) if int(g.T.m_reward[m, r]) > 0][0]
    battle(g, 1, m, small=10)
    g["res"][r] = int(g.T.bars[r])
    g["m_health"] = 0
    g["m_armor"] = 0
    g.refresh()
    g.act("skip")
    pass_windows(g)
    assert int(g["res"][r]) == int(g.T.bars[r])


def test_rewards_and_trackers_after_victory_and_no_skill_after_level4():
    for level in (2, 4):
        g = Game()
        m = int(g.T.m_by_level[level - 1, 0])
        battle(g, level, m, small=10)
        for r in range(C.R_CUN, C.NRES):
            g["res"][r] = 0
        g["m_health"] = 0
        g["m_armor"] = 0
        g.refresh()
        g.act("skip")
        if level < 4:
            assert g.phase() == "skill_reward"
            g.act("keep_0")
        assert g.phase() == "hunger"  # no Skill after the Level 4 monster
        expect = np.minimum(g.T.m_reward[m], g.T.bars)
        assert np.array_equal(g["res"][C.R_CUN :], expect[C.R_CUN :])
        assert int(g["m_health"]) == 0 and int(g["m_armor"]) == 0


def test_next_level_starts_with_tracker_time_and_monster_removed():
    g = Game()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=20, food=3)
    g["time"] = int(g.T.time_start[1]) - 2  # 2 Time lost during this combat
    g["m_health"] = 0
    g.refresh()
    g.act("skip")
    g.act("keep_0")
    g.act("eat_1")
    assert int(g["level"]) == 2 and int(g["monster"]) == -1 and int(g["m_revealed"]) == 0
    # the Level's own passives may shift it; none are active here
    assert int(g["time"]) == int(g.T.time_start[1]) - 2


def test_score_points_match_rulebook_values():
    g = Game()
    pts = dict(zip(C.RES_NAMES, (int(x) for x in g.T.score_pts)))
    assert pts == {
        "small": 0,
        "medium": 3,
        "large": 5,
        "cunning": 2,
        "food": 3,
        "wood": 2,
        "metal": 3,
        "treasure": 10,
    }
