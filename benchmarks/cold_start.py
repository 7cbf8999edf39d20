"""The first game in seconds? Cold-start times from an empty numba cache.

    python -m dungeonrl.benchmarks.cold_start --json benchmarks/results/cold_start.json

Every figure runs in fresh Python processes with their own empty numba
cache folder (``NUMBA_CACHE_DIR``), so the project's cache is neither used
nor touched:

* ``cold``: ``gym.make`` + ``reset`` + one ``step`` of each game, the
  first use on a machine (the kernels that path needs are compiled);
* ``precompile``: ``python -m dungeonrl.precompile`` of every game with
  ``--jobs`` processes into an empty cache (what ``make`` runs once), and
  ``precompile_envs``: when, within it, every game's envs were compiled
  (the scripted agents' kernels come after);
* ``warm``: the same ``gym.make`` + ``reset`` + ``step`` after that
  precompile (what a user meets after ``make``), process start included.

``--python PATH`` measures another interpreter's install (a checkout of
another commit, say); ``--before FILE`` adds an earlier run's figures (the
JSON this command wrote for that checkout) to the table, so a change to
compile time is shown before and after, measured the same day. Each JSON
records the commit of the code it measured.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

from ..machine import loadavg, machine_info
from . import cmdline

FIRST_STEP = """
import time, numpy as np
t0 = time.perf_counter()
import gymnasium as gym, dungeonrl
env = gym.make({env_id!r})
obs, info = env.reset(seed=0)
env.step(int(np.flatnonzero(info["action_mask"])[0]))
print(time.perf_counter() - t0)
"""


#: the interpreter whose dungeonrl is measured (``--python``)
PYTHON = [sys.executable]

#: where the measured processes start: outside any checkout, so that
#: ``python -c`` / ``-m`` (which put the working folder first on the import
#: path) import ``dungeonrl`` from ``PYTHON``'s install, not from a
#: checkout the benchmark happens to be started in
OUTSIDE = tempfile.gettempdir()

COMMIT = """
import os, subprocess, dungeonrl
d = os.path.dirname(os.path.dirname(os.path.abspath(dungeonrl.envs.__file__)))
r = subprocess.run(["git", "-C", d, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
print(r.stdout.strip() if r.returncode == 0 else "")
"""


def commit_of(python: str) -> str | None:
    """The git commit of the checkout ``python`` imports dungeonrl from
    (None for an install outside a git checkout)."""
    out = subprocess.run([python, "-c", COMMIT], capture_output=True, text=True, cwd=OUTSIDE)
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def _run(code: str, cache: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, DUNGEONRL_QUIET_COMPILE="1")
    t0 = time.perf_counter()
    out = subprocess.run(
        [PYTHON[0], "-c", code], env=env, capture_output=True, text=True, check=True, cwd=OUTSIDE
    )
    wall = time.perf_counter() - t0
    return wall if not out.stdout.strip() else max(wall, float(out.stdout.split()[-1]))


def first_step(env_id: str, cache: str) -> float:
    """Seconds of a fresh process's ``gym.make`` + ``reset`` + ``step``."""
    return _run(FIRST_STEP.format(env_id=env_id), cache)


def run(jobs: int = 2) -> dict:
    from ..registry import get_spec, list_games

    ids = [get_spec(g).env_id for g in list_games()]
    cold = {}
    for env_id in ids:
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
            cold[env_id] = first_step(env_id, cache)
            print(f"cold {env_id}: {cold[env_id]:.1f} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="numba-pre-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, DUNGEONRL_QUIET_COMPILE="1")
        report = os.path.join(cache, "precompile.json")
        t0 = time.perf_counter()
        subprocess.run(
            [PYTHON[0], "-m", "dungeonrl.precompile", "--jobs", str(jobs), "--json", report],
            env=env,
            check=True,
            capture_output=True,
            cwd=OUTSIDE,
        )
        pre = time.perf_counter() - t0
        envs = envs_ready(pre, report)
        at = "" if envs is None else f", every game's envs ready at {envs:.1f} s"
        print(f"precompile, {jobs} processes: {pre:.1f} s{at}", flush=True)
        warm = {env_id: first_step(env_id, cache) for env_id in ids}
    for env_id, s in warm.items():
        print(f"warm {env_id}: {s:.1f} s", flush=True)
    return {"cold": cold, "precompile": pre, "precompile_envs": envs, "jobs": jobs, "warm": warm}


def envs_ready(wall: float, report: str) -> float | None:
    """When every game's envs were compiled, in the precompile's wall time
    ``wall`` (process start included): ``wall`` less the time its last
    part ran after the envs were ready (from its ``--json`` report); None
    for a precompile that does not report it (an older checkout)."""
    try:
        with open(report, encoding="utf-8") as f:
            res = json.load(f)
        ready = [r["ready"] for r in res]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return wall - (max(max(r.values()) for r in ready) - max(r["envs"] for r in ready))


def markdown(doc: dict) -> str:
    before = doc.get("before")
    if before:
        tag = f" ({before['commit']})" if before.get("commit") else ""
        lines = [
            f"| game | empty cache, before{tag} | empty cache | after the precompile |",
            "|---|---:|---:|---:|",
        ]
    else:
        lines = [
            "| game | `gym.make` + `reset` + `step`, empty cache | the same after the precompile |",
            "|---|---:|---:|",
        ]
    for env_id, s in doc["cold"].items():
        was = ""
        if before:
            b = before["cold"].get(env_id)
            was = f" {b:.1f} s |" if b is not None else " |"
        lines.append(f"| {env_id} |{was} {s:.1f} s | {doc['warm'][env_id]:.1f} s |")
    m = doc["machine"]
    lines.append("")
    pre = f"All four games precompiled in {doc['precompile']:.0f} s with {doc['jobs']} processes"
    if before:
        pre += f" (before: {before['precompile']:.0f} s)"
    if doc.get("precompile_envs") is not None:
        pre += (
            f"; their envs (Gymnasium, vector, PettingZoo) were ready at "
            f"{doc['precompile_envs']:.0f} s, the scripted agents' kernels took the rest"
        )
    at = f" at {doc['commit']}" if doc.get("commit") else ""
    lines.append(
        f"{pre}. Each figure is `gym.make` + `reset` + one `step` in a fresh process, "
        f"process start included. {m['cores']} cores ({m['cpu']}), load "
        f"{doc['load'][0]:.1f} at the start, {doc['date']}{at}; "
        "`python -m dungeonrl.benchmarks.cold_start --json benchmarks/results/cold_start.json"
        + (" --before benchmarks/results/cold_start_before.json" if before else "")
        + "`"
        + (
            f" (the before figures: the same command at {before['commit']}, "
            "with `--python` pointing at that checkout's interpreter)."
            if before and before.get("commit")
            else "."
        )
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    p = cmdline.parser("cold_start", __doc__)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--json", default=None)
    p.add_argument("--python", default=sys.executable, help="the interpreter to measure")
    p.add_argument("--before", default=None, help="an earlier run's JSON shown beside")
    a = p.parse_args(argv)
    before = None
    if a.before:
        with open(a.before, encoding="utf-8") as f:
            b = json.load(f)
        before = {
            k: b.get(k) for k in ("commit", "date", "cold", "precompile", "precompile_envs", "jobs")
        }
    PYTHON[0] = a.python
    load = loadavg()
    res = run(a.jobs)
    doc = {
        "date": datetime.date.today().isoformat(),
        "machine": machine_info(),
        "load": load,
        "commit": commit_of(a.python),
        **res,
        **({"before": before} if before else {}),
    }
    print(markdown(doc))
    cmdline.save_json(doc, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
