"""Each game's command-line companions (``play``, ``bench``, ...), one module
per game named after its short name. They are the application layer: they
may use ``agents`` and ``benchmarks``, which ``envs`` never imports.
A game's declaration names its module here (``GAME.cli`` in
``envs/<name>/game.py``); ``dungeonrl.cli`` looks there first
(``dungeonrl.games.<name>:<command>``)."""
