"""League training against plain self-play at equal wall-clock: which policy
is harder to exploit?

    python -m dungeonrl.benchmarks.league_vs_selfplay --minutes 8 --exploit-minutes 4 \\
        --json benchmarks/results/league_vs_selfplay.json

Both learners start from the same clone of the heuristic and train for the
same minutes on Dungeon Crawler (2 seats) against snapshots of themselves
only: *plain* keeps the last ``--slots`` snapshots and draws them alike;
*league* keeps up to ``--league-slots`` and draws them by prioritized
fictitious self-play (``--league``, ``agents/algos/pfsp.py``). Each is then
exploited by ``dungeonrl exploit`` with the same budget and seeds; the
figure is the best response's win rate (lower: less exploitable), with the
learners' own win rates against the heuristic beside it.
"""

from __future__ import annotations

import datetime
import json
import os
import shlex
import sys

from ..agents.commands.exploit import exploit
from ..agents.commands.train import build_parser as train_parser
from ..agents.commands.train import main as train_main
from ..machine import machine_info
from . import cmdline, datafile

#: the game and the arms' shared ``dungeonrl train`` arguments
#: (``benchmarks/data/league_vs_selfplay.toml``)
_DATA = datafile.check_keys(
    datafile.load("league_vs_selfplay"), "league_vs_selfplay.toml", ("game", "args")
)
GAME = _DATA["game"]
COMMON = shlex.split(_DATA["args"])


def run(
    minutes: float, exploit_minutes: float, games: int, root: str, slots: int, league_slots: int
):
    out = {}
    for arm, extra in (
        ("plain", ["--snapshot-slots", str(slots)]),
        ("league", ["--league", "--snapshot-slots", str(league_slots)]),
    ):
        folder = os.path.join(root, arm)
        argv = [*COMMON, *extra, "--minutes", f"{minutes:g}", "--eval-games", str(games)]
        ns = train_parser(game=GAME).parse_args([*argv, "--out", folder])
        ns.env, ns.given = GAME, {"out", "overwrite"}
        if train_main(ns):
            raise SystemExit(f"training {arm} failed")
        with open(os.path.join(folder, "metrics.json"), encoding="utf-8") as f:
            m = json.load(f)
        x = exploit(
            GAME,
            os.path.join(folder, "model.pt"),
            minutes=exploit_minutes,
            games=games,
            out=os.path.join(root, f"exploit-{arm}"),
            force=True,  # a rerun replaces its arm's run, as train's --overwrite above
            methods=("rl",),  # the saved comparison: a fresh rl best response
            from_agent=False,
        )
        out[arm] = {
            "command": f"dungeonrl train {GAME} " + " ".join(argv),
            "steps": m["steps"],
            "train_minutes": round(m["train_seconds"] / 60, 2),
            "final_eval": m.get("final_eval"),
            "exploit": x,
        }
    return out


def markdown(doc: dict) -> str:
    """The README table of a saved comparison."""
    lines = [
        "| training | env steps | vs heuristic | vs random | best response wins "
        f"(after {doc['exploit_minutes']:g} min) |",
        "|---|---:|---|---|---|",
    ]
    for arm, r in doc["arms"].items():
        ev = {row["opponent"]: row for row in r.get("final_eval") or [] if "ppo" in row["agent"]}

        def pct(row):
            if row is None:
                return "-"
            lo, hi = row["ci95"]
            return f"{row['win_rate']:.1%} ({lo:.1%}-{hi:.1%})"

        br = r["exploit"]["best_response"]
        lines.append(
            f"| {arm} | {r['steps']:,} | {pct(ev.get('heuristic'))} | {pct(ev.get('random'))} | "
            f"{br['win_rate']:.1%} ({br['ci_low']:.1%}-{br['ci_high']:.1%}) |"
        )
    arms = doc["arms"]
    if "plain" in arms and "league" in arms:
        lb, pb = (
            arms["league"]["exploit"]["best_response"],
            arms["plain"]["exploit"]["best_response"],
        )
        overlap = lb["ci_low"] <= pb["ci_high"] and pb["ci_low"] <= lb["ci_high"]
        if lb["win_rate"] < pb["win_rate"]:
            verdict = "the league was the harder to exploit"
        else:
            verdict = "the league was not the harder to exploit"
        lines.append("")
        lines.append(
            f"At this budget {verdict} ({lb['win_rate']:.1%} against {pb['win_rate']:.1%} "
            f"for the best responses{'; the intervals overlap' if overlap else ''})."
        )
    m = doc["machine"]
    lines.append("")
    lines.append(
        f"{doc['minutes']:g} minutes of training each, {doc['games']:,} seeded games per row, "
        f"{m['cores']} cores ({m['cpu']}), {doc['date']}; `{doc['command']}`."
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    p = cmdline.parser("league_vs_selfplay", __doc__)
    p.add_argument("--minutes", type=float, default=8.0)
    p.add_argument("--exploit-minutes", type=float, default=4.0)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--slots", type=int, default=8, help="plain self-play: snapshots kept")
    p.add_argument("--league-slots", type=int, default=32, help="league: pool size")
    p.add_argument("--root", default="runs/league_vs_selfplay")
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    res = run(a.minutes, a.exploit_minutes, a.games, a.root, a.slots, a.league_slots)
    doc = {
        "date": datetime.date.today().isoformat(),
        "machine": machine_info(),
        "command": "python -m dungeonrl.benchmarks.league_vs_selfplay "
        + " ".join(argv or sys.argv[1:]),
        "minutes": a.minutes,
        "exploit_minutes": a.exploit_minutes,
        "games": a.games,
        "arms": res,
    }
    for arm, r in res.items():
        br = r["exploit"]["best_response"]
        print(
            f"{arm}: {r['steps']:,} steps; best response wins {br['win_rate']:.1%} "
            f"({br['ci_low']:.1%}-{br['ci_high']:.1%})"
        )
    cmdline.save_json(doc, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
