"""The Unbroken state record: one numpy structured dtype holds a whole game.

Every field is documented here once. The record (``STATE_DTYPE``) includes the
per-env random generator (``rng``), so ``copy()`` is a complete snapshot; the
encoder never reads ``rng``, ``enc_deck``, ``skill_deck`` or an unrevealed
``monster``.
"""

import numpy as np

from ..core.kernel.header import state_dtype
from . import consts as C

NAB_MAX = 256  # the most abilities (all sources together) a content set may define

GAME_FIELDS = [
    # bookkeeping (the engine header -- rng, seed, episode, forced chance,
    # steps, max_steps, auto_advance, reward_mode, outcome, actor, legal --
    # comes first: envs/core/kernel/header.py)
    ("character", np.int8),  # 0 Sneak, 1 Sage, 2 Hunter, 3 Brawler
    ("difficulty", np.int8),  # 0 easy, 1 normal, 2 hard
    ("cfg_character", np.int8),  # configured character (-1 = random each episode)
    ("score", np.int16),  # final score (won games)
    ("title", np.int8),  # index of the score title, -1 if none
    # flow
    ("phase", np.int8),  # consts.PH_*: the decision now asked for
    ("stage", np.int8),  # consts.S_*: where the automatic flow resumes
    ("level", np.int8),  # 1..4
    ("combat", np.int8),  # 1 from Step 1A/1B to the end of the Level
    ("in_battle", np.int8),  # 1 during the Battle Step
    ("dead", np.int8),  # a forced Effort payment failed
    # resources
    ("res", np.int16, (C.NRES,)),  # S, M, L, Cunning, Food, Wood, Metal, Treasure
    ("time", np.int16),  # Time Tracker (0..track)
    ("uses", np.int8),  # character Ability Uses left this Level
    # weapons: stack of sheets, bottom = Bare Hands; the top one is equipped
    ("wstack", np.int8, (C.WSTACK,)),
    ("wstack_n", np.int8),
    ("waside", np.int8, (C.WSTACK,)),  # sheets set aside by a temporary downgrade
    ("waside_n", np.int8),
    ("waside_rounds", np.int8),  # rounds until the set-aside sheets return
    # encounter piles (card type ids, -1 = empty) and the revealed cards
    ("enc_deck", np.int16, (C.DECK_CAP,)),
    ("enc_deck_n", np.int16),
    ("enc_disc", np.int16, (C.DECK_CAP,)),
    ("enc_disc_n", np.int16),
    ("revealed", np.int16, (C.MAX_REVEAL,)),
    ("revealed_n", np.int8),
    ("reveal_bonus", np.int8),  # extra cards for the next Exploration Step
    ("commit", np.int8),  # committed to the next encounter
    ("commit_now", np.int8),  # the current Exploration Step is committed
    # skills
    ("skill_deck", np.int8, (C.MAX_SKILLS,)),
    ("skill_deck_n", np.int8),
    ("skill_disc", np.int8, (C.MAX_SKILLS,)),
    ("skill_disc_n", np.int8),
    ("skill_owned", np.int8, (C.MAX_SKILLS,)),
    ("skill_offer", np.int8, (2,)),
    ("skill_offer_n", np.int8),
    ("skill_pending", np.int8),  # skill rewards still to be offered
    ("skill_after", np.int8),  # stage to resume after the skill choice
    # conditions: 0 in the deck, 1 active, 2 waiting for next Level, 3 both
    ("cond", np.int8, (C.NCOND,)),
    ("cond_tokens", np.int8, (C.NCOND,)),
    ("cond_rounds", np.int8, (C.NCOND,)),  # rounds left (0 = whole combat/Level)
    ("evade", np.int16),  # bit per condition: skip its check this turn
    # monster
    ("monster", np.int8),  # monster id for this Level, -1 = not chosen
    ("m_revealed", np.int8),
    ("m_armor", np.int16),
    ("m_armor_max", np.int16),
    ("m_health", np.int16),
    ("m_health_max", np.int16),
    ("defend", np.int8),  # a DEFEND is pending
    ("ambushed", np.int8),
    ("tricked", np.int8),
    # battle
    ("round", np.int16),
    ("first_done", np.int8),  # the first turn of this round has been taken
    ("lose_turn", np.int8),
    ("extra_attack", np.int8),  # a Wrecker-style extra attack is granted
    ("pend_atk", np.int8),  # weapon attack being made (-1 none)
    ("pend_power", np.int16),
    ("pend_armor0", np.int16),  # monster Armor before the attack landed
    ("roll", np.int8),  # the pending monster Combat Roll (0 none)
    ("rerolls", np.int8),  # duplicate-condition re-rolls this turn
    # response window
    ("win_trigger", np.int8),
    ("win_resume", np.int8),  # stage after the window closes
    ("win_used", np.uint8, (NAB_MAX,)),
    ("hunger_req", np.int8),
    ("scratch", np.int16, (C.NCOST,)),  # scratch cost vector (no allocation in kernels)
]

STATE_DTYPE = state_dtype(GAME_FIELDS, C.NUM_ACTIONS)
