"""Unbroken rule scenarios with forced dice.

Each test sets a game up by editing its state record, queues die results,
plays actions by name and checks the rulebook's arithmetic. Expected
numbers come from the content tables, so retuning content keeps these valid.
"""
import numpy as np
import pytest

from dungeonrl.envs.unbroken import consts as C
from unbroken_util import Game


def find_card(g, pred):
    for i in range(int(g.T.n_enc_types)):
        if pred(i):
            return g.ct.encounter_names[i]
    pytest.skip("content has no such card")


def has_op(g, card, op):
    return any(int(x) == op for x in g.T.e_ops[card, :, 0])


def to_battle(g, monster, level, **res):
    """Put the game at the start of a Level's Preparation Step with a fixed
    (unrevealed) monster and resources, then choose to fight."""
    g.goto_level(level)
    g.set_monster(monster)
    g.set_res(**res)
    g.refresh()
    g.act("fight")


# --- setup and difficulty -----------------------------------------------------

@pytest.mark.parametrize("difficulty", ["easy", "normal", "hard"])
def test_setup_by_difficulty(difficulty):
    g = Game("hunter", difficulty, seed=3)
    T = g.T
    d = C.DIFFICULTIES.index(difficulty)
    assert int(g["level"]) == 1 and int(g["uses"]) == 1
    assert int(g["time"]) == int(T.time_start[0])
    assert int(g["wstack_n"]) == 1 and int(g["wstack"][0]) == g.weapon("Bare Hands")
    assert int(g["enc_deck_n"]) == int(T.deck_size) == 92
    small = int(T.diff_small[d])
    assert {"easy": 15, "normal": 13, "hard": 10}[difficulty] == small
    if difficulty == "easy":
        # Easy: one extra unit of the rolled resource, and a Skill offer (2, keep 1)
        assert g.phase() == "skill_reward" and int(g["skill_offer_n"]) == 2
        assert sum(int(x) for x in g["res"]) == small + 1
        g.act("keep_0")
        assert sum(int(x) for x in g["skill_owned"]) == 1
        assert int(g["skill_disc_n"]) == 1
    else:
        assert g.phase() == "preparation"
        assert int(g["res"][C.R_S]) == small and sum(int(x) for x in g["res"]) == small


@pytest.mark.parametrize("face,resource", list(enumerate(
    ["metal", "wood", "food", "cunning", "medium", "treasure"], start=1)))
def test_easy_bonus_roll(face, resource):
    g = Game("sage", "easy", seed=0)
    g.force(face)                       # the queue survives reset: script the setup roll
    g.core.reset(g.st, np.array([0], np.uint64))
    assert int(g["forced_i"]) == 1
    assert g.res(resource) == 1 + (15 if resource == "small" else 0)
    assert g.res("small") == 15


def test_monster_first_on_hard_only():
    for difficulty, first in (("normal", "player"), ("hard", "monster")):
        g = Game("brawler", difficulty)
        m = g.ct.monster_names[int(g.T.m_by_level[0, 0])]
        g.force(2)   # the monster's first combat roll, if it goes first
        to_battle(g, m, 1, small=15)
        if g.phase() == "trickery":
            g.act("battle")
        while g.phase() == "response":
            g.act("pass")
        if first == "player":
            assert int(g["forced_i"]) == 0 and g.phase() == "battle_turn"
        else:
            assert int(g["forced_i"]) >= 1   # the monster rolled before our turn


# --- resources ---------------------------------------------------------------

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
    assert "focus" in g.legal()          # 1 S + 2 M + 1 L cover 4 S
    g.act("focus")
    assert (g.res("small"), g.res("medium"), g.res("large")) == (0, 1, 0)
    g.set_res(small=3, medium=0, large=0)
    g.refresh()
    assert "focus" not in g.legal() and "plan" not in g.legal()
    g.set_res(small=0, medium=1, large=1)
    g.refresh()
    assert "inspiration" in g.legal()    # 1 M + 1 L (L stands in for M)
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
    g.set_res(small=1, medium=1, large=0, food=0)   # 3 needed for 2 missing Food
    g.refresh()
    assert g.legal() == ["eat_0"]
    r = g.act("eat_0")
    assert g["outcome"] == C.O_LOSS and r == -1.0 and g.te[0]


# --- hunger -----------------------------------------------------------------

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
    g.act("skip")   # end of our turn: the monster is at 0 Health -> victory
    assert g.phase() == "skill_reward"
    g.act("keep_0")
    assert g.phase() == "hunger" and int(g["hunger_req"]) == 2


# --- travel -------------------------------------------------------------------

@pytest.mark.parametrize("level,cost", [(1, (1, 0, 1)), (2, (2, 0, 2)), (3, (0, 1, 1)), (4, (2, 1, 2))])
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
    assert m == int(g.T.m_by_level[level - 1, 3])          # the die picked number 4
    assert int(g["m_armor"]) == int(g.T.m_armor[m]) and int(g["m_health"]) == int(g.T.m_health[m])
    assert "scout" not in g.legal()                         # once the monster is known


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
    no_ambush = [i for i in range(C.NMONSTER) if int(g.T.m_ambush[i, 0, 0]) == 0
                 and int(g.T.m_level[i]) == 1]
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
    commit_card = find_card(g, lambda i: has_op(g, i, C.OP_COMMIT)
                            and int(g.T.e_spend[i, C.R_TIME]) == 0)
    cid = g.card(commit_card)
    # a card we cannot afford next, to check "nothing happens but Time passes"
    dear = find_card(g, lambda i: int(g.T.e_spend[i, C.R_TREAS]) > 0 or int(g.T.e_spend[i, C.R_METAL]) > 1)
    did = g.card(dear)
    g.set_res(small=10, time=16)
    for r in range(C.R_CUN, C.NRES):
        g["res"][r] = int(g.T.e_spend[cid, r])
    g.set_res(small=max(10, int(g.T.e_spend[cid, C.R_S])))
    filler = [n for n in g.ct.encounter_names if n not in (dear, commit_card)][0]
    g.put_cards_on_top(dear, filler, commit_card)   # commit card and filler revealed first
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
    assert np.array_equal(g["res"], before)          # nothing spent, nothing gained
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


# --- combat -------------------------------------------------------------------

def test_trickery_skips_battle_rewards_and_skill():
    g = Game()
    tm = [i for i in range(C.NMONSTER) if int(g.T.m_level[i]) == 1 and int(g.T.m_can_trick[i])][0]
    cost = g.T.m_trick[tm]
    g.goto_level(1)
    g["monster"] = tm
    for r in range(C.NRES):
        g["res"][r] = int(cost[r]) + (5 if r == C.R_S else 0)
    g.refresh()
    before = g["res"].copy()
    g.act("fight")
    assert g.phase() == "trickery"
    g.act("trick")
    assert int(g["tricked"]) == 1
    assert np.array_equal(g["res"], before - cost[: C.NRES])   # no Rewards
    assert g.phase() == "hunger"                                # no Skill offer
    g.act("eat_0")
    assert int(g["level"]) == 2 and sum(int(x) for x in g["skill_owned"]) == 0


def test_cannot_trick_without_cost_or_when_untrickable():
    g = Game()
    no = [i for i in range(C.NMONSTER) if int(g.T.m_level[i]) == 1 and not int(g.T.m_can_trick[i])]
    if not no:
        pytest.skip("no untrickable Level 1 monster")
    to_battle(g, g.ct.monster_names[no[0]], 1, small=12, cunning=8, treasure=8, food=8)
    assert g.phase() != "trickery"


def test_defend_blocks_next_weapon_attack_only():
    g = Game("sage")
    m = [i for i in range(C.NMONSTER) if int(g.T.m_level[i]) == 1 and int(g.T.m_armor[i]) == 0]
    if not m:
        pytest.skip("no armorless Level 1 monster")
    to_battle(g, g.ct.monster_names[m[0]], 1, small=20)
    if g.phase() == "trickery":
        g.act("battle")
    assert g.phase() == "battle_turn"
    h0 = int(g["m_health"])
    g["defend"] = 1
    g.refresh()
    punch = g.attack("Bare Hands", "Punch")
    # the monster answers with a roll that does nothing harmful: force a defend face if any
    faces = [f for f in range(6) if C.FACE_TYPES[int(g.T.m_face_type[m[0], f])] == "defend"]
    g.force(*( [faces[0] + 1] * 4 if faces else [1] * 4))
    g.act(f"attack_{punch}")
    assert int(g["m_health"]) == h0          # ignored
    if g.phase() == "battle_turn":
        if faces:
            assert int(g["defend"]) == 1     # the monster defended again (no stacking)
            g["defend"] = 0
            g.refresh()
        g.act(f"attack_{punch}")
        power = int(g.T.w_atk_power[0, punch])
        assert int(g["m_health"]) == max(0, h0 - power)


def test_wounding_needs_armor_gone_and_breaking_needs_armor():
    g = Game()
    armored = [i for i in range(C.NMONSTER) if int(g.T.m_level[i]) == 1 and int(g.T.m_armor[i]) > 0]
    if not armored:
        pytest.skip("no armored Level 1 monster")
    to_battle(g, g.ct.monster_names[armored[0]], 1, small=20)
    if g.phase() == "trickery":
        g.act("battle")
    punch = g.attack("Bare Hands", "Punch")
    shove = g.attack("Bare Hands", "Shove")
    assert f"attack_{punch}" not in g.legal() and f"attack_{shove}" in g.legal()
    g["m_armor"] = 0
    g.refresh()
    assert f"attack_{punch}" in g.legal() and f"attack_{shove}" not in g.legal()


def basilisk_setup():
    """The rulebook's combat example: a Sneak with a Sword, Daring and
    Wrecker, Paranoid from the last Level, on Level 4 (Normal) against the
    Basilisk, with 2 Ability Uses left."""
    g = Game("sneak", "normal")
    g.goto_level(4, uses=2)
    g.set_weapons("Bare Hands", "Knife", "Sword")
    g.give_skill("Daring")
    g.give_skill("Wrecker")
    g["cond"][g.cond("Paranoid")] = 1
    g.set_monster("Basilisk")
    g.set_res(small=10, medium=0, large=2, metal=1, food=2, cunning=0)
    g.refresh()
    return g


def test_rulebook_combat_example():
    g = basilisk_setup()
    T = g.T
    bas = g.monster("Basilisk")
    paral = g.cond("Paralyzed")
    g.act("fight")                       # no Cunning: no Trickery; battle starts
    assert int(g["time"]) == 0           # Level 4: the Time token is removed
    # Paranoid: +2 Health at battle start (12 -> 14)
    assert int(g["m_health"]) == int(T.m_health[bas]) + 2 == 14
    assert int(g["m_armor"]) == int(T.m_armor[bas]) == 1
    # battle-start Responses: Daring (optional, gain S = Level 4); the
    # Basilisk's gaze gives Paralyzed with 2 tokens (mandatory)
    assert g.phase() == "response" and "skill:Daring" in g.legal()
    g.act("skill:Daring")
    assert g.res("small") == 14
    assert int(g["cond"][paral]) & 1 and int(g["cond_tokens"][paral]) == 2
    # our turn starts: pay 1 Metal instead of the Paralyzed roll
    assert g.phase() == "response" and "monster_0" in g.legal()
    g.act("monster_0")
    assert g.res("metal") == 0
    assert int(g["forced_i"]) == 0 and g.phase() == "battle_turn"
    # Sword: break the 1 Armor for 1 S
    crack = g.attack("Sword", "Pommel Crack")
    cut = g.attack("Sword", "Long Cut")
    g.act(f"attack_{crack}")
    assert int(g["m_armor"]) == 0 and g.res("small") == 13
    # Wrecker: one more attack
    assert g.phase() == "response" and "skill:Wrecker" in g.legal()
    g.act("skill:Wrecker")
    assert g.phase() == "extra_attack"
    g.force(6, 6)                        # the Basilisk's Combat Roll: 6; later roll 6
    g.act(f"attack_{cut}")               # 1 L + 2 S for 5 Wounds, capped at 4
    assert g.res("large") == 1 and g.res("small") == 11
    assert int(g["m_health"]) == 10
    # the Combat Roll is 6: Dodge (1 S, 1 Ability Use) turns it into a 5
    assert g.phase() == "response" and int(g["roll"]) == 6
    assert "character_0" in g.legal()
    g.act("character_0")
    assert int(g["uses"]) == 1 and g.res("small") == 10
    # face 5: lose 1 Food
    assert g.res("food") == 1
    # next turn: no Metal left, so the Paralyzed roll is made (forced 6 > 1
    # token: the turn is not lost) and a token burns off
    assert g.phase() == "battle_turn"
    assert int(g["cond"][paral]) & 1 == 0 or int(g["cond_tokens"][paral]) <= 1


def test_paralyzed_roll_can_cost_the_turn():
    g = basilisk_setup()
    g.set_res(metal=0)                   # no Metal: the Mirror Shard offer is not usable
    g.refresh()
    g.act("fight")
    g.force(1, 2)                        # Paralyzed roll 1 <= 2 tokens: turn lost; monster rolls 2
    g.act("pass")                        # decline Daring
    assert int(g["forced_i"]) == 2       # both dice used: our turn was skipped
    assert int(g["roll"]) == 2 and g.phase() == "response"   # Dodge offered on the roll
    g.act("pass")
    assert int(g["round"]) == 2
    # the second turn start rolled again and burnt the last token: card gone
    paral = g.cond("Paralyzed")
    assert int(g["cond"][paral]) & 1 == 0 and int(g["cond_tokens"][paral]) == 0


def test_max_wounds_cap_and_attack_cost_passives():
    g = basilisk_setup()
    g.act("fight")
    g.act("pass")
    g.act("monster_0")
    g["m_armor"] = 0
    g.set_res(large=2, small=10)
    g.refresh()
    cut = g.attack("Sword", "Long Cut")
    g.force(1)                            # monster DEFENDs afterwards (face 1)
    h = int(g["m_health"])
    g.act(f"attack_{cut}")
    assert int(g["m_health"]) == h - 4


def test_level4_time_loss_paid_in_small_effort():
    g = basilisk_setup()
    bas = g.monster("Basilisk")
    tf = [f for f in range(6) if int(g.T.m_face_ops[bas, f, 0, 0]) == C.OP_LOSE_TIME]
    assert tf, "the Basilisk has a Time face"
    n = int(g.T.m_face_ops[bas, tf[0], 0, 2])
    g.act("fight")
    g.act("pass")
    g.act("monster_0")
    s0 = g.res("small")
    g.force(tf[0] + 1)
    g.act("skip")
    if g.phase() == "response":          # Dodge offered: decline
        g.act("pass")
    assert g.res("small") == s0 - n and int(g["time"]) == 0


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


def test_combat_time_loss_comes_off_next_level():
    g = Game()
    # a Level 1-3 monster with a Time face
    cands = [(i, f) for i in range(C.NMONSTER) for f in range(6)
             if int(g.T.m_level[i]) < 4 and int(g.T.m_face_ops[i, f, 0, 0]) == C.OP_LOSE_TIME]
    if not cands:
        pytest.skip("no Time face below Level 4")
    m, f = cands[0]
    lv = int(g.T.m_level[m])
    g.goto_level(lv)
    g["monster"] = m
    g.set_res(small=20)
    g.refresh()
    g.act("fight")
    if g.phase() == "trickery":
        g.act("battle")
    while g.phase() == "response":
        g.act("pass")
    g.force(f + 1)
    g.act("skip")
    while g.phase() == "response":
        g.act("pass")
    n = int(g.T.m_face_ops[m, f, 0, 2])
    assert int(g["time"]) == int(g.T.time_start[lv]) - n


def test_duplicate_condition_rerolls():
    """A face giving a Condition already waiting for the next Level is
    re-rolled."""
    g = Game()
    elf = g.monster("Dark Elf")
    par = g.cond("Paranoid")
    fp = [f for f in range(6) if int(g.T.m_face_ops[elf, f, 0, 0]) == C.OP_CONDITION
          and int(g.T.m_face_ops[elf, f, 0, 1]) == par][0]
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
    assert int(g["forced_i"]) == 2          # rolled twice
    assert int(g["defend"]) == 1            # the second roll applied
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
    assert int(g["cond"][arm]) == 1      # permanent
    assert int(g["cond"][poi]) == 0      # discarded
    assert int(g["cond"][par]) == 1      # waiting -> active


def test_ability_uses_limit_per_level():
    g = Game("brawler")
    g["uses"] = 0
    g.refresh()
    assert not any(n.startswith("character_") for n in g.legal())


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


# --- score --------------------------------------------------------------------

@pytest.mark.parametrize("treasure,cunning,title", [
    (0, 0, "Prey"), (0, 1, "Cast-off"), (1, 1, "Survivor"), (2, 1, "Avenger"),
    (3, 1, "Revenant"), (4, 1, "Nemesis")])
def test_score_titles(treasure, cunning, title):
    g = Game()
    g.goto_level(4)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 0
    for r in range(C.NRES):
        g["res"][r] = 0
    g.set_res(treasure=treasure, cunning=cunning)
    g.refresh()
    r = g.act("eat_0")
    assert g["outcome"] == C.O_WIN and r == 1.0
    expect = treasure * int(g.T.score_pts[C.R_TREAS]) + cunning * int(g.T.score_pts[C.R_CUN])
    assert int(g["score"]) == expect
    assert g.ct.title_names[int(g["title"])] == title
    assert g.core.episode_info(g.s)["title"] == title


def test_score_reward_shaping():
    g = Game(reward="score")
    g.goto_level(4)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 0
    for r in range(C.NRES):
        g["res"][r] = 0
    g.set_res(treasure=3)
    g.refresh()
    r = g.act("eat_0")
    assert r == pytest.approx(1.0 + 30 / 100)
