"""Suite-wide settings.

A generated kernel module whose sources changed since it was generated
regenerates itself on import (``dungeonrl.envs.core.kernel.freshness``); under the
tests it raises instead, naming the command that regenerates it, so a stale
checked-in file fails CI rather than being fixed on the fly in CI's checkout.
"""

import os

os.environ.setdefault("DUNGEONRL_STALE_KERNELS", "error")
# the suite runs on every core at once (pytest -n): a training in a test
# takes one torch thread, as the fast PPO's docs advise when cores are shared
os.environ.setdefault("OMP_NUM_THREADS", "1")
