"""Regenerate the measured sections of README.md from the JSON results.

    python -m dungeonrl.benchmarks.report [--readme README.md] [--results benchmarks/results]

Each generated section sits between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->`` markers and is replaced whole; nothing in it is typed
by hand. Sections: ``unbroken-balance`` (from ``unbroken_balance.json``,
written by ``python -m dungeonrl.benchmarks.unbroken_balance --json``) and
``unbroken-speed`` (from ``unbroken_bench.json``, written by ``dungeonrl
bench unbroken --json``) and ``bench-suite`` (from ``suite.json``, written by
``dungeonrl bench``: the throughput suite over every game with its peers)
and ``baselines`` (from ``baselines.json``, written by ``python -m
dungeonrl.benchmarks.baselines run NAME``: the trained baselines and their
targets) and ``training-speed`` (from ``ppo_speed.json``, written by
``python -m dungeonrl.benchmarks.ppo_speed --json``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")


def balance_section(data):
    from .unbroken_balance import markdown
    return (f"Seeds 0..{data['games'] - 1} per cell ({data['games']:,} games per agent, "
            f"character and difficulty); 95% Wilson intervals.\n\n" + markdown(data["rows"]))


def speed_section(data):
    f = data["figures"]
    m = data["machine"]
    lines = [f"Machine: {m['cpu']}, {m['cores']} cores; Python {m['python']}, numpy {m['numpy']}, "
             f"numba {m['numba']}, gymnasium {m['gymnasium']}. Medians of {data['repeats']} repeats.",
             "", "| layer | figure | target |", "|---|---|---|"]
    threads = [k for k in f if k.startswith("kernel_") and k != "kernel_1thread"]
    rows = [
        ("in-kernel random legal play, 1 thread (obs + mask + autoreset)",
         f"{f['kernel_1thread'][0]:,.0f} steps/s", ">= 5M steps/s per core"),
    ]
    for k in threads:
        rows.append((f"in-kernel, {k.split('_')[1].replace('threads', '')} threads",
                     f"{f[k][0]:,.0f} steps/s", ""))
    rows += [
        ("vector env, 4,096 envs, actions from numpy", f"{f['vector_4096'][0]:,.0f} steps/s",
         ">= 2M steps/s"),
        ("`gymnasium.make` single env `step`", f"{f['single_unbroken'][0]:,.0f} steps/s", ""),
        ("`CartPole-v1` single env `step` (same run)", f"{f['single_cartpole'][0]:,.0f} steps/s", ""),
        ("single env / CartPole", f"{f['ratio_single_vs_cartpole']:.2f}x", ">= 0.8x"),
    ]
    if "start_cold_s" in f:
        rows += [("cold start (empty numba cache) to first step", f"{f['start_cold_s']:.1f} s", ""),
                 ("warm start (cached) to first step", f"{f['start_warm_s']:.2f} s", "<= 2 s")]
    rows.append(("bytes per game state", f"{f['state_bytes']:,}", ""))
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


def suite_section(data):
    from .suite import markdown
    return markdown(data)


def training_speed_section(data):
    from .ppo_speed import markdown
    return markdown(data)


def baselines_section(data):
    from .baselines import markdown
    return markdown(data)


SECTIONS = {
    "unbroken-balance": ("unbroken_balance.json", balance_section),
    "unbroken-speed": ("unbroken_bench.json", speed_section),
    "bench-suite": ("suite.json", suite_section),
    "baselines": ("baselines.json", baselines_section),
    "training-speed": ("ppo_speed.json", training_speed_section),
}


def render(readme_text, results_dir, only=None):
    for name, (fname, fn) in SECTIONS.items():
        if only and name not in only:
            continue
        path = os.path.join(results_dir, fname)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            body = fn(json.load(f))
        pat = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
        if not pat.search(readme_text):
            raise SystemExit(f"README has no <!-- {name}:start/end --> markers")
        readme_text = pat.sub(lambda m: m.group(1) + body + "\n" + m.group(2), readme_text)
    return readme_text


def main(argv=None):
    p = argparse.ArgumentParser(description="regenerate README sections from benchmark JSON")
    p.add_argument("--readme", default="README.md")
    p.add_argument("--results", default=RESULTS)
    p.add_argument("--only", default=None,
                   help=f"comma-separated sections to regenerate (default all: {', '.join(SECTIONS)})")
    a = p.parse_args(argv)
    only = None
    if a.only:
        only = [x for x in a.only.split(",") if x]
        unknown = [x for x in only if x not in SECTIONS]
        if unknown:
            p.error(f"unknown sections {unknown}; known: {list(SECTIONS)}")
    with open(a.readme) as f:
        text = f.read()
    new = render(text, a.results, only)
    with open(a.readme, "w") as f:
        f.write(new)
    print(f"updated {a.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
