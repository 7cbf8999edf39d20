"""Dungeon Crawler in the suite: the one declaration every layer reads
(:mod:`dungeonrl.envs.catalog`)."""

from ..catalog import GameEntry

GAME = GameEntry(
    name="dungeon_crawler",
    env_id="dungeonrl/DungeonCrawler-v0",
    order=20,
    pettingzoo="dungeonrl.envs.dungeon_crawler_v0",
    agent_hooks="dungeonrl.envs.dungeon_crawler.hooks:HOOKS",
    cli="dungeonrl.games.dungeon_crawler",
    infostate="dungeonrl.envs.dungeon_crawler.infostate:resample_rows",
)
