"""Dungeon Crawler Carl: Unstoppable in the suite: the one declaration every layer reads
(:mod:`dungeonrl.envs.catalog`)."""

from ..catalog import GameEntry

GAME = GameEntry(
    name="dcc_unstoppable",
    env_id="dungeonrl/DCCUnstoppable-v1",
    order=40,
    pettingzoo="dungeonrl.envs.dcc_unstoppable_v1",
    agent_hooks="dungeonrl.envs.dcc_unstoppable.hooks:HOOKS",
    cli="dungeonrl.games.dcc_unstoppable",
    infostate="dungeonrl.envs.dcc_unstoppable.infostate:resample_rows",
)
