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

* :class:`Placement` / :func:`fit_openskill` / :class:`PlacementLeague`:
  games of more than two sides, teams and ties, rated from *placements*
  (who finished where; equal placements are a tie; teammates share one)
  with the Plackett-Luce model of the maintained ``openskill`` package
  (``pip install dungeonrl[train]``). Ratings are ``mu`` and ``sigma`` on
  openskill's scale; tables sort by the conservative ``ordinal``
  (``mu - 3 sigma``). :func:`rating_kind` picks Elo or openskill from the
  game's declared facts (two single-seat sides: Elo; more seats per game
  or teams: openskill).

``dungeonrl eval dungeon_crawler --agent A --agent B ...`` plays every pair
with :func:`dungeonrl.agents.algos.selfplay.play_match` (seats alternated; the
callable :func:`dungeonrl.agents.algos.selfplay.league_play` wraps it for
:meth:`League.run`) and prints and plots this table.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "expected_score",
    "elo_update",
    "fit_elo",
    "MatchResult",
    "League",
    "Placement",
    "fit_openskill",
    "PlacementLeague",
    "rating_kind",
]


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


def fit_elo(
    results, base: float = 1000.0, iters: int = 10_000, tol: float = 1e-10, prior_draws: float = 1.0
) -> dict:
    """Elo ratings fitted to ``results`` (:class:`MatchResult` list) by
    Bradley-Terry maximum likelihood (minorise-maximise iterations).
    ``prior_draws`` virtual draws against an average (strength 1) player
    keep unbeaten or winless agents finite. Mean rating = ``base``."""
    names = sorted({r.a for r in results} | {r.b for r in results})
    if not names:
        return {}
    wins = {n: prior_draws / 2 for n in names}  # half of each virtual draw
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
            denom = prior_draws / (strength[n] + 1.0)  # the virtual average opponent
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
    alternates seats so neither side keeps the first move). ``play=None``:
    the caller plays the matches and appends to ``results`` itself
    (:meth:`run` then raises ``ValueError``)."""

    def __init__(self, agents: dict, play: Callable | None):
        if len(agents) < 2:
            raise ValueError("a league needs at least two agents")
        self.agents = dict(agents)
        self.play = play
        self.results: list[MatchResult] = []

    def run(self, games: int = 100, seed: int = 0) -> list:
        if self.play is None:
            raise ValueError("this league has no play function: append to .results instead")
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
        rows = [
            {
                "name": n,
                "elo": elo.get(n, base),
                "games": played[n],
                "score": pts[n] / played[n] if played[n] else float("nan"),
            }
            for n in self.agents
        ]
        return sorted(rows, key=lambda r: -r["elo"])

    def format_table(self) -> str:
        rows = self.table()
        w = max([28] + [len(r["name"]) for r in rows])  # names kept whole
        lines = [f"{'agent':<{w}} {'Elo':>7} {'games':>6} {'score':>7}"]
        for r in rows:
            lines.append(f"{r['name']:<{w}} {r['elo']:7.0f} {r['games']:6d} {r['score']:7.1%}")
        return "\n".join(lines)

    def plot(self, path: str, title: str = "league ratings") -> str:
        from matplotlib.figure import Figure  # no pyplot: leaves the user's backend alone

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


# --- placements: more than two sides, teams, ties (openskill) ------------------------------
@dataclass(frozen=True)
class Placement:
    """One finished game: ``sides`` lists, per side (a team, or a seat
    alone), the names of the agents that played it; ``ranks[k]`` is side
    ``k``'s placement (0 = best; equal ranks are a tie)."""

    sides: tuple
    ranks: tuple

    def __post_init__(self):
        if len(self.sides) != len(self.ranks) or len(self.sides) < 2:
            raise ValueError(
                f"a placement needs >= 2 sides and one rank per side, got "
                f"{len(self.sides)} sides and {len(self.ranks)} ranks"
            )


def rating_kind(spec, num_players: int) -> str:
    """``"elo"`` when a game is two single-seat sides, else ``"openskill"``
    (from the spec's declared ``teams``, never from the game's name)."""
    teams = spec.teams(int(num_players))
    return "elo" if len(teams) == 2 and all(len(t) == 1 for t in teams) else "openskill"


def _openskill_model(**kw):
    try:
        from openskill.models import PlackettLuce
    except ImportError as e:  # pragma: no cover - the train extra installs it
        raise ImportError(
            "multi-player ratings need the openskill package "
            "(pip install 'dungeonrl[train]' or pip install openskill)"
        ) from e
    return PlackettLuce(**kw)


def fit_openskill(results, passes: int = 1, **model_kw) -> dict:
    """Plackett-Luce ratings (``openskill``) from :class:`Placement` results,
    in order (``passes`` > 1 replays the results that many times, which
    sharpens the estimate of a small league). A side played by several
    agents rates them as a team; a side of one agent repeated (the same
    agent in every seat of its team) counts it once. Games where one agent
    plays on two different sides say nothing about it and are skipped.
    Returns ``{name: {"mu", "sigma", "ordinal", "games"}}``."""
    model = _openskill_model(**model_kw)
    ratings: dict = {}
    games: dict = {}
    for _ in range(int(passes)):
        for r in results:
            sides = [tuple(dict.fromkeys(side)) for side in r.sides]  # unique, in order
            names = [n for side in sides for n in side]
            if len(names) != len(set(names)):
                continue
            for n in names:
                if n not in ratings:
                    ratings[n] = model.rating(name=n)
                    games[n] = 0
            teams = [[ratings[n] for n in side] for side in sides]
            new = model.rate(teams, ranks=[float(x) for x in r.ranks])
            for side, team in zip(sides, new):
                for n, rating in zip(side, team):
                    ratings[n] = rating
                    games[n] += 1
    return {
        n: {
            "mu": float(v.mu),
            "sigma": float(v.sigma),
            "ordinal": float(v.ordinal()),
            "games": games[n] // max(1, int(passes)),
        }
        for n, v in ratings.items()
    }


class PlacementLeague:
    """A league of games with more than two sides, teams and ties.

    ``agents``: ``{name: agent}``; ``play(agents, names, games, seed)``
    plays ``games`` games with one agent per side (``names`` theirs) and
    returns :class:`Placement` results
    (:func:`dungeonrl.agents.algos.selfplay.table_play` builds it for a game).
    :meth:`run` plays every lineup of ``sides`` distinct agents (all
    combinations, each rotated so every agent takes every side)."""

    def __init__(self, agents: dict, play: Callable, sides: int = 2):
        if len(agents) < 2:
            raise ValueError("a league needs at least two agents")
        if sides < 2 or sides > len(agents):
            raise ValueError(f"sides must be in 2..{len(agents)}, got {sides}")
        self.agents = dict(agents)
        self.play = play
        self.sides = int(sides)
        self.results: list[Placement] = []

    def run(self, games: int = 100, seed: int = 0) -> list:
        k = 0
        for combo in itertools.combinations(self.agents, self.sides):
            for shift in range(self.sides):
                lineup = combo[shift:] + combo[:shift]
                self.results.extend(
                    self.play(
                        [self.agents[n] for n in lineup], list(lineup), games, seed + k * games
                    )
                )
                k += 1
        return self.results

    def table(self, passes: int = 1) -> list:
        """Rows ``{name, mu, sigma, ordinal, games, first}`` sorted by
        ``ordinal`` (``first``: share of games placed first, ties included)."""
        fit = fit_openskill(self.results, passes=passes)
        first = {n: 0 for n in self.agents}
        played = {n: 0 for n in self.agents}
        for r in self.results:
            best = min(r.ranks)
            for side, rank in zip(r.sides, r.ranks):
                for n in dict.fromkeys(side):
                    played[n] += 1
                    first[n] += rank == best
        rows = [
            {
                "name": n,
                **fit.get(
                    n,
                    {
                        "mu": float("nan"),
                        "sigma": float("nan"),
                        "ordinal": float("-inf"),
                        "games": 0,
                    },
                ),
                "first": first[n] / played[n] if played[n] else float("nan"),
            }
            for n in self.agents
        ]
        return sorted(rows, key=lambda r: -r["ordinal"])

    def plot(self, path: str, title: str = "league ratings") -> str:
        """A PNG of every agent's ``mu`` with a +-``sigma`` bar."""
        from matplotlib.figure import Figure

        rows = self.table()
        fig = Figure(figsize=(6, 0.5 + 0.45 * len(rows)))
        ax = fig.subplots()
        ax.barh(
            [r["name"] for r in rows][::-1],
            [r["mu"] for r in rows][::-1],
            xerr=[r["sigma"] for r in rows][::-1],
            color="tab:green",
        )
        ax.set_xlabel("openskill mu (Plackett-Luce), bars: +-sigma")
        ax.set_title(title)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        return path

    def format_table(self) -> str:
        rows = self.table()
        w = max([28] + [len(r["name"]) for r in rows])  # names kept whole
        lines = [f"{'agent':<{w}} {'mu':>7} {'sigma':>6} {'ordinal':>8} {'first':>7}"]
        for r in rows:
            lines.append(
                f"{r['name']:<{w}} {r['mu']:7.2f} {r['sigma']:6.2f} "
                f"{r['ordinal']:8.2f} {r['first']:7.1%}"
            )
        return "\n".join(lines)
