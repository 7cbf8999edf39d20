"""Unbroken rule scenarios: weapons (the weapon stack, Craft and its upgrade
paths (in Travel and in battle), voluntary and temporary downgrades, tier
requirements).

Each test sets a game up by editing its state record, queues die results,
plays actions by name and checks the rule's arithmetic (helpers in
``tests/helpers/unbroken_util.py``). Expected numbers are read from the content
tables; only numbers the rulebook itself fixes are written out.
The rule ids each test checks are listed in the coverage table of
``envs/unbroken/README.md``.
"""

import numpy as np
import pytest
from helpers.unbroken_util import (
    Game,
    apply,
    battle,
    char_ability,
    face_of,
    face_with,
    monster_where,
    pass_windows,
    roll_face,
    to_battle,
)

from dungeonrl.envs.unbroken import consts as C
from dungeonrl.envs.unbroken import rules


def test_level4_craft_time_paid_in_small_effort():
    g = Game("hunter")
    g.goto_level(4)
    m = g.ct.monster_names[int(g.T.m_by_level[3, 0])]
    to_battle(g, m, 4, small=20, wood=8, metal=8)
    if g.phase() == "trickery":
        g.act("battle")
    while g.phase() == "response":
        g.act("pass")
    assert g.phase() == "battle_turn"
    up = g.T.w_upg_cost[0, 0]
    s0 = g.res("small")
    g.force(1, 1, 1)
    g.act("craft_0")
    assert int(g["wstack_n"]) == 2
    # Time cost paid as Small Effort (the monster's turn may cost more)
    assert g.res("small") <= s0 - int(up[C.R_TIME]) - int(up[C.R_S])


def test_voluntary_downgrade_and_bare_hands():
    g = Game()
    assert "downgrade" not in g.legal()
    g.set_weapons("Bare Hands", "Club")
    g.refresh()
    g.act("downgrade")
    assert int(g["wstack_n"]) == 1


def test_craft_upgrade_path_and_cost():
    g = Game()
    w0 = g.weapon("Bare Hands")
    to = int(g.T.w_upg_to[w0, 0])
    cost = g.T.w_upg_cost[w0, 0]
    for r in range(C.NRES):
        g["res"][r] = int(cost[r]) + (4 if r == C.R_S else 0)
    t0 = int(g["time"])
    g.refresh()
    g.act("craft_0")
    assert int(g["wstack"][1]) == to and int(g["time"]) == t0 - int(cost[C.R_TIME])
    assert g.res("small") == 4


def test_only_the_top_sheet_is_the_weapon():
    """UNB-016: with a Knife on Bare Hands, attack slots are the Knife's."""
    g = Game("brawler")
    m = monster_where(g, lambda i: int(g.T.m_level[i]) <= 2 and face_of(g, i, "defend") is not None)
    battle(g, int(g.T.m_level[m]), m, small=20)
    g.set_weapons("Bare Hands", "Knife")
    g["m_armor"] = 0
    g["m_health"] = g["m_health_max"] = 30
    g.refresh()
    knife = g.weapon("Knife")
    k = [
        k
        for k in range(int(g.T.w_natk[knife]))
        if int(g.T.w_atk_kind[knife, k]) == 1 and int(g.T.w_atk_cost[knife, k, C.R_M :].sum()) == 0
    ][0]
    s0 = g.res("small")
    g.force(face_of(g, m, "defend") + 1)
    g.act(f"attack_{k}")
    pass_windows(g)  # decline Power Through
    assert int(g["m_health"]) == 30 - int(g.T.w_atk_power[knife, k])
    assert g.res("small") == s0 - int(g.T.w_atk_cost[knife, k, C.R_S])


def test_tier_requirement_follows_the_equipped_weapon():
    """UNB-229 (no shipped card uses it, so a copy of the tables is edited):
    an ability needing an Advanced weapon is offered only with one, and one
    needing a Basic weapon only without."""
    g = Game("brawler")
    j = char_ability(
        g,
        "brawler",
        lambda a: (
            int(g.T.ab_kind[a]) == C.K_ACTION
            and int(g.T.ab_window[a]) == C.WIN_TRAVEL | C.WIN_BATTLE
            and g.T.ab_cost[a].sum() == 0
        ),
    )
    a = int(g.T.char_ab[3, j])
    slot = C.A_CHAR0 + j
    for req, legal_with in ((C.RQ_ADVANCED, "advanced"), (C.RQ_BASIC, "basic")):
        TR = g.core.TR.copy()
        TR["ab_req"][0, a] = req
        for stack in (("Bare Hands",), ("Bare Hands", "Knife", "Sword")):
            g.set_weapons(*stack)
            mask = np.zeros(C.NUM_ACTIONS, np.uint8)
            rules.legal_mask(g.st[0], TR[0], mask)
            tier = "advanced" if stack[-1] == "Sword" else "basic"
            assert bool(mask[slot]) == (tier == legal_with), (req, stack)


def test_craft_in_a_level_1_to_3_battle_takes_next_levels_time():
    """UNB-233/A13: Craft in a Level 1-3 battle uses the turn and costs the
    next Level's Time, and needs that Time on the tracker."""
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1 and face_of(g, i, "defend") is not None)
    j = [
        j
        for j in range(2)
        if int(g.T.w_upg_to[0, j]) >= 0 and int(g.T.w_upg_cost[0, j, C.R_TIME]) > 0
    ][0]
    cost = g.T.w_upg_cost[0, j]
    battle(g, 1, m, small=20, wood=8, metal=8)
    t = int(g["time"])
    assert t == int(g.T.time_start[1])
    g.set_res(time=int(cost[C.R_TIME]) - 1)
    g.refresh()
    assert f"craft_{j}" not in g.legal()
    g.set_res(time=t)
    g.refresh()
    r0 = int(g["round"])
    g.force(face_of(g, m, "defend") + 1)
    g.act(f"craft_{j}")
    pass_windows(g)
    assert int(g["wstack"][1]) == int(g.T.w_upg_to[0, j])
    assert int(g["time"]) == t - int(cost[C.R_TIME])
    assert int(g["round"]) == r0 + 1


def test_monster_face_downgrades_temporarily():
    """UNB-266/237: a monster face sets the equipped sheet aside for its
    rounds; it comes back afterwards."""
    g = Game()
    cand = [
        (m, f)
        for m in range(C.NMONSTER)
        for f in range(6)
        if int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_DOWNGRADE
        and int(g.T.m_face_ops[m, f, 0, 3]) == 0
        and face_of(g, m, "defend") is not None
    ]
    if not cand:
        pytest.skip("no temporary-downgrade face")
    m, f = cand[0]
    rounds = int(g.T.m_face_ops[m, f, 0, 2])
    battle(g, int(g.T.m_level[m]), m, small=20)
    g.set_weapons("Bare Hands", "Knife")
    g.refresh()
    roll_face(g, f)
    assert int(g["wstack_n"]) == 1 and [int(x) for x in g["waside"][:1]] == [g.weapon("Knife")]
    d = face_of(g, m, "defend")
    for _ in range(rounds + 1):
        if int(g["wstack_n"]) == 2 or g.phase() != "battle_turn":
            break
        roll_face(g, d)
    assert int(g["wstack_n"]) == 2 and int(g["waside_n"]) == 0


def test_second_upgrade_option():
    g = Game()
    w0 = g.weapon("Bare Hands")
    to = int(g.T.w_upg_to[w0, 1])
    cost = g.T.w_upg_cost[w0, 1]
    for r in range(C.NRES):
        g["res"][r] = int(cost[r]) + 3
    g.refresh()
    g.act("craft_1")
    assert int(g["wstack"][1]) == to


def test_downgrade_in_battle_uses_the_turn_and_returns_the_sheet():
    g = Game()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=20, wood=8, metal=8)
    g.set_weapons("Bare Hands", "Club")
    g.refresh()
    d = face_with(g, m, lambda f: C.FACE_TYPES[int(g.T.m_face_type[m, f])] == "defend")
    g.force((d + 1) if d is not None else 1)
    r0 = int(g["round"])
    g.act("downgrade")
    while g.phase() == "response":
        g.act("pass")
    assert int(g["wstack_n"]) == 1
    assert int(g["round"]) == r0 + 1  # the monster took its turn: ours was used
    assert "craft_0" in g.legal()  # the Club is back in the Weapon Deck


def test_temporary_downgrade_returns_after_rounds():
    g = Game()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=20, wood=8, metal=8)
    g.set_weapons("Bare Hands", "Knife")
    g.refresh()
    apply(g, (C.OP_DOWNGRADE, 0, 1, 0))
    assert int(g["wstack_n"]) == 1 and int(g["waside_n"]) == 1
    g.refresh()
    knife_j = [j for j in range(2) if int(g.T.w_upg_to[0, j]) == g.weapon("Knife")][0]
    assert f"craft_{knife_j}" not in g.legal()  # the set-aside sheet cannot be crafted again
    d = face_with(g, m, lambda f: C.FACE_TYPES[int(g.T.m_face_type[m, f])] == "defend")
    g.force((d + 1) if d is not None else 1)
    g.act("skip")
    while g.phase() == "response":
        g.act("pass")
    assert int(g["wstack_n"]) == 2 and int(g["wstack"][1]) == g.weapon("Knife")


def test_crafting_over_a_temporary_downgrade_keeps_one_chain():
    g = Game()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=20, wood=8, metal=8)
    knife = g.weapon("Knife")
    g.set_weapons("Bare Hands", "Knife")
    g.refresh()
    apply(g, (C.OP_DOWNGRADE, 0, 3, 0))  # Knife set aside for 3 rounds
    g.refresh()
    other = [j for j in range(2) if int(g.T.w_upg_to[0, j]) not in (-1, knife)][0]
    g.force(1, 1, 1, 1)
    g.act(f"craft_{other}")
    assert int(g["waside_n"]) == 0  # the set-aside Knife went back to the deck
    assert [int(x) for x in g["wstack"][: int(g["wstack_n"])]] == [0, int(g.T.w_upg_to[0, other])]
