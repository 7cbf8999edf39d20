"""Dungeon Crawler Carl: Unstoppable content: the box's counts, the named
examples of the rulebook, the design constraints of the inventory (D-01..D-10)
and malformed content raising ContentError that names file, card and field."""

import os
import shutil

import numpy as np
import pytest

from dungeonrl.envs.core.errors import ContentError
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable.content import DATA_DIR, load_content

CC = load_content()
T = CC.tables


def core(name):
    return CC.core_names.index(name)


def threat(name):
    return CC.threat_names.index(name)


def test_counts_of_the_box():
    # DCC-013, DCC-029: 100 levelled + 16 starting + 6 character = 122
    assert len(CC.core_names) == C.NCORE == 122
    assert (T.c_kind == 0).sum() == 100 and (T.c_kind == 1).sum() == 16
    assert (T.c_kind == 2).sum() == 6
    assert sorted(set(T.c_level[:100])) == [1, 2, 3, 4, 5, 6]
    assert (T.c_level[100:] == 0).all()  # DCC-047
    # DCC-030: 22 starting + 54 threats + 17 bosses = 93 threat sides
    assert len(CC.threat_names) == C.NTHREAT == 93
    assert (T.t_group[:22] <= 1).all() and (T.t_group[76:] == 6).all()
    assert (T.t_boss_kind >= 0).sum() == 17
    assert len(CC.upgrade_names) == 36 and set(T.u_cutout) == {0, 1}
    assert len(CC.race_names) == 8 and len(CC.class_names) == 8
    assert CC.crawler_names == ("Carl", "Princess Donut")
    # quests: 17 cards in quests of 2-4 parts (DCC-061)
    assert len(CC.quest_names) == 17
    parts = T.quest_nparts[: T.n_quests]
    assert parts.sum() == 17 and ((parts >= 2) & (parts <= 4)).all()
    # 3 floors x 2 modes of danger tracks, each ending on the skull
    assert (T.tr_len >= 3).all()


def test_starting_decks():
    for cr in range(2):
        cores = T.start_core[cr]
        names = [CC.core_names[c] for c in cores]
        assert names.count("Strike") == 6 and names.count("New Achievement!") == 1
        assert names.count("Rest") == 1 and len(cores) == 11  # DCC-086
        assert all(T.c_crawler[c] == cr for c in cores)
        thr = T.start_threat[cr]
        assert len(set(thr)) == 11
        fast = sum(1 for t in thr if T.t_kw[t] & C.KW_FAST)
        assert fast <= 4  # D-04
        assert not any(T.t_kw[t] & C.KW_LOOMING for t in thr)


def test_named_examples():
    j = threat("Juicer")  # DCC-170
    assert (T.t_atk[j], T.t_def[j], T.t_boss_kind[j]) == (4, 4, C.BK_NEIGHBORHOOD)
    g = threat("Goblin")  # DCC-190
    assert (T.t_atk[g], T.t_datk[g]) == (1, 1)
    s = core("Strike")
    assert tuple(T.c_play[s, 0, :2]) == (C.OP_DAMAGE, 1)
    m = core("Make Stuff Go Boom")  # DCC-357
    op = T.c_play[m, 0]
    assert (T.c_level[m], T.c_type[m], T.c_stat[m]) == (1, C.TACTIC, 0)
    assert (op[0], op[1], op[3], op[4], op[5]) == (C.OP_DAMAGE, 3, C.CD_FOCUS, 3, 0)
    mm = core("Magic Missile")  # DCC-361
    spells = [(T.c_play[mm, i, 1], T.c_play[mm, i, 4]) for i in range(3)]
    assert spells == [(1, 1), (2, 2), (3, 3)]
    assert all(T.c_play[mm, i, 3] == C.CD_SPELL for i in range(3))
    ca = core("Chris Andrews")  # DCC-366
    assert (T.c_level[ca], T.c_type[ca], T.c_tough[ca]) == (1, C.ALLY, 1)
    tu = core("Team-Up Attack")  # DCC-369
    assert (T.c_level[tu], T.c_stat[tu], T.c_play[tu, 0, 2]) == (2, 0, C.SC_UNITE)
    assert "Loyal Family" in CC.core_names  # DCC-289


def test_core_decks_feed_every_draft():
    for lv in range(1, 7):
        assert (T.c_level[:100] == lv).sum() >= 4  # D-01


def test_tracks_are_faster_when_harder():
    for f in range(3):
        for m in range(2):
            n = T.tr_len[f, m]
            b = T.tr_border[f, m, :n]
            assert (b == 1).sum() < (b == 2).sum() < (b == 3).sum()  # D-10
            lv = T.tr_level[f, m, :n]
            assert lv[0] == 0 and (np.diff(lv) >= 0).all() and lv.max() <= 5


def test_record_is_one_read_only_structure():
    rec = CC.record
    assert rec.shape == (1,) and not rec.flags.writeable
    assert rec[0]["t_atk"].shape == (93,)


# --- malformed content -------------------------------------------------------
def _copy(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


def _edit(d, name, old, new):
    p = os.path.join(d, name + ".toml")
    s = open(p).read()
    assert old in s, old
    open(p, "w").write(s.replace(old, new, 1))


@pytest.mark.parametrize(
    "file,old,new,expect",
    [
        (
            "cores",
            '{ name = "Pocket Sand", level = 1, count = 2, cost = 1, stat = "dex"',
            '{ name = "Pocket Sand", level = 1, count = 2, cost = 1, stat = "luck"',
            ["cores.toml", "Pocket Sand", "'stat'"],
        ),
        (
            "cores",
            'play = [{ op = "damage", n = 2 }] },\n  { name = "Loot Box Peek"',
            'play = [{ op = "smash", n = 2 }] },\n  { name = "Loot Box Peek"',
            ["cores.toml", "Pocket Sand", "play[0].op"],
        ),
        (
            "cores",
            '{ name = "Haymaker", level = 1, count = 2,',
            '{ name = "Haymaker", level = 1, count = 3,',
            ["cores.toml", "'levelled'", "100"],
        ),
        (
            "threats",
            'name = "Troglodyte", group = "floor1", count = 2, atk = 1, def = 1, '
            'bonus = [{ op = "gold", n = 2 }]',
            'name = "Troglodyte", group = "floor1", count = 2, atk = 1, def = 1, '
            'bonus = [{ op = "eliminate" }]',
            ["threats.toml", "Troglodyte", "bonus[0].op"],
        ),
        (
            "bosses",
            'name = "Juicer", kind = "neighborhood", atk = 4',
            'name = "Juicer", kind = "street", atk = 4',
            ["bosses.toml", "Juicer", "'kind'"],
        ),
        (
            "upgrades",
            '{ name = "Gilded Trim", cutout = "top"',
            '{ name = "Gilded Trim", cutout = "middle"',
            ["upgrades.toml", "Gilded Trim", "'cutout'"],
        ),
        (
            "quests",
            '{ quest = "Buzz Kill", part = 2,',
            '{ quest = "Buzz Kill", part = 3,',
            ["quests.toml", "Smoke the Combs", "'part'"],
        ),
        (
            "crawlers",
            '{ name = "Cat", gold = 2, health = 8,',
            '{ name = "Cat", gold = 2, health = 11,',
            ["crawlers.toml", "Cat", "'health'"],
        ),
        (
            "floors",
            'spaces = "0 0 0g 0y 0r 0 0r$ 1y 1g 1r',
            'spaces = "0 0 0g 0y 0r 1 0r$ 1y 1g 0r',
            ["floors.toml", "track floor 1 arcade", "'spaces'", "never decrease"],
        ),
        (
            "threats",
            '{ name = "Skitter Bug", group = "carl", atk = 1, def = 0, kw = ["fast"] }',
            '{ name = "Skitter Bug", group = "carl", atk = 1, def = 0, kw = ["looming"] }',
            ["threats.toml", "Skitter Bug", "'kw'"],
        ),
    ],
)
def test_malformed_content_names_file_card_field(tmp_path, file, old, new, expect):
    d = _copy(tmp_path)
    _edit(d, file, old, new)
    with pytest.raises(ContentError) as e:
        load_content(str(d))
    for frag in expect:
        assert frag in str(e.value), (frag, str(e.value))


def test_missing_file_and_bad_toml(tmp_path):
    d = _copy(tmp_path)
    os.remove(os.path.join(d, "quests.toml"))
    with pytest.raises(ContentError, match="quests.toml: file missing"):
        load_content(str(d))
    d2 = tmp_path / "d2"
    shutil.copytree(DATA_DIR, d2)
    open(os.path.join(d2, "floors.toml"), "a").write("\n[[[ nonsense\n")
    with pytest.raises(ContentError, match="floors.toml: not valid TOML"):
        load_content(str(d2))


def test_make_config():
    from dungeonrl.envs.dcc_unstoppable.config import make_config

    c = make_config(
        floor=2,
        difficulty="hard",
        mode="campaign",
        crawler="Princess Donut",
        campaign={"xp": 5, "decks": [["Strike", "Rest"]], "upgrades": [[(0, "Serrated Edge")]]},
    )
    assert (c[C.CFG_FLOOR], c[C.CFG_DIFFICULTY], c[C.CFG_MODE], c[C.CFG_CRAWLER]) == (2, 1, 1, 1)
    assert c[C.CFG_RACE0] == C.RC_NONE and c[C.CFG_XP] == 5
    # Donut's deck list: "Strike" is her own Strike, not Carl's
    assert c[C.CFG_DECK0] == CC.core_names.index("Strike", 108)
    assert T.c_crawler[c[C.CFG_DECK0]] == 1 and c[C.CFG_DECK0 + 1] == CC.core_names.index(
        "Rest", 108
    )
    u = CC.upgrade_names.index("Serrated Edge")
    assert c[C.CFG_UPG0 + T.u_cutout[u]] == u
    assert make_config()[C.CFG_RACE0] == C.RC_DRAFT
    for bad in (
        {"floor": 4},
        {"difficulty": "easy"},
        {"race": "Robot"},
        {"campaign": {"gold": 1}},
        {"mode": "story"},
    ):
        with pytest.raises(ValueError):
            make_config(**bad)
