"""The PettingZoo-style module of a multi-seat game, written once.

``envs/<game>_v0.py`` calls :func:`define` with the game's spec; it gets
``env()`` (a :class:`~.aec.CheckedAECEnv`: the raw AEC env with the checks of
PettingZoo's ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper`` built
in, without their per-call wrapper layers), ``raw_env()``,
``parallel_env()`` (the turn-based parallel form) and its id registered in
PettingZoo's AEC and parallel registries (``pettingzoo.make("aec", id)``)
when the installed PettingZoo has them.
"""

from __future__ import annotations

from .aec import CheckedAECEnv, DungeonAECEnv
from .parallel import DungeonParallelEnv


def define(spec, module_name: str, default_players: int) -> dict:
    """The module functions of ``spec``'s game (a dict to merge into the
    module's globals) and its PettingZoo registration."""

    def raw_env(num_players: int = default_players, render_mode=None, **kwargs):
        return DungeonAECEnv(spec, render_mode=render_mode, num_players=num_players, **kwargs)

    def env(num_players: int = default_players, render_mode=None, **kwargs):
        return CheckedAECEnv(spec, render_mode=render_mode, num_players=num_players, **kwargs)

    def parallel_env(num_players: int = default_players, render_mode=None, **kwargs):
        return DungeonParallelEnv(spec, render_mode=render_mode, num_players=num_players, **kwargs)

    for fn in (raw_env, env, parallel_env):
        fn.__module__ = module_name
    register(spec.env_id, module_name)
    return {"raw_env": raw_env, "env": env, "parallel_env": parallel_env, "ENV_ID": spec.env_id}


def register(env_id: str, module_name: str) -> None:
    try:
        import pettingzoo

        reg = getattr(pettingzoo, "register", None)
        registries = {
            "aec": getattr(pettingzoo, "aec_registry", None),
            "parallel": getattr(pettingzoo, "parallel_registry", None),
        }
    except ImportError:  # pragma: no cover
        return
    if reg is None:
        return
    for kind, entry in (("aec", "env"), ("parallel", "parallel_env")):
        known = registries[kind]
        if known is not None and env_id in known:
            continue
        if kind == "parallel" and known is None:
            continue  # a PettingZoo without a parallel registry
        reg(kind, env_id, entry_point=f"{module_name}:{entry}")
