"""The Dungeon Kart state record: the engine header (``envs/core/kernel/header.py``)
plus the fields below, for up to 8 seats (unused seats stay zero). Every
field is documented once here.

Hidden fields (never encoded for another seat): ``spell`` of other seats
(the card in hand; holding a marker is public), ``deck`` / ``disc`` order
(``deck`` is hidden, the discard piles are public but not encoded),
``bag`` (the hazard bag), ``offer`` order before it is shown is public, and
the header's ``rng`` / ``forced*``.

Zones: every spell card id (``0 .. T.n_cards-1``) is in exactly one of
``deck[d, :deck_n[d]]``, ``disc[d, :disc_n[d]]`` or ``spell[seat]``.
"""

import numpy as np

from ..core.kernel import header
from . import consts as C
from .hexgeo import NCELL

P = C.MAX_P

GAME_FIELDS = [
    # flow
    ("phase", np.int8),  # consts.PH_*
    ("round", np.int32),  # rounds completed
    ("first", np.int8),  # seat holding the First Player marker
    ("turn_k", np.int8),  # turns taken this round (0..n)
    ("cur", np.int8),  # seat whose turn it is (or who drafts)
    ("freeze_k", np.int8),  # round start: seats scanned for a Freeze card
    ("final_round", np.int8),  # 1 once a racer crossed the finish line
    ("finish_seq", np.int8),  # racers finished so far
    # configuration (configure_row)
    ("track", np.int8),  # index into the content's tracks
    ("draft_mode", np.int8),  # consts.DRAFT_PICK / DRAFT_RANDOM
    ("max_rounds", np.int16),  # round cap (truncation)
    # setup draft
    ("offer", np.int8, (P + 1,)),  # racer (then dashboard) ids on offer, -1 taken
    ("offer_n", np.int8),  # ids laid out
    ("draft_k", np.int8),  # picks made in the current draft
    # racers
    ("racer", np.int8, (P,)),  # racer id (-1 before the draft)
    ("dash", np.int8, (P,)),  # dashboard id (-1 before the draft)
    ("pos", np.int16, (P,)),  # board cell, -1 off the board (finished)
    ("prev", np.int16, (P,)),  # cell entered from by the last hex entry
    ("facing", np.int8, (P,)),  # hexgeo facing 0..5
    ("speed", np.int8, (P,)),  # speed setting 1..6
    ("coins", np.int16, (P,)),
    ("spell", np.int8, (P,)),  # spell card id in hand, -1 none; hidden from others
    ("marker", np.int8, (P,)),  # 1: holds a spell marker (public)
    ("crashed", np.int8, (P,)),  # Crashed: free facing at the start of its next turn
    ("frozen", np.int8, (P,)),  # a Freeze stops its speed change this round
    ("finished", np.int8, (P,)),  # crossed the finish line
    ("finish_mp", np.int16, (P,)),  # MP left when it crossed
    ("finish_no", np.int8, (P,)),  # order of crossing (1 = first)
    ("visited", np.uint32, (P,)),  # bit t: has been on route tile t
    ("place", np.int8, (P,)),  # Placement spot 1..n (ties share)
    ("pw_used", np.int8, (P, 2)),  # upper / lower power used this round
    # the current turn (cur)
    ("mp", np.int16),  # MP left this turn
    ("turn_used", np.int8),  # the dashboard Turn was taken
    ("drift_used", np.int8),  # the dashboard Drift was taken
    ("brake_used", np.int8),  # Brake was used
    ("extra_turns", np.int8),  # Turns granted by powers, 1 MP each
    ("extra_drifts", np.int8),  # Drifts granted by powers, full terrain cost
    ("bumped", np.uint8),  # bit s: seat s was bumped this turn
    ("rebump", np.int8),  # a power allows a second Bump of each opponent
    ("acted", np.int8),  # an action was taken after the speed change
    ("no_cast", np.int8),  # Crashed / Spun Out this turn: no spells, no powers
    ("pen_worst", np.int8),  # lowest penalty setting entered (NO_PENALTY none)
    ("tail_mp", np.int8),  # MP from a spell cast before the speed change, added at it
    ("move_over", np.int8),  # movement ended (turn end is due)
    ("ended_ok", np.int8),  # movement ended without a Crash / Spin Out
    # board
    ("tok", np.int8, (NCELL,)),  # token on each hex (consts.K_*)
    ("grass", np.int8, (NCELL,)),  # Overgrowth: the hex counts as grass
    # spells and hazards
    ("deck", np.int8, (C.NDECK, C.DECK_MAX)),  # undrawn card ids; hidden
    ("deck_n", np.int8, (C.NDECK,)),
    ("disc", np.int8, (C.NDECK, C.DECK_MAX)),  # discard piles
    ("disc_n", np.int8, (C.NDECK,)),
    ("bag", np.int8, (C.BAG_MAX,)),  # hazard tokens left in the bag; hidden
    ("bag_n", np.int8),
    # last chance results (public, for render and logs)
    ("last_smash", np.int8),  # last Smash die face 1..6 (0 none)
    ("last_boost", np.int8),  # last Boost die face 1..6 (0 none)
]

STATE_DTYPE = header.state_dtype(GAME_FIELDS, C.NUM_ACTIONS)

#: fields never encoded for a seat other than the owner / never at all
HIDDEN = ("deck", "bag")  # plus other seats' spell


def new_state(n=1):
    return np.zeros(n, STATE_DTYPE)
