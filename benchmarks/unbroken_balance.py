"""Unbroken balance table: win rates of uniform random legal play and of the
scripted heuristic, per character and difficulty.

Run: ``python -m dungeonrl.benchmarks.unbroken_balance --games 10000``
(``--json PATH`` writes the figures; ``--markdown`` prints the README
table). Games are seeded 0..N-1, so the table is reproducible exactly.
Each win rate comes with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from ..agents.metrics import wilson
from ..envs.unbroken import CHARACTERS, UnbrokenCore
from ..envs.unbroken import consts as C
from ..envs.unbroken.heuristic import POLICY_HEURISTIC, POLICY_RANDOM, play_games


def run(games=10000, difficulties=C.DIFFICULTIES, characters=CHARACTERS, seed0=0):
    core = UnbrokenCore()
    rows = []
    states = core.alloc(games)
    seeds = np.arange(seed0, seed0 + games, dtype=np.uint64)
    out = np.zeros(games, np.int8)
    lv = np.zeros(games, np.int8)
    sc = np.zeros(games, np.int16)
    ln = np.zeros(games, np.int32)
    for d in difficulties:
        for ch in characters:
            row = {"difficulty": d, "character": ch, "games": games}
            for pname, pol in (("random", POLICY_RANDOM), ("heuristic", POLICY_HEURISTIC)):
                t0 = time.perf_counter()
                play_games(
                    core.TR,
                    states,
                    seeds,
                    CHARACTERS.index(ch),
                    C.DIFFICULTIES.index(d),
                    pol,
                    np.uint64(12345),
                    out,
                    lv,
                    sc,
                    ln,
                )
                wins = int((out == C.O_WIN).sum())
                lo, hi = wilson(wins, games)
                row[pname] = {
                    "win_rate": wins / games,
                    "ci95": [lo, hi],
                    "mean_level": float(lv.mean()),
                    "mean_score_of_wins": float(sc[out == C.O_WIN].mean()) if wins else 0.0,
                    "truncated": int((out == C.O_TRUNCATED).sum()),
                    "mean_decisions": float(ln.mean()),
                    "seconds": time.perf_counter() - t0,
                }
            rows.append(row)
    return rows


def markdown(rows):
    lines = [
        "| difficulty | character | random win % | heuristic win % (95% CI) "
        "| heuristic mean Level | heuristic mean score (wins) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        h = r["heuristic"]
        lines.append(
            f"| {r['difficulty']} | {r['character']} | {100 * r['random']['win_rate']:.2f} | "
            f"{100 * h['win_rate']:.1f} ({100 * h['ci95'][0]:.1f}-{100 * h['ci95'][1]:.1f}) | "
            f"{h['mean_level']:.2f} | {h['mean_score_of_wins']:.1f} |"
        )
    return "\n".join(lines)


def section(data):
    """The docs' section of a ``--json`` result (``python -m dungeonrl.benchmarks.report``)."""
    return (
        f"Seeds 0..{data['games'] - 1} per cell ({data['games']:,} games per agent, "
        f"character and difficulty); 95% Wilson intervals.\n\n" + markdown(data["rows"])
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10000)
    p.add_argument("--json", default=None)
    p.add_argument("--markdown", action="store_true")
    a = p.parse_args(argv)
    rows = run(a.games)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"games": a.games, "rows": rows}, f, indent=1)
    if a.markdown:
        print(markdown(rows))
    else:
        for r in rows:
            print(
                f"{r['difficulty']:6s} {r['character']:8s} "
                f"random {100 * r['random']['win_rate']:6.2f}%  "
                f"heuristic {100 * r['heuristic']['win_rate']:6.2f}%  "
                f"(mean Level {r['heuristic']['mean_level']:.2f})"
            )


if __name__ == "__main__":
    main()
