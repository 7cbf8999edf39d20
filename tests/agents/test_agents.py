"""Tests of the training and evaluation code (``dungeonrl.agents``): both PPO
paths on tiny budgets, a learning test that can fail, model-spec checks on
loading, evaluation statistics on known agents, Elo and the league, and the
``train`` / ``eval`` commands.

Everything here is sized to run in seconds on a 2-core machine (the learning
test in well under a minute)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers import fixture_game as fg

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl import registry
from dungeonrl.agents import league
from dungeonrl.agents.algos import ppo as ppo_mod
from dungeonrl.agents.algos.ppo import (
    ActorCritic,
    PPOConfig,
    load_model,
    masked_logits,
    save_model,
    train,
)
from dungeonrl.agents.commands.evaluate import evaluate, wilson
from dungeonrl.agents.modelspec import (
    ModelSpecError,
    ModelSpecWarning,
    check_model_spec,
)
from dungeonrl.agents.policy import RandomAgent, TorchAgent, load_policy, make_agent
from dungeonrl.cli import main as cli_main
from dungeonrl.envs.core.hooks import hooks_for
from dungeonrl.envs.unbroken import UnbrokenCore

registry.register_game(fg.SPEC, "helpers.fixture_game")


@pytest.fixture(scope="module")
def easy_core():
    return UnbrokenCore(character="sneak", difficulty="easy")


def tiny_ppo(env="race", **kw) -> PPOConfig:
    base = dict(
        env=env,
        total_steps=512,
        num_envs=16,
        num_steps=16,
        num_minibatches=2,
        update_epochs=2,
        hidden=(32, 32),
        seed=3,
        torch_threads=1,
    )
    base.update(kw)
    return PPOConfig(**base)


# --- fast-path PPO -------------------------------------------------------------------------
def test_ppo_smoke_on_fixture_game_and_diagnostics():
    res = train(tiny_ppo())
    assert res.global_step == 512 and len(res.history) == 2
    m = res.history[-1]
    for key in (
        "approx_kl",
        "clipfrac",
        "entropy",
        "explained_variance",
        "sps",
        "win_rate",
        "pg_loss",
        "v_loss",
        "episodes",
    ):
        assert key in m
    assert m["sps"] > 0 and math.isfinite(m["approx_kl"]) and math.isfinite(m["entropy"])
    assert 0.0 <= m["clipfrac"] <= 1.0


def test_ppo_is_reproducible():
    a = train(tiny_ppo(total_steps=256))
    b = train(tiny_ppo(total_steps=256))
    for (ka, va), (kb, vb) in zip(a.net.state_dict().items(), b.net.state_dict().items()):
        assert ka == kb and torch.equal(va, vb)


def test_ppo_smoke_unbroken_save_load_roundtrip(tmp_path, easy_core):
    cfg = tiny_ppo(
        "unbroken",
        core_kwargs={"difficulty": "easy", "reward": "score"},
        total_steps=256,
        hidden=(16,),
    )
    res = train(cfg)
    path = save_model(tmp_path / "m.pt", res.net, res.core, config=cfg)
    net, payload = load_model(path, easy_core)
    spec = easy_core.spec
    ms = payload["model_spec"]
    assert ms["env_id"] == spec.env_id and ms["layout_version"] == spec.layout_version
    assert ms["obs_size"] == spec.obs_size and ms["num_actions"] == spec.num_actions
    assert ms["core_kwargs"] == {"difficulty": "easy", "reward": "score"}
    x = torch.rand(5, spec.obs_size)
    assert torch.equal(net.logits(x), res.net.eval().logits(x))


def test_masked_sampling_never_picks_illegal_actions():
    from dungeonrl.agents.algos.ppo import sample_actions

    g = torch.Generator().manual_seed(0)
    logits = torch.randn(2000, 7) * 5
    mask = torch.rand(2000, 7) < 0.3
    mask[:, 3] = True
    a, logp = sample_actions(masked_logits(logits, mask), g)
    assert mask[torch.arange(2000), a].all()
    assert torch.isfinite(logp).all()


def test_fast_ppo_env_threads_train_the_same_network(monkeypatch):
    """The env step on two threads (``env_threads=2``: the rows split
    between them) plays the same games, so the same seeded run ends with
    the same weights as on one thread."""
    built = []

    class Spy(ppo_mod.Batch):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            built.append(self)

    monkeypatch.setattr(ppo_mod, "Batch", Spy)
    kw = dict(core_kwargs={"difficulty": "easy", "reward": "score"}, num_envs=128, total_steps=4096)
    nets = [train(tiny_ppo("unbroken", env_threads=k, **kw)).net for k in (1, 2)]
    assert [b.num_threads for b in built] == [1, 2] and len(built[1]._split.splits) == 2
    a, b = (n.state_dict() for n in nets)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_fast_ppo_default_threads_are_torchs_own(monkeypatch):
    """``torch_threads=0``: the fast PPO takes torch's default thread count
    (captured at import: ``OMP_NUM_THREADS``, else every core; the suite
    sets 1); an explicit count wins."""
    monkeypatch.setattr(ppo_mod, "TORCH_DEFAULT_THREADS", 2)
    try:
        auto = train(tiny_ppo("race", torch_threads=0, total_steps=256))
        assert auto.history[-1]["torch_threads"] == 2 == torch.get_num_threads()
        one = train(tiny_ppo("race", torch_threads=1, total_steps=256))
        assert one.history[-1]["torch_threads"] == 1 == torch.get_num_threads()
    finally:
        torch.set_num_threads(1)


def test_fast_ppo_update_threads_only_during_the_update(monkeypatch):
    """``update_threads``: the update runs on that many torch threads, the
    rollout (and everything after ``train``) on ``torch_threads``."""
    seen = []
    real = ppo_mod.ActorCritic.forward

    def spy(self, x):
        seen.append((torch.is_grad_enabled(), torch.get_num_threads()))
        return real(self, x)

    monkeypatch.setattr(ppo_mod.ActorCritic, "forward", spy)
    res = train(tiny_ppo("race", update_threads=2, total_steps=1024))
    assert torch.get_num_threads() == 1
    assert {n for grad, n in seen if grad} == {2}  # the update's forward passes
    assert res.history[-1]["update_threads"] == 2 and res.history[-1]["torch_threads"] == 1


@pytest.mark.parametrize("obs_dtype", ["float32", "float16"])
def test_fast_ppo_learns_to_beat_random(easy_core, obs_dtype):
    """Can fail: a short seeded run (65k steps, ~15 s) must reach a clearly
    higher mean Level than uniform random play on the same 300 evaluation
    games (Unbroken, easy: random play wins ~0% and mostly dies on Level 1,
    mean Level ~1.2; this run reaches ~2.3), greedy and sampled alike; with
    the float32 observation and with the compact one (the kernels write
    float16, the learner casts it; evaluated on float32 observations)."""
    cfg = PPOConfig(
        env="unbroken",
        core_kwargs={"character": "sneak", "difficulty": "easy", "reward": "score"},
        total_steps=16 * 256 * 16,
        num_envs=256,
        num_steps=16,
        num_minibatches=4,
        update_epochs=3,
        learning_rate=1e-3,
        hidden=(64, 64),
        seed=1,
        torch_threads=1,
        obs_dtype=obs_dtype,
    )
    res = train(cfg)
    rnd = evaluate("random", easy_core, 300, seed=0).summary
    greedy = evaluate(TorchAgent(res.net, deterministic=True), easy_core, 300, seed=0).summary
    sampled = evaluate(
        TorchAgent(res.net, deterministic=False, seed=0), easy_core, 300, seed=0
    ).summary
    assert rnd["win_rate"] < 0.01
    assert greedy["illegal_actions"] == sampled["illegal_actions"] == 0
    assert greedy["mean_level"] > rnd["mean_level"] + 0.5, (greedy, rnd)
    assert sampled["mean_level"] > rnd["mean_level"] + 0.4, (sampled, rnd)


# --- model spec ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def saved_unbroken(tmp_path_factory):
    core = UnbrokenCore(character="sneak", difficulty="normal")
    net = ActorCritic(core.spec.obs_size, core.spec.num_actions, (16,))
    path = tmp_path_factory.mktemp("m") / "model.pt"
    save_model(path, net, core, core_kwargs={"character": "sneak"})
    return path, core


def test_loading_into_another_game_is_a_clear_error(saved_unbroken):
    path, _ = saved_unbroken
    race = fg.make_core()
    with pytest.raises(ModelSpecError, match="obs_size"):
        load_model(path, race)
    with pytest.raises(ModelSpecError):
        load_policy(path, race)


def test_spec_mismatch_fields(saved_unbroken):
    path, core = saved_unbroken
    spec = core.spec
    for change in (
        dict(obs_size=spec.obs_size + 1),
        dict(num_actions=spec.num_actions - 1),
        dict(feature_names=spec.feature_names[::-1]),
    ):
        with pytest.raises(ModelSpecError):
            load_model(path, dataclasses.replace(spec, **change), strict=False)
    content = dataclasses.replace(spec, layout_version="0" * 16)
    with pytest.raises(ModelSpecError, match="layout_version"):
        load_model(path, content)
    with pytest.warns(ModelSpecWarning):
        load_model(path, content, strict=False)
    with pytest.raises(ModelSpecError, match="spec_version"):
        load_model(path, dataclasses.replace(spec, version=spec.version + 1))


def test_not_a_model_file(tmp_path, easy_core):
    bad = tmp_path / "x.pt"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelSpecError):
        load_model(bad, easy_core)
    torch.save({"weights": torch.zeros(3)}, tmp_path / "y.pt")
    with pytest.raises(ModelSpecError, match="not a dungeonrl PPO model"):
        load_model(tmp_path / "y.pt", easy_core)
    with pytest.raises(ModelSpecError, match="lacks"):
        check_model_spec({"game": "unbroken"}, easy_core.spec)
    with pytest.raises(FileNotFoundError):
        make_agent(str(tmp_path / "missing.pt"), easy_core)


def test_load_policy_plays_legal_actions(saved_unbroken):
    path, core = saved_unbroken
    policy = load_policy(path, core)
    states = core.alloc(1)
    core.reset(states, np.array([5], np.uint64))
    masks = np.zeros((1, core.spec.num_actions), np.int8)
    for _ in range(30):
        core.legal_mask(states, masks)
        if core.is_over(states[0]):
            break
        a = policy(states, masks[0].astype(np.uint8))
        assert masks[0, a] == 1
        core.step(
            states,
            np.array([a]),
            np.zeros((1, 1), np.float32),
            np.zeros(1, bool),
            np.zeros(1, bool),
            np.zeros(1, bool),
        )


# --- evaluation statistics -------------------------------------------------------------------
def test_wilson_interval():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 100)[0] == 0.0 and 0.03 < wilson(0, 100)[1] < 0.04
    assert wilson(100, 100)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 0.0)
    for k, n in ((3, 1000), (500, 1000), (999, 1000)):
        lo, hi = wilson(k, n)
        assert lo <= k / n <= hi
        lo2, hi2 = wilson(n - k, n)
        assert lo2 == pytest.approx(1 - hi) and hi2 == pytest.approx(1 - lo)


def test_batched_heuristic_evaluation_matches_play_games():
    """The generic batched evaluator driving the heuristic agent row by row
    plays exactly the games the whole-game numba kernel plays."""
    core = UnbrokenCore(character="random", difficulty="normal")
    agent = make_agent("heuristic", core)
    slow = evaluate(agent, core, 150, seed=11, fast=False)
    fast = evaluate(agent, core, 150, seed=11, fast=True)
    for key in ("win", "level", "score", "length"):
        assert np.array_equal(slow.stats[key], fast.stats[key]), key
    assert slow.illegal == 0
    assert slow.summary["win_rate"] == fast.summary["win_rate"]


def test_random_agent_matches_play_games_statistically(easy_core):
    n = 1000
    batched = evaluate(RandomAgent(easy_core, seed=4), easy_core, n, fast=False)
    kernel = evaluate("random", easy_core, n, fast=True)
    assert batched.illegal == 0
    assert batched.summary["win_rate"] == kernel.summary["win_rate"] == 0.0
    # mean Level reached: ~1.2 with a standard deviation ~0.4 per game
    assert abs(batched.summary["mean_level"] - kernel.summary["mean_level"]) < 0.08
    assert abs(batched.summary["mean_length"] - kernel.summary["mean_length"]) < 1.5


def test_generic_evaluation_on_fixture_game():
    core = fg.make_core()
    res = evaluate(RandomAgent(core, seed=0), core, 200)
    assert res.summary["games"] == 200 and res.illegal == 0
    assert np.all((res.stats["length"] >= 1) & (res.stats["length"] <= fg.MAX_STEPS))
    assert hooks_for("race").heuristic is None


# --- Elo and the league ------------------------------------------------------------------------
def test_elo_update_known_values():
    assert league.expected_score(1500, 1500) == 0.5
    assert league.expected_score(1900, 1500) == pytest.approx(1 / 1.1)
    a, b = league.elo_update(1500, 1500, 1.0, k=32)
    assert (a, b) == (1516.0, 1484.0)
    a, b = league.elo_update(1700, 1500, 0.5, k=20)
    assert a + b == pytest.approx(3200) and a < 1700
    with pytest.raises(ValueError):
        league.elo_update(1500, 1500, 1.5)


def test_fit_elo():
    r = [league.MatchResult("a", "b", 75, 25)]
    elo = league.fit_elo(r, prior_draws=0.0)
    assert elo["a"] - elo["b"] == pytest.approx(400 * math.log10(3), abs=0.01)
    assert (elo["a"] + elo["b"]) / 2 == pytest.approx(1000)
    unbeaten = league.fit_elo([league.MatchResult("a", "b", 10, 0)])
    assert math.isfinite(unbeaten["a"]) and unbeaten["a"] > unbeaten["b"]


def test_league_round_robin(tmp_path):
    strength = {"strong": 0.9, "mid": 0.5, "weak": 0.1}

    def play(a, b, games, seed):
        rng = np.random.default_rng(seed)
        pa = strength[a] / (strength[a] + strength[b])
        wa = int((rng.random(games) < pa).sum())
        return wa, games - wa, 0

    lg = league.League({k: k for k in strength}, play)
    lg.run(games=400, seed=0)
    table = lg.table()
    assert [r["name"] for r in table] == ["strong", "mid", "weak"]
    assert all(r["games"] == 800 for r in table)
    assert "strong" in lg.format_table()
    assert (tmp_path / "elo.png").exists() is False
    lg.plot(str(tmp_path / "elo.png"))
    assert (tmp_path / "elo.png").stat().st_size > 1000


def test_league_without_play_function_keeps_results_and_refuses_run():
    """``play=None``: the caller fills ``results`` (as ``evaluate`` does);
    ``run`` says so instead of calling None."""
    lg = league.League({"a": 1, "b": 2}, play=None)
    lg.results.append(league.MatchResult("a", "b", 3, 1, 0))
    assert [r["name"] for r in lg.table()] == ["a", "b"]
    with pytest.raises(ValueError, match="no play function"):
        lg.run(games=2)


# --- Stable-Baselines3 path -------------------------------------------------------------------
def test_sb3_smoke_save_and_load_policy(tmp_path, easy_core):
    pytest.importorskip("sb3_contrib")
    from dungeonrl.agents.algos.sb3 import SB3Config, save_sb3, train_sb3

    cfg = SB3Config(
        core_kwargs={"difficulty": "easy"},
        total_steps=256,
        num_envs=8,
        n_steps=16,
        batch_size=64,
        n_epochs=1,
        hidden=(16,),
        eval_every=128,
        eval_episodes=4,
        eval_envs=2,
        checkpoint_every=128,
        progress=None,
        torch_threads=1,
    )
    model, history, core = train_sb3(cfg, str(tmp_path))
    assert history and "win_rate" in history[-1] and history[-1]["global_step"] == 256
    assert list((tmp_path / "checkpoints").glob("model_*.zip"))
    assert (tmp_path / "eval" / "evaluations.npz").exists()
    path = save_sb3(model, str(tmp_path / "model"), core, {"difficulty": "easy"})
    agent = make_agent(path, easy_core)
    res = evaluate(agent, easy_core, 20)
    assert res.illegal == 0
    policy = load_policy(path, easy_core)
    states = easy_core.alloc(1)
    easy_core.reset(states, np.array([1], np.uint64))
    mask = np.asarray(states[0]["legal"], np.uint8)
    assert mask[policy(states, mask)] == 1
    with pytest.raises(ModelSpecError):
        load_policy(path, fg.make_core())


def test_sb3_policy_kwargs_build_the_same_network():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from dungeonrl.agents.algos.sb3 import policy_kwargs
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv

    def n_params(m):
        return sum(p.numel() for p in m.parameters())

    venv = DungeonSB3VecEnv("race", num_envs=2, seed=0)
    for shared in (False, True):
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=8,
            batch_size=8,
            device="cpu",
            policy_kwargs=policy_kwargs((32, 32), "tanh", shared),
        )
        net = ActorCritic(fg.SPEC.obs_size, fg.SPEC.num_actions, (32, 32), "tanh", shared)
        assert n_params(model.policy) == n_params(net)


# --- commands ----------------------------------------------------------------------------------
def test_cli_eval(capsys, tmp_path):
    rc = cli_main(
        [
            "eval",
            "unbroken",
            "--agent",
            "heuristic",
            "--agent",
            "random",
            "--games",
            "60",
            "--difficulty",
            "easy",
            "--json",
            str(tmp_path / "e.json"),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "heuristic" in out and "95% CI" in out and "difficulty=easy" in out
    assert (tmp_path / "e.json").exists()
    assert cli_main(["eval", "unbroken", "--agent", str(tmp_path / "nope.pt")]) == 2


def test_cli_train_writes_model_metrics_and_curve(tmp_path, capsys):
    out = tmp_path / "run"
    rc = cli_main(
        [
            "train",
            "unbroken",
            "--algo",
            "ppo",
            "--steps",
            "256",
            "--num-envs",
            "16",
            "--num-steps",
            "8",
            "--hidden",
            "16",
            "--eval-games",
            "20",
            "--difficulty",
            "easy",
            "--progress",
            "none",
            "--out",
            str(out),
        ]
    )
    assert rc == 0, capsys.readouterr()
    for name in ("model.pt", "metrics.csv", "metrics.json", "learning_curve.png"):
        assert (out / name).exists(), name
    import json

    m = json.loads((out / "metrics.json").read_text())
    assert m["algo"] == "ppo" and m["steps"] == 256 and len(m["final_eval"]) == 3
    assert m["core_kwargs"] == {"reward": "score", "difficulty": "easy"}
    # the saved model evaluates on its own setting
    rc = cli_main(["eval", "unbroken", "--agent", str(out / "model.pt"), "--games", "20"])
    assert rc == 0
    assert "difficulty=easy" in capsys.readouterr().out


def test_kickstart_clone_and_dagger_smoke(easy_core):
    from dungeonrl.agents.algos.bc import BCConfig, collect, kickstart

    teacher = make_agent("heuristic", easy_core)
    cfg = BCConfig(
        steps=64 * 32,
        num_envs=64,
        epochs=2,
        minibatch=256,
        seed=0,
        torch_threads=1,
        dagger_rounds=1,
        dagger_steps=64 * 8,
        dagger_epochs=1,
    )
    data = collect(easy_core, teacher, cfg)
    assert data["obs"].shape == (32, 64, easy_core.spec.obs_size)
    # the teacher's labels are legal, and complete returns are those of finished episodes
    t, i = np.nonzero(np.ones_like(data["actions"], bool))
    assert data["masks"][t, i, data["actions"][t, i]].all()
    assert data["valid"].any() and not data["valid"][-1].all()
    seen = []
    net = ActorCritic(easy_core.spec.obs_size, easy_core.spec.num_actions, (32,))
    fit = kickstart(net, easy_core, teacher, cfg, log=seen.append)
    phases = [d.get("phase") for d in seen if "phase" in d]
    assert phases == ["collect", "dagger_1"]
    assert fit["samples"] == 64 * 32 + 64 * 8 and 0.0 < fit["accuracy"] <= 1.0
