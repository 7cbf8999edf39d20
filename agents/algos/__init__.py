"""The learning and search algorithms of the agents layer.

================  ===========================================================
module            what it holds
================  ===========================================================
``ppo``           the fast path: one-file masked PPO on the numba batch
``sb3``           sb3-contrib MaskablePPO on ``DungeonSB3VecEnv``, same network
``bc``            optional kickstart: behaviour cloning (+ DAgger) of a teacher
``selfplay``      opponent pools, the training view, matches of the multi-seat games
``pfsp``          league training: prioritized fictitious self-play
``search``        information-set MCTS over determinizations (``search:...`` agents)
``rllib``         every game as a Ray RLlib environment, and its training path
================  ===========================================================

None of them names a game: what a game adds (its options, statistics,
scripted policy) comes from its hooks (:mod:`dungeonrl.envs.core.hooks`).
"""
