"""Ray RLlib integration (``dungeonrl.agents.algos.rllib``).

Two layers:

* the env adapters RLlib steps (no Ray needed, so they also run in the main
  virtualenv): the batched next-step-autoreset vector env plays exactly the
  games of the suite's native vector env, and the Python env per slot those
  of ``DungeonEnv``; the policy-mapping functions;
* marked ``rllib`` (run by ``make test`` in ``.venv-rllib``; skipped where
  Ray is not installed): the turn-based ``MultiAgentEnv`` protocol, one PPO
  iteration on Unbroken and on Dungeon Crawler (2 players, one shared
  policy) sampled in the driver, one with a local Ray of 2 env runners, all
  with ``illegal_action="raise"`` (an illegal action sampled anywhere fails
  the iteration) and the illegal-action counter at 0; and the command line:
  ``dungeonrl train --backend rllib`` writes the run folder, its checkpoint
  is restored as an RLlib agent that acts exactly as the exported
  ``model.pt``, and ``dungeonrl eval`` evaluates it alone and in a league.

Budgets are tiny (one iteration of a few thousand steps); Ray runs with 2
CPUs and a 300 MB object store.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.agents.algos.rllib import (
    LearnerVsFrozen,
    RLlibSingleEnv,
    RLlibVectorEnv,
    map_per_seat,
    map_shared,
    policy_setup,
)
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv


def _pick(obs: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic legal action that depends on the observation."""
    legal = np.flatnonzero(mask)
    return int(legal[int(abs(float(obs.sum())) * 1000) % len(legal)])


def _episodes_native(n: int, steps: int, seed: int) -> list:
    env = DungeonVectorEnv("unbroken", num_envs=n)
    obs, info = env.reset(seed=seed)
    mask = info["action_mask"]
    eps = [[] for _ in range(n)]
    ret = np.zeros(n)
    length = np.zeros(n, np.int64)
    for _ in range(steps):
        a = np.array([_pick(obs[i], mask[i]) for i in range(n)])
        obs, r, te, tr, info = env.step(a)
        mask = info["action_mask"]
        ret += r
        length += 1
        for i in np.flatnonzero(te | tr):
            eps[i].append((round(float(ret[i]), 4), int(length[i]), bool(te[i])))
            ret[i], length[i] = 0.0, 0
    return eps


def _episodes_rllib(n: int, steps: int, seed: int) -> list:
    env = RLlibVectorEnv("unbroken", num_envs=n)
    obs, _ = env.reset(seed=seed)
    eps = [[] for _ in range(n)]
    ret = np.zeros(n)
    length = np.zeros(n, np.int64)
    pending = np.zeros(n, np.bool_)
    for _ in range(steps):
        o, m = obs["observations"], obs["action_mask"]
        # a finished row's action is ignored: send an out-of-mask one on purpose
        a = np.array([0 if pending[i] else _pick(o[i], m[i]) for i in range(n)])
        obs, r, te, tr, info = env.step(a)
        assert not r[pending].any() and not (te | tr)[pending].any()
        assert obs["action_mask"][pending].sum(axis=1).min(initial=1) > 0
        live = ~pending
        ret[live] += r[live]
        length[live] += 1
        done = np.flatnonzero(te | tr)
        for i in done:
            eps[i].append((round(float(ret[i]), 4), int(length[i]), bool(te[i])))
            ret[i], length[i] = 0.0, 0
            assert not obs["action_mask"][i].any()  # the final observation
            assert info["_win"][i]
        pending[:] = False
        pending[done] = True
    assert env.illegal_actions == 0
    return eps


def test_vector_env_plays_the_native_games_with_next_step_autoreset():
    """Row by row, the same episodes (return, length, terminated) as the
    native same-step vector env under the same observation-driven policy."""
    n = 6
    native = _episodes_native(n, 400, seed=11)
    ours = _episodes_rllib(n, 460, seed=11)  # + one extra step per finished episode
    finished = 0
    for i in range(n):
        k = min(len(native[i]), len(ours[i]))
        assert native[i][:k] == ours[i][:k]
        finished += k
    assert finished >= n  # every row finished at least one game on average


def test_vector_env_spaces_and_first_observation():
    env = RLlibVectorEnv("unbroken", num_envs=4)
    ref = DungeonVectorEnv("unbroken", num_envs=4, dict_obs=True)
    obs, infos = env.reset(seed=3)
    robs, _ = ref.reset(seed=3)
    assert infos == {}
    assert env.single_observation_space.contains({k: v[0] for k, v in obs.items()})
    np.testing.assert_array_equal(obs["observations"], robs["observation"])
    np.testing.assert_array_equal(obs["action_mask"], robs["action_mask"].astype(np.float32))
    assert obs["action_mask"].dtype == np.float32
    with pytest.raises(Exception, match="out of range"):
        env.step(np.full(4, 10**6))


def test_vector_env_strict_mode_raises_on_an_illegal_action():
    from dungeonrl.envs.core.errors import IllegalActionError

    env = RLlibVectorEnv("unbroken", num_envs=2, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    bad = np.flatnonzero(obs["action_mask"][0] == 0)[0]
    with pytest.raises(IllegalActionError):
        env.step(np.array([bad, np.flatnonzero(obs["action_mask"][1])[0]]))


def test_single_env_is_dungeon_env_with_rllib_observations():
    env, ref = RLlibSingleEnv("unbroken"), DungeonEnv("unbroken")
    obs, _ = env.reset(seed=5)
    robs, rinfo = ref.reset(seed=5)
    done = False
    while not done:
        np.testing.assert_array_equal(obs["observations"], robs)
        np.testing.assert_array_equal(obs["action_mask"], rinfo["action_mask"])
        a = _pick(robs, rinfo["action_mask"])
        obs, r, te, tr, info = env.step(a)
        robs, rr, rte, rtr, rinfo = ref.step(a)
        assert (r, te, tr) == (rr, rte, rtr)
        done = te or tr
    assert "win" in info and not obs["action_mask"].any()


def test_policy_mappings():
    class Ep:
        def __init__(self, i):
            self.id_ = f"ep{i}"

    assert map_shared("player_3") == "shared"
    assert map_per_seat("player_2") == "seat_2"
    with pytest.raises(ValueError, match="player_<seat>"):
        map_per_seat("bob")
    lvf = LearnerVsFrozen(3)
    seats = set()
    for i in range(30):
        roles = [lvf(f"player_{s}", Ep(i)) for s in range(3)]
        assert roles.count("learner") == 1 and roles.count("frozen") == 2
        assert roles == [lvf(f"player_{s}", Ep(i)) for s in range(3)]  # stable per episode
        seats.add(roles.index("learner"))
    assert seats == {0, 1, 2}  # the learner's seat rotates
    policies, fn, train = policy_setup("per_seat", 4)
    assert policies == {"seat_0", "seat_1", "seat_2", "seat_3"} and train is None
    assert policy_setup("learner_vs_frozen", 2)[2] == ["learner"]
    with pytest.raises(ValueError, match="policy mapping"):
        policy_setup("everyone", 2)


# --- with Ray ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_local():
    """A small local Ray for the module (2 CPUs, 300 MB object store)."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    from dungeonrl.agents.algos.rllib import init_ray

    init_ray()
    yield ray
    ray.shutdown()


def _train_once(cfg):
    algo = cfg.build_algo()
    try:
        r = algo.train()
    finally:
        algo.stop()
    return r


@pytest.mark.rllib
def test_multi_agent_env_protocol(ray_local):
    from dungeonrl.agents.algos.rllib import make_rllib_env
    from dungeonrl.envs.core.adapters.aec import DungeonAECEnv

    env = make_rllib_env({"core_kwargs": {"num_players": 2}}, game="dungeon_crawler")
    ref = DungeonAECEnv("dungeon_crawler", num_players=2)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        ref.reset(seed=seed)
        total = {a: 0.0 for a in env.possible_agents}
        ref_total = {a: 0.0 for a in env.possible_agents}
        while True:
            assert len(obs) == 1
            ((agent, o),) = obs.items()
            assert agent == ref.agent_selection
            a = _pick(o["observations"], o["action_mask"])
            obs, rew, te, tr, infos = env.step({agent: a})
            ref.step(a)
            for k in total:
                total[k] += rew[k]
                ref_total[k] += ref.rewards[k]
            if te["__all__"] or tr["__all__"]:
                assert set(obs) == set(env.possible_agents)
                assert all(not o["action_mask"].any() for o in obs.values())
                assert set(infos) == set(env.possible_agents)
                break
        assert total == pytest.approx(ref_total)
    assert env.illegal_actions == 0


@pytest.mark.rllib
def test_ppo_iteration_unbroken_in_process(ray_local):
    from dungeonrl.agents.algos.rllib import ppo_config

    cfg = ppo_config(
        "unbroken",
        env_runners=0,
        num_envs=64,
        illegal_action="raise",
        train_batch=2048,
        minibatch=512,
        epochs=1,
        hidden=(32, 32),
    )
    r = _train_once(cfg)  # an illegal action would raise inside sampling
    er = r["env_runners"]
    assert r["num_env_steps_sampled_lifetime"] >= 2048
    assert er.get("dungeonrl_illegal", 0) == 0
    assert "default_policy" in r["learners"]
    assert np.isfinite(r["learners"]["default_policy"]["policy_loss"])


@pytest.mark.rllib
def test_ppo_iteration_dungeon_crawler_shared_policy_in_process(ray_local):
    from dungeonrl.agents.algos.rllib import ppo_config

    cfg = ppo_config(
        "dungeon_crawler",
        core_kwargs={"num_players": 2},
        env_runners=0,
        num_envs=2,
        mapping="shared",
        illegal_action="raise",
        train_batch=600,
        minibatch=200,
        epochs=1,
        hidden=(32, 32),
        rollout_fragment=150,
    )
    r = _train_once(cfg)
    assert set(k for k in r["learners"] if k != "__all_modules__") == {"shared"}
    agent_steps = r["env_runners"]["num_agent_steps_sampled"]
    assert {"player_0", "player_1"} <= set(agent_steps)  # both seats, one policy
    assert r["num_env_steps_sampled_lifetime"] >= 600
    assert r["env_runners"].get("dungeonrl_illegal", 0) == 0


@pytest.mark.rllib
def test_ppo_iteration_two_env_runners(ray_local):
    from dungeonrl.agents.algos.rllib import ppo_config

    cfg = ppo_config(
        "unbroken",
        env_runners=2,
        num_envs=32,
        vectorize="native",
        illegal_action="raise",
        train_batch=2048,
        minibatch=512,
        epochs=1,
        hidden=(32, 32),
    )
    algo = cfg.build_algo()
    try:
        assert algo.env_runner_group.num_remote_env_runners() == 2
        r = algo.train()
    finally:
        algo.stop()
    assert r["num_env_steps_sampled_lifetime"] >= 2048
    assert r["env_runners"].get("dungeonrl_illegal", 0) == 0


@pytest.mark.rllib
def test_cli_train_checkpoint_restored_and_evaluated(ray_local, tmp_path, monkeypatch, capsys):
    import torch

    from dungeonrl.agents.algos.ppo import load_model
    from dungeonrl.agents.policy import TorchAgent, make_agent
    from dungeonrl.cli import main
    from dungeonrl.envs.core.batch import Batch
    from dungeonrl.envs.core.common import resolve_core

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    rc = main(
        [
            "train",
            "dungeon_crawler",
            "--players",
            "2",
            "--backend",
            "rllib",
            "--env-runners",
            "0",
            "--steps",
            "600",
            "--num-steps",
            "150",
            "--num-envs",
            "2",
            "--hidden",
            "32,32",
            "--eval-games",
            "20",
            "--out",
            str(out),
            "--progress",
            "none",
        ]
    )
    assert rc == 0
    for f in (
        "model.pt",
        "metrics.csv",
        "metrics.json",
        "learning_curve.png",
        "checkpoint/dungeonrl_model_spec.json",
    ):
        assert (out / f).exists(), f
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["backend"] == "rllib" and metrics["illegal_actions"] == 0
    assert metrics["steps"] >= 600 and metrics["final_eval"]

    # the checkpoint, restored as an RLlib agent, acts exactly as the exported model.pt
    core = resolve_core("dungeon_crawler", {"num_players": 2})
    rl = make_agent(str(out / "checkpoint"), core)
    net, _ = load_model(out / "model.pt", core)
    ta = TorchAgent(net)
    buf = Batch(core, 64)
    buf.reset(np.arange(64, dtype=np.uint64))
    rows = np.arange(64)
    np.testing.assert_array_equal(rl.act(buf, rows), ta.act(buf, rows))
    with torch.no_grad():
        obs = torch.from_numpy(buf.obs)
        ones = torch.ones(64, core.spec.num_actions)
        full = rl.module.forward_inference({"obs": {"observations": obs, "action_mask": ones}})
        np.testing.assert_allclose(
            full["action_dist_inputs"].numpy(), net.logits(obs).numpy(), rtol=1e-5, atol=1e-5
        )
    assert (np.take_along_axis(buf.masks, rl.act(buf, rows)[:, None], 1) == 1).all()

    # dungeonrl eval: the checkpoint in a league against the heuristic and random play
    capsys.readouterr()
    rc = main(
        [
            "eval",
            "dungeon_crawler",
            "--agent",
            str(out / "checkpoint"),
            "--games",
            "20",
            "--plot",
            str(tmp_path / "league.png"),
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "rllib:run" in text and "heuristic" in text and (tmp_path / "league.png").exists()


def test_cli_rllib_options_are_checked_before_anything_is_written(tmp_path, monkeypatch, capsys):
    from dungeonrl.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["train", "unbroken", "--env-runners", "2", "--steps", "64"]) == 2
    assert "--env-runners apply to --backend rllib only" in capsys.readouterr().err
    assert main(["train", "unbroken", "--backend", "rllib", "--kickstart", "heuristic"]) == 2
    assert "--kickstart apply to --backend native only" in capsys.readouterr().err
    assert main(["train", "unbroken", "--backend", "rllib", "--policy-mapping", "shared"]) == 2
    assert "does not apply to unbroken" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_module_imports_without_ray():
    import subprocess
    import sys

    code = (
        "import sys, dungeonrl.agents.algos.rllib, dungeonrl.agents.commands.train as t; "
        "from dungeonrl.registry import get_spec; t.main_options(get_spec('unbroken')); "
        "assert not any(m == 'ray' or m.startswith('ray.') for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.rllib
@pytest.mark.parametrize(
    "game, core_kwargs",
    [
        ("unbroken", {}),
        ("dungeon_crawler", {"num_players": 3}),
        ("dungeon_kart", {"num_players": 2}),
        ("dcc_unstoppable", {}),
        ("dcc_unstoppable", {"num_players": 2}),
    ],
)
def test_every_game_has_a_registered_creator(ray_local, game, core_kwargs):
    """The creator registered for each game builds the right kind of env,
    whose observations lie in its spaces through a few legal steps."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.tune.registry import ENV_CREATOR, _global_registry

    from dungeonrl.agents.algos.rllib import env_name, register_envs
    from dungeonrl.registry import list_games

    names = register_envs()
    assert names == [env_name(g) for g in list_games()]
    env = _global_registry.get(ENV_CREATOR, env_name(game))({"core_kwargs": core_kwargs})
    multi = core_kwargs.get("num_players", 1) > 1
    assert isinstance(env, MultiAgentEnv) == multi
    obs, _ = env.reset(seed=1)
    for _ in range(20):
        if multi:
            ((agent, o),) = obs.items()
            assert env.observation_spaces[agent].contains(o)
            obs, _, te, tr, _ = env.step({agent: _pick(o["observations"], o["action_mask"])})
            done = te["__all__"] or tr["__all__"]
        else:
            assert env.observation_space.contains(obs)
            obs, _, te, tr, _ = env.step(_pick(obs["observations"], obs["action_mask"]))
            done = te or tr
        if done:
            break
    assert env.illegal_actions == 0


@pytest.mark.rllib
def test_learner_vs_frozen_trains_the_learner_and_syncs_the_frozen_copy(ray_local):
    import torch

    from dungeonrl.agents.algos.rllib import ppo_config, sync_frozen

    cfg = ppo_config(
        "dungeon_crawler",
        core_kwargs={"num_players": 2},
        env_runners=0,
        num_envs=1,
        mapping="learner_vs_frozen",
        illegal_action="raise",
        train_batch=300,
        minibatch=100,
        epochs=1,
        hidden=(16,),
        rollout_fragment=300,
    )
    algo = cfg.build_algo()
    try:
        r = algo.train()
        assert "learner" in r["learners"]

        def weights(mid):
            return algo.learner_group.get_weights(module_ids=[mid])[mid]

        lw, fw = weights("learner"), weights("frozen")
        assert any(not np.allclose(lw[k], fw[k]) for k in lw)  # only the learner moved
        sync_frozen(algo)
        fw = weights("frozen")
        assert all(np.allclose(lw[k], fw[k]) for k in lw)
        local = algo.env_runner_group.local_env_runner.module["frozen"].state_dict()
        for k, v in local.items():
            assert torch.allclose(torch.as_tensor(v), torch.as_tensor(lw[k]))
    finally:
        algo.stop()
