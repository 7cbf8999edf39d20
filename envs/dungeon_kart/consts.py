"""Fixed numbering shared by the Dungeon Kart content compiler, rules,
encoder, renderer and tests: terrains, tokens, abilities, power and spell
effects, phases and the flat action layout (named ranges). Plain ints so
numba folds them."""
from ..core.header import O_GAME

# --- seats --------------------------------------------------------------------
MIN_P, MAX_P = 2, 8
NSET = 6                            # speed settings 1..6

# --- terrain (pips: road/dirt 1, grass 2, mud/water 3; deadly 0) ----------------
T_OFF, T_ROAD, T_DIRT, T_GRASS, T_MUD, T_WATER, T_LAVA, T_PIT, T_OBST, T_CUT = range(10)
NTERR = 10
TERRAIN_NAMES = ("off", "road", "dirt", "grass", "mud", "water", "lava", "pit",
                 "obstacle", "cut-off")
TERRAIN_PIPS = (0, 1, 1, 2, 3, 3, 0, 0, 0, 0)
PENALTY_TERRAINS = ("dirt", "grass", "mud", "water")
MAP_CHARS = {".": T_ROAD, "d": T_DIRT, "g": T_GRASS, "m": T_MUD, "w": T_WATER,
             "L": T_LAVA, "P": T_PIT, "X": T_OBST, "#": T_CUT,
             "$": T_ROAD, "S": T_ROAD, "!": T_ROAD}

# --- tokens on hexes (state.tok) -----------------------------------------------------
(K_NONE, K_HERO, K_FANGROOT, K_TAR, K_SMASH, K_BOOST, K_LAVAPUDDLE, K_GRAVE,
 K_BOMB, K_ZOMBIE, K_GRASS) = range(11)
NEPIC = 11                          # Epic Heroes: tokens K_EPIC0 .. K_EPIC0 + 10
K_EPIC0 = 11
NTOK = K_EPIC0 + NEPIC
TOKEN_NAMES = ("none", "hero", "fangroot", "tar", "smashinator", "boost",
               "lava_puddle", "gravestone", "bomb", "zombie", "grass") + tuple(
                   f"epic{i}" for i in range(NEPIC))
EH_CRASH, EH_SPIN, EH_ROB, EH_GIFT, EH_BOUNCE, EH_SCROLL = range(6)
EPIC_HIT = ("crash", "spin_out", "rob", "gift", "bounce", "scroll")
ER_NONE, ER_QUAKE, ER_TAX, ER_SUMMON, ER_FUSE = range(5)
EPIC_ROUND = ("none", "quake", "tax", "summon", "fuse")
ES_NONE, ES_GUARD = range(2)
EPIC_SETUP = ("none", "guard")
BAG_TOKENS = ("hero", "fangroot", "tar", "smashinator", "boost", "lava_puddle",
              "gravestone")
BAG_MAX = 64

# --- dashboards -----------------------------------------------------------------
NDASH = 8
AB_ACCEL, AB_TOP, AB_OFFROAD, AB_HANDLING, AB_HEAVY, AB_TRACTION = range(6)
ABILITY_NAMES = ("acceleration", "top_speed", "off_road", "handling", "heavy",
                 "traction")

# --- racers and powers ----------------------------------------------------------
NRACER = 10
(PW_EXTRA_TURN, PW_EXTRA_DRIFT, PW_SPEED_UP, PW_GAIN_MP, PW_SPIN_NEAR,
 PW_STEAL, PW_MARKER, PW_REBUMP) = range(8)
POWER_NAMES = ("extra_turn", "extra_drift", "speed_up", "gain_mp", "spin_out_near",
               "steal_coins", "spell_marker", "rebump")
POWER_TARGETED = (PW_SPIN_NEAR, PW_STEAL)

# --- spells ----------------------------------------------------------------------
(SP_FREEZE, SP_FIREBALL, SP_ZOMBIE, SP_BOMB, SP_NITRO, SP_TAILWIND, SP_GRASS,
 SP_SMOKE, SP_CRYSTAL) = range(9)
SPELL_EFFECTS = ("freeze", "fireball", "zombie", "bomb", "nitro", "tailwind",
                 "grass", "smoke", "crystal")
SPELL_AMOUNT = ("nitro", "tailwind", "crystal")
TM_ROUND, TM_TURN, TM_ANY = range(3)
TIMING_NAMES = ("round", "turn", "any")
NDECK = 3
DECK_NAMES = ("A", "B", "C")
MAX_SPELL_KINDS = 16
MAX_CARDS = 48                      # spell card copies in all decks
DECK_MAX = 24                       # copies in one deck

# --- dice -------------------------------------------------------------------------
SM_COINS, SM_MP, SM_SPIN, SM_CRASH = range(4)
SMASH_EFFECTS = ("coins", "mp", "spin_out", "crash")

# --- tracks -------------------------------------------------------------------------
MAX_TRACKS = 12
MAX_TILES = 16
TR_CIRCUIT, TR_SPRINT = 0, 1
TRACK_KINDS = ("circuit", "sprint")

# --- phases -------------------------------------------------------------------------
(PH_DRAFT_RACER, PH_DRAFT_DASH, PH_FREEZE, PH_FACING, PH_SPEED, PH_MOVE,
 PH_OVER) = range(7)
PHASE_NAMES = ("draft_racer", "draft_dashboard", "freeze", "facing", "speed", "move",
               "over")

# --- flat action layout (named ranges) --------------------------------------------------
A_PICK = 0                          # draft: pick offered item k (k < MAX_P + 1)
N_PICK = MAX_P + 1
A_SPEED = A_PICK + N_PICK           # speed change -1 / 0 / +1 (A_SPEED + 0, 1, 2)
N_SPEED = 3
A_FACE = A_SPEED + N_SPEED          # after a Crash: face direction d (hexgeo facing)
N_FACE = 6
A_MOVE = A_FACE + N_FACE            # Move one hex ahead
A_TURN_L = A_MOVE + 1
A_TURN_R = A_TURN_L + 1
A_DRIFT_L = A_TURN_R + 1
A_DRIFT_R = A_DRIFT_L + 1
A_BUMP = A_DRIFT_R + 1              # + 3 * (k - 1) + side: opponent k seats after the
N_BUMP = 3 * (MAX_P - 1)            #   actor, side 0 forward-left, 1 ahead, 2 forward-right
A_BRAKE = A_BUMP + N_BUMP
A_SPELL = A_BRAKE + 1               # + k: cast the held spell on the seat k after the
N_SPELL = MAX_P                     #   actor (k = 0: no target / self)
A_POWER = A_SPELL + N_SPELL         # + 8 * which + k: upper (0) / lower (1) power, target k
N_POWER = 2 * MAX_P
A_END = A_POWER + N_POWER           # end movement (Crash if MP is left)
A_PASS = A_END + 1                  # decline to cast Freeze at the start of the round
NUM_ACTIONS = A_PASS + 1

ACTION_RANGES = (
    ("pick", A_PICK, N_PICK), ("speed", A_SPEED, N_SPEED), ("face", A_FACE, N_FACE),
    ("move", A_MOVE, 1), ("turn_left", A_TURN_L, 1), ("turn_right", A_TURN_R, 1),
    ("drift_left", A_DRIFT_L, 1), ("drift_right", A_DRIFT_R, 1), ("bump", A_BUMP, N_BUMP),
    ("brake", A_BRAKE, 1), ("spell", A_SPELL, N_SPELL), ("power", A_POWER, N_POWER),
    ("end", A_END, 1), ("pass", A_PASS, 1),
)

# --- outcomes, rewards, config ------------------------------------------------------------
O_RACE_OVER = O_GAME               # the final round was played out
REWARD_MODES = ("rank",)           # zero-sum score from the final ranking
# configure_row's cfg vector
CFG_TRACK, CFG_DRAFT, CFG_MAX_ROUNDS = range(3)
CFG_N = 3
DRAFT_PICK, DRAFT_RANDOM = 0, 1

#: sentinel "no terrain penalty entered this turn"
NO_PENALTY = 7


def action_name(a: int) -> str:
    for name, lo, n in ACTION_RANGES:
        if lo <= a < lo + n:
            return name if n == 1 else f"{name}[{a - lo}]"
    raise ValueError(f"action {a} out of range 0..{NUM_ACTIONS - 1}")


# --- what the engine's kernel template needs (envs/core/codegen.py) ----------
from ..core.facts import KernelFacts  # noqa: E402

ILLEGAL_PENALTY = -1.0
KERNEL_FACTS = KernelFacts(game="dungeon_kart", num_actions=NUM_ACTIONS, max_seats=MAX_P,
                           illegal_penalty=ILLEGAL_PENALTY, win_outcome=O_RACE_OVER,
                           auto_counts_steps=True, has_finish=True, has_policy=True)
