"""Unbroken rule scenarios: monster faces and Conditions (Combat Roll faces,
Conditions (waiting, active, for rounds, permanent, cured), duplicates and re-
rolls, bracketed alternatives, ignore passives).

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
    alt_condition_face,
    apply,
    battle,
    face_test,
    face_with,
    monster_where,
    monsters,
    ops,
    pass_windows,
    roll_face,
)

from dungeonrl.envs.unbroken import consts as C
from dungeonrl.envs.unbroken import rules


def test_duplicate_condition_rerolls():
    """A face giving a Condition already waiting for the next Level is
    re-rolled."""
    g = Game()
    elf = g.monster("Dark Elf")
    par = g.cond("Paranoid")
    fp = [
        f
        for f in range(6)
        if int(g.T.m_face_ops[elf, f, 0, 0]) == C.OP_CONDITION
        and int(g.T.m_face_ops[elf, f, 0, 1]) == par
    ][0]
    fd = [f for f in range(6) if C.FACE_TYPES[int(g.T.m_face_type[elf, f])] == "defend"][0]
    g.goto_level(3)
    g["monster"] = elf
    g.set_res(small=20)
    g["cond"][par] = 2
    g.refresh()
    g.act("fight")
    if g.phase() == "trickery":
        g.act("battle")
    while g.phase() == "response":
        g.act("pass")
    g.force(fp + 1, fd + 1)
    g.act("skip")
    while g.phase() == "response":
        g.act("pass")
    assert int(g["forced_i"]) == 2  # rolled twice
    assert int(g["defend"]) == 1  # the second roll applied
    assert int(g["cond"][par]) == 2


def test_immediate_condition_duplicates_reroll_or_extend():
    from dungeonrl.envs.unbroken.rules import gain_condition

    g = Game()
    c = 0
    # timed: extend by the new rounds
    gain_condition(g.st[0], c, C.WHEN_ROUNDS, 2, 0)
    gain_condition(g.st[0], c, C.WHEN_ROUNDS, 3, 0)
    assert int(g["cond_rounds"][c]) == 5


def test_end_of_level_conditions_rotate_and_permanent_stays():
    g = Game()
    arm = g.cond("Armored")
    par = g.cond("Paranoid")
    poi = g.cond("Poisoned")
    g["cond"][arm] = 1
    g["cond"][poi] = 1
    g["cond"][par] = 2
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 1
    g.set_res(small=5, food=1)
    g.refresh()
    g.act("eat_1")
    assert int(g["level"]) == 2 and int(g["uses"]) == 2
    assert int(g["cond"][arm]) == 1  # permanent
    assert int(g["cond"][poi]) == 0  # discarded
    assert int(g["cond"][par]) == 1  # waiting -> active


def test_face_gives_condition_fetched_by_name():
    """UNB-024/145/217/218/149: a face hands out exactly the named card: a
    next-Level one waits without effect, an immediate one is active at once
    with its bracketed tokens."""
    g = Game()
    elf = g.monster("Dark Elf")
    par = g.cond("Paranoid")
    f = [
        f
        for f in range(6)
        if int(g.T.m_face_ops[elf, f, 0, 0]) == C.OP_CONDITION
        and int(g.T.m_face_ops[elf, f, 0, 1]) == par
        and int(g.T.m_face_ops[elf, f, 0, 2]) == C.WHEN_NEXT
    ][0]
    battle(g, 3, elf, small=20)
    before = g["cond"].copy()
    hmax = int(g["m_health_max"])
    roll_face(g, f)
    after = g["cond"].copy()
    assert int(after[par]) == 2
    assert np.array_equal(np.delete(after, par), np.delete(before, par))
    assert int(g["m_health_max"]) == hmax  # no effect this Level
    g2 = Game()
    cand = [
        (m, f)
        for m in range(C.NMONSTER)
        for f in range(6)
        if int(g2.T.m_face_ops[m, f, 0, 0]) == C.OP_CONDITION
        and int(g2.T.m_face_ops[m, f, 0, 2]) == C.WHEN_NOW
        and int(g2.T.m_face_ops[m, f, 0, 4]) > 0
    ]
    if not cand:
        pytest.skip("no face gives an immediate Condition with tokens")
    m, f = cand[0]
    c, tok = int(g2.T.m_face_ops[m, f, 0, 1]), int(g2.T.m_face_ops[m, f, 0, 4])
    battle(g2, int(g2.T.m_level[m]), m, small=20)
    g2.force(f + 1)
    g2.act("skip")
    pass_windows(g2)
    assert int(g2["cond"][c]) & 1 == 1
    # the card may already have ticked at our next turn start
    assert tok - 1 <= int(g2["cond_tokens"][c]) <= tok


def test_ignore_condition_faces_with_iron_will():
    """UNB-224/144/248: with a Skill that ignores Condition faces, such a
    face does nothing and is not re-rolled."""
    g = Game()
    sk = [
        k
        for k in range(int(g.T.n_skills))
        if int(g.T.ab_pmod[g.T.s_ab[k]]) == C.PM_IGNORE
        and C.FACE_TYPES[int(g.T.ab_pa[g.T.s_ab[k]])] == "condition"
    ]
    if not sk:
        pytest.skip("no Skill ignores Condition faces")
    g.give_skill(g.ct.skill_names[sk[0]])
    m, f = [
        (m, f)
        for m in range(C.NMONSTER)
        for f in range(6)
        if C.FACE_TYPES[int(g.T.m_face_type[m, f])] == "condition"
        and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_CONDITION
        and int(g.T.m_face_ops[m, f, 0, 2]) == C.WHEN_NEXT
    ][0]
    battle(g, int(g.T.m_level[m]), m, small=20)
    before = (g["cond"].copy(), g["res"].copy())
    roll_face(g, f)
    assert int(g["forced_i"]) == 1
    assert np.array_equal(g["cond"], before[0]) and np.array_equal(g["res"], before[1])


def test_partial_loss_takes_the_alternative_whole():
    """UNB-A15/137: losing 2 of a resource while holding 1 is not applied in
    part: the bracketed alternative (a next-Level Condition) is."""
    g = Game()
    m, f = alt_condition_face(g)
    r = int(g.T.m_face_ops[m, f, 0, 1])
    c = int(g.T.m_face_alt[m, f, 0, 1])
    battle(g, int(g.T.m_level[m]), m, small=20, **{C.RES_NAMES[r]: 1})
    roll_face(g, f)
    assert g.res(C.RES_NAMES[r]) == 1 and int(g["cond"][c]) == 2


def test_reroll_when_the_alternative_would_duplicate():
    """UNB-139 with the fix for alternatives: the duplicate check looks at
    the effect that would apply. The alternative's Condition already waits
    -> re-roll; with enough of the resource the main effect applies."""
    g = Game()
    m, f = alt_condition_face(g)
    r = int(g.T.m_face_ops[m, f, 0, 1])
    n = int(g.T.m_face_ops[m, f, 0, 2])
    c = int(g.T.m_face_alt[m, f, 0, 1])
    other = [
        x
        for x in range(6)
        if int(g.T.m_face_ops[m, x, 0, 0]) in (C.OP_MON_HEAL, C.OP_DEFEND, C.OP_WOUND)
        and int(g.T.m_face_ops[m, x, 1, 0]) == C.OP_NONE
    ][0]
    g.goto_level(int(g.T.m_level[m]))
    g["cond"][c] = 2
    battle(g, int(g.T.m_level[m]), m, small=20, **{C.RES_NAMES[r]: n - 1})
    g.force(f + 1, other + 1)
    g.act("skip")
    pass_windows(g)
    assert int(g["forced_i"]) == 2 and g.res(C.RES_NAMES[r]) == n - 1
    g2 = Game()
    g2.goto_level(int(g2.T.m_level[m]))
    g2["cond"][c] = 2
    battle(g2, int(g2.T.m_level[m]), m, small=20, **{C.RES_NAMES[r]: n})
    g2.force(f + 1, other + 1)
    g2.act("skip")
    pass_windows(g2)
    assert int(g2["forced_i"]) == 1 and g2.res(C.RES_NAMES[r]) == 0


def test_no_alternative_means_nothing_happens():
    """UNB-138 in play: a theft with nothing to take and no alternative does
    nothing (and does not kill)."""
    g = Game()
    cand = [
        (m, f)
        for m in range(C.NMONSTER)
        for f in range(6)
        if not int(g.T.m_face_has_alt[m, f])
        and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_LOSE
        and int(g.T.m_face_ops[m, f, 0, 1]) > C.R_L
        and int(g.T.m_face_ops[m, f, 1, 0]) == C.OP_NONE
        and int(g.T.m_level[m]) <= 2
    ]
    if not cand:
        pytest.skip("no plain theft face without an alternative")
    m, f = cand[0]
    r = int(g.T.m_face_ops[m, f, 0, 1])
    battle(g, int(g.T.m_level[m]), m, small=10, **{C.RES_NAMES[r]: 0})
    before = g["res"].copy()
    roll_face(g, f)
    assert np.array_equal(g["res"], before) and int(g["outcome"]) == C.O_PLAYING


def test_unpayable_effort_loss_takes_the_alternative_or_kills():
    """UNB-A16 (no shipped face pairs an Effort loss with an alternative,
    so a copy of the tables is edited): an unpayable Wound with an
    alternative applies the alternative; an alternative that is itself an
    unpayable Effort loss kills; with no alternative the Wound kills."""
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1)
    f = [
        f
        for f in range(6)
        if int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_WOUND
        and int(g.T.m_face_ops[m, f, 1, 0]) == C.OP_NONE
    ][0]
    n = int(g.T.m_face_ops[m, f, 0, 2])

    def run(alt, small, food):
        TR = g.core.TR.copy()
        TR["m_face_alt"][0, m, f] = ops(*alt) if alt else 0
        TR["m_face_has_alt"][0, m, f] = 1 if alt else 0
        x = Game()
        s = x.st[0]
        s["monster"], s["m_revealed"], s["combat"], s["in_battle"] = m, 1, 1, 1
        x.set_res(small=small, medium=0, large=0, food=food)
        s["roll"] = f + 1
        rules.apply_face(s, TR[0])
        return x

    x = run([(C.OP_LOSE, C.R_FOOD, 1)], n - 1, 2)
    assert int(x["dead"]) == 0 and x.res("food") == 1 and x.res("small") == n - 1
    x = run([(C.OP_WOUND, 0, n + 5)], n - 1, 2)
    assert int(x["dead"]) == 1
    x = run(None, n - 1, 2)
    assert int(x["dead"]) == 1 and x.res("food") == 2


def test_basilisk_face_six_wounds_and_deepens_paralysis():
    """UNB-158: the Basilisk's 6 is a Wound that also adds a Paralyzed token."""
    g = Game("sneak")
    bas = g.monster("Basilisk")
    par = g.cond("Paralyzed")
    six = g.T.m_face_ops[bas, 5]
    assert int(six[0, 0]) == C.OP_WOUND and int(six[1, 0]) == C.OP_TOKENS and int(six[1, 1]) == par
    g.goto_level(4)
    g["monster"] = bas
    g.set_res(small=15, metal=2, cunning=0)
    g.refresh()
    g.act("fight")  # no Cunning: no Trickery
    # turn start: the Metal offer skips the Paralyzed roll (a token still falls)
    assert g.phase() == "response" and "monster_0" in g.legal()
    g.act("monster_0")
    pass_windows(g)
    tok = int(g["cond_tokens"][par])
    assert g.phase() == "battle_turn" and int(g["cond"][par]) & 1
    s0 = g.res("small")
    g.force(6)
    g.act("skip")
    if g.phase() == "response" and int(g["roll"]) == 6:
        g.act("pass")  # decline Dodge
    # our next turn start: the offer is made again before the roll
    assert g.phase() == "response" and "monster_0" in g.legal()
    assert int(g["cond_tokens"][par]) == tok + int(six[1, 2])
    assert g.res("small") == s0 - int(six[0, 2])


def test_bracketed_alternative_when_main_cannot_apply():
    g = Game()
    cand = [
        (m, f)
        for m in range(C.NMONSTER)
        for f in range(6)
        if int(g.T.m_face_has_alt[m, f])
        and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_LOSE
        and int(g.T.m_face_ops[m, f, 0, 1]) > C.R_L
        and int(g.T.m_face_alt[m, f, 0, 0]) == C.OP_WOUND
        and int(g.T.m_face_alt[m, f, 1, 0]) == C.OP_NONE
        and int(g.T.m_face_ops[m, f, 1, 0]) == C.OP_NONE
    ]
    assert cand
    m, f = cand[0]
    r = int(g.T.m_face_ops[m, f, 0, 1])
    n = int(g.T.m_face_alt[m, f, 0, 2])
    kw = {"small": 20, C.RES_NAMES[r]: 0}
    face_test(g, m, f, **kw)
    assert g.res("small") == 20 - n
    # with the resource held, the main effect applies instead
    g2 = Game()
    kw = {"small": 20, C.RES_NAMES[r]: 5}
    face_test(g2, m, f, **kw)
    assert g2.res(C.RES_NAMES[r]) == 5 - int(g2.T.m_face_ops[m, f, 0, 2])
    assert g2.res("small") == 20


def test_no_alternative_nothing_happens_but_effort_loss_kills():
    g = Game()
    s = g.st[0]
    # a theft of Food with no Food and no alternative: nothing happens
    g.set_res(food=0, small=3)
    s["monster"] = int(g.T.m_by_level[0, 0])
    s["m_revealed"] = 1
    s["combat"] = 1
    s["roll"] = 1
    # emulate a face by applying with apply_face's rule
    main = ops((C.OP_LOSE, C.R_FOOD, 1))
    assert not rules.ops_applicable(s, g.core.TR[0], main)
    assert not rules.unpayable_effort_loss(s, g.core.TR[0], main)
    wound = ops((C.OP_WOUND, 0, 5))
    assert rules.unpayable_effort_loss(s, g.core.TR[0], wound)
    # a WOUND the player cannot pay in battle: the game is lost
    g2 = Game()
    cand = [
        (mm, f)
        for mm in range(C.NMONSTER)
        for f in range(6)
        if int(g2.T.m_face_ops[mm, f, 0, 0]) == C.OP_WOUND and int(g2.T.m_level[mm]) == 1
    ]
    mm, f = cand[0]
    face_test(g2, mm, f, small=0)
    assert g2["outcome"] == C.O_LOSS and g2.te[0] and g2.rew[0, 0] == -1.0


def test_reroll_on_active_untimed_condition():
    g = Game()
    cand = [
        (m, f)
        for m in range(C.NMONSTER)
        for f in range(6)
        if int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_CONDITION
        and int(g.T.m_face_ops[m, f, 0, 2]) == C.WHEN_NOW
    ]
    m, f = cand[0]
    c = int(g.T.m_face_ops[m, f, 0, 1])
    other = [
        x
        for x in range(6)
        if x != f and int(g.T.m_face_ops[m, x, 0, 0]) in (C.OP_WOUND, C.OP_DEFEND)
    ][0]
    g.goto_level(int(g.T.m_level[m]))
    g["monster"] = m
    g["cond"][c] = 1
    g["cond_tokens"][c] = 9  # a token Condition must not burn off before the roll
    g.set_res(small=20)
    g.refresh()
    g.act("fight")
    if g.phase() == "trickery":
        g.act("battle")
    while g.phase() == "response":
        g.act("pass")
    if g.phase() != "battle_turn":
        pytest.skip("the condition costs the first turn in this content")
    g.force(f + 1, other + 1)
    g.act("skip")
    while g.phase() == "response":
        g.act("pass")
    assert int(g["forced_i"]) >= 2


def test_ignore_passive_makes_face_do_nothing():
    g = Game()
    sk = [i for i in range(int(g.T.n_skills)) if int(g.T.ab_pmod[g.T.s_ab[i]]) == C.PM_IGNORE]
    assert sk
    skill = sk[0]
    typ = int(g.T.ab_pa[g.T.s_ab[skill]])
    cand = [
        (m, f)
        for m in range(C.NMONSTER)
        for f in range(6)
        if int(g.T.m_face_type[m, f]) == typ and int(g.T.m_level[m]) <= 2
    ]
    m, f = cand[0]
    g.give_skill(g.ct.skill_names[skill])
    before = None
    battle(g, int(g.T.m_level[m]), m, small=20, food=5, wood=5, metal=5, cunning=5)
    before = (g["res"].copy(), g["cond"].copy(), int(g["time"]))
    g.force(f + 1)
    g.act("skip")
    while g.phase() == "response":
        g.act("pass")
    # nothing taken by the monster's face (a turn-start Condition may still act)
    assert np.array_equal(g["cond"], before[1])
    assert (g["res"][C.R_CUN :] >= before[0][C.R_CUN :]).all()


def test_waiting_condition_has_no_effect_yet():
    g = Game()
    par = g.cond("Paranoid")
    g["cond"][par] = 2
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=15)
    assert int(g["m_health_max"]) == int(g.T.m_health[m])


def test_condition_for_rounds_counts_down():
    g = Game()
    m = monsters(g, lambda i: int(g.T.m_level[i]) == 1)[0]
    battle(g, 1, m, small=20)
    weak = [
        c
        for c in range(C.NCOND)
        if all(int(g.T.ab_kind[a]) == C.K_PASSIVE for a in g.T.c_ab[c] if a >= 0)
        and int(g.T.c_perm[c]) == 0
        and g.ct.condition_names[c] != "Paranoid"
    ][0]
    rules.gain_condition(g.st[0], weak, C.WHEN_ROUNDS, 2, 0)
    assert int(g["cond_rounds"][weak]) == 2
    r0 = int(g["round"])
    d = face_with(g, m, lambda f: C.FACE_TYPES[int(g.T.m_face_type[m, f])] == "defend")
    roll = (d + 1) if d is not None else 1
    for _ in range(3):
        if g.phase() != "battle_turn":
            break
        g.force(roll)
        g.act("skip")
        while g.phase() == "response":
            g.act("pass")
    assert int(g["round"]) >= r0 + 2
    assert int(g["cond"][weak]) & 1 == 0


def test_cure_card_discards_active_conditions():
    g = Game()
    poi = g.cond("Poisoned")
    arm = g.cond("Armored")
    g["cond"][poi] = 1
    g["cond_tokens"][poi] = 2
    g["cond"][arm] = 1
    apply(g, (C.OP_CURE,))
    assert int(g["cond"][poi]) == 0 and int(g["cond"][arm]) == 1  # Armored is permanent


def test_next_level_condition_while_active_stays_active_and_waits():
    g = Game()
    par = g.cond("Paranoid")
    g["cond"][par] = 1
    rules.gain_condition(g.st[0], par, C.WHEN_NEXT, 0, 0)
    assert int(g["cond"][par]) == 3
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 0
    g.refresh()
    g.act("eat_0")
    assert int(g["cond"][par]) == 1
