"""Round-robin leagues and Elo ratings (pure Python), for PvP games.

* :func:`expected_score` / :func:`elo_update`: the classic online Elo rule
  (``K`` factor, logistic curve with 400 points per factor of 10 in odds);
* :func:`fit_elo`: ratings fitted to a whole results table at once
  (Bradley-Terry maximum likelihood, draws counted as half a win each way,
  one virtual draw against an average player so a perfect record stays
  finite), on the Elo scale with the mean rating at ``base``. Unlike
  repeated online updates it does not depend on the order of the games;
* :class:`League`: every pair of agents plays ``games`` games through a
  ``play(agent_a, agent_b, games, seed) -> (wins_a, wins_b, draws)``
  callable (which alternates seats); ``table()`` gives ratings and scores,
  ``plot(path)`` a PNG of the ratings.

``dungeonrl eval dungeon_crawler --agent A --agent B ...`` plays every pair
with :func:`dungeonrl.agents.selfplay.play_match` (seats alternated; the
callable :func:`dungeonrl.agents.selfplay.league_play` wraps it for
:meth:`League.run`) and prints and plots this table.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable

__all__ = ["expected_score", "elo_update", "fit_elo", "MatchResult", "League"]


def expected_score(ra: float, rb: float) -> float:
    """Expected score of a player rated ``ra`` against one rated ``rb``."""
    return 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))


def elo_update(ra: float, rb: float, score_a: float, k: float = 32.0) -> tuple[float, float]:
    """New ratings after one game (``score_a``: 1 win, 0.5 draw, 0 loss for
    player a). Zero-sum: what a gains, b loses."""
    if not 0.0 <= score_a <= 1.0:
        raise ValueError(f"score_a must be in [0, 1], got {score_a}")
    delta = k * (score_a - expected_score(ra, rb))
    return ra + delta, rb - delta


@dataclass(frozen=True)
class MatchResult:
    a: str
    b: str
    wins_a: int
    wins_b: int
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins_a + self.wins_b + self.draws


def fit_elo(results, base: float = 1000.0, iters: int = 10_000, tol: float = 1e-10,
            prior_draws: float = 1.0) -> dict:
    """Elo ratings fitted to ``results`` (:class:`MatchResult` list) by
    Bradley-Terry maximum likelihood (minorise-maximise iterations).
    ``prior_draws`` virtual draws against an average (strength 1) player
    keep unbeaten or winless agents finite. Mean rating = ``base``."""
    names = sorted({r.a for r in results} | {r.b for r in results})
    if not names:
        return {}
    wins = {n: prior_draws / 2 for n in names}          # half of each virtual draw
    pair_games: dict[tuple, float] = {}
    for r in results:
        wins[r.a] += r.wins_a + r.draws / 2
        wins[r.b] += r.wins_b + r.draws / 2
        key = tuple(sorted((r.a, r.b)))
        pair_games[key] = pair_games.get(key, 0.0) + r.games
    strength = {n: 1.0 for n in names}
    for _ in range(iters):
        new = {}
        for n in names:
            denom = prior_draws / (strength[n] + 1.0)    # the virtual average opponent
            for (x, y), g in pair_games.items():
                if n in (x, y):
                    other = y if n == x else x
                    denom += g / (strength[n] + strength[other])
            new[n] = wins[n] / denom
        # normalise (geometric mean 1) and check convergence
        g = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        new = {n: v / g for n, v in new.items()}
        done = max(abs(math.log(new[n] / strength[n])) for n in names) < tol
        strength = new
        if done:
            break
    elo = {n: 400.0 * math.log10(strength[n]) for n in names}
    shift = base - sum(elo.values()) / len(elo)
    return {n: v + shift for n, v in elo.items()}


class League:
    """A round-robin among named agents.

    ``agents``: ``{name: agent}``; ``play(agent_a, agent_b, games, seed)``
    returns ``(wins_a, wins_b, draws)`` over ``games`` games (the callable
    alternates seats so neither side keeps the first move)."""

    def __init__(self, agents: dict, play: Callable):
        if len(agents) < 2:
            raise ValueError("a league needs at least two agents")
        self.agents = dict(agents)
        self.play = play
        self.results: list[MatchResult] = []

    def run(self, games: int = 100, seed: int = 0) -> list:
        for i, (a, b) in enumerate(itertools.combinations(self.agents, 2)):
            wa, wb, d = self.play(self.agents[a], self.agents[b], games, seed + i * games)
            self.results.append(MatchResult(a, b, int(wa), int(wb), int(d)))
        return self.results

    def table(self, base: float = 1000.0) -> list:
        """Rows ``{name, elo, games, score}`` sorted by rating (score = share
        of points, draws counting a half)."""
        elo = fit_elo(self.results, base=base)
        pts = {n: 0.0 for n in self.agents}
        played = {n: 0 for n in self.agents}
        for r in self.results:
            pts[r.a] += r.wins_a + r.draws / 2
            pts[r.b] += r.wins_b + r.draws / 2
            played[r.a] += r.games
            played[r.b] += r.games
        rows = [{"name": n, "elo": elo.get(n, base), "games": played[n],
                 "score": pts[n] / played[n] if played[n] else float("nan")}
                for n in self.agents]
        return sorted(rows, key=lambda r: -r["elo"])

    def format_table(self) -> str:
        lines = [f"{'agent':<28} {'Elo':>7} {'games':>6} {'score':>7}"]
        for r in self.table():
            lines.append(f"{r['name'][:28]:<28} {r['elo']:7.0f} {r['games']:6d} {r['score']:7.1%}")
        return "\n".join(lines)

    def plot(self, path: str, title: str = "league ratings") -> str:
        from matplotlib.figure import Figure     # no pyplot: leaves the user's backend alone
        rows = self.table()
        fig = Figure(figsize=(6, 0.5 + 0.45 * len(rows)))
        ax = fig.subplots()
        ax.barh([r["name"] for r in rows][::-1], [r["elo"] for r in rows][::-1], color="tab:blue")
        ax.set_xlabel("Elo (mean 1000)")
        ax.set_title(title)
        lo = min(r["elo"] for r in rows)
        ax.set_xlim(left=min(lo - 50, 900))
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        return path
