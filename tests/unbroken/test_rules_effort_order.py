"""Unbroken rule scenarios: which higher Effort stands in for a lower one
(UNB-035 and its reading UNB-A01).

Higher Effort pays for lower one for one; when both higher sizes could
cover a shortfall, the reading (``envs/unbroken/README.md``, A01) spends
Medium before Large, for chosen costs and forced losses alike. Set-up
helpers are in ``tests/helpers/unbroken_util.py``; the rule ids each test checks are
listed in the coverage table of ``envs/unbroken/README.md``.
"""

from helpers.unbroken_util import Game

from dungeonrl.envs.unbroken import consts as C


def effort(g):
    return g.res("small"), g.res("medium"), g.res("large")


def test_small_shortfall_paid_by_medium_before_large():
    """UNB-035, UNB-A01: Orienteer's 1 Small with no Small held takes the
    Medium, not the Large."""
    g = Game()
    g.set_res(small=0, medium=1, large=1)
    g.refresh()
    assert "orienteer" in g.legal()
    g.act("orienteer")
    assert effort(g) == (0, 0, 1)


def test_small_shortfall_takes_large_once_medium_is_gone():
    """UNB-035, UNB-A01: a shortfall larger than the Medium held takes all
    the Medium, then the rest from Large."""
    g = Game()
    g.set_res(small=1, medium=1, large=3)
    g.refresh()
    g.act("focus")  # 4 Small: 1 S, then 1 M, then 2 L; +1 Medium
    assert effort(g) == (0, 1, 1)


def test_forced_small_loss_paid_by_medium_before_large():
    """UNB-035, UNB-A01, UNB-171: a hunger penalty the Small bar cannot
    pay is taken from Medium first; the player lives."""
    g = Game()
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 1
    g.set_res(small=0, medium=1, large=1, food=0)
    g.refresh()
    g.act("eat_0")  # 1 Food missed: 1 Small penalty
    assert int(g["outcome"]) == C.O_PLAYING
    assert effort(g) == (0, 0, 1)
