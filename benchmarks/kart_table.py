"""Dungeon Kart: the scripted heuristic against random racers.

One seat is driven by the heuristic (``envs/dungeon_kart/policy.py``), every
other seat by uniform random legal play; the heuristic's seat rotates over
the table (game ``g`` puts it at seat ``g % n``). Whole races run inside
numba through the engine's ``play_rows``. Per player count: the heuristic's
win rate (ranked alone first, 95% Wilson interval) and its mean finishing
place (1 = best, ties share the best spot they span; 95% normal interval),
next to what a random seat would get (1/n and (n + 1)/2), and how many races
the round cap cut short.

Run: ``python -m dungeonrl.benchmarks.kart_table --games 400``
(``--players 2 4 8``, ``--track NAME``, ``--json PATH``, ``--markdown``).
Games are seeded 0..N-1, so the table is reproducible exactly.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from ..agents.metrics import wilson
from ..envs.core.kernel.header import O_TRUNCATED
from ..envs.core.kernel.rng import rng_seed
from ..envs.dungeon_kart import consts as C
from ..envs.dungeon_kart.core import DungeonKartCore
from ..envs.dungeon_kart.hooks import SCRIPTED_HEURISTIC, SCRIPTED_RANDOM, final_rank, play_rows


def run(players=(2, 4, 8), games=400, track="Beginner Track", seed0=0, policy_seed=12345):
    rows = []
    for n in players:
        core = DungeonKartCore(num_players=n, track=track)
        st = core.alloc(games)
        core.reset(st, np.arange(seed0, seed0 + games, dtype=np.uint64))
        seat = np.arange(games) % n
        codes = np.full((games, C.MAX_P), SCRIPTED_RANDOM, np.int8)
        codes[np.arange(games), seat] = SCRIPTED_HEURISTIC
        prng = np.zeros((games, 2), np.uint64)
        for i in range(games):
            rng_seed(prng[i], np.uint64(policy_seed), i)
        ret = np.zeros((games, C.MAX_P), np.float32)
        length = np.zeros(games, np.int64)
        t0 = time.perf_counter()
        play_rows(st, core.TR, codes, prng, ret, length)
        secs = time.perf_counter() - t0
        rank = final_rank(st)[np.arange(games), seat]
        alone = (final_rank(st) == 1).sum(axis=1) == 1
        wins = int(((rank == 1) & alone).sum())
        lo, hi = wilson(wins, games)
        m = float(rank.mean())
        half = 1.96 * float(rank.std(ddof=1)) / np.sqrt(games)
        rows.append(
            {
                "players": n,
                "games": games,
                "track": track,
                "heuristic_win_rate": wins / games,
                "win_ci95": [lo, hi],
                "random_seat_win_rate": 1.0 / n,
                "heuristic_mean_place": m,
                "place_ci95": [m - half, m + half],
                "random_seat_mean_place": (n + 1) / 2.0,
                "heuristic_finished": float(st["finished"][np.arange(games), seat].mean()),
                "truncated": float((st["outcome"] == O_TRUNCATED).mean()),
                "mean_rounds": float(st["round"].mean()),
                "mean_decisions": float(length.mean()),
                "seconds": secs,
            }
        )
    return rows


def markdown(rows) -> str:
    out = [
        "| players | games | heuristic wins (95% CI) | a random seat | heuristic mean place "
        "(95% CI) | a random seat | races cut by the round cap |",
        "|---:|---:|---|---:|---|---:|---:|",
    ]
    for r in rows:
        lo, hi = r["win_ci95"]
        plo, phi = r["place_ci95"]
        out.append(
            f"| {r['players']} | {r['games']} | {100 * r['heuristic_win_rate']:.1f}% "
            f"({100 * lo:.1f}-{100 * hi:.1f}) | {100 * r['random_seat_win_rate']:.1f}% | "
            f"{r['heuristic_mean_place']:.2f} ({plo:.2f}-{phi:.2f}) | "
            f"{r['random_seat_mean_place']:.1f} | {100 * r['truncated']:.0f}% |"
        )
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4, 8])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--track", default="Beginner Track")
    ap.add_argument("--json", default=None)
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args(argv)
    rows = run(a.players, a.games, a.track)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    print(markdown(rows) if a.markdown else json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
