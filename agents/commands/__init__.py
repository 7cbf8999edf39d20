"""The ``dungeonrl`` commands the agents layer implements (the command line,
:mod:`dungeonrl.cli`, loads each by name: ``"dungeonrl.agents.commands.train:main"``).

================  ===========================================================
module            command
================  ===========================================================
``train``         ``dungeonrl train``: progress bar, model, metrics, curve
``runs``          the run folder, the evaluation and curve after training
``evaluate``      ``dungeonrl eval``: win rates with 95% Wilson intervals
``exploit``       ``dungeonrl exploit``: two best responses against a frozen agent
``dataset``       ``dungeonrl dataset``: a Minari dataset of seeded games
``record``        ``dungeonrl record``: a seeded game as a GIF or MP4
================  ===========================================================
"""
