"""The league-versus-self-play table names the arm that was harder to
exploit from the saved figures (the comparison itself is a benchmark)."""

from __future__ import annotations

from dungeonrl.benchmarks.league_vs_selfplay import markdown


def _arm(br, lo, hi):
    return {
        "steps": 1000,
        "final_eval": [],
        "exploit": {"best_response": {"win_rate": br, "ci_low": lo, "ci_high": hi}},
    }


def _doc(league, plain):
    return {
        "arms": {"plain": _arm(*plain), "league": _arm(*league)},
        "exploit_minutes": 4,
        "minutes": 8,
        "games": 1000,
        "machine": {"cores": 2, "cpu": "X"},
        "date": "2026-12-02",
        "command": "cmd",
    }


def test_verdict_follows_the_figures():
    assert "the league was the harder to exploit (40.0% against 60.0%" in markdown(
        _doc((0.4, 0.37, 0.43), (0.6, 0.57, 0.63))
    )
    md = markdown(_doc((0.55, 0.52, 0.58), (0.52, 0.49, 0.55)))
    assert "the league was not the harder to exploit" in md and "intervals overlap" in md
