"""PettingZoo-style module of Dungeon Kart (``from dungeonrl.envs import
dungeon_kart_v1``): ``env()`` (wrapped), ``raw_env()``, ``parallel_env()``,
written once for every multi-seat game by :mod:`.core.pz_module`.

``env(num_players=4, track="Beginner Track", render_mode=None, **kwargs)``:
keyword arguments are those of
:class:`~dungeonrl.envs.dungeon_kart.DungeonKartCore` plus ``render_mode``,
``illegal_action`` and ``unknown_reset_options`` (the game declares no reset
options: ``"warn"``, the default, ignores any key with one ``UserWarning``
per env and key, the PettingZoo convention; ``"raise"`` makes it a
``ValueError``); see the game's doc page (``dungeonrl.envs.dungeon_kart``).
The race is turn-based, so the parallel form steps one decision of the seat
to act per call (the other seats' actions are ignored). The default
constructors pass PettingZoo's own tests as they are (``api_test``,
``parallel_api_test``, ``seed_test``, ``parallel_seed_test``,
``render_test``); ``max_cycles_test`` does not apply (one parallel step is
one decision, not a cycle in which every seat acts once; the caps are
``max_rounds`` and ``max_steps``). Importing this module registers
``"dungeonrl/DungeonKart-v1"`` with PettingZoo's registries.

Version history
---------------
The module's number is the game's version (``dungeonrl/DungeonKart-vN``);
what each version changed is on the game's doc page
(``dungeonrl.envs.dungeon_kart``).

* v1: this module (``dungeon_kart_v1``): the v1 rules (spell timing, the
  finish crossing).
* v0: ``dungeon_kart_v0``, initial release.
"""

from __future__ import annotations

from .core.adapters.pz_module import define
from .dungeon_kart import SPEC

globals().update(define(SPEC, __name__, default_players=4))
__all__ = ["env", "raw_env", "parallel_env", "ENV_ID"]
