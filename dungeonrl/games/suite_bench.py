"""``dungeonrl bench GAME`` for a game whose benchmark is the throughput
suite restricted to it (:mod:`dungeonrl.benchmarks.suite`): its options are
the suite's, less ``--games`` (the game) and ``--seed`` (the CLI's own)."""

from __future__ import annotations

import sys


def bench_options(spec):
    """The suite's options, less ``--games`` and ``--seed``."""
    import argparse

    from ..benchmarks import suite

    src = suite.build_parser()
    keep = argparse.ArgumentParser(add_help=False, description="the suite, on this game")
    for act in src._actions:
        if not isinstance(act, argparse._HelpAction) and act.dest not in ("games", "seed"):
            keep._add_action(act)
    return [keep]


def bench(args):
    """The throughput suite restricted to one game."""
    try:
        from ..benchmarks.suite import main as suite_main
    except ImportError:
        print(f"dungeonrl bench {args.env}: the benchmark suite is not installed", file=sys.stderr)
        return 1
    return suite_main(["--games", args.env, *args.argv])
