"""Dungeon Kart in the agents layer and the CLI (tiny budgets): the hooks of
``envs/dungeon_kart/hooks.py`` (heuristic agent, scripted opponents inside
numba, episode statistics with the finishing place), ``dungeonrl train`` /
``dungeonrl eval`` / ``dungeonrl play`` on the race (its heuristic-vs-random
table: ``tests/bench/test_balance.py``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.cli import main as cli_main
from dungeonrl.envs.core.hooks import hooks_for
from dungeonrl.envs.core.kernel.header import O_TRUNCATED
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart.core import DungeonKartCore
from dungeonrl.envs.dungeon_kart.hooks import (
    HOOKS,
    SCRIPTED_HEURISTIC,
    SCRIPTED_RANDOM,
    final_rank,
    play_rows,
)


def test_hooks_registered():
    assert hooks_for("dungeon_kart") is HOOKS
    assert HOOKS.heuristic is not None and HOOKS.scripted_advance is not None


def _race(n, codes_fn, games=24):
    core = DungeonKartCore(num_players=n)
    st = core.alloc(games)
    core.reset(st, np.arange(games, dtype=np.uint64))
    codes = np.full((games, C.MAX_P), SCRIPTED_RANDOM, np.int8)
    codes_fn(codes)
    prng = np.zeros((games, 2), np.uint64)
    prng[:, 0] = np.arange(games, dtype=np.uint64) + 11
    ret = np.zeros((games, C.MAX_P), np.float32)
    length = np.zeros(games, np.int64)
    play_rows(st, core.TR, codes, prng, ret, length)
    return core, st, ret


def test_final_rank_and_episode_stats_agree_with_the_rewards():
    core, st, ret = _race(4, lambda c: c.__setitem__((slice(None), 0), SCRIPTED_HEURISTIC))
    rank = final_rank(st)
    over = st["outcome"] == C.O_RACE_OVER
    assert over.mean() > 0.8
    assert (rank[:, 4:] == 0).all() and ((rank[:, :4] >= 1) & (rank[:, :4] <= 4)).all()
    # rewards are zero-sum and ordered like the ranks (a better spot never pays less)
    np.testing.assert_allclose(ret[over, :4].sum(axis=1), 0.0, atol=1e-5)
    for i in np.flatnonzero(over):
        for a in range(4):
            for b in range(4):
                if rank[i, a] < rank[i, b]:
                    assert ret[i, a] > ret[i, b]
    # the heuristic seat (0) wins most races against three random racers
    assert (rank[over, 0] == 1).mean() > 0.7
    rows = np.arange(len(st))
    stats = HOOKS.episode_stats(core, st, rows, ret[:, 0])
    exp_place = np.where(over, rank[:, 0], np.nan)
    alone = (rank == 1).sum(axis=1) == 1
    assert (stats["win"] == (over & (rank[:, 0] == 1) & alone)).all()
    untied = over & ((rank[:, :4] == rank[:, :1]).sum(axis=1) == 1)
    np.testing.assert_allclose(stats["place"][untied], exp_place[untied], atol=1e-4)
    assert (stats["truncated"] == (st["outcome"] == O_TRUNCATED)).all()


def test_heuristic_agent_acts_legally_for_any_seat():
    core = DungeonKartCore(num_players=3)
    agent = HOOKS.heuristic(core, seed=3)

    class View:
        pass

    view = View()
    view.states = core.alloc(6)
    core.reset(view.states, np.arange(6, dtype=np.uint64))
    masks = np.zeros((6, C.NUM_ACTIONS), np.uint8)
    for _ in range(50):
        core.legal_mask(view.states, masks)
        rows = np.flatnonzero(masks.any(axis=1))
        if not len(rows):
            break
        acts = agent.act(view, rows)
        assert masks[rows, acts].all()
        a = np.zeros(6, np.int64)
        a[rows] = acts
        z = np.zeros(6, bool)
        core.step(view.states, a, np.zeros((6, 3), np.float32), z, z.copy(), z.copy())


def test_cli_train_and_eval(tmp_path, capsys):
    out = tmp_path / "run"
    rc = cli_main(
        [
            "train",
            "dungeon_kart",
            "--players",
            "2",
            "--steps",
            "512",
            "--num-envs",
            "16",
            "--num-steps",
            "16",
            "--hidden",
            "32",
            "--eval-games",
            "10",
            "--out",
            str(out),
            "--progress",
            "none",
        ]
    )
    text = capsys.readouterr()
    assert rc == 0, text.err
    m = json.loads((out / "metrics.json").read_text())
    assert m["game"] == "dungeon_kart" and m["core_kwargs"]["num_players"] == 2
    assert m["steps"] >= 512
    for r in m["final_eval"]:
        assert r["games"] == 10 and r["illegal_actions"] == 0
    js = tmp_path / "league.json"
    rc = cli_main(
        [
            "eval",
            "dungeon_kart",
            "--agent",
            "heuristic",
            "--agent",
            "random",
            "--games",
            "20",
            "--json",
            str(js),
            "--plot",
            str(tmp_path / "l.png"),
        ]
    )
    assert rc == 0, capsys.readouterr().err
    (pair,) = json.loads(js.read_text())["pairings"]
    assert pair["games"] == 20 and pair["win_rate"] > 0.7 and pair["illegal_actions"] == 0
    # the 4-player league rated from placements (openskill Plackett-Luce): the
    # 2-player model sits at a 4-player table (the observation does not
    # depend on the table size); random play twice fills the fourth side
    js4 = tmp_path / "league4.json"
    png4 = tmp_path / "league4.png"
    rc = cli_main(
        [
            "eval",
            "dungeon_kart",
            "--players",
            "4",
            "--agent",
            str(out / "model.pt"),
            "--agent",
            "heuristic",
            "--agent",
            "random",
            "--agent",
            "random",
            "--games",
            "3",
            "--json",
            str(js4),
            "--plot",
            str(png4),
        ]
    )
    text = capsys.readouterr()
    assert rc == 0, text.err
    assert "placement league, every agent on 4 players" in text.out
    league = json.loads(js4.read_text())
    assert league["rating"] == "openskill-plackett-luce"
    rows = {r["name"]: r for r in league["ratings"]}
    assert set(rows) == {"model.pt", "heuristic", "random", "random'"}
    assert all(r["games"] == 12 for r in rows.values())  # 3 games x 4 rotations
    assert png4.stat().st_size > 0
    # races that were played out give placements, so the ratings separate
    assert len({round(r["mu"], 6) for r in rows.values()}) > 1


def test_cli_play_watch_with_pictures(tmp_path, capsys):
    pics = tmp_path / "pics"
    rc = cli_main(
        [
            "play",
            "dungeon_kart",
            "--players",
            "3",
            "--agent",
            "heuristic",
            "--max-steps",
            "60",
            "--pictures",
            str(pics),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "player_0 plays" in out and "Dungeon Kart" in out
    files = sorted(pics.glob("game0_*.png"))
    assert len(files) >= 3  # one per racer's turn
    from PIL import Image

    img = np.asarray(Image.open(files[0]))
    assert img.ndim == 3 and img.std() > 10


def test_cli_play_person_quits_and_bad_track(monkeypatch, capsys):
    answers = iter(["help", "nonsense", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    rc = cli_main(["play", "dungeon_kart", "--players", "3"])
    out = capsys.readouterr().out
    assert rc == 0 and "Your legal actions" in out and "bye" in out
    rc = cli_main(["play", "dungeon_kart", "--players", "2", "--track", "Nowhere"])
    assert rc == 2 and "unknown track" in capsys.readouterr().err


@pytest.mark.parametrize("n", [2, 8])
def test_selfplay_view_with_scripted_opponents(n):
    import gymnasium as gym

    env = gym.make("dungeonrl/DungeonKart-v1", num_players=n, opponents="heuristic")
    obs, info = env.reset(seed=1)
    for _ in range(200):
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, r, te, tr, info = env.step(a)
        if te or tr:
            obs, info = env.reset()
    env.close()
