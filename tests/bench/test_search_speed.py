"""The search-speed benchmark (benchmarks/search_speed.py): its decisions
are real, searchable and seeded; one tiny run (2 decisions, 4 simulations,
Unbroken) writes every field, with finite ratios of at least 1. No timing
is asserted."""

from __future__ import annotations

import json
import math

import pytest

from dungeonrl.benchmarks import search_speed as ss
from dungeonrl.envs.core.kernel.header import O_PLAYING


def test_decisions_are_seeded_live_and_not_forced():
    core = ss.make_core(ss.config("unbroken"))
    a = ss.decision_states(core, 3, seed=0)
    assert a.tobytes() == ss.decision_states(core, 3, seed=0).tobytes()
    assert a.tobytes() != ss.decision_states(core, 3, seed=1).tobytes()
    assert (a["outcome"] == O_PLAYING).all()
    assert ((a["legal"] != 0).sum(axis=1) > 1).all()  # no forced move: every one is searched
    assert len({r.tobytes() for r in a}) == 3


def test_games_pick_configurations_by_key_or_game_name():
    assert ss.select(["dcc_unstoppable"]) == ["dcc_unstoppable", "dcc_unstoppable-coop"]
    assert ss.select(["dungeon_kart-2p", "unbroken"]) == ["dungeon_kart-2p", "unbroken"]
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        ss.select(["chess"])
    assert ss.main(["--games", "chess", "--out", "none"]) == 2


def test_verdict_reads_the_overhead_target():
    assert ss.verdict("heuristic", {"overhead": 1.4}) == "met"
    assert ss.verdict("random", {"overhead": 1.6}) == "missed"
    assert ss.verdict("random", {"overhead": None}) == "missed"
    assert ss.verdict("prior", {"overhead": 9.0}) == "reported"


def test_a_tiny_run_writes_every_field(tmp_path, capsys):
    out = tmp_path / "search_speed.json"
    argv = ["--decisions", "2", "--sims", "4", "--games", "unbroken", "--peer-sims", "4"]
    argv += ["--min-seconds", "0"]  # one pass each
    assert ss.main([*argv, "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["machine"]["cpu"] and res["machine"]["cores"] >= 1
    assert res["target"]["overhead_max"] == ss.TARGET_OVERHEAD
    g = res["games"]["unbroken"]
    assert g["sims"] == 4 and g["decisions"] == 2
    assert set(g["variants"]) == {"heuristic", "random", "prior"}
    for key, fig in g["variants"].items():
        assert fig["passes"] == 1 and fig["overhead_quartiles"][1] == pytest.approx(fig["overhead"])
        assert fig["decisions"] == 2 and fig["simulations"] == 8, key  # no decision skipped
        assert fig["agent"].endswith("sims=4" if key == "prior" else f"rollout={key}")
        s = fig["search_seconds"]
        parts = fig["rollout_seconds"] + fig["inference_seconds"] + fig["opp_seconds"]
        assert 0 < fig["rollout_seconds"] and parts <= s * (1 + 1e-9), key
        assert math.isfinite(fig["overhead"]) and fig["overhead"] >= 1.0, (key, fig["overhead"])
        assert fig["overhead"] == pytest.approx(s / fig["rollout_seconds"])
        assert fig["sims_per_s"] == pytest.approx(8 / s)
        assert math.isfinite(fig["tree_us_per_sim"]) and fig["tree_us_per_sim"] > 0
        assert fig["target"] == ("reported" if key == "prior" else ss.verdict(key, fig))
    prior = g["variants"]["prior"]
    assert prior["prior"] == "pretrained:unbroken-normal"
    assert 0 < prior["inference_share"] < 1  # the network ran, inside the search's time
    assert g["variants"]["heuristic"]["inference_seconds"] == 0.0
    peer = res["open_spiel"]
    if peer["status"] == "ok":
        for name in ss.PEER_GAMES:
            fig = peer["games"][name]
            assert fig["simulations"] == 2 * 4 and fig["sims_per_s"] > 0
    else:
        assert peer["status"] == "not installed" and peer["reason"]
    text = capsys.readouterr().out
    assert "search?sims=4&rollout=heuristic" in text and "sims/s" in text
    assert "| unbroken | search?sims=4&rollout=random | 4 |" in ss.markdown(res)


def test_openspiel_missing_is_recorded(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pyspiel(name, *a, **k):
        if name == "pyspiel":
            raise ImportError("No module named 'pyspiel'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pyspiel)
    res = ss.measure_openspiel(decisions=1, sims=2)
    assert res["status"] == "not installed" and "pyspiel" in res["reason"]


def test_the_suite_runs_it_with_its_own_words(monkeypatch, tmp_path, capsys):
    from dungeonrl.benchmarks import suite

    assert suite.main(["--search", "--games", "nope"]) == 2
    assert "unknown game 'nope'" in capsys.readouterr().err
    seen = []
    monkeypatch.setattr(ss, "main", lambda argv: seen.append(argv) or 0)
    monkeypatch.chdir(tmp_path)
    assert suite.main(["--search", "--quick", "--games", "unbroken"]) == 0
    assert suite.main(["--search", "--out", "x", "--no-peers"]) == 0
    assert suite.main(["--search", "--json", "none"]) == 0
    quick, out, none = seen
    # never into the checked-in results unless asked
    assert quick[-2:] == ["--out", str(tmp_path / "bench-results" / "search_speed.json")]
    assert quick[quick.index("--decisions") + 1] == str(ss.QUICK_DECISIONS)
    assert quick[quick.index("--min-seconds") + 1] == "0"
    assert "--decisions" not in out and out[-2:] == ["--out", "x/search_speed.json"]
    assert "--no-peers" in out and none[-2:] == ["--out", "none"]


def test_passes_go_on_until_the_minimum_search_time():
    """Cheap configurations are searched again (fresh agents, the same
    decisions) until ``min_seconds``: the figures sum every pass."""
    core = ss.make_core(ss.config("unbroken"))
    states = ss.decision_states(core, 2, seed=0)
    fig = ss.measure_agent(core, "search?sims=4&rollout=random", states, min_seconds=0.05)
    assert fig["passes"] > 1 and fig["search_seconds"] >= 0.05
    assert fig["decisions"] == 2 * fig["passes"] and fig["simulations"] == 8 * fig["passes"]
    q1, med, q3 = fig["overhead_quartiles"]
    assert 1.0 <= q1 <= med <= q3
    assert ss.main(["--min-seconds", "-1", "--out", "none"]) == 2
