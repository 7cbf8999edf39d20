"""Conformance suite: determinism across batch sizes, order, processes and numba
threads; different seeds differ in later chance; no hidden global state; JIT
vs interpreter (TESTING.md 3, 5, 12).

Shared set-up: ``tests/helpers/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import functools
import os
import random

import numpy as np
import pytest
from helpers.conformance_common import (
    GAMES,
    ROOT,
    Batch,
    _collect,
    _config_id,
    _figures,
    _subprocess,
    get_core,
    hooks,
    random_legal,
    rbytes,
    record_rows,
    trajectory_hashes,
)

from dungeonrl import registry


# =====================================================================================
# 3. determinism
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_determinism_batch_size_and_order(name):
    """Row i's trajectory hash is the same whether its game runs in a batch
    of 64, in batches of 7, alone, or with the rows reversed; different
    seeds give different trajectories."""
    h = hooks(name)
    n_seeds = 0
    for ci, cfg in enumerate(h.configs):
        seeds = list(range(1000 * ci + 11, 1000 * ci + 11 + 64))
        ref = trajectory_hashes(name, cfg, seeds, 100)
        for kw, sub in (
            ({"batch": 7}, seeds),
            ({"batch": 1}, seeds[:16]),
            ({"reverse": True}, seeds),
            ({"batch": 7, "reverse": True}, seeds),
        ):
            got = trajectory_hashes(name, cfg, sub, 100, **kw)
            diff = [s for s in sub if got[s] != ref[s]]
            assert not diff, f"{_config_id(cfg)} {kw}: seeds {diff[:8]} differ from batch 64"
        assert len(set(ref.values())) == len(seeds), "two seeds gave identical trajectories"
        n_seeds += len(seeds)
    _figures(
        f"determinism {name}",
        seeds=n_seeds,
        steps_each=100,
        layouts="64/7/1/reversed",
        divergences=0,
    )


@pytest.mark.parametrize("name", GAMES)
def test_determinism_across_processes_and_threads(name):
    """The same hashes in this process and in two fresh processes run with
    NUMBA_NUM_THREADS=1 and NUMBA_NUM_THREADS=2."""
    h = hooks(name)
    jobs = [
        {"key": str(ci), "cfg": cfg, "seeds": list(range(40 + ci, 56 + ci)), "steps": 100}
        for ci, cfg in enumerate(h.configs)
    ]
    procs = {
        th: _subprocess(
            {"what": "hashes", "name": name, "jobs": jobs}, {"NUMBA_NUM_THREADS": str(th)}
        )
        for th in (1, 2)
    }
    ref = {
        j["key"]: {
            str(k): v for k, v in trajectory_hashes(name, j["cfg"], j["seeds"], j["steps"]).items()
        }
        for j in jobs
    }
    for th, p in procs.items():
        got = _collect(p)
        assert got["threads"] == th and not got["jit_disabled"]
        assert got["hashes"] == ref, f"NUMBA_NUM_THREADS={th}: trajectories differ"
    _figures(
        f"determinism across processes {name}",
        seeds=sum(len(j["seeds"]) for j in jobs),
        processes=3,
        thread_counts="1,2",
        divergences=0,
    )


def _strip(states, fields):
    """Copy of ``states`` with ``fields`` zeroed (to compare the rest)."""
    s = states.copy()
    for f in fields:
        s[f] = 0
    return s


@pytest.mark.parametrize("name", GAMES)
def test_different_seeds_differ_in_later_chance(name):
    """Chance after the deal comes from each game's own generator: a game
    whose generator is swapped for another seed's continues differently
    (same deal, same actions), and successive episodes of one seed stream
    get different deals."""
    h = hooks(name)
    assert h.chance_fields, "hooks must name the generator fields"
    cfg = h.configs[0]
    core = get_core(name, cfg)
    n = 48
    a = Batch(core, n)
    a.reset(np.arange(n) + 300)
    other = Batch(core, n)
    other.reset(np.arange(n) + 900)
    b = Batch(core, n)
    b.states[:] = a.states
    for f in h.chance_fields:
        b.states[f] = other.states[f]
    b.refresh()
    a.refresh()
    fields = tuple(h.chance_fields)
    diverged = np.zeros(n, bool)
    rng = np.random.default_rng(3)
    for _t in range(200):
        acts = random_legal(rng, a.masks)
        same_mask = (a.masks == b.masks).all(axis=1)
        diverged |= ~same_mask
        acts_b = np.where(same_mask, acts, random_legal(rng, b.masks))
        a.step(acts)
        b.step(acts_b)
        a.refresh()
        b.refresh()
        sa, sb = _strip(a.states, fields), _strip(b.states, fields)
        diverged |= (record_rows(sa) != record_rows(sb)).any(axis=1)
        if (~a.masks.any(1) & ~b.masks.any(1)).all():
            break
    assert diverged.mean() >= 0.9, (
        f"only {int(diverged.sum())}/{n} games diverged after swapping the generator"
    )
    # successive episodes of one seed stream get different deals
    b1 = Batch(core, 4)
    b1.reset([5, 5, 6, 6])
    starts = [rbytes(_strip(b1.states[:1], fields + ("episode",)))]
    rng = np.random.default_rng(4)
    episodes = 0
    for _ in range(4000):
        acts = random_legal(rng, b1.masks)
        acts[1], acts[3] = acts[0], acts[2]  # rows 0, 1 (and 2, 3) share a seed
        b1.step_autoreset(acts)
        ended = b1.terminated | b1.truncated
        if ended[0]:
            starts.append(rbytes(_strip(b1.states[:1], fields + ("episode",))))
            episodes += 1
        if episodes >= 12:
            break
    assert len(set(starts)) == len(starts), "two episodes of one seed stream started alike"
    rows = record_rows(b1.states)
    assert (rows[0] == rows[1]).all(), "one seed, two different streams"
    assert (rows[0] != rows[2]).any(), "two seeds, one stream"
    _figures(
        f"later chance {name}",
        games=n,
        diverged=int(diverged.sum()),
        episode_starts_distinct=len(starts),
    )


# =====================================================================================
# 5. no hidden global state
# =====================================================================================
def _disturb_impl(seed):
    np.random.seed(seed)
    s = 0.0
    for _ in range(17):
        s += np.random.random()
    return s


@functools.cache
def _disturber():
    from numba import njit

    return njit(_disturb_impl)


def disturb(seed):
    """Reseed and draw from numba's global RNG, numpy's and Python's."""
    _disturber()(seed)
    np.random.seed(seed % (2**32))
    np.random.random(5)
    random.seed(seed)
    random.random()


@pytest.mark.parametrize("name", GAMES)
def test_no_hidden_global_state(name):
    """Stepping a batch and its copy with numba's (and numpy's, Python's)
    global RNG reseeded in between gives identical records and outputs, for
    reset, step and step_autoreset."""
    h = hooks(name)
    steps = 0
    for ci, cfg in enumerate(h.configs):
        core = get_core(name, cfg)
        a, b = Batch(core, 32), Batch(core, 32)
        seeds = np.arange(32) + 77 * ci
        disturb(1)
        a.reset(seeds)
        disturb(2)
        b.reset(seeds)
        assert rbytes(a.states) == rbytes(b.states)
        rng = np.random.default_rng(ci)
        for t in range(200):  # fused kernel: many episodes per row
            acts = random_legal(rng, a.masks)
            disturb(10 + t)
            a.step_autoreset(acts)
            disturb(100_000 + t)
            b.step_autoreset(acts)
            assert rbytes(a.states) == rbytes(b.states), f"step {t}: records differ"
            for x in ("obs", "masks", "rewards", "terminated", "truncated", "illegal", "final_obs"):
                assert np.array_equal(getattr(a, x), getattr(b, x)), f"step {t}: {x} differ"
            steps += 32
        a.reset(seeds + 1)
        b.reset(seeds + 1)
        for t in range(200):  # plain step + observe + mask, to the end of each game
            if not a.masks.any():
                break
            acts = random_legal(rng, a.masks)
            disturb(20 + t)
            a.step(acts)
            a.refresh()
            disturb(200_000 + t)
            b.step(acts)
            disturb(3)
            b.refresh()
            assert rbytes(a.states) == rbytes(b.states), f"step {t}: records differ"
            for x in ("obs", "masks", "rewards", "terminated", "truncated", "illegal"):
                assert np.array_equal(getattr(a, x), getattr(b, x)), f"step {t}: {x} differ"
            steps += 32
    _figures(f"global state {name}", row_steps=steps, divergences=0)


# =====================================================================================
# 11. JIT vs interpreter
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_jit_matches_interpreter(name):
    """Short seeded games give the same trajectory hashes compiled and
    under NUMBA_DISABLE_JIT=1 (states wrapped by the field-first record
    harness); the interpreted run also reports line coverage of the game."""
    h = hooks(name)
    jobs = []
    for ci, cfg in enumerate(h.configs[:2]):
        c = dict(cfg, **h.short_config)
        jobs.append({"key": str(ci), "cfg": c, "seeds": [3 + ci, 17, 101], "steps": 70})
    # (the first job runs traced, for the line-coverage figure)
    import importlib

    pkg = os.path.dirname(importlib.import_module(registry.game_module(name)).__file__)
    enc = os.path.join(ROOT, "encoders")
    p = _subprocess(
        {"what": "hashes", "name": name, "jobs": jobs, "coverage": [pkg, enc]},
        {"NUMBA_DISABLE_JIT": "1"},
    )
    ref = {
        j["key"]: {
            str(k): v for k, v in trajectory_hashes(name, j["cfg"], j["seeds"], j["steps"]).items()
        }
        for j in jobs
    }
    got = _collect(p, timeout=600)
    assert got["jit_disabled"], "the subprocess did not run with the JIT disabled"
    assert got["hashes"] == ref, "compiled and interpreted trajectories differ"
    cov = {
        k: f"{a}/{b}"
        for k, (a, b) in sorted((got["coverage"] or {}).items())
        if "rules" in os.path.basename(k) or k.startswith("encoders")
    }
    _figures(
        f"jit==interpreter {name}",
        seeds=sum(len(j["seeds"]) for j in jobs),
        steps_each=70,
        line_coverage=cov,
    )
