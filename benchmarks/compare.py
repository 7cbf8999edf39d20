"""The regression guard: compare a new benchmark run with the checked-in
one and name every figure that got worse by more than a threshold.

    python -m dungeonrl.benchmarks.compare NEW.json [--base OLD.json] [--threshold 0.15] [--all]

``NEW.json`` is what ``dungeonrl bench`` wrote (``bench-results/suite.json``
by default); ``--base`` defaults to the checked-in reference run,
``benchmarks/results/suite.json``. A per-layer profile
(``dungeonrl bench --layers``, ``layers.json``) is compared with another
one the same way.

Compared (only figures present and measured in both runs):

* every median of the suite: kernel per thread count, batch and vector env
  per ``num_envs``, the Python API step, both training paths (steps/s:
  higher is better);
* every target value of the run (ratios to the peers measured in the same
  run, which cancel most of a machine's speed; the warm start, lower is
  better);
* for a layer profile, every part in microseconds per step (lower is better).

``--cpu`` compares steps per CPU-second of the benchmark process instead
(``cpu_median``, ``value_cpu``): on a shared machine it moves less with the
load than wall-clock time does.

A figure "dropped" when it is worse than the base by more than
``threshold`` (0.15: a steps/s figure below 85 % of the base, a time above
115 %). Besides, the new run's guards (``dungeonrl.benchmarks.suite.targets``:
the warm start at most 1.5 s, each configuration's full step / rules-only
ratio at most 15 % over its recorded reference) are read from its figures
against today's limits and references; each one exceeded is named. The exit
code is 1 when any figure dropped or any guard failed, 0 otherwise, 2 for
bad input. Runs on different machines or in different modes are compared all
the same, with a warning: medians then mean little, ratios still do.
This is run by hand (or by the lead before a merge), not as a timed test.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TypeGuard

from . import cmdline

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BASE = os.path.join(HERE, "results", "suite.json")


def figures(res: dict, cpu: bool = False) -> dict:
    """``{name: (value, higher_is_better)}`` of every comparable figure of a
    suite run or of a layer profile; ``cpu``: steps per CPU-second of the
    benchmark process (``cpu_median``, ``value_cpu``) instead of wall clock."""
    if res.get("kind") == "layer-profile":
        return _layer_figures(res)
    key = "cpu_median" if cpu else "median"

    def _ok(fig) -> TypeGuard[dict]:
        return (
            isinstance(fig, dict)
            and fig.get("status") == "ok"
            and isinstance(fig.get(key), (int, float))
            and fig[key] > 0
        )

    out: dict[str, tuple] = {}
    for game, g in res.get("games", {}).items():
        for pkey, cfg in g.get("configs", {}).items():
            tag = f"{game}[{pkey}p]"
            for layer in ("kernel", "batch", "vector"):
                for n, fig in (cfg.get(layer) or {}).items():
                    if _ok(fig):
                        unit = "threads" if layer == "kernel" else "envs"
                        out[f"{tag} {layer} x{n} {unit}"] = (float(fig[key]), True)
            if _ok(cfg.get("python")):
                out[f"{tag} python API"] = (float(cfg["python"][key]), True)
        for algo in ("fast_ppo", "sb3"):
            fig = (g.get("training") or {}).get(algo)
            if _ok(fig):
                out[f"{game} training {algo}"] = (float(fig[key]), True)
    for t in res.get("targets", []):
        v = t.get("value")
        if cpu and t.get("unit", "x") == "x":
            v = t.get("value_cpu")
        if isinstance(v, (int, float)) and v > 0:
            who = t.get("game", "") + (f"[{t['players']}p]" if t.get("players") else "")
            who += f"[{t['variant']}]" if t.get("variant") else ""
            out[f"target {t['id']} {who}"] = (float(v), t.get("direction", ">=") != "<=")
    return out


def failed_guards_of(res: dict, references: dict | None = None) -> list:
    """``(name, value, limit)`` of every guard a suite run exceeds, read
    from its figures against today's guards (``references``: the recorded
    ones by default); ``[]`` for a layer profile."""
    if res.get("kind") == "layer-profile":
        return []
    from .suite.targets import evaluate_targets, failed_guards

    out = []
    for t in failed_guards(evaluate_targets(res, references=references)):
        who = t.get("game", "") + (f"[{t['players']}p]" if t.get("players") else "")
        out.append((f"guard {t['id']} {who}", float(t["value"]), float(t["target"])))
    return out


def _layer_figures(res: dict) -> dict:
    out = {}
    for c in res.get("configs", []):
        tag = f"{c['game']}[{c['players']}p]"
        for key, v in c.items():
            if key.endswith("_us") and key != "limit_us" and isinstance(v, (int, float)) and v > 0:
                out[f"{tag} {key}"] = (float(v), False)
    return out


def compare(base: dict, new: dict, threshold: float = 0.15, cpu: bool = False) -> dict:
    """``{"dropped", "improved", "unchanged", "missing", "added", "warnings"}``:
    ``dropped``/``improved`` rows are ``(name, base, new, change)`` where
    ``change`` is the relative change in the good direction (negative =
    worse); ``missing``: measured in the base, not in the new run."""
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must be in (0, 1), got {threshold}")
    if base.get("kind") != new.get("kind"):
        raise ValueError(
            "cannot compare a suite run with a layer profile "
            f"(kinds {base.get('kind')!r} and {new.get('kind')!r})"
        )
    fb, fn = figures(base, cpu), figures(new, cpu)
    out: dict[str, Any] = {
        "failed_guards": failed_guards_of(new),
        "dropped": [],
        "improved": [],
        "unchanged": [],
        "threshold": threshold,
        "missing": sorted(set(fb) - set(fn)),
        "added": sorted(set(fn) - set(fb)),
        "warnings": _warnings(base, new),
    }
    for name in sorted(set(fb) & set(fn)):
        (b, higher), (n, _) = fb[name], fn[name]
        change = (n - b) / b if higher else (b - n) / b
        row = (name, b, n, change)
        if change < -threshold:
            out["dropped"].append(row)
        elif change > threshold:
            out["improved"].append(row)
        else:
            out["unchanged"].append(row)
    return out


def _warnings(base: dict, new: dict) -> list:
    w = []
    mb, mn = base.get("machine", {}), new.get("machine", {})
    if (mb.get("cpu"), mb.get("cores")) != (mn.get("cpu"), mn.get("cores")):
        w.append(
            f"different machines: base {mb.get('cpu')} ({mb.get('cores')} cores), "
            f"new {mn.get('cpu')} ({mn.get('cores')} cores): medians are not comparable, "
            "ratios roughly are"
        )
    paired = [any("unpaired" in t for t in r.get("targets", [])) for r in (base, new)]
    if paired[0] != paired[1]:
        w.append(
            "the ratio targets of the {} run are medians of paired rounds, those of "
            "the {} run ratios of two medians: they move differently with the "
            "machine".format(*(("base", "new") if paired[0] else ("new", "base")))
        )
    if base.get("mode") != new.get("mode"):
        w.append(f"different modes: base {base.get('mode')!r}, new {new.get('mode')!r}")
    for name, res in (("base", base), ("new", new)):
        load, cores = res.get("load_before"), (res.get("machine") or {}).get("cores")
        if load and cores and load[0] > cores:
            w.append(
                f"the {name} run had load {load[0]:g} on {cores} cores: its wall-clock "
                "figures are not to be trusted (--cpu compares steps per CPU-second)"
            )
    return w


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def report(result: dict, show_all: bool = False) -> str:
    lines = [f"warning: {w}" for w in result["warnings"]]
    failed = result.get("failed_guards") or []
    if failed:
        lines.append("GUARD FAILED (the new run's figure exceeds the limit):")
        w = max(len(r[0]) for r in failed)
        for name, value, limit in failed:
            lines.append(f"  {name:<{w}}  {_fmt(value):>12} > {_fmt(limit):>12}")
    pct = 100 * result["threshold"]
    compared = len(result["dropped"]) + len(result["improved"]) + len(result["unchanged"])
    groups = [("DROPPED", result["dropped"])]
    if show_all:
        groups += [("improved", result["improved"]), ("within the threshold", result["unchanged"])]
    for title, rows in groups:
        if not rows:
            continue
        lines.append(f"{title} (more than {pct:g}% worse):" if title == "DROPPED" else f"{title}:")
        w = max(len(r[0]) for r in rows)
        for name, b, n, ch in rows:
            lines.append(f"  {name:<{w}}  {_fmt(b):>12} -> {_fmt(n):>12}  {100 * ch:+6.1f}%")
    if result["missing"]:
        lines.append(
            f"not measured in the new run ({len(result['missing'])}): "
            + ", ".join(result["missing"][:12])
            + (" ..." if len(result["missing"]) > 12 else "")
        )
    verdict = (
        f"{len(result['dropped'])} of {compared} figures dropped by more than {pct:g}%"
        if result["dropped"]
        else f"no figure dropped by more than {pct:g}% ({compared} compared)"
    )
    if failed:
        verdict += f"; {len(failed)} guard(s) failed"
    lines.append(verdict)
    return "\n".join(lines)


def _load(path: str) -> dict:
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None
    if not isinstance(data, dict) or not ("games" in data or data.get("kind") == "layer-profile"):
        raise ValueError(f"{path} is not a `dungeonrl bench` result (no 'games')")
    return data


def main(argv=None) -> int:
    p = cmdline.parser(
        "compare",
        description="name every figure of a new benchmark run that dropped by more than a "
        "threshold; exit 1 if any",
    )
    p.add_argument(
        "new", help="the new run's JSON (dungeonrl bench writes bench-results/suite.json)"
    )
    p.add_argument(
        "--base",
        default=DEFAULT_BASE,
        help="the reference run (default: the checked-in benchmarks/results/suite.json)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.15,
        help="relative drop that counts (default 0.15 = 15%%)",
    )
    cmdline.add_flags(
        p,
        {
            "--all": "also list improved and unchanged figures",
            "--cpu": "compare steps per CPU-second of the benchmark process (less disturbed "
            "by other load) instead of wall-clock steps/s",
        },
    )
    a = p.parse_args(argv)
    if a.base == DEFAULT_BASE and not os.path.exists(DEFAULT_BASE):
        print(
            f"compare: no reference run at {DEFAULT_BASE} (a source checkout has it, an "
            "installed package does not); pass --base OLD.json",
            file=sys.stderr,
        )
        return 2
    try:
        result = compare(_load(a.base), _load(a.new), a.threshold, a.cpu)
    except ValueError as e:
        print(f"compare: {e}", file=sys.stderr)
        return 2
    print(report(result, a.all))
    return 1 if result["dropped"] or result["failed_guards"] else 0


if __name__ == "__main__":
    sys.exit(main())
