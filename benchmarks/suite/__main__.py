"""``python -m dungeonrl.benchmarks.suite``: the same as ``dungeonrl bench``."""

import sys

from .cli import main

sys.exit(main())
