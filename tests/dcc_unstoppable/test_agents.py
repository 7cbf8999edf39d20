"""Agents of Dungeon Crawler Carl: Unstoppable (``envs/dcc_unstoppable/hooks.py``):
the hooks (episode statistics from the final records, the whole-game numba
path against the batched loop), co-op team games (``selfplay.play_team``),
the co-op training view (shared team reward, the learner's teammate drawn
from the partner pool, ``self`` refreshed every iteration), and the
``train`` / ``eval`` commands solo and co-op on tiny budgets (model with
its spec, metrics, learning curve, the final evaluation's numbers),
``--kickstart heuristic`` included, and the baselines' commands.

Sized for a 2-core machine: a few thousand training steps per run, 20-40
evaluation games."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.agents.algos.ppo import ActorCritic
from dungeonrl.agents.algos.selfplay import make_view, play_team, snapshot_agent
from dungeonrl.agents.commands.evaluate import evaluate
from dungeonrl.agents.commands.train import is_coop
from dungeonrl.agents.policy import RandomAgent, make_agent
from dungeonrl.cli import main as cli_main
from dungeonrl.envs.core.adapters.selfplay import SelfPlayView
from dungeonrl.envs.core.hooks import hooks_for
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable import make_core

GAME = "dcc_unstoppable"


@pytest.fixture(scope="module")
def solo():
    return make_core(num_players=1, floor=1, difficulty="normal")


@pytest.fixture(scope="module")
def coop():
    return make_core(num_players=2, floor=1, difficulty="normal")


# --- hooks ------------------------------------------------------------------------------------
def test_hooks_are_wired(solo, coop):
    from dungeonrl.envs.dcc_unstoppable import hooks as H

    hooks = hooks_for(GAME)
    assert hooks is H.HOOKS
    assert hooks.heuristic is not None and hooks.scripted_advance is not None
    flags = [f for f, _ in hooks.core_options]
    assert {"--players", "--floor", "--difficulty", "--mode", "--crawler"} <= set(flags)
    assert hooks.describe(solo) == "solo, Floor 1 normal, arcade, Carl"
    assert hooks.describe(coop) == "2-player co-op, Floor 1 normal, arcade"
    assert not is_coop(solo.spec, 1) and is_coop(coop.spec, 2)


def test_whole_game_path_matches_the_batched_loop(solo):
    """The numba whole-game heuristic plays exactly the games the batched
    agent plays (the heuristic is deterministic), with the same statistics."""
    fast = evaluate("heuristic", solo, 40, seed=3, fast=True)
    slow = evaluate("heuristic", solo, 40, seed=3, fast=False)
    for key in ("win", "turns", "score", "health_loss", "skull", "truncated", "length"):
        np.testing.assert_array_equal(fast.stats[key], slow.stats[key], err_msg=key)
    np.testing.assert_allclose(fast.stats["return"], slow.stats["return"])
    assert fast.summary["win_rate"] == slow.summary["win_rate"]
    # every game ended one way or another, and the outcome columns agree
    s = fast.stats
    ended = s["win"].astype(float) + s["health_loss"] + s["skull"] + s["truncated"]
    np.testing.assert_array_equal(ended, np.ones(40))
    np.testing.assert_array_equal(s["win"], s["return"] > 0)
    assert (s["score"][~s["win"]] == 0).all() and (s["turns"] >= 1).all()
    # random play through the numba loop: its own generator per game, batch-independent
    a = hooks_for(GAME).play_whole_games(solo, "random", np.arange(10, dtype=np.uint64), 5)
    b = hooks_for(GAME).play_whole_games(solo, "random", np.arange(5, 10, dtype=np.uint64), 5)
    np.testing.assert_array_equal(a["length"][5:], b["length"])
    assert hooks_for(GAME).play_whole_games(solo, "ppo", np.arange(2, dtype=np.uint64), 0) is None


def test_episode_stats_read_the_final_records(solo):
    states = solo.alloc(3)
    solo.reset(states, np.arange(3, dtype=np.uint64))
    states["outcome"] = [C.O_WIN, C.O_LOSS_HEALTH, C.O_LOSS_SKULL]
    states["turn"] = [9, 4, 12]
    states["score"] = [1500, 0, 0]
    st = hooks_for(GAME).episode_stats(solo, states, np.array([2, 0]), np.zeros(2))
    assert st["win"].tolist() == [False, True]
    assert st["turns"].tolist() == [12.0, 9.0] and st["score"].tolist() == [0.0, 1500.0]
    assert st["skull"].tolist() == [1.0, 0.0] and st["health_loss"].tolist() == [0.0, 0.0]


# --- co-op team games -------------------------------------------------------------------------
def test_play_team_is_the_team_result(coop):
    """Two heuristics as a team: ``partner=None`` (the agent in both seats)
    and an explicit heuristic partner play the same games; the result is the
    team's outcome in the final records, independent of the batch size."""
    h = make_agent("heuristic", coop)
    a = play_team(coop, h, None, 24, seed=7)
    b = play_team(coop, h, make_agent("heuristic", coop), 24, seed=7, batch=5)
    for key in ("seat_a", "result", "length"):
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert a["seat_a"].tolist() == [i % 2 for i in range(24)]
    assert a["illegal"] == 0 and set(a["result"].tolist()) <= {-1, 0, 1}
    # the same games played to the end in numba by two heuristics
    whole = hooks_for(GAME).play_whole_games(
        coop, "heuristic", np.arange(7, 31, dtype=np.uint64), 7
    )
    np.testing.assert_array_equal(a["result"] == 1, whole["win"])
    np.testing.assert_array_equal(a["result"] == -1, whole["return"] < 0)


def test_play_team_with_a_random_partner_and_rival_games(coop):
    r = play_team(coop, make_agent("heuristic", coop), RandomAgent(coop, 1), 16, seed=0)
    assert r["illegal"] == 0 and len(r["result"]) == 16
    from dungeonrl.envs.dungeon_crawler import make_core as dc_core

    with pytest.raises(ValueError, match="rival teams"):
        play_team(dc_core(num_players=2), RandomAgent(), None, 2)


def test_coop_view_shares_the_team_reward_and_draws_partners(coop):
    """The learner plays either seat; its teammate comes from the partner
    pool (the learner's snapshot or the heuristic); the reward at the end is
    the team's (+1 win / -1 loss for whichever seat the learner holds)."""
    view = make_view(coop, 32, "self:0.5,heuristic:0.5", seed=0, snapshot_slots=1)
    assert view.has_partners
    net = ActorCritic(coop.spec.obs_size, coop.spec.num_actions, (16,))
    view.add_snapshot(snapshot_agent(net, 0, "self@0"))
    view.reset(np.arange(32, dtype=np.uint64))
    assert set(view.seat.tolist()) == {0, 1}
    rng = np.random.default_rng(0)
    partners, seats, n_end = set(), set(), 0
    for _ in range(3000):
        u = rng.random(view.masks.shape)
        u[view.masks == 0] = -1
        view.actions[:] = u.argmax(axis=1)
        view.step()
        for i in np.flatnonzero(view.terminated):
            info = view.episode_info(int(i))
            team_won = view.final_states[i]["outcome"] == C.O_WIN
            assert view.reward[i] == (1.0 if team_won else -1.0)
            partners.add(info["partners"])
            seats.add(info["seat"])
            n_end += 1
        if n_end >= 16 and len(partners) == 2:
            break
    assert partners == {"heuristic", "self@0"} and seats == {0, 1}
    assert view.opponent_illegal == 0


# --- commands ---------------------------------------------------------------------------------
def _metrics(out):
    return json.loads((out / "metrics.json").read_text())


def test_cli_train_solo(tmp_path, capsys):
    out = tmp_path / "solo"
    rc = cli_main(
        [
            "train",
            GAME,
            "--floor",
            "1",
            "--difficulty",
            "normal",
            "--steps",
            "2048",
            "--num-envs",
            "128",
            "--env-threads",
            "2",
            "--num-steps",
            "8",
            "--hidden",
            "32",
            "--eval-games",
            "30",
            "--progress",
            "none",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0, text
    for name in ("model.pt", "metrics.csv", "metrics.json", "learning_curve.png"):
        assert (out / name).exists(), name
    m = _metrics(out)
    assert m["game"] == GAME and m["steps"] == 2048 and len(m["history"]) == 2
    assert m["config"]["env_threads"] == 2  # the env step on two threads
    assert m["core_kwargs"] == {"floor": 1, "difficulty": "normal"}
    assert m["setting"] == "solo, Floor 1 normal, arcade, Carl"
    rows = {r["agent"]: r for r in m["final_eval"]}
    assert set(rows) == {"ppo (greedy)", "heuristic", "random"}
    for r in rows.values():
        assert r["games"] == 30 and r["illegal_actions"] == 0 and 0 <= r["win_rate"] <= 1
        assert "mean_turns" in r
    assert "mean turns" in text
    # the same seeded games: the heuristic's row is evaluate()'s
    ref = evaluate("heuristic", make_core(floor=1, difficulty="normal"), 30, seed=0)
    assert rows["heuristic"]["wins"] == ref.summary["wins"]
    # the model carries its spec and evaluates on its own setting
    rc = cli_main(["eval", GAME, "--agent", str(out / "model.pt"), "--games", "10"])
    assert rc == 0 and "Floor 1 normal" in capsys.readouterr().out
    # a model of another game is refused
    rc = cli_main(["eval", "unbroken", "--agent", str(out / "model.pt"), "--games", "4"])
    assert rc == 2 and capsys.readouterr().err


def test_cli_train_solo_kickstart(tmp_path, capsys):
    """``--kickstart heuristic``: the clone of the deterministic heuristic
    agrees with many of its decisions (a uniformly random legal choice
    agrees with about a fifth), and plays legal games."""
    out = tmp_path / "kick"
    rc = cli_main(
        [
            "train",
            GAME,
            "--steps",
            "1024",
            "--num-envs",
            "64",
            "--num-steps",
            "16",
            "--hidden",
            "64",
            "--eval-games",
            "20",
            "--kickstart",
            "heuristic",
            "--bc-steps",
            "20000",
            "--bc-epochs",
            "2",
            "--progress",
            "none",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0, text
    kick = _metrics(out)["config"]["kickstart"]
    assert kick["teacher"] == "heuristic" and kick["fit"]["accuracy"] > 0.4
    assert kick["clone_eval"]["games"] == 1000 and kick["clone_eval"]["illegal_actions"] == 0
    assert "kickstart done" in text


def test_cli_train_coop(tmp_path, capsys):
    """Co-op: the learner's teammate is drawn from ``--partners``; ``self``
    is refreshed every iteration into one slot (the current policy); the
    final evaluation gives the team win rate with each partner."""
    out = tmp_path / "coop"
    added = []
    orig = SelfPlayView.add_snapshot

    def spy(self, agent, name=None):
        added.append((agent.name, len(self.pool)))
        return orig(self, agent, name)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SelfPlayView, "add_snapshot", spy)
        rc = cli_main(
            [
                "train",
                GAME,
                "--players",
                "2",
                "--steps",
                "1024",
                "--num-envs",
                "32",
                "--num-steps",
                "16",
                "--hidden",
                "32",
                "--eval-games",
                "20",
                "--progress",
                "none",
                "--out",
                str(out),
            ]
        )
    text = capsys.readouterr().out
    assert rc == 0, text
    for name in ("model.pt", "metrics.json", "learning_curve.png"):
        assert (out / name).exists(), name
    m = _metrics(out)
    assert m["core_kwargs"] == {"num_players": 2} and m["steps"] == 1024
    assert m["selfplay"]["coop"] is True
    assert m["selfplay"]["opponents"] == [["self", 0.5], ["heuristic", 0.5]]
    assert m["selfplay"]["snapshot_every"] == 1 and m["selfplay"]["snapshot_slots"] == 1
    # self@0, then one snapshot per iteration, always into the same slot
    assert [a[0] for a in added] == ["self@0", "self@512", "self@1024"]
    assert [a[1] for a in added] == [1, 2, 2]  # pool size before each: one slot, reused
    rows = {r["agent"]: r for r in m["final_eval"]}
    assert list(rows) == [
        "ppo (greedy) + heuristic",
        "ppo (greedy) + ppo (greedy)",
        "heuristic + heuristic",
    ]
    for r in rows.values():
        assert r["games"] == 20 and r["wins"] + r["losses"] + r["draws"] == 20
        assert r["illegal_actions"] == 0
    # the heuristic pair's row is the numba team of two heuristics on seeds 0..19
    whole = hooks_for(GAME).play_whole_games(
        make_core(num_players=2), "heuristic", np.arange(20, dtype=np.uint64), 0
    )
    assert rows["heuristic + heuristic"]["wins"] == int(whole["win"].sum())
    assert "team" in text
    # the co-op model: eval as a team (no --players needed, the model says 2)
    js = tmp_path / "e.json"
    rc = cli_main(
        [
            "eval",
            GAME,
            "--agent",
            str(out / "model.pt"),
            "--agent",
            "heuristic",
            "--games",
            "10",
            "--json",
            str(js),
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0, text
    names = [r["agent"] for r in json.loads(js.read_text())["summaries"]]
    assert names == ["model.pt + heuristic", "model.pt + model.pt", "heuristic + heuristic"]


def test_cli_train_coop_kickstart_and_pool(tmp_path, capsys):
    out = tmp_path / "coopkick"
    rc = cli_main(
        [
            "train",
            GAME,
            "--players",
            "2",
            "--steps",
            "512",
            "--num-envs",
            "32",
            "--num-steps",
            "16",
            "--hidden",
            "32",
            "--eval-games",
            "0",
            "--partners",
            "heuristic:1,random:1",
            "--kickstart",
            "heuristic",
            "--bc-steps",
            "4000",
            "--bc-epochs",
            "1",
            "--progress",
            "none",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0, text
    m = _metrics(out)
    assert m["selfplay"]["opponents"] == [["heuristic", 1.0], ["random", 1.0]]
    assert m["config"]["kickstart"]["clone_eval"]["partner"] == "heuristic"
    assert "with the heuristic as teammate" in text


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--partners", "heuristic"], "--players 2"),  # solo: no teammates
        (["--players", "2", "--partners", "heuristic:-1"], "weight"),
        (["--players", "2", "--partners", "nobody"], "unknown agent"),
        (["--players", "3"], "num_players"),
        (["--floor", "9"], "floor"),
        (["--players", "2", "--eval-games", "5", "--eval-partners", "heuristc"], "unknown agent"),
        (["--players", "2", "--eval-games", "5", "--eval-partners", ","], "empty"),
        (["--players", "2", "--env-threads", "2"], "one thread"),  # co-op: a self-play view
        (["--env-threads", "0"], "env-threads"),
    ],
)
def test_cli_train_bad_options(tmp_path, capsys, extra, match):
    rc = cli_main(
        [
            "train",
            GAME,
            "--steps",
            "64",
            "--num-envs",
            "4",
            "--eval-games",
            "0",
            "--progress",
            "none",
            "--out",
            str(tmp_path / "x"),
            *extra,
        ]
    )
    assert rc == 2
    assert match in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_cli_eval_coop_scripted(capsys):
    rc = cli_main(
        [
            "eval",
            GAME,
            "--players",
            "2",
            "--agent",
            "heuristic",
            "--agent",
            "random",
            "--games",
            "12",
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0, text
    for row in ("heuristic + heuristic", "random + heuristic", "random + random"):
        assert row in text


def test_baselines_commands_parse():
    """Every Carl baseline is a valid ``dungeonrl train`` command whose
    targets name rows its final evaluation produces."""
    from dungeonrl.benchmarks.baselines import BASELINES, _check, command
    from dungeonrl.cli import _leaf_parser as leaf

    parser = leaf("train", GAME)
    for name in ("dcc_unstoppable-ppo", "dcc_unstoppable-coop"):
        b = BASELINES[name]
        assert b["game"] == GAME
        ns = parser.parse_args(command(name, "runs/x")[3:])
        assert ns.minutes <= 20  # solo 12 minutes, co-op 20
        rows = [{"agent": a, "win_rate": 0.1, "ci95": [0, 0.2]} for _, a, _, v in b["targets"]] + [
            {"agent": v, "win_rate": 0.05, "ci95": [0, 0.1]} for _, _, _, v in b["targets"] if v
        ]
        assert all(t["met"] for t in _check(name, rows))
        rows = [
            dict(r, win_rate=0.0) if r["agent"] not in {v for *_, v in b["targets"]} else r
            for r in rows
        ]
        assert not any(t["met"] for t in _check(name, rows))
