"""Suite-wide settings.

The generated kernel modules are not checked in: each is written on first
use and regenerates itself on import once its sources change
(``dungeonrl.envs.core.kernel.freshness``), as for a user, so a fresh clone
and an edited checkout both run (two ``pytest -n`` workers may write one at
once: the writes are atomic). That the generator writes the right code is
checked by ``tests/engine/test_template_module.py`` and
``tests/engine/test_engine.py``, and by every test that runs the kernels.
"""

import os

# the suite runs on every core at once (pytest -n): a training in a test
# takes one torch thread, as the fast PPO's docs advise when cores are shared
os.environ.setdefault("OMP_NUM_THREADS", "1")
