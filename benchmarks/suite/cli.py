"""``dungeonrl bench`` (``python -m dungeonrl.benchmarks.suite``): options,
where the results go, and the entry point."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from .. import cmdline
from .checks import IllegalActionInBenchmark
from .games import unknown_game_error
from .plots import plot
from .report import profile_text, table
from .runner import run
from .settings import MODES, Settings, default_out_dir
from .validate import validate


def _ints(text: str) -> tuple:
    return tuple(int(x) for x in text.replace(" ", "").split(",") if x)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dungeonrl bench",
        description="throughput suite: every layer of every registered game, peers in the same run",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="first look, under a minute")
    g.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # tests
    p.add_argument("--games", default=None, help="comma-separated game names (default: all)")
    p.add_argument("--repeats", type=int, default=None, help="timed repeats per figure")
    p.add_argument("--min-time", type=float, default=None, help="seconds per timed repeat")
    p.add_argument(
        "--envs",
        "--num-envs",
        dest="num_envs",
        type=_ints,
        default=None,
        help="num_envs sweep, e.g. 1,16,256 (default 1,16,256,4096,65536)",
    )
    p.add_argument("--threads", type=_ints, default=None, help="kernel thread counts, e.g. 1,2")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--torch-threads",
        type=int,
        default=None,
        help="torch threads of both PPO paths (default: the fast PPO's own)",
    )
    p.add_argument(
        "--out",
        default=None,
        help="folder of the JSON and the PNG plots (default ./bench-results; "
        "benchmarks/results only to replace the checked-in reference run)",
    )
    p.add_argument(
        "--json",
        default=None,
        help="JSON path (default OUT/suite.json, OUT/suite_quick.json with --quick); "
        "'none' to skip",
    )
    p.add_argument(
        "--from-json",
        default=None,
        metavar="PATH",
        help="measure nothing: print the table and redraw the plots of a saved run",
    )
    p.add_argument("--no-peers", action="store_true")
    p.add_argument(
        "--paired-rounds",
        type=int,
        default=None,
        metavar="N",
        help="rounds in which the loops a ratio target compares take turns "
        "(the targets are read from them; default 7, 0 = off)",
    )
    p.add_argument("--no-train", action="store_true")
    p.add_argument("--no-start", action="store_true")
    p.add_argument("--no-cold", action="store_true", help="skip the cold (compile) start")
    p.add_argument("--no-memory", action="store_true")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument(
        "--profile",
        dest="profile",
        action="store_true",
        default=None,
        help="profile where the time goes (default in the full run)",
    )
    p.add_argument("--no-profile", dest="profile", action="store_false")
    cmdline.add_flags(
        p,
        {
            "--layers": "only the per-layer profile table (where each microsecond goes, and "
            "the memory-bandwidth limit); takes --quick, --games, --seed, --out",
            "--search": "only the search agent's speed (simulations/s, search time over "
            "rollout time, OpenSpiel's MCTS beside it: python -m "
            "dungeonrl.benchmarks.search_speed); takes --quick, --games, --seed, --out, "
            "--json, --no-peers",
        },
    )
    return p


def settings_from_args(a) -> Settings:
    mode = "tiny" if a.tiny else "quick" if a.quick else "full"
    s = dataclasses.replace(MODES[mode], seed=a.seed)
    changes: dict[str, Any] = {}
    if a.games:
        changes["games"] = tuple(x for x in a.games.split(",") if x)
    if a.repeats:
        changes["repeats"] = a.repeats
    if a.min_time:
        changes["min_time"] = a.min_time
    if a.num_envs:
        changes["num_envs"] = a.num_envs
    if a.threads:
        changes["threads"] = a.threads
    for flag, key in (
        ("no_peers", "peers"),
        ("no_train", "train"),
        ("no_start", "start"),
        ("no_cold", "start_cold"),
        ("no_memory", "memory"),
        ("no_plots", "plots"),
    ):
        if getattr(a, flag):
            changes[key] = False
    if a.profile is not None:
        changes["profile"] = a.profile
    if a.paired_rounds is not None:
        if a.paired_rounds < 0:
            raise SystemExit("--paired-rounds must be >= 0")
        changes["paired_rounds"] = a.paired_rounds
    if a.torch_threads is not None:
        changes["torch_threads"] = a.torch_threads
    return dataclasses.replace(s, **changes)


def save(
    res: dict, json_path: str | None, out_dir: str | None, settings: Settings, log: Callable = print
) -> None:
    prefix = "suite" if settings.mode == "full" else f"suite_{settings.mode}"
    if settings.plots and out_dir:
        os.makedirs(out_dir, exist_ok=True)
        try:
            res["plots"] = plot(res, out_dir, prefix)
            res["plots_dir"] = os.path.abspath(out_dir)
            log("plots: " + ", ".join(os.path.join(out_dir, p) for p in res["plots"]))
        except ImportError as e:
            res["plots"] = []
            log(f"plots skipped: {e}")
    if json_path:
        os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
        with open(json_path, "w") as f:
            json.dump(res, f, indent=1)
        log(f"results: {json_path}")


def output_paths(a, settings: Settings) -> tuple[str | None, str]:
    """``(json_path or None, plots folder)`` of a run: everything under
    ``--out`` (default ``./bench-results``), the JSON at ``--json`` if given."""
    name = "suite.json" if settings.mode == "full" else f"suite_{settings.mode}.json"
    if (a.json or "").lower() == "none":
        return None, a.out or default_out_dir()
    if a.json:
        return a.json, a.out or os.path.dirname(os.path.abspath(a.json))
    out = a.out or default_out_dir()
    return os.path.join(out, name), out


def search_main(argv) -> int:
    """``dungeonrl bench --search``: :mod:`dungeonrl.benchmarks.search_speed`
    in the suite's words (``--quick``: its ``QUICK_DECISIONS`` decisions;
    ``--out DIR``: the JSON at ``DIR/search_speed.json``, default
    ``./bench-results``; ``--json PATH``), any other option its own
    (``--games``, ``--seed``, ``--no-peers``...)."""
    from .. import search_speed

    p = argparse.ArgumentParser(prog="dungeonrl bench --search", add_help=False)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=None)
    p.add_argument("--json", default=None)
    a, rest = p.parse_known_args(argv)
    if a.quick and "--decisions" not in rest:
        rest += ["--decisions", str(search_speed.QUICK_DECISIONS)]
    if a.quick and "--min-seconds" not in rest:
        rest += ["--min-seconds", "0"]
    rest += ["--out", a.json or os.path.join(a.out or default_out_dir(), "search_speed.json")]
    return search_speed.main(rest)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--layers" in argv:
        from .breakdown import main as layers_main

        return layers_main([x for x in argv if x != "--layers"])
    if "--search" in argv:
        return search_main([x for x in argv if x != "--search"])
    a = build_parser().parse_args(argv)
    if a.from_json:
        with open(a.from_json) as f:
            res = json.load(f)
        problems = validate(res)
        if problems:
            print("dungeonrl bench: " + "; ".join(problems[:5]), file=sys.stderr)
            return 2
        print(table(res))
        if any(c.get("profile") for g in res["games"].values() for c in g["configs"].values()):
            print("\nwhere the time goes:\n" + profile_text(res))
        if not a.no_plots:
            out_dir = a.out or os.path.dirname(os.path.abspath(a.from_json))
            prefix = "suite" if res["mode"] == "full" else f"suite_{res['mode']}"
            res["plots"] = plot(res, out_dir, prefix)
            with open(a.from_json, "w") as f:
                json.dump(res, f, indent=1)
            print("plots: " + ", ".join(os.path.join(out_dir, p) for p in res["plots"]))
        return 0
    settings = settings_from_args(a)
    problem = unknown_game_error(settings.games)
    if problem:
        print(f"dungeonrl bench: {problem}", file=sys.stderr)
        return 2
    json_path, out_dir = output_paths(a, settings)
    try:
        res = run(settings)
    except IllegalActionInBenchmark as e:
        print(
            f"dungeonrl bench: FAILED, a benchmark sampled an illegal action: {e}", file=sys.stderr
        )
        return 3
    print()
    print(table(res))
    if settings.profile:
        print()
        print("where the time goes:")
        print(profile_text(res))
    save(res, json_path, out_dir, settings)
    print(f"total {res['elapsed_s']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
