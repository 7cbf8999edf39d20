"""dungeonrl.agents: baselines, training and evaluation for every game.

The layer sits below the command line (:mod:`dungeonrl.cli`,
:mod:`dungeonrl.play`, :mod:`dungeonrl.demo`), which loads it and which it never imports; its
modules import one another at module level without a circle (only torch,
Stable-Baselines3 and Ray, and the modules built on them, load on first use).

=====================  ===========================================================
room / module          what it holds
=====================  ===========================================================
``algos/``             the algorithms: ``ppo``, ``sb3``, ``bc``, ``selfplay``,
                       ``pfsp``, ``search``, ``rllib`` (:mod:`.algos`)
``commands/``          the commands: ``train``, ``runs``, ``evaluate``,
                       ``exploit``, ``dataset``, ``record`` (:mod:`.commands`)
``policy``             batched agents (random, heuristic, PPO, SB3, RLlib, search),
                       ``make_agent``, ``as_agent``, ``load_policy``
``protocol``           the public agent protocol (``act(obs, mask)``) and its adapters
``pretrained``         the shipped reference agents: ``pretrained:NAME``, their cards
``zoo``                shipping, retraining and checking the reference agents
``selfplay_env``       a multi-seat game as a single-agent Gymnasium env
``replay``             replay files: record, save, load with checks, re-simulate
``league``             Elo ratings and round-robin leagues (PvP games)
``modelspec``          what saved models carry, which kind a file is; ``ModelSpecError``
``metrics``            CSV/JSON records and the learning-curve PNG
``options``            command-line options declared as dataclass fields
``words``              counts in words for what the commands print
=====================  ===========================================================

Nothing here is written for one game: a game's hooks and scripted
heuristic live in its own package (``envs/<game>/hooks.py``,
:mod:`dungeonrl.envs.core.hooks`), and the agents read them.
"""
