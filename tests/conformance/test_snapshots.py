"""Conformance suite: snapshot / restore through ``get_state`` / ``set_state``;
snapshots of another game or layout, or corrupted, are refused (TESTING.md 4).

Shared set-up: ``tests/helpers/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers.conformance_common import (
    GAMES,
    _aec_config,
    _figures,
    _multi_agent,
    aec_action,
    aec_done,
    aec_view,
    get_core,
    hooks,
    make_env,
    random_legal,
    rbytes,
    sampled_states,
    spec_of,
)

from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.errors import CorruptStateError, SnapshotError
from dungeonrl.envs.core.snapshot import Snapshot


# =====================================================================================
# 4. snapshot / restore
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_snapshot_restore_replays_identically(name):
    """Snapshot after chance was consumed, run k steps, restore (from the
    object, from bytes, into a fresh env), replay the same actions:
    identical observations, rewards, flags and masks every time. Multi-agent
    games: through the AEC env, every seat's observation and mask compared."""
    h = hooks(name)
    if _multi_agent(name):
        return _snapshot_restore_aec(name, h)
    if any(_aec_config(name, cfg) for cfg in h.configs):
        _snapshot_restore_aec(name, h)  # the configurations with more seats
    restores = 0
    configs = [cfg for cfg in h.configs if not _aec_config(name, cfg)]
    for cfg in configs:
        env = DungeonEnv(name, **cfg)
        fresh = DungeonEnv(name, **cfg)
        for seed in range(12):
            rng = np.random.default_rng(seed)
            obs, info = env.reset(seed=seed)
            chance0 = {f: env._buf.states[0][f].copy() for f in h.chance_fields}
            done = False
            consumed = False
            for _ in range(200):
                a = int(random_legal(rng, info["action_mask"][None])[0])
                obs, r, term, trunc, info = env.step(a)
                done = term or trunc
                consumed = any(
                    not np.array_equal(env._buf.states[0][f], chance0[f]) for f in h.chance_fields
                )
                if done or (consumed and rng.random() < 0.3):
                    break
            if done or not consumed:
                continue
            snap = env.get_state()
            assert Snapshot.from_bytes(snap.to_bytes()) == snap, "snapshot bytes round-trip"
            actions, ref = [], []
            for _ in range(int(rng.integers(3, 12))):
                a = int(random_legal(rng, info["action_mask"][None])[0])
                actions.append(a)
                obs, r, term, trunc, info = env.step(a)
                ref.append(
                    (
                        obs.copy(),
                        r,
                        term,
                        trunc,
                        info["action_mask"].copy(),
                        info["illegal_action"],
                        rbytes(env._buf.states),
                    )
                )
                if term or trunc:
                    break
            for target, src in ((env, snap), (env, snap.to_bytes()), (fresh, snap)):
                target.set_state(src)
                assert target.get_state() == snap
                for a, (o, r, te, tr, m, il, raw) in zip(actions, ref):
                    o2, r2, te2, tr2, info2 = target.step(a)
                    assert np.array_equal(o, o2) and r == r2 and te == te2 and tr == tr2
                    assert np.array_equal(m, info2["action_mask"])
                    assert il == info2["illegal_action"]
                    assert raw == rbytes(target._buf.states), "restored record diverged"
                restores += 1
    assert restores >= 3 * len(configs)
    _figures(f"snapshot/restore {name}", restores=restores, divergences=0)


def _snapshot_restore_aec(name, h):
    """test_snapshot_restore_replays_identically through the AEC env (the
    configurations played through it: ``_aec_config``)."""
    restores = 0
    configs = [cfg for cfg in h.configs if _aec_config(name, cfg)]
    for cfg in configs:
        env = make_env(name, **cfg)
        fresh = make_env(name, **cfg)
        for seed in range(8):
            rng = np.random.default_rng(seed)
            env.reset(seed=seed)
            chance0 = {f: env._states[0][f].copy() for f in h.chance_fields}
            # creation or dungeon; every other seed stays early, so short
            # games (a few rounds) still give snapshots of running games
            hi = cfg.get("max_steps", 200) if seed % 2 == 0 else 40
            depth = int(rng.integers(1, hi))
            done = consumed = False
            for _t in range(depth):
                env.step(aec_action(env, rng))
                done = aec_done(env)
                consumed = any(
                    not np.array_equal(env._states[0][f], chance0[f]) for f in h.chance_fields
                )
                if done:
                    break
            if done or not consumed:
                continue
            snap = env.get_state()
            assert Snapshot.from_bytes(snap.to_bytes()) == snap, "snapshot bytes round-trip"
            actions, ref = [], []
            for _ in range(int(rng.integers(3, 12))):
                a = aec_action(env, rng)
                actions.append(a)
                env.step(a)
                ref.append(aec_view(env))
                if aec_done(env):
                    break
            for target, src in ((env, snap), (env, snap.to_bytes()), (fresh, snap)):
                target.set_state(src)
                assert target.get_state() == snap
                for a, r in zip(actions, ref):
                    target.step(a)
                    assert aec_view(target) == r, "restored env diverged"
                restores += 1
    assert restores >= 3 * len(configs)
    _figures(f"snapshot/restore {name} (AEC)", restores=restores, divergences=0)


@pytest.mark.parametrize("name", GAMES)
def test_snapshot_rejects_other_game_layout_and_corruption(name):
    h = hooks(name)
    spec = spec_of(name)
    env = make_env(name, **h.default_config)
    env.reset(seed=3)
    snap = env.get_state()
    for bad in (
        dataclasses.replace(snap, game=spec.name + "_other"),
        dataclasses.replace(snap, layout_version="0" * 16),
        dataclasses.replace(snap, state=snap.state[:-1]),
    ):
        with pytest.raises(SnapshotError):
            env.set_state(bad)
        with pytest.raises(SnapshotError):
            env.set_state(bad.to_bytes())
    for junk in (b"", b"not a snapshot", snap.to_bytes()[:-5], snap.to_bytes()[:20]):
        with pytest.raises(SnapshotError):
            env.set_state(junk)
    with pytest.raises(SnapshotError):
        env.set_state({"state": snap.state})
    # another registered game's snapshot (when there is one) is rejected too
    for other in GAMES:
        if other != name:
            oe = make_env(other)
            oe.reset(seed=0)
            with pytest.raises(SnapshotError):
                env.set_state(oe.get_state())
    envs = {}
    if spec.max_players > 1:  # a snapshot of another table size is another game
        for cfg in h.configs:
            e = make_env(name, **cfg)
            e.reset(seed=4)
            seats = getattr(e, "num_seats", 1)  # (DungeonEnv: one seat)
            if seats != getattr(env, "num_seats", 1):
                with pytest.raises(SnapshotError):
                    env.set_state(e.get_state())
            envs.setdefault(seats, e)
    n = 0
    for ci, row in sampled_states(name)[::5]:
        if envs:  # each env takes records of its own table size
            env = envs[get_core(name, h.configs[ci]).num_players]
        for label, rec in h.corruptions(get_core(name, h.default_config), row):
            before = env.get_state()
            with pytest.raises(CorruptStateError):
                env.set_state(dataclasses.replace(snap, state=rec.tobytes()))
            assert env.get_state() == before, f"{label}: a failed restore changed the env"
            n += 1
    _figures(f"snapshot rejection {name}", corrupted_records_rejected=n)
