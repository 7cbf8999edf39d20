"""Hypothesis fuzz of constructor arguments and seeds, for every registered
game and adapter: a documented value works, anything else is a
``TypeError`` / ``ValueError`` naming the argument (never a crash later, a
silent truncation or an OverflowError)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzz_profiles  # noqa: F401  (Hypothesis profiles)
from dungeonrl.benchmarks.fuzz import HOOKS, GameEnv, seed_case, seed_ok
from dungeonrl.envs.core.validate import INT32_MAX, MAX_NUM_ENVS
from dungeonrl.benchmarks.fuzz import games as list_games
from dungeonrl.registry import get_spec

INTS = st.one_of(st.integers(-2**70, 2**70), st.sampled_from([0, 1, 2**31 - 1, 2**31, 2**63,
                                                              2**64 - 1, 2**64, -1]))
SEEDS = st.one_of(
    st.none(), INTS, st.booleans(), st.floats(allow_nan=True), st.text(max_size=3),
    st.integers(0, 2**64 - 1).map(np.uint64), st.integers(-2**31, 2**31 - 1).map(np.int32),
    st.integers(-2**63, 2**63 - 1).map(np.int64), st.just(np.random.default_rng(0)),
    st.lists(st.integers(0, 5), max_size=2))
ANY_ARG = st.one_of(INTS, st.booleans(), st.floats(), st.text(max_size=3), st.none(),
                    st.integers(-5, 5).map(np.int64))
_ENVS = {}


def _env(name):
    if name not in _ENVS:
        _ENVS[name] = GameEnv(name, HOOKS[name].configs[0])
    return _ENVS[name]


@pytest.mark.parametrize("name", list_games())
@given(seed=SEEDS)
def test_fuzz_reset_seed(name, seed):
    assert seed_case(_env(name), seed) in ("refused", "played")


def _int_ok(v, lo, hi):
    return (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
            and lo <= int(v) <= hi)


@pytest.mark.parametrize("name", list_games())
@given(v=ANY_ARG)
def test_fuzz_max_steps(name, v):
    spec = get_spec(name)
    try:
        core = spec.make_core(max_steps=v, **HOOKS[name].extra_args)
    except (TypeError, ValueError) as e:
        assert not _int_ok(v, 1, INT32_MAX), f"max_steps={v!r} refused: {e}"
        assert "max_steps" in str(e)
        return
    assert _int_ok(v, 1, INT32_MAX), f"max_steps={v!r} accepted"
    assert core.max_steps == int(v)


@given(v=ANY_ARG)
def test_fuzz_num_envs(v):
    from dungeonrl.envs.core.vector import DungeonVectorEnv
    ok = _int_ok(v, 1, MAX_NUM_ENVS)
    if ok and int(v) > 64:      # valid, but do not allocate large batches in a test
        return
    try:
        env = DungeonVectorEnv("unbroken", num_envs=v)
    except (TypeError, ValueError) as e:
        assert not ok, f"num_envs={v!r} refused: {e}"
        assert "num_envs" in str(e)
        return
    assert ok, f"num_envs={v!r} accepted"
    assert env.num_envs == int(v)


_VEC = {}


def _vec():
    if not _VEC:
        from dungeonrl.envs.core.vector import DungeonSB3VecEnv, DungeonVectorEnv
        _VEC["vector"] = DungeonVectorEnv("unbroken", num_envs=2)
        _VEC["sb3"] = DungeonSB3VecEnv("unbroken", num_envs=2)
    return _VEC


@given(seed=SEEDS)
def test_fuzz_vector_and_sb3_seeds(seed):
    """The vector env's ``reset(seed=)`` and the SB3 VecEnv's ``seed()`` (what
    its constructor calls) with the same values."""
    s = seed
    if isinstance(s, list):       # the vector env takes one seed per env
        ok_vec = len(s) == 2 and all(seed_ok(x) and x is not None for x in s)
    else:
        ok_vec = seed_ok(s)
    envs = _vec()

    def sb3():
        envs["sb3"].seed(s)
        envs["sb3"].reset()
    cases = ((lambda: envs["vector"].reset(seed=s), ok_vec),
             (sb3, not isinstance(s, list) and seed_ok(s)))
    for make, ok in cases:
        try:
            make()
        except (TypeError, ValueError) as e:
            assert not ok, f"seed {s!r} refused: {e}"
            assert "seed" in str(e), str(e)
            continue
        assert ok, f"seed {s!r} accepted"
