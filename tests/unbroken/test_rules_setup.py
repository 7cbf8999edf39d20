"""Unbroken rule scenarios: set-up, difficulty, content and chance (the set-up by
difficulty (bonus roll, who goes first), the content census and malformed
content, shuffles per seed, the die as the only chance, the public Display).

Each test sets a game up by editing its state record, queues die results,
plays actions by name and checks the rule's arithmetic (helpers in
``tests/helpers/unbroken_util.py``). Expected numbers are read from the content
tables; only numbers the rulebook itself fixes are written out.
The rule ids each test checks are listed in the coverage table of
``envs/unbroken/README.md``.
"""

import os
import shutil

import numpy as np
import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from helpers.unbroken_util import Game, battle, pass_windows, to_battle

from dungeonrl.envs.core.errors import ContentError
from dungeonrl.envs.unbroken import consts as C
from dungeonrl.envs.unbroken.content import DATA_DIR, load_content


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


@pytest.mark.parametrize(
    "face,resource",
    list(enumerate(["metal", "wood", "food", "cunning", "medium", "treasure"], start=1)),
)
def test_easy_bonus_roll(face, resource):
    g = Game("sage", "easy", seed=0)
    g.force(face)  # the queue survives reset: script the setup roll
    g.core.reset(g.st, np.array([0], np.uint64))
    assert int(g["forced_i"]) == 1
    assert g.res(resource) == 1 + (15 if resource == "small" else 0)
    assert g.res("small") == 15


def test_monster_first_on_hard_only():
    for difficulty, first in (("normal", "player"), ("hard", "monster")):
        g = Game("brawler", difficulty)
        m = g.ct.monster_names[int(g.T.m_by_level[0, 0])]
        g.force(2)  # the monster's first combat roll, if it goes first
        to_battle(g, m, 1, small=15)
        if g.phase() == "trickery":
            g.act("battle")
        while g.phase() == "response":
            g.act("pass")
        if first == "player":
            assert int(g["forced_i"]) == 0 and g.phase() == "battle_turn"
        else:
            assert int(g["forced_i"]) >= 1  # the monster rolled before our turn


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
    lvl = {
        n: int(T.m_level[ct.monster_names.index(n)]) for n in ("Basilisk", "Dark Elf", "Minotaur")
    }
    assert lvl == {"Basilisk": 4, "Dark Elf": 3, "Minotaur": 3}
    assert {"Daring", "Wrecker"} <= set(ct.skill_names)
    assert {"Poisoned", "Paralyzed", "Paranoid", "Armored"} <= set(ct.condition_names)
    assert "Dodge" in ct.char_ability_names[0] and "Power Through" in ct.char_ability_names[3]
    assert int(T.c_perm[ct.condition_names.index("Armored")]) == 1
    # the nine resources (Time is the ninth, kept apart from the bars)
    assert C.COST_NAMES == (
        "small",
        "medium",
        "large",
        "cunning",
        "food",
        "wood",
        "metal",
        "treasure",
        "time",
    )


def test_content_census_weapons_characters_and_kinds():
    ct = load_content()
    T = ct.tables
    tiers = {n: ("basic", "advanced")[int(T.w_tier[i])] for i, n in enumerate(ct.weapon_names)}
    assert {n for n, t in tiers.items() if t == "basic"} == {"Bare Hands", "Club", "Knife"}
    assert {n for n, t in tiers.items() if t == "advanced"} == {"Spear", "Sword", "Axe", "Maul"}
    assert ct.weapon_names[0] == "Bare Hands"
    assert list(T.w_tier) == sorted(T.w_tier)  # the Weapon Deck: Basic, then Advanced
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
        if C.OP_DAMAGE in codes and T.ab_cost[a, C.R_CUN : C.NRES].sum() > 0:
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
        for f in range(6):  # one entry for each die face
            assert int(T.m_face_ops[m, f, 0, 0]) != C.OP_NONE, ct.monster_names[m]
    assert any(int(T.m_ambush[m, 0, 0]) == C.OP_NONE for m in range(n))  # "—" occurs
    assert any(int(T.m_can_trick[m]) == 0 for m in range(n))  # no Trickery Cost
    # harder by Level: mean Health and mean Armor + Health rise, the worst blow never falls
    by = [[int(x) for x in T.m_by_level[lv]] for lv in range(4)]
    hp = [np.mean([int(T.m_health[m]) for m in ms]) for ms in by]
    tough = [np.mean([int(T.m_health[m]) + int(T.m_armor[m]) for m in ms]) for ms in by]

    def worst(m):
        return max(
            [int(o[2]) for f in range(6) for o in T.m_face_ops[m, f] if int(o[0]) == C.OP_WOUND]
            + [0]
        )

    blow = [max(worst(m) for m in ms) for ms in by]
    assert hp == sorted(hp) and len(set(hp)) == 4
    assert tough == sorted(tough) and len(set(tough)) == 4
    assert blow == sorted(blow)

    # Conditions come mostly from monsters
    def gives(arr):
        return int((np.asarray(arr)[..., 0] == C.OP_CONDITION).sum())

    from_monsters = (
        gives(T.m_face_ops)
        + gives(T.m_face_alt)
        + gives(T.m_ambush)
        + sum(
            gives(T.ab_ops[a])
            for a in range(len(T.ab_kind))
            if int(T.ab_owner_kind[a]) == C.OWN_MONSTER
        )
    )
    copies = np.bincount(np.asarray(T.deck_cards), minlength=int(T.n_enc_types))
    from_cards = sum(gives(T.e_ops[i]) * int(copies[i]) for i in range(int(T.n_enc_types)))
    assert from_monsters > from_cards


@pytest.mark.parametrize(
    "file,card,field,bad",
    [
        ("monsters.toml", "Basilisk", "health", '"twelve"'),
        ("weapons.toml", "Sword", "tier", '"legendary"'),
        ("skills.toml", "Daring", "effects", '[ { op = "explode" } ]'),
        ("encounters.toml", "Healing Herbs", "time", "0"),
    ],
)
def test_malformed_content_names_file_card_and_field(tmp_path, file, card, field, bad):
    folder = str(tmp_path / "data")
    shutil.copytree(DATA_DIR, folder)
    load_content(folder)  # the untouched copy loads
    broken = str(tmp_path / "broken")
    shutil.copytree(DATA_DIR, broken)
    _break_field(broken, file, card, field, bad)
    with pytest.raises(ContentError) as e:
        load_content(broken)
    msg = str(e.value)
    assert file in msg and card in msg and field in msg, msg


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
        (
            f"condition_active:{g.cond('Weakened')}",
            lambda: g["cond"].__setitem__(g.cond("Weakened"), 1),
        ),
        ("monster_health", lambda: g.__setitem__("m_health", int(g["m_health"]) - 1)),
        ("monster_armor_max", lambda: g.__setitem__("m_armor_max", int(g["m_armor_max"]) + 1)),
    ]
    for name, edit in edits:
        before = obs()[col(name)]
        edit()
        assert obs()[col(name)] != before, name


def test_easy_player_goes_first():
    g = Game("sneak", "easy")
    if g.phase() == "skill_reward":
        g.act("keep_0")
    m = int(g.T.m_by_level[0, 0])
    g.force(3, 3, 3)
    battle(g, 1, m, small=15)
    assert g.phase() == "battle_turn" and int(g["forced_i"]) == 0
