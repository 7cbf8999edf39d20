"""The Dungeon Crawler state record: one numpy structured dtype holds a whole
game for up to 8 seats (unused seats stay zero). Every field is documented
once here. The record includes the per-env generator (``rng``) and the
forced-dice test hook, so ``copy()`` is a complete snapshot.

Hidden fields (never read by the encoder for another seat): ``rng``,
``forced*``, ``item_deck`` / ``card_deck`` order, other seats' ``hand`` and
an ``offer`` owned by another seat.

Zones (every item / action card is in exactly one):
items: ``item_deck[:item_deck_n]``, ``item_disc[:item_disc_n]``,
``equip[seat, slot]``, ``offer[:offer_n]`` when ``offer_kind`` is draft /
armory / chest. Cards: ``card_deck``, ``card_disc``, ``hand[seat, type]``
(counts), ``offer`` when ``offer_kind`` is shop.
"""

import numpy as np

from ..core.kernel.header import state_dtype
from . import consts as C

P, NS, NF, SQ = C.MAX_P, C.NSTAT, C.NFLOOR, C.MAX_SQ

GAME_FIELDS = [
    # bookkeeping (the engine header -- rng, seed, episode, forced chance,
    # steps, max_steps, num_players (2..8), auto_advance, reward_mode
    # (consts.REWARD_MODES), outcome, actor, last_actor, legal -- comes
    # first: envs/core/kernel/header.py)
    ("round", np.int32),  # completed table rounds (seat 0 starts each)
    ("winner", np.int8),  # seat that killed the final boss, -1 none
    # flow
    ("phase", np.int8),  # consts.PH_*
    ("turn", np.int8),  # seat whose dungeon turn it is (-1 creation)
    ("turn_dead", np.int8),  # the turn's hero died: the turn ends
    ("resume_ph", np.int8),  # phase the turn returns to after a sub-phase
    ("roll", np.int8),  # movement roll (1d6 + boots + sprint)
    ("moved", np.int8),  # the turn's move was made
    ("sprinted", np.int8),  # Dungeon Sprint played this turn
    ("shadow", np.int8),  # Shadow Step active this turn
    ("cr_roll", np.int8),  # creation: the roll waiting to be assigned
    ("rebal_n", np.int8),  # creation: shift actions taken in this rebalance
    ("pend_card", np.int8),  # card type waiting for a target / slot (-1)
    ("pend_target", np.int8),  # its chosen target seat (-1)
    # heroes
    ("base", np.int8, (P, NS)),  # base ATK, DEF, HP, SPD (after rebalance)
    ("rolled", np.int8, (P, NS)),  # creation roll locked into each stat (0 = open)
    ("hp", np.int16, (P,)),  # current HP
    ("gold", np.int16, (P,)),
    ("floor", np.int8, (P,)),  # 0..2
    ("pos", np.int8, (P,)),  # square on the floor
    ("equip", np.int16, (P, C.NSLOT)),  # item id per slot, -1 empty
    ("vault", np.uint8, (P,)),  # bit per vaulted slot
    ("hand", np.int8, (P, C.MAX_CARDS)),  # count of each card type held; hidden
    ("hand_n", np.int8, (P,)),  # cards held (public)
    ("poison", np.int8, (P,)),  # poison turns left
    ("poison_dmg", np.int8, (P,)),  # HP lost per poisoned turn
    ("weak", np.int8, (P,)),  # ATK lost in the next combat (Weakness)
    ("curse", np.int8, (P,)),  # ATK lost until cured (Cursed Blade)
    ("enchant", np.int8, (P,)),  # ATK added while the weapon stays (Enchant)
    ("str_bonus", np.int8, (P,)),  # ATK for the next combat (Potion of Strength)
    ("cb_atk", np.int8, (P,)),  # combat modifiers of the current combat
    ("cb_def", np.int8, (P,)),
    ("deaths", np.int16, (P,)),  # statistics for episode info
    ("kills", np.int16, (P,)),  # monsters and heroes killed
    ("boss_dmg", np.int16, (P,)),  # damage dealt to the final boss
    # board
    ("sq_alive", np.int8, (NF, SQ)),  # mob / boss alive, chest closed
    ("sq_mob", np.int8, (NF, SQ)),  # mob type on a mob square (-1)
    ("sq_hp", np.int16, (NF, SQ)),  # mob / boss current HP (wounds persist)
    ("sq_back", np.int32, (NF, SQ)),  # round when a killed mob / opened chest returns
    ("final_boss", np.int8),  # which of the 3 final bosses (0..2)
    # decks
    ("item_deck", np.int16, (C.NITEM,)),  # draw pile, top = last; order hidden
    ("item_deck_n", np.int16),
    ("item_disc", np.int16, (C.NITEM,)),
    ("item_disc_n", np.int16),
    ("card_deck", np.int8, (C.DECK_MAX,)),  # order hidden
    ("card_deck_n", np.int16),
    ("card_disc", np.int8, (C.DECK_MAX,)),
    ("card_disc_n", np.int16),
    ("offer", np.int16, (C.OFFER_MAX,)),  # items or card types on offer
    ("offer_n", np.int8),
    ("offer_kind", np.int8),  # consts.OF_*
    ("offer_seat", np.int8),  # who sees the offer
    # combat (side A is always a hero; side B a monster or hero cb_b)
    ("cb_kind", np.int8),  # consts.OPP_* (OPP_NONE: no combat)
    ("cb_a", np.int8),
    ("cb_b", np.int8),
    ("cb_f", np.int8),  # floor of a board monster
    ("cb_sq", np.int8),  # its square (-1 summoned)
    ("cb_mob", np.int8),  # summoned mob type
    ("cb_mhp", np.int16),  # summoned mob HP
    ("cb_init_a", np.int8),  # side A started the fight (wins SPD ties)
    ("cb_win", np.int8),  # whose window: 0 side A, 1 side B (PvP)
    ("cb_round", np.int16),  # rounds resolved in this combat
    # loot after a hero kill
    ("loot_killer", np.int8),
    ("loot_victim", np.int8),
    ("loot_left", np.int8),
]

STATE_DTYPE = state_dtype(GAME_FIELDS, C.NUM_ACTIONS)
