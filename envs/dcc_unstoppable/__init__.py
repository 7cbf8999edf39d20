"""Dungeon Crawler Carl: Unstoppable (``shared/rules/dungeon-crawler-carl-unstoppable.txt``):
the deckbuilder, solo (Gymnasium ``dungeonrl/DCCUnstoppable-v1``) and as a
2-player co-op team (PettingZoo ``dungeonrl.envs.dcc_unstoppable_v1``), as
rules + content + encoder + render for the shared engine.

Description
-----------
A crawler (or two, as a team) builds a deck of cores on a floor of the World
Dungeon: each turn has an Upkeep (mana, action points, refresh), a Draft
(keep one of the revealed cores, sleeved with the top threat), a Main Phase
(basic spells, cards for action points, allies, upgrades bought into
top/bottom cutouts, threats defeated), a Threat Phase (active threats deal
damage; Terror, Retaliate, Taunt, Looming, Sacrifice, Fast) and a Cleanup
(battlefield refilled, level up on an empty deck, danger marker). The game
is won when every crawler has gone down the stairs, lost at 0 health for
anyone or when the danger marker reaches the skull. Content (cores,
threats, bosses, quests, upgrades, races, classes, danger tracks) is ours,
as data (``data/*.toml``); design, effect vocabulary and the DCC- coverage
table: ``envs/dcc_unstoppable/README.md``.

Actions
-------
``Discrete(116)``, one fixed meaning per index (``consts.ACTIONS``):
hand and play slots, exhausting allies, targets on either battlefield,
market slots, pay / accept, draft picks (solo: then which of the two cards
not kept goes lowest under the deck), pass the initiative to the teammate
(co-op), end the phase. Masked.

Observation
-----------
``float32[2646]`` from the deciding crawler's seat: own hand, battlefield
(active, looming, on deck), market, resources, levels, the danger track
ahead; in co-op the teammate's public state (hands are open between
teammates). Deck order, unseen threat sides and the RNG are never encoded.

Rewards
-------
``reward="winloss"`` (default): +1 to every seat when the team wins, -1 when
it loses (a team reward); ``"score"``: a win pays the game's XP unscaled
(``xp``, the arcade score / 100; at most ``progression.max_score_reward(content)``,
the top of ``spec.reward_range``), a loss -1. 0 on other steps and on
truncation; an illegal action ends the game with -1 for the acting seat.

Episode end
-----------
Terminated: win or loss, or an illegal action. Truncated: ``max_steps``
decisions (default 3000).

Arguments
---------
``gymnasium.make("dungeonrl/DCCUnstoppable-v1", floor=1, difficulty="normal",
mode="arcade", crawler="Carl", race=None, klass=None, campaign=None,
reward="winloss", max_steps=3000)``; co-op:
``dcc_unstoppable_v1.env(num_players=2, ...)``. Reset option ``campaign``
(deck list, XP, benefits, achievements carried between floors).
``obs_dtype="float16"`` (every env of the suite) gives the compact
observation: the same columns in half precision (the observation table
states what survives the rounding).

Version history
---------------
* v1: rules: the solo Draft asks which of the two cards not kept goes
  lowest under the core deck (DCC-125: pending decision ``bottom_order``,
  answered with the ``draft_K`` actions; the observation's decision one-hot
  grew by one column to 2646), and a crawler down the stairs gets no
  Cleanup refill, hence no Cleanup level-up, in that turn (DCC-196/230).
  A campaign sheet's deck list names distinct physical cards (drafted cores
  leave the supply). The PettingZoo module is ``dcc_unstoppable_v1``; models
  and snapshots saved with v0 are refused (layout version).
* v0: initial release.
"""

from ..core.lazy import game_exports

# imported on first use, so the game's own modules (and its encoder) import
# without the core and the kernels
__getattr__, __all__ = game_exports(__name__, "DCCCore")
