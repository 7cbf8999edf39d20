"""A game's balance table: its scripted heuristic against uniform random
legal play, over the settings the game tabulates.

Run: ``python -m dungeonrl.benchmarks.balance GAME [--games N]
[--set OPTION=V1,V2 ...] [--seed 0] [--json PATH] [--markdown]``.

The settings (core options) each game tabulates, how many games a cell
plays and the columns of its table are data: ``benchmarks/data/
balance.toml``. Every cell is played twice, once per arm (``random``:
uniform random legal play; ``heuristic``: the game's scripted policy),
whole games inside numba (the engine's ``play_rows`` loop): game ``i`` of
a cell starts from seed ``seed + i``, its measured seat is ``i mod n``,
and the scripted generator of game ``i`` is seeded from ``(policy_seed,
seed + i)``, so the table is reproducible exactly. The measured seat and
its teammates play the arm; every other seat (a rival) plays uniform
random legal moves, so in a solo or all-co-op game every seat plays the
arm, and in a race one heuristic seat meets random racers.

The figures of a game are those of its declared ``episode_stats`` hook
(``win`` and the game's own: Level, score, turns, place...; the measured
seat's return is its ``last_reward``), each as a mean over the games with a
95% interval (Wilson for a rate, normal otherwise) and a mean over the won
games; ``decisions`` (per game) comes from the engine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time
from typing import Any

import numpy as np

from ..agents.metrics import wilson
from ..envs.core.batch import core_batch
from ..envs.core.common import resolve_core
from ..envs.core.hooks import hooks_for
from ..envs.core.kernel.rng import rng_seed
from ..envs.core.scripted import WHOLE_GAME_CODES
from . import datafile

#: the arms every cell is played with, in this order
ARMS = ("random", "heuristic")
_KEYS = ("games", "options", "settings", "labels", "about", "columns")
_COLUMN_KEYS = ("arm", "stat", "label", "ci", "wins", "format")


def load(name: str = "balance") -> dict[str, dict[str, Any]]:
    """The per-game tables of the data file, checked: game -> its record."""
    data = datafile.load(name)
    out = {}
    for game, rec in data.items():
        where = f"{name}.toml [{game}]"
        datafile.check_game(game, where)
        rec = datafile.check_keys(rec, where, ("settings", "columns"), _KEYS)
        for i, col in enumerate(rec["columns"]):
            datafile.check_keys(col, f"{where} columns #{i + 1}", ("arm", "stat"), _COLUMN_KEYS)
            if col["arm"] not in ARMS:
                raise ValueError(f"{where} columns #{i + 1}: arm must be one of {ARMS}")
        out[game] = rec
    return out


def _stat(values: np.ndarray, win: np.ndarray) -> dict:
    """Mean, 95% interval and mean over the won games of one figure."""
    v = np.asarray(values)
    n = len(v)
    if v.dtype == np.bool_:
        k = int(v.sum())
        lo, hi = wilson(k, n)
    else:
        v = v.astype(np.float64)
        half = 1.96 * float(v.std(ddof=1)) / np.sqrt(n) if n > 1 else 0.0
        lo, hi = float(v.mean()) - half, float(v.mean()) + half
    won = v[win]
    return {
        "mean": float(v.mean()),
        "ci95": [float(lo), float(hi)],
        "mean_of_wins": float(won.mean()) if len(won) else None,
    }


def play_cell(core, arm: str, games: int, seed: int = 0, policy_seed: int = 12345) -> dict:
    """Games ``seed .. seed + games - 1`` of ``core`` played to the end by
    ``arm`` (see the module doc): every figure of the game's
    ``episode_stats`` (see :func:`_stat`), ``decisions`` and ``seconds``."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")
    batch = core_batch(core)
    if arm == "heuristic" and not batch.has_policy():
        raise ValueError(f"{core.spec.name} has no scripted policy")
    n, width = int(core.num_players), core.spec.max_players
    rows = np.arange(games)
    seeds = np.arange(seed, seed + games, dtype=np.uint64)
    seat = rows % n
    team = core.spec.team_of(n)
    codes = np.full((games, width), WHOLE_GAME_CODES["random"], np.int8)
    codes[:, :n] = np.where(
        team[None, :] == team[seat][:, None], WHOLE_GAME_CODES[arm], codes[:, :n]
    )
    prng = np.zeros((games, 2), np.uint64)
    for i in range(games):
        rng_seed(prng[i], np.uint64(policy_seed), seeds[i])
    returns = np.zeros((games, width), np.float32)
    length = np.zeros(games, np.int64)
    states = core.alloc(games)
    core.reset(states, seeds)
    t0 = time.perf_counter()
    batch.play_whole(states, codes, prng, returns, length)
    secs = time.perf_counter() - t0
    stats = hooks_for(core.spec.name).episode_stats(core, states, rows, returns[rows, seat])
    win = np.asarray(stats["win"], bool)
    out: dict[str, object] = {k: _stat(v, win) for k, v in stats.items()}
    out["decisions"] = _stat(length, win)
    out["seconds"] = secs
    return out


def cells(rec: dict, chosen: dict | None = None) -> list[dict]:
    """The core options of every cell of a game's record (``chosen``: option
    -> values replacing the record's)."""
    axes = {**rec["settings"], **(chosen or {})}
    return [dict(zip(axes, vals)) for vals in itertools.product(*axes.values())]


def run(game: str, games: int | None = None, chosen=None, seed=0, policy_seed=12345, log=None):
    """The rows of ``game``'s table: per cell its settings and each arm's figures."""
    rec = load()[game]
    games = int(games or rec.get("games", 1000))
    rows = []
    for cell in cells(rec, chosen):
        core = resolve_core(game, {**rec.get("options", {}), **cell})
        row = {"settings": cell, "games": games}
        for arm in ARMS:
            if arm == "heuristic" and not core_batch(core).has_policy():
                continue
            row[arm] = play_cell(core, arm, games, seed, policy_seed)
        rows.append(row)
        if log:
            log(row)
    return rows


def _figure(fig: dict, col: dict) -> str:
    if fig is None:
        return "-"
    m = fig["mean_of_wins"] if col.get("wins") else fig["mean"]
    if m is None:
        return "-"
    fmt = col.get("format", "pct1")
    if fmt.startswith("pct"):
        digits = int(fmt[3:] or 1)
        text = f"{100 * m:.{digits}f}"
        lo, hi = (f"{100 * x:.{digits}f}" for x in fig["ci95"])
    else:
        text, lo, hi = fmt.format(m), fmt.format(fig["ci95"][0]), fmt.format(fig["ci95"][1])
    return f"{text} ({lo}-{hi})" if col.get("ci") else text


def markdown(game: str, rows: list[dict]) -> str:
    """The game's table (its columns: ``benchmarks/data/balance.toml``)."""
    rec = load()[game]
    names = list(rows[0]["settings"]) if rows else list(rec["settings"])
    labels = rec.get("labels", {})
    cols = rec["columns"]
    head = [labels.get(k, k) for k in names] + [
        c.get("label", f"{c['arm']} {c['stat']}") for c in cols
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells_ = [str(r["settings"][k]) for k in names]
        cells_ += [_figure(r.get(c["arm"], {}).get(c["stat"]), c) for c in cols]
        lines.append("| " + " | ".join(cells_) + " |")
    return "\n".join(lines)


def section(data: dict) -> str:
    """The docs' section of a ``--json`` result (``python -m dungeonrl.benchmarks.report``)."""
    rec = load()[data["game"]]
    about = rec.get("about", "").format(
        games=data["games"], first=data["seed"], last=data["seed"] + data["games"] - 1
    )
    return (about + "\n\n" if about else "") + markdown(data["game"], data["rows"])


def _value(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return text


def _setting(text: str) -> tuple[str, list]:
    key, sep, vals = text.partition("=")
    if not sep or not key or not vals:
        raise argparse.ArgumentTypeError(f"expected OPTION=V1,V2, got {text!r}")
    return key, [_value(v) for v in vals.split(",")]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.benchmarks.balance", description=__doc__.splitlines()[0]
    )
    p.add_argument("game", choices=sorted(load()), help="a game of benchmarks/data/balance.toml")
    p.add_argument("--games", type=int, default=None, help="games per cell and arm")
    p.add_argument(
        "--set",
        type=_setting,
        action="append",
        default=[],
        metavar="OPTION=V1,V2",
        help="tabulate these values of a core option instead of the data file's",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of game 0 of every cell")
    p.add_argument("--policy-seed", type=int, default=12345, help="the scripted generators' seed")
    p.add_argument("--json", default=None, help="write the figures to this file")
    p.add_argument("--markdown", action="store_true", help="print the markdown table")
    return p


def _line(row: dict) -> str:
    s = " ".join(f"{k}={v}" for k, v in row["settings"].items())
    for arm in ARMS:
        if arm in row:
            s += f"  {arm} win {100 * row[arm]['win']['mean']:5.1f}%"
    return s


def main(argv=None) -> int:
    p = parser()
    a = p.parse_args(argv)
    if a.games is not None and a.games < 1:
        p.error("--games must be >= 1")
    t0 = time.perf_counter()
    log = None if a.markdown else (lambda r: print(_line(r), flush=True))
    rows = run(a.game, a.games, dict(a.set), a.seed, a.policy_seed, log)
    games = rows[0]["games"] if rows else 0
    if a.json:
        cmd = f"python -m dungeonrl.benchmarks.balance {a.game} --games {games}"
        cmd += "".join(f" --set {k}={','.join(map(str, v))}" for k, v in a.set)
        cmd += f" --seed {a.seed}" if a.seed else ""
        cmd += f" --policy-seed {a.policy_seed}" if a.policy_seed != 12345 else ""
        data = {
            "game": a.game,
            "command": cmd + f" --json {a.json}",
            "games": games,
            "seed": a.seed,
            "policy_seed": a.policy_seed,
            "seconds": time.perf_counter() - t0,
            "loadavg": list(os.getloadavg()),
            "rows": rows,
        }
        with open(a.json, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
    if a.markdown:
        print(markdown(a.game, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
