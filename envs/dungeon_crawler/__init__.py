"""Dungeon Crawler: a 2-8 player competitive dungeon delve as a PettingZoo
AEC environment.

Description
-----------
Every hero rolls a character (four 6+1d4 rolls locked into ATK, DEF, HP,
SPD; up to 4 points rebalanced; one of three drafted items), then the heroes
race down three floors of one shared dungeon, taking turns: roll 1d6 plus
the boots bonus, walk forward or back, resolve the square they stop on
(chest, mob, shop, armory, mid-floor boss, stairs, the final boss's lair, or
a rival to fight), play action cards, end the turn. Combat is round by
round: the faster side strikes first for max(1, ATK + d6 - DEF). Rivals
ambush, assassinate, rob, curse and poison each other; a dead hero loses
gear (the killer picks it) and respawns at the start of the floor. The
hero who lands the killing blow on the final boss wins. The rules in our
words, every design decision the rulebook left open and a coverage table
of the rule ids are in ``envs/dungeon_crawler/README.md``.

Actions
-------
``Discrete(NUM_ACTIONS)`` (``SPEC.num_actions``), one fixed meaning per
index (``SPEC.action_names``; ranges in ``consts.A_*``): assign the current
roll to a stat (4); move one rebalance point a->b (12); finish rebalancing;
keep draft item k (3); walk forward / back k squares (16 + 16); play card
type c (32 slots, 28 used); target seat t (8); choose gear slot s (6); buy
offer k (3); leave shop/armory; equip / decline a chest item; fight (one
combat round); take or discard a slain rival's slot-s item (6 + 6); end
turn. Only the seat ``agent_selection`` acts; its mask is
``observation["action_mask"]`` (int8), every other seat's mask is zero.
Decisions with a single legal action are taken automatically
(``auto_advance=True``).

Observation
-----------
``{"observation": Box(-inf, inf, (OBS_SIZE,), float32), "action_mask":
Box(0, 1, (NUM_ACTIONS,), int8)}`` from the observing seat's point of view
(:mod:`dungeonrl.encoders.dungeon_crawler`, names in
``SPEC.feature_names``): own stats, gear, statuses, hand and offers; the
public facts about rivals (floor, square, HP, stats, gold, hand size, gear
tiers, vaults, statuses); the combat; the board; the final boss. Never a
rival's hand, another seat's offer, deck orders or the generator.

Rewards
-------
``reward="zero_sum"`` (default): when the final boss dies, +1 to its
killer and -1/(N-1) to every other seat. ``reward="winner_only"``: +1 to
the killer, 0 to the rest. 0 on every other step and on truncation. An
illegal action (default policy) ends the game with -1 for the acting seat
(0 for the others) and ``infos[agent]["illegal_action"] = True``.

Episode end
-----------
Terminated: the final boss was killed, or an illegal action was sent.
Truncated: ``max_steps`` agent decisions (default 5000) were taken.

Arguments
---------
``dungeon_crawler_v0.env(num_players=4, render_mode=None,
reward="zero_sum", auto_advance=True, max_steps=5000,
illegal_action="penalize", content=None)``; ``render_mode`` is one of
"ansi", "rgb_array", "human" (prints the ansi text). ``content`` is a
folder of replacement content files. ``obs_dtype="float16"`` (every env of
the suite) gives the compact observation: the same columns in half
precision (the observation table states what survives the rounding).

Version history
---------------
* v0: initial release. During development: a hero's rebalance is capped
  at 8 shift actions (a new ``rebal_n`` field; the layout version changed,
  so models saved before are refused).
"""

from ..core.lazy import game_exports

# imported on first use, so the game's own modules (and its encoder) import
# without the core and the kernels
__getattr__, __all__ = game_exports(__name__, "DungeonCrawlerCore")
