"""Each game's command-line companions (``play``, ``bench``, ...), one module
per game named after its short name. They are the application layer: they
may use ``agents`` and ``benchmarks``, which ``envs`` never imports.
``dungeonrl.cli`` looks here first (``dungeonrl.games.<name>:<command>``)."""
