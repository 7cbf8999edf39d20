"""Dungeon Crawler Carl: Unstoppable balance table: win rates of uniform
random legal play and of the scripted heuristic (``envs/dcc_unstoppable/
policy.py``), per floor (1-3) x difficulty, solo and co-op (the same policy
in both seats), arcade mode.

Run: ``python -m dungeonrl.benchmarks.dcc_balance --games 10000``
(``--json PATH`` writes the figures; ``--markdown`` prints the README
table; ``--floors``, ``--difficulties``, ``--players`` pick cells). Whole
games run inside numba (the generated ``play_rows`` kernel); game i of every
cell is seeded ``seed0 + i`` and the policies' tie-break generators are
seeded from ``policy_seed``, so the table is reproducible exactly. Each win
rate comes with a 95% Wilson interval; ``mean_score`` is the arcade score
(``xp * 100`` of a won game, 0 for a loss) over all games, ``mean_decisions``
the decisions per game (auto-advanced single-choice steps excluded) and
``mean_turns`` the turns played.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from ..agents.metrics import wilson
from ..envs.core.batch import core_batch
from ..envs.core.kernel.rng import rng_seed
from ..envs.dcc_unstoppable import consts as C
from ..envs.dcc_unstoppable import kernels as K
from ..envs.dcc_unstoppable.core import DCCCore

POLICIES = {"random": K.SCRIPTED_RANDOM, "heuristic": K.SCRIPTED_POLICY}
DEFAULT_DIFFICULTIES = ("normal", "hard", "expert", "unbeatable")


def play_cell(
    games: int,
    floor: int,
    difficulty: str,
    players: int,
    policy: str,
    seed0: int = 0,
    policy_seed: int = 12345,
) -> dict:
    """Play ``games`` arcade games of one cell to their end; the figures of
    :func:`run`'s rows (one policy)."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {sorted(POLICIES)}, got {policy!r}")
    core = DCCCore(num_players=players, floor=floor, difficulty=difficulty, mode="arcade")
    states = core.alloc(games)
    core.reset(states, np.arange(seed0, seed0 + games, dtype=np.uint64))
    codes = np.full((games, K.MAX_SEATS), POLICIES[policy], np.int64)
    prng = np.zeros((games, 2), np.uint64)
    for i in range(games):
        rng_seed(prng[i], np.uint64(policy_seed), np.uint64(i))
    returns = np.zeros((games, K.MAX_SEATS), np.float32)
    length = np.zeros(games, np.int64)
    t0 = time.perf_counter()
    core_batch(core).play_whole(states, codes, prng, returns, length)
    dt = time.perf_counter() - t0
    out = states["outcome"]
    wins = int((out == C.O_WIN).sum())
    lo, hi = wilson(wins, games)
    return {
        "win_rate": wins / games,
        "ci95": [lo, hi],
        "wins": wins,
        "loss_health": int((out == C.O_LOSS_HEALTH).sum()),
        "loss_skull": int((out == C.O_LOSS_SKULL).sum()),
        "other": int(games - wins - (out == C.O_LOSS_HEALTH).sum() - (out == C.O_LOSS_SKULL).sum()),
        "mean_score": float(states["score"].mean()),
        "mean_decisions": float(length.mean()),
        "mean_turns": float(states["turn"].mean()),
        "mean_level": float(states["level"][:, :players].mean()),
        "seconds": dt,
    }


def run(
    games=10000,
    floors=(1, 2, 3),
    difficulties=DEFAULT_DIFFICULTIES,
    players=(1, 2),
    policies=("random", "heuristic"),
    seed0=0,
    log=None,
):
    rows = []
    for n in players:
        for f in floors:
            for d in difficulties:
                row = {"players": n, "floor": f, "difficulty": d, "games": games}
                for pol in policies:
                    row[pol] = play_cell(games, f, d, n, pol, seed0)
                rows.append(row)
                if log:
                    log(row)
    return rows


def _pct(r):
    return f"{100 * r['win_rate']:.1f} ({100 * r['ci95'][0]:.1f}-{100 * r['ci95'][1]:.1f})"


def markdown(rows, policies=("random", "heuristic")):
    head = "| players | floor | difficulty |"
    sep = "|---|---|---|"
    for p in policies:
        head += f" {p} win % (95% CI) | {p} mean score | {p} mean turns |"
        sep += "---|---|---|"
    lines = [head, sep]
    for r in rows:
        line = f"| {r['players']} | {r['floor']} | {r['difficulty']} |"
        for p in policies:
            x = r[p]
            line += f" {_pct(x)} | {x['mean_score']:.0f} | {x['mean_turns']:.1f} |"
        lines.append(line)
    return "\n".join(lines)


def _line(r):
    s = f"{r['players']}p floor {r['floor']} {r['difficulty']:10s}"
    for p in ("random", "heuristic"):
        if p in r:
            x = r[p]
            s += (
                f"  {p} {100 * x['win_rate']:5.1f}% (hp {x['loss_health']}, skull "
                f"{x['loss_skull']}, turns {x['mean_turns']:.1f})"
            )
    return s


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10000, help="games per cell and policy")
    p.add_argument("--floors", type=int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3])
    p.add_argument(
        "--difficulties",
        nargs="+",
        default=list(DEFAULT_DIFFICULTIES),
        choices=list(C.DIFFICULTIES),
    )
    p.add_argument("--players", type=int, nargs="+", default=[1, 2], choices=[1, 2])
    p.add_argument(
        "--policies", nargs="+", default=["random", "heuristic"], choices=sorted(POLICIES)
    )
    p.add_argument("--seed", type=int, default=0, help="seed of game 0 of every cell")
    p.add_argument("--json", default=None, help="write the figures to this file")
    p.add_argument("--markdown", action="store_true", help="print the markdown table")
    a = p.parse_args(argv)
    if a.games < 1:
        p.error("--games must be >= 1")
    t0 = time.perf_counter()
    rows = run(
        a.games,
        tuple(a.floors),
        tuple(a.difficulties),
        tuple(a.players),
        tuple(a.policies),
        a.seed,
        log=None if a.markdown else lambda r: print(_line(r), flush=True),
    )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(
                {
                    "games": a.games,
                    "seed": a.seed,
                    "mode": "arcade",
                    "seconds": time.perf_counter() - t0,
                    "loadavg": list(os.getloadavg()),
                    "rows": rows,
                },
                f,
                indent=1,
            )
    if a.markdown:
        print(markdown(rows, tuple(a.policies)))


if __name__ == "__main__":
    main()
