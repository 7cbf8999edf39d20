"""Regenerate the measured sections of README.md from the JSON results.

    python -m dungeonrl.benchmarks.report [--readme README.md] [--results benchmarks/results]

Each generated section sits between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->`` markers and is replaced whole; nothing in it is typed
by hand. Sections: ``unbroken-balance`` (from ``unbroken_balance.json``,
written by ``python -m dungeonrl.benchmarks.unbroken_balance --json``) and
``bench-suite`` (from ``suite.json``, written by ``dungeonrl bench --out
benchmarks/results``: the throughput suite over every game with its peers
and the speed targets) and ``bench-layers`` (from ``layers.json``, written
by ``dungeonrl bench --layers --out benchmarks/results``: where each
microsecond of a step goes) and ``baselines`` (from ``baselines.json``, written by ``python -m
dungeonrl.benchmarks.baselines run NAME``: the trained baselines and their
targets) and ``training-speed`` (from ``ppo_speed.json``, written by
``python -m dungeonrl.benchmarks.ppo_speed --json``) and ``pretrained``
(the shipped agents' cards, ``agents/pretrained_models/*.json``, written by
``python -m dungeonrl.agents.zoo ship``) and ``league-vs-selfplay`` (from
``league_vs_selfplay.json``, written by ``python -m
dungeonrl.benchmarks.league_vs_selfplay --json``) and ``cold-start`` (from
``cold_start.json``, written by ``python -m dungeonrl.benchmarks.cold_start
--json``) and ``web-load`` (from ``web_load.json``, written by ``python -m
dungeonrl.benchmarks.web_load --json``: decisions per second and latency of
``dungeonrl serve`` under load).
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

    return (
        f"Seeds 0..{data['games'] - 1} per cell ({data['games']:,} games per agent, "
        f"character and difficulty); 95% Wilson intervals.\n\n" + markdown(data["rows"])
    )


def suite_section(data):
    from .suite import markdown

    return markdown(data)


def layers_section(data):
    from .suite.breakdown import markdown

    return markdown(data)


def training_speed_section(data):
    from .ppo_speed import markdown

    return markdown(data)


def baselines_section(data):
    from .baselines import markdown

    return markdown(data)


def pretrained_section(_data):
    from ..agents.zoo import markdown

    return markdown()


def cold_start_section(data):
    from .cold_start import markdown

    return markdown(data)


def web_load_section(data):
    from .web_load import markdown

    return markdown(data)


def league_section(data):
    from .league_vs_selfplay import markdown

    return markdown(data)


SECTIONS = {
    "unbroken-balance": ("unbroken_balance.json", balance_section),
    "bench-suite": ("suite.json", suite_section),
    "bench-layers": ("layers.json", layers_section),
    "baselines": ("baselines.json", baselines_section),
    "training-speed": ("ppo_speed.json", training_speed_section),
    # the shipped agents' cards (agents/pretrained_models/*.json), no results file
    "pretrained": (None, pretrained_section),
    "league-vs-selfplay": ("league_vs_selfplay.json", league_section),
    "cold-start": ("cold_start.json", cold_start_section),
    "web-load": ("web_load.json", web_load_section),
}


def render(readme_text, results_dir, only=None):
    for name, (fname, fn) in SECTIONS.items():
        if only and name not in only:
            continue
        if fname is None:
            body = fn(None)
        else:
            path = os.path.join(results_dir, fname)
            if not os.path.exists(path):
                continue
            with open(path) as f:
                body = fn(json.load(f))
        pat = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
        if fname is None and not pat.search(readme_text) and not only:
            continue  # a section without a results file: where the text has its markers
        if not pat.search(readme_text):
            raise SystemExit(f"README has no <!-- {name}:start/end --> markers")
        readme_text = pat.sub(
            lambda m, body=body: m.group(1) + body + "\n" + m.group(2), readme_text
        )
    return readme_text


def main(argv=None):
    p = argparse.ArgumentParser(description="regenerate README sections from benchmark JSON")
    p.add_argument("--readme", default="README.md")
    p.add_argument("--results", default=RESULTS)
    p.add_argument(
        "--only",
        default=None,
        help=f"comma-separated sections to regenerate (default all: {', '.join(SECTIONS)})",
    )
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
