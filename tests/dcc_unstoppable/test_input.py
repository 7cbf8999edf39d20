"""Dungeon Crawler Carl: Unstoppable, untrusted input (README "Reliability:
untrusted input"): the campaign sheet (reset option ``campaign``) is
checked whole before anything changes, and what it accepts is a game the
rules accept; ``set_state`` refuses a record of another configuration;
content entries with an unknown key are refused by name."""

from __future__ import annotations

import dataclasses
import os
import shutil

import gymnasium as gym
import numpy as np
import pytest

from dungeonrl.envs import dcc_unstoppable_v1
from dungeonrl.envs.core.errors import ContentError, CorruptStateError, SnapshotError
from dungeonrl.envs.dcc_unstoppable import config as CFG
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable.campaign import DCCCampaignEnv
from dungeonrl.envs.dcc_unstoppable.content import DATA_DIR, default_content, load_content

ENV_ID = "dungeonrl/DCCUnstoppable-v1"
CC = default_content()
T = CC.tables
CARL_START = ["Strike"] * 6 + [
    "New Achievement!",
    "Rest",
    "Steel-Toed Stomp",
    "Borrowed Bathrobe",
    "Jug of Hooch",
]


def solo(**kw):
    kw.setdefault("mode", "campaign")
    return gym.make(ENV_ID, disable_env_checker=True, **kw).unwrapped


def coop(**kw):
    kw.setdefault("mode", "campaign")
    return dcc_unstoppable_v1.raw_env(num_players=2, **kw)


def record(env):
    return np.frombuffer(env.get_state().state, env.core.state_dtype)[0]


def sleeved(st, seat):
    """Core ids in the sleeves seat ``seat`` owns."""
    return [
        int(st["sl_core"][s])
        for s in range(C.NSLEEVE)
        if st["sl_owner"][s] == seat and st["sl_core"][s] >= 0
    ]


def play_random(env, rng, steps):
    """Up to ``steps`` random legal decisions, every record checked."""
    for _ in range(steps):
        if env._needs_reset:
            return
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        env.core.check_state(record(env))


# --- deck lists: one physical card in one place -------------------------------------------
def test_readme_deck_list_form_puts_each_card_in_one_place():
    """The README's ``decks`` form (cards by name) used to put core 100 (one
    Strike) into six sleeves; the game's own check refused the result."""
    env = solo()
    env.reset(seed=3, options={"campaign": {"decks": [CARL_START]}})
    st = record(env)
    env.core.check_state(st)
    got = sleeved(st, 0)
    assert len(got) == len(set(got)) == 11
    env.reset(seed=3)  # the same 11 physical cards as the default deck
    assert sorted(got) == sorted(sleeved(record(env), 0))
    play_random(env, np.random.default_rng(0), 60)


def test_a_drafted_core_on_a_deck_list_leaves_the_supply():
    """A levelled core on a deck list is that crawler's card: it used to stay
    in its core deck as well (two places)."""
    env = solo()
    env.reset(seed=4, options={"campaign": {"decks": [CARL_START + ["Haymaker", "Haymaker"]]}})
    st = record(env)
    env.core.check_state(st)
    hay = [c for c in range(C.NCORE) if CC.core_names[c] == "Haymaker"]
    assert sorted(c for c in sleeved(st, 0) if c in hay) == hay
    assert all(st["core_zone"][c] == C.CZ_SLEEVE for c in hay)
    assert not np.isin(st["cdeck"], hay).any()
    lv1 = [c for c in range(C.NCORE_LEVELED) if T.c_level[c] == 1]
    supply = [c for c in lv1 if st["core_zone"][c] in (C.CZ_CDECK, C.CZ_REVEAL)]
    assert len(supply) == len(lv1) - 2
    play_random(env, np.random.default_rng(1), 80)


def test_coop_deck_lists_share_the_box():
    env = coop()
    env.reset(
        seed=2, options={"campaign": {"decks": [["Strike", "Haymaker"], ["Strike", "Haymaker"]]}}
    )
    st = record(env)
    env.core.check_state(st)
    a, b = sleeved(st, 0), sleeved(st, 1)
    assert not set(a) & set(b)
    assert [T.c_crawler[c] for c in a if T.c_kind[c]] == [0]  # Carl's own Strike
    assert [T.c_crawler[c] for c in b if T.c_kind[c]] == [1]  # Donut's own Strike
    before = env.get_state()
    with pytest.raises(ValueError, match=r"decks\[1\]\[1\].*'Haymaker'.*2 such"):
        env.reset(
            seed=2,
            options={"campaign": {"decks": [["Haymaker", "Haymaker"], ["Strike", "Haymaker"]]}},
        )
    assert env.get_state() == before
    with pytest.raises(ValueError, match=r"decks\[1\]\[0\].*already listed as decks\[0\]\[0\]"):
        env.reset(seed=2, options={"campaign": {"decks": [[5], [5]]}})
    assert env.get_state() == before


@pytest.mark.parametrize(
    "sheet,match",
    [
        ({"decks": [["Strike"] * 7]}, r"decks\[0\]\[6\] is 'Strike': the content has 6"),
        ({"decks": [["Magic Missile"]]}, r"decks\[0\]\[0\].*another crawler.*Carl"),
        ({"decks": [[C.NCORE - 1]]}, r"decks\[0\]\[0\].*another crawler"),
        ({"decks": [[C.NCORE]]}, r"decks\[0\]\[0\] must be in \[0, 121\], got 122"),
        ({"decks": [["No Such Card"]]}, r"decks\[0\]\[0\].*no core card"),
        ({"decks": [[1.0]]}, r"decks\[0\]\[0\] must be a core card name or id, got float"),
        ({"decks": [["Strike"], ["Strike"]]}, r"decks takes at most 1 entries, got 2"),
        ({"decks": [["Strike"] * 25]}, r"decks\[0\] takes at most 24"),
        ({"decks": ["Strike"]}, r"decks\[0\] must be a list, got str"),
        ({"xp": 40000}, r"xp must be in \[0, 32767\], got 40000"),
        ({"xp": 2**40}, r"xp must be in \[0, 32767\]"),
        ({"xp": -1}, r"xp must be in \[0, 32767\], got -1"),
        ({"xp": "12"}, r"xp must be an int in \[0, 32767\], got str"),
        ({"xp": 1.9}, r"xp must be an int .* got float"),
        ({"xp": True}, r"xp must be an int .* got bool"),
        ({"benefits": [2]}, r"benefits\[0\] \(Thick Skin\) must be in \[0, 1\], got 2"),
        ({"benefits": ["1"]}, r"benefits\[0\] \(Thick Skin\) must be an int"),
        ({"benefits": [0] * 6}, r"benefits takes at most 5"),
        ({"benefits": 3}, r"benefits must be a list"),
        ({"achievements": [[0] * 4] * 2}, r"achievements must have 3 entries"),
        ({"achievements": [[0, 0, 0, 2]] * 3}, r"achievements\[0\]\[3\] must be a flag"),
        ({"achievements": [[0, 0, 0, "1"]] * 3}, r"achievements\[0\]\[3\] must be a flag"),
        ({"upgrades": [[(0, "Serrated Edge")]]}, r"upgrades\[0\]\[0\].*no deck list"),
        (
            {"decks": [["Strike"]], "upgrades": [[(-1, "Serrated Edge")]]},
            r"upgrades\[0\]\[0\]\[0\] \(deck entry\) must be in \[0, 0\], got -1",
        ),
        (
            {"decks": [["Strike"]], "upgrades": [[(200, "Serrated Edge")]]},
            r"upgrades\[0\]\[0\]\[0\] \(deck entry\) must be in \[0, 0\], got 200",
        ),
        (
            {"decks": [["Strike"]], "upgrades": [[("0", "Serrated Edge")]]},
            r"upgrades\[0\]\[0\]\[0\] \(deck entry\) must be an int",
        ),
        (
            {"decks": [["Strike"]], "upgrades": [[(0, "Serrated Edge", 1)]]},
            r"upgrades\[0\]\[0\] must have 2 entries",
        ),
        (
            {"decks": [["Strike"]], "upgrades": [[(0, "Golden Sword")]]},
            r"no upgrade of the content",
        ),
        (
            {"decks": [["Strike"]], "upgrades": [[(0, 36)]]},
            r"upgrades\[0\]\[0\]\[1\] must be in \[0, 35\]",
        ),
        (
            {
                "decks": [["Strike", "Strike"]],
                "upgrades": [[(0, "Serrated Edge"), (0, "Serrated Edge")]],
            },
            r"upgrades\[0\]\[1\].*top cutout of deck entry 0, which upgrades\[0\]\[0\] already",
        ),
        (
            {"decks": [["Strike", "Strike"]], "upgrades": [[(0, 0), (1, 0)]]},
            r"upgrades\[0\]\[1\]\[1\] is upgrade 0 .* already listed as upgrades\[0\]\[0\]\[1\]",
        ),
        (
            {"decks": [["Chris Andrews"]], "upgrades": [[(0, "Serrated Edge")]]},
            r"needs a tactic.*'Chris Andrews', an ally",
        ),
        ({"gold": 3}, r"unknown campaign keys \['gold'\]"),
    ],
)
def test_bad_campaign_sheets_name_the_field_and_leave_the_env_alone(sheet, match):
    env = solo()
    env.reset(seed=1)
    before = env.get_state()
    with pytest.raises(ValueError, match=match):
        env.reset(seed=9, options={"campaign": sheet})
    assert env.get_state() == before


def test_numpy_ints_flags_and_the_largest_values_are_accepted():
    ben = [int(T.be_circles[b, 0]) for b in range(len(CC.benefit_names))]
    ach = np.ones((C.NFLOOR, C.ACH_PER_FLOOR), bool)
    env = solo()
    env.reset(
        seed=5,
        options={
            "campaign": {
                "xp": np.int64(CFG.XP_MAX),
                "benefits": ben,
                "achievements": ach,
                "decks": [np.arange(100, 108)],
                "upgrades": [[(np.int32(0), "Serrated Edge")]],
            }
        },
    )
    st = record(env)
    env.core.check_state(st)
    assert int(st["camp_xp"]) == CFG.XP_MAX and st["camp_ach"].all()
    play_random(env, np.random.default_rng(2), 60)
    # co-op: the two-player circles (Thick Skin: 2)
    e2 = coop()
    hi2 = [int(T.be_circles[b, 1]) for b in range(len(CC.benefit_names))]
    e2.reset(seed=5, options={"campaign": {"benefits": hi2}})
    e2.core.check_state(record(e2))
    with pytest.raises(ValueError, match=r"benefits\[0\] \(Thick Skin\) must be in \[0, 2\]"):
        e2.reset(seed=5, options={"campaign": {"benefits": [3]}})


def test_an_accepted_sheet_the_rules_refuse_fails_loudly(monkeypatch):
    """Defensive: if the sheet check ever let a duplicated card through, the
    reset's own state check says so (it used to play on)."""
    real = CFG.check_campaign

    def lax(*a, **kw):
        out = real(*a, **kw)
        out["decks"] = [[100] * 3]
        return out

    monkeypatch.setattr(CFG, "check_campaign", lax)
    env = solo()
    with pytest.raises(CorruptStateError, match="accepted.*a bug"):
        env.reset(seed=1, options={"campaign": {}})


def test_campaign_wrapper_checks_the_sheet_and_carries_names():
    e = DCCCampaignEnv(buy="none")
    with pytest.raises(ValueError, match=r"xp must be in \[0, 32767\]"):
        e.reset(seed=0, options={"campaign": {"xp": 40000}})
    with pytest.raises(ValueError, match="floor"):
        e.reset(seed=0, options={"floor": 1.0})
    e.reset(seed=0, options={"campaign": {"decks": [CARL_START], "xp": True and 3}})
    assert e.sheet["decks"] == [CARL_START] and e.sheet["xp"] == 3
    assert len(set(sleeved(e.state, 0))) == 11


# --- set_state: records of another configuration ------------------------------------------
def test_set_state_refuses_a_record_of_another_configuration():
    """A ``reward="score"`` record in a ``winloss`` env used to be accepted and
    pay up to 31, outside the declared reward range."""
    src = gym.make(ENV_ID, disable_env_checker=True, reward="score").unwrapped
    src.reset(seed=1)
    snap = src.get_state()
    env = gym.make(ENV_ID, disable_env_checker=True).unwrapped
    env.reset(seed=2)
    before = env.get_state()
    with pytest.raises(
        SnapshotError,
        match=r"reward_mode is 1 \(score\) in the record, "
        r"0 \(winloss\) in this env",
    ):
        env.set_state(snap)
    assert env.get_state() == before
    for kw, field in (
        ({"floor": 2}, "cfg_floor"),
        ({"difficulty": "hard"}, "cfg_difficulty"),
        ({"mode": "campaign"}, "cfg_mode"),
        ({"max_steps": 500}, "max_steps"),
        ({"crawler": "Princess Donut"}, "cfg_crawler"),
        ({"race": "preset"}, r"cfg_race\[0\]"),
    ):
        other = gym.make(ENV_ID, disable_env_checker=True, **kw).unwrapped
        other.reset(seed=1)
        with pytest.raises(SnapshotError, match=field):
            env.set_state(other.get_state())
        assert env.get_state() == before
    env.set_state(env.get_state())  # its own records still load
    # co-op: auto_advance travels too
    a, b = coop(mode="arcade"), coop(mode="arcade", auto_advance=False)
    a.reset(seed=1)
    b.reset(seed=1)
    with pytest.raises(SnapshotError, match="auto_advance is 0 in the record, 1 in this env"):
        a.set_state(b.get_state())


def test_a_record_with_a_duplicated_deck_list_entry_is_refused():
    env = coop()
    env.reset(seed=2, options={"campaign": {"decks": [["Strike", "Haymaker"], ["Rest"]]}})
    snap = env.get_state()
    arr = np.frombuffer(snap.state, env.core.state_dtype).copy()
    arr[0]["camp_deck"][1, 1] = arr[0]["camp_deck"][0, 1]  # Haymaker listed for both seats
    with pytest.raises(CorruptStateError, match="camp_deck"):
        env.set_state(dataclasses.replace(snap, state=arr.tobytes()))
    assert env.get_state() == snap


# --- content: unknown keys per card entry -------------------------------------------------
@pytest.mark.parametrize(
    "fname,old,card",
    [
        ("cores", 'name = "Haymaker", level = 1, count = 2', "Haymaker"),
        ("upgrades", 'name = "Serrated Edge", cutout = "top", count = 2', "Serrated Edge"),
        ("threats", 'name = "Goblin", group = "carl", count = 2', "Goblin"),
    ],
)
def test_a_misspelled_count_is_named(tmp_path, fname, old, card):
    """A misspelled ``count`` used to show only as a wrong total of cards."""
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    path = os.path.join(d, fname + ".toml")
    text = open(path).read()
    assert old in text
    open(path, "w").write(text.replace(old, old.replace("count", "cuont"), 1))
    with pytest.raises(ContentError, match=rf"{fname}.toml, {card}, field 'cuont': unknown field"):
        load_content(str(d))


# --- counters at their bound; the XP a record claims ---------------------------------------
def test_counters_at_their_bound_stay_valid_when_they_count():
    """The co-op record fuzz found it: ``defeats`` at 32767 (accepted) wrapped
    to -32768 at the next defeat and the record was refused; the sacrifice
    queue and the levels after the stairs could pass their 100 the same way."""
    from dungeonrl.envs.dcc_unstoppable import rules as R

    env = solo(mode="arcade")
    env.reset(seed=6)
    arr = np.frombuffer(env.get_state().state, env.core.state_dtype).copy()
    st = arr[0]
    s = int(st["bf"][0, 0])
    st["defeats"][0] = 32767
    st["sac_queue"][0] = 100
    rew = np.zeros(C.NPLAYERS_MAX, np.float32)
    R.defeat(st, CC.record[0], 0, 0, s, rew)
    assert st["defeats"][0] == 32767 and 0 <= st["sac_queue"][0] <= 100
    st["descended"][0] = 1
    st["levels_after_stairs"][0] = 100
    R.level_up(st, CC.record[0], 0, rew)
    assert st["levels_after_stairs"][0] == 100


@pytest.mark.parametrize("field,value", [("boss_xp", 30000), ("quest_xp", 5), ("bosses", 1)])
def test_a_record_claiming_xp_it_did_not_earn_is_refused(field, value):
    """A ``boss_xp`` of 30000 used to pass the rules, and a won game then
    paid 30000+ with ``reward="score"`` (range declared up to 31)."""
    env = gym.make(ENV_ID, disable_env_checker=True, reward="score", floor=3).unwrapped
    env.reset(seed=3)
    snap = env.get_state()
    arr = np.frombuffer(snap.state, env.core.state_dtype).copy()
    if field == "bosses":
        arr[0]["bosses"][0] = value
    else:
        arr[0][field] = value
    with pytest.raises(CorruptStateError, match=f"'{field}'"):
        env.set_state(dataclasses.replace(snap, state=arr.tobytes()))
    assert env.get_state() == snap
