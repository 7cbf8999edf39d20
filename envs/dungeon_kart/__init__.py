"""Dungeon Kart: the 2-8 player hex kart race (``shared/rules/dungeon-kart.txt``)
as rules + content + encoder + render for the shared engine.

Modules: :mod:`.hexgeo` (geometry), :mod:`.content` (TOML -> tables, track
builder, custom text boards), :mod:`.consts` (numbering, action layout),
:mod:`.state` (the state record), :mod:`.rules` (row functions),
:mod:`.policy` (scripted heuristic), :mod:`.render` (text and picture);
the encoder is :mod:`dungeonrl.encoders.dungeon_kart`. See README.md.

Description
-----------
A race of 2-8 karts over a hex track built from tile faces (circuits and
point-to-point sprints). Each turn a racer sets its speed dial, spends the
dashboard's movement points on Move / Turn / Drift / Bump / Brake, may cast
its spell or use a Racer power, and ends the turn (unspent points crash it).
Terrain, walls, hazards, coins, spellbooks, Smash and Boost dice, the
end-of-round Placement and spell hand-out, the final round and the finish by
movement points left are the rulebook's; the content (30 tile faces, tracks,
dashboards, racers, spells, Epic Heroes) is ours, as data.

Actions
-------
``Discrete(71)``, one fixed meaning per index (``consts.ACTIONS``):
draft picks, speed change, facing after a crash, move, turns, drifts,
bumps (target seat x side), brake, spell (target), powers (which x target),
end, pass. Masked: only legal actions of the seat to act are 1.

Observation
-----------
``{"observation": float32[3633], "action_mask": int8[71]}`` of the acting
seat: an egocentric hex patch of 61 cells around the kart (terrain, pips,
walls, karts with facing and speed, tokens) and global features
(``encoders/dungeon_kart.py`` ``OBSERVATION``). Opponents' spells, deck
orders, the hazard bag and the RNG are never encoded.

Rewards
-------
At the end of the race, the final ranking as a zero-sum score: place k of n
is worth 1 - 2k/(n-1); tied racers share the mean of the places they span.
Racers that never finish rank below finishers, by Placement then coins.
An illegal action ends the race with -1 for the acting seat.

Episode end
-----------
Terminated: the final round was played out, or an illegal action. Truncated:
the round cap (``max_rounds``) or the decision cap (``max_steps``).

Arguments
---------
``dungeon_kart_v1.env(num_players=4, track="Beginner Track", draft="pick",
max_rounds=60, auto_advance=True, max_steps=10000, render_mode=None,
illegal_action="penalize", content=None)``. ``obs_dtype="float16"``
(every env of the suite) gives the compact observation: the same columns in
half precision (the observation table states what survives the rounding).

Version history
---------------
* v1: rules: a spell with no timing may also be cast before the
  speed choice (DK-198; the action indices are unchanged, the mask offers
  more); crossing the finish line costs 0 MP on circuits as on sprints
  (DK-A41; circuits used to charge the pips of the hex beyond the line);
  the rewards and the episode info's ``placements`` come from one final
  ranking.
  The module is ``dungeon_kart_v1``; models and snapshots saved with v0 are
  refused (layout version).
* v0: initial release.
"""

from ..core.lazy import game_exports

# imported on first use, so the game's own modules (and its encoder) import
# without the core and the kernels
__getattr__, __all__ = game_exports(__name__, "DungeonKartCore")
