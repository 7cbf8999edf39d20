"""League training (``agents/algos/pfsp.py``): the pool grows to its size, then
replaces the member the learner beats most; opponents are drawn in
proportion to their PFSP priority; finished games update the record and
give openskill ratings; ``dungeonrl train --league`` writes ``league.json``.
And the exploit command (``agents/commands/exploit.py``) on a tiny budget."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.agents.algos.pfsp import PFSPLeague, priority
from dungeonrl.agents.algos.selfplay import make_view
from dungeonrl.agents.commands.exploit import exploit
from dungeonrl.agents.policy import RandomAgent
from dungeonrl.cli import main as cli_main
from dungeonrl.envs.core.common import resolve_core


@pytest.fixture(scope="module")
def dc():
    return resolve_core("dungeon_crawler", {"num_players": 2})


def _league(dc, slots=3, n=8, weighting="hard"):
    view = make_view(dc, n, "self:0.75,heuristic:0.25", seed=0, snapshot_slots=slots)
    return view, PFSPLeague(view, weighting=weighting)


def test_priorities():
    x = np.array([0.0, 0.25, 0.5, 1.0])
    assert np.allclose(priority(x, "hard"), (1 - x) ** 2)
    assert np.allclose(priority(x, "variance"), x * (1 - x))
    assert np.allclose(priority(x, "uniform"), 1.0)
    with pytest.raises(ValueError, match="unknown PFSP weighting"):
        priority(x, "soft")


def test_pool_grows_then_drops_the_member_the_learner_beats_most(dc):
    view, league = _league(dc, slots=3)
    ks = [league.add(RandomAgent(dc, i), f"self@{i}") for i in range(3)]
    assert len(league.members()) == 3 and len(view.pool) == 4  # heuristic + 3
    # the learner beats self@1 every time, self@0 half the time, self@2 never
    for k, (w, g) in zip(ks, [(5, 10), (10, 10), (0, 10)]):
        league.wins[k], league.games[k] = float(w), g
    league.refresh()
    k_new = league.add(RandomAgent(dc, 9), "self@9")
    assert k_new == ks[1]  # the easiest member made room
    names = sorted(view.pool[k].name for k in league.members())
    assert names == ["self@0", "self@2", "self@9"]
    assert league.games[k_new] == 0  # the newcomer starts a fresh record


def test_draws_follow_the_priorities(dc):
    view, league = _league(dc, slots=2, n=4000)
    a = league.add(RandomAgent(dc, 0), "self@0")
    b = league.add(RandomAgent(dc, 1), "self@1")
    league.wins[a], league.games[a] = 18.0, 20  # x = 19/22: rarely drawn
    league.wins[b], league.games[b] = 2.0, 20  # x = 3/22: drawn most
    league.refresh()
    pa, pb = (1 - 19 / 22) ** 2, (1 - 3 / 22) ** 2
    probs = view._probs
    assert probs[a] / probs[b] == pytest.approx(pa / pb)
    assert probs[a] + probs[b] == pytest.approx(0.75)  # the self share, split by priority
    rows = np.arange(view.n)
    view._draw_opponents(rows)
    rival = view.opp[rows, 1 - view.seat[rows]]
    share_b = np.mean(rival == b) / 0.75
    assert share_b == pytest.approx(pb / (pa + pb), abs=0.04)


def test_finished_games_update_the_record_and_the_ratings(dc):
    pytest.importorskip("openskill")
    view, league = _league(dc, slots=2, n=16)
    league.add(RandomAgent(dc, 0), "self@0")
    view.reset(np.arange(16, dtype=np.uint64))
    learner = RandomAgent(dc, 5)
    while view.episodes < 24:
        view.actions[:] = learner.act(view, np.arange(view.n))
        view.step()
    k = league.members()[0]
    assert league.games[k] > 0
    assert 0 <= league.wins[k] <= league.games[k]
    s = league.summary()
    assert s["members"][0]["games"] == league.games[k]
    assert "learner" in s["ratings"]
    assert s["games_rated"] >= 24


def test_train_league_writes_its_table(tmp_path):
    pytest.importorskip("openskill")
    out = tmp_path / "lg"
    rc = cli_main(
        [
            "train", "dungeon_crawler", "--players", "2", "--steps", "4096", "--num-envs", "32",
            "--num-steps", "32", "--league", "--opponents", "self:0.8,heuristic:0.2",
            "--snapshot-every", "1", "--snapshot-slots", "2", "--eval-games", "4",
            "--progress", "none", "--out", str(out),
        ]
    )  # fmt: skip
    assert rc == 0
    table = json.loads((out / "league.json").read_text())
    assert table["weighting"] == "hard"
    assert 1 <= len(table["members"]) <= 2
    assert abs(sum(m["draw_probability"] for m in table["members"]) - 0.8) < 1e-9


def test_league_needs_a_self_share(tmp_path, capsys):
    rc = cli_main(
        [
            "train", "dungeon_crawler", "--steps", "1024", "--league",
            "--opponents", "heuristic", "--out", str(tmp_path / "x"), "--progress", "none",
        ]
    )  # fmt: skip
    assert rc == 2
    assert "--league needs a 'self' share" in capsys.readouterr().err


def test_exploit_on_a_tiny_budget_writes_its_json(tmp_path):
    path = tmp_path / "x.json"
    rc = cli_main(
        [
            "exploit", "dungeon_crawler", "--against", "random", "--steps", "2048",
            "--num-envs", "32", "--games", "8", "--hidden", "16",
            "--out", str(tmp_path / "br"), "--json", str(path),
        ]
    )  # fmt: skip
    assert rc == 0
    res = json.loads(path.read_text())
    assert res["against"] == "random" and res["players"] == 2
    assert res["fair_share"] == 0.5
    for side in ("best_response", "heuristic"):
        r = res[side]
        assert r["games"] == 8 and 0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1
    assert res["exploitability"] == pytest.approx(res["best_response"]["win_rate"] - 0.5)
    assert json.loads((tmp_path / "br" / "exploit.json").read_text()) == res


def test_exploit_command_without_optional_paths(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the default run folder goes under runs/
    rc = cli_main(
        ["exploit", "dungeon_crawler", "--against", "random", "--steps", "1024",
         "--num-envs", "16", "--games", "4", "--hidden", "16", "--method", "rl"]
    )  # fmt: skip
    assert rc == 0
    assert (tmp_path / "runs" / "exploit-dungeon_crawler-random" / "exploit.json").exists()
    assert "best response" in capsys.readouterr().out


def test_exploit_the_heuristic_measures_its_mirror(tmp_path):
    res = exploit(
        "dungeon_crawler", "heuristic", steps=1024, minutes=5, games=6, num_envs=16,
        hidden="16", out=str(tmp_path / "br"), card=False, methods=("rl",),
    )  # fmt: skip
    assert res["heuristic"]["games"] == 6


def test_exploit_refuses_games_without_rivals(tmp_path):
    with pytest.raises(ValueError, match="co-op"):
        exploit("dcc_unstoppable", "heuristic", players=2, steps=64, out=str(tmp_path / "x"))
    assert cli_main(["exploit", "unbroken", "--against", "heuristic"]) != 0


def test_exploit_from_the_agents_own_network(tmp_path):
    from dungeonrl.agents import pretrained

    name = "pretrained:dungeon_crawler-2p"
    res = exploit(
        "dungeon_crawler", name, steps=1024, minutes=5, games=4, num_envs=16, hidden="16",
        out=str(tmp_path / "br"), card=False, methods=("rl",),
    )  # fmt: skip
    assert res["start"] == "the agent's own network"
    cfg = json.loads((tmp_path / "br" / "metrics.json").read_text())["config"]
    arch = pretrained.card(name)["arch"]
    # the agent's network (128x128), continued, not a fresh one of the asked 16 units
    assert list(cfg["hidden"]) == list(arch["hidden"]) != [16]
    with pytest.raises(ValueError, match="--from-agent needs a fast-path model"):
        exploit("dungeon_crawler", "heuristic", steps=64, out=str(tmp_path / "x"), from_agent=True)
