"""The per-core shared batch (``envs/core/batch.py``, :func:`core_batch`)
lives as long as its core: a process that builds and drops cores (a sweep
over configurations, a server that makes an env per game) keeps a table of
the cores still alive, not of every core it ever built."""

from __future__ import annotations

import copy
import gc
import pickle
import tracemalloc
import weakref

import gymnasium as gym
import numpy as np
import pytest
from helpers import fixture_team as ft

import dungeonrl  # noqa: F401  (registers the env ids)
from dungeonrl.agents.policy import RandomAgent
from dungeonrl.envs.core.adapters.aec import DungeonAECEnv
from dungeonrl.envs.core.adapters.selfplay import SelfPlayView
from dungeonrl.envs.core.batch import SharedCalls, core_batch, shared_batches
from dungeonrl.registry import get_spec, list_games

GAMES = list_games()


def _run_core(name: str):
    """A fresh core of ``name`` that ran kernels through its shared batch."""
    spec = get_spec(name)
    core = spec.make_core()
    states = core.alloc(3)
    core.reset(states, np.arange(3, dtype=np.uint64))
    masks = np.zeros((3, spec.num_actions), np.int8)
    core.legal_mask(states, masks)
    obs = np.zeros((3, spec.obs_size), np.float32)
    core.observe(states, np.zeros(3, np.int64), obs)
    return core


@pytest.mark.parametrize("name", GAMES)
def test_dropped_cores_leave_the_shared_table(name):
    gc.collect()
    before = shared_batches()
    refs = []
    for _ in range(6):
        core = _run_core(name)
        assert shared_batches() == before + 1
        refs.append(weakref.ref(core))
        del core
        gc.collect()
    assert [r() for r in refs] == [None] * len(refs), "a dropped core is still alive"
    assert shared_batches() == before


def test_building_and_dropping_cores_keeps_memory_flat():
    """Many cores built and dropped in a loop: the memory traced after 30
    more rounds is what it was after the first few (each leaked core would
    keep its content tables and records, tens of kilobytes)."""
    name = "dcc_unstoppable"
    for _ in range(3):  # warm-up: caches of the first use
        _run_core(name)
    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        for _ in range(30):
            _run_core(name)
        gc.collect()
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert after - base < 64 * 1024, f"memory grew by {after - base} bytes over 30 cores"


def test_envs_built_and_closed_in_a_loop_free_their_cores():
    gc.collect()
    before = shared_batches()
    refs = []
    for i in range(4):
        env = gym.make("dungeonrl/DungeonKart-v1")
        env.reset(seed=i)
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        refs.append(weakref.ref(env.unwrapped.core))
        env.close()
        vec = gym.make_vec("dungeonrl/DCCUnstoppable-v1", num_envs=2)
        vec.reset(seed=i)
        refs.append(weakref.ref(vec.unwrapped.core))
        vec.close()
        aec = DungeonAECEnv(ft.make_core())
        aec.reset(seed=i)
        refs.append(weakref.ref(aec.core))
        del env, vec, aec
        gc.collect()
    assert [r() for r in refs] == [None] * len(refs)
    assert shared_batches() == before


def test_the_shared_batch_is_one_per_core_and_holds_it_weakly():
    core = ft.make_core()
    b = core_batch(core)
    assert isinstance(b, SharedCalls) and b is core_batch(core) and b.core is core
    assert b.n is None
    with pytest.raises(TypeError, match="core_batch"):
        SharedCalls(core, 2)
    ref = weakref.ref(core)
    del core
    gc.collect()
    assert ref() is None
    with pytest.raises(ReferenceError, match="freed"):
        b.core  # noqa: B018


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_self_play_view_copies_with_its_cores_shared_batch(how):
    """A view holds the shared batch (and its core): a copy holds the shared
    batch of the copy's core, and plays the same game."""
    team = get_spec("dungeon_crawler").make_core()  # (the team fixture has a lambda: no pickle)
    view = SelfPlayView(team, 2, [RandomAgent(seed=1)])
    view.reset(np.array([5, 6], np.uint64))
    c = copy.deepcopy(view) if how == "deepcopy" else pickle.loads(pickle.dumps(view))
    assert c.batch is core_batch(c.core) and c.batch.core is c.core
    assert (c.core is team) == (how == "deepcopy")  # a deep copy shares the core
    for _ in range(5):
        for v in (view, c):
            v.actions[:] = v.masks.argmax(axis=1)
            v.fused_step()
    assert c.states.tobytes() == view.states.tobytes()
