"""dungeonrl: an RL environment suite of numba-compiled board and card games.

Importing the package registers every game of :mod:`dungeonrl.envs.catalog`
with Gymnasium (and the multi-seat ones with PettingZoo) by id, without
importing the games themselves (each loads on first use), so after
``import dungeonrl``::

    env = gymnasium.make("dungeonrl/Unbroken-v0")             # DungeonEnv
    envs = gymnasium.make_vec("dungeonrl/Unbroken-v0", 64)    # DungeonVectorEnv
    venv = dungeonrl.DungeonSB3VecEnv("unbroken", num_envs=64) # SB3 / MaskablePPO

(``gymnasium.make("dungeonrl:dungeonrl/Unbroken-v0")`` imports it for you.)
``list_games()`` and ``get_spec(name)`` describe what is registered.
``DungeonSB3VecEnv`` is built on first access, so the core install does not
need Stable-Baselines3.
"""

from .envs.core import errors as _errors
from .envs.core.adapters.gym_env import DungeonEnv, make_env
from .envs.core.adapters.vector import DungeonVectorEnv, make_vector_env
from .envs.core.errors import *  # noqa: F403
from .envs.core.snapshot import Snapshot
from .envs.core.spec import GameCore, GameSpec
from .registry import GAMES, get_spec, list_games, register_all, register_catalog, register_game
from .version import __version__

__all__ = [
    "__version__",
    "DungeonEnv",
    "DungeonVectorEnv",
    "DungeonSB3VecEnv",  # noqa: F405 (made on first access: __getattr__ below)
    "Snapshot",
    "GameCore",
    "GameSpec",
    "GAMES",
    "get_spec",
    "list_games",
    "make_env",
    "make_vector_env",
    "register_all",
    "register_catalog",
    "register_game",
]
__all__ += _errors.__all__

register_catalog()  # ids only: a game's package is imported when first used


def __getattr__(name: str):
    if name == "DungeonSB3VecEnv":  # needs stable-baselines3: built on first access
        from .envs.core.adapters import vector

        return vector.DungeonSB3VecEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
