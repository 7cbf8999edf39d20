"""Dungeon Crawler Carl: Unstoppable: its one declaration (:mod:`dungeonrl.envs.catalog`)."""

from ..catalog import GameEntry

GAME = GameEntry(
    name="dcc_unstoppable",
    env_id="dungeonrl/DCCUnstoppable-v1",
    order=40,
    # precompile from an empty cache, Intel Xeon, 2 cores, 2026-12-04 (ordering only)
    compile_seconds=(("envs", 33.8), ("agents", 7.3)),
    # first step from an empty cache, 2 cores (benchmarks/results/cold_start.json)
    cold_start_seconds=32,
    # the short names its files go by too (tests, benchmarks)
    aliases=("dcc", "carl"),
)
