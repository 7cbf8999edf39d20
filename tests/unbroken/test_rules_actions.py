"""Unbroken rule scenarios: resources, actions and the turn (resource bars and
Effort, paying and spending, which actions are offered when (sources and
windows), one thing per turn, Plan, exchanges, Ability Uses).

Each test sets a game up by editing its state record, queues die results,
plays actions by name and checks the rule's arithmetic (helpers in
``tests/helpers/unbroken_util.py``). Expected numbers are read from the content
tables; only numbers the rulebook itself fixes are written out.
The rule ids each test checks are listed in the coverage table of
``envs/unbroken/README.md``.
"""

import numpy as np
from helpers.unbroken_util import (
    Game,
    battle,
    char_ability,
    face_of,
    monster_where,
    pass_windows,
    skill_ability,
)

from dungeonrl.envs.unbroken import consts as C


def test_bar_caps_discard_excess():
    g = Game()
    g.set_res(small=int(g.T.bars[C.R_S]) - 1)
    g.refresh()
    g.act("explore")
    # rest on the first card: gain = its Time Value, capped at the bar
    tv = int(g.T.e_time[int(g["revealed"][0])])
    g.act("rest_0")
    assert g.res("small") == int(g.T.bars[C.R_S])
    assert tv >= 1


def test_effort_substitution_focus_and_inspiration():
    g = Game()
    g.set_res(small=1, medium=2, large=1)
    g.refresh()
    assert "focus" in g.legal()  # 1 S + 2 M + 1 L cover 4 S
    g.act("focus")
    assert (g.res("small"), g.res("medium"), g.res("large")) == (0, 1, 0)
    g.set_res(small=3, medium=0, large=0)
    g.refresh()
    assert "focus" not in g.legal() and "plan" not in g.legal()
    g.set_res(small=0, medium=1, large=1)
    g.refresh()
    assert "inspiration" in g.legal()  # 1 M + 1 L (L stands in for M)
    g.act("inspiration")
    assert (g.res("medium"), g.res("large")) == (0, 1)
    g.set_res(small=9, medium=1, large=0)
    g.refresh()
    assert "inspiration" not in g.legal()  # Small never stands in for Medium


def test_forced_effort_loss_unpayable_kills():
    g = Game()
    g.goto_level(2)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 2
    g.set_res(small=1, medium=1, large=0, food=0)  # 3 needed for 2 missing Food
    g.refresh()
    assert g.legal() == ["eat_0"]
    r = g.act("eat_0")
    assert g["outcome"] == C.O_LOSS and r == -1.0 and g.te[0]


def test_ability_uses_limit_per_level():
    g = Game("brawler")
    g["uses"] = 0
    g.refresh()
    assert not any(n.startswith("character_") for n in g.legal())


def test_zero_effort_is_not_death():
    """UNB-036: holding no Effort is survivable; only a failed forced payment kills."""
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) <= 2 and face_of(g, i, "defend") is not None)
    battle(g, int(g.T.m_level[m]), m, small=0)
    g.set_res(small=0, medium=0, large=0)
    g.refresh()
    assert g.phase() == "battle_turn" and "skip" in g.legal()
    g.force(face_of(g, m, "defend") + 1)
    g.act("skip")
    pass_windows(g)
    assert int(g["outcome"]) == C.O_PLAYING and g.phase() == "battle_turn"


def test_action_sources_guide_sheet_and_skills():
    """UNB-049: the Actions Guide, the character sheet and owned Skills all
    offer actions (monster-sheet offers: rules::test_rulebook_combat_example)."""
    g = Game("hunter")
    g.give_skill("Woodcraft")
    g.set_res(small=10)
    g.refresh()
    forage = char_ability(
        g,
        "hunter",
        lambda a: int(g.T.ab_kind[a]) == C.K_ACTION and int(g.T.ab_window[a]) == C.WIN_TRAVEL,
    )
    legal = g.legal()
    assert "focus" in legal and f"character_{forage}" in legal and "skill:Woodcraft" in legal
    g.act("skill:Woodcraft")
    a = skill_ability(g, "Woodcraft")
    assert g.res("wood") == int(g.T.ab_ops[a, 0, 2])
    assert g.phase() == "preparation"


def test_combat_actions_only_in_the_battle_step():
    """UNB-259: a Combat Action is offered in the Battle Step only."""
    g = Game("sneak")
    j = char_ability(
        g,
        "sneak",
        lambda a: int(g.T.ab_kind[a]) == C.K_ACTION and int(g.T.ab_window[a]) == C.WIN_BATTLE,
    )
    g.set_res(small=10)
    g.refresh()
    assert f"character_{j}" not in g.legal()  # Preparation Step
    m = monster_where(
        g,
        lambda i: (
            int(g.T.m_level[i]) == 1
            and int(g.T.m_can_trick[i])
            and int(g.T.m_trick[i, C.R_S : C.R_CUN].sum()) == 0
        ),
    )
    g.goto_level(1)
    g["monster"] = m
    for r in range(C.R_CUN, C.NRES):
        g["res"][r] = int(g.T.m_trick[m, r])
    g.set_res(small=10)
    g.refresh()
    g.act("fight")
    assert g.phase() == "trickery" and g.legal() == ["trick", "battle"]
    g.act("battle")
    pass_windows(g)
    assert g.phase() == "battle_turn" and f"character_{j}" in g.legal()


def test_one_thing_per_turn_and_an_action_uses_it():
    """UNB-114/129: an action in battle ends the player's turn: the monster
    rolls, and the next decision is the next round's turn."""
    g = Game("brawler")
    m = monster_where(
        g,
        lambda i: (
            int(g.T.m_level[i]) == 1
            and int(g.T.m_armor[i]) == 0
            and face_of(g, i, "defend") is None
        ),
    )
    g.give_skill("Sharpened Stakes")
    battle(g, 1, m, small=20, wood=3)
    d = 1
    r0 = int(g["round"])
    legal = g.legal()
    assert "skip" in legal and "skill:Sharpened Stakes" in legal
    assert any(n.startswith("attack_") for n in legal)
    h = int(g["m_health"])
    g.force(d)
    g.act("skill:Sharpened Stakes")
    pass_windows(g)
    a = skill_ability(g, "Sharpened Stakes")
    assert int(g["m_health"]) == max(0, h - int(g.T.ab_ops[a, 0, 2]))
    assert int(g["forced_i"]) == 1 and int(g["round"]) == r0 + 1 and g.phase() == "battle_turn"


def test_spending_is_a_choice():
    """UNB-263: every decision before the Hunger Step has an option that
    spends nothing (explore, rest, skip, pass, battle)."""
    g = Game("sneak")
    g.set_res(small=5)
    g.refresh()
    before = g["res"].copy()
    g.act("explore")
    assert "rest_0" in g.legal()
    assert np.array_equal(g["res"], before)
    g = Game("sneak")
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1 and face_of(g, i, "defend") is not None)
    battle(g, 1, m, small=5)
    before = g["res"].copy()
    g.force(face_of(g, m, "defend") + 1)
    g.act("skip")
    assert g.phase() == "response" and "pass" in g.legal()  # Dodge offered, not forced
    g.act("pass")
    assert np.array_equal(g["res"], before)


def test_travel_actions_only_in_preparation():
    g = Game("hunter")
    travel = [
        j
        for j in range(C.MAX_CHAR_AB)
        if int(g.T.char_ab[2, j]) >= 0
        and int(g.T.ab_kind[g.T.char_ab[2, j]]) == C.K_ACTION
        and int(g.T.ab_window[g.T.char_ab[2, j]]) == C.WIN_TRAVEL
    ]
    assert travel, "the Hunter has a travel ability"
    g.set_res(small=10, wood=3)
    g.refresh()
    assert f"character_{travel[0]}" in g.legal()
    assert "orienteer" in g.legal() and "scout" in g.legal()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=10, wood=3)
    assert g.phase() == "battle_turn"
    legal = g.legal()
    assert f"character_{travel[0]}" not in legal
    assert "orienteer" not in legal and "scout" not in legal and "explore" not in legal
    # General Actions are offered in battle too
    assert "focus" in legal


def test_no_general_actions_in_hunger_or_exploration():
    g = Game()
    g.set_res(small=12)
    g.refresh()
    g.act("explore")
    assert "focus" not in g.legal()
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 1
    g.refresh()
    assert all(n.startswith("eat_") for n in g.legal())


def test_plan_gives_cunning():
    g = Game()
    g.set_res(small=8)
    g.refresh()
    g.act("plan")
    assert g.res("cunning") == 1 and g.res("small") == 4


def test_exchange_spends_and_gains():
    g = Game()
    T = g.T
    cid = [
        i
        for i in range(int(T.n_enc_types))
        if T.e_spend[i, : C.NRES].sum() > 0
        and T.e_gain[i].sum() > 0
        and int(T.e_ops[i, 0, 0]) == C.OP_NONE
        and int(T.e_spend[i, C.R_TIME]) == 0
    ][0]
    for r in range(C.NRES):
        g["res"][r] = int(T.e_spend[cid, r]) + 1
    g["time"] = 16
    before = g["res"].copy()
    g.put_cards_on_top(g.ct.encounter_names[cid])
    g.refresh()
    g.act("explore")
    g.act("resolve_0")
    expect = np.minimum(before - T.e_spend[cid, : C.NRES] + T.e_gain[cid], T.bars)
    assert np.array_equal(g["res"], expect)
    assert int(g["time"]) == 16 - int(T.e_time[cid])
