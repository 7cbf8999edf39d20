"""League training: prioritized fictitious self-play over a growing pool.

``dungeonrl train GAME --league`` turns the ``self`` share of the opponent
pool into a league of past checkpoints. Every ``--snapshot-every``
iterations a frozen copy of the learner joins the pool (up to
``--snapshot-slots`` members). Each member carries the record of the
learner's training games against it, and opponents are drawn with
probability proportional to a *priority* of the learner's win rate ``x``
against them (prioritized fictitious self-play, as in AlphaStar's league):

==============  ===================  ==========================================
weighting       priority f(x)        draws most often
==============  ===================  ==========================================
``hard``        ``(1 - x) ** 2``     the members that still beat the learner
``variance``    ``x * (1 - x)``      the members closest to an even match
``uniform``     ``1``                every member alike (fictitious self-play)
==============  ===================  ==========================================

``x`` is smoothed with one win and one loss (a new member starts at 0.5).
Once the pool is full, a new checkpoint replaces the member with the lowest
priority (the one the learner beats most; ties: the oldest). The fixed
entries of the pool (``heuristic``, ``random``, saved models) keep their own
weights beside the league's share.

Every finished training game is also a placement (who finished where) of
the learner and its rivals; :meth:`PFSPLeague.summary` rates them all with
openskill (:func:`~dungeonrl.agents.league.fit_openskill`) and lists each
member's games, win rate and priority (``league.json`` in the run folder).
"""

from __future__ import annotations

import numpy as np

from ..league import Placement, fit_openskill

__all__ = ["WEIGHTINGS", "priority", "PFSPLeague"]

WEIGHTINGS = ("hard", "variance", "uniform")

#: training games kept for the ratings (the most recent)
MAX_PLACEMENTS = 20_000


def priority(x, weighting: str = "hard"):
    """The PFSP priority of a member the learner beats with rate ``x``."""
    x = np.asarray(x, np.float64)
    if weighting == "hard":
        return (1.0 - x) ** 2
    if weighting == "variance":
        return x * (1.0 - x)
    if weighting == "uniform":
        return np.ones_like(x)
    raise ValueError(f"unknown PFSP weighting {weighting!r}: one of {', '.join(WEIGHTINGS)}")


class PFSPLeague:
    """The league of a :class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`
    built with snapshot slots: :meth:`add` puts a checkpoint in, the view's
    finished games update the record, :meth:`refresh` (called by ``add`` and
    after every training iteration) sets the draw priorities."""

    def __init__(self, view, weighting: str = "hard", learner: str = "learner"):
        priority(0.5, weighting)  # checks the name
        if not view._slot_max:
            raise ValueError("league training needs a 'self' share and snapshot slots")
        self.view = view
        self.weighting = weighting
        self.learner = learner
        self.games: dict[int, int] = {}
        self.wins: dict[int, float] = {}
        self.added: dict[int, int] = {}  # pool index -> order of arrival
        self.arrivals = 0
        self.placements: list[Placement] = []
        view.on_episodes = self.record

    # --- the pool ------------------------------------------------------------------
    def members(self) -> list[int]:
        return list(self.view._slots)

    def win_rate(self, k: int) -> float:
        """The learner's smoothed win rate against member ``k``."""
        return (self.wins.get(k, 0.0) + 1.0) / (self.games.get(k, 0) + 2.0)

    def priorities(self) -> dict[int, float]:
        ks = self.members()
        pri = priority([self.win_rate(k) for k in ks], self.weighting)
        return {k: float(p) for k, p in zip(ks, pri)}

    def refresh(self) -> None:
        self.view.slot_priority = self.priorities()
        self.view._refresh_probs()

    def add(self, agent, name: str) -> int:
        """Add a checkpoint; a full pool drops its lowest-priority member."""
        replace = None
        if len(self.view._slots) >= self.view._slot_max:
            pri = self.priorities()
            replace = min(pri, key=lambda k: (pri[k], self.added.get(k, 0)))
        k = self.view.add_snapshot(agent, name, replace=replace)
        self.games[k] = 0
        self.wins[k] = 0.0
        self.added[k] = self.arrivals
        self.arrivals += 1
        self.refresh()
        return k

    # --- the record ----------------------------------------------------------------
    def record(self, rows) -> None:
        """The view's ``on_episodes``: count each finished game against every
        league member at a rival seat, and keep its placement."""
        v = self.view
        P = v.num_players
        for i in np.asarray(rows).tolist():
            info = v.episode_info(i)
            place = info.get("placements")
            seat = int(v.final_seat[i])
            me = v.team[seat]
            win = {"win": 1.0, "draw": 0.5}.get(info["outcome"], 0.0)
            for s in range(P):
                if v.team[s] == me:
                    continue
                k = int(v.opp[i, s])
                if k in self.games:
                    self.games[k] += 1
                    self.wins[k] += win
            if place is None:
                continue
            sides, ranks = [], []
            for s in range(P):
                who = self.learner if s == seat else v.pool[int(v.opp[i, s])].name
                sides.append((who,))
                ranks.append(int(place[s]))
            self.placements.append(Placement(tuple(sides), tuple(ranks)))
        if len(self.placements) > MAX_PLACEMENTS:
            del self.placements[: len(self.placements) - MAX_PLACEMENTS]

    def summary(self) -> dict:
        """Members (name, games, learner win rate, priority, draw probability)
        and openskill ratings of every name seen in the kept training games."""
        v = self.view
        probs = v._probs if v._probs is not None else np.zeros(len(v.pool))
        pri = self.priorities()
        members = [
            {
                "name": v.pool[k].name,
                "games": self.games.get(k, 0),
                "learner_win_rate": self.win_rate(k),
                "priority": pri[k],
                "draw_probability": float(probs[k]),
            }
            for k in self.members()
        ]
        ratings = {}
        if self.placements:
            try:
                ratings = fit_openskill(self.placements)
            except ImportError:  # pragma: no cover - openskill is in the train extra
                ratings = {}
        return {
            "weighting": self.weighting,
            "members": members,
            "fixed": [
                {"name": o.name, "weight": o.weight}
                for k, o in enumerate(v.pool)
                if k not in set(self.members())
            ],
            "games_rated": len(self.placements),
            "ratings": dict(sorted(ratings.items(), key=lambda kv: -kv[1]["ordinal"])),
        }
