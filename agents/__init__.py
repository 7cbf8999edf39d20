"""dungeonrl.agents: baselines, training and evaluation for every game.

The layer sits below the command line (:mod:`dungeonrl.cli`,
:mod:`dungeonrl.games`), which loads it and which it never imports; its
modules import one another at module level without a circle (only torch,
Stable-Baselines3 and Ray, and the modules built on them, load on first use).

=====================  ===========================================================
module                 what it holds
=====================  ===========================================================
``ppo``                the fast path: one-file masked PPO on the numba batch
``sb3``                sb3-contrib MaskablePPO on ``DungeonSB3VecEnv``, same network
``bc``                 optional kickstart: behaviour cloning (+ DAgger) of a teacher
``policy``             batched agents (random, heuristic, PPO, SB3, RLlib), ``make_agent``,
                       ``as_agent``, ``load_policy``
``protocol``           the public agent protocol (``act(obs, mask)``) and its adapters
``pretrained``         the shipped reference agents: ``pretrained:NAME``, their cards
``zoo``                shipping, retraining and checking the reference agents
``exploit``            ``dungeonrl exploit``: a best response against a frozen agent
``pfsp``               league training: prioritized fictitious self-play, ratings
``replay``             replay files: record, save, load with checks, re-simulate
``evaluate``           ``dungeonrl eval``: win rates with 95% Wilson intervals
``train``              ``dungeonrl train``: progress bar, model, metrics, curve
``runs``               run folders, the evaluation and curve after training
``options``            command-line options declared as dataclass fields
``league``             Elo ratings and round-robin leagues (PvP games)
``modelspec``          what saved models carry, which kind a file is; ``ModelSpecError``
``games``              per-game hooks: the one place a new game plugs in
``metrics``            CSV/JSON records and the learning-curve PNG
``demo``               ``make demo``
``unbroken_*``         Unbroken's scripted heuristic and its hooks
``dungeon_crawler_*``  Dungeon Crawler's scripted heuristic
=====================  ===========================================================
"""
