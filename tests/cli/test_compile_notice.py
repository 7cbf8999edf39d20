"""The compile notice says what a first use from an empty cache costs, game by
game, as measured, and names the command that pays it ahead of use."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dungeonrl.envs import catalog
from dungeonrl.envs.core.kernel import compile_notice
from dungeonrl.registry import get_spec

COLD_START = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "cold_start.json"


def test_each_games_figure_is_the_measured_cold_start():
    """The figures the games declare (``cold_start_seconds`` in each
    ``game.toml``) are the recorded benchmark, rounded, for every shipped game
    of the catalog (a remeasured file or a new game updates them)."""
    cold = json.loads(COLD_START.read_text())["cold"]
    measured = {get_spec(env_id).name: round(secs) for env_id, secs in cold.items()}
    assert compile_notice.cold_start_seconds() == measured
    assert set(catalog.GAMES) <= set(measured)


class _Spec:
    def __init__(self, name):
        self.name = name


class _Core:
    def __init__(self, name):
        self.spec = _Spec(name)


@pytest.mark.parametrize("game", sorted(compile_notice.cold_start_seconds()))
def test_the_notice_gives_the_games_time_and_the_precompile_command(game, monkeypatch):
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.delenv("DUNGEONRL_QUIET_COMPILE", raising=False)
    monkeypatch.setattr(compile_notice, "_noticed", set())
    monkeypatch.setattr(compile_notice, "cache_is_cold", lambda core: (True, "/cache"))
    err = io.StringIO()
    assert compile_notice.notice_if_cold(_Core(game), err)
    line = err.getvalue()
    secs = compile_notice.cold_start_seconds()[game]
    assert f"compiling {game}'s numba kernels, once: about {secs} s" in line
    assert "python -m dungeonrl.precompile" in line
    assert "about a minute" not in line and "(/cache)" in line
    assert line.count("\n") == 1  # one line


def test_a_game_without_a_measurement_gets_the_shipped_games_range():
    lo = min(compile_notice.cold_start_seconds().values())
    hi = max(compile_notice.cold_start_seconds().values())
    text = compile_notice.cold_start_text("a_game_of_yours")
    assert text.startswith(f"{lo} to {hi} s for each shipped game")
