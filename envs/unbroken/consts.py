"""Fixed numbering shared by the Unbroken content compiler, kernels, encoder
and tests: resources, effect opcodes, triggers, passive mods, phases, stages
and the action layout. Everything here is a plain int so numba folds it."""

# --- resources -----------------------------------------------------------
R_S, R_M, R_L, R_CUN, R_FOOD, R_WOOD, R_METAL, R_TREAS = range(8)
NRES = 8
R_TIME = 8  # index of Time in cost vectors (length NCOST)
NCOST = 9
RES_NAMES = ("small", "medium", "large", "cunning", "food", "wood", "metal", "treasure")
COST_NAMES = RES_NAMES + ("time",)

# --- effect opcodes (op, a, b, c, d) ---------------------------------------
MAXOPS = 4
OPW = 5
(
    OP_NONE,
    OP_GAIN,
    OP_LOSE,
    OP_WOUND,
    OP_REDUCE,
    OP_LOSE_TIME,
    OP_GAIN_TIME,
    OP_DEFEND,
    OP_CONDITION,
    OP_TOKENS,
    OP_DOWNGRADE,
    OP_MON_ARMOR,
    OP_MON_HEALTH,
    OP_MON_HEAL,
    OP_DAMAGE,
    OP_BREAK,
    OP_REVEAL,
    OP_COMMIT,
    OP_CURE,
    OP_CLEANSE,
    OP_SKILL,
    OP_USES,
    OP_EXTRA_ATTACK,
    OP_ROLL,
    OP_REROLL,
    OP_POWER,
    OP_EVADE,
    OP_STRUGGLE,
    OP_TICK,
    OP_SKIP_TURN,
) = range(30)
OP_NAMES = (
    "none",
    "gain",
    "lose",
    "wound",
    "reduce",
    "lose_time",
    "gain_time",
    "defend",
    "condition",
    "tokens",
    "downgrade",
    "monster_armor",
    "monster_health",
    "monster_heal",
    "damage",
    "break",
    "reveal",
    "commit",
    "cure",
    "cleanse",
    "skill",
    "uses",
    "extra_attack",
    "roll",
    "reroll",
    "power",
    "evade",
    "struggle",
    "tick",
    "skip_turn",
)
WHEN_NEXT, WHEN_NOW, WHEN_ROUNDS = 0, 1, 2
WHEN_NAMES = ("next_level", "now", "rounds")

# --- ability kinds, windows, triggers, requirements, passive mods -----------
K_ACTION, K_RESPONSE, K_PASSIVE = 0, 1, 2
KIND_NAMES = ("action", "response", "passive")
WIN_TRAVEL, WIN_BATTLE = 1, 2
WINDOW_NAMES = {"travel": 1, "battle": 2, "any": 3}
(
    T_NONE,
    T_BATTLE_START,
    T_TURN_START,
    T_ATTACK,
    T_ARMOR_BROKEN,
    T_MONSTER_ROLL,
    T_ROUND_END,
    T_VICTORY,
    T_AMBUSHED,
    T_REST,
    T_LEVEL_START,
) = range(11)
NTRIG = 11
TRIGGER_NAMES = (
    "none",
    "battle_start",
    "turn_start",
    "attack",
    "armor_broken",
    "monster_roll",
    "round_end",
    "victory",
    "ambushed",
    "rest",
    "level_start",
)
(RQ_NONE, RQ_ARMOR, RQ_NO_ARMOR, RQ_ADVANCED, RQ_BASIC, RQ_REVEALED, RQ_CONDITION) = range(7)
REQ_NAMES = ("none", "armor", "no_armor", "advanced", "basic", "monster_revealed", "condition")
(
    PM_NONE,
    PM_IGNORE,
    PM_WOUND_REDUCE,
    PM_WEAPON_POWER,
    PM_BREAK_POWER,
    PM_REVEAL,
    PM_REST_BONUS,
    PM_FOOD_REQ,
    PM_MAX_WOUNDS,
    PM_ATTACK_COST,
    PM_MONSTER_ROLL,
    PM_MONSTER_FIRST,
    PM_TRICK_DISCOUNT,
    PM_NO_TRICK,
    PM_MONSTER_HEALTH,
    PM_MONSTER_ARMOR,
    PM_TIME_START,
) = range(17)
NMOD = 17
MOD_NAMES = (
    "none",
    "ignore",
    "wound_reduce",
    "weapon_power",
    "break_power",
    "reveal",
    "rest_bonus",
    "food_req",
    "max_wounds",
    "attack_cost",
    "monster_roll",
    "monster_first",
    "trick_discount",
    "no_trick",
    "monster_health",
    "monster_armor",
    "time_start",
)
OWN_SKILL, OWN_CHAR, OWN_MONSTER, OWN_COND = 0, 1, 2, 3

# monster combat face types
FACE_TYPES = ("wound", "steal", "reduce", "condition", "defend", "time", "heal", "other")

# --- content sizes (fixed so the action space never changes) ---------------
MAX_SKILLS = 32
MAX_CHAR_AB = 3
MAX_MON_OPT = 2
MAX_ATTACKS = 4
MAX_UPGRADES = 2
NCHAR = 4
NWEAPON = 7
NCOND = 10
NLEVEL = 4
PER_LEVEL = 6
NMONSTER = NLEVEL * PER_LEVEL
MAX_REVEAL = 8
MAX_EAT = 6  # Food eaten in one Hunger Step (Requirement 4 + passives)
DECK_CAP = 128  # encounter pile capacity
WSTACK = 8

# --- phases (decision points) ----------------------------------------------
(PH_PREP, PH_EXPLORE, PH_TRICK, PH_TURN, PH_EXTRA, PH_RESPOND, PH_SKILLPICK, PH_HUNGER, PH_OVER) = (
    range(9)
)
NPHASE = 9
PHASE_NAMES = (
    "preparation",
    "exploration",
    "trickery",
    "battle_turn",
    "extra_attack",
    "response",
    "skill_reward",
    "hunger",
    "game_over",
)

# --- internal stages of the automatic flow ---------------------------------
(
    S_WAIT,
    S_LEVEL_START,
    S_PREP,
    S_REVEAL,
    S_AFTER_CARD,
    S_AMBUSH,
    S_TRICKERY,
    S_BATTLE_START,
    S_ROUND_START,
    S_PLAYER_TURN,
    S_TURN_CHECK,
    S_ATTACK_RESOLVE,
    S_AFTER_ATTACK,
    S_PLAYER_TURN_END,
    S_MONSTER_TURN,
    S_APPLY_ROLL,
    S_MONSTER_TURN_END,
    S_ROUND_END,
    S_VICTORY,
    S_REWARDS,
    S_HUNGER,
    S_END_LEVEL,
    S_LOSS,
    S_MANDATORY,
) = range(24)

# --- outcomes ---------------------------------------------------------------
# engine outcomes (playing, truncated, illegal) first, then the game's
O_PLAYING, O_TRUNCATED, O_ILLEGAL, O_WIN, O_LOSS = range(5)
OUTCOME_NAMES = ("playing", "truncated", "illegal_action", "win", "loss")

# --- difficulty -------------------------------------------------------------
DIFFICULTIES = ("easy", "normal", "hard")

# --- general action costs (Actions Guide) -----------------------------------
FOCUS_COST_S = 4
INSPIRE_COST_M = 2
PLAN_COST_S = 4
ORIENTEER_COST_S = 1
# Scout costs per Level: (small, cunning, time)
SCOUT_COST = ((1, 0, 1), (2, 0, 2), (0, 1, 1), (2, 1, 2))


# --- action layout (declared once; envs/core/layout.py) -----------------------
from ..core.layout import ActionLayout, act  # noqa: E402

ACTIONS = ActionLayout(
    "unbroken",
    [
        act("focus", 1, f"Focus: {FOCUS_COST_S} Small Effort -> 1 Medium"),
        act("inspiration", 1, f"Inspiration: {INSPIRE_COST_M} Medium Effort -> 1 Large"),
        act("plan", 1, f"Plan: {PLAN_COST_S} Small Effort -> 1 Cunning"),
        act("craft", MAX_UPGRADES, "Craft: upgrade to the weapon's upgrade option K"),
        act("downgrade", 1, "downgrade the weapon for good (never Bare Hands)"),
        act(
            "orienteer",
            1,
            f"Orienteer: {ORIENTEER_COST_S} Small Effort, more cards at the next exploration",
        ),
        act("scout", 1, "Scout: reveal the Level's monster"),
        act("fight", 1, "Decision Step: go and fight the monster now"),
        act("explore", 1, "Decision Step: explore (reveal encounter cards)"),
        act("resolve", MAX_REVEAL, "resolve revealed encounter card K (the Exchange)"),
        act("rest", MAX_REVEAL, "rest on revealed card K (Small Effort = its Time Value)"),
        act("trick", 1, "Trickery Step: pay the Trickery Cost and slip past"),
        act("battle", 1, "Trickery Step: refuse and fight"),
        act("attack", MAX_ATTACKS, "weapon attack option K of the equipped weapon"),
        act("skip", 1, "skip the battle turn"),
        act("pass", 1, "pass (close a Response window, decline an extra attack)"),
        act(
            "skill",
            MAX_SKILLS,
            "use Skill K (an action, or a Response in a window)",
            content="skill_names",
        ),
        act("character", MAX_CHAR_AB, "use character ability K"),
        act("monster", MAX_MON_OPT, "use the monster sheet's player option K"),
        act("keep", 2, "keep offered Skill K"),
        act("eat", MAX_EAT + 1, "Hunger Step: eat K Food"),
    ],
)
# one constant per range, in declaration order (a plain int each: numba folds it)
(
    A_FOCUS,
    A_INSPIRE,
    A_PLAN,
    A_CRAFT0,
    A_DOWNGRADE,
    A_ORIENTEER,
    A_SCOUT,
    A_FIGHT,
    A_EXPLORE,
    A_RESOLVE0,
    A_REST0,
    A_TRICK,
    A_BATTLE,
    A_ATTACK0,
    A_SKIP,
    A_PASS,
    A_SKILL0,
    A_CHAR0,
    A_MON0,
    A_KEEP0,
    A_EAT0,
) = ACTIONS.starts()
NUM_ACTIONS = ACTIONS.size
