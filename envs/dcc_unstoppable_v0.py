"""PettingZoo-style module of Dungeon Crawler Carl: Unstoppable's 2-player
co-op (``from dungeonrl.envs import dcc_unstoppable_v0``): ``env()``
(wrapped), ``raw_env()``, ``parallel_env()``, written once for every
multi-seat game by :mod:`.core.pz_module`. The two seats win or lose
together (team reward); the interleaved Main Phase is a sequence of
decisions where the seat holding the initiative acts or passes it to its
teammate. Solo play is the Gymnasium env ``dungeonrl/DCCUnstoppable-v0``.
"""
from __future__ import annotations

from .core.pz_module import define
from .dcc_unstoppable import SPEC

globals().update(define(SPEC, __name__, default_players=2))
__all__ = ["env", "raw_env", "parallel_env", "ENV_ID"]
