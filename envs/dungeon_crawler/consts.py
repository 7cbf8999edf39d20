"""Fixed numbering shared by the Dungeon Crawler content compiler, kernels,
encoder, heuristic and tests: stats, slots, tiers, square kinds, card
effects, phases and the flat action layout. Plain ints so numba folds them."""

# --- seats, stats, slots, tiers ------------------------------------------------
MAX_P = 8
MIN_P = 2
NSTAT = 4
ST_ATK, ST_DEF, ST_HP, ST_SPD = range(4)
STAT_NAMES = ("atk", "def", "hp", "spd")
NSLOT = 6
SL_WEAPON, SL_GLOVES, SL_HELMET, SL_CHEST, SL_PANTS, SL_BOOTS = range(6)
SLOT_NAMES = ("weapon", "gloves", "helmet", "chest", "pants", "boots")
NTIER = 4
TIER_NAMES = ("common", "uncommon", "rare", "legendary")
TIER_COUNTS = (12, 9, 5, 1)
PER_SLOT = 27
NITEM = NSLOT * PER_SLOT  # 162

# --- creation ------------------------------------------------------------------
NROLLS = 4
ROLL_BASE = 6  # each roll is 6 + 1d4
REBAL_MAX = 4  # points that may be moved out of stats in total
REBAL_SHIFTS = 2 * REBAL_MAX  # shift actions a hero may take (see rules.legal_mask)
DRAFT_N = 3
#: combat rounds counted (the counter saturates here; a combat cannot last
#: this long: every round costs a fighter at least 1 HP, and healing is finite)
CB_ROUND_MAX = 10000
#: the episode statistics deaths / kills (int16) saturate here
STAT_COUNT_MAX = 2**15 - 1

# --- board -----------------------------------------------------------------------
NFLOOR = 3
MAX_SQ = 32  # squares per floor at most
(SQ_EMPTY, SQ_START, SQ_CHEST, SQ_MOB, SQ_SHOP, SQ_ARMORY, SQ_BOSS, SQ_STAIRS, SQ_LAIR) = range(9)
NSQKIND = 9
SQ_NAMES = ("empty", "start", "chest", "mob", "shop", "armory", "boss", "stairs", "lair")
SQ_CHARS = ".SCM$AB>X"
MOBS_PER_FLOOR = 2
NMOB = NFLOOR * MOBS_PER_FLOOR  # 6 mob types, floor-major
NFINAL = 3

# --- action cards ----------------------------------------------------------------
MAX_CARDS = 32  # card types (action slots); content uses <= this
DECK_MAX = 96  # action cards (copies) at most
HAND_MAX = 5
OFFER_MAX = 3
(
    E_AMBUSH,
    E_ASSASSINATE,
    E_BUFF,
    E_ESCAPE,
    E_BODYGUARD,
    E_SPRINT,
    E_SHADOW,
    E_RECALL,
    E_PICKPOCKET,
    E_CURSE,
    E_ENCHANT,
    E_VAULT,
    E_CACHE,
    E_STRIP,
    E_POISON,
    E_WEAKNESS,
    E_ANTIDOTE,
    E_HEAL,
    E_SUMMON,
    E_RESHUFFLE,
    E_WELL,
) = range(21)
NEFFECT = 21
EFFECT_NAMES = (
    "ambush",
    "assassinate",
    "combat_buff",
    "escape",
    "bodyguard",
    "sprint",
    "shadow_step",
    "recall",
    "pickpocket",
    "curse",
    "enchant",
    "vault",
    "cache",
    "strip",
    "poison",
    "weakness",
    "antidote",
    "heal",
    "summon",
    "reshuffle",
    "well",
)
K_HAND, K_IMMEDIATE = 0, 1
KIND_NAMES = ("hand", "immediate")
FAMILY_NAMES = ("combat", "movement", "gear", "stat", "potion", "event")

# --- offers ------------------------------------------------------------------------
OF_NONE, OF_DRAFT, OF_SHOP, OF_ARMORY, OF_CHEST = range(5)
OFFER_NAMES = ("none", "draft", "shop", "armory", "chest")

# --- combat opponents -------------------------------------------------------------
OPP_NONE, OPP_MOB, OPP_BOSS, OPP_FINAL, OPP_HERO, OPP_SUMMON = range(6)
OPP_NAMES = ("none", "mob", "boss", "final_boss", "hero", "summoned_mob")

# --- phases (which decision is owed, and by whom: ``actor``) ---------------------
(
    PH_ASSIGN,
    PH_REBAL,
    PH_DRAFT,
    PH_MOVE,
    PH_MAIN,
    PH_TARGET,
    PH_SLOT,
    PH_SHOP,
    PH_ARMORY,
    PH_CHEST,
    PH_COMBAT,
    PH_LOOT,
    PH_OVER,
) = range(13)
NPHASE = 13
PHASE_NAMES = (
    "assign",
    "rebalance",
    "draft",
    "move",
    "main",
    "target",
    "slot",
    "shop",
    "armory",
    "chest",
    "combat",
    "loot",
    "game_over",
)

# --- outcomes ------------------------------------------------------------------------
# engine outcomes (playing, truncated, illegal) first, then the game's
O_PLAYING, O_TRUNCATED, O_ILLEGAL, O_WIN = range(4)
OUTCOME_NAMES = ("playing", "truncated", "illegal_action", "win")
REWARD_MODES = ("zero_sum", "winner_only")

# --- action layout (flat Discrete; declared once, envs/core/layout.py) -------------
MAX_MOVE = 16  # 1d6 + boots (<= 5) + Dungeon Sprint, clamped
NSHIFT = NSTAT * (NSTAT - 1)  # 12 ordered (from, to) stat pairs


def shift_pair(k):
    """(from, to) stats of shift action offset k in 0..11."""
    a = k // 3
    j = k % 3
    b = j if j < a else j + 1
    return a, b


from ..core.layout import ActionLayout, act  # noqa: E402

ACTIONS = ActionLayout(
    "dungeon_crawler",
    [
        act("assign", STAT_NAMES, "creation: lock the current roll into stat K"),
        act(
            "shift",
            [f"{STAT_NAMES[a]}>{STAT_NAMES[b]}" for a, b in map(shift_pair, range(NSHIFT))],
            "rebalance: move one point from one stat to another",
        ),
        act("rebalance_done", 1, "finish rebalancing"),
        act("draft", DRAFT_N, "keep draft item K"),
        act("forward", MAX_MOVE, "walk forward K squares", first=1),
        act("back", MAX_MOVE, "walk back K squares", first=1),
        act("play", MAX_CARDS, "play action card type K from the hand", content="card_names"),
        act("target_seat", MAX_P, "choose seat K as the card's target"),
        act("slot", SLOT_NAMES, "choose gear slot K (vault, steal, strip)"),
        act("buy", OFFER_MAX, "buy offer K (shop / armory)"),
        act("leave", 1, "leave the shop / armory"),
        act("equip", 1, "equip the chest's item"),
        act("decline", 1, "send the chest's item to the discard"),
        act("fight", 1, "fight this combat round / fight back"),
        act("loot_take", SLOT_NAMES, "take the slain rival's slot-K item and wear it"),
        act("loot_discard", SLOT_NAMES, "take the slain rival's slot-K item and discard it"),
        act("end_turn", 1, "end the turn"),
    ],
)
# one constant per range, in declaration order (a plain int each: numba folds it)
(
    A_ASSIGN0,
    A_SHIFT0,
    A_REBAL_DONE,
    A_DRAFT0,
    A_FWD0,
    A_BACK0,
    A_PLAY0,
    A_TARGET0,
    A_SLOT0,
    A_BUY0,
    A_LEAVE,
    A_EQUIP,
    A_DECLINE,
    A_FIGHT,
    A_LOOT_TAKE0,
    A_LOOT_BURN0,
    A_END,
) = ACTIONS.starts()
NUM_ACTIONS = ACTIONS.size


# --- the engine's step: the declaration's auto_limit (game.toml) names it ------
AUTO_LIMIT = 100000  # auto-advanced decisions in one settle before handing back
