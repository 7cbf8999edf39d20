"""Dungeon Crawler: its one declaration (:mod:`dungeonrl.envs.catalog`)."""

from ..catalog import GameEntry

GAME = GameEntry(
    name="dungeon_crawler",
    env_id="dungeonrl/DungeonCrawler-v0",
    order=20,
    # precompile from an empty cache, Intel Xeon, 2 cores, 2026-12-04 (ordering only)
    compile_seconds=(("envs", 27.8), ("agents", 0.5)),
    # first step from an empty cache, 2 cores (benchmarks/results/cold_start.json)
    cold_start_seconds=27,
)
