"""Untrusted input, issue 25: Dungeon Kart's custom boards and content, the
single-seat Gymnasium views of the multi-seat games and Carl's campaign
wrapper, the checked PettingZoo ``env()``, and leftovers of Unbroken and
Dungeon Crawler. Each test is one defect class found by probing: refused
with a message naming the argument / field, or made harmless.

The Hypothesis layer over the same inputs is in ``tests/fuzz/test_*.py``.
"""

from __future__ import annotations

import dataclasses
import gc
import shutil
import weakref

import gymnasium as gym
import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.benchmarks.fuzz import HOOKS, GameEnv, reached_snapshots
from dungeonrl.benchmarks.fuzz import games as suite_games
from dungeonrl.envs.core.errors import (
    ContentError,
    CorruptStateError,
    InvalidActionError,
    ResetNeededError,
)
from dungeonrl.envs.dungeon_kart import content as KC
from dungeonrl.registry import get_spec

GAMES = suite_games()
BOARD = "name: {name}\ndir: E\n1 2 . . m . . . .{tail}"


def _board(i: int) -> str:
    return BOARD.format(name=f"Board {i}", tail=" ." * (i % 5))


# --- Kart: custom boards ------------------------------------------------------------------
def test_kart_board_cache_is_bounded():
    """Every distinct board text compiled a whole content (~4 MB) into a
    cache that was never emptied; now at most CACHE_SIZE stay cached, and a
    board's content dies with its envs once it leaves the cache."""
    from dungeonrl.envs.dungeon_kart.core import DungeonKartCore

    core = DungeonKartCore(num_players=2, track=_board(0) + "\n")
    held = weakref.ref(core.content)
    del core
    size = getattr(KC, "CACHE_SIZE", 8)  # the documented bound
    refs = []
    for i in range(1, size + 5):
        c = KC.load_content(boards=(_board(i) + "\n" * i,))  # distinct texts
        refs.append(weakref.ref(c))
        del c
        assert len(KC._CACHE) <= size
    gc.collect()
    assert sum(r() is not None for r in refs) <= size
    assert held() is None, "a dropped env's board content is still held somewhere"
    # the shipped content is cached like any other (one compile per use burst)
    assert KC.load_content() is KC.load_content()


def test_kart_board_named_like_a_track_is_refused():
    with pytest.raises(ContentError, match=r"board 'Beginner Track', field 'name'.*already"):
        KC.load_content(boards=(BOARD.format(name="Beginner Track", tail=""),))
    with pytest.raises(ContentError, match="already"):  # two boards of one name
        KC.load_content(
            boards=(BOARD.format(name="Twin", tail=""), BOARD.format(name="Twin", tail=" ."))
        )
    from dungeonrl.envs.dungeon_kart.core import DungeonKartCore

    with pytest.raises(ContentError, match="Beginner Track"):
        DungeonKartCore(num_players=2, track=BOARD.format(name="Beginner Track", tail=""))
    ct = KC.load_content(boards=(BOARD.format(name="Own Name", tail=""),))
    assert ct.track_names.count("Own Name") == 1


@pytest.mark.parametrize(
    "bad", [True, np.bool_(False), 1.0, None, [1], b"Beginner Track"], ids=repr
)
def test_kart_track_must_be_a_name_index_or_board(bad):
    from dungeonrl.envs.dungeon_kart.core import DungeonKartCore

    with pytest.raises(TypeError, match="track must be"):
        DungeonKartCore(num_players=2, track=bad)
    with pytest.raises(TypeError, match="track must be"):
        KC.load_content().track_index(bad)


def test_kart_track_index_forms_still_work():
    from dungeonrl.envs.dungeon_kart.core import DungeonKartCore

    a = DungeonKartCore(num_players=2, track=np.int64(1))
    b = DungeonKartCore(num_players=2, track=a.content.track_names[1])
    assert a.track == b.track == 1


# --- Kart: content files ------------------------------------------------------------------
@pytest.mark.parametrize("fname", KC.FILES)
def test_kart_content_unknown_top_level_key(tmp_path, fname):
    folder = tmp_path / "kart"
    shutil.copytree(KC.DATA_DIR, folder)
    path = folder / f"{fname}.toml"
    path.write_text("bogus_key = 1\n" + path.read_text())
    with pytest.raises(ContentError, match=rf"{fname}\.toml.*'bogus_key'.*unknown"):
        KC.load_content(str(folder))


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bad", [5, 2.5, True, ["data"], b"data"], ids=repr)
def test_content_argument_type_is_named(name, bad):
    with pytest.raises(TypeError, match="content must be"):
        get_spec(name).make_core(content=bad, **HOOKS[name].extra_args)


# --- the single-seat views and make_vec ----------------------------------------------------
def _env_ids():
    from dungeonrl.envs.dcc_unstoppable.campaign import register_campaign

    register_campaign()
    return sorted(k for k in gym.registry if k.startswith("dungeonrl/"))


@pytest.mark.parametrize("env_id", _env_ids())
def test_make_vec_num_envs_checked_for_every_id(env_id):
    for bad in ("4", 2.5, True, 1000.0, None):
        with pytest.raises(TypeError, match="num_envs"):
            gym.make_vec(env_id, num_envs=bad)
    for bad in (0, -2):
        with pytest.raises(ValueError, match="num_envs"):
            gym.make_vec(env_id, num_envs=bad)
    v = gym.make_vec(env_id, num_envs=np.int64(2))
    assert v.num_envs == 2
    v.close()


def test_selfplay_env_and_vector_seeds_checked():
    env = gym.make("dungeonrl/DungeonKart-v1").unwrapped
    for bad, err in (
        (-1, ValueError),
        (2**64, ValueError),
        (True, TypeError),
        (1.5, TypeError),
        ("3", TypeError),
    ):
        with pytest.raises(err, match=r"seed must be"):
            env.reset(seed=bad)
    env.reset(seed=np.uint64(2**64 - 1))
    env.reset(seed=np.int64(3))
    for bad, err in ((-1, ValueError), (True, TypeError), (2.5, TypeError)):
        with pytest.raises(err, match=r"seed must be"):
            gym.make_vec("dungeonrl/DungeonCrawler-v0", num_envs=1, seed=bad)


@pytest.mark.parametrize("name", GAMES)
def test_auto_advance_and_dict_obs_are_flags(name):
    spec = get_spec(name)
    for bad in ("False", "yes", 2, None, 0.0):
        with pytest.raises(TypeError, match="auto_advance must be True or False"):
            spec.make_core(auto_advance=bad, **HOOKS[name].extra_args)
    assert spec.make_core(auto_advance=np.bool_(False), **HOOKS[name].extra_args).auto_advance == 0
    with pytest.raises(TypeError, match="dict_obs must be True or False"):
        gym.make(spec.env_id, dict_obs="False")
    with pytest.raises(TypeError, match="dict_obs must be True or False"):
        gym.make_vec(spec.env_id, num_envs=1, dict_obs="False")


def test_campaign_wrapper_seed_and_vector():
    from dungeonrl.envs.dcc_unstoppable.campaign import DCCCampaignEnv

    env, other = DCCCampaignEnv(), DCCCampaignEnv()
    env.reset(seed=np.int64(4))  # numpy integers: as every adapter
    other.reset(seed=4)
    x, y = env.state, other.state
    assert all(np.array_equal(x[f], y[f]) for f in x.dtype.names)
    for bad, err in ((2**64, ValueError), (-1, ValueError), (True, TypeError), (1.0, TypeError)):
        with pytest.raises(err, match=r"seed must be"):
            env.reset(seed=bad)


# --- PettingZoo env() -----------------------------------------------------------------------
def test_pettingzoo_env_accepts_what_the_gym_env_accepts():
    from dungeonrl.envs import dungeon_kart_v1

    a = dungeon_kart_v1.env(num_players=2, max_rounds=3)
    b = dungeon_kart_v1.env(num_players=2, max_rounds=3)
    a.reset(seed=1)
    b.reset(seed=1)
    rng = np.random.default_rng(0)
    forms = (
        lambda x: np.array([x]),
        lambda x: np.array([x], np.uint8),
        np.int32,
        lambda x: np.array(x),
    )
    k = 0
    while a.agents:
        ag = a.agent_selection
        if a.terminations[ag] or a.truncations[ag]:
            a.step(None)
            b.step(None)
            continue
        for bad in (np.array([0.0]), np.array([True]), np.array([0, 1]), 1.0, True):
            with pytest.raises(InvalidActionError):
                a.step(bad)
        x = int(rng.choice(np.flatnonzero(a.observe(ag)["action_mask"])))
        a.step(forms[k % len(forms)](x))
        b.step(x)
        k += 1
        assert a.get_state() == b.get_state()
    assert k > 5
    # every agent done: step is refused (PettingZoo: reset first), the env unchanged
    before = a.get_state()
    for act in (None, 0):
        with pytest.raises(ResetNeededError, match="every agent is done"):
            a.step(act)
    assert a.get_state() == before


# --- leftovers: Unbroken and Dungeon Crawler --------------------------------------------------
def _edited(snap, dtype, **fields):
    rec = np.frombuffer(snap.state, dtype).copy()
    for k, v in fields.items():
        rec[0][k] = v
    return dataclasses.replace(snap, state=rec.tobytes())


def test_unbroken_round_at_its_dtype_max_does_not_wrap():
    """A live battle record with ``round = 32767`` (accepted: the field's
    range) must not overflow on the next battle round. A twin record with
    ``round = 100`` plays the same decisions (the count only matters as
    ``round > 0``) and shows that a new round did start."""
    twin, env = (GameEnv("unbroken", {"character": "random"}) for _ in range(2))
    rng = np.random.default_rng(3)
    for seed in range(12):
        env.reset(seed)
        for _ in range(400):
            r = env.record()
            if (int(r["in_battle"]) and int(r["outcome"]) == 0) or env.play(
                rng, 1, check=False
            ) == 0:
                break
        r = env.record()
        if not int(r["in_battle"]) or int(r["outcome"]) != 0:
            continue
        snap = env.snapshot()
        twin.restore(_edited(snap, env.core.state_dtype, round=100))
        env.restore(_edited(snap, env.core.state_dtype, round=32767))
        r_twin, r_env = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(60):
            if twin.play(r_twin, 1, check=False) == 0:
                break
            assert env.play(r_env, 1, check=False) == 1
            rnd = int(env.record()["round"])
            assert rnd >= 0, f"round wrapped to {rnd}"
            env.core.check_state(env.record())
        if int(twin.record()["round"]) > 100:
            return  # a round started: the 32767 record stayed valid
    raise AssertionError("no battle round started in the games played")


def test_unbroken_live_record_at_its_step_cap_is_refused():
    env = GameEnv("unbroken", {"character": "random"})
    env.reset(3)
    env.play(np.random.default_rng(0), 5, check=False)
    snap = env.snapshot()
    rec = np.frombuffer(snap.state, env.core.state_dtype)
    assert int(rec[0]["outcome"]) == 0
    before = env.snapshot()
    bad = _edited(snap, env.core.state_dtype, steps=int(rec[0]["max_steps"]))
    with pytest.raises(CorruptStateError, match="'steps'.*step cap"):
        env.restore(bad)
    assert env.snapshot() == before


def test_dungeon_crawler_str_bonus_cannot_wrap():
    from dungeonrl.envs.dungeon_crawler import validate as DV

    env = GameEnv("dungeon_crawler", HOOKS["dungeon_crawler"].configs[0])
    snap = reached_snapshots("dungeon_crawler", HOOKS["dungeon_crawler"].configs[0], 1, seed=3)[0]
    dt = env.core.state_dtype
    rec = np.frombuffer(snap.state, dt)
    for v in (127, getattr(DV, "ADD_MAX", 126) + 1):
        sb = rec[0]["str_bonus"].copy()
        sb[0] = v
        with pytest.raises(CorruptStateError, match="'str_bonus'"):
            env.restore(_edited(snap, dt, str_bonus=sb))
    # the bound leaves room for a full hand of Potions of Strength in int8
    assert DV.ADD_MAX + DV.MOD_MAX <= 127
