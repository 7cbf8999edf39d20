"""Games of the suite (``dungeonrl.envs``).

``core`` holds the contract every game implements (:mod:`.core.spec`), the
numba helpers the rules share, and the generic adapters written once for
every game (Gymnasium single env, native vector env, Stable-Baselines3
VecEnv). Each other subpackage is one game: its ``__init__`` exports ``SPEC``
(a :class:`~dungeonrl.envs.core.spec.GameSpec`) and ``make_core(**kwargs)``.
"""
