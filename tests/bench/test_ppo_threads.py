"""The fast-PPO threads benchmark (benchmarks/ppo_threads.py): the
configurations, the turn order, the medians and the table; one real
configuration on a tiny budget (the rest are timed by the benchmark
itself, not here)."""

from __future__ import annotations

import json

import pytest

from dungeonrl.benchmarks import ppo_threads as pt


def test_configurations_per_setting():
    single = pt.configs(4, multi=False)
    assert single["one_thread"] == {"torch_threads": 1}
    assert single["update_threads"] == {"torch_threads": 1, "update_threads": 4}
    assert single["update_and_env_threads"]["env_threads"] == 4
    assert "update_and_env_threads" not in pt.configs(4, multi=True)  # a self-play view: one


def test_rounds_rotate_and_figures_are_medians(monkeypatch, tmp_path, capsys):
    calls = []

    def fake(setting, threads, seconds):
        calls.append((setting, tuple(sorted(threads.items()))))
        n = len(calls)
        return {"steps_per_s": 1000.0 * n, "rollout_s": 0.5, "update_s": float(n)}

    monkeypatch.setattr(pt, "time_config", fake)
    out = tmp_path / "r.json"
    assert (
        pt.main(["--seconds", "0", "--rounds", "3", "--settings", "unbroken", "--json", str(out)])
        == 0
    )
    res = json.loads(out.read_text())
    confs = res["settings"]["unbroken"]
    assert len(calls) == 12 and all(len(c["rounds"]) == 3 for c in confs.values())
    # round r starts at configuration r: the first call of each round differs
    firsts = [calls[0][1], calls[4][1], calls[8][1]]
    assert len(set(firsts)) == 3
    speeds = [f["steps_per_s"] for f in confs["one_thread"]["rounds"]]
    assert confs["one_thread"]["steps_per_s"] == sorted(speeds)[1]
    table = capsys.readouterr().out
    assert "| unbroken | torch_threads=1 |" in table and "1.00x" in table


def test_an_unknown_setting_is_refused():
    with pytest.raises(SystemExit):
        pt.main(["--settings", "chess"])


def test_one_configuration_trains_and_reports():
    threads = {"torch_threads": 1, "update_threads": 2}
    fig = pt.time_config("dungeon_crawler-8p", threads, 0.0, num_envs=64, num_steps=8)
    assert fig["steps_per_s"] > 0 and fig["rollout_s"] > 0 and fig["update_s"] > 0
