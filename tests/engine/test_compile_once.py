"""Each engine kernel compiles once per game: a call that passes a literal
constant where another passes a typed value makes numba compile the callee
(and every callee of its own that the constant reaches) a second time,
which costs compile time on first use and buys nothing on a path that is
not hot. The reset and autoreset paths are checked on the fixture game, in
a fresh process with an empty numba cache (a few seconds: the fixture's
rules are small): every kernel of the template, the engine and the fixture
compiled on them is compiled once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

PROBE = textwrap.dedent(
    """
    import json
    import sys
    import numpy as np
    from numba.core import event

    sys.path.insert(0, {tests!r})
    from helpers import fixture_game as fg
    from dungeonrl.envs.core.batch import Batch

    listener = event.RecordingListener()
    with event.install_listener("numba:compile", listener):
        core = fg.make_core()
        for obs_dtype in {dtypes!r}:
            buf = Batch(core, 4, obs_dtype)
            buf.reset(np.arange(4, dtype=np.uint64))
            for _ in range(40):  # long enough for games to end and autoreset
                buf.actions[:] = (buf.masks != 0).argmax(axis=1)
                buf.fused_step()
    counts = {{}}
    for _, ev in listener.buffer:
        fn = getattr((ev.data or {{}}).get("dispatcher"), "py_func", None)
        mod = getattr(fn, "__module__", "") or ""
        if ev.is_start and (mod.endswith(("fixture_kernels", "fixture_game")) or mod.startswith(
            "dungeonrl.envs.core.kernel."
        )):
            key = mod.rsplit(".", 1)[-1] + "." + fn.__name__
            counts[key] = counts.get(key, 0) + 1
    print(json.dumps(counts))
    """
)


def _compile_counts(tmp_path, dtypes) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), DUNGEONRL_QUIET_COMPILE="1")
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(tests=str(TESTS), dtypes=tuple(dtypes))],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.splitlines()[-1])


def test_reset_and_autoreset_compile_each_kernel_once(tmp_path):
    counts = _compile_counts(tmp_path, ["float32"])
    # the reset entry point and the fused step (whose autoreset restarts
    # finished games) were both compiled, and nothing twice
    assert {"fixture_kernels.reset_batch", "fixture_kernels.step_autoreset"} <= set(counts)
    assert all(n == 1 for n in counts.values()), counts


def test_the_compact_observation_compiles_its_entry_points_only(tmp_path):
    """A float16 batch beside a float32 one compiles the entry points that
    take an observation array again (they write half rows), and nothing of
    the game: its encoder writes the same float32 row for both."""
    counts = _compile_counts(tmp_path, ["float32", "float16"])
    twice = {k for k, n in counts.items() if n == 2}
    assert twice == {"fixture_kernels.step_autoreset", "fixture_kernels.observe_batch"}, counts
    assert all(n == 1 for k, n in counts.items() if k not in twice), counts
