"""Action and observation layouts declared once (``envs/core/layout.py``).

Checks the layout type itself (offsets contiguous, names unique, decode
round trips, the markdown tables, errors on bad declarations), that each
game's declared layouts give exactly the constants, names and offsets the
games had before they were declared as data (recorded below from the code
of commit d305a7e for Unbroken and Dungeon Crawler, of 355e199 for Dungeon
Kart and Carl: changing one changes what saved models and the golden
trajectories mean), that the game READMEs carry the generated tables, and
that played games keep every observation column inside its block's
declared value range.
"""

from __future__ import annotations

import hashlib
import importlib

import numpy as np
import pytest

from dungeonrl.envs.core.authoring import layout_doc
from dungeonrl.envs.core.layout import ActionLayout, ObsLayout, act, block

GAMES = ("unbroken", "dungeon_crawler", "dungeon_kart", "dcc_unstoppable")

# ---------------------------------------------------------------------------------
# the layouts before this change (recorded from the hand-written code)
# ---------------------------------------------------------------------------------
#: unbroken: every A_* constant and NUM_ACTIONS before the change
OLD_UNB_ACTIONS = {
    "A_FOCUS": 0,
    "A_INSPIRE": 1,
    "A_PLAN": 2,
    "A_CRAFT0": 3,
    "A_DOWNGRADE": 5,
    "A_ORIENTEER": 6,
    "A_SCOUT": 7,
    "A_FIGHT": 8,
    "A_EXPLORE": 9,
    "A_RESOLVE0": 10,
    "A_REST0": 18,
    "A_TRICK": 26,
    "A_BATTLE": 27,
    "A_ATTACK0": 28,
    "A_SKIP": 32,
    "A_PASS": 33,
    "A_SKILL0": 34,
    "A_CHAR0": 66,
    "A_MON0": 69,
    "A_KEEP0": 71,
    "A_EAT0": 73,
    "NUM_ACTIONS": 80,
}
OLD_UNB_OBS = {
    "O_PHASE": 0,
    "O_LEVEL": 9,
    "O_DIFF": 13,
    "O_CHAR": 16,
    "O_RES": 20,
    "O_TIME": 28,
    "O_TSMALL": 29,
    "O_USES": 30,
    "O_WEAPON": 31,
    "O_WSTACK": 38,
    "O_WASIDE": 39,
    "O_WASIDE_R": 40,
    "O_SKILL": 41,
    "O_CACT": 73,
    "O_CWAIT": 83,
    "O_CTOK": 93,
    "O_CRND": 103,
    "O_MREV": 113,
    "O_MON": 114,
    "O_MARM": 138,
    "O_MARMX": 139,
    "O_MHP": 140,
    "O_MHPX": 141,
    "O_DEF": 142,
    "O_AMB": 143,
    "O_INB": 144,
    "O_ROUND": 145,
    "O_COMMIT": 146,
    "O_COMMITN": 147,
    "O_RBONUS": 148,
    "O_CARD": 149,
    "O_OFFER": 341,
    "O_ROLL": 405,
    "O_WIN": 411,
    "O_PPOW": 422,
    "O_HUNGER": 423,
    "O_EDECK": 424,
    "O_EDISC": 425,
    "O_SDECK": 426,
    "O_STEP": 427,
    "OBS_SIZE": 428,
}
OLD_UNB_FEATURES = (
    ("phase", 0, 9),
    ("level", 9, 4),
    ("difficulty", 13, 3),
    ("character", 16, 4),
    ("resource", 20, 8),
    ("time", 28, 1),
    ("time_paid_in_small", 29, 1),
    ("ability_uses", 30, 1),
    ("weapon", 31, 7),
    ("weapon_stack", 38, 1),
    ("weapon_aside", 39, 1),
    ("weapon_aside_rounds", 40, 1),
    ("skill_owned", 41, 32),
    ("condition_active", 73, 10),
    ("condition_waiting", 83, 10),
    ("condition_tokens", 93, 10),
    ("condition_rounds", 103, 10),
    ("monster_revealed", 113, 1),
    ("monster", 114, 24),
    ("monster_armor", 138, 1),
    ("monster_armor_max", 139, 1),
    ("monster_health", 140, 1),
    ("monster_health_max", 141, 1),
    ("monster_defend", 142, 1),
    ("ambushed", 143, 1),
    ("in_battle", 144, 1),
    ("round", 145, 1),
    ("commit_next", 146, 1),
    ("commit_now", 147, 1),
    ("reveal_bonus", 148, 1),
    ("card", 149, 192),
    ("skill_offer", 341, 64),
    ("monster_roll", 405, 6),
    ("response_window", 411, 11),
    ("pending_attack_power", 422, 1),
    ("hunger_requirement", 423, 1),
    ("encounter_deck_size", 424, 1),
    ("encounter_discard_size", 425, 1),
    ("skill_deck_size", 426, 1),
    ("step_fraction", 427, 1),
)
OLD_UNB_ACTION_NAMES = (
    "focus",
    "inspiration",
    "plan",
    "craft_0",
    "craft_1",
    "downgrade",
    "orienteer",
    "scout",
    "fight",
    "explore",
    "resolve_0",
    "resolve_1",
    "resolve_2",
    "resolve_3",
    "resolve_4",
    "resolve_5",
    "resolve_6",
    "resolve_7",
    "rest_0",
    "rest_1",
    "rest_2",
    "rest_3",
    "rest_4",
    "rest_5",
    "rest_6",
    "rest_7",
    "trick",
    "battle",
    "attack_0",
    "attack_1",
    "attack_2",
    "attack_3",
    "skip",
    "pass",
    "skill:Daring",
    "skill:Wrecker",
    "skill:Sharpened Stakes",
    "skill:Red-Hot Iron",
    "skill:Baited Trap",
    "skill:Exploit Weakness",
    "skill:Thick Skin",
    "skill:Tight Grip",
    "skill:Iron Will",
    "skill:Sidestep",
    "skill:Omen Reader",
    "skill:Keen Edge",
    "skill:Crushing Blows",
    "skill:Battle Fury",
    "skill:Looter",
    "skill:Pathfinder",
    "skill:Deep Sleeper",
    "skill:Lean Belly",
    "skill:Silver Tongue",
    "skill:Forager",
    "skill:Early Riser",
    "skill:Woodcraft",
    "skill:Smelting",
    "skill:Campfire Cook",
    "skill:Trance",
    "skill:Scholar",
    "skill:unused_26",
    "skill:unused_27",
    "skill:unused_28",
    "skill:unused_29",
    "skill:unused_30",
    "skill:unused_31",
    "character_0",
    "character_1",
    "character_2",
    "monster_0",
    "monster_1",
    "keep_0",
    "keep_1",
    "eat_0",
    "eat_1",
    "eat_2",
    "eat_3",
    "eat_4",
    "eat_5",
    "eat_6",
)
#: (count, sha256 of "\n".join(feature_names))
OLD_UNB_FEATURE_NAMES = (428, "c25ce80eccf18e71375ef293803b4f8188a5b7a70de1dc5ef44673db2ec2b194")
OLD_UNB_LAYOUT_VERSION = "91ea67162338768a"
#: dungeon_crawler: every A_* constant and NUM_ACTIONS before the change
OLD_DC_ACTIONS = {
    "A_ASSIGN0": 0,
    "A_SHIFT0": 4,
    "A_REBAL_DONE": 16,
    "A_DRAFT0": 17,
    "A_FWD0": 20,
    "A_BACK0": 36,
    "A_PLAY0": 52,
    "A_TARGET0": 84,
    "A_SLOT0": 92,
    "A_BUY0": 98,
    "A_LEAVE": 101,
    "A_EQUIP": 102,
    "A_DECLINE": 103,
    "A_FIGHT": 104,
    "A_LOOT_TAKE0": 105,
    "A_LOOT_BURN0": 111,
    "A_END": 117,
    "NUM_ACTIONS": 118,
}
OLD_DC_OBS = {
    "O_PHASE": 0,
    "O_TOACT": 13,
    "O_SEAT": 14,
    "O_NP": 22,
    "O_MYTURN": 23,
    "O_ROUND": 24,
    "O_STEP": 25,
    "O_BASE": 26,
    "O_EFF": 30,
    "O_HP": 34,
    "O_HPF": 35,
    "O_GOLD": 36,
    "O_FLOOR": 37,
    "O_SQ": 40,
    "O_VAULT": 41,
    "O_STATUS": 47,
    "O_HANDN": 55,
    "O_HAND": 56,
    "O_GEAR": 88,
    "O_MOVE": 106,
    "O_CREATE": 110,
    "O_OFKIND": 116,
    "O_OFFER": 121,
    "O_PCARD": 247,
    "O_PTGT": 279,
    "O_RIV": 287,
    "O_CB": 511,
    "O_LOOT": 535,
    "O_BOARD": 545,
    "O_FINAL": 833,
    "O_PILES": 837,
    "OBS_SIZE": 841,
}
OLD_DC_FEATURES = (
    ("phase", 0, 13),
    ("to_act", 13, 1),
    ("seat", 14, 8),
    ("num_players", 22, 1),
    ("my_turn", 23, 1),
    ("round", 24, 1),
    ("step_fraction", 25, 1),
    ("base", 26, 4),
    ("effective", 30, 4),
    ("hp", 34, 1),
    ("hp_fraction", 35, 1),
    ("gold", 36, 1),
    ("floor", 37, 3),
    ("square", 40, 1),
    ("vault", 41, 6),
    ("status", 47, 8),
    ("hand_size", 55, 1),
    ("hand", 56, 32),
    ("gear", 88, 18),
    ("move", 106, 4),
    ("creation", 110, 6),
    ("offer_kind", 116, 5),
    ("offer", 121, 126),
    ("pending_card", 247, 32),
    ("pending_target", 279, 8),
    ("rival", 287, 224),
    ("combat", 511, 24),
    ("loot", 535, 10),
    ("board", 545, 288),
    ("final_boss", 833, 4),
    ("piles", 837, 4),
)
OLD_DC_ACTION_NAMES = (
    "assign:atk",
    "assign:def",
    "assign:hp",
    "assign:spd",
    "shift:atk>def",
    "shift:atk>hp",
    "shift:atk>spd",
    "shift:def>atk",
    "shift:def>hp",
    "shift:def>spd",
    "shift:hp>atk",
    "shift:hp>def",
    "shift:hp>spd",
    "shift:spd>atk",
    "shift:spd>def",
    "shift:spd>hp",
    "rebalance_done",
    "draft_0",
    "draft_1",
    "draft_2",
    "forward_1",
    "forward_2",
    "forward_3",
    "forward_4",
    "forward_5",
    "forward_6",
    "forward_7",
    "forward_8",
    "forward_9",
    "forward_10",
    "forward_11",
    "forward_12",
    "forward_13",
    "forward_14",
    "forward_15",
    "forward_16",
    "back_1",
    "back_2",
    "back_3",
    "back_4",
    "back_5",
    "back_6",
    "back_7",
    "back_8",
    "back_9",
    "back_10",
    "back_11",
    "back_12",
    "back_13",
    "back_14",
    "back_15",
    "back_16",
    "play:Ambush",
    "play:Assassinate",
    "play:Battle Cry",
    "play:Iron Will",
    "play:Coward's Escape",
    "play:Bodyguard",
    "play:Dungeon Sprint",
    "play:Shadow Step",
    "play:Recall",
    "play:Pickpocket",
    "play:Cursed Blade",
    "play:Enchant Weapon",
    "play:Vault",
    "play:Hidden Cache",
    "play:Strip",
    "play:Bloodrage",
    "play:Turtle Shell",
    "play:Poison",
    "play:Weakness",
    "play:Antidote",
    "play:Minor Potion",
    "play:Healing Potion",
    "play:Greater Potion",
    "play:Elixir of Life",
    "play:Potion of Strength",
    "play:Summon Mob",
    "play:Dungeon Reshuffle",
    "play:Healing Well Card",
    "play:unused_28",
    "play:unused_29",
    "play:unused_30",
    "play:unused_31",
    "target_seat_0",
    "target_seat_1",
    "target_seat_2",
    "target_seat_3",
    "target_seat_4",
    "target_seat_5",
    "target_seat_6",
    "target_seat_7",
    "slot:weapon",
    "slot:gloves",
    "slot:helmet",
    "slot:chest",
    "slot:pants",
    "slot:boots",
    "buy_0",
    "buy_1",
    "buy_2",
    "leave",
    "equip",
    "decline",
    "fight",
    "loot_take:weapon",
    "loot_take:gloves",
    "loot_take:helmet",
    "loot_take:chest",
    "loot_take:pants",
    "loot_take:boots",
    "loot_discard:weapon",
    "loot_discard:gloves",
    "loot_discard:helmet",
    "loot_discard:chest",
    "loot_discard:pants",
    "loot_discard:boots",
    "end_turn",
)
OLD_DC_FEATURE_NAMES = (841, "4ad0ad4ad4ee7dfc6595b322422c0d685905f0ad03c9d7d902dc498081c2b35c")
OLD_DC_LAYOUT_VERSION = "22f8a56aa3fd92e7"

#: Dungeon Kart and Carl: the offsets, counts and blocks before the change
#: (355e199); their action and feature names changed format with it
#: (``pick[0]`` -> ``pick_0``, ``hand[3]`` -> ``hand_3``, ``own.hand[36]`` ->
#: ``own.hand:h1:core_present``), so the names are pinned as (count, sha256
#: of "\n".join(names)) recorded at the change
#: kart: every A_* constant and NUM_ACTIONS before the change
OLD_KART_ACTIONS = {
    "A_PICK": 0,
    "A_SPEED": 9,
    "A_FACE": 12,
    "A_MOVE": 18,
    "A_TURN_L": 19,
    "A_TURN_R": 20,
    "A_DRIFT_L": 21,
    "A_DRIFT_R": 22,
    "A_BUMP": 23,
    "A_BRAKE": 44,
    "A_SPELL": 45,
    "A_POWER": 53,
    "A_END": 69,
    "A_PASS": 70,
    "NUM_ACTIONS": 71,
}

OLD_KART_OBS = {
    "O_PHASE": 0,
    "O_TOACT": 7,
    "O_NP": 8,
    "O_ROUND": 9,
    "O_FINAL": 10,
    "O_TKIND": 11,
    "O_FACING": 13,
    "O_SPEED": 19,
    "O_MP": 25,
    "O_COINS": 26,
    "O_MARKER": 27,
    "O_SPELL": 28,
    "O_POWERS": 44,
    "O_RACER": 48,
    "O_ABIL": 58,
    "O_DMP": 64,
    "O_DPEN": 70,
    "O_TURN": 74,
    "O_PROG": 86,
    "O_PLACE": 90,
    "O_OFFER": 91,
    "O_PATCH": 181,
    "O_RIV": 3353,
    "OBS_SIZE": 3633,
}
OLD_KART_FEATURES = (
    ("phase", 0, 7),
    ("to_act", 7, 1),
    ("num_players", 8, 1),
    ("round", 9, 1),
    ("final_round", 10, 1),
    ("track_kind", 11, 2),
    ("facing", 13, 6),
    ("speed", 19, 6),
    ("mp", 25, 1),
    ("coins", 26, 1),
    ("marker", 27, 1),
    ("spell", 28, 16),
    ("powers", 44, 4),
    ("racer", 48, 10),
    ("abilities", 58, 6),
    ("dash_mp", 64, 6),
    ("dash_pen", 70, 4),
    ("turn", 74, 12),
    ("progress", 86, 4),
    ("place", 90, 1),
    ("offer", 91, 90),
    ("patch", 181, 3172),
    ("rival", 3353, 280),
)
#: record + content with the hex_static table (kartspeed: 42305b6d506a0bd2 at
#: v0), then the same record and content at v1 (spell timing, finish cost)
OLD_KART_LAYOUT_VERSION = "d08d345306edbe08"
#: carl: every A_* constant and NUM_ACTIONS before the change
OLD_CARL_ACTIONS = {
    "A_HAND0": 0,
    "A_PLAY0": 16,
    "A_EXH0": 28,
    "A_DISC0": 52,
    "A_TGT0": 68,
    "A_BUY0": 90,
    "A_SPELL_DMG": 96,
    "A_SPELL_HEAL": 97,
    "A_PLAYER0": 98,
    "A_YES": 100,
    "A_SKIP": 101,
    "A_DESCEND": 102,
    "A_PASS": 103,
    "A_END": 104,
    "A_DRAFT0": 105,
    "A_RACE0": 109,
    "A_CLASS0": 112,
    "A_PRESET": 115,
    "NUM_ACTIONS": 116,
}

OLD_CARL_OBS = {
    "OBS_SIZE": 2646,  # the decision one-hot gained "bottom_order" (DCC-125)
}
OLD_CARL_FEATURES = (  # the decision one-hot has 12 columns since DCC-125's bottom order
    ("own.present", 0, 1),
    ("own.crawler", 1, 2),
    ("own.race", 3, 9),
    ("own.class", 12, 9),
    ("own.health", 21, 1),
    ("own.mana", 22, 1),
    ("own.gold", 23, 1),
    ("own.ap", 24, 1),
    ("own.level", 25, 1),
    ("own.small", 26, 1),
    ("own.descended", 27, 2),
    ("own.main_done", 29, 1),
    ("own.deck_n", 30, 1),
    ("own.hand_n", 31, 1),
    ("own.disc_n", 32, 1),
    ("own.play_n", 33, 1),
    ("own.bf_n", 34, 1),
    ("own.sacrifice_owed", 35, 1),
    ("own.stairs_in_deck", 36, 1),
    ("own.defeats", 37, 1),
    ("own.turn_defeats", 38, 1),
    ("own.is_actor", 39, 1),
    ("own.hand", 40, 576),
    ("own.play", 616, 264),
    ("own.battlefield", 880, 160),
    ("own.ondeck", 1040, 16),
    ("mate.present", 1056, 1),
    ("mate.crawler", 1057, 2),
    ("mate.race", 1059, 9),
    ("mate.class", 1068, 9),
    ("mate.health", 1077, 1),
    ("mate.mana", 1078, 1),
    ("mate.gold", 1079, 1),
    ("mate.ap", 1080, 1),
    ("mate.level", 1081, 1),
    ("mate.small", 1082, 1),
    ("mate.descended", 1083, 2),
    ("mate.main_done", 1085, 1),
    ("mate.deck_n", 1086, 1),
    ("mate.hand_n", 1087, 1),
    ("mate.disc_n", 1088, 1),
    ("mate.play_n", 1089, 1),
    ("mate.bf_n", 1090, 1),
    ("mate.sacrifice_owed", 1091, 1),
    ("mate.stairs_in_deck", 1092, 1),
    ("mate.defeats", 1093, 1),
    ("mate.turn_defeats", 1094, 1),
    ("mate.is_actor", 1095, 1),
    ("mate.hand", 1096, 576),
    ("mate.play", 1672, 264),
    ("mate.battlefield", 1936, 160),
    ("mate.ondeck", 2096, 16),
    ("phase", 2112, 6),
    ("decision", 2118, 12),
    ("i_decide", 2130, 1),
    ("pending_op", 2131, 10),
    ("pending_n", 2141, 1),
    ("pending_spell", 2142, 1),
    ("pending_left", 2143, 1),
    ("draft", 2144, 88),
    ("race_offer", 2232, 24),
    ("class_offer", 2256, 24),
    ("market", 2280, 156),
    ("core_deck_top", 2436, 120),
    ("core_deck_n", 2556, 6),
    ("floor", 2562, 3),
    ("mode", 2565, 2),
    ("difficulty", 2567, 4),
    ("danger_pos", 2571, 1),
    ("danger_level", 2572, 1),
    ("spaces_left", 2573, 1),
    ("ahead_level", 2574, 8),
    ("ahead_effect", 2582, 16),
    ("ahead_skull", 2598, 8),
    ("space_queue", 2606, 3),
    ("quest_active", 2609, 1),
    ("quest_part", 2610, 1),
    ("quest_progress", 2611, 1),
    ("quest_req", 2612, 5),
    ("quest_effect", 2617, 5),
    ("quests_done", 2622, 1),
    ("bosses", 2623, 4),
    ("stairs_need", 2627, 5),
    ("turn", 2632, 1),
    ("threat_deck_n", 2633, 1),
    ("upgrade_deck_n", 2634, 1),
    ("dungeon_n", 2635, 1),
    ("achievements", 2636, 4),
    ("extras", 2640, 5),
    ("passes", 2645, 1),
)
#: record + content after the balance pass (floors, threats) at v0 (74f9d7cc4ff78ffb),
#: then the same record and content at v1 (DCC-125 bottom order, no Cleanup after the stairs)
OLD_CARL_LAYOUT_VERSION = "9e830730d5d26067"
OLD_KART_ACTION_NAMES = (71, "5cdc175ac850fe2f83974f567fcdedf27755a6d004869a11ab8457ad18361ceb")
OLD_KART_FEATURE_NAMES = (3633, "995f54ab91bde7f2c1d0ac48b77e514282830e69d8cacbd7c50e228325455d3f")
OLD_CARL_ACTION_NAMES = (116, "64519c30cf1fcc3c12417a8d7038ce6d528b36a9e039da7bffcdf8dd509239d8")
OLD_CARL_FEATURE_NAMES = (2646, "ca0177c710b287aac9c3de940eaac6bfdfe190b57b2ecc97377b77ffc943d22e")

OLD = {
    "unbroken": (
        OLD_UNB_ACTIONS,
        OLD_UNB_OBS,
        OLD_UNB_FEATURES,
        OLD_UNB_ACTION_NAMES,
        OLD_UNB_FEATURE_NAMES,
        OLD_UNB_LAYOUT_VERSION,
    ),
    "dungeon_crawler": (
        OLD_DC_ACTIONS,
        OLD_DC_OBS,
        OLD_DC_FEATURES,
        OLD_DC_ACTION_NAMES,
        OLD_DC_FEATURE_NAMES,
        OLD_DC_LAYOUT_VERSION,
    ),
    "dungeon_kart": (
        OLD_KART_ACTIONS,
        OLD_KART_OBS,
        OLD_KART_FEATURES,
        OLD_KART_ACTION_NAMES,
        OLD_KART_FEATURE_NAMES,
        OLD_KART_LAYOUT_VERSION,
    ),
    "dcc_unstoppable": (
        OLD_CARL_ACTIONS,
        OLD_CARL_OBS,
        OLD_CARL_FEATURES,
        OLD_CARL_ACTION_NAMES,
        OLD_CARL_FEATURE_NAMES,
        OLD_CARL_LAYOUT_VERSION,
    ),
}


def _sha(names) -> str:
    return hashlib.sha256("\n".join(names).encode()).hexdigest()


def _game(name):
    consts = importlib.import_module(f"dungeonrl.envs.{name}.consts")
    enc = importlib.import_module(f"dungeonrl.encoders.{name}")
    spec = importlib.import_module(f"dungeonrl.envs.{name}").SPEC
    return consts, enc, spec


# ---------------------------------------------------------------------------------
# the games' layouts are the old ones, value for value
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_constants_and_names_are_unchanged(name):
    consts, enc, spec = _game(name)
    old_a, old_o, old_feat, old_names, (n_feat, feat_sha), old_version = OLD[name]
    got_a = {k: getattr(consts, k) for k in dir(consts) if k.startswith("A_")}
    got_a["NUM_ACTIONS"] = consts.NUM_ACTIONS
    assert got_a == old_a
    got_o = {
        k: getattr(enc, k)
        for k in dir(enc)
        if k.startswith("O_") and isinstance(getattr(enc, k), int)
    }
    got_o["OBS_SIZE"] = enc.OBS_SIZE
    assert got_o == old_o
    # numba folds module-level ints: the constants must stay plain Python ints
    assert all(type(v) is int for v in (*got_a.values(), *got_o.values()))
    assert tuple(tuple(x) for x in enc.FEATURES) == old_feat
    if isinstance(old_names[0], int):  # (count, sha256)
        assert (len(spec.action_names), _sha(spec.action_names)) == old_names
    else:
        assert spec.action_names == old_names
    assert spec.num_actions == consts.NUM_ACTIONS == len(spec.action_names)
    assert len(spec.feature_names) == n_feat == spec.obs_size
    assert _sha(spec.feature_names) == feat_sha
    # the record and content part of the layout version is unchanged (the
    # full version also hashes the rules code, which changes with any rule)
    from dungeonrl.envs.core.spec import layout_version

    game = __import__(f"dungeonrl.envs.{name}", fromlist=["state", "core"])
    content = game.core.load_content()
    assert (
        layout_version(game.state.STATE_DTYPE, content.digest, game.core.GAME.version)
        == old_version
    )


def test_unbroken_observation_bounds_are_unchanged():
    consts, enc, spec = _game("unbroken")
    assert (spec.obs_low, spec.obs_high) == (-1.0, 20.0)
    assert (enc.OBSERVATION.low, enc.OBSERVATION.high) == (-1.0, 20.0)
    # the crawler's Box stays unbounded (its stats, HP and gold have no cap)
    assert (_game("dungeon_crawler")[2].obs_low, _game("dungeon_crawler")[2].obs_high) == (
        -float("inf"),
        float("inf"),
    )


@pytest.mark.parametrize("name", GAMES)
def test_every_offset_constant_is_a_declared_start(name):
    consts, enc, _ = _game(name)
    starts = {consts.ACTIONS.start(r.name) for r in consts.ACTIONS}
    for k in dir(consts):
        if k.startswith("A_"):
            assert getattr(consts, k) in starts, k
    offs = {enc.OBSERVATION.offset(b.name) for b in enc.OBSERVATION}
    for k in dir(enc):
        if k.startswith("O_") and isinstance(getattr(enc, k), int):
            assert getattr(enc, k) in offs, k


# ---------------------------------------------------------------------------------
# layout invariants, on the games' layouts
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_action_ranges_are_contiguous_and_round_trip(name):
    consts, _, spec = _game(name)
    L = consts.ACTIONS
    nxt = 0
    for r in L:
        rg = L.range_of(r.name)
        assert rg.start == nxt == L.start(r.name) and len(rg) == r.count
        nxt = rg.stop
    assert nxt == L.size == len(L) == consts.NUM_ACTIONS
    names = L.names(_content(name))
    assert len(set(names)) == len(names) == L.size
    seen = set()
    for i in range(L.size):
        rname, k = L.decode(i)
        assert L.range_of(rname)[k] == i == L.index(rname, k)
        seen.add(rname)
        assert names[i].startswith(rname)
    assert seen == {r.name for r in L}
    for bad in (-1, L.size, True):
        with pytest.raises(IndexError):
            L.decode(bad)


@pytest.mark.parametrize("name", GAMES)
def test_feature_blocks_are_contiguous_and_round_trip(name):
    _, enc, spec = _game(name)
    L = enc.OBSERVATION
    nxt = 0
    for b in L:
        rg = L.range_of(b.name)
        assert rg.start == nxt == L.offset(b.name) and len(rg) == b.size
        assert b.low <= b.high
        nxt = rg.stop
    assert nxt == L.size == enc.OBS_SIZE
    names = L.names()
    assert names == spec.feature_names == enc.feature_names()
    assert len(set(names)) == len(names)
    for c in range(L.size):
        bname, k = L.decode(c)
        assert L.range_of(bname)[k] == c
    with pytest.raises(IndexError):
        L.decode(L.size)


def _content(name):
    return importlib.import_module(f"dungeonrl.envs.{name}").load_content()


def test_named_columns_sit_where_the_encoder_writes_them():
    # spot checks that labels follow the block's axes (row-major)
    _, ue, us = _game("unbroken")
    assert us.feature_names[ue.O_CARD + 2 * ue.N_CARD + 1] == "card2:time_value"
    assert us.feature_names[ue.O_RES + 4] == "resource:food"
    _, de, ds = _game("dungeon_crawler")
    assert ds.feature_names[de.O_GEAR + de.GEAR * 2 + 1] == "gear:helmet:tier"
    assert ds.feature_names[de.O_BOARD + 3 * (1 * 32 + 5) + 2] == "board:f2:sq5:mob_kind"
    assert ds.feature_names[de.O_RIV + de.RIV * 2] == "rival3:present"
    assert ds.feature_names[de.O_CB + 16] == "combat:rival_opponent:0"
    _, ke, ks = _game("dungeon_kart")
    assert ks.feature_names[ke.O_PATCH + ke.CENTRE * ke.HEXF + ke.H_ME] == "patch:0,0:me"
    assert ks.feature_names[ke.O_RIV + 2 * ke.RIVF + 9] == "rival3:rel_q"
    assert ks.feature_names[ke.O_TURN + 11] == "turn:finished"
    assert ks.feature_names[ke.O_OFFER + 2 * 10 + 4] == "offer:slot2:item4"
    _, ce, cs = _game("dcc_unstoppable")
    assert ce.SEAT_SIZE == 1056  # the teammate's blocks start there
    assert cs.feature_names[ce.SEAT_SIZE] == "mate.present"
    hand = ce.OBSERVATION.offset("own.hand")
    assert cs.feature_names[hand + 1 * 36 + ce.CORE_F + 1] == "own.hand:h1:threat_attack"
    market = ce.OBSERVATION.offset("market")
    assert cs.feature_names[market + 2 * ce.UPG_F + 24] == "market:m2:kw_fast"


# ---------------------------------------------------------------------------------
# the layout type on its own
# ---------------------------------------------------------------------------------
def _toy():
    return ActionLayout(
        "toy",
        [
            act("roll", 1, "roll the die"),
            act("move", 3, "move K squares", first=1),
            act("pick", ("red", "blue"), "pick the K gem"),
            act("play", 3, "play card K", content="cards"),
        ],
    )


class _Content:
    cards = ("fireball", "shield")


def test_toy_layout_names_decode_and_labels():
    L = _toy()
    assert L.size == 9 and [L.start(r.name) for r in L] == [0, 1, 4, 6]
    assert L.starts() == (0, 1, 4, 6)
    assert L.names(_Content()) == (
        "roll",
        "move_1",
        "move_2",
        "move_3",
        "pick:red",
        "pick:blue",
        "play:fireball",
        "play:shield",
        "play:unused_2",
    )
    assert L.decode(5) == ("pick", 1) and L.decode(8) == ("play", 2)
    assert L.label(2) == "move 2 squares"
    assert L.label(5) == "pick the blue gem"
    assert L.label(6, _Content()) == "play card fireball"
    assert L.doc(0) == "roll the die"
    with pytest.raises(ValueError, match="content"):
        L.names()  # a content range needs the content
    with pytest.raises(KeyError, match="no action range 'jump'"):
        L.start("jump")
    with pytest.raises(IndexError):
        L.index("move", 3)


def test_bad_declarations_are_refused():
    with pytest.raises(ValueError, match="declared twice"):
        ActionLayout("t", [act("a", 1, "x"), act("a", 2, "y")])
    with pytest.raises(ValueError, match="at least one"):
        act("a", 0, "x")
    with pytest.raises(ValueError, match="repeats an item"):
        act("a", ("x", "x"), "doc")
    with pytest.raises(ValueError, match="one-line"):
        act("a", 1, "two\nlines")
    with pytest.raises(ValueError, match="without spaces"):
        act("a b", 1, "x")
    with pytest.raises(ValueError, match="do not fit"):
        block("b", (2, 3), "doc", labels=(("a", "b"), ("c",)))
    with pytest.raises(ValueError, match="declared twice"):
        ObsLayout("t", [block("b", 1, "x"), block("b", 1, "y")])
    with pytest.raises(ValueError, match="low"):
        block("b", 1, "x", low=2.0, high=1.0)
    with pytest.raises(ValueError, match="names repeat"):
        ObsLayout(
            "t",
            [
                block("a", 2, "x", labels=("k", "l")),
                block("b", (1, 1), "x", labels=(("a",), ("k",)), prefix=False),
            ],
        ).names()
    with pytest.raises(ValueError, match="content lists 3"):
        ActionLayout("t", [act("p", 2, "x", content="cards")]).names(
            type("C", (), {"cards": ("a", "b", "c")})()
        )


def test_toy_observation_names_and_table():
    L = ObsLayout(
        "toy",
        [
            block("flag", 1, "a flag"),
            block("hp", 2, "HP / 10", high=float("inf")),
            block("grid", (2, 2), "cells", labels=(("r0", "r1"), ("a", "b"))),
            block("slot", (2, 2), "slots", labels=(("s0", "s1"), ("x", "y")), prefix=False),
        ],
    )
    assert L.names() == (
        "flag",
        "hp:0",
        "hp:1",
        "grid:r0:a",
        "grid:r0:b",
        "grid:r1:a",
        "grid:r1:b",
        "s0:x",
        "s0:y",
        "s1:x",
        "s1:y",
    )
    assert L.features == (("flag", 0, 1), ("hp", 1, 2), ("grid", 3, 4), ("slot", 7, 4))
    assert (L.low, L.high) == (0.0, float("inf"))
    lo, hi = L.bounds()
    assert lo.shape == hi.shape == (11,) and hi[1] == float("inf") and hi[0] == 1.0
    table = L.markdown().splitlines()
    assert table[0] == "| columns | block | shape | range | meaning |"
    assert table[2] == "| 0 | `flag` | 1 | [0, 1] | a flag |"
    assert table[3] == "| 1–2 | `hp` | 2 | [0, ∞] | HP / 10 |"
    assert table[4] == "| 3–6 | `grid` | 2 × 2 | [0, 1] | cells |"
    assert len(table) == 2 + 4 + 2  # then a blank line and the compact observation's note
    assert table[6] == "" and table[7].startswith("The 11 columns are float32 (44 bytes).")
    assert 'obs_dtype="float16"' in table[7] and "22 bytes" in table[7]


def test_action_table_has_one_row_per_range():
    table = _toy().markdown().splitlines()
    assert table[:2] == ["| index | actions | meaning |", "|---|---|---|"]
    assert table[2:] == [
        "| 0 | `roll` | roll the die |",
        "| 1–3 | `move_1` … `move_3` | move K squares |",
        "| 4–5 | `pick:red`, `pick:blue` | pick the K gem |",
        "| 6–8 | `play:<card>` | play card K |",
    ]


# ---------------------------------------------------------------------------------
# the game docs carry the generated tables
# ---------------------------------------------------------------------------------
def _readme(name):
    import os

    return os.path.join(
        os.path.dirname(importlib.import_module(f"dungeonrl.envs.{name}").__file__), "README.md"
    )


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("what", ("actions", "observation"))
def test_readme_tables_are_the_generated_ones(name, what):
    with open(_readme(name), encoding="utf-8") as f:
        text = f.read()
    have = layout_doc.readme_table(text, what)
    assert have is not None, f"{name} README has no {what} table markers"
    assert have == layout_doc.markdown(name, what), (
        f"stale {what} table in {_readme(name)}: run "
        "python -m dungeonrl.envs.core.authoring.layout_doc "
        f"--markdown {name} --write {_readme(name)}"
    )


def test_doc_command_prints_checks_and_writes(tmp_path, capsys):
    assert layout_doc.main(["--markdown", "unbroken", "--what", "actions"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == layout_doc.markdown("unbroken", "actions")
    assert "| 73–79 | `eat_0` … `eat_6` | Hunger Step: eat K Food |" in out
    page = tmp_path / "README.md"
    begin, end = layout_doc.BEGIN.format(what="actions"), layout_doc.END.format(what="actions")
    page.write_text(f"# doc\n\n{begin}\n| old |\n{end}\n\nafter\n", encoding="utf-8")
    assert (
        layout_doc.main(["--markdown", "unbroken", "--what", "actions", "--check", str(page)]) == 1
    )
    assert (
        layout_doc.main(["--markdown", "unbroken", "--what", "actions", "--write", str(page)]) == 0
    )
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# doc\n\n") and text.endswith(f"{end}\n\nafter\n")
    assert layout_doc.readme_table(text, "actions") == layout_doc.markdown("unbroken", "actions")
    assert (
        layout_doc.main(["--markdown", "unbroken", "--what", "actions", "--check", str(page)]) == 0
    )
    assert layout_doc.main(["--markdown", "no_such_game"]) == 2


# ---------------------------------------------------------------------------------
# labels of the play CLI
# ---------------------------------------------------------------------------------
def test_play_labels_come_from_the_layout():
    from dungeonrl.envs import dcc_unstoppable, dungeon_crawler, dungeon_kart, unbroken

    core = unbroken.make_core()
    st = core.alloc(1)
    core.reset(st, np.array([5], np.uint64))
    C = importlib.import_module("dungeonrl.envs.unbroken.consts")
    assert core.action_label(st[0], C.A_EAT0 + 3) == "Hunger Step: eat 3 Food"
    assert core.action_label(st[0], C.A_SKIP) == "skip the battle turn"
    for a in range(C.NUM_ACTIONS):  # every index has a label, none fails
        assert core.action_label(st[0], a)
    dcore = dungeon_crawler.make_core(num_players=3)
    ds = dcore.alloc(1)
    dcore.reset(ds, np.array([5], np.uint64))
    D = importlib.import_module("dungeonrl.envs.dungeon_crawler.consts")
    assert dcore.action_label(ds[0], D.A_FWD0 + 2) == "walk forward 3 squares"
    assert dcore.action_label(ds[0], D.A_LOOT_BURN0 + 1) == (
        "take the slain rival's slot-gloves item and discard it"
    )
    for a in range(D.NUM_ACTIONS):
        assert dcore.action_label(ds[0], a)
    kcore = dungeon_kart.make_core(num_players=3)
    ks = kcore.alloc(1)
    kcore.reset(ks, np.array([5], np.uint64))
    K = importlib.import_module("dungeonrl.envs.dungeon_kart.consts")
    offer = [int(x) for x in ks[0]["offer"][: int(ks[0]["offer_n"])] if x >= 0]
    assert kcore.action_label(ks[0], K.A_PICK + 2) == (
        f"take the Racer {kcore.content.racer_names[offer[2]]}"
    )
    assert (
        K.ACTIONS.label(K.A_PICK + 2) == "setup draft: take offer slot 2 (a Racer or a dashboard)"
    )
    assert kcore.action_label(ks[0], K.A_BRAKE) == K.ACTIONS.doc(K.A_BRAKE)
    assert kcore.spec.action_names[K.A_POWER + K.MAX_P + 2] == "power:lower_next2"
    for a in range(K.NUM_ACTIONS):
        assert kcore.action_label(ks[0], a)
    ccore = dcc_unstoppable.make_core(num_players=2)
    cst = ccore.alloc(1)
    ccore.reset(cst, np.array([5], np.uint64))
    U = importlib.import_module("dungeonrl.envs.dcc_unstoppable.consts")
    assert ccore.spec.action_names[U.A_TGT0 + U.TSLOTS + U.ONDECK] == "target:p1_ondeck"
    assert ccore.spec.action_names[U.A_EXH0 + 3] == "exhaust:ally1_ability1"
    assert ccore.action_label(cst[0], U.A_END) == "end your Main Phase"
    for a in range(U.NUM_ACTIONS):
        assert ccore.action_label(cst[0], a)


# ---------------------------------------------------------------------------------
# played games stay inside the declared value ranges
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("unbroken", {"character": "random"}),
        ("dungeon_crawler", {"num_players": 4}),
        ("dungeon_kart", {"num_players": 5}),
        ("dcc_unstoppable", {"num_players": 2}),
    ],
)
def test_observations_stay_in_the_declared_ranges(name, kwargs):
    mod = importlib.import_module(f"dungeonrl.envs.{name}")
    core = mod.make_core(**kwargs)
    enc = importlib.import_module(f"dungeonrl.encoders.{name}")
    lo, hi = enc.OBSERVATION.bounds()
    n, steps = 32, 400
    rng = np.random.default_rng(7)
    st = core.alloc(n)
    core.reset(st, np.arange(n, dtype=np.uint64) + 11)
    seats = core.num_players
    obs = np.zeros((n, enc.OBS_SIZE), np.float32)
    masks = np.zeros((n, core.spec.num_actions), np.int8)
    rew = np.zeros((n, seats), np.float32)
    te, tr, il = (np.zeros(n, bool) for _ in range(3))
    lo_seen = np.full(enc.OBS_SIZE, np.inf)
    hi_seen = np.full(enc.OBS_SIZE, -np.inf)
    for t in range(steps):
        for p in range(seats):
            core.observe(st, np.full(n, p, np.int64), obs)
            lo_seen = np.minimum(lo_seen, obs.min(0))
            hi_seen = np.maximum(hi_seen, obs.max(0))
        core.legal_mask(st, masks)
        done = ~masks.any(1)
        if done.any():  # finished games start again
            fresh = st[done]
            core.reset(fresh, np.arange(done.sum(), dtype=np.uint64) + 1000 + t)
            st[done] = fresh
            core.legal_mask(st, masks)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)
        core.step(st, acts, rew, te, tr, il)
        assert not il.any()
    bad = np.flatnonzero((lo_seen < lo) | (hi_seen > hi))
    names = core.spec.feature_names
    assert not len(bad), [(names[c], lo_seen[c], hi_seen[c], lo[c], hi[c]) for c in bad[:10]]
    # the check saw the games move: most blocks took more than one value
    moved = sum(
        1
        for b in enc.OBSERVATION
        if (
            hi_seen[enc.OBSERVATION.range_of(b.name)] > lo_seen[enc.OBSERVATION.range_of(b.name)]
        ).any()
    )
    assert moved >= len(enc.OBSERVATION.blocks) // 2
