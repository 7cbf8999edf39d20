"""The Dungeon Crawler Carl: Unstoppable state record.

``STATE_DTYPE`` = the engine header (``envs/core/kernel/header.py``) + the legal
mask + ``GAME_FIELDS`` below, each documented once. Arrays indexed ``[p]``
have one row per seat (2 rows always; row 1 unused in solo).

Hidden information (never read by the encoder): the order of every deck
(``deck`` below its top card, ``tdeck``, ``cdeck`` below the top card,
``udeck``, ``dungeon``, ``quest_order``), threat sides of sleeves that were
never revealed (``sl_seen`` = 0), the random generator of the header. The
teammate's hand is open information in co-op (A-40: the game is cooperative
and the rulebook encourages discussing picks), so it is not hidden.

Sleeves: a sleeved card is named by its threat side (sleeve id = threat id,
0..92) and 93/94 are the stairs cards of seats 0/1; ``sl_*`` arrays describe
each sleeve, and the zone arrays (deck, hand, ...) list sleeve ids.
"""

import numpy as np

from ..core.kernel import header
from . import consts as C

P = C.NPLAYERS_MAX
S = C.NSLEEVE

GAME_FIELDS = [
    # --- configuration (configure_row; kept across autoresets) -------------
    ("cfg_floor", np.int8),  # 1..3
    ("cfg_difficulty", np.int8),  # consts.D_*
    ("cfg_mode", np.int8),  # consts.M_ARCADE / M_CAMPAIGN
    ("cfg_crawler", np.int8),  # solo: 0 Carl, 1 Princess Donut
    ("cfg_race", np.int8, (P,)),  # race id, or RC_DRAFT / RC_PRESET / RC_NONE
    ("cfg_class", np.int8, (P,)),  # class id, or RC_DRAFT / RC_PRESET / RC_NONE
    # --- campaign carry-over (loaded by configure_row from reset options) --
    ("camp_xp", np.int16),  # XP box before this floor
    ("camp_ben", np.int8, (C.MAX_BENEFITS,)),  # benefits bought (circles filled)
    ("camp_ach", np.int8, (C.NFLOOR, C.ACH_PER_FLOOR)),  # achievements completed earlier
    (
        "camp_deck",
        np.int16,
        (P, C.CAMP_DECK),
    ),  # deck list core ids (-1 = none; all -1 = default 11)
    ("camp_upg", np.int16, (P, C.CAMP_DECK, 2)),  # permanent upgrades per entry (-1 = none)
    # --- flow ---------------------------------------------------------------
    ("phase", np.int8),  # consts.PH_*: the decision now asked for
    ("dec", np.int8),  # consts.DEC_*: pending decision in the Main Phase
    ("dec_player", np.int8),  # who owes the pending decision
    ("turn", np.int16),  # turns started (1 in the first turn)
    ("crawler", np.int8, (P,)),  # crawler of each seat (0 Carl, 1 Donut)
    ("main_done", np.int8, (P,)),  # seat ended its Main Phase this turn
    ("passes", np.int8),  # co-op initiative passes this Main Phase
    ("setup_seat", np.int8),  # seat choosing race/class at setup
    ("race_offer", np.int8, (P, 3)),  # arcade: the 3 races drawn per seat
    ("class_offer", np.int8, (P, 3)),  # arcade: the 3 classes drawn per seat
    (
        "space_queue",
        np.int8,
        (3,),
    ),  # pending optional danger-space effects: [elim p0, elim p1, market]
    # --- the pending resolution (one action at a time, DCC-134) -------------
    ("pend", np.int16, (C.MAXOPS, C.OPW)),  # the composed ops being resolved
    ("pend_n", np.int8),
    ("pend_i", np.int8),  # next op to resolve
    ("pend_src", np.int16),  # sleeve resolving (-1 = basic spell / none)
    ("pend_abil", np.int8),  # 0 play, 1+j exhaust ability j
    ("pend_elim", np.int8),  # 1: this was the 4th repeat; eliminate when done
    ("pend_upg", np.int8),  # DEC_UPGRADE: the market slot being bought
    ("sac_queue", np.int8, (P,)),  # Sacrifice discards owed per seat (DCC-379)
    ("sac_excl", np.int16, (P,)),  # the just-defeated card, never the discard
    # --- players ----------------------------------------------------------------
    ("health", np.int8, (P,)),
    ("mana", np.int8, (P,)),
    ("gold", np.int16, (P,)),  # unlimited (DCC-330)
    ("ap", np.int8, (P,)),
    ("level", np.int8, (P,)),  # large level disc (may pass 6 only for Unstoppable)
    ("small", np.int8, (P,)),  # small level disc (1..6)
    ("race", np.int8, (P,)),  # -1 none
    ("klass", np.int8, (P,)),  # -1 none
    ("descended", np.int8, (P,)),  # 0 no, 1 this turn, 2 in an earlier turn
    ("levels_after_stairs", np.int8, (P,)),  # level ups after descending this turn
    ("fresh", np.int8, (P,)),  # a card entered the deck since the last level up
    # --- piles of each seat (sleeve ids, top of the deck = last) -------------
    ("deck", np.int16, (P, C.PILE_CAP)),  # order hidden below the top card
    ("deck_n", np.int16, (P,)),
    ("hand", np.int16, (P, C.PILE_CAP)),
    ("hand_n", np.int16, (P,)),
    ("disc", np.int16, (P, C.PILE_CAP)),
    ("disc_n", np.int16, (P,)),
    ("bf", np.int16, (P, C.BF_CAP)),  # battlefield
    ("bf_n", np.int8, (P,)),
    ("play", np.int16, (P, C.PLAY_CAP)),  # tactics played this turn, allies in play
    ("play_n", np.int8, (P,)),
    # --- sleeves ---------------------------------------------------------------
    ("sl_core", np.int16, (S,)),  # core side in the sleeve (-1: boss, stairs, unsleeved)
    ("sl_up", np.int8, (S, 2)),  # upgrade in the top / bottom cutout (-1 none)
    ("sl_dmg", np.int8, (S,)),  # damage tokens (on a threat, or on a Tough ally)
    ("sl_loom", np.int8, (S,)),  # lying vertically (Looming)
    ("sl_exh", np.int8, (S,)),  # ally exhausted
    ("sl_owner", np.int8, (S,)),  # seat owning the sleeve (-1 none)
    ("sl_zone", np.int8, (S,)),  # consts.Z_*
    ("sl_seen", np.int8, (S,)),  # threat side revealed publicly
    ("sl_rep", np.int8, (S, 1 + C.NEXH)),  # resolutions this turn per effect (DCC-135)
    # --- supply -----------------------------------------------------------------
    ("core_zone", np.int8, (C.NCORE,)),  # consts.CZ_*: where each core side lies
    (
        "cdeck",
        np.int16,
        (C.MAX_LEVEL_DECK, C.CDECK_CAP),
    ),  # core decks 1..6, top = last; hidden below top
    ("cdeck_n", np.int8, (C.MAX_LEVEL_DECK,)),
    ("reveal", np.int16, (2 * C.DRAFT_DUO,)),  # draft: revealed cores (-1 none)
    ("reveal_lv", np.int8, (2 * C.DRAFT_DUO,)),  # the core deck each came from
    ("reveal_set", np.int8, (2 * C.DRAFT_DUO,)),  # co-op: the seat whose set it is
    ("draft_seat", np.int8),  # seat picking now
    ("draft_first", np.int8),  # co-op: set the first pick came from (-1 none)
    ("draft_keep", np.int16, (P, 2)),  # cores kept this draft per seat (-1 none)
    ("tdeck", np.int16, (C.NTHREAT,)),  # threat deck (top = last), hidden
    ("tdeck_n", np.int16),
    ("udeck", np.int8, (C.NUPGRADE,)),  # upgrade deck (top = last), hidden
    ("udeck_n", np.int8),
    ("market", np.int8, (C.MARKET_SIZE,)),  # face-up upgrades (-1 empty)
    ("upg_zone", np.int8, (C.NUPGRADE,)),  # 0 deck, 1 market, 2 sleeved
    ("dungeon", np.int16, (C.NBOSS,)),  # bosses not yet in play, hidden order
    ("dungeon_n", np.int8),
    # --- danger track -------------------------------------------------------------
    ("danger", np.int8),  # index of the marker's space
    # --- Floor 3 quests ---------------------------------------------------------------
    ("quest_order", np.int8, (C.MAX_QUESTS,)),  # quests in dealing order; hidden
    ("quest_next", np.int8),  # next index of quest_order to start
    ("quest", np.int8),  # active quest (-1 none)
    ("quest_part", np.int8),  # active part (0-based)
    ("quest_prog", np.int8),  # progress towards the part's requirement
    ("quest_owner", np.int8),  # seat whose level up started the quest
    ("quest_boss", np.int16),  # sleeve of the part's boss in play (-1 none)
    ("quests_done", np.int8),
    ("quest_xp", np.int16),  # XP of completed quests
    # --- records and scoring ---------------------------------------------------------
    ("defeats", np.int16, (P,)),  # threats defeated by each seat
    ("turn_defeats", np.int8, (P,)),  # this turn
    ("bosses", np.int8, (C.NBK,)),  # bosses defeated by kind (team)
    ("boss_xp", np.int16),  # XP of defeated bosses
    ("bought", np.int8),  # upgrades bought (team)
    ("ach", np.int8, (C.ACH_PER_FLOOR,)),  # floor achievements completed this game
    ("extra", np.int8, (C.NEXTRA,)),  # arcade extra achievements completed
    ("xp", np.int16),  # arcade XP at the end (won games)
    ("score", np.int32),  # arcade score = xp * 100
]

STATE_DTYPE = header.state_dtype(GAME_FIELDS, C.NUM_ACTIONS)
