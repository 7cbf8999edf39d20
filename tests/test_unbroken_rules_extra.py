"""Unbroken rule scenarios, third set: a content census, malformed content,
the rows of the coverage table that the first two sets leave open (shuffles,
the die as the only chance, the public Display, action sources and windows,
monster surcharges, action targets, ignore passives, bracketed
alternatives and re-rolls, Basilisk face 6, hunger order, scoring, Power
Through, tier requirements, Craft in battle, commitments across Levels,
Trickery cleanup, Response order, trackers set once) and Ambush Effects
applied whole or not at all.

Expected numbers are read from the content tables; only numbers the
rulebook itself fixes (card counts, named content) are written out.
"""
import os
import shutil

import numpy as np
import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from dungeonrl.envs.core.errors import ContentError
from dungeonrl.envs.unbroken import consts as C
from dungeonrl.envs.unbroken import rules
from dungeonrl.envs.unbroken.content import DATA_DIR, load_content
from unbroken_util import Game


# --- helpers -----------------------------------------------------------------------

def ops(*rows):
    out = np.zeros((C.MAXOPS, C.OPW), np.int32)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def pass_windows(g):
    while g.phase() == "response":
        g.act("pass")


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
    pass_windows(g)


def face_of(g, m, typ):
    """First face (0-based) of monster ``m`` with the given face type, or None."""
    fs = [f for f in range(6) if C.FACE_TYPES[int(g.T.m_face_type[m, f])] == typ]
    return fs[0] if fs else None


def monster_where(g, pred):
    found = [i for i in range(C.NMONSTER) if pred(i)]
    if not found:
        pytest.skip("no monster of that kind in this content")
    return found[0]


def char_ability(g, character, pred):
    """Slot j of the character's ability matching ``pred(ability id)``."""
    ci = ("sneak", "sage", "hunter", "brawler").index(character)
    js = [j for j in range(C.MAX_CHAR_AB) if int(g.T.char_ab[ci, j]) >= 0
          and pred(int(g.T.char_ab[ci, j]))]
    if not js:
        pytest.skip(f"the {character} has no such ability in this content")
    return js[0]


def ab_codes(g, a):
    return [int(o[0]) for o in g.T.ab_ops[a] if int(o[0]) != C.OP_NONE]


def skill_ability(g, name):
    return int(g.T.s_ab[g.skill(name)])


# =====================================================================================
# content census (UNB-005, 007-012, 015, 025, 032, 088, 091, 092, 096, 216, 225, 226,
# 228, 246-250, 255, G04-G09)
# =====================================================================================

def test_content_census_counts_and_named_content():
    ct = load_content()
    T = ct.tables
    # the playable card counts the rulebook implies
    assert int(T.deck_size) == len(T.deck_cards) == 92
    assert int(T.n_skills) == len(ct.skill_names) == 26
    assert len(ct.condition_names) == 10
    assert len(ct.weapon_names) == 7
    assert len(ct.monster_names) == 24
    assert ct.character_names == ("Sneak", "Sage", "Hunter", "Brawler")
    # 6 monsters per Level, numbered 1..6, each number one sheet
    for lv in range(1, 5):
        ids = [int(x) for x in T.m_by_level[lv - 1]]
        assert len(set(ids)) == 6
        assert all(int(T.m_level[m]) == lv for m in ids)
        assert [int(T.m_number[m]) for m in ids] == [1, 2, 3, 4, 5, 6]
    # named content
    lvl = {n: int(T.m_level[ct.monster_names.index(n)])
           for n in ("Basilisk", "Dark Elf", "Minotaur")}
    assert lvl == {"Basilisk": 4, "Dark Elf": 3, "Minotaur": 3}
    assert {"Daring", "Wrecker"} <= set(ct.skill_names)
    assert {"Poisoned", "Paralyzed", "Paranoid", "Armored"} <= set(ct.condition_names)
    assert "Dodge" in ct.char_ability_names[0] and "Power Through" in ct.char_ability_names[3]
    assert int(T.c_perm[ct.condition_names.index("Armored")]) == 1
    # the nine resources (Time is the ninth, kept apart from the bars)
    assert C.COST_NAMES == ("small", "medium", "large", "cunning", "food", "wood", "metal",
                            "treasure", "time")


def test_content_census_weapons_characters_and_kinds():
    ct = load_content()
    T = ct.tables
    tiers = {n: ("basic", "advanced")[int(T.w_tier[i])] for i, n in enumerate(ct.weapon_names)}
    assert {n for n, t in tiers.items() if t == "basic"} == {"Bare Hands", "Club", "Knife"}
    assert {n for n, t in tiers.items() if t == "advanced"} == {"Spear", "Sword", "Axe", "Maul"}
    assert ct.weapon_names[0] == "Bare Hands"
    assert list(T.w_tier) == sorted(T.w_tier)            # the Weapon Deck: Basic, then Advanced
    w = ct.weapon_names.index
    assert w("Knife") in list(T.w_upg_to[w("Bare Hands")])
    assert w("Sword") in list(T.w_upg_to[w("Knife")])
    # characters: several Abilities each; two personas sharing one rules block
    with open(os.path.join(DATA_DIR, "characters.toml"), "rb") as f:
        raw = tomllib.load(f)["character"]
    for i, ch in enumerate(raw):
        assert len(ch["personas"]) == 2
        assert sum(int(a) >= 0 for a in T.char_ab[i]) >= 2
    assert len(raw) == T.char_ab.shape[0] == 4
    # Skill kinds the text asks for
    kinds = {"pierce": 0, "resource_wounds": 0, "ignore": 0, "roll": 0}
    for k in range(int(T.n_skills)):
        a = int(T.s_ab[k])
        codes = [int(o[0]) for o in T.ab_ops[a]]
        if any(int(o[0]) == C.OP_DAMAGE and int(o[3]) == 1 for o in T.ab_ops[a]):
            kinds["pierce"] += 1
        if C.OP_DAMAGE in codes and T.ab_cost[a, C.R_CUN:C.NRES].sum() > 0:
            kinds["resource_wounds"] += 1
        if int(T.ab_kind[a]) == C.K_PASSIVE and int(T.ab_pmod[a]) == C.PM_IGNORE:
            kinds["ignore"] += 1
        if C.OP_ROLL in codes or C.OP_REROLL in codes:
            kinds["roll"] += 1
    assert all(v >= 1 for v in kinds.values()), kinds
    # Encounter kinds the text asks for, Time Values of 2 and 5
    enc_codes = {int(o[0]) for i in range(int(T.n_enc_types)) for o in T.e_ops[i]}
    assert {C.OP_COMMIT, C.OP_SKILL, C.OP_CURE, C.OP_REVEAL} <= enc_codes
    assert {2, 5} <= {int(x) for x in T.e_time} and int(T.e_time.min()) >= 1


def test_content_census_monster_sheets():
    ct = load_content()
    T = ct.tables
    n = C.NMONSTER
    for m in range(n):
        assert int(T.m_health[m]) >= 1 and int(T.m_armor[m]) >= 0
        assert T.m_reward[m].sum() > 0
        for f in range(6):                       # one entry for each die face
            assert int(T.m_face_ops[m, f, 0, 0]) != C.OP_NONE, ct.monster_names[m]
    assert any(int(T.m_ambush[m, 0, 0]) == C.OP_NONE for m in range(n))   # "—" occurs
    assert any(int(T.m_can_trick[m]) == 0 for m in range(n))            # no Trickery Cost
    # harder by Level: mean Health and mean Armor + Health rise, the worst blow never falls
    by = [[int(x) for x in T.m_by_level[lv]] for lv in range(4)]
    hp = [np.mean([int(T.m_health[m]) for m in ms]) for ms in by]
    tough = [np.mean([int(T.m_health[m]) + int(T.m_armor[m]) for m in ms]) for ms in by]

    def worst(m):
        return max([int(o[2]) for f in range(6) for o in T.m_face_ops[m, f]
                    if int(o[0]) == C.OP_WOUND] + [0])
    blow = [max(worst(m) for m in ms) for ms in by]
    assert hp == sorted(hp) and len(set(hp)) == 4
    assert tough == sorted(tough) and len(set(tough)) == 4
    assert blow == sorted(blow)
    # Conditions come mostly from monsters
    def gives(arr):
        return int((np.asarray(arr)[..., 0] == C.OP_CONDITION).sum())
    from_monsters = gives(T.m_face_ops) + gives(T.m_face_alt) + gives(T.m_ambush) + sum(
        gives(T.ab_ops[a]) for a in range(len(T.ab_kind))
        if int(T.ab_owner_kind[a]) == C.OWN_MONSTER)
    copies = np.bincount(np.asarray(T.deck_cards), minlength=int(T.n_enc_types))
    from_cards = sum(gives(T.e_ops[i]) * int(copies[i]) for i in range(int(T.n_enc_types)))
    assert from_monsters > from_cards


def _break_field(folder, file, card, field, bad):
    """Replace the first ``field = ...`` line after ``name = "<card>"``."""
    path = os.path.join(folder, file)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = lines.index(f'name = "{card}"')
    for i in range(start + 1, len(lines)):
        if lines[i].startswith(f"{field} ="):
            lines[i] = f"{field} = {bad}"
            break
    else:
        raise AssertionError(f"no {field} after {card}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


@pytest.mark.parametrize("file,card,field,bad", [
    ("monsters.toml", "Basilisk", "health", '"twelve"'),
    ("weapons.toml", "Sword", "tier", '"legendary"'),
    ("skills.toml", "Daring", "effects", '[ { op = "explode" } ]'),
    ("encounters.toml", "Healing Herbs", "time", "0"),
])
def test_malformed_content_names_file_card_and_field(tmp_path, file, card, field, bad):
    folder = str(tmp_path / "data")
    shutil.copytree(DATA_DIR, folder)
    load_content(folder)                     # the untouched copy loads
    broken = str(tmp_path / "broken")
    shutil.copytree(DATA_DIR, broken)
    _break_field(broken, file, card, field, bad)
    with pytest.raises(ContentError) as e:
        load_content(broken)
    msg = str(e.value)
    assert file in msg and card in msg and field in msg, msg


# =====================================================================================
# chance, setup, the Display
# =====================================================================================

def test_decks_are_shuffled_per_seed():
    """UNB-022/023: both decks are shuffled copies of their content."""
    orders = []
    for seed in (1, 2):
        g = Game(seed=seed)
        deck = [int(x) for x in g["enc_deck"][: int(g["enc_deck_n"])]]
        assert sorted(deck) == sorted(int(x) for x in g.T.deck_cards)
        skills = [int(x) for x in g["skill_deck"][: int(g["skill_deck_n"])]]
        assert sorted(skills) == list(range(int(g.T.n_skills)))
        orders.append((deck, skills))
    assert orders[0][0] != orders[1][0] and orders[0][1] != orders[1][1]


def test_the_die_is_the_only_chance_in_battle():
    """UNB-014: a battle position played twice with different generators but
    the same forced dice ends in the same record (apart from the generator),
    and every chance event used the die."""
    g = Game("brawler", seed=4)
    m = int(g.T.m_by_level[0, 5])
    battle(g, 1, m, small=20, food=3)
    g2 = Game("brawler", seed=99)
    g2.st[:] = g.st
    g2.st[0]["rng"] = Game("brawler", seed=5)["rng"]
    assert bytes(g2["rng"]) != bytes(g["rng"])
    dice = (2, 3, 4, 6, 1, 5)
    for x in (g, g2):
        x.force(*dice)
        for _ in range(4):
            if x.phase() != "battle_turn":
                break
            x.act("skip")
            pass_windows(x)
    for x in (g, g2):
        assert int(x["forced_i"]) >= 4
    differ = [f for f in g.st.dtype.names if not np.array_equal(g.st[f], g2.st[f])]
    assert differ == ["rng"]


def test_public_display_is_in_the_observation():
    """UNB-027/267: the equipped weapon, owned Skills, active Conditions, the
    revealed monster and its trackers, resources and Time are observed."""
    g = Game()
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=10)
    names = g.core.spec.feature_names

    def obs():
        o = np.zeros((1, len(names)), np.float32)
        g.core.observe(g.st, np.zeros(1, np.int64), o)
        return o[0]

    def col(name):
        return names.index(name)

    o0 = obs()
    assert o0[col(f"monster:{m}")] == 1.0
    edits = [
        ("resource:food", lambda: g.set_res(food=3)),
        ("time", lambda: g.set_res(time=int(g["time"]) - 1)),
        (f"weapon:{g.weapon('Knife')}", lambda: g.set_weapons("Bare Hands", "Knife")),
        (f"skill_owned:{g.skill('Keen Edge')}", lambda: g.give_skill("Keen Edge")),
        (f"condition_active:{g.cond('Weakened')}",
         lambda: g["cond"].__setitem__(g.cond("Weakened"), 1)),
        ("monster_health", lambda: g.__setitem__("m_health", int(g["m_health"]) - 1)),
        ("monster_armor_max", lambda: g.__setitem__("m_armor_max", int(g["m_armor_max"]) + 1)),
    ]
    for name, edit in edits:
        before = obs()[col(name)]
        edit()
        assert obs()[col(name)] != before, name


def test_no_skill_limit_and_empty_skill_piles_skip_the_reward():
    """UNB-018, UNB-G11: every Skill can be owned at once; with the Skill
    deck and discard both empty the Skill reward is skipped."""
    g = Game("brawler")
    for name in g.ct.skill_names:
        g.give_skill(name)
    assert int(g["skill_deck_n"]) == 0 and int(g["skill_disc_n"]) == 0
    g.refresh()
    assert {"skill:Woodcraft", "skill:Scholar"} & set(g.legal())
    m = int(g.T.m_by_level[0, 0])
    battle(g, 1, m, small=20, medium=2, food=2)
    g["m_health"] = 0
    g["m_armor"] = 0
    g.refresh()
    g.act("skip")
    pass_windows(g)                              # e.g. Looter on victory
    assert g.phase() == "hunger"
    assert sum(int(x) for x in g["skill_owned"]) == int(g.T.n_skills)


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


# =====================================================================================
# actions: sources, windows, the turn
# =====================================================================================

def test_action_sources_guide_sheet_and_skills():
    """UNB-049: the Actions Guide, the character sheet and owned Skills all
    offer actions (monster-sheet offers: rules::test_rulebook_combat_example)."""
    g = Game("hunter")
    g.give_skill("Woodcraft")
    g.set_res(small=10)
    g.refresh()
    forage = char_ability(g, "hunter", lambda a: int(g.T.ab_kind[a]) == C.K_ACTION
                          and int(g.T.ab_window[a]) == C.WIN_TRAVEL)
    legal = g.legal()
    assert "focus" in legal and f"character_{forage}" in legal and "skill:Woodcraft" in legal
    g.act("skill:Woodcraft")
    a = skill_ability(g, "Woodcraft")
    assert g.res("wood") == int(g.T.ab_ops[a, 0, 2])
    assert g.phase() == "preparation"


def test_combat_actions_only_in_the_battle_step():
    """UNB-259: a Combat Action is offered in the Battle Step only."""
    g = Game("sneak")
    j = char_ability(g, "sneak", lambda a: int(g.T.ab_kind[a]) == C.K_ACTION
                     and int(g.T.ab_window[a]) == C.WIN_BATTLE)
    g.set_res(small=10)
    g.refresh()
    assert f"character_{j}" not in g.legal()           # Preparation Step
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1 and int(g.T.m_can_trick[i])
                      and int(g.T.m_trick[i, C.R_S:C.R_CUN].sum()) == 0)
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
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1 and int(g.T.m_armor[i]) == 0
                      and face_of(g, i, "defend") is None)
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
    assert g.phase() == "response" and "pass" in g.legal()    # Dodge offered, not forced
    g.act("pass")
    assert np.array_equal(g["res"], before)


# =====================================================================================
# monster surcharges, action targets, Attack Power
# =====================================================================================

def test_monster_surcharge_gates_weapon_attacks_but_not_actions():
    """UNB-122/123: a monster's extra attack cost must be payable for a
    weapon attack; an action's Wounds pay no surcharge."""
    g = Game("sneak")
    cand = [a for a in range(len(g.T.ab_kind)) if int(g.T.ab_pmod[a]) == C.PM_ATTACK_COST
            and int(g.T.ab_owner_kind[a]) == C.OWN_MONSTER and int(g.T.ab_pa[a]) == C.R_S]
    if not cand:
        pytest.skip("no monster with a Small Effort surcharge")
    sur = int(g.T.ab_pn[cand[0]])
    m = int(g.T.ab_owner[cand[0]])
    lv = int(g.T.m_level[m])
    shove = g.attack("Bare Hands", "Shove")
    base = int(g.T.w_atk_cost[0, shove, C.R_S])
    battle(g, lv, m, small=base)
    g.set_res(small=base, medium=0, large=0)
    g["m_armor"] = max(1, int(g["m_armor"]))
    g.refresh()
    assert f"attack_{shove}" not in g.legal()        # the surcharge cannot be paid
    g.set_res(small=base + sur)
    g.refresh()
    assert f"attack_{shove}" in g.legal()
    j = char_ability(g, "sneak", lambda a: int(g.T.ab_kind[a]) == C.K_ACTION
                     and C.OP_DAMAGE in ab_codes(g, a) and int(g.T.ab_ops[a, 0, 3]) == 1)
    a = int(g.T.char_ab[0, j])
    cost = int(g.T.ab_cost[a, C.R_S])
    g.set_res(small=cost)
    g.refresh()
    assert f"character_{j}" in g.legal()
    d = face_of(g, m, "defend")
    g.force((d + 1) if d is not None else 1)
    h = int(g["m_health"])
    g.act(f"character_{j}")
    pass_windows(g)
    if d is not None:
        assert g.res("small") == 0                    # exactly the action's cost
    assert int(g["m_health"]) == h - int(g.T.ab_ops[a, 0, 2])


def test_action_breaks_and_piercing_wounds_move_the_trackers():
    """UNB-127 and the target rule for actions: an Armor-breaking action is
    offered only while Armor remains and lowers Armor (never below 0); an
    Armor-piercing Wound action is offered either way."""
    g = Game("brawler")
    j = char_ability(g, "brawler", lambda a: int(g.T.ab_kind[a]) == C.K_ACTION
                     and ab_codes(g, a) == [C.OP_BREAK])
    a = int(g.T.char_ab[3, j])
    n = int(g.T.ab_ops[a, 0, 2])
    m = monster_where(g, lambda i: int(g.T.m_armor[i]) >= 1 and int(g.T.m_level[i]) <= 2
                      and face_of(g, i, "defend") is not None)
    battle(g, int(g.T.m_level[m]), m, small=20)
    arm = int(g["m_armor"])
    assert f"character_{j}" in g.legal()
    g.force(face_of(g, m, "defend") + 1)
    g.act(f"character_{j}")
    pass_windows(g)
    assert int(g["m_armor"]) == max(0, arm - n)
    g["m_armor"] = 0
    g.refresh()
    assert f"character_{j}" not in g.legal()          # nothing left to break
    g2 = Game("sneak")
    k = char_ability(g2, "sneak", lambda a: int(g2.T.ab_kind[a]) == C.K_ACTION
                     and ab_codes(g2, a) == [C.OP_DAMAGE] and int(g2.T.ab_ops[a, 0, 3]) == 1)
    battle(g2, int(g2.T.m_level[m]), m, small=20)
    assert int(g2["m_armor"]) >= 1 and f"character_{k}" in g2.legal()
    h = int(g2["m_health"])
    g2.force(face_of(g2, m, "defend") + 1)
    g2.act(f"character_{k}")
    pass_windows(g2)
    assert int(g2["m_health"]) == h - int(g2.T.ab_ops[int(g2.T.char_ab[0, k]), 0, 2])
    g2.set_res(small=20)
    g2["uses"] = 2
    g2["m_armor"] = 0
    g2.refresh()
    assert g2.phase() == "battle_turn" and f"character_{k}" in g2.legal()


def test_skills_through_armor_and_resource_wounds():
    """UNB-246/247: a Skill turns Wood into Wounds through Armor; a Food
    Skill whose Wounds Armor stops waits until the Armor is gone."""
    g = Game("brawler")
    g.give_skill("Sharpened Stakes")
    g.give_skill("Baited Trap")
    m = monster_where(g, lambda i: int(g.T.m_armor[i]) >= 1 and int(g.T.m_level[i]) <= 2
                      and face_of(g, i, "defend") is not None)
    battle(g, int(g.T.m_level[m]), m, small=10, wood=2, food=2)
    assert "skill:Sharpened Stakes" in g.legal() and "skill:Baited Trap" not in g.legal()
    stakes = skill_ability(g, "Sharpened Stakes")
    h, arm, wood = int(g["m_health"]), int(g["m_armor"]), g.res("wood")
    g.force(face_of(g, m, "defend") + 1)
    g.act("skill:Sharpened Stakes")
    pass_windows(g)
    assert int(g["m_health"]) == h - int(g.T.ab_ops[stakes, 0, 2]) and int(g["m_armor"]) == arm
    assert g.res("wood") == wood - int(g.T.ab_cost[stakes, C.R_WOOD])
    g["m_armor"] = 0
    g.refresh()
    assert "skill:Baited Trap" in g.legal()
    trap = skill_ability(g, "Baited Trap")
    h = int(g["m_health"])
    g.force(face_of(g, m, "defend") + 1)
    g.act("skill:Baited Trap")
    assert int(g["m_health"]) == max(0, h - int(g.T.ab_ops[trap, 0, 2]))
    assert g.res("food") == 2 - int(g.T.ab_cost[trap, C.R_FOOD])


def test_attack_power_bonuses_are_for_weapon_attacks_only():
    """UNB-258: a weapon-power passive (Keen Edge) adds to weapon attacks,
    not to an action's Wounds."""
    g = Game("sneak")
    g.give_skill("Keen Edge")
    bonus = int(g.T.ab_pn[skill_ability(g, "Keen Edge")])
    m = monster_where(g, lambda i: int(g.T.m_armor[i]) == 0 and int(g.T.m_level[i]) <= 2
                      and face_of(g, i, "defend") is not None)
    battle(g, int(g.T.m_level[m]), m, small=20)
    g["m_health"] = g["m_health_max"] = 30
    g.refresh()
    d = face_of(g, m, "defend") + 1
    k = char_ability(g, "sneak", lambda a: int(g.T.ab_kind[a]) == C.K_ACTION
                     and ab_codes(g, a) == [C.OP_DAMAGE])
    n = int(g.T.ab_ops[int(g.T.char_ab[0, k]), 0, 2])
    g.force(d)
    g.act(f"character_{k}")
    pass_windows(g)
    assert int(g["m_health"]) == 30 - n
    g["defend"] = 0
    g.refresh()
    punch = g.attack("Bare Hands", "Punch")
    g.force(d)
    g.act(f"attack_{punch}")
    pass_windows(g)
    assert int(g["m_health"]) == 30 - n - int(g.T.w_atk_power[0, punch]) - bonus


def test_defend_does_not_stack():
    """UNB-135: a DEFEND rolled while one is pending adds nothing: only the
    next weapon attack is ignored, the one after it lands."""
    g = Game("brawler")
    m = monster_where(g, lambda i: int(g.T.m_level[i]) <= 2 and face_of(g, i, "defend") is not None
                      and face_of(g, i, "wound") is not None)
    d, w = face_of(g, m, "defend"), face_of(g, m, "wound")
    battle(g, int(g.T.m_level[m]), m, small=20)
    g["m_armor"] = 0
    g["m_health"] = g["m_health_max"] = 30
    g["defend"] = 1
    g.refresh()
    _roll(g, d)                                         # a second DEFEND while one waits
    assert int(g["defend"]) == 1
    punch = g.attack("Bare Hands", "Punch")
    g.force(w + 1)
    g.act(f"attack_{punch}")
    pass_windows(g)
    assert int(g["m_health"]) == 30 and int(g["defend"]) == 0
    g.force(w + 1)
    g.act(f"attack_{punch}")
    pass_windows(g)
    assert int(g["m_health"]) == 30 - int(g.T.w_atk_power[0, punch])


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
    k = [k for k in range(int(g.T.w_natk[knife])) if int(g.T.w_atk_kind[knife, k]) == 1
         and int(g.T.w_atk_cost[knife, k, C.R_M:].sum()) == 0][0]
    s0 = g.res("small")
    g.force(face_of(g, m, "defend") + 1)
    g.act(f"attack_{k}")
    pass_windows(g)                                     # decline Power Through
    assert int(g["m_health"]) == 30 - int(g.T.w_atk_power[knife, k])
    assert g.res("small") == s0 - int(g.T.w_atk_cost[knife, k, C.R_S])


# =====================================================================================
# monster faces: Conditions, ignore passives, alternatives, re-rolls
# =====================================================================================

def _roll(g, face):
    g.force(face + 1)
    g.act("skip")
    pass_windows(g)


def test_face_gives_condition_fetched_by_name():
    """UNB-024/145/217/218/149: a face hands out exactly the named card: a
    next-Level one waits without effect, an immediate one is active at once
    with its bracketed tokens."""
    g = Game()
    elf = g.monster("Dark Elf")
    par = g.cond("Paranoid")
    f = [f for f in range(6) if int(g.T.m_face_ops[elf, f, 0, 0]) == C.OP_CONDITION
         and int(g.T.m_face_ops[elf, f, 0, 1]) == par
         and int(g.T.m_face_ops[elf, f, 0, 2]) == C.WHEN_NEXT][0]
    battle(g, 3, elf, small=20)
    before = g["cond"].copy()
    hmax = int(g["m_health_max"])
    _roll(g, f)
    after = g["cond"].copy()
    assert int(after[par]) == 2
    assert np.array_equal(np.delete(after, par), np.delete(before, par))
    assert int(g["m_health_max"]) == hmax                 # no effect this Level
    g2 = Game()
    cand = [(m, f) for m in range(C.NMONSTER) for f in range(6)
            if int(g2.T.m_face_ops[m, f, 0, 0]) == C.OP_CONDITION
            and int(g2.T.m_face_ops[m, f, 0, 2]) == C.WHEN_NOW
            and int(g2.T.m_face_ops[m, f, 0, 4]) > 0]
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
    sk = [k for k in range(int(g.T.n_skills)) if int(g.T.ab_pmod[g.T.s_ab[k]]) == C.PM_IGNORE
          and C.FACE_TYPES[int(g.T.ab_pa[g.T.s_ab[k]])] == "condition"]
    if not sk:
        pytest.skip("no Skill ignores Condition faces")
    g.give_skill(g.ct.skill_names[sk[0]])
    m, f = [(m, f) for m in range(C.NMONSTER) for f in range(6)
            if C.FACE_TYPES[int(g.T.m_face_type[m, f])] == "condition"
            and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_CONDITION
            and int(g.T.m_face_ops[m, f, 0, 2]) == C.WHEN_NEXT][0]
    battle(g, int(g.T.m_level[m]), m, small=20)
    before = (g["cond"].copy(), g["res"].copy())
    _roll(g, f)
    assert int(g["forced_i"]) == 1
    assert np.array_equal(g["cond"], before[0]) and np.array_equal(g["res"], before[1])


def _alt_condition_face(g):
    cand = [(m, f) for m in range(C.NMONSTER) for f in range(6)
            if int(g.T.m_face_has_alt[m, f]) and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_LOSE
            and int(g.T.m_face_ops[m, f, 0, 1]) > C.R_L
            and int(g.T.m_face_ops[m, f, 0, 2]) >= 2
            and int(g.T.m_face_alt[m, f, 0, 0]) == C.OP_CONDITION
            and int(g.T.m_face_alt[m, f, 0, 2]) == C.WHEN_NEXT]
    if not cand:
        pytest.skip("no steal-or-Condition face")
    return cand[0]


def test_partial_loss_takes_the_alternative_whole():
    """UNB-A15/137: losing 2 of a resource while holding 1 is not applied in
    part: the bracketed alternative (a next-Level Condition) is."""
    g = Game()
    m, f = _alt_condition_face(g)
    r = int(g.T.m_face_ops[m, f, 0, 1])
    c = int(g.T.m_face_alt[m, f, 0, 1])
    battle(g, int(g.T.m_level[m]), m, small=20, **{C.RES_NAMES[r]: 1})
    _roll(g, f)
    assert g.res(C.RES_NAMES[r]) == 1 and int(g["cond"][c]) == 2


def test_reroll_when_the_alternative_would_duplicate():
    """UNB-139 with the fix for alternatives: the duplicate check looks at
    the effect that would apply. The alternative's Condition already waits
    -> re-roll; with enough of the resource the main effect applies."""
    g = Game()
    m, f = _alt_condition_face(g)
    r = int(g.T.m_face_ops[m, f, 0, 1])
    n = int(g.T.m_face_ops[m, f, 0, 2])
    c = int(g.T.m_face_alt[m, f, 0, 1])
    other = [x for x in range(6) if int(g.T.m_face_ops[m, x, 0, 0]) in
             (C.OP_MON_HEAL, C.OP_DEFEND, C.OP_WOUND)
             and int(g.T.m_face_ops[m, x, 1, 0]) == C.OP_NONE][0]
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
    cand = [(m, f) for m in range(C.NMONSTER) for f in range(6)
            if not int(g.T.m_face_has_alt[m, f]) and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_LOSE
            and int(g.T.m_face_ops[m, f, 0, 1]) > C.R_L
            and int(g.T.m_face_ops[m, f, 1, 0]) == C.OP_NONE
            and int(g.T.m_level[m]) <= 2]
    if not cand:
        pytest.skip("no plain theft face without an alternative")
    m, f = cand[0]
    r = int(g.T.m_face_ops[m, f, 0, 1])
    battle(g, int(g.T.m_level[m]), m, small=10, **{C.RES_NAMES[r]: 0})
    before = g["res"].copy()
    _roll(g, f)
    assert np.array_equal(g["res"], before) and int(g["outcome"]) == C.O_PLAYING


def test_unpayable_effort_loss_takes_the_alternative_or_kills():
    """UNB-A16 (no shipped face pairs an Effort loss with an alternative,
    so a copy of the tables is edited): an unpayable Wound with an
    alternative applies the alternative; an alternative that is itself an
    unpayable Effort loss kills; with no alternative the Wound kills."""
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1)
    f = [f for f in range(6) if int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_WOUND
         and int(g.T.m_face_ops[m, f, 1, 0]) == C.OP_NONE][0]
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
    g.act("fight")                                  # no Cunning: no Trickery
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
        g.act("pass")                               # decline Dodge
    # our next turn start: the offer is made again before the roll
    assert g.phase() == "response" and "monster_0" in g.legal()
    assert int(g["cond_tokens"][par]) == tok + int(six[1, 2])
    assert g.res("small") == s0 - int(six[0, 2])


# =====================================================================================
# Hunger, scoring
# =====================================================================================

def test_food_gain_comes_before_the_penalty():
    """UNB-172: with no Effort, eating 1 of 2 required Food gives 1 S first,
    which then pays the 1 S penalty; the player lives."""
    g = Game()
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 2
    g.set_res(small=0, medium=0, large=0, food=1)
    g.refresh()
    g.act("eat_1")
    assert int(g["outcome"]) == C.O_PLAYING and g.res("small") == 0 and int(g["level"]) == 2


def test_no_eating_beyond_the_requirement():
    """UNB-A23/167: eating is offered from 0 up to the Requirement only."""
    g = Game()
    g["phase"] = C.PH_HUNGER
    g["hunger_req"] = 2
    g.set_res(food=5)
    g.refresh()
    assert g.legal() == ["eat_0", "eat_1", "eat_2"]


def test_final_score_counts_every_resource_but_not_time():
    """UNB-185..193: the score is the points of what is held; Small Effort
    is worth 0 and Time nothing."""
    scores = []
    for time, small in ((0, 0), (7, 15)):
        g = Game()
        g.goto_level(4)
        g["phase"] = C.PH_HUNGER
        g["hunger_req"] = 0
        for r in range(C.NRES):
            g["res"][r] = 2
        g.set_res(small=small, time=time)
        g.refresh()
        g.act("eat_0")
        assert int(g["outcome"]) == C.O_WIN
        expect = sum(int(g["res"][r]) * int(g.T.score_pts[r]) for r in range(C.NRES))
        assert int(g["score"]) == expect
        scores.append(int(g["score"]))
    assert scores[0] == scores[1]
    assert int(Game().T.score_pts[C.R_S]) == 0


# =====================================================================================
# Responses and Passives
# =====================================================================================

def test_power_through_once_per_attack_again_next_attack():
    """UNB-256/210: Power Through can be used once on an attack (the window
    stays open for another Response) and again on the next attack."""
    g = Game("brawler")
    g.give_skill("Battle Fury")
    m = monster_where(g, lambda i: int(g.T.m_level[i]) <= 2 and int(g.T.m_armor[i]) == 0
                      and face_of(g, i, "defend") is not None)
    battle(g, int(g.T.m_level[m]), m, small=20, medium=2)
    g["uses"] = 2
    g["m_health"] = g["m_health_max"] = 30
    g.refresh()
    j = char_ability(g, "brawler", lambda a: int(g.T.ab_kind[a]) == C.K_RESPONSE
                     and int(g.T.ab_trigger[a]) == C.T_ATTACK)
    bonus = int(g.T.ab_ops[int(g.T.char_ab[3, j]), 0, 2])
    punch = g.attack("Bare Hands", "Punch")
    d = face_of(g, m, "defend") + 1
    g.act(f"attack_{punch}")
    assert g.phase() == "response" and f"character_{j}" in g.legal()
    g.act(f"character_{j}")
    assert g.phase() == "response" and "skill:Battle Fury" in g.legal()
    assert f"character_{j}" not in g.legal()            # once per attack
    g.force(d)
    g.act("pass")
    pass_windows(g)
    assert int(g["m_health"]) == 30 - int(g.T.w_atk_power[0, punch]) - bonus
    g["defend"] = 0
    g.refresh()
    g.act(f"attack_{punch}")
    assert f"character_{j}" in g.legal()                # usable on the next attack
    assert int(g["uses"]) == 1


def test_passives_apply_after_responses():
    """UNB-214/215: a Response's bonus on an attack is added first; a
    monster's Wound cap (a Passive) is applied to the total afterwards."""
    g = Game("brawler")
    cap_ab = [a for a in range(len(g.T.ab_kind)) if int(g.T.ab_pmod[a]) == C.PM_MAX_WOUNDS
              and int(g.T.ab_owner_kind[a]) == C.OWN_MONSTER
              and int(g.T.m_armor[int(g.T.ab_owner[a])]) == 0
              and int(g.T.m_level[int(g.T.ab_owner[a])]) <= 2]
    if not cap_ab:
        pytest.skip("no armorless low-Level monster with a Wound cap")
    m = int(g.T.ab_owner[cap_ab[0]])
    cap = int(g.T.ab_pn[cap_ab[0]])
    punch = g.attack("Bare Hands", "Punch")
    j = char_ability(g, "brawler", lambda a: int(g.T.ab_kind[a]) == C.K_RESPONSE
                     and int(g.T.ab_trigger[a]) == C.T_ATTACK)
    total = int(g.T.w_atk_power[0, punch]) + int(g.T.ab_ops[int(g.T.char_ab[3, j]), 0, 2])
    assert total > cap, "content check: the Response pushes the attack over the cap"
    battle(g, int(g.T.m_level[m]), m, small=20)
    g["m_health"] = g["m_health_max"] = 30
    g.refresh()
    g.act(f"attack_{punch}")
    g.force(1, 1)
    g.act(f"character_{j}")
    pass_windows(g)
    assert int(g["m_health"]) == 30 - cap


def test_optional_responses_come_before_mandatory_ones():
    """UNB-212 (deviation): at battle start the optional Daring is offered
    before the Basilisk's mandatory gaze has given Paralyzed."""
    g = Game("sneak")
    g.give_skill("Daring")
    par = g.cond("Paralyzed")
    g.goto_level(4)
    g.set_monster("Basilisk")
    g.set_res(small=10, metal=0, cunning=0)
    g.refresh()
    g.act("fight")
    assert g.phase() == "response" and "skill:Daring" in g.legal()
    assert int(g["cond"][par]) & 1 == 0
    g.force(6)
    g.act("pass")
    assert int(g["cond"][par]) & 1 == 1


def test_tier_requirement_follows_the_equipped_weapon():
    """UNB-229 (no shipped card uses it, so a copy of the tables is edited):
    an ability needing an Advanced weapon is offered only with one, and one
    needing a Basic weapon only without."""
    g = Game("brawler")
    j = char_ability(g, "brawler", lambda a: int(g.T.ab_kind[a]) == C.K_ACTION
                     and int(g.T.ab_window[a]) == C.WIN_TRAVEL | C.WIN_BATTLE
                     and g.T.ab_cost[a].sum() == 0)
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


# =====================================================================================
# weapons: Craft in battle, monster downgrades
# =====================================================================================

def test_craft_in_a_level_1_to_3_battle_takes_next_levels_time():
    """UNB-233/A13: Craft in a Level 1-3 battle uses the turn and costs the
    next Level's Time, and needs that Time on the tracker."""
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1 and face_of(g, i, "defend") is not None)
    j = [j for j in range(2) if int(g.T.w_upg_to[0, j]) >= 0
         and int(g.T.w_upg_cost[0, j, C.R_TIME]) > 0][0]
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
    cand = [(m, f) for m in range(C.NMONSTER) for f in range(6)
            if int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_DOWNGRADE
            and int(g.T.m_face_ops[m, f, 0, 3]) == 0
            and face_of(g, m, "defend") is not None]
    if not cand:
        pytest.skip("no temporary-downgrade face")
    m, f = cand[0]
    rounds = int(g.T.m_face_ops[m, f, 0, 2])
    battle(g, int(g.T.m_level[m]), m, small=20)
    g.set_weapons("Bare Hands", "Knife")
    g.refresh()
    _roll(g, f)
    assert int(g["wstack_n"]) == 1 and [int(x) for x in g["waside"][:1]] == [g.weapon("Knife")]
    d = face_of(g, m, "defend")
    for _ in range(rounds + 1):
        if int(g["wstack_n"]) == 2 or g.phase() != "battle_turn":
            break
        _roll(g, d)
    assert int(g["wstack_n"]) == 2 and int(g["waside_n"]) == 0


# =====================================================================================
# Travel: Orienteer, commitments, 0 Time, Craft Time
# =====================================================================================

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
    j = [j for j in range(2) if int(g.T.w_upg_to[0, j]) >= 0
         and int(g.T.w_upg_cost[0, j, C.R_TIME]) > 0][0]
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
    cards = [i for i in range(int(g.T.n_enc_types))
             if any(int(o[0]) == C.OP_CURE for o in g.T.e_ops[i])]
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


# =====================================================================================
# combat entry, rewards, cleanup
# =====================================================================================

def test_trackers_set_once_ambush_changes_kept():
    """UNB-A19/113: the Battle Step adds start-of-battle passives to the
    trackers as Step 1A/1B left them; it does not reset them."""
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1 and int(g.T.m_armor[i]) >= 1)
    g["monster"] = m
    g.set_res(small=20)
    s = g.st[0]
    rules.begin_combat(s, g.core.TR[0])            # Step 1A/1B: trackers set
    s["m_armor"] = 0                                # e.g. an Ambush Effect changed them
    s["m_health"] = int(g.T.m_health[m]) - 1
    rules.run(s, g.core.TR[0], C.S_BATTLE_START)
    assert int(s["m_armor"]) == 0 and int(s["m_health"]) == int(g.T.m_health[m]) - 1
    # an Ambush Effect giving Paranoid "now" counts at battle start
    g2 = Game()
    par = g2.cond("Paranoid")
    hag = monster_where(g2, lambda i: any(int(o[0]) == C.OP_CONDITION and int(o[1]) == par
                                          and int(o[2]) == C.WHEN_NOW for o in g2.T.m_ambush[i]))
    bonus = int(g2.T.ab_pn[[a for a in g2.T.c_ab[par] if a >= 0][0]])
    g2.goto_level(int(g2.T.m_level[hag]))
    g2["monster"] = hag
    g2.set_res(small=20, time=0)
    g2.refresh()
    g2.act("fight")
    assert int(g2["ambushed"]) == 1
    assert int(g2["m_health_max"]) == int(g2.T.m_health[hag]) + bonus


def test_rewards_respect_the_bars():
    """UNB-161/045: Rewards are gained up to each bar's maximum."""
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1
                      and int(g.T.m_reward[i, C.R_CUN:].sum()) > 0)
    r = [r for r in range(C.R_CUN, C.NRES) if int(g.T.m_reward[m, r]) > 0][0]
    battle(g, 1, m, small=10)
    g["res"][r] = int(g.T.bars[r])
    g["m_health"] = 0
    g["m_armor"] = 0
    g.refresh()
    g.act("skip")
    pass_windows(g)
    assert int(g["res"][r]) == int(g.T.bars[r])


def test_cleanup_after_trickery():
    """UNB-A06: after a tricked monster and its Hunger Step, Ability Uses are
    reset, active Conditions are discarded, waiting ones become active, the
    monster is removed."""
    g = Game("sneak")
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1 and int(g.T.m_can_trick[i])
                      and int(g.T.m_trick[i, C.R_S:C.R_CUN].sum()) == 0)
    poi, lost = g.cond("Poisoned"), g.cond("Lost")
    g["monster"] = m
    for r in range(C.NRES):
        g["res"][r] = int(g.T.m_trick[m, r])
    g.set_res(small=10, food=int(g.T.m_trick[m, C.R_FOOD]) + 1)
    g["uses"] = 0
    g["cond"][poi] = 1
    g["cond_tokens"][poi] = 3
    g["cond"][lost] = 2
    g.refresh()
    g.act("fight")
    g.act("trick")
    g.act("eat_1")
    assert int(g["level"]) == 2 and int(g["uses"]) == 2
    assert int(g["cond"][poi]) == 0 and int(g["cond"][lost]) == 1
    assert int(g["monster"]) == -1 and int(g["m_revealed"]) == 0


# =====================================================================================
# Ambush Effects follow the same all-or-nothing rule as Combat Roll faces
# =====================================================================================

def test_ambush_effect_not_applicable_in_full_does_nothing():
    g = Game()
    m = monster_where(g, lambda i: int(g.T.m_level[i]) == 1
                      and any(int(o[0]) == C.OP_LOSE and int(o[1]) > C.R_L for o in g.T.m_ambush[i])
                      and any(int(o[0]) == C.OP_WOUND for o in g.T.m_ambush[i]))
    r = [int(o[1]) for o in g.T.m_ambush[m] if int(o[0]) == C.OP_LOSE][0]
    g["monster"] = m
    g.set_res(small=10, time=0, **{C.RES_NAMES[r]: 0})
    g.refresh()
    assert not rules.ops_applicable(g.st[0], g.core.TR[0], g.T.m_ambush[m])
    g.act("fight")
    assert int(g["ambushed"]) == 1
    assert g.res("small") == 10
