"""Unbroken rule scenarios: Hunger (the Hunger requirement and its escalating
cost, eating, Food gains before the penalty).

Each test sets a game up by editing its state record, queues die results,
plays actions by name and checks the rule's arithmetic (helpers in
``tests/helpers/unbroken_util.py``). Expected numbers are read from the content
tables; only numbers the rulebook itself fixes are written out.
The rule ids each test checks are listed in the coverage table of
``envs/unbroken/README.md``.
"""

import pytest
from helpers.unbroken_util import Game, to_battle

from dungeonrl.envs.unbroken import consts as C


def test_hunger_rulebook_example():
    """Level 3, Requirement 3, 2 Food held, eat 1: +1 S, then 1 + 2 = 3 S."""
    g = Game("hunter")
    g.goto_level(3)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 3
    g.set_res(small=10, food=2)
    g.refresh()
    assert g.legal() == ["eat_0", "eat_1", "eat_2"]
    g.act("eat_1")
    assert g.res("food") == 1
    assert g.res("small") == 10 + 1 - 3
    # the next Level begins: ability uses = 4, at its Preparation Step
    assert int(g["level"]) == 4 and int(g["uses"]) == 4 and g.phase() == "preparation"


@pytest.mark.parametrize("missing,cost", [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10)])
def test_hunger_escalating_cost(missing, cost):
    g = Game()
    g.goto_level(4)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 4
    g.set_res(small=15, food=4 - missing)
    g.refresh()
    g.act(f"eat_{4 - missing}")
    # Level 4 hunger survived -> the game is won
    assert g["outcome"] == C.O_WIN
    assert g.res("small") == 15 + (4 - missing) - cost


def test_hunger_requirement_is_level_after_battle():
    g = Game("brawler")
    m = g.ct.monster_names[int(g.T.m_by_level[1, 0])]
    to_battle(g, m, 2, small=5, food=3)
    # win the fight at once by editing the tracker, then let the flow run
    g["m_health"] = 0
    g["m_armor"] = 0
    g["phase"] = C.PH_TURN
    g.refresh()
    g.act("skip")  # end of our turn: the monster is at 0 Health -> victory
    assert g.phase() == "skill_reward"
    g.act("keep_0")
    assert g.phase() == "hunger" and int(g["hunger_req"]) == 2


def test_food_gain_comes_before_the_penalty():
    """UNB-172: with no Effort, eating 1 of 2 required Food gives 1 S first,
    which then pays the 1 S penalty; the player lives."""
    g = Game()
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 2
    g.set_res(small=0, medium=0, large=0, food=1)
    g.refresh()
    g.act("eat_1")
    assert int(g["outcome"]) == C.O_PLAYING and g.res("small") == 0 and int(g["level"]) == 2


def test_no_eating_beyond_the_requirement():
    """UNB-A23/167: eating is offered from 0 up to the Requirement only."""
    g = Game()
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 2
    g.set_res(food=5)
    g.refresh()
    assert g.legal() == ["eat_0", "eat_1", "eat_2"]


def test_starving_requirement_above_four_can_be_met():
    g = Game()
    g.goto_level(4)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 5
    g.set_res(food=6, small=5)
    g.refresh()
    assert "eat_5" in g.legal() and "eat_6" not in g.legal()
    g.act("eat_5")
    assert g["outcome"] == C.O_WIN and g.res("small") == 10
