"""Hypothesis fuzz of Dungeon Crawler Carl: Unstoppable's inputs beyond the
generic layer (``tests/fuzz/test_snapshots.py`` fuzzes its solo records):

* co-op and campaign records: a record reached by random play (solo and
  co-op, arcade and campaign with a deck list, upgrades and benefits) is
  mutated and loaded with ``set_state``: refused with the env unchanged,
  or it plays with every reached record passing the rules;
* campaign sheets (reset option ``campaign``), random and mutated valid
  ones, solo and co-op: a ``ValueError`` / ``TypeError`` naming the field
  with the env unchanged, or accepted and then a whole random game plays to
  its end with the game's state check passing after every decision;
* reset options of the solo, co-op and campaign-wrapper envs: an unknown key
  or a bad value is a clear error, a good one resets.

Profiles: ``tests/helpers/fuzz_profiles.py`` (``ci`` by default, seconds;
``HYPOTHESIS_PROFILE=long`` for the deep run).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers.fuzz_profiles import choice
from hypothesis import event, given, settings
from hypothesis import strategies as st

from dungeonrl.benchmarks.fuzz import GameEnv, reached_snapshots, snapshot_case
from dungeonrl.envs.dcc_unstoppable import config as CFG
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable.content import default_content

NAME = "dcc_unstoppable"
CC = default_content()
T = CC.tables
LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
#: the decisions a sheet's game may take: a whole game, cut short in the quick profile
GAME_STEPS = 3000 if LONG else 200

SHEET_SOLO = {
    "xp": 7,
    "benefits": [1, 1, 0, 0, 1],
    "achievements": [[1, 0, 0, 0], [0] * 4, [0] * 4],
    "decks": [
        ["Strike"] * 5 + ["Rest", "Steel-Toed Stomp", "Haymaker", "Fireball", "Chris Andrews"]
    ],
    "upgrades": [[(0, "Serrated Edge"), (8, "Mana Crystal"), (9, "Plated Harness")]],
}
SHEET_COOP = {
    "xp": 3,
    "benefits": [2, 0, 3],
    "decks": [
        ["Strike"] * 4 + ["Pocket Sand", "Haymaker"],
        ["Strike"] * 4 + ["Magic Missile", "Haymaker", "Cleaver Swing"],
    ],
    "upgrades": [[(5, "Gilded Trim")], [(6, "Serrated Edge")]],
}
#: configurations whose records are mutated (solo and co-op, arcade and campaign)
RECORD_CONFIGS = (
    {"num_players": 2},
    {"num_players": 2, "floor": 3, "mode": "campaign", "campaign": SHEET_COOP},
    {
        "num_players": 1,
        "floor": 2,
        "mode": "campaign",
        "campaign": SHEET_SOLO,
        "auto_advance": False,
    },
)
_CACHE: dict = {}


def _records(ci):
    if ci not in _CACHE:
        cfg = RECORD_CONFIGS[ci]
        _CACHE[ci] = (GameEnv(NAME, cfg), reached_snapshots(NAME, cfg, 12, seed=31 + ci))
    return _CACHE[ci]


@pytest.mark.parametrize("ci", range(len(RECORD_CONFIGS)))
@given(data=st.data())
def test_fuzz_carl_coop_and_campaign_records(ci, data):
    env, bases = _records(ci)
    base = bases[data.draw(st.integers(0, len(bases) - 1), label="base")]
    env.restore(base)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="play_seed"))
    out = snapshot_case(env, base, choice(data), rng)
    event(out)
    assert out in ("refused", "played")


# --- campaign sheets -------------------------------------------------------------------
JUNK = [
    None,
    True,
    False,
    -1,
    0,
    1,
    2,
    3,
    24,
    25,
    32767,
    32768,
    40000,
    2**40,
    -(2**63),
    1.0,
    1.9,
    float("nan"),
    "",
    "1",
    "Strike",
    "Haymaker",
    "Serrated Edge",
    [],
    [0],
    {},
    {"a": 1},
    (0, 1),
    np.int64(4),
    np.int8(-1),
    np.bool_(True),
    np.float32(2),
]
CORES = sorted(set(CC.core_names))
UPGRADES = sorted(set(CC.upgrade_names))


def _card(d):
    return (
        d.draw(
            st.one_of(
                st.sampled_from(CORES), st.integers(-2, C.NCORE + 1), st.sampled_from(JUNK[:8])
            ),
            label="card",
        )
        if d.draw(st.integers(0, 9), label="junk_card") == 0
        else d.draw(st.one_of(st.sampled_from(CORES), st.integers(0, C.NCORE - 1)), label="card")
    )


def _valid_ish_sheet(d, seats):
    """A sheet close to a valid one: real names, ids and counts, in range
    more often than not."""
    sheet = {}
    if d.draw(st.booleans(), label="has_xp"):
        sheet["xp"] = d.draw(st.integers(0, CFG.XP_MAX), label="xp")
    if d.draw(st.booleans(), label="has_benefits"):
        sheet["benefits"] = [
            d.draw(st.integers(0, 3), label="circles")
            for _ in range(d.draw(st.integers(0, len(CC.benefit_names))))
        ]
    if d.draw(st.booleans(), label="has_ach"):
        sheet["achievements"] = [
            [
                d.draw(st.sampled_from([0, 1, True, False]), label="flag")
                for _ in range(C.ACH_PER_FLOOR)
            ]
            for _ in range(C.NFLOOR)
        ]
    if d.draw(st.booleans(), label="has_decks"):
        decks = []
        for _ in range(d.draw(st.integers(0, seats), label="n_decks")):
            decks.append([_card(d) for _ in range(d.draw(st.integers(0, 16), label="deck_len"))])
        sheet["decks"] = decks
        if decks and d.draw(st.booleans(), label="has_upgrades"):
            sheet["upgrades"] = [
                [
                    [
                        d.draw(st.integers(-1, max(len(deck), 1)), label="entry"),
                        d.draw(
                            st.one_of(st.sampled_from(UPGRADES), st.integers(-1, C.NUPGRADE)),
                            label="upgrade",
                        ),
                    ]
                    for _ in range(d.draw(st.integers(0, 3), label="n_up"))
                ]
                for deck in decks
            ]
    return sheet


def _mutate(d, sheet):
    """One more change anywhere in the sheet: a junk value, a dropped or an
    extra entry, an unknown key."""
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + (i,))

    walk(sheet, ())
    path = d.draw(st.sampled_from(paths), label="path")
    how = d.draw(st.sampled_from(["value", "drop", "extra", "key"]), label="how")
    if how == "key" or not path:
        sheet[d.draw(st.sampled_from(["gold", "deck", "XP", "floor"]), label="key")] = 1
        return sheet
    parent = sheet
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    if how == "drop":
        parent.pop(key)
    elif how == "extra" and isinstance(parent[key], list):
        parent[key].append(d.draw(st.sampled_from(JUNK + CORES[:5]), label="extra"))
    else:
        parent[key] = d.draw(st.sampled_from(JUNK), label="value")
    return sheet


_SHEET_ENVS: dict = {}


def _sheet_env(seats):
    if seats not in _SHEET_ENVS:
        cfg = {
            "num_players": seats,
            "mode": "campaign",
            "floor": 1 + seats,
            "max_steps": GAME_STEPS,
        }
        _SHEET_ENVS[seats] = GameEnv(NAME, cfg)
        _SHEET_ENVS[seats].reset(0)
    return _SHEET_ENVS[seats]


def sheet_case(env: GameEnv, sheet, seed: int, rng) -> str:
    """Reset ``env`` with the sheet: refused by name with the env unchanged,
    or a whole game that keeps passing the rules."""
    before = env.snapshot()
    try:
        env.env.reset(seed=seed, options={"campaign": sheet})
    except (ValueError, TypeError) as e:
        msg = str(e)
        assert "campaign" in msg and (
            any(k in msg for k in CFG.SHEET_KEYS) or "must be a dict" in msg
        ), f"unclear error: {msg}"
        assert env.snapshot() == before, f"a refused sheet changed the env: {msg}"
        return "refused"
    try:
        env.core.check_state(env.record())
        taken = env.play(rng, GAME_STEPS + 1)
        assert env.core.is_over(env.record()), "the game did not reach its end"
    except Exception as e:
        raise AssertionError(f"accepted sheet {sheet!r} broke: {type(e).__name__}: {e}") from e
    return f"played {taken}"


@pytest.mark.parametrize("seats", (1, 2))
@settings(max_examples=1000 if LONG else 12)
@given(data=st.data())
def test_fuzz_carl_campaign_sheets(seats, data):
    sheet = _valid_ish_sheet(data, seats)
    if data.draw(st.booleans(), label="mutate"):
        sheet = _mutate(data, sheet)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="play_seed"))
    out = sheet_case(_sheet_env(seats), sheet, data.draw(st.integers(0, 2**20)), rng)
    event("refused" if out == "refused" else "played")
    assert out == "refused" or out.startswith("played")


@pytest.mark.parametrize(
    "sheet",
    [SHEET_SOLO, {"decks": [["Strike"]]}, {"decks": [[121 - 5]]}, {"decks": [list(range(24))]}],
)
def test_valid_sheets_play_whole_games(sheet):
    """Edge sheets (one card, 24 levelled cards) play a whole game."""
    env = _sheet_env(1)
    for seed in range(2):
        assert sheet_case(env, sheet, seed, np.random.default_rng(seed)).startswith("played")


def test_coop_sheet_with_two_full_decks_plays():
    decks = [list(range(24)), list(range(24, 48))]
    env = _sheet_env(2)
    assert sheet_case(env, {"decks": decks}, 1, np.random.default_rng(1)).startswith("played")


# --- reset options ------------------------------------------------------------------------
OPTION_KEYS = ["campaign", "floor", "seed", "xp", "decks", "", "Campaign"]


@settings(max_examples=1000 if LONG else 25)
@given(data=st.data())
def test_fuzz_carl_reset_options(data):
    from dungeonrl.envs.dcc_unstoppable.campaign import DCCCampaignEnv

    which = data.draw(st.sampled_from(["solo", "coop", "wrapper"]), label="env")
    if which not in _SHEET_ENVS:
        _SHEET_ENVS[which] = (
            DCCCampaignEnv(buy="none", max_steps=50)
            if which == "wrapper"
            else _sheet_env(1 if which == "solo" else 2).env
        )
    env = _SHEET_ENVS[which]
    # strict mode: this fuzz checks the messages; the default (an unknown key
    # ignored with one warning) is tested in tests/adapters/test_pettingzoo_official.py
    env.unknown_reset_options = "raise"
    keys = data.draw(st.lists(st.sampled_from(OPTION_KEYS), max_size=3, unique=True), label="keys")
    opts = {}
    for k in keys:
        opts[k] = (
            _valid_ish_sheet(data, 1 if which != "coop" else 2)
            if k == "campaign" and data.draw(st.booleans(), label="sheet")
            else data.draw(st.sampled_from(JUNK + [1, 2, 3]), label="value")
        )
    if data.draw(st.integers(0, 9), label="not_dict") == 0:
        opts = data.draw(st.sampled_from([[], "campaign", 3, [("campaign", {})]]), label="opts")
    allowed = {"campaign", "floor"} if which == "wrapper" else {"campaign"}
    try:
        env.reset(seed=3, options=opts)
    except (ValueError, TypeError) as e:
        msg = str(e)
        named = (
            (not isinstance(opts, dict) and "options" in msg)
            or any(k in msg for k in keys)
            or "unknown" in msg
        )
        assert named, f"unclear error for {opts!r}: {msg}"
        event("refused")
        return
    event("accepted")
    assert isinstance(opts, dict) and set(opts) <= allowed, f"{opts!r} accepted"
    if "floor" in opts:
        assert opts["floor"] in (1, 2, 3) and type(opts["floor"]) in (int, np.int64)
    if which != "wrapper":
        env.core.check_state(np.frombuffer(env.get_state().state, env.core.state_dtype)[0])
