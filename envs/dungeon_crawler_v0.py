"""PettingZoo-style module of Dungeon Crawler (``from dungeonrl.envs import
dungeon_crawler_v0``): ``env()`` (wrapped), ``raw_env()``.

``env(num_players=4, render_mode=None, **kwargs)`` returns the raw
:class:`~dungeonrl.envs.core.aec.DungeonAECEnv` wrapped, as PettingZoo's
classic games are, in ``AssertOutOfBoundsWrapper`` (an action outside the
action space fails loudly) and ``OrderEnforcingWrapper`` (no ``step`` or
``observe`` before ``reset``). Keyword arguments are those of
:class:`~dungeonrl.envs.dungeon_crawler.DungeonCrawlerCore` plus
``render_mode`` and ``illegal_action``; see the game's doc page
(``dungeonrl.envs.dungeon_crawler``).

Importing this module also registers ``"dungeonrl/DungeonCrawler-v0"`` in
PettingZoo's AEC registry (``pettingzoo.make("aec",
"dungeonrl/DungeonCrawler-v0")``) when the installed PettingZoo has one.
"""
from __future__ import annotations

from pettingzoo.utils import wrappers

from .core.aec import DungeonAECEnv
from .dungeon_crawler import SPEC

ENV_ID = SPEC.env_id
__all__ = ["env", "raw_env", "ENV_ID"]


def raw_env(num_players: int = 4, render_mode=None, **kwargs) -> DungeonAECEnv:
    return DungeonAECEnv(SPEC, render_mode=render_mode, num_players=num_players, **kwargs)


def env(num_players: int = 4, render_mode=None, **kwargs):
    e = raw_env(num_players=num_players, render_mode=render_mode, **kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def _register():
    try:
        import pettingzoo
        reg = getattr(pettingzoo, "register", None)
        aec_registry = getattr(pettingzoo, "aec_registry", None)
    except ImportError:  # pragma: no cover
        return
    if reg is None or (aec_registry is not None and ENV_ID in aec_registry):
        return
    reg("aec", ENV_ID, entry_point=f"{__name__}:env")


_register()
