"""How much a Carl co-op agent plays on its own turns
(benchmarks/coop_behaviour.py): agents whose play is known by construction
give the counts they must, and the saved result is what the script writes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dungeonrl.agents.policy import make_agent
from dungeonrl.benchmarks import coop_behaviour as cb
from dungeonrl.envs.core.common import resolve_core
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.registry import get_spec


@pytest.fixture(scope="module")
def core():
    return resolve_core(get_spec("dcc_unstoppable"), dict(cb.CORE_KWARGS))


def _first_legal_of(*actions):
    """A plain ``fn(obs, mask)`` agent: the first of ``actions`` that is
    legal, else the first legal action."""

    def fn(obs, mask):
        mask = np.asarray(mask, bool)
        out = mask.argmax(axis=1)
        for a in reversed(actions):
            out = np.where(mask[:, a], a, out)
        return out

    return fn


def test_a_teammate_that_only_ends_its_main_phase_is_idle_every_time(core):
    r = cb.main_phase_activity(core, _first_legal_of(C.A_END), "heuristic", games=8)
    assert r["games"] == 8 and r["main_phases"] > 8
    assert r["idle"] == r["main_phases"] and r["idle_share"] == 1.0
    assert r["decisions_per_main_phase"] == 0.0 and r["passes_per_main_phase"] == 0.0


def test_handing_the_turn_over_is_not_playing(core):
    # hand the turn to the teammate while the pass cap allows, then end
    r = cb.main_phase_activity(core, _first_legal_of(C.A_PASS, C.A_END), "heuristic", games=8)
    assert r["idle_share"] == 1.0 and r["decisions_per_main_phase"] == 0.0
    assert r["passes_per_main_phase"] > 0


def test_the_heuristic_plays_in_its_main_phases(core):
    h = make_agent("heuristic", core)
    r = cb.main_phase_activity(core, h, None, games=8)
    assert r["main_phases"] > 8 and r["idle_share"] < 0.5
    assert r["decisions_per_main_phase"] > 1.0
    # the same games again: the measurement is a function of the seeds
    assert cb.main_phase_activity(core, h, None, games=8) == r


def test_bad_arguments(core):
    with pytest.raises(ValueError, match="games must be >= 1"):
        cb.main_phase_activity(core, "heuristic", None, games=0)
    solo = resolve_core(get_spec("dcc_unstoppable"), {})
    with pytest.raises(ValueError, match="2-seat co-op core"):
        cb.main_phase_activity(solo, "heuristic", None, games=2)


def test_the_script_writes_every_pair(tmp_path, capsys):
    out = tmp_path / "b.json"
    assert cb.main(["--games", "2", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert [(r["agent"], r["teammate"]) for r in res["rows"]] == list(cb.PAIRS)
    assert res["command"].endswith("--games 2 --seed 0")
    assert "idle" in capsys.readouterr().out


def test_the_saved_result_holds_the_pairs_of_the_script():
    with open(cb.RESULTS) as f:
        saved = json.load(f)
    assert [(r["agent"], r["teammate"]) for r in saved["rows"]] == list(cb.PAIRS)
    for r in saved["rows"]:
        assert 0 <= r["idle"] <= r["main_phases"] and 0.0 <= r["win_rate"] <= 1.0
