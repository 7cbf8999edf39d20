"""Unbroken: its one declaration (:mod:`dungeonrl.envs.catalog`)."""

from ..catalog import GameEntry

GAME = GameEntry(
    name="unbroken",
    env_id="dungeonrl/Unbroken-v0",
    order=10,
    # precompile from an empty cache, Intel Xeon, 2 cores, 2026-12-04 (ordering only)
    compile_seconds=(("envs", 18.9), ("agents", 11.9)),
    # first step from an empty cache, 2 cores (benchmarks/results/cold_start.json)
    cold_start_seconds=17,
)
