"""PettingZoo-style module of Dungeon Crawler (``from dungeonrl.envs import
dungeon_crawler_v0``): ``env()`` (wrapped), ``raw_env()``, ``parallel_env()``.

``env(num_players=4, render_mode=None, **kwargs)`` returns a
:class:`~dungeonrl.envs.core.adapters.aec.CheckedAECEnv`: the raw env with the checks
of the wrappers PettingZoo's classic games use (``AssertOutOfBoundsWrapper``:
an action outside the action space fails loudly; ``OrderEnforcingWrapper``:
no ``step``, ``observe`` or episode attributes before ``reset``) built in,
without their per-call cost. Keyword arguments are those of
:class:`~dungeonrl.envs.dungeon_crawler.DungeonCrawlerCore` plus
``render_mode``, ``illegal_action`` and ``unknown_reset_options``; see the
game's doc page (``dungeonrl.envs.dungeon_crawler``). The game declares no
reset options: ``reset(options=...)`` ignores any key with one
``UserWarning`` per env and key (the PettingZoo convention), or raises
``ValueError`` with ``unknown_reset_options="raise"``.

The default constructors pass PettingZoo's own tests as they are
(``api_test``, ``parallel_api_test``, ``seed_test``,
``parallel_seed_test``, ``render_test``; ``tests/adapters/test_pettingzoo_official.py``).
``max_cycles_test`` does not apply: it counts a cycle as every agent acting
once, and needs one parallel step to be such a cycle, while here one
parallel step is one decision and a seat takes several decisions per turn;
the cap is ``max_steps`` (decisions), and there is no ``max_cycles``
argument.

``parallel_env(num_players=4, render_mode=None, **kwargs)`` is the
PettingZoo Parallel form (:class:`~dungeonrl.envs.core.adapters.parallel.DungeonParallelEnv`):
the game is strictly turn-based, so every step is one decision of the seat
to act (the only one with a non-zero mask); the other seats' actions are
ignored (send anything of their space, or ``None``). Its trajectory is the
AEC env's for the same seed and actions.

Both forms have ``state()`` / ``state_space``: every seat's observation
concatenated. For N games in one call (every seat's observations, masks and
rewards as arrays) use
:class:`~dungeonrl.envs.core.adapters.multi.BatchedMultiAgentEnv`; for one learner
seat against scripted or saved opponents (what SB3 and Gymnasium users
need), ``gymnasium.make("dungeonrl/DungeonCrawler-v0")``.

Importing this module also registers ``"dungeonrl/DungeonCrawler-v0"`` in
PettingZoo's AEC and parallel registries (``pettingzoo.make("aec",
"dungeonrl/DungeonCrawler-v0")``, ``pettingzoo.make("parallel", ...)``)
when the installed PettingZoo has them.

Version history
---------------
The module's number is the game's version (``dungeonrl/DungeonCrawler-vN``);
what each version changed is on the game's doc page
(``dungeonrl.envs.dungeon_crawler``).

* v0: this module (``dungeon_crawler_v0``), initial release.
"""

from __future__ import annotations

from .core.adapters.pz_module import define
from .dungeon_crawler import SPEC

globals().update(define(SPEC, __name__, default_players=4))
__all__ = ["env", "raw_env", "parallel_env", "ENV_ID"]
