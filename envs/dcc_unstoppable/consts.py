"""Fixed numbering of Dungeon Crawler Carl: Unstoppable, shared by the content
compiler, the row kernels, the encoder, the renderer and the tests.

Everything here is a plain int (or a tuple of names) so numba folds it.
Numbers the rulebook fixes (caps, starting values, basic spells, scoring
constants) are rules, not content, and live here; cards, tracks, races,
classes, achievements and benefits are content (``data/*.toml``).
"""

from ..core.kernel.header import O_GAME

# --- rulebook numbers --------------------------------------------------------
AP_CAP = 6  # DCC-332
HEALTH_CAP = 10  # DCC-334
MANA_CAP = 10  # DCC-336
START_HEALTH = 10  # DCC-105
START_MANA = 2  # DCC-106
START_GOLD = 3  # DCC-107
UPKEEP_AP = 3  # DCC-119
UPKEEP_MANA = 1  # DCC-117
HAND_START = 3  # DCC-111
BF_TARGET = 3  # DCC-113 / DCC-196: non-Fast active threats
MARKET_SIZE = 6  # DCC-092
DRAFT_SOLO = 3  # DCC-124
DRAFT_DUO = 2  # DCC-272
SPELL_DMG_COST = 4  # DCC-140
SPELL_HEAL_COST = 3  # DCC-141
REPEAT_LIMIT = 4  # DCC-135: the 4th resolution eliminates the card
MAX_LEVEL_DECK = 6  # core decks 1..6 (DCC-088)
LAZARUS_HIT = 6  # DCC-309
PASS_CAP = 8  # co-op: passes of the initiative per Main Phase (D-20)
NPLAYERS_MAX = 2

# --- stats (DCC-354) -----------------------------------------------------------
NSTAT = 5
STAT_NAMES = ("str", "int", "dex", "con", "cha")
STAT_LONG = ("Strength", "Intelligence", "Dexterity", "Constitution", "Charisma")

# --- core subtypes -------------------------------------------------------------
TACTIC, ALLY = 0, 1
SUBTYPE_NAMES = ("tactic", "ally")

# --- threat keywords (bit flags) ------------------------------------------------
KW_FAST, KW_LOOMING, KW_RETALIATE, KW_SACRIFICE, KW_TAUNT, KW_TERROR = (1, 2, 4, 8, 16, 32)
KEYWORD_NAMES = ("fast", "looming", "retaliate", "sacrifice", "taunt", "terror")
KEYWORD_BITS = (KW_FAST, KW_LOOMING, KW_RETALIATE, KW_SACRIFICE, KW_TAUNT, KW_TERROR)

# --- effect vocabulary: one op row = (code, n, scale, cond, cond_arg, stat, who)
OPW = 7
MAXOPS = 6  # ops in one composed resolution (card + its upgrades)
CARD_OPS = 4  # ops printed on one ability of a core
UPG_OPS = 2  # ops an upgrade adds
BONUS_OPS = 3  # ops of a threat bonus or a boss flip side
(
    OP_NONE,
    OP_DAMAGE,
    OP_GOLD,
    OP_AP,
    OP_HEALTH,
    OP_MANA,
    OP_TRAIN,
    OP_REFRESH_ALLY,
    OP_REFRESH_MARKET,
    OP_ELIMINATE,
) = range(10)
OP_NAMES = (
    "none",
    "damage",
    "gold",
    "ap",
    "health",
    "mana",
    "train",
    "refresh_ally",
    "refresh_market",
    "eliminate",
)
#: ops that ask the resolving player a question (target or yes/no)
OP_DECIDES = (OP_DAMAGE, OP_REFRESH_ALLY, OP_REFRESH_MARKET, OP_ELIMINATE)
SC_NONE, SC_FOCUS, SC_UNITE, SC_LEVEL = 0, 1, 2, 3
SCALE_NAMES = ("none", "focus", "unite", "level")
CD_NONE, CD_LEVEL, CD_FOCUS, CD_UNITE, CD_SPELL = 0, 1, 2, 3, 4
COND_NAMES = ("none", "level", "focus", "unite", "spell")
WHO_SELF, WHO_CHOOSE, WHO_BOTH = 0, 1, 2
WHO_NAMES = ("self", "choose", "both")

# --- class abilities (passive mods) ---------------------------------------------
(
    CM_NONE,
    CM_UPKEEP_MANA,
    CM_UPKEEP_GOLD,
    CM_SPELL_DMG_DISCOUNT,
    CM_SPELL_HEAL_DISCOUNT,
    CM_DEFEAT_GOLD,
    CM_IGNORE_RETALIATE,
    CM_IGNORE_TERROR,
    CM_DRAFT_EXTRA,
    CM_ALLIES_TOUGH,
    CM_LEVELUP_HEAL,
    CM_UPGRADE_DISCOUNT,
    CM_BOSS_DAMAGE,
) = range(13)
NCMOD = 13
CMOD_NAMES = (
    "none",
    "upkeep_mana",
    "upkeep_gold",
    "spell_damage_discount",
    "spell_heal_discount",
    "defeat_gold",
    "ignore_retaliate",
    "ignore_terror",
    "draft_extra",
    "allies_tough",
    "levelup_heal",
    "upgrade_discount",
    "boss_damage",
)
MAX_CABIL = 2

# --- boss kinds, quest requirements, while-active effects -----------------------
BK_NEIGHBORHOOD, BK_BOROUGH, BK_FLOOR2, BK_QUEST = range(4)
BOSS_KIND_NAMES = ("neighborhood", "borough", "floor2", "quest")
NBK = 4
(QR_DEFEAT, QR_BOSS, QR_LEVEL, QR_ALLIES, QR_UPGRADES) = range(5)
QREQ_NAMES = ("defeat", "boss", "level", "allies", "upgrades")
(QA_NONE, QA_THREAT_ATTACK, QA_UPKEEP_MANA, QA_UPKEEP_GOLD, QA_NO_HEAL_SPELL) = range(5)
QACTIVE_NAMES = ("none", "threat_attack", "upkeep_mana", "upkeep_gold", "no_heal_spell")

# --- danger track ------------------------------------------------------------------
B_NONE, B_GREEN, B_YELLOW, B_RED = range(4)
BORDER_CHARS = ".gyr"
SE_NONE, SE_ELIMINATE, SE_MARKET = range(3)
SPACE_EFFECT_CHARS = ".$m"
TRACK_MAX = 32  # spaces of one track, skull included (the last space)
(TR_NONE, TR_BOSS, TR_STAIRS, TR_QUEST) = range(4)
TRIGGER_NAMES = ("none", "boss", "stairs", "quest")
MAX_TRIG = 6
DIFFICULTIES = ("normal", "hard", "expert", "unbeatable")
D_NORMAL, D_HARD, D_EXPERT, D_UNBEATABLE = range(4)
SKIP_BORDER = (B_GREEN, B_YELLOW, B_RED, B_RED)  # DCC-208..211
DIFF_XP = (1, 5, 10, 20)  # DCC-262 / DCC-302
MODES = ("arcade", "campaign")
M_ARCADE, M_CAMPAIGN = 0, 1
NFLOOR = 3

# --- achievements -----------------------------------------------------------------
(
    AC_DEFEATS,
    AC_TURN_DEFEATS,
    AC_UPGRADES,
    AC_LEVEL,
    AC_BOSSES,
    AC_GOLD,
    AC_FULL_HEALTH,
    AC_ALLIES,
) = range(8)
ACH_KIND_NAMES = (
    "defeats",
    "turn_defeats",
    "upgrades",
    "level",
    "bosses",
    "gold",
    "full_health",
    "allies",
)
ACH_PER_FLOOR = 4
# arcade extras (DCC-306..310)
EX_STRANGER, EX_PRENEUR, EX_RODEO, EX_LAZARUS, EX_UNSTOPPABLE = range(5)
EXTRA_NAMES = ("Stranger Danger", "Dungeonpreneur", "Not My First Rodeo", "Lazarus", "Unstoppable")
EXTRA_XP = (1, 1, 2, 2, 3)
NEXTRA = 5

# --- benefits (campaign) ------------------------------------------------------------
(BE_HEALTH, BE_MANA, BE_GOLD, BE_DROP_STRIKE, BE_TRAIN) = range(5)
BENEFIT_KIND_NAMES = ("start_health", "start_mana", "start_gold", "drop_strike", "start_train")
MAX_BENEFITS = 8

# --- content sizes (fixed: the action space and the record never change) ------
NCORE = 122  # DCC-029
NCORE_LEVELED = 100  # DCC-013
NTHREAT = 93  # DCC-030
NSTART_THREAT = 22  # DCC-011
NFLOOR_THREAT = 54  # DCC-012
NBOSS = 17  # DCC-014
NQUEST_CARD = 17  # DCC-015
NUPGRADE = 36  # DCC-016
NRACE = 8
NCLASS = 8
NCRAWLER = 2
STAIRS0 = NTHREAT  # sleeve ids 93, 94 are the two stairs cards
NSLEEVE = NTHREAT + 2
MAX_QUESTS = 6
MAX_QUEST_PARTS = 4

# --- zones of a sleeve (``sl_zone``) -----------------------------------------------
(
    Z_BOX,
    Z_TDECK,
    Z_DUNGEON,
    Z_DECK,
    Z_HAND,
    Z_DISCARD,
    Z_BATTLE,
    Z_PLAY,
    Z_TROPHY,
    Z_ELIM,
    Z_DESCENDED,
) = range(11)
ZONE_NAMES = (
    "box",
    "threat_deck",
    "dungeon",
    "deck",
    "hand",
    "discard",
    "battlefield",
    "play",
    "trophy",
    "eliminated",
    "descended",
)
# where an unsleeved core side lies (``core_zone``)
(CZ_BOX, CZ_CDECK, CZ_REVEAL, CZ_SLEEVE) = range(4)
CORE_ZONE_NAMES = ("box", "core_deck", "draft_reveal", "sleeve")

# --- pile capacities -----------------------------------------------------------------
PILE_CAP = 64  # deck, hand, discard of one player
BF_CAP = 10  # battlefield slots of one player
PLAY_CAP = 16  # play area of one player
CDECK_CAP = 32  # one core deck
HAND_SLOTS = 16  # hand cards addressable by actions (the first 16)
PLAY_SLOTS = 12  # play-area cards addressable by actions
DISC_SLOTS = 16  # discard cards addressable by actions (the newest 16)
TSLOTS = BF_CAP + 1  # target slots per battlefield: BF_CAP + the on-deck threat
ONDECK = BF_CAP  # the on-deck threat's target slot
NEXH = 2  # exhaust abilities of one ally

# --- phases (``phase``: the decision now asked for) --------------------------------
(PH_RACE, PH_CLASS, PH_DRAFT, PH_MAIN, PH_CLEANUP, PH_OVER) = range(6)
NPHASE = 6
PHASE_NAMES = ("race", "class", "draft", "main", "cleanup", "game_over")
# pending decisions (``dec``): inside the Main Phase, the Cleanup's danger
# spaces (DEC_SPACE_*) and the solo Draft's bottom order (DEC_BOTTOM, DCC-125)
(
    DEC_NONE,
    DEC_TARGET,
    DEC_PAY,
    DEC_REFRESH,
    DEC_ELIM,
    DEC_SACRIFICE,
    DEC_UPGRADE,
    DEC_MARKET,
    DEC_HEAL,
    DEC_SPACE_ELIM,
    DEC_SPACE_MARKET,
    DEC_BOTTOM,
) = range(12)
NDEC = 12
DEC_NAMES = (
    "none",
    "damage_target",
    "pay_spell",
    "refresh_ally",
    "eliminate",
    "sacrifice",
    "upgrade_card",
    "market_refresh",
    "heal_player",
    "space_eliminate",
    "space_market",
    "bottom_order",
)

# --- action layout (flat Discrete; declared once, envs/core/layout.py) -----------
from ..core.layout import ActionLayout, act  # noqa: E402

ACTIONS = ActionLayout(
    "dcc_unstoppable",
    [
        act(
            "hand",
            HAND_SLOTS,
            "hand card K: play it, or pick it (upgrade target, Sacrifice, elimination)",
        ),
        act(
            "play",
            PLAY_SLOTS,
            "play-area card K: pick it (upgrade target, refresh, Sacrifice, elimination)",
        ),
        act(
            "exhaust",
            [f"ally{k}_ability{j}" for k in range(PLAY_SLOTS) for j in range(NEXH)],
            "exhaust the play-area ally with one of its abilities: K",
        ),
        act("discard", DISC_SLOTS, "discard-pile card K, newest first: pick it (elimination)"),
        act(
            "target",
            [
                f"p{p}_{'ondeck' if t == ONDECK else f'slot{t}'}"
                for p in range(NPLAYERS_MAX)
                for t in range(TSLOTS)
            ],
            "target a threat: K (seat p's battlefield slot or its on-deck card)",
        ),
        act(
            "market",
            MARKET_SIZE,
            "market slot K: buy it, or send it under the deck (market refresh)",
        ),
        act("spell_damage", 1, "basic spell: 4 mana, 1 damage"),
        act("spell_heal", 1, "basic spell: 3 mana, a player +1 health"),
        act("player", NPLAYERS_MAX, "choose player K (heal spell, chosen effects)"),
        act("yes", 1, "pay for / accept the pending optional effect"),
        act("skip", 1, "forfeit the pending effect, decline, or be done"),
        act("descend", 1, "go down the stairs"),
        act("pass", 1, "co-op: hand the initiative to the teammate"),
        act("end_main", 1, "end your Main Phase"),
        act(
            "draft",
            2 * DRAFT_DUO,
            "keep revealed core card K (4 in co-op); in the solo "
            "bottom order: unkept card K goes lowest",
        ),
        act("race", 3, "keep drawn race K"),
        act("class", 3, "keep drawn class K"),
        act("preset", 1, "take the portrait's preset race and class"),
    ],
)
# one constant per range, in declaration order (a plain int each: numba folds it)
(
    A_HAND0,
    A_PLAY0,
    A_EXH0,
    A_DISC0,
    A_TGT0,
    A_BUY0,
    A_SPELL_DMG,
    A_SPELL_HEAL,
    A_PLAYER0,
    A_YES,
    A_SKIP,
    A_DESCEND,
    A_PASS,
    A_END,
    A_DRAFT0,
    A_RACE0,
    A_CLASS0,
    A_PRESET,
) = ACTIONS.starts()
NUM_ACTIONS = ACTIONS.size

# --- outcomes ----------------------------------------------------------------------
O_WIN = O_GAME
O_LOSS_HEALTH = O_GAME + 1
O_LOSS_SKULL = O_GAME + 2
OUTCOME_NAMES = ("playing", "truncated", "illegal_action", "win", "loss_health", "loss_skull")

# --- reward modes --------------------------------------------------------------------
RM_WINLOSS, RM_SCORE = 0, 1
REWARD_MODES = ("winloss", "score")

# --- configuration vector (``configure_row(st, cfg)``) ------------------------------
CFG_FLOOR, CFG_DIFFICULTY, CFG_MODE, CFG_CRAWLER = 0, 1, 2, 3
CFG_RACE0, CFG_CLASS0 = 4, 6  # per seat: cfg[CFG_RACE0 + p], cfg[CFG_CLASS0 + p]
RC_DRAFT, RC_PRESET, RC_NONE = -1, -2, -3  # race/class config values
CFG_XP = 8
CFG_BEN0 = 9  # MAX_BENEFITS counts of bought benefits
CFG_ACH0 = CFG_BEN0 + MAX_BENEFITS  # NFLOOR*ACH_PER_FLOOR achievement flags
CAMP_DECK = 24  # deck-list entries per crawler
CFG_DECK0 = CFG_ACH0 + NFLOOR * ACH_PER_FLOOR  # per seat CAMP_DECK core ids (-1 = none)
CFG_UPG0 = CFG_DECK0 + NPLAYERS_MAX * CAMP_DECK  # per seat per entry 2 upgrade ids
CFG_SIZE = CFG_UPG0 + NPLAYERS_MAX * CAMP_DECK * 2
