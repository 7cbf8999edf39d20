"""Dungeon Crawler Carl: Unstoppable: the Threat Phase hits the crawler
whose battlefield the threat is on (DCC-187, DCC-188), a threat falls at
exactly its Health (DCC-168, DCC-171), the upkeep's mana (DCC-117), and
the game is won only once every crawler went down the stairs (DCC-004).

Scenes are built with the record helpers of ``test_rules.py`` (a reset
record edited in place, rules called at row level). The rule ids each test
checks are listed in the coverage table of ``envs/dcc_unstoppable/README.md``.
"""

import numpy as np

from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable import rules as R

from .test_rules import (
    STRIKE,
    TT,
    T,
    act,
    bf_slot,
    card,
    legal,
    new,
    play,
    scene,
    tgt,
    tid,
    to_main,
)


def test_threat_phase_hits_the_battlefields_owner():
    """DCC-187, DCC-188: at two seats, the threats on seat 0's battlefield
    damage seat 0 only; seat 1, with an empty battlefield, takes nothing."""
    arr, st = scene(num_players=2, seed=14)
    trog = card(st, tid("Troglodyte"), STRIKE, C.Z_BATTLE, 0)
    for p in range(2):
        for k in range(1, 5):
            card(st, k + 11 * p, STRIKE, C.Z_DECK, p)
    st["health"][0] = st["health"][1] = 10
    hit = int(TT.t_atk[trog])
    assert hit >= 1
    st["actor"] = 0
    act(st, C.A_END)
    assert st["actor"] == 1
    act(st, C.A_END)  # both crawlers done: Threat Phase, cleanup, next turn
    assert st["turn"] == 2 and st["outcome"] == 0
    assert (st["health"][0], st["health"][1]) == (10 - hit, 10)


def test_threat_falls_at_exactly_its_health():
    """DCC-168, DCC-171: damage equal to Health defeats the threat (into
    the hand, core side up); one less leaves it on the battlefield."""
    arr, st = scene()
    gob = card(st, tid("Loot Goblin"), STRIKE, C.Z_BATTLE)
    s1 = card(st, 0, STRIKE, C.Z_HAND)
    s2 = card(st, 1, STRIKE, C.Z_HAND)
    card(st, 2, STRIKE, C.Z_DECK)  # keep the deck non-empty
    st["ap"][0] = 6
    health = int(R.t_health(st, T, gob))
    st["sl_dmg"][gob] = health - 2
    play(st, s1)
    act(st, tgt(0, bf_slot(st, gob)))  # Strike: 1 damage
    assert st["sl_dmg"][gob] == health - 1 and st["sl_zone"][gob] == C.Z_BATTLE
    play(st, s2)
    assert tgt(0, bf_slot(st, gob)) in legal(st)
    act(st, tgt(0, bf_slot(st, gob)))  # exactly its Health
    assert st["sl_zone"][gob] == C.Z_HAND and st["sl_dmg"][gob] == 0


def test_upkeep_mana_rises_by_one_below_the_top():
    """DCC-117: the upkeep raises mana by one; at the top of the track (10)
    nothing happens."""
    for before, after in ((4, 5), (C.MANA_CAP - 1, C.MANA_CAP), (C.MANA_CAP, C.MANA_CAP)):
        arr, st = new(seed=6)
        to_main(st)
        st["mana"][0] = before
        R.start_turn(st, T, np.zeros(2, np.float32))
        assert st["mana"][0] == after, (before, st["mana"][0])


def test_no_win_until_every_crawler_went_down():
    """DCC-004: at two seats, one crawler down the stairs does not win the
    game; the other plays on."""
    arr, st = scene(num_players=2, seed=17)
    st["bosses"][C.BK_NEIGHBORHOOD] = 2  # the floor's need, once per seat
    st["bosses"][C.BK_BOROUGH] = 2
    card(st, 2, STRIKE, C.Z_BATTLE, 0)
    R.put_deck_bottom(st, C.STAIRS0, 0)
    for k in range(1, 5):
        card(st, k + 11, STRIKE, C.Z_DECK, 1)
    st["actor"] = 0
    assert R.ondeck(st, 0) == C.STAIRS0 and C.A_DESCEND in legal(st)
    act(st, C.A_DESCEND)
    assert st["descended"][0] == 1
    while st["outcome"] == 0 and st["turn"] < 2:
        act(st, C.A_END)
    assert st["outcome"] == 0 and st["descended"][1] == 0
    assert st["turn"] == 2 and st["phase"] in (C.PH_DRAFT, C.PH_MAIN)
