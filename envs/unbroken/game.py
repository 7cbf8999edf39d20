"""Unbroken in the suite: the one declaration every layer reads
(:mod:`dungeonrl.envs.catalog`)."""

from ..catalog import GameEntry

GAME = GameEntry(
    name="unbroken",
    env_id="dungeonrl/Unbroken-v0",
    order=10,
    agent_hooks="dungeonrl.envs.unbroken.hooks:HOOKS",
    cli="dungeonrl.games.unbroken",
    infostate="dungeonrl.envs.unbroken.infostate:resample_rows",
)
