"""The shared layer of every game: the spec/core contract, errors, numba
helpers (``jit``, ``rng``, ``zones``) and the generic adapters.

The adapters live in their own modules and are not imported here, so a rules
module can import ``dungeonrl.envs.core.rng`` without pulling in Gymnasium:

* :mod:`.gym_env` -- :class:`DungeonEnv`, a ``gymnasium.Env`` over a batch of 1;
* :mod:`.vector` -- :class:`DungeonVectorEnv` (native ``gymnasium.vector.VectorEnv``)
  and ``DungeonSB3VecEnv`` (native Stable-Baselines3 ``VecEnv``);
* :mod:`.snapshot` -- :class:`Snapshot`, the saved state of one env.
"""
from .errors import (
    CorruptStateError,
    DungeonRLError,
    IllegalActionError,
    InvalidActionError,
    ResetNeededError,
    SnapshotError,
    UnknownGameError,
)
from .spec import GameCore, GameSpec, action_name_table

__all__ = [
    "CorruptStateError",
    "DungeonRLError",
    "GameCore",
    "GameSpec",
    "IllegalActionError",
    "InvalidActionError",
    "ResetNeededError",
    "SnapshotError",
    "UnknownGameError",
    "action_name_table",
]
