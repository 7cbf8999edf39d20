"""What the training recipe does to a co-op team: the ablation behind the
recipe of a co-op baseline (the game, the baseline and the arms:
``benchmarks/data/coop_ablation.toml``).

    python -m dungeonrl.benchmarks.coop_ablation list
    python -m dungeonrl.benchmarks.coop_ablation run              # every arm, two at a time
    python -m dungeonrl.benchmarks.coop_ablation run e4 e5 --jobs 1
    python -m dungeonrl.benchmarks.coop_ablation record           # -> results/coop_ablation.json

Each arm is one ``dungeonrl train GAME`` command (:data:`ARMS`, the
arguments every arm shares, seed 0 among them) that differs from the others in how
the network starts (a random network, a clone of the scripted heuristic,
or an earlier run's network) and who its teammate is during training (the
heuristic, itself, or either). ``run`` trains the arms into
``runs/coop_ablation/ARM`` (``--jobs`` processes at a time; the recorded
run had two, one per core); each run ends with the final evaluation of the
train command: the same 1,000 seeded team games for the trained agent with
the heuristic, with itself, and for two heuristics. ``record`` reads those
run folders into ``benchmarks/results/coop_ablation.json``: per arm its
command, steps, minutes, the final evaluation, how many training
iterations saw a team win, and for a cloned start the clone's decision
accuracy and team win rate. The game's page quotes that file.

An arm whose arguments name ``{baseline_model}`` continues the baseline's
own network: run ``python -m dungeonrl.benchmarks.baselines run BASELINE``
first (its model lands in ``runs/baselines/BASELINE/model.pt``). Training is
wall-clock bounded, so the steps an arm reaches, and its figures, depend on
the machine and its load.
"""

from __future__ import annotations

import datetime
import json
import os
import shlex
import subprocess
import sys
import time
from typing import Any

from . import cmdline, datafile

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results", "coop_ablation.json")
RUNS = os.path.join("runs", "coop_ablation")
#: the game, the shared and cloning arguments, the baseline and the arms
#: (``benchmarks/data/coop_ablation.toml``)
_DATA = datafile.check_keys(
    datafile.load("coop_ablation"),
    "coop_ablation.toml",
    ("game", "baseline", "common", "clone", "about", "arms"),
)
GAME = _DATA["game"]
#: what every arm shares
COMMON = shlex.split(_DATA["common"])
#: a clone of the heuristic (behaviour cloning, one DAgger round) before PPO
CLONE = shlex.split(_DATA["clone"])
#: the network arm e7 continues (the baseline's run of arm e4's command)
BASELINE = _DATA["baseline"]
BASELINE_MODEL = os.path.join("runs", "baselines", BASELINE, "model.pt")
#: key -> (what the arm tries, its arguments after COMMON)
ARMS: dict[str, tuple[str, list[str]]] = {
    arm["key"]: (
        arm["about"],
        (CLONE if arm.get("clone") else [])
        + [x.format(baseline_model=BASELINE_MODEL) for x in shlex.split(arm["args"])],
    )
    for arm in datafile.rows(
        _DATA, "arms", "coop_ablation.toml", ("key", "about", "args"), ("clone",)
    )
}
ABOUT = _DATA["about"]


def args_of(key: str) -> list[str]:
    """The ``dungeonrl train GAME`` arguments of arm ``key`` (no ``--out``).
    Arm e7 takes the baseline's network, so its ``--hidden`` is the one
    stored in that model, not COMMON's."""
    if key not in ARMS:
        raise KeyError(f"unknown arm {key!r}; arms: {', '.join(ARMS)}")
    common = list(COMMON)
    extra = ARMS[key][1]
    if "--init" in extra:
        i = common.index("--hidden")
        del common[i : i + 2]
    return common + list(extra)


def command(key: str, runs: str = RUNS) -> list[str]:
    """The whole command line of arm ``key``, its run folder under ``runs``."""
    return ["dungeonrl", "train", GAME, *args_of(key), "--out", os.path.join(runs, key)]


def _check_inputs(key: str) -> None:
    extra = ARMS[key][1]
    if "--init" in extra:
        path = extra[extra.index("--init") + 1]
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"arm {key} continues the network in {path}, which does not exist: "
                f"run `python -m dungeonrl.benchmarks.baselines run {BASELINE}` first"
            )


def run(keys: list[str], jobs: int = 2, runs: str = RUNS) -> None:
    """Train the arms ``keys`` (every arm when empty), ``jobs`` at a time."""
    keys = list(keys) or list(ARMS)
    for k in keys:
        args_of(k)  # unknown arm: KeyError before anything runs
        _check_inputs(k)
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    pending = list(keys)
    active: list[tuple[str, subprocess.Popen]] = []  # (arm, its training process)
    while pending or active:
        while pending and len(active) < jobs:
            k = pending.pop(0)
            cmd = command(k, runs)
            argv = [
                sys.executable,
                "-m",
                "dungeonrl",
                *cmd[1:],
                "--progress",
                "none",
                "--overwrite",
            ]
            print("$", shlex.join(cmd), flush=True)
            # arms that share the cores take one torch thread each (as recorded)
            env = dict(os.environ, OMP_NUM_THREADS="1") if jobs > 1 else None
            active.append((k, subprocess.Popen(argv, env=env)))
        time.sleep(1.0)
        for k, p in list(active):
            if p.poll() is not None:
                active.remove((k, p))
                if p.returncode != 0:
                    raise RuntimeError(f"arm {k} failed (exit {p.returncode})")


def arm_record(key: str, metrics: dict) -> dict:
    """The saved entry of arm ``key`` from its run's ``metrics.json`` (its
    command as :func:`command` spells it, run folder under ``runs/``)."""
    hist = metrics.get("history") or []
    rates = [h.get("win_rate") for h in hist]
    rates = [r for r in rates if r is not None and r == r]  # no NaN
    kick = (metrics.get("config") or {}).get("kickstart")
    return {
        "arm": ARMS[key][0],
        "command": shlex.join(command(key)),
        "steps": metrics["steps"],
        "train_minutes": round(metrics["train_seconds"] / 60, 1),
        "last_training_win_rate": hist[-1].get("win_rate") if hist else None,
        "iterations_with_a_training_win": sum(1 for r in rates if r > 0),
        "iterations": len(hist),
        "max_training_win_rate": max(rates, default=None),
        "clone": (
            {
                "decision_accuracy": kick["fit"]["accuracy"],
                "team_win_rate_with_heuristic": kick["clone_eval"]["win_rate"],
            }
            if kick
            else None
        ),
        "final_eval": [
            {k: r[k] for k in ("agent", "partner", "games", "wins", "win_rate", "ci95")}
            for r in metrics["final_eval"]
        ],
    }


def record(runs: str = RUNS, path: str | None = RESULTS) -> dict:
    """Read every finished arm under ``runs`` (``ARM/metrics.json``) into
    the result file ``path`` (None: only return it); arms without a
    finished run are left out."""
    from ..machine import machine_info

    info = machine_info()
    out: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "machine": {k: info[k] for k in ("cpu", "cores")},
        "about": ABOUT,
        "arms": [],
    }
    for key in ARMS:
        f = os.path.join(runs, key, "metrics.json")
        if os.path.exists(f):
            with open(f) as fh:
                out["arms"].append(arm_record(key, json.load(fh)))
    if not out["arms"]:
        raise FileNotFoundError(f"no finished arm under {runs} (expected {runs}/ARM/metrics.json)")
    if path:
        with open(path, "w") as fh:
            json.dump(out, fh, indent=1)
            fh.write("\n")
    return out


def main(argv=None) -> int:
    ap = cmdline.parser("coop_ablation", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the arms and their commands")
    r = sub.add_parser("run", help="train arms (all by default)")
    r.add_argument("arms", nargs="*", metavar="ARM")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--runs", default=RUNS, help="where the run folders go")
    c = sub.add_parser("record", help="write the finished arms into the result file")
    c.add_argument("--runs", default=RUNS)
    c.add_argument("--json", default=RESULTS)
    a = ap.parse_args(argv)
    if a.cmd == "list":
        for k, (label, _) in ARMS.items():
            print(f"{k}: {label}\n    {shlex.join(command(k))}")
    elif a.cmd == "run":
        run(a.arms, a.jobs, a.runs)
    else:
        out = record(a.runs, a.json)
        for arm in out["arms"]:
            rates = ", ".join(f"{r['agent']} {r['win_rate']:.1%}" for r in arm["final_eval"])
            print(f"{arm['arm']}: {rates}")
        print(f"wrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
