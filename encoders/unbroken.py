"""Unbroken observation encoder: the player's Display as a flat float32 vector.

This is an *observation* of what the physical player can see (and it is also
the information state: the game has one player, so nothing else is hidden
from the agent than chance): resources, Time, the weapon, Skills owned,
Conditions, the revealed monster and its trackers, the cards on the table,
the Skills offered, the pending monster roll and which Response window is
open, plus public pile sizes.

It never reads the order of the Encounter or Skill decks, the monster of a
Level before it is revealed (by Scouting or at the start of combat), or the
random generator.

``OBSERVATION`` declares the blocks (name, shape, meaning, value range);
``FEATURES`` lists ``(name, offset, size)`` of each and ``feature_names()``
gives one name per column. ``encode(st, T, out)`` is a numba kernel that writes
``OBS_SIZE`` floats into a preallocated row.
"""

from __future__ import annotations


from ..envs.core.kernel.jit import JIT, njit
from ..envs.core.layout import ObsLayout, block
from ..envs.unbroken import consts as C

#: the columns of one revealed card slot
CARD_COLUMNS = (
    ("present", "time_value")
    + tuple(f"spend:{r}" for r in C.COST_NAMES)
    + tuple(f"gain:{r}" for r in C.RES_NAMES)
    + ("commit", "reveal", "cure", "skill", "other_effect")
)
N_CARD = len(CARD_COLUMNS)  # 1 + 1 + NCOST + NRES + 5 per revealed card slot

# every column lies in [OBS_LOW, OBS_HIGH] = [-1, 20]: most are fractions of a
# bar in [0, 1]; the reveal bonus can be -1 and token or round counts (up to
# 100) divided by 5 can reach 20
OBSERVATION = ObsLayout(
    "unbroken",
    [
        block("phase", C.NPHASE, "the decision owed (one-hot)", labels=C.PHASE_NAMES),
        block("level", C.NLEVEL, "the Level, 1-4 (one-hot)"),
        block("difficulty", 3, "the difficulty (one-hot)", labels=C.DIFFICULTIES),
        block("character", C.NCHAR, "the character (one-hot)"),
        block("resource", C.NRES, "each resource as a fraction of its bar", labels=C.RES_NAMES),
        block("time", 1, "Time left as a fraction of the track"),
        block("time_paid_in_small", 1, "1 while Time is paid in Small Effort (Level 4 combat)"),
        block("ability_uses", 1, "character Ability Uses left / 4"),
        block("weapon", C.NWEAPON, "the equipped weapon (one-hot)"),
        block("weapon_stack", 1, "weapon sheets stacked / 8"),
        block("weapon_aside", 1, "weapon sheets set aside / 8"),
        block("weapon_aside_rounds", 1, "rounds until set-aside sheets return / 10", high=12.7),
        block("skill_owned", C.MAX_SKILLS, "1 for each Skill owned"),
        block("condition_active", C.NCOND, "1 for each active Condition"),
        block("condition_waiting", C.NCOND, "1 for each Condition waiting for the next Level"),
        block("condition_tokens", C.NCOND, "tokens on each Condition / 5", high=20.0),
        block("condition_rounds", C.NCOND, "rounds left on each Condition / 5", high=20.0),
        block("monster_revealed", 1, "1 once the Level's monster is revealed"),
        block("monster", C.NMONSTER, "the revealed monster (one-hot)"),
        block("monster_armor", 1, "monster Armor / Armor bar"),
        block("monster_armor_max", 1, "monster starting Armor / Armor bar"),
        block("monster_health", 1, "monster Health / Health bar"),
        block("monster_health_max", 1, "monster starting Health / Health bar"),
        block("monster_defend", 1, "1 while the monster DEFENDs"),
        block("ambushed", 1, "1 when this combat began with an Ambush"),
        block("in_battle", 1, "1 during the Battle Step"),
        block("round", 1, "battle round / 50 (capped)"),
        block("commit_next", 1, "1 when committed to the next encounter"),
        block("commit_now", 1, "1 when committed to the cards now shown"),
        block("reveal_bonus", 1, "extra cards at the next exploration / 8", low=-1.0),
        block(
            "card",
            (C.MAX_REVEAL, N_CARD),
            "each revealed card: Time Value, Spend, Gain / 5, effect kinds",
            low=-1.0,
            high=20.0,
            labels=([f"card{i}" for i in range(C.MAX_REVEAL)], CARD_COLUMNS),
            prefix=False,
        ),
        block(
            "skill_offer",
            (2, C.MAX_SKILLS),
            "the Skills offered (one-hot each)",
            labels=([f"skill_offer{i}" for i in range(2)], [str(k) for k in range(C.MAX_SKILLS)]),
            prefix=False,
        ),
        block("monster_roll", 6, "the pending monster Combat Roll, 1-6 (one-hot)"),
        block(
            "response_window", C.NTRIG, "the open Response window (one-hot)", labels=C.TRIGGER_NAMES
        ),
        block("pending_attack_power", 1, "power of the attack being resolved / 10", high=20.0),
        block("hunger_requirement", 1, "Food Requirement of the Hunger Step / 4", high=1.5),
        block("encounter_deck_size", 1, "encounter pile size / 128"),
        block("encounter_discard_size", 1, "encounter discard size / 128"),
        block("skill_deck_size", 1, "Skill deck size / 32"),
        block("step_fraction", 1, "decisions taken / the step cap"),
    ],
)
OBS_SIZE = OBSERVATION.size
OBS_LOW = OBSERVATION.low
OBS_HIGH = OBSERVATION.high
FEATURES = OBSERVATION.features  # (name, offset, size) of every block
OFF = {name: off for name, off, _ in FEATURES}

# block offsets as plain ints for numba
O_PHASE = OFF["phase"]
O_LEVEL = OFF["level"]
O_DIFF = OFF["difficulty"]
O_CHAR = OFF["character"]
O_RES = OFF["resource"]
O_TIME = OFF["time"]
O_TSMALL = OFF["time_paid_in_small"]
O_USES = OFF["ability_uses"]
O_WEAPON = OFF["weapon"]
O_WSTACK = OFF["weapon_stack"]
O_WASIDE = OFF["weapon_aside"]
O_WASIDE_R = OFF["weapon_aside_rounds"]
O_SKILL = OFF["skill_owned"]
O_CACT = OFF["condition_active"]
O_CWAIT = OFF["condition_waiting"]
O_CTOK = OFF["condition_tokens"]
O_CRND = OFF["condition_rounds"]
O_MREV = OFF["monster_revealed"]
O_MON = OFF["monster"]
O_MARM = OFF["monster_armor"]
O_MARMX = OFF["monster_armor_max"]
O_MHP = OFF["monster_health"]
O_MHPX = OFF["monster_health_max"]
O_DEF = OFF["monster_defend"]
O_AMB = OFF["ambushed"]
O_INB = OFF["in_battle"]
O_ROUND = OFF["round"]
O_COMMIT = OFF["commit_next"]
O_COMMITN = OFF["commit_now"]
O_RBONUS = OFF["reveal_bonus"]
O_CARD = OFF["card"]
O_OFFER = OFF["skill_offer"]
O_ROLL = OFF["monster_roll"]
O_WIN = OFF["response_window"]
O_PPOW = OFF["pending_attack_power"]
O_HUNGER = OFF["hunger_requirement"]
O_EDECK = OFF["encounter_deck_size"]
O_EDISC = OFF["encounter_discard_size"]
O_SDECK = OFF["skill_deck_size"]
O_STEP = OFF["step_fraction"]

# Scaling by a constant reciprocal instead of dividing (a division is slow):
# for an integer |x| < 2**24 and a small integer divisor d, float32(x * (1/d))
# equals float32(x / d) (the argument is written out in the Dungeon Crawler
# encoder). The fields scaled this way are small counters and card numbers;
# the unbounded ones (pending attack power, the step counter) and the
# content-dependent bars keep their division.
R5, R10, R50 = 1.0 / 5.0, 1.0 / 10.0, 1.0 / 50.0


def feature_names():
    """One name per observation column."""
    return OBSERVATION.names()


@njit(**JIT)
def encode_row(st, T, seat, out):
    """Write the observation of record ``st`` into ``out`` (float32[OBS_SIZE]);
    the game has one seat, so ``seat`` is not read."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    out[O_PHASE + st.phase] = 1.0
    if st.level >= 1 and st.level <= 4:
        out[O_LEVEL + st.level - 1] = 1.0
    out[O_DIFF + st.difficulty] = 1.0
    out[O_CHAR + st.character] = 1.0
    for r in range(C.NRES):
        out[O_RES + r] = st.res[r] / T.bars[r]
    out[O_TIME] = st.time / T.time_track
    out[O_TSMALL] = 1.0 if (st.level == 4 and st.combat == 1) else 0.0
    out[O_USES] = st.uses / 4.0
    out[O_WEAPON + st.wstack[st.wstack_n - 1]] = 1.0
    out[O_WSTACK] = st.wstack_n / C.WSTACK
    out[O_WASIDE] = st.waside_n / C.WSTACK
    out[O_WASIDE_R] = st.waside_rounds * R10
    for i in range(C.MAX_SKILLS):
        out[O_SKILL + i] = st.skill_owned[i]
    for c in range(C.NCOND):
        out[O_CACT + c] = st.cond[c] & 1
        out[O_CWAIT + c] = (st.cond[c] >> 1) & 1
        out[O_CTOK + c] = st.cond_tokens[c] * R5
        out[O_CRND + c] = st.cond_rounds[c] * R5
    if st.m_revealed == 1 and st.monster >= 0:
        out[O_MREV] = 1.0
        out[O_MON + st.monster] = 1.0
        out[O_MARM] = st.m_armor / T.armor_cap
        out[O_MARMX] = st.m_armor_max / T.armor_cap
        out[O_MHP] = st.m_health / T.health_cap
        out[O_MHPX] = st.m_health_max / T.health_cap
    out[O_DEF] = st.defend
    out[O_AMB] = st.ambushed
    out[O_INB] = st.in_battle
    out[O_ROUND] = min(st.round, 50) * R50
    out[O_COMMIT] = st.commit
    out[O_COMMITN] = st.commit_now
    out[O_RBONUS] = st.reveal_bonus / 8.0
    for i in range(st.revealed_n):
        card = st.revealed[i]
        o = O_CARD + i * N_CARD
        out[o] = 1.0
        out[o + 1] = T.e_time[card] * R5
        for r in range(C.NCOST):
            out[o + 2 + r] = T.e_spend[card, r] * R5
        for r in range(C.NRES):
            out[o + 2 + C.NCOST + r] = T.e_gain[card, r] * R5
        f = o + 2 + C.NCOST + C.NRES
        for k in range(C.MAXOPS):
            code = T.e_ops[card, k, 0]
            if code == C.OP_NONE:
                break
            if code == C.OP_COMMIT:
                out[f] = 1.0
            elif code == C.OP_REVEAL:
                out[f + 1] = T.e_ops[card, k, 2] / 2.0
            elif code == C.OP_CURE or code == C.OP_CLEANSE:
                out[f + 2] = 1.0
            elif code == C.OP_SKILL:
                out[f + 3] = 1.0
            else:
                out[f + 4] = 1.0
    for i in range(st.skill_offer_n):
        out[O_OFFER + i * C.MAX_SKILLS + st.skill_offer[i]] = 1.0
    if st.roll > 0:
        out[O_ROLL + st.roll - 1] = 1.0
    if st.phase == C.PH_RESPOND:
        out[O_WIN + st.win_trigger] = 1.0
    if st.pend_atk >= 0:
        out[O_PPOW] = st.pend_power / 10.0
    out[O_HUNGER] = st.hunger_req / 4.0
    out[O_EDECK] = st.enc_deck_n / C.DECK_CAP
    out[O_EDISC] = st.enc_disc_n / C.DECK_CAP
    out[O_SDECK] = st.skill_deck_n / C.MAX_SKILLS
    out[O_STEP] = st.steps / max(1, st.max_steps)
