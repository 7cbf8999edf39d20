"""Games of the suite (``dungeonrl.envs``).

``core`` holds the contract every game implements (:mod:`.core.spec`), the
numba helpers the rules share, and the generic adapters written once for
every game (Gymnasium single env, native vector env, Stable-Baselines3
VecEnv). Each other subpackage with a ``game.toml`` is one game (its declaration,
found by :mod:`.catalog`): its ``__init__`` exports ``SPEC`` (a
:class:`~dungeonrl.envs.core.spec.GameSpec`) and ``make_core(**kwargs)``.
"""

import os as _os

# Game packages outside the source tree: every folder of DUNGEONRL_GAMES_PATH
# is a further folder of this package (see :mod:`.catalog`).
__path__ += [
    _p
    for _p in _os.environ.get("DUNGEONRL_GAMES_PATH", "").split(_os.pathsep)
    if _p and _os.path.isdir(_p) and _p not in __path__
]
