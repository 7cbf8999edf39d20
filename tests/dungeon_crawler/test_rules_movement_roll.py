"""Dungeon Crawler: a turn's movement roll is 1d6 plus the hero's boots
bonus (DC-048, DC-049; no boots: no bonus), so it runs from 1 to 11
(DC-050).

The turn is begun directly (``rules.begin_turn``) on a record whose die is
forced, for the same die with no boots and with every pair of boots the
content has. The rule ids each test checks are listed in the coverage
table of ``envs/dungeon_crawler/README.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.envs.dungeon_crawler import consts as C
from dungeonrl.envs.dungeon_crawler import make_core, rules


@pytest.mark.parametrize("die", [1, 6])
def test_movement_roll_is_d6_plus_boots(die):
    """DC-048, DC-049, DC-050."""
    core = make_core(num_players=2, auto_advance=False)
    T = core.T
    boots = [i for i in range(C.NITEM) if T.item_slot[i] == C.SL_BOOTS]
    assert any(int(T.item_spd[i]) > 0 for i in boots)
    for it in [-1, *boots]:
        st = core.alloc(1)
        core.reset(st, np.array([3], np.uint64))
        s = st[0]
        s["equip"][1, C.SL_BOOTS] = it
        s["hand_n"][1] = C.HAND_MAX  # no card drawn: the die is the only chance
        s["forced"][:1] = die
        s["forced_n"] = 1
        s["forced_i"] = 0
        rules.begin_turn(s, T, 1)
        bonus = int(T.item_spd[it]) if it >= 0 else 0
        assert int(s["roll"]) == die + bonus, (it, bonus)
        assert int(s["turn"]) == 1 and int(s["phase"]) == C.PH_MOVE
        assert 1 <= int(s["roll"]) <= 11
