"""Fixed numbering shared by the Dungeon Kart content compiler, rules,
encoder, renderer and tests: terrains, tokens, abilities, power and spell
effects, phases and the flat action layout (named ranges). Plain ints so
numba folds them."""

from ..core.kernel.header import O_GAME

# --- seats --------------------------------------------------------------------
MIN_P, MAX_P = 2, 8
NSET = 6  # speed settings 1..6

# --- terrain (pips: road/dirt 1, grass 2, mud/water 3; deadly 0) ----------------
T_OFF, T_ROAD, T_DIRT, T_GRASS, T_MUD, T_WATER, T_LAVA, T_PIT, T_OBST, T_CUT = range(10)
NTERR = 10
TERRAIN_NAMES = (
    "off",
    "road",
    "dirt",
    "grass",
    "mud",
    "water",
    "lava",
    "pit",
    "obstacle",
    "cut-off",
)
TERRAIN_PIPS = (0, 1, 1, 2, 3, 3, 0, 0, 0, 0)
PENALTY_TERRAINS = ("dirt", "grass", "mud", "water")
MAP_CHARS = {
    ".": T_ROAD,
    "d": T_DIRT,
    "g": T_GRASS,
    "m": T_MUD,
    "w": T_WATER,
    "L": T_LAVA,
    "P": T_PIT,
    "X": T_OBST,
    "#": T_CUT,
    "$": T_ROAD,
    "S": T_ROAD,
    "!": T_ROAD,
}

# --- tokens on hexes (state.tok) -----------------------------------------------------
(
    K_NONE,
    K_HERO,
    K_FANGROOT,
    K_TAR,
    K_SMASH,
    K_BOOST,
    K_LAVAPUDDLE,
    K_GRAVE,
    K_BOMB,
    K_ZOMBIE,
    K_GRASS,
) = range(11)
NEPIC = 11  # Epic Heroes: tokens K_EPIC0 .. K_EPIC0 + 10
K_EPIC0 = 11
NTOK = K_EPIC0 + NEPIC
TOKEN_NAMES = (
    "none",
    "hero",
    "fangroot",
    "tar",
    "smashinator",
    "boost",
    "lava_puddle",
    "gravestone",
    "bomb",
    "zombie",
    "grass",
) + tuple(f"epic{i}" for i in range(NEPIC))
EH_CRASH, EH_SPIN, EH_ROB, EH_GIFT, EH_BOUNCE, EH_SCROLL = range(6)
EPIC_HIT = ("crash", "spin_out", "rob", "gift", "bounce", "scroll")
ER_NONE, ER_QUAKE, ER_TAX, ER_SUMMON, ER_FUSE = range(5)
EPIC_ROUND = ("none", "quake", "tax", "summon", "fuse")
ES_NONE, ES_GUARD = range(2)
EPIC_SETUP = ("none", "guard")
BAG_TOKENS = ("hero", "fangroot", "tar", "smashinator", "boost", "lava_puddle", "gravestone")
BAG_MAX = 64

# --- dashboards -----------------------------------------------------------------
NDASH = 8
AB_ACCEL, AB_TOP, AB_OFFROAD, AB_HANDLING, AB_HEAVY, AB_TRACTION = range(6)
ABILITY_NAMES = ("acceleration", "top_speed", "off_road", "handling", "heavy", "traction")

# --- racers and powers ----------------------------------------------------------
NRACER = 10
(
    PW_EXTRA_TURN,
    PW_EXTRA_DRIFT,
    PW_SPEED_UP,
    PW_GAIN_MP,
    PW_SPIN_NEAR,
    PW_STEAL,
    PW_MARKER,
    PW_REBUMP,
) = range(8)
POWER_NAMES = (
    "extra_turn",
    "extra_drift",
    "speed_up",
    "gain_mp",
    "spin_out_near",
    "steal_coins",
    "spell_marker",
    "rebump",
)
POWER_TARGETED = (PW_SPIN_NEAR, PW_STEAL)

# --- spells ----------------------------------------------------------------------
(
    SP_FREEZE,
    SP_FIREBALL,
    SP_ZOMBIE,
    SP_BOMB,
    SP_NITRO,
    SP_TAILWIND,
    SP_GRASS,
    SP_SMOKE,
    SP_CRYSTAL,
) = range(9)
SPELL_EFFECTS = (
    "freeze",
    "fireball",
    "zombie",
    "bomb",
    "nitro",
    "tailwind",
    "grass",
    "smoke",
    "crystal",
)
SPELL_AMOUNT = ("nitro", "tailwind", "crystal")
TM_ROUND, TM_TURN, TM_ANY = range(3)
TIMING_NAMES = ("round", "turn", "any")
NDECK = 3
DECK_NAMES = ("A", "B", "C")
MAX_SPELL_KINDS = 16
MAX_CARDS = 48  # spell card copies in all decks
DECK_MAX = 24  # copies in one deck

# --- dice -------------------------------------------------------------------------
SM_COINS, SM_MP, SM_SPIN, SM_CRASH = range(4)
SMASH_EFFECTS = ("coins", "mp", "spin_out", "crash")

# --- tracks -------------------------------------------------------------------------
MAX_TRACKS = 12
MAX_TILES = 16
TR_CIRCUIT, TR_SPRINT = 0, 1
TRACK_KINDS = ("circuit", "sprint")

# --- phases -------------------------------------------------------------------------
(PH_DRAFT_RACER, PH_DRAFT_DASH, PH_FREEZE, PH_FACING, PH_SPEED, PH_MOVE, PH_OVER) = range(7)
PHASE_NAMES = ("draft_racer", "draft_dashboard", "freeze", "facing", "speed", "move", "over")

# --- action layout (flat Discrete; declared once, envs/core/layout.py) -----------------
N_PICK = MAX_P + 1  # draft offer slots (racers or dashboards on offer)
N_SPEED = 3
N_FACE = 6
N_BUMP = 3 * (MAX_P - 1)  # 3 sides for each opponent 1..7 seats after the actor
N_SPELL = MAX_P
N_POWER = 2 * MAX_P
#: seat-relative targets of spells and powers: "self" (k = 0: no target or the
#: actor), "nextk" (the seat k after the actor)
TARGET_NAMES = ("self",) + tuple(f"next{k}" for k in range(1, MAX_P))
BUMP_SIDES = ("fwd_left", "ahead", "fwd_right")

from ..core.layout import ActionLayout, act  # noqa: E402
from .hexgeo import DIR_NAMES  # noqa: E402

ACTIONS = ActionLayout(
    "dungeon_kart",
    [
        act("pick", N_PICK, "setup draft: take offer slot K (a Racer or a dashboard)"),
        act(
            "speed",
            ("down", "keep", "up"),
            "speed K: one setting down / up (keep: only at settings 1 and 6, or when Frozen)",
        ),
        act("face", DIR_NAMES, "after a Crash: face direction K"),
        act("move", 1, "Move one hex ahead"),
        act("turn_left", 1, "Turn 60 degrees left"),
        act("turn_right", 1, "Turn 60 degrees right"),
        act("drift_left", 1, "Drift forward-left"),
        act("drift_right", 1, "Drift forward-right"),
        act(
            "bump",
            [f"{t}_{side}" for t in TARGET_NAMES[1:] for side in BUMP_SIDES],
            "Bump the opponent k seats after you (nextk) to your forward-left / ahead / "
            "forward-right: K",
        ),
        act("brake", 1, "Brake (1 MP, speed -2)"),
        act("spell", TARGET_NAMES, "cast the held spell card on K (self: no target)"),
        act(
            "power",
            [f"{w}_{t}" for w in ("upper", "lower") for t in TARGET_NAMES],
            "use the Racer's power K (upper / lower; target self: none)",
        ),
        act("end", 1, "end movement (a Crash if MP is left)"),
        act("pass", 1, "do not cast Freeze at the start of the round"),
    ],
)
# one constant per range, in declaration order (a plain int each: numba folds it)
(
    A_PICK,
    A_SPEED,
    A_FACE,
    A_MOVE,
    A_TURN_L,
    A_TURN_R,
    A_DRIFT_L,
    A_DRIFT_R,
    A_BUMP,
    A_BRAKE,
    A_SPELL,
    A_POWER,
    A_END,
    A_PASS,
) = ACTIONS.starts()
NUM_ACTIONS = ACTIONS.size
# the counts above are the ranges' sizes (the kernels index with them)
assert [len(ACTIONS.range_of(r)) for r in ("pick", "speed", "face", "bump", "spell", "power")] == [
    N_PICK,
    N_SPEED,
    N_FACE,
    N_BUMP,
    N_SPELL,
    N_POWER,
]

# --- outcomes, rewards, config ------------------------------------------------------------
O_RACE_OVER = O_GAME  # the final round was played out
REWARD_MODES = ("rank",)  # zero-sum score from the final ranking
# configure_row's cfg vector
CFG_TRACK, CFG_DRAFT, CFG_MAX_ROUNDS = range(3)
CFG_N = 3
DRAFT_PICK, DRAFT_RANDOM = 0, 1

#: sentinel "no terrain penalty entered this turn"
NO_PENALTY = 7
