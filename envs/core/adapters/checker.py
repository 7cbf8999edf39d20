"""A conformance checker for native vector envs, in the spirit of
``gymnasium.utils.env_checker.check_env`` (which only takes single envs).

:func:`check_vector_env` runs a short masked-random rollout and asserts what
every game's :class:`~dungeonrl.envs.core.adapters.vector.DungeonVectorEnv` must
satisfy: declared same-step autoreset, consistent single and batched spaces,
seeded resets that are reproducible (``reset(seed=s)`` then ``reset()`` too),
deterministic steps, returned data that is fresh on every call, and infos
whose ``_key`` flags match the episodes that ended. Game conformance suites
call it for every registered game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .vector import SAME_STEP

__all__ = ["check_vector_env"]


def _arrays(x) -> list:
    if isinstance(x, np.ndarray):
        return [x] if x.dtype != object else [a for v in x if v is not None for a in _arrays(v)]
    if isinstance(x, dict):
        return [a for v in x.values() for a in _arrays(v)]
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in _arrays(v)]
    return []


def _same(x, y) -> bool:
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, np.ndarray) and x.dtype == object:
        return x.shape == y.shape and all(_same(a, b) for a, b in zip(x, y))
    if isinstance(x, np.ndarray):
        return isinstance(y, np.ndarray) and x.dtype == y.dtype and np.array_equal(x, y)
    return x == y


def _masked_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    u = rng.random(masks.shape)
    u[masks == 0] = -1.0
    return u.argmax(axis=1).astype(np.int64)


def _rollout(env, seed: int, steps: int) -> list:
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    out: list[Any] = [(obs, infos)]
    for _ in range(steps):
        out.append(env.step(_masked_actions(rng, infos["action_mask"])))
        infos = out[-1][4]
    return out


def check_vector_env(env, seed: int = 123, steps: int = 50) -> dict:
    """Assert the vector-env conventions on ``env`` (raises AssertionError).

    Returns ``{"steps": steps, "episodes_ended": k}`` so a caller can demand
    that the rollout was long enough to exercise the autoreset path."""
    n = env.num_envs
    assert env.metadata.get("autoreset_mode") is SAME_STEP, "autoreset_mode must be SAME_STEP"
    assert env.observation_space.shape is None or env.observation_space.shape[0] == n
    assert env.action_space.shape == (n,), f"batched action space shape {env.action_space.shape}"
    num_actions = int(env.single_action_space.n)

    # seeded resets, and unseeded resets that follow the seeded np_random
    o1, _ = env.reset(seed=seed)
    o2, _ = env.reset()
    o3, _ = env.reset(seed=seed)
    o4, _ = env.reset()
    assert _same(o1, o3), "reset(seed=s) is not reproducible"
    assert _same(o2, o4), "reset(seed=s); reset() is not reproducible"
    assert o1 in env.observation_space, "reset observation outside observation_space"

    run1 = _rollout(env, seed, steps)
    run2 = _rollout(env, seed, steps)
    ended = 0
    for t, (a, b) in enumerate(zip(run1, run2)):
        assert all(_same(x, y) for x, y in zip(a, b)), f"step {t} not deterministic"
        obs, infos = a[0], a[-1]
        assert obs in env.observation_space, f"step {t}: observation outside observation_space"
        mask = infos["action_mask"]
        assert mask.shape == (n, num_actions) and mask.dtype == np.int8
        assert mask.any(axis=1).all(), f"step {t}: an env has no legal action after autoreset"
        for key in infos:
            if not key.startswith("_"):
                assert f"_{key}" in infos, f"info {key!r} has no _{key} flags"
                assert infos[f"_{key}"].shape == (n,) and infos[f"_{key}"].dtype == bool
        if len(a) == 5:
            _, rew, term, trunc, _ = a
            assert rew.shape == (n,) and term.dtype == bool and trunc.dtype == bool
            done = term | trunc
            ended += int(done.sum())
            if done.any():
                assert np.array_equal(infos["_final_obs"], done)
                assert np.array_equal(infos["_final_info"], done)
                for i in range(n):
                    fo = infos["final_obs"][i]
                    assert (fo is None) != bool(done[i])
                    if fo is not None:
                        assert fo in env.single_observation_space
            else:
                assert "final_obs" not in infos and "final_info" not in infos

    # nothing returned shares memory with anything else returned: sort the
    # arrays' byte ranges and look for overlaps (O(k log k) over all of them)
    spans = sorted(
        _byte_bounds(a) for step in run1 for part in step for a in _arrays(part) if a.size
    )
    for (_lo1, hi1), (lo2, _hi2) in zip(spans, spans[1:]):
        assert lo2 >= hi1, "returned arrays share memory"
    return {"steps": steps, "episodes_ended": ended}


try:
    from numpy.lib.array_utils import byte_bounds as _byte_bounds
except ImportError:  # numpy < 2: the NumPy 1 name (NumPy 2's stubs no longer declare it)
    _byte_bounds = np.byte_bounds  # type: ignore[attr-defined,unused-ignore]  # noqa: NPY201
