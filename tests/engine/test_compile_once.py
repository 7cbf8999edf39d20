"""Each engine kernel compiles once per game: a call that passes a literal
constant where another passes a typed value makes numba compile the callee
(and every callee of its own that the constant reaches) a second time,
which costs compile time on first use and buys nothing on a path that is
not hot. The reset path is checked on the fixture game, in a fresh process
with an empty numba cache (a few seconds: the fixture's rules are small)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

PROBE = textwrap.dedent(
    """
    import sys
    import numpy as np
    from numba.core import event

    sys.path.insert(0, {tests!r})
    import fixture_game as fg
    from dungeonrl.envs.core.batch import Batch

    listener = event.RecordingListener()
    with event.install_listener("numba:compile", listener):
        core = fg.make_core()
        buf = Batch(core, 4)
        buf.reset(np.arange(4, dtype=np.uint64))
        for _ in range(40):  # long enough for games to end and autoreset
            buf.actions[:] = (buf.masks != 0).argmax(axis=1)
            buf.fused_step()
    n = 0
    for _, ev in listener.buffer:
        fn = getattr((ev.data or {{}}).get("dispatcher"), "py_func", None)
        if ev.is_start and fn is not None and fn.__module__.endswith("fixture_kernels"):
            n += fn.__name__ == "reset_row"
    print(n)
    """
)


def test_reset_row_compiles_once_for_reset_and_autoreset(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), DUNGEONRL_QUIET_COMPILE="1")
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(tests=str(TESTS))],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "1", out.stdout
