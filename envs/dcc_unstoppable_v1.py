"""PettingZoo-style module of Dungeon Crawler Carl: Unstoppable's 2-player
co-op (``from dungeonrl.envs import dcc_unstoppable_v1``): ``env()``
(wrapped), ``raw_env()``, ``parallel_env()``, written once for every
multi-seat game by :mod:`.core.pz_module`. The two seats win or lose
together (team reward); the interleaved Main Phase is a sequence of
decisions where the seat holding the initiative acts or passes it to its
teammate. Solo play is the Gymnasium env ``dungeonrl/DCCUnstoppable-v1``.

``env(num_players=2, render_mode=None, **kwargs)``: keyword arguments are
those of :class:`~dungeonrl.envs.dcc_unstoppable.DCCCore` plus
``render_mode``, ``illegal_action`` and ``unknown_reset_options``.
``reset(options={"campaign": sheet})`` starts from a campaign sheet (a bad
value is a ``ValueError``); another key is ignored with one ``UserWarning``
per env and key (the PettingZoo convention), or raises ``ValueError`` with
``unknown_reset_options="raise"``. The default constructors pass
PettingZoo's own tests as they are (``api_test``, ``parallel_api_test``,
``seed_test``, ``parallel_seed_test``, ``render_test``);
``max_cycles_test`` does not apply (one parallel step is one decision; the
cap is ``max_steps`` decisions).

Version history
---------------
The module's number is the game's version (``dungeonrl/DCCUnstoppable-vN``);
what each version changed is on the game's doc page
(``dungeonrl.envs.dcc_unstoppable``).

* v1: this module (``dcc_unstoppable_v1``): the v1 rules (the Draft's
  bottom order, no Cleanup after the stairs, distinct deck-list cards).
* v0: ``dcc_unstoppable_v0``, initial release.
"""

from __future__ import annotations

from .core.adapters.pz_module import define
from .dcc_unstoppable import SPEC

globals().update(define(SPEC, __name__, default_players=2))
__all__ = ["env", "raw_env", "parallel_env", "ENV_ID"]
