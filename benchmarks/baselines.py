"""The baseline training runs behind the README's *Baselines* table.

    python -m dungeonrl.benchmarks.baselines list
    python -m dungeonrl.benchmarks.baselines run unbroken-ppo  # train, evaluate, record
    # cloned heuristic, then PPO:
    python -m dungeonrl.benchmarks.baselines run unbroken-ppo-kickstart
    python -m dungeonrl.benchmarks.baselines run dungeon_crawler-selfplay
    python -m dungeonrl.benchmarks.baselines run dungeon_kart-selfplay
    python -m dungeonrl.benchmarks.baselines run dcc_unstoppable-ppo   # solo Floor 1 Normal
    python -m dungeonrl.benchmarks.baselines run dcc_unstoppable-coop  # 2-player co-op
    # a finished run of that command:
    python -m dungeonrl.benchmarks.baselines record NAME RUN_DIR
    python -m dungeonrl.benchmarks.report --only baselines

Each baseline is one ``dungeonrl train`` command with fixed arguments
(:data:`BASELINES`); ``run`` executes it (output under
``runs/baselines/NAME``), then ``record`` copies the run's final evaluation
(``metrics.json``: seeded games against the heuristic and random play, with
95% Wilson intervals), its step count, wall-clock time and the machine into
``benchmarks/results/baselines.json`` and checks the issue's targets.
Training is wall-clock bounded (``--minutes``), so the steps reached depend
on the machine and its load; the recorded figures say which machine.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from typing import Any

from . import cmdline, datafile

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results", "baselines.json")


def load_baselines(name: str = "baselines") -> dict[str, dict[str, Any]]:
    """name -> game, ``dungeonrl train`` arguments (``--out`` added), what it
    is, targets ``(what, agent, goal, versus)``: ``benchmarks/data/<name>.toml``."""
    where = f"{name}.toml"
    out: dict[str, dict[str, Any]] = {}
    for b in datafile.rows(
        datafile.load(name), "baselines", where, ("name", "game", "args", "about", "targets")
    ):
        targets = datafile.rows(
            b, "targets", f"{where} {b['name']}", ("what", "agent"), ("goal", "versus")
        )
        if any(("goal" in t) == ("versus" in t) for t in targets):
            raise ValueError(f"{where} {b['name']}: each target has a goal or a versus, not both")
        out[b["name"]] = {
            "game": b["game"],
            "args": shlex.split(b["args"]),
            "about": b["about"],
            "targets": [(t["what"], t["agent"], t.get("goal"), t.get("versus")) for t in targets],
        }
    return out


#: the baselines (:func:`load_baselines`)
BASELINES = load_baselines()


def command(name: str, out: str) -> list:
    b = BASELINES[name]
    return ["dungeonrl", "train", b["game"], *b["args"], "--out", out]


def _machine() -> dict:
    from ..machine import machine_info

    m = machine_info()
    return {"cpu": m["cpu"], "cores": m["cores"], "versions": m["versions"]}


def _check(name: str, rows: list) -> list:
    by = {r["agent"]: r for r in rows}
    out = []
    for what, agent, goal, versus in BASELINES[name]["targets"]:
        r = by.get(agent)
        if r is None:
            out.append({"target": what, "measured": None, "met": False})
            continue
        if versus is not None:
            ref = by[versus]["win_rate"]
            met = r["win_rate"] > ref
            goal_txt = f"> {ref:.1%} ({versus})"
        else:
            met = r["win_rate"] >= goal
            goal_txt = f">= {goal:.0%}"
        out.append(
            {
                "target": what,
                "measured": r["win_rate"],
                "ci95": r["ci95"],
                "goal": goal_txt,
                "met": bool(met),
            }
        )
    return out


def minutes_to_reach(history: list, rate: float) -> float | None:
    """Wall-clock minutes of training until the win rate of the training
    episodes (over the last 2,000, as the learning curve shows it) first
    reaches ``rate``; None if it never does or the rows carry no time."""
    from ..agents.metrics import smooth_win_rate

    for row, won in zip(history, smooth_win_rate(history)):
        if won == won and won >= rate and "time_s" in row:  # won == won: not NaN
            return float(row["time_s"]) / 60
    return None


def record(name: str, run_dir: str, path: str = RESULTS) -> dict:
    """Add the finished run in ``run_dir`` to the results file."""
    if name not in BASELINES:
        raise SystemExit(f"unknown baseline {name!r}; known: {', '.join(BASELINES)}")
    with open(os.path.join(run_dir, "metrics.json")) as f:
        m = json.load(f)
    if m.get("game") != BASELINES[name]["game"]:
        raise SystemExit(
            f"{run_dir} is a run of {m.get('game')!r}, not {BASELINES[name]['game']!r}"
        )
    rows = m.get("final_eval") or []
    hist = m.get("history") or []
    entry = {
        "command": " ".join(shlex.quote(x) for x in command(name, run_dir)),
        "about": BASELINES[name]["about"],
        "setting": m.get("setting"),
        "steps": m.get("steps"),
        "train_minutes": round(m.get("train_seconds", 0) / 60, 1),
        "sps": m.get("sps"),
        "final_eval": rows,
        "last_training_win_rate": hist[-1].get("win_rate") if hist else None,
        "minutes_to_heuristic": _minutes_to_heuristic(rows, hist, _kickstart_seconds(m)),
        "targets": _check(name, rows),
        "machine": _machine(),
        "recorded": time.strftime("%Y-%m-%d"),
    }
    data = {}
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
    data[name] = entry
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    return entry


def _minutes_to_heuristic(rows: list, history: list, before_s: float = 0.0) -> float | None:
    """Training minutes until the training win rate first reached the
    heuristic's evaluated win rate (a speed target; None without a
    heuristic row). ``before_s``: seconds spent before PPO's clock started
    (``--kickstart`` cloning), counted in."""
    ref = next((r["win_rate"] for r in rows if r.get("agent") == "heuristic"), None)
    if ref is None:
        return None
    m = minutes_to_reach(history, ref)
    return None if m is None else m + before_s / 60


def _kickstart_seconds(metrics: dict) -> float:
    """Seconds of behaviour cloning before PPO started (0 without ``--kickstart``)."""
    kick = (metrics.get("config") or {}).get("kickstart") or {}
    return float(kick.get("seconds") or 0.0)


def markdown(data: dict) -> str:
    """The README table of every recorded baseline."""
    lines = []
    for name, e in data.items():
        mc = e["machine"]
        lines += [
            f"**{name}**: {e['about']} ({e['setting']}). "
            f"{e['steps']:,} env steps in {e['train_minutes']} min on "
            f"{mc['cores']} cores ({mc['cpu']}), recorded {e['recorded']}.",
            "",
            f"```bash\n{e['command']}\n```",
            "",
            "| agent | games | win rate | 95% CI |",
            "|---|---|---|---|",
        ]
        for r in e["final_eval"]:
            lo, hi = r["ci95"]
            lines.append(
                f"| {r['agent']} | {r['games']:,} | {r['win_rate']:.1%} | {lo:.1%}-{hi:.1%} |"
            )
        lines += ["", "| target | measured | goal | |", "|---|---|---|---|"]
        for t in e["targets"]:
            meas = "-" if t["measured"] is None else f"{t['measured']:.1%}"
            lines.append(
                f"| {t['target']} | {meas} | {t.get('goal', '-')} | "
                f"{'met' if t['met'] else 'MISSED'} |"
            )
        lines.append("")
    return "\n".join(lines).rstrip()


def main(argv=None) -> int:
    p = cmdline.parser("baselines", __doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the baselines and their commands")
    r = sub.add_parser("run", help="train a baseline, then record it")
    r.add_argument("name", choices=sorted(BASELINES))
    r.add_argument("--out", default=None, help="run folder (default runs/baselines/NAME)")
    r.add_argument("--results", default=RESULTS)
    rec = sub.add_parser("record", help="record a finished run of a baseline's command")
    rec.add_argument("name", choices=sorted(BASELINES))
    rec.add_argument("run_dir")
    rec.add_argument("--results", default=RESULTS)
    a = p.parse_args(argv)
    if a.cmd == "list":
        for name in BASELINES:
            print(f"{name}: {' '.join(command(name, os.path.join('runs', 'baselines', name)))}")
        return 0
    if a.cmd == "run":
        out = a.out or os.path.join("runs", "baselines", a.name)
        cmd = command(a.name, out)
        cmd[0] = os.path.join(os.path.dirname(sys.executable), "dungeonrl")
        rc = subprocess.call(cmd)
        if rc:
            return rc
        run_dir = out
    else:
        run_dir = a.run_dir
    e = record(a.name, run_dir, a.results)
    for t in e["targets"]:
        print(f"{t['target']}: {t['measured']} ({'met' if t['met'] else 'MISSED'})")
    print(
        f"recorded in {a.results}; README: python -m dungeonrl.benchmarks.report --only baselines"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
