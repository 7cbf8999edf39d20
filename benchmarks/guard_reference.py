"""Record the references of the relative speed guards from a saved run.

    python -m dungeonrl.benchmarks.guard_reference record benchmarks/results/suite.json
    python -m dungeonrl.benchmarks.guard_reference show

``record`` reads the paired full step / rules-only ratio of every game
configuration of a saved ``dungeonrl bench`` run and writes it, with the
run's date, mode, command and machine, to
``benchmarks/results/guard_reference.json`` (``--out`` elsewhere): the
reference each configuration's guard is read against (it fails when a
run's ratio grows more than 15 % over it; see
``dungeonrl.benchmarks.suite.guards``). Re-record only after a change that
is meant to move a ratio, and say so in the change.
"""

from __future__ import annotations

import argparse
import json
import sys

from .suite.guards import REFERENCE_PATH, RELATIVE_GUARDS, load_references, record


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.benchmarks.guard_reference",
        description="record the references of the relative speed guards from a saved run",
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="write the references read from a saved suite run")
    r.add_argument("suite_json", help="a `dungeonrl bench` result (benchmarks/results/suite.json)")
    r.add_argument("--out", default=None, help=f"the reference file (default {REFERENCE_PATH})")
    sub.add_parser("show", help="print the recorded references")
    a = p.parse_args(argv)
    if a.cmd == "show":
        print(json.dumps(load_references(), indent=1))
        return 0
    try:
        refs = record(a.suite_json, a.out)
    except (OSError, ValueError) as e:
        print(f"guards: {e}", file=sys.stderr)
        return 2
    for tid in RELATIVE_GUARDS:
        n = sum(len(v) for v in refs[tid]["values"].values())
        print(f"{tid}: {n} configurations recorded from {refs[tid]['source']}")
    print(f"written to {a.out or REFERENCE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
