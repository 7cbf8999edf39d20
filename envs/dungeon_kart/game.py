"""Dungeon Kart: its one declaration (:mod:`dungeonrl.envs.catalog`)."""

from ..catalog import GameEntry

GAME = GameEntry(
    name="dungeon_kart",
    env_id="dungeonrl/DungeonKart-v1",
    order=30,
    # precompile from an empty cache, Intel Xeon, 2 cores, 2026-12-04 (ordering only)
    compile_seconds=(("envs", 25.3), ("agents", 0.5)),
    # first step from an empty cache, 2 cores (benchmarks/results/cold_start.json)
    cold_start_seconds=24,
    # the short names its files go by too (tests, benchmarks)
    aliases=("kart",),
)
