"""A seat wins a table when it takes first place, not when its return is
positive: Dungeon Kart's ranking reward pays every place above the middle."""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.agents.algos.selfplay import play_match, table_result
from dungeonrl.agents.policy import make_agent
from dungeonrl.envs.core.common import resolve_core


def test_first_place_not_a_positive_return():
    # four seats ranked 1st..4th with Kart's rank reward (1, 1/3, -1/3, -1)
    ret = np.array([[1.0, 1 / 3, -1 / 3, -1.0]] * 4, np.float32)
    side = np.ones((4, 4), np.int64)
    seat_a = np.arange(4)
    side[np.arange(4), seat_a] = 0
    assert table_result(ret, side, seat_a).tolist() == [1, -1, -1, -1]


def test_shared_first_and_no_result():
    ret = np.array(
        [
            [2 / 3, 2 / 3, -2 / 3, -2 / 3],  # two seats share first place
            [0.0, 0.0, 0.0, 0.0],  # truncated: a table-wide tie
            [1.0, -1.0, 0.0, 0.0],  # seat 0 won alone
        ],
        np.float32,
    )
    seat_a = np.array([1, 1, 2])
    side = np.ones((3, 4), np.int64)
    side[np.arange(3), seat_a] = 0
    assert table_result(ret, side, seat_a).tolist() == [1, 0, -1]


def test_a_partner_winning_is_not_a_rival_win():
    # side 0 holds seats 0 and 2 (a team); its other seat wins: not a loss
    ret = np.array([[-1.0, -1.0, 1.0, -1.0]], np.float32)
    side = np.array([[0, 1, 0, 1]])
    assert table_result(ret, side, np.array([0])).tolist() == [0]


@pytest.mark.parametrize("players", [4, 8])
def test_heuristic_against_itself_takes_about_its_fair_share(players):
    """Kart at 4 and 8 seats, the heuristic in every seat: the rotating seat takes
    first place about 1/P of the time (a positive return: the top half)."""
    core = resolve_core("dungeon_kart", {"num_players": players})
    h = make_agent("heuristic", core, seed=0)
    r = play_match(core, h, h, 160, seed=0)
    first = float(np.mean(r["result"] == 1))
    assert abs(first - 1 / players) < 0.12, first
