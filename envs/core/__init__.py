"""The shared layer of every game, in rooms (see ``envs/core/README.md``):

* here: the contract -- :mod:`.spec` (GameSpec, GameCore), :mod:`.errors`,
  :mod:`.kernel_core`, :mod:`.validate`, :mod:`.snapshot`, :mod:`.copying`,
  :mod:`.layout`, :mod:`.lazy` and the batch machinery;
* :mod:`.kernel` -- numba helpers (``jit``, ``rng``, ``chance``, ``zones``...)
  and the kernel code generator;
* :mod:`.adapters` -- the generic adapters: ``gym_env``
  (:class:`DungeonEnv`), ``vector`` (:class:`DungeonVectorEnv`,
  ``DungeonSB3VecEnv``), ``aec``, ``parallel``, ``multi``, ``selfplay``;
* :mod:`.authoring` -- content compiler helpers, drawing, narration,
  layout doc tables.

The adapters are not imported here, so a rules module can import
``dungeonrl.envs.core.kernel.rng`` without pulling in Gymnasium.
"""

from . import errors
from .errors import *  # noqa: F403
from .spec import GameCore, GameSpec, action_name_table

__all__ = ["GameCore", "GameSpec", "action_name_table"]
__all__ += errors.__all__
