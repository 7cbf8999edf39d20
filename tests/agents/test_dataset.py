"""Minari round trip (``agents/commands/dataset.py``): record seeded episodes of an
agent, load them back with ``minari.load_dataset`` and check the episode
count, the shapes, the stored masks and that the recorded actions replay
the same episode in a fresh env. Skipped when Minari (the ``datasets``
extra) is not installed."""

from __future__ import annotations

import numpy as np
import pytest

minari = pytest.importorskip("minari")
pytest.importorskip("h5py")

import gymnasium as gym

import dungeonrl
from dungeonrl.agents.commands.dataset import default_dataset_id, main, record_dataset


@pytest.fixture
def minari_root(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    return tmp_path


def _check_roundtrip(dataset_id, episodes, spec, seed, **env_kwargs):
    ds = minari.load_dataset(dataset_id)
    assert ds.total_episodes == episodes
    eps = list(ds.iterate_episodes())
    assert [int(e.id) for e in eps] == list(range(episodes))
    total = 0
    for k, ep in enumerate(eps):
        T = len(ep.actions)
        total += T
        assert ep.observations.shape == (T + 1, spec.obs_size)
        assert ep.observations.dtype == np.float32
        assert ep.rewards.shape == ep.terminations.shape == ep.truncations.shape == (T,)
        assert ep.terminations[-1] or ep.truncations[-1]
        assert not (ep.terminations[:-1].any() or ep.truncations[:-1].any())
        m = ep.infos["action_mask"]
        assert m.shape == (T + 1, spec.num_actions)
        assert m[np.arange(T), ep.actions].all()  # every recorded action was legal
        assert not m[-1].any()
        # the stored actions replay the episode of seed + k in a fresh env
        env = gym.make(spec.env_id, disable_env_checker=True, **env_kwargs)
        obs, _ = env.reset(seed=seed + k)
        np.testing.assert_array_equal(obs, ep.observations[0])
        for t in range(T):
            obs, r, te, tr, _ = env.step(int(ep.actions[t]))
            np.testing.assert_array_equal(obs, ep.observations[t + 1])
            assert r == pytest.approx(ep.rewards[t]) and te == ep.terminations[t]
    assert ds.total_steps == total
    return ds


def test_unbroken_heuristic_roundtrip(minari_root):
    spec = dungeonrl.get_spec("unbroken")
    ds = record_dataset("unbroken", "heuristic", 3, seed=10)
    assert (
        ds.spec.dataset_id
        == default_dataset_id("unbroken", "heuristic")
        == "dungeonrl/unbroken/heuristic-v0"
    )
    assert (minari_root / "dungeonrl" / "unbroken").is_dir()
    _check_roundtrip("dungeonrl/unbroken/heuristic-v0", 3, spec, 10)
    env = minari.load_dataset("dungeonrl/unbroken/heuristic-v0").recover_environment()
    assert env.unwrapped.game_spec is spec or env.unwrapped.game_spec == spec
    with pytest.raises(FileExistsError, match="overwrite"):
        record_dataset("unbroken", "heuristic", 1, seed=10)
    ds = record_dataset(
        "unbroken",
        "random",
        2,
        seed=0,
        dataset_id="dungeonrl/unbroken/heuristic-v0",
        overwrite=True,
    )
    assert ds.total_episodes == 2


def test_dungeon_crawler_learner_seat_roundtrip(minari_root):
    spec = dungeonrl.get_spec("dungeon_crawler")
    kw = dict(num_players=3, max_steps=200, opponents="random")
    record_dataset("dungeon_crawler", "heuristic", 3, seed=7, dataset_id="dc/learner-v0", **kw)
    ds = _check_roundtrip("dc/learner-v0", 3, spec, 7, **kw)
    assert "one seat" in ds.storage.metadata["description"]


def test_cli_and_bad_input(minari_root, capsys):
    assert (
        main(
            [
                "unbroken",
                "--agent",
                "random",
                "--episodes",
                "2",
                "--seed",
                "3",
                "--root",
                str(minari_root / "cli"),
            ]
        )
        == 0
    )
    assert "2 episodes" in capsys.readouterr().out
    assert minari.load_dataset("dungeonrl/unbroken/random-v0").total_episodes == 2
    for argv in (
        ["unbroken", "--players", "2"],
        ["dungeon_crawler", "--character", "x"],
        ["chess"],
    ):
        with pytest.raises(SystemExit):
            main(argv)
    err = capsys.readouterr().err
    assert "--players does not apply to unbroken" in err and "unknown game" in err
    with pytest.raises(ValueError, match="episodes"):
        record_dataset("unbroken", "heuristic", 0)
    with pytest.raises(ValueError, match="seed"):
        record_dataset("unbroken", "heuristic", 1, seed=-1)
    with pytest.raises(FileNotFoundError, match="unknown agent"):
        record_dataset("unbroken", "nobody", 1, dataset_id="xx/y-v0")
    with pytest.raises(dungeonrl.UnknownGameError):
        record_dataset("chess", "heuristic", 1)
