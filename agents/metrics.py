"""Training records shared by both PPO paths: a recent-window win rate for
progress bars, the metrics CSV/JSON and the learning-curve PNG; and the one
Wilson interval of the project (evaluation tables, balance tables, demo)."""

from __future__ import annotations

import csv
import json
import math
import os
from collections import deque

from ..envs.core.hooks import hooks_for

__all__ = [
    "RecentRate",
    "write_csv",
    "write_json",
    "plot_learning_curve",
    "smooth_win_rate",
    "wilson",
]


def run_metrics(
    *, algo, core, core_kwargs, seed, config, steps, seconds, model, interrupted, history
) -> dict:
    """The head of a training run's ``metrics.json``, the same keys for every
    backend: the algorithm, the game (its id and short name), the seed and
    setting (in the game's own words, its hooks' ``describe``), the
    configuration, the steps and seconds it took (and steps per second), the
    model file, whether it was interrupted, the history."""
    hooks = hooks_for(core.spec.name)
    return {
        "algo": algo,
        "env_id": core.spec.env_id,
        "game": core.spec.name,
        "seed": seed,
        "core_kwargs": core_kwargs,
        "setting": hooks.describe(core),
        "config": config,
        "steps": steps,
        "train_seconds": seconds,
        "sps": steps / seconds if seconds else None,
        "model": model,
        "interrupted": interrupted,
        "history": history,
    }


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``k / n`` (95% for
    ``z=1.96``); ``(0, 0)`` for ``n == 0``."""
    if n == 0:
        return 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


class RecentRate:
    """Win rate over the most recent ``window`` finished episodes, fed in
    chunks (``add(wins, episodes)``); also the mean of extra stats."""

    def __init__(self, window: int = 2000):
        self.window = int(window)
        self.chunks: deque = deque()
        self.n = 0

    def add(self, wins: float, episodes: int, **sums) -> None:
        if episodes <= 0:
            return
        self.chunks.append((wins, episodes, sums))
        self.n += episodes
        while self.chunks and self.n - self.chunks[0][1] >= self.window:
            self.n -= self.chunks.popleft()[1]

    @property
    def rate(self) -> float:
        if not self.n:
            return float("nan")
        return sum(c[0] for c in self.chunks) / self.n

    def mean(self, key: str) -> float:
        tot = sum(c[2].get(key, 0.0) for c in self.chunks)
        return tot / self.n if self.n else float("nan")


def smooth_win_rate(history: list, window: int = 2000) -> list:
    """Per row of ``history`` (dicts with ``win_rate`` and ``episodes``), the
    win rate over the last ``window`` episodes up to that row."""
    r, out = RecentRate(window), []
    for m in history:
        n = int(m.get("episodes", 0) or 0)
        w = m.get("win_rate", float("nan"))
        if n and not (isinstance(w, float) and math.isnan(w)):
            r.add(w * n, n)
        out.append(r.rate)
    return out


def _clean(x):
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (list, dict)):
        try:
            return _clean(x.item())
        except (AttributeError, ValueError):
            pass
    return x


def write_csv(history: list, path: str) -> str:
    keys = list(dict.fromkeys(k for m in history for k in m))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for m in history:
            w.writerow({k: m.get(k, "") for k in keys})
    return path


def write_json(obj, path: str) -> str:
    with open(path, "w") as f:
        json.dump(_clean(obj), f, indent=1)
    return path


def plot_learning_curve(
    history: list,
    path: str,
    title: str = "",
    references: dict | None = None,
    extra_key: str | None = "mean_level",
    extra_label: str = "mean Level",
) -> str:
    """Win rate (smoothed over the last 2,000 episodes) against env steps,
    with horizontal lines for ``references`` (``{label: win rate}``, e.g. the
    heuristic's), and a second panel with ``extra_key`` (or the mean
    return when the rows lack it)."""
    from matplotlib.figure import Figure  # no pyplot: leaves the user's backend alone

    steps = [m["global_step"] for m in history]
    win = smooth_win_rate(history)
    if extra_key is None or not any(extra_key in m for m in history):
        extra_key, extra_label = "mean_return", "mean episode return"
    extra = [m.get(extra_key, float("nan")) for m in history]
    fig = Figure(figsize=(11, 4))
    a1, a2 = fig.subplots(1, 2)
    mk = "o" if len(steps) < 20 else None
    a1.plot(
        steps,
        [100 * w for w in win],
        color="tab:blue",
        marker=mk,
        label="agent (training episodes)",
    )
    for i, (label, rate) in enumerate((references or {}).items()):
        a1.axhline(100 * rate, ls="--", color=f"C{i + 1}", label=f"{label} {rate:.1%}")
    a1.set_xlabel("env steps")
    a1.set_ylabel("win rate % (last 2,000 episodes)")
    a1.set_ylim(bottom=0)
    a1.legend(loc="lower right", fontsize=8)
    a1.grid(alpha=0.3)
    a2.plot(steps, extra, color="tab:green", marker=mk)
    a2.set_xlabel("env steps")
    a2.set_ylabel(extra_label)
    a2.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=100)
    return path
