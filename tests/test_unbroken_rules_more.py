"""More Unbroken rule scenarios: action windows, effects, alternatives,
ignore passives, deaths in battle, rewards, Level transitions, Trickery on
Level 4, temporary downgrades, scoring values. Expected numbers are read
from the content tables where they are content."""
import numpy as np
import pytest

from dungeonrl.envs.unbroken import consts as C
from dungeonrl.envs.unbroken import rules
from unbroken_util import Game


def ops(*rows):
    out = np.zeros((C.MAXOPS, C.OPW), np.int32)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def apply(g, *rows, src=-1):
    rules.apply_ops(g.st[0], g.core.TR[0], ops(*rows), src)


def battle(g, level, monster_id, **res):
    """Start a battle against ``monster_id`` at ``level`` (declining Trickery
    and passing optional battle-start Responses)."""
    g.goto_level(level)
    g["monster"] = monster_id
    g.set_res(**res)
    g.refresh()
    g.act("fight")
    if g.phase() == "trickery":
        g.act("battle")
    while g.phase() == "response":
        g.act("pass")


def monsters(g, pred):
    return [i for i in range(C.NMONSTER) if pred(i)]


def face_with(g, m, pred):
    fs = [f for f in range(6) if pred(f)]
    return fs[0] if fs else None


# --- windows -------------------------------------------------------------------

def test_travel_actions_only_in_preparation():
    g = Game("hunter")
    travel = [j for j in range(C.MAX_CHAR_AB)
              if int(g.T.char_ab[2, j]) >= 0
              and int(g.T.ab_kind[g.T.char_ab[2, j]]) == C.K_ACTION
              and int(g.T.ab_window[g.T.char_ab[2, j]]) == C.WIN_TRAVEL]
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
    cid = [i for i in range(int(T.n_enc_types))
           if T.e_spend[i, :C.NRES].sum() > 0 and T.e_gain[i].sum() > 0
           and int(T.e_ops[i, 0, 0]) == C.OP_NONE and int(T.e_spend[i, C.R_TIME]) == 0][0]
    for r in range(C.NRES):
        g["res"][r] = int(T.e_spend[cid, r]) + 1
    g["time"] = 16
    before = g["res"].copy()
    g.put_cards_on_top(g.ct.encounter_names[cid])
    g.refresh()
    g.act("explore")
    g.act("resolve_0")
    expect = np.minimum(before - T.e_spend[cid, :C.NRES] + T.e_gain[cid], T.bars)
    assert np.array_equal(g["res"], expect)
    assert int(g["time"]) == 16 - int(T.e_time[cid])


# --- Time ---------------------------------------------------------------------------

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
    cand = monsters(g, lambda i: int(g.T.m_ambush[i, 0, 0]) == C.OP_WOUND
                    and int(g.T.m_ambush[i, 1, 0]) == C.OP_NONE)
    assert cand, "a monster whose ambush is a plain wound"
    m = cand[0]
    n = int(g.T.m_ambush[m, 0, 2])
    g.goto_level(int(g.T.m_level[m]))
    g["monster"] = m
    g.set_res(small=15, time=0)
    g.refresh()
    assert "explore" not in g.legal()        # a Level at 0 Time: no exploring (UNB-A12)
    g.act("fight")                           # ... and fighting means being ambushed
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
    assert "scout" not in g.legal()      # Level 1 Scout costs 1 Time


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
    assert int(g3["revealed_n"]) == 1                 # never below 1


def test_unused_reveal_bonus_lapses_when_combat_starts():
    g = Game()
    g.set_res(small=10)
    g.refresh()
    g.act("orienteer")
    g.force(1, 1, 1, 1, 1)
    g.act("fight")
    assert int(g["reveal_bonus"]) == 0


# --- battle ---------------------------------------------------------------------------

def test_surplus_armor_breaking_is_wasted():
    g = Game()
    m = monsters(g, lambda i: int(g.T.m_armor[i]) >= 1 and int(g.T.m_level[i]) <= 2)[0]
    battle(g, int(g.T.m_level[m]), m, small=20, medium=4)
    g.set_weapons("Bare Hands", "Club", "Maul")
    g["m_armor"] = 1
    g.refresh()
    k = int(np.argmax(g.T.w_atk_power[g.weapon("Maul")] * (g.T.w_atk_kind[g.weapon("Maul")] == 0)))
    h = int(g["m_health"])
    g.force(1, 1, 1)
    g.act(f"attack_{k}")
    assert int(g["m_armor"]) == 0 and int(g["m_health"]) == h


def test_action_wounds_blocked_by_armor_unless_piercing():
    g = Game()
    m = monsters(g, lambda i: int(g.T.m_armor[i]) >= 1 and int(g.T.m_level[i]) == 1)[0]
    battle(g, 1, m, small=20)
    s = g.st[0]
    h = int(s["m_health"])
    apply(g, (C.OP_DAMAGE, 0, 3, 0))             # blocked
    assert int(s["m_health"]) == h
    apply(g, (C.OP_DAMAGE, 0, 2, 1))             # pierces
    assert int(s["m_health"]) == h - 2


def test_damage_only_actions_offered_only_without_armor():
    g = Game("hunter")
    j = [j for j in range(C.MAX_CHAR_AB) if int(g.T.char_ab[2, j]) >= 0
         and int(g.T.ab_ops[g.T.char_ab[2, j], 0, 0]) == C.OP_DAMAGE
         and int(g.T.ab_ops[g.T.char_ab[2, j], 0, 3]) == 0
         and int(g.T.ab_kind[g.T.char_ab[2, j]]) == C.K_ACTION]
    if not j:
        pytest.skip("the Hunter has no plain damage action in this content")
    m = monsters(g, lambda i: int(g.T.m_armor[i]) >= 1 and int(g.T.m_level[i]) == 1)[0]
    battle(g, 1, m, small=20, wood=5, food=5)
    assert f"character_{j[0]}" not in g.legal()
    g["m_armor"] = 0
    g.refresh()
    assert f"character_{j[0]}" in g.legal()


def test_monster_attack_surcharge_applies_to_weapon_attacks_only():
    g = Game()
    cand = [a for a in range(len(g.ct.ability_names))
            if int(g.T.ab_pmod[a]) == C.PM_ATTACK_COST and int(g.T.ab_owner_kind[a]) == C.OWN_MONSTER]
    if not cand:
        pytest.skip("no monster with an attack surcharge")
    a = cand[0]
    m = int(g.T.ab_owner[a])
    res, extra = int(g.T.ab_pa[a]), int(g.T.ab_pn[a])
    battle(g, int(g.T.m_level[m]), m, small=20, medium=5, large=5, wood=5, metal=5)
    g["m_armor"] = 0
    g.refresh()
    punch = g.attack("Bare Hands", "Punch")
    before = g["res"].copy()
    g.force(1, 1, 1)
    g.act(f"attack_{punch}")
    spent = before - g["res"]
    base = g.T.w_atk_cost[0, punch, :C.NRES].copy()
    base[res] += extra
    # the monster's turn may also have taken something: at least the surcharge was paid
    assert spent[res] >= base[res]


def test_monster_gains_and_heal_cap():
    g = Game()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=20)
    s = g.st[0]
    a0, a1, h0, h1 = int(s["m_armor"]), int(s["m_armor_max"]), int(s["m_health"]), int(s["m_health_max"])
    apply(g, (C.OP_MON_ARMOR, 0, 2), (C.OP_MON_HEALTH, 0, 3))
    assert (int(s["m_armor"]), int(s["m_armor_max"])) == (a0 + 2, a1 + 2)
    assert (int(s["m_health"]), int(s["m_health_max"])) == (h0 + 3, h1 + 3)
    s["m_health"] = 1
    apply(g, (C.OP_MON_HEAL, 0, 100))
    assert int(s["m_health"]) == int(s["m_health_max"])


def test_roll_changes_stay_within_die():
    g = Game()
    s = g.st[0]
    s["roll"] = 5
    apply(g, (C.OP_ROLL, 0, 10))
    assert int(s["roll"]) == 6
    apply(g, (C.OP_ROLL, 0, -20))
    assert int(s["roll"]) == 1


def test_defend_ignores_actions_and_lasts_and_cost_is_paid():
    g = Game()
    m = monsters(g, lambda i: int(g.T.m_armor[i]) == 0 and int(g.T.m_level[i]) <= 2)[0]
    battle(g, int(g.T.m_level[m]), m, small=20)
    s = g.st[0]
    s["defend"] = 1
    h = int(s["m_health"])
    apply(g, (C.OP_DAMAGE, 0, 1, 1))             # an action's Wounds are not blocked
    assert int(s["m_health"]) == h - 1 and int(s["defend"]) == 1
    g.refresh()
    punch = g.attack("Bare Hands", "Punch")
    fd = face_with(g, m, lambda f: C.FACE_TYPES[int(g.T.m_face_type[m, f])] != "defend"
                   and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_WOUND)
    g.force(fd + 1, fd + 1)
    s0 = g.res("small")
    g.act("skip")                                 # DEFEND survives a skipped turn
    while g.phase() == "response":
        g.act("pass")
    assert int(s["defend"]) == 1
    g.force(fd + 1)
    s1 = g.res("small")
    g.act(f"attack_{punch}")                      # cost paid, attack ignored
    assert int(s["m_health"]) == h - 1 and int(s["defend"]) == 0
    assert s1 - g.res("small") >= int(g.T.w_atk_cost[0, punch, C.R_S])
    assert s0 >= s1


def test_reduce_effect():
    g = Game()
    g.set_res(large=1, small=0)
    apply(g, (C.OP_REDUCE, C.R_L, 1, C.R_S, 3))
    assert g.res("large") == 0 and g.res("small") == 3
    apply(g, (C.OP_REDUCE, C.R_L, 1, C.R_S, 3))   # nothing to reduce: nothing happens
    assert g.res("small") == 3


def _face_test(g, m, f, **res):
    battle(g, int(g.T.m_level[m]), m, **res)
    g.force(f + 1)
    g.act("skip")
    while g.phase() == "response":
        g.act("pass")


def test_bracketed_alternative_when_main_cannot_apply():
    g = Game()
    cand = [(m, f) for m in range(C.NMONSTER) for f in range(6)
            if int(g.T.m_face_has_alt[m, f]) and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_LOSE
            and int(g.T.m_face_ops[m, f, 0, 1]) > C.R_L
            and int(g.T.m_face_alt[m, f, 0, 0]) == C.OP_WOUND
            and int(g.T.m_face_alt[m, f, 1, 0]) == C.OP_NONE
            and int(g.T.m_face_ops[m, f, 1, 0]) == C.OP_NONE]
    assert cand
    m, f = cand[0]
    r = int(g.T.m_face_ops[m, f, 0, 1])
    n = int(g.T.m_face_alt[m, f, 0, 2])
    kw = {"small": 20, C.RES_NAMES[r]: 0}
    _face_test(g, m, f, **kw)
    assert g.res("small") == 20 - n
    # with the resource held, the main effect applies instead
    g2 = Game()
    kw = {"small": 20, C.RES_NAMES[r]: 5}
    _face_test(g2, m, f, **kw)
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
    m = int(s["monster"])
    # emulate a face by applying with apply_face's rule
    main = ops((C.OP_LOSE, C.R_FOOD, 1))
    assert not rules.ops_applicable(s, g.core.TR[0], main)
    assert not rules.unpayable_effort_loss(s, g.core.TR[0], main)
    wound = ops((C.OP_WOUND, 0, 5))
    assert rules.unpayable_effort_loss(s, g.core.TR[0], wound)
    # a WOUND the player cannot pay in battle: the game is lost
    g2 = Game()
    cand = [(mm, f) for mm in range(C.NMONSTER) for f in range(6)
            if int(g2.T.m_face_ops[mm, f, 0, 0]) == C.OP_WOUND and int(g2.T.m_level[mm]) == 1]
    mm, f = cand[0]
    _face_test(g2, mm, f, small=0)
    assert g2["outcome"] == C.O_LOSS and g2.te[0] and g2.rew[0, 0] == -1.0


def test_reroll_on_active_untimed_condition():
    g = Game()
    cand = [(m, f) for m in range(C.NMONSTER) for f in range(6)
            if int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_CONDITION
            and int(g.T.m_face_ops[m, f, 0, 2]) == C.WHEN_NOW]
    m, f = cand[0]
    c = int(g.T.m_face_ops[m, f, 0, 1])
    other = [x for x in range(6) if x != f and int(g.T.m_face_ops[m, x, 0, 0]) in
             (C.OP_WOUND, C.OP_DEFEND)][0]
    g.goto_level(int(g.T.m_level[m]))
    g["monster"] = m
    g["cond"][c] = 1
    g["cond_tokens"][c] = 9      # a token Condition must not burn off before the roll
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
    sk = [i for i in range(int(g.T.n_skills))
          if int(g.T.ab_pmod[g.T.s_ab[i]]) == C.PM_IGNORE]
    assert sk
    skill = sk[0]
    typ = int(g.T.ab_pa[g.T.s_ab[skill]])
    cand = [(m, f) for m in range(C.NMONSTER) for f in range(6)
            if int(g.T.m_face_type[m, f]) == typ and int(g.T.m_level[m]) <= 2]
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
    assert (g["res"][C.R_CUN:] >= before[0][C.R_CUN:]).all()


def test_rewards_and_trackers_after_victory_and_no_skill_after_level4():
    for level in (2, 4):
        g = Game()
        m = int(g.T.m_by_level[level - 1, 0])
        battle(g, level, m, small=10)
        for r in range(C.R_CUN, C.NRES):
            g["res"][r] = 0
        g["m_health"] = 0
        g["m_armor"] = 0
        g.refresh()
        g.act("skip")
        if level < 4:
            assert g.phase() == "skill_reward"
            g.act("keep_0")
        assert g.phase() == "hunger"             # no Skill after the Level 4 monster
        expect = np.minimum(g.T.m_reward[m], g.T.bars)
        assert np.array_equal(g["res"][C.R_CUN:], expect[C.R_CUN:])
        assert int(g["m_health"]) == 0 and int(g["m_armor"]) == 0


def test_next_level_starts_with_tracker_time_and_monster_removed():
    g = Game()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=20, food=3)
    g["time"] = int(g.T.time_start[1]) - 2        # 2 Time lost during this combat
    g["m_health"] = 0
    g.refresh()
    g.act("skip")
    g.act("keep_0")
    g.act("eat_1")
    assert int(g["level"]) == 2 and int(g["monster"]) == -1 and int(g["m_revealed"]) == 0
    # the Level's own passives may shift it; none are active here
    assert int(g["time"]) == int(g.T.time_start[1]) - 2


def test_score_points_match_rulebook_values():
    g = Game()
    pts = dict(zip(C.RES_NAMES, (int(x) for x in g.T.score_pts)))
    assert pts == {"small": 0, "medium": 3, "large": 5, "cunning": 2, "food": 3,
                   "wood": 2, "metal": 3, "treasure": 10}


def test_easy_player_goes_first():
    g = Game("sneak", "easy")
    if g.phase() == "skill_reward":
        g.act("keep_0")
    m = int(g.T.m_by_level[0, 0])
    g.force(3, 3, 3)
    battle(g, 1, m, small=15)
    assert g.phase() == "battle_turn" and int(g["forced_i"]) == 0


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
    weak = [c for c in range(C.NCOND)
            if all(int(g.T.ab_kind[a]) == C.K_PASSIVE for a in g.T.c_ab[c] if a >= 0)
            and int(g.T.c_perm[c]) == 0 and g.ct.condition_names[c] != "Paranoid"][0]
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
    assert int(g["cond"][poi]) == 0 and int(g["cond"][arm]) == 1   # Armored is permanent


def test_trickery_on_level4_then_hunger_wins():
    g = Game()
    m = monsters(g, lambda i: int(g.T.m_level[i]) == 4 and int(g.T.m_can_trick[i]))[0]
    g.goto_level(4)
    g["monster"] = m
    for r in range(C.NRES):
        g["res"][r] = int(g.T.m_trick[m, r]) + (6 if r in (C.R_S, C.R_FOOD) else 0)
    g["res"][C.R_S] = min(int(g["res"][C.R_S]), 20)
    g.refresh()
    g.act("fight")
    g.act("trick")
    assert g.phase() == "hunger" and int(g["hunger_req"]) == 4
    g.act("eat_4")
    assert g["outcome"] == C.O_WIN


def test_skill_deck_reshuffles_its_discard():
    g = Game()
    s = g.st[0]
    n = int(g.T.n_skills)
    ids = list(range(n))
    s["skill_deck"][:] = -1
    s["skill_deck"][0] = ids[0]
    s["skill_deck_n"] = 1
    s["skill_disc"][: n - 1] = ids[1:]
    s["skill_disc_n"] = n - 1
    apply(g, (C.OP_SKILL,))
    # the pending offer is made by the flow: run it through an encounter-like step
    assert int(s["skill_pending"]) == 1
    rules.run(s, g.core.TR[0], C.S_PREP)
    assert int(s["skill_offer_n"]) == 2
    assert int(s["skill_deck_n"]) + int(s["skill_disc_n"]) == n - 2


def test_response_once_per_trigger():
    g = Game("sneak")
    g.give_skill("Daring")
    m = int(g.T.m_by_level[0, 0])
    g.goto_level(1)
    g["monster"] = m
    g.set_res(small=10)
    g.refresh()
    g.act("fight")
    if g.phase() == "trickery":
        g.act("battle")
    assert g.phase() == "response" and "skill:Daring" in g.legal()
    g.act("skill:Daring")
    assert "skill:Daring" not in g.legal()
    assert g.res("small") == 11


def test_power_through_adds_attack_power():
    g = Game("brawler")
    m = monsters(g, lambda i: int(g.T.m_level[i]) == 1 and int(g.T.m_armor[i]) == 0)
    if not m:
        pytest.skip("no armorless Level 1 monster")
    battle(g, 1, m[0], small=20)
    punch = g.attack("Bare Hands", "Punch")
    h = int(g["m_health"])
    g.act(f"attack_{punch}")
    assert g.phase() == "response" and "character_0" in g.legal()
    g.force(1, 1, 1)
    g.act("character_0")
    assert int(g["m_health"]) == max(0, h - int(g.T.w_atk_power[0, punch]) - 2)


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
    assert int(g["round"]) == r0 + 1           # the monster took its turn: ours was used
    assert "craft_0" in g.legal()              # the Club is back in the Weapon Deck


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


def test_starving_requirement_above_four_can_be_met():
    g = Game()
    g.goto_level(4)
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 5
    g.set_res(food=6, small=5)
    g.refresh()
    assert "eat_5" in g.legal() and "eat_6" not in g.legal()
    g.act("eat_5")
    assert g["outcome"] == C.O_WIN and g.res("small") == 10


def test_crafting_over_a_temporary_downgrade_keeps_one_chain():
    g = Game()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=20, wood=8, metal=8)
    knife = g.weapon("Knife")
    g.set_weapons("Bare Hands", "Knife")
    g.refresh()
    apply(g, (C.OP_DOWNGRADE, 0, 3, 0))          # Knife set aside for 3 rounds
    g.refresh()
    other = [j for j in range(2) if int(g.T.w_upg_to[0, j]) not in (-1, knife)][0]
    g.force(1, 1, 1, 1)
    g.act(f"craft_{other}")
    assert int(g["waside_n"]) == 0                # the set-aside Knife went back to the deck
    assert [int(x) for x in g["wstack"][: int(g["wstack_n"])]] == [0, int(g.T.w_upg_to[0, other])]
