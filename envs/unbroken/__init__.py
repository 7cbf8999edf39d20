"""Unbroken: a solo survival card game as a Gymnasium environment.

Description
-----------
You are an adventurer left for dead in monster-filled caverns. Over 4 Levels
you alternate a Travel Phase (prepare, explore encounter cards for
resources, rest, craft weapons, scout the coming monster) and a Combat Phase
(trick the monster or fight it turn by turn with weapon attacks, actions and
Responses, then eat). Beat the Level 4 monster and survive its Hunger Step
to win; fail to pay a forced Effort cost and you die. The full rules, how
each rule is implemented, and every design choice the rulebook left open are
in ``envs/unbroken/README.md`` (coverage table included).

Action Space
------------
``Discrete(80)``; each index has one fixed meaning (``SPEC.action_names``):

==========  ===============================================================
index       meaning
==========  ===============================================================
0-2         Focus (4 S -> 1 M), Inspiration (2 M -> 1 L), Plan (4 S -> 1 Cunning)
3-4         Craft: upgrade to the weapon's first / second upgrade option
5           downgrade the weapon permanently (never Bare Hands)
6-7         Orienteer (1 S: +2 cards next exploration), Scout (reveal the monster)
8-9         Decision Step: fight now / explore
10-17       resolve revealed encounter card 0-7 (the Exchange)
18-25       rest on revealed card 0-7 (gain Small Effort = its Time Value)
26-27       Trickery Step: trick the monster / fight it
28-31       weapon attack option 0-3 of the equipped weapon
32          skip the battle turn
33          pass (close a Response window, decline an extra attack)
34-65       use Skill 0-31 (as an action, or as a Response in a window)
66-68       use character ability 0-2
69-70       use the monster sheet's player option 0-1
71-72       keep offered Skill 0 / 1
73-79       Hunger Step: eat 0-6 Food
==========  ===============================================================

Masks: ``env.action_masks()`` (bool) and ``info["action_mask"]`` (int8).
Decisions with a single legal action are taken automatically
(``auto_advance=True``, the default).

Observation Space
-----------------
``Box(-inf, inf, (OBS_SIZE,), float32)``: the player's Display, encoded by
:mod:`dungeonrl.encoders.unbroken` (feature names in
``SPEC.feature_names``). It never shows deck orders, an unrevealed monster
or the random generator.

Rewards
-------
``reward="win_loss"`` (default): +1 on a win, -1 on a loss, 0 otherwise.
``reward="score"``: a win pays 1 + min(score, 100) / 100; a loss pays
-1 + 0.2 * (Level reached - 1). An illegal action (default policy) ends the
episode with -1 and ``info["illegal_action"] = True``.

Episode End
-----------
Terminated: the game is won or lost, or an illegal action was sent.
Truncated: ``max_steps`` decisions (default 3000) were taken; a
battle can otherwise stall (a player may skip forever).

Arguments
---------
``gymnasium.make("dungeonrl/Unbroken-v0", character="sneak",
difficulty="normal", reward="win_loss", auto_advance=True,
max_steps=3000, illegal_action="penalize", render_mode=None,
content=None)``. ``character`` may be "random" (a new one each episode).
``content`` is a folder of replacement content files.
``obs_dtype="float16"`` (every env of the suite) gives the compact
observation: the same columns in half precision (the observation table
states what survives the rounding).

Version History
---------------
* v0: initial release.
"""

from ..core.lazy import game_exports

# imported on first use, so the game's own modules (and its encoder) import
# without the core and the kernels
__getattr__, __all__ = game_exports(__name__, "CHARACTERS", "UnbrokenCore")
