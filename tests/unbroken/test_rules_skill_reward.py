"""Unbroken rule scenarios: the Skill reward for beating a monster (UNB-162,
UNB-163, UNB-243).

Beating the monster of Level 1, 2 or 3 in battle earns a Skill: two are
shown, one is kept, the other is discarded. The Level 4 monster earns none.
Every Level is checked on its own: random play rarely beats the Level 3
monster, so a rule that stopped one Level short would otherwise go unseen.
Set-up helpers are in ``tests/helpers/unbroken_util.py``; the rule ids each test
checks are listed in the coverage table of ``envs/unbroken/README.md``.
"""

import numpy as np
import pytest
from helpers.unbroken_util import Game, battle

from dungeonrl.envs.unbroken import consts as C


def beat_the_monster(level):
    """A game whose Level ``level`` monster has just been beaten in battle."""
    g = Game()
    m = int(g.T.m_by_level[level - 1, 0])
    battle(g, level, m, small=10, food=level)
    g["m_health"] = 0
    g["m_armor"] = 0
    g.refresh()
    g.act("skip")
    return g


@pytest.mark.parametrize("level", [1, 2, 3])
def test_skill_reward_after_each_of_the_first_three_monsters(level):
    """UNB-163, UNB-243: a battle won on Level 1, 2 or 3 shows two Skills;
    UNB-162: the one kept is owned, the other goes to the Skill discard."""
    g = beat_the_monster(level)
    assert g.phase() == "skill_reward"
    assert int(g["skill_offer_n"]) == 2
    shown = [int(x) for x in g["skill_offer"]]
    owned_before = g["skill_owned"].copy()
    disc_before = int(g["skill_disc_n"])
    assert g.legal() == ["keep_0", "keep_1"]
    g.act("keep_1")
    owned = np.flatnonzero(g["skill_owned"] != owned_before).tolist()
    assert owned == [shown[1]]
    assert int(g["skill_disc_n"]) == disc_before + 1
    assert int(g["skill_disc"][disc_before]) == shown[0]
    assert g.phase() == "hunger"
    assert int(g["level"]) == level


def test_no_skill_reward_after_the_level4_monster():
    """UNB-163, UNB-243: beating the Level 4 monster earns no Skill; the
    Hunger Step follows the Rewards at once."""
    g = beat_the_monster(4)
    owned_before = g["skill_owned"].copy()
    assert g.phase() == "hunger"
    assert int(g["skill_offer_n"]) == 0
    assert np.array_equal(g["skill_owned"], owned_before)
    assert int(g["phase"]) == C.PHASE_NAMES.index("hunger")
