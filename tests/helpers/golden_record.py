"""Golden trajectories: hashes of whole seeded random games, recorded before
a refactor and checked after it (``tests/golden/test_golden.py``).

Each configuration plays seeded games with uniformly random *legal* actions
(drawn from a numpy Generator seeded per game, so the action sequence depends
only on the game's own masks) through the public APIs: the Gymnasium env,
the native vector env and the PettingZoo AEC env. Every observation, mask,
reward, termination and truncation is fed into one SHA-256 per
configuration. A behaviour-preserving change keeps every hash.

Regenerate (only when behaviour changes on purpose, with a version bump)::

    python -m tests.helpers.golden_record  # writes tests/golden/trajectories.json
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).parents[1] / "golden" / "trajectories.json"

UNBROKEN_CONFIGS = [
    dict(character=c, difficulty=d, reward=r)
    for c in ("sneak", "sage", "hunter", "brawler")
    for d in ("easy", "normal", "hard")
    for r in ("win_loss",)
] + [dict(character="random", difficulty="normal", reward="score")]
DC_PLAYERS = (2, 3, 4, 5, 6, 7, 8)
KART_PLAYERS = (2, 4, 8)
DCC_SOLO = [dict(floor=f, difficulty=d) for f, d in ((1, "normal"), (2, "hard"), (3, "expert"))]


def _feed(h, *arrays):
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode())
        h.update(a.tobytes())


def unbroken_single(cfg: dict, games: int) -> str:
    return gym_hash("dungeonrl/Unbroken-v0", cfg, games)


def gym_hash(env_id: str, cfg: dict, games: int) -> str:
    """Whole random games of a one-seat Gymnasium env."""
    import gymnasium as gym

    import dungeonrl  # noqa: F401

    env = gym.make(env_id, **cfg)
    h = hashlib.sha256()
    for g in range(games):
        rng = np.random.default_rng(1000 + g)
        obs, info = env.reset(seed=g)
        _feed(h, obs, info["action_mask"])
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            a = int(rng.choice(legal))
            obs, r, te, tr, info = env.step(a)
            _feed(h, obs, info["action_mask"], np.float64(r), np.int8([te, tr]))
            done = te or tr
    env.close()
    return h.hexdigest()


def unbroken_vector(num_envs: int, steps: int) -> str:
    return vector_hash(
        "dungeonrl/Unbroken-v0", dict(difficulty="hard", character="hunter"), num_envs, steps
    )


def vector_hash(env_id: str, cfg: dict, num_envs: int, steps: int) -> str:
    """The native vector env (batched kernels, autoreset) under random play."""
    import gymnasium as gym

    import dungeonrl  # noqa: F401

    vec = gym.make_vec(env_id, num_envs=num_envs, **cfg)
    h = hashlib.sha256()
    rng = np.random.default_rng(7)
    obs, infos = vec.reset(seed=11)
    _feed(h, obs, infos["action_mask"])
    for _ in range(steps):
        m = infos["action_mask"]
        a = np.array([rng.choice(np.flatnonzero(row)) for row in m], dtype=np.int64)
        obs, r, te, tr, infos = vec.step(a)
        _feed(h, obs, infos["action_mask"], r, te, tr)
    vec.close()
    return h.hexdigest()


def dc_aec(num_players: int, games: int) -> str:
    return aec_hash("dungeon_crawler_v0", dict(num_players=num_players), games, 5000)


def aec_hash(module: str, cfg: dict, games: int, policy_seed: int) -> str:
    """Whole random games of a PettingZoo AEC env (``dungeonrl.envs.<module>``)."""
    import importlib

    env = importlib.import_module(f"dungeonrl.envs.{module}").env(**cfg)
    h = hashlib.sha256()
    for g in range(games):
        rng = np.random.default_rng(policy_seed + g)
        env.reset(seed=g)
        for _agent in env.agent_iter():
            obs, r, te, tr, info = env.last()
            _feed(h, obs["observation"], obs["action_mask"], np.float64(r), np.int8([te, tr]))
            if te or tr:
                a = None
            else:
                a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(a)
    env.close()
    return h.hexdigest()


def compute(small: bool = False) -> dict:
    n_unb, n_dc = (6, 2) if small else (40, 8)
    out = {}
    for cfg in UNBROKEN_CONFIGS:
        key = "unbroken/" + ",".join(f"{k}={v}" for k, v in cfg.items())
        out[key] = unbroken_single(cfg, n_unb)
    out["unbroken/vector64"] = unbroken_vector(64, 60 if small else 300)
    for p in DC_PLAYERS:
        out[f"dungeon_crawler/aec,players={p}"] = dc_aec(p, n_dc)
    for p in KART_PLAYERS:
        out[f"dungeon_kart/aec,players={p}"] = aec_hash(
            "dungeon_kart_v1", dict(num_players=p), n_dc, 7000
        )
    for cfg in DCC_SOLO:
        key = "dcc_unstoppable/" + ",".join(f"{k}={v}" for k, v in cfg.items())
        out[key] = gym_hash("dungeonrl/DCCUnstoppable-v1", cfg, n_dc)
    out["dcc_unstoppable/vector16"] = vector_hash(
        "dungeonrl/DCCUnstoppable-v1", dict(floor=2, difficulty="normal"), 16, 60 if small else 300
    )
    out["dcc_unstoppable/aec,players=2"] = aec_hash(
        "dcc_unstoppable_v1", dict(num_players=2), n_dc, 9000
    )
    return out


if __name__ == "__main__":
    GOLDEN.parent.mkdir(exist_ok=True)
    data = {"small": compute(small=True), "full": compute(small=False)}
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(json.dumps(data, indent=1))
