"""Declaring command-line options as dataclass fields: the names of
:mod:`dungeonrl.agents.options`, importable from here too."""

from .agents.options import *  # noqa: F403
from .agents.options import __all__, _type_of  # noqa: F401
