"""``python -m dungeonrl``: the command line (see :mod:`dungeonrl.cli`)."""

import sys

from .cli import main

sys.exit(main())
