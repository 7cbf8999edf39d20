"""The recorded references of the relative guards, and how one is recorded.

A *guard* is a limit that fails when a figure exceeds it (a speed that must
not get worse), as opposed to a *target* (a goal the figure meets or
misses). Most guards are fixed limits stated in :data:`.targets.TARGETS`;
a *relative* guard is a limit on the growth of a figure over its value in
a recorded reference run: the full step / rules-only ratio of each game
configuration fails when it grows more than 15 % over its reference.

The references are data, with where they came from, in
``benchmarks/results/guard_reference.json``::

    {"step_vs_rules": {
        "source": "benchmarks/results/suite.json",  # the run they were read from
        "run": {"created": ..., "mode": ..., "command": ..., "machine": ...},
        "recorded": "2026-12-06",
        "recorded_by": "python -m dungeonrl.benchmarks.guard_reference record ...",
        "values": {"dungeon_crawler": {"4": 1.92, ...}, ...},
        "ns_per_column": {...},  # the same run's nanoseconds per column, beside
    }}

Record (or re-record, after a change that is meant to move a ratio) with::

    python -m dungeonrl.benchmarks.guard_reference record benchmarks/results/suite.json

which reads the ratios of that saved run (its paired rounds) and writes
them, with the run's date, mode, command and machine, to the reference
file (``--out`` elsewhere).
"""

from __future__ import annotations

import datetime
import json
import os

from .measure import ok, spread
from .settings import RESULTS

#: where the references are kept
REFERENCE_PATH = os.path.join(RESULTS, "guard_reference.json")
#: the guards with a recorded reference (target ids of :data:`.targets.TARGETS`)
RELATIVE_GUARDS = ("step_vs_rules",)
#: the bytes of one observation column in the in-kernel rollout (float32)
_COLUMN_BYTES = 4


def obs_columns(cfg: dict) -> int | None:
    """The observation columns of a game configuration: recorded by the run
    (``obs_columns``), else the float32 observation buffer of one env in the
    run's memory figure (older runs)."""
    if isinstance(cfg.get("obs_columns"), int) and cfg["obs_columns"] > 0:
        return cfg["obs_columns"]
    nbytes = ((cfg.get("memory") or {}).get("buffers") or {}).get("obs")
    return nbytes // _COLUMN_BYTES if isinstance(nbytes, int) and nbytes > 0 else None


def ns_per_column(cfg: dict) -> dict | None:
    """Nanoseconds per observation column of a game configuration: in each
    paired round, the full in-kernel step's time less the rules-only step's
    (``kernel`` and ``kernel_rules`` loops), over the observation's columns;
    the median over the rounds, with its range. None without those rounds."""
    pr = cfg.get("paired") or {}
    cols = obs_columns(cfg)
    if not ok(pr) or not cols:
        return None
    rates = pr.get("rates") or {}
    full, rules = rates.get("kernel"), rates.get("kernel_rules")
    if not full or not rules:
        return None
    fig = spread([(1e9 / f - 1e9 / r) / cols for f, r in zip(full, rules) if f > 0 and r > 0])
    return None if fig is None else {**fig, "columns": cols}


def load_references(path: str | None = None) -> dict:
    """The recorded references (``{}`` when the file is missing)."""
    path = path or REFERENCE_PATH
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object of guard references")
    return data


def reference_value(references: dict, tid: str, game: str, players) -> float | None:
    """The recorded reference of guard ``tid`` for one game configuration."""
    values = (references.get(tid) or {}).get("values") or {}
    v = (values.get(game) or {}).get(str(players))
    return float(v) if isinstance(v, (int, float)) else None


def reference_basis(references: dict, tid: str) -> str:
    """Where guard ``tid``'s references came from, in words."""
    ref = references.get(tid)
    if not ref:
        return "no recorded reference"
    run = ref.get("run") or {}
    return (
        f"reference: {ref.get('source')} ({run.get('mode')} run of "
        f"{str(run.get('created', ''))[:10]}, {run.get('machine')}), "
        f"recorded {ref.get('recorded')}"
    )


def _source_path(path: str) -> str:
    """``path`` from the repository root when it lies inside it, else absolute."""
    root = os.path.dirname(os.path.dirname(RESULTS))
    full = os.path.abspath(path)
    try:
        rel = os.path.relpath(full, root)
    except ValueError:  # another drive (Windows)
        return full
    return full if rel.startswith("..") else rel.replace(os.sep, "/")


def record(suite_json: str, out: str | None = None, today: str | None = None) -> dict:
    """Read the relative guards' values from the saved run ``suite_json``
    and write them as the references (``out``, default
    :data:`REFERENCE_PATH`), each with where it came from. Returns the
    references written. Raises ``ValueError`` for a file that is not a
    suite run or has no paired ratio of a guard."""
    with open(suite_json, encoding="utf-8") as f:
        res = json.load(f)
    if not isinstance(res, dict) or "games" not in res:
        raise ValueError(f"{suite_json} is not a `dungeonrl bench` result (no 'games')")
    out = out or REFERENCE_PATH
    refs = load_references(out) if os.path.exists(out) else {}
    m = res.get("machine") or {}
    source = _source_path(suite_json)
    for tid in RELATIVE_GUARDS:
        values: dict = {}
        per_col: dict = {}
        for game, g in res["games"].items():
            for pkey, cfg in g.get("configs", {}).items():
                pr = cfg.get("paired")
                r = (pr.get("ratios") or {}).get(tid) if ok(pr) else None
                if r is None:
                    continue
                values.setdefault(game, {})[pkey] = r["value"]
                ns = ns_per_column(cfg)
                if ns is not None:
                    per_col.setdefault(game, {})[pkey] = ns["value"]
        if not values:
            raise ValueError(
                f"{suite_json} has no paired {tid} ratio (a run with --paired-rounds 0?)"
            )
        refs[tid] = {
            "about": "the full step / rules-only ratio of each game configuration; "
            "its guard fails when a run's ratio grows more than 15 % over this value",
            "source": source,
            "run": {
                "created": res.get("created"),
                "mode": res.get("mode"),
                "command": res.get("command"),
                "machine": f"{m.get('cpu')}, {m.get('cores')} cores",
            },
            "recorded": today or datetime.date.today().isoformat(),
            "recorded_by": f"python -m dungeonrl.benchmarks.guard_reference record {source}",
            "values": values,
            "ns_per_column": per_col,
        }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(refs, f, indent=1)
        f.write("\n")
    return refs
