"""The Carl co-op ablation (benchmarks/coop_ablation.py): every arm is a
valid train command, the saved result is what ``record`` writes from the
arms' run folders, and ``run`` refuses a missing input before training
anything. No training runs here."""

from __future__ import annotations

import json
import shlex

import pytest

from dungeonrl.benchmarks import coop_ablation as ca
from dungeonrl.cli import _leaf_parser as leaf


def test_every_arm_is_a_train_command_of_at_most_20_minutes():
    parser = leaf("train", ca.GAME)
    for key in ca.ARMS:
        cmd = ca.command(key)
        assert cmd[:3] == ["dungeonrl", "train", ca.GAME]
        ns = parser.parse_args(cmd[3:])
        assert ns.num_players == 2 and ns.seed == 0 and 0 < ns.minutes <= 20, key
        assert ns.out.endswith(key)
    with pytest.raises(KeyError, match="unknown arm"):
        ca.command("e99")


def test_the_saved_result_names_the_arms_of_the_script():
    with open(ca.RESULTS) as f:
        saved = json.load(f)
    assert [a["arm"] for a in saved["arms"]] == [label for label, _ in ca.ARMS.values()]
    assert [a["command"] for a in saved["arms"]] == [shlex.join(ca.command(k)) for k in ca.ARMS]


def _metrics(wins, clone=False):
    hist = [{"win_rate": w} for w in wins]
    cfg = (
        {"kickstart": {"fit": {"accuracy": 0.7}, "clone_eval": {"win_rate": 0.2}}} if clone else {}
    )
    row = {"agent": "ppo (greedy) + heuristic", "partner": "heuristic", "games": 10}
    return {
        "steps": 1234,
        "train_seconds": 90.0,
        "history": hist,
        "config": cfg,
        "final_eval": [dict(row, wins=6, win_rate=0.6, ci95=[0.3, 0.85], mean_length=5)],
    }


def test_record_reads_the_finished_arms(tmp_path):
    for key, m in (
        ("e1", _metrics([0.0, 0.25, float("nan"), 0.5], clone=True)),
        ("e5", _metrics([0.0, 0.0])),
    ):
        (tmp_path / key).mkdir()
        (tmp_path / key / "metrics.json").write_text(json.dumps(m))
    out = ca.record(str(tmp_path), str(tmp_path / "out.json"))
    assert json.loads((tmp_path / "out.json").read_text()) == out
    e1, e5 = out["arms"]  # arms without a run are left out
    assert e1["arm"] == ca.ARMS["e1"][0] and e5["arm"] == ca.ARMS["e5"][0]
    assert e1["iterations"] == 4 and e1["iterations_with_a_training_win"] == 2
    assert e1["max_training_win_rate"] == 0.5 and e1["train_minutes"] == 1.5
    assert e1["clone"] == {"decision_accuracy": 0.7, "team_win_rate_with_heuristic": 0.2}
    assert e5["clone"] is None and e5["iterations_with_a_training_win"] == 0
    assert e5["final_eval"][0] == {
        "agent": "ppo (greedy) + heuristic",
        "partner": "heuristic",
        "games": 10,
        "wins": 6,
        "win_rate": 0.6,
        "ci95": [0.3, 0.85],
    }
    with pytest.raises(FileNotFoundError, match="no finished arm"):
        ca.record(str(tmp_path / "empty"), None)


def test_run_checks_its_inputs_before_training(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no runs/baselines here

    def no_training(*a, **k):
        raise AssertionError("nothing may start")

    monkeypatch.setattr(ca.subprocess, "Popen", no_training)
    with pytest.raises(FileNotFoundError, match="baselines run dcc_unstoppable-coop"):
        ca.run(["e4", "e7"])
    with pytest.raises(KeyError, match="unknown arm"):
        ca.run(["e4", "nope"])
    with pytest.raises(ValueError, match="--jobs"):
        ca.run(["e4"], jobs=0)
