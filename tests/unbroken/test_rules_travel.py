"""Unbroken rule scenarios: travel, exploration and Time (Scout, Orienteer,
exploration (reveal, resolve, rest), commitments, the Time track and the
Ambush, the encounter deck, Craft during Travel).

Each test sets a game up by editing its state record, queues die results,
plays actions by name and checks the rule's arithmetic (helpers in
``tests/helpers/unbroken_util.py``). Expected numbers are read from the content
tables; only numbers the rulebook itself fixes are written out.
The rule ids each test checks are listed in the coverage table of
``envs/unbroken/README.md``.
"""

import numpy as np
import pytest
from helpers.unbroken_util import Game, find_card, has_op, monster_where, monsters

from dungeonrl.envs.unbroken import consts as C
from dungeonrl.envs.unbroken import rules


@pytest.mark.parametrize(
    "level,cost", [(1, (1, 0, 1)), (2, (2, 0, 2)), (3, (0, 1, 1)), (4, (2, 1, 2))]
)
def test_scout_costs_and_reveal(level, cost):
    g = Game()
    g.goto_level(level)
    g["monster"] = -1
    g.set_res(small=10, cunning=3)
    t0 = int(g["time"])
    g.refresh()
    g.force(4)
    g.act("scout")
    s, cun, t = cost
    assert g.res("small") == 10 - s and g.res("cunning") == 3 - cun
    assert int(g["time"]) == t0 - t
    m = int(g["monster"])
    assert int(g["m_revealed"]) == 1
    assert m == int(g.T.m_by_level[level - 1, 3])  # the die picked number 4
    assert int(g["m_armor"]) == int(g.T.m_armor[m]) and int(g["m_health"]) == int(g.T.m_health[m])
    assert "scout" not in g.legal()  # once the monster is known


def test_orienteer_reveals_two_more():
    g = Game()
    g.set_res(small=5)
    g.refresh()
    g.act("orienteer")
    assert g.res("small") == 4
    g.act("explore")
    assert int(g["revealed_n"]) == int(g.T.reveal_base) + int(g.T.orienteer_bonus) == 4


def test_exploration_reveal_two_pick_one_discard_rest():
    g = Game()
    g.refresh()
    g.act("explore")
    assert int(g["revealed_n"]) == 2
    first, second = int(g["revealed"][0]), int(g["revealed"][1])
    g.act("rest_1")
    assert int(g["enc_disc_n"]) == 2
    assert sorted(int(x) for x in g["enc_disc"][:2]) == sorted([first, second])
    assert int(g["time"]) == int(g.T.time_start[0]) - int(g.T.e_time[second])


def test_resolve_needs_full_spend_field():
    g = Game()
    name = find_card(g, lambda i: int(g.T.e_spend[i, C.R_S]) > 0)
    cid = g.card(name)
    g.set_res(small=int(g.T.e_spend[cid, C.R_S]) - 1, medium=0, large=0)
    for r in range(C.R_CUN, C.NRES):
        g["res"][r] = 8
    g.put_cards_on_top(name)
    g.refresh()
    g.act("explore")
    assert int(g["revealed"][0]) == cid
    assert "resolve_0" not in g.legal() and "rest_0" in g.legal()


def test_rest_past_zero_time_gives_full_benefit_then_ambush():
    """2 Time left, rest on a Time Value 5 card: +5 S, Time 0, ambush."""
    g = Game("sneak")
    name = find_card(g, lambda i: int(g.T.e_time[i]) == 5)
    no_ambush = [
        i for i in range(C.NMONSTER) if int(g.T.m_ambush[i, 0, 0]) == 0 and int(g.T.m_level[i]) == 1
    ]
    m = no_ambush[0] if no_ambush else int(g.T.m_by_level[0, 0])
    g["monster"] = m
    g.set_res(small=3, time=2)
    g.put_cards_on_top(name)
    g.refresh()
    g.act("explore")
    g.act("rest_0")
    assert int(g["ambushed"]) == 1 and int(g["combat"]) == 1
    # the Time token moved to the next Level's start when combat began
    assert int(g["time"]) == int(g.T.time_start[1])
    if no_ambush:
        assert g.res("small") == 3 + 5
    # no Trickery opportunity after an ambush
    assert g.phase() != "trickery"


def test_action_bringing_time_to_zero_triggers_ambush():
    g = Game()
    g["monster"] = -1
    g.set_res(small=5, time=1)
    g.refresh()
    g.force(1, 6)  # scout roll, then any later roll
    g.act("scout")  # Level 1 scout costs 1 Time
    assert int(g["ambushed"]) == 1 and int(g["combat"]) == 1


def test_commit_reveals_one_and_forbids_rest_and_fight():
    g = Game()
    commit_card = find_card(
        g, lambda i: has_op(g, i, C.OP_COMMIT) and int(g.T.e_spend[i, C.R_TIME]) == 0
    )
    cid = g.card(commit_card)
    # a card we cannot afford next, to check "nothing happens but Time passes"
    dear = find_card(
        g, lambda i: int(g.T.e_spend[i, C.R_TREAS]) > 0 or int(g.T.e_spend[i, C.R_METAL]) > 1
    )
    did = g.card(dear)
    g.set_res(small=10, time=16)
    for r in range(C.R_CUN, C.NRES):
        g["res"][r] = int(g.T.e_spend[cid, r])
    g.set_res(small=max(10, int(g.T.e_spend[cid, C.R_S])))
    filler = [n for n in g.ct.encounter_names if n not in (dear, commit_card)][0]
    g.put_cards_on_top(dear, filler, commit_card)  # commit card and filler revealed first
    g.refresh()
    g.act("explore")
    i = [int(x) for x in g["revealed"][: int(g["revealed_n"])]].index(cid)
    g.act(f"resolve_{i}")
    assert int(g["commit"]) == 1
    assert g.phase() == "preparation" and "fight" not in g.legal()
    for r in range(C.R_CUN, C.NRES):
        g["res"][r] = 0
    g.set_res(small=0, medium=0, large=0)
    g.refresh()
    before = g["res"].copy()
    t0 = int(g["time"])
    g.act("explore")
    assert int(g["revealed_n"]) == 1 and int(g["revealed"][0]) == did
    assert g.legal() == ["resolve_0"]
    g.act("resolve_0")
    assert np.array_equal(g["res"], before)  # nothing spent, nothing gained
    assert int(g["time"]) == t0 - int(g.T.e_time[did])
    assert int(g["commit"]) == 0


def test_encounter_deck_reshuffles_discard_when_empty():
    g = Game()
    s = g.st[0]
    deck = [int(x) for x in s["enc_deck"][: int(s["enc_deck_n"])]]
    keep, rest = deck[:1], deck[1:]
    s["enc_deck"][:] = -1
    s["enc_deck"][:1] = keep
    s["enc_deck_n"] = 1
    s["enc_disc"][: len(rest)] = rest
    s["enc_disc_n"] = len(rest)
    g.refresh()
    g.act("explore")
    assert int(g["revealed_n"]) == 2
    assert int(g["enc_disc_n"]) == 0
    assert int(g["enc_deck_n"]) == 92 - 2


def test_skill_from_encounter():
    g = Game()
    name = find_card(g, lambda i: has_op(g, i, C.OP_SKILL))
    cid = g.card(name)
    for r in range(C.NRES):
        g["res"][r] = max(int(g.T.e_spend[cid, r]), 2 if r == C.R_S else 0)
    g["time"] = 16
    g.put_cards_on_top(name)
    g.refresh()
    g.act("explore")
    i = [int(x) for x in g["revealed"][: int(g["revealed_n"])]].index(cid)
    g.act(f"resolve_{i}")
    assert g.phase() == "skill_reward"
    g.act("keep_1")
    assert sum(int(x) for x in g["skill_owned"]) == 1


def test_orienteer_masked_while_committed_and_bonus_discarded():
    """UNB-A10/075: no Orienteer while committed; a committed reveal shows 1
    card and throws any pending bonus away."""
    g = Game()
    g.set_res(small=10)
    g["commit"] = 1
    g["reveal_bonus"] = 4
    g.refresh()
    assert "orienteer" not in g.legal() and "fight" not in g.legal()
    g.act("explore")
    assert int(g["revealed_n"]) == 1 and int(g["reveal_bonus"]) == 0


def test_commitment_carries_into_the_next_level():
    """UNB-078 (our reading): a commitment still open when the Level ends
    binds the next Level's first Exploration Step."""
    g = Game()
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 0
    g["commit"] = 1
    g.refresh()
    g.act("eat_0")
    assert int(g["level"]) == 2 and g.phase() == "preparation"
    assert int(g["commit"]) == 1 and "fight" not in g.legal()
    g.act("explore")
    assert int(g["revealed_n"]) == 1 and g.legal() == ["resolve_0"]


def test_level_starting_at_zero_time():
    """UNB-A12: with 0 Time, Preparation actions that need no Time stay
    open; Time-costing ones and exploring do not; fighting is allowed."""
    g = Game()
    g.set_res(small=10, time=0)
    g.refresh()
    legal = g.legal()
    assert "focus" in legal and "fight" in legal
    assert "explore" not in legal and "scout" not in legal
    g.act("focus")
    assert g.phase() == "preparation" and int(g["combat"]) == 0


def test_travel_craft_needs_its_time():
    """UNB-A13/050: a Craft whose Time cost exceeds the Time left is masked."""
    g = Game()
    j = [
        j
        for j in range(2)
        if int(g.T.w_upg_to[0, j]) >= 0 and int(g.T.w_upg_cost[0, j, C.R_TIME]) > 0
    ][0]
    cost = g.T.w_upg_cost[0, j]
    for r in range(C.NRES):
        g["res"][r] = int(cost[r]) + 2
    g.set_res(time=int(cost[C.R_TIME]) - 1)
    g.refresh()
    assert f"craft_{j}" not in g.legal()
    g.set_res(time=int(cost[C.R_TIME]))
    g.refresh()
    assert f"craft_{j}" in g.legal()


def test_cure_card_in_play():
    """UNB-221: resolving a cure card discards active Conditions (a waiting
    one stays waiting)."""
    g = Game()
    cards = [
        i for i in range(int(g.T.n_enc_types)) if any(int(o[0]) == C.OP_CURE for o in g.T.e_ops[i])
    ]
    if not cards:
        pytest.skip("no cure card")
    cid = cards[0]
    poi, lost = g.cond("Poisoned"), g.cond("Lost")
    g["cond"][poi] = 1
    g["cond_tokens"][poi] = 2
    g["cond"][lost] = 2
    for r in range(C.NRES):
        g["res"][r] = int(g.T.e_spend[cid, r])
    g.set_res(time=16)
    g.put_cards_on_top(g.ct.encounter_names[cid])
    g.refresh()
    g.act("explore")
    i = [int(x) for x in g["revealed"][: int(g["revealed_n"])]].index(cid)
    g.act(f"resolve_{i}")
    assert int(g["cond"][poi]) == 0 and int(g["cond_tokens"][poi]) == 0
    assert int(g["cond"][lost]) == 2


def test_ambush_effect_not_applicable_in_full_does_nothing():
    g = Game()
    m = monster_where(
        g,
        lambda i: (
            int(g.T.m_level[i]) == 1
            and any(int(o[0]) == C.OP_LOSE and int(o[1]) > C.R_L for o in g.T.m_ambush[i])
            and any(int(o[0]) == C.OP_WOUND for o in g.T.m_ambush[i])
        ),
    )
    r = [int(o[1]) for o in g.T.m_ambush[m] if int(o[0]) == C.OP_LOSE][0]
    g["monster"] = m
    g.set_res(small=10, time=0, **{C.RES_NAMES[r]: 0})
    g.refresh()
    assert not rules.ops_applicable(g.st[0], g.core.TR[0], g.T.m_ambush[m])
    g.act("fight")
    assert int(g["ambushed"]) == 1
    assert g.res("small") == 10


def test_scouted_monster_is_fought_without_a_new_roll():
    g = Game()
    g.set_res(small=10)
    g.refresh()
    g.force(5)
    g.act("scout")
    m = int(g["monster"])
    g.force(1, 1, 1, 1)
    g.act("fight")
    assert int(g["monster"]) == m


def test_combat_start_roll_picks_the_monster():
    for level in (1, 3):
        g = Game()
        g.goto_level(level)
        g["monster"] = -1
        g.set_res(small=20)
        g.refresh()
        g.force(6, 1, 1, 1, 1)
        g.act("fight")
        assert int(g["monster"]) == int(g.T.m_by_level[level - 1, 5])
        assert int(g["m_revealed"]) == 1


def test_ambush_effect_applied():
    g = Game()
    cand = monsters(
        g,
        lambda i: (
            int(g.T.m_ambush[i, 0, 0]) == C.OP_WOUND and int(g.T.m_ambush[i, 1, 0]) == C.OP_NONE
        ),
    )
    assert cand, "a monster whose ambush is a plain wound"
    m = cand[0]
    n = int(g.T.m_ambush[m, 0, 2])
    g.goto_level(int(g.T.m_level[m]))
    g["monster"] = m
    g.set_res(small=15, time=0)
    g.refresh()
    assert "explore" not in g.legal()  # a Level at 0 Time: no exploring (UNB-A12)
    g.act("fight")  # ... and fighting means being ambushed
    assert int(g["ambushed"]) == 1
    assert g.res("small") == 15 - n


def test_craft_can_trigger_the_ambush():
    g = Game()
    w0 = g.weapon("Bare Hands")
    j = [j for j in range(2) if int(g.T.w_upg_cost[w0, j, C.R_TIME]) > 0][0]
    cost = g.T.w_upg_cost[w0, j]
    for r in range(C.NRES):
        g["res"][r] = int(cost[r]) + (5 if r == C.R_S else 0)
    g["time"] = int(cost[C.R_TIME])
    g.refresh()
    g.force(1, 1, 1, 1)
    g.act(f"craft_{j}")
    assert int(g["ambushed"]) == 1 and int(g["combat"]) == 1


def test_time_costs_need_the_time():
    g = Game()
    g.set_res(small=10, time=0)
    g.refresh()
    assert "scout" not in g.legal()  # Level 1 Scout costs 1 Time


def test_reveal_limits_and_orienteer_stacking():
    g = Game()
    g.set_res(small=10)
    g.refresh()
    g.act("orienteer")
    g.act("orienteer")
    g.act("explore")
    assert int(g["revealed_n"]) == min(int(g.T.reveal_max), 2 + 2 * int(g.T.orienteer_bonus))
    g2 = Game()
    g2["reveal_bonus"] = 8
    g2.refresh()
    g2.act("explore")
    assert int(g2["revealed_n"]) == int(g2.T.reveal_max)
    g3 = Game()
    g3["reveal_bonus"] = -5
    g3.refresh()
    g3.act("explore")
    assert int(g3["revealed_n"]) == 1  # never below 1


def test_unused_reveal_bonus_lapses_when_combat_starts():
    g = Game()
    g.set_res(small=10)
    g.refresh()
    g.act("orienteer")
    g.force(1, 1, 1, 1, 1)
    g.act("fight")
    assert int(g["reveal_bonus"]) == 0
