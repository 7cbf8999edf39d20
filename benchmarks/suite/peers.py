"""The peers people would otherwise pick, measured in the same run:
Gymnasium CartPole-v1 (single env and numpy vector env), PettingZoo
connect_four_v3 and texas_holdem_v4, OpenSpiel connect_four and
leduc_poker with observations, and EnvPool's C++ CartPole (1 and 4,096
envs, one and two threads). PufferLib Ocean is cited, not measured
(:data:`CITED`): its build fetches files at install time."""

from __future__ import annotations

from typing import Any

import numpy as np

from .checks import IllegalActionInBenchmark, check_batch
from .fmt import fmt_fig
from .layers import aec_loop, single_loop
from .measure import guarded, measure, pool_figures
from .settings import Settings


def cartpole_single_loop(settings: Settings, sampler):
    """``(run, env)``: Gymnasium's CartPole-v1 stepped one env at a time."""
    import gymnasium as gym

    env = gym.make("CartPole-v1")
    assert isinstance(env.action_space, gym.spaces.Discrete)  # CartPole: push left or right
    ones = np.ones(env.action_space.n, np.int8)
    run = single_loop(
        env, lambda info: ones, sampler, "CartPole-v1 single", settings.seed, check_info=False
    )
    return run, env


def peer_cartpole_single(settings: Settings, sampler) -> dict:
    run, env = cartpole_single_loop(settings, sampler)
    fig = measure(run, settings.repeats, settings.python_min_time or settings.min_time)
    env.close()
    return fig


def _measure_vector(env, masks, actions, where: str, settings: Settings, sampler) -> dict:
    """The figure of a vector env's loop: ``sampler`` draws every env's
    action from ``masks`` (checked legal), one ``env.step`` a batch; the env
    is closed after."""
    num_envs = len(actions)

    def run(k):
        for _ in range(k):
            sampler.batch(masks, actions)
            check_batch(masks, actions, where)
            env.step(actions)
        return k * num_envs

    fig = measure(run, settings.repeats, settings.min_time)
    env.close()
    return fig


def peer_cartpole_vector(num_envs: int, settings: Settings, sampler) -> dict:
    import gymnasium as gym

    env = gym.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="vector_entry_point")
    env.reset(seed=settings.seed)
    assert isinstance(env.single_action_space, gym.spaces.Discrete)  # push left or right
    masks = np.ones((num_envs, env.single_action_space.n), np.int8)
    where = f"CartPole-v1 vector ({num_envs} envs)"
    fig = _measure_vector(env, masks, np.zeros(num_envs, np.int64), where, settings, sampler)
    fig["num_envs"] = num_envs
    return fig


def pettingzoo_loop(env_id: str, settings: Settings, sampler):
    """``(run, env)``: a PettingZoo classic env from its registry
    (``pettingzoo.make``, the 1.27 way; the module factories are
    deprecated), AEC loop with masks."""
    import pettingzoo

    env = pettingzoo.make("aec", env_id)
    return aec_loop(env, sampler, f"pettingzoo {env_id}", settings.seed), env


def peer_pettingzoo(env_id: str, settings: Settings, sampler) -> dict:
    run, env = pettingzoo_loop(env_id, settings, sampler)
    fig = measure(run, settings.repeats, settings.python_min_time or settings.min_time)
    env.close()
    return fig


def openspiel_loop(name: str, settings: Settings, sampler):
    """``run(k)``: pyspiel with ``state.observation_tensor()`` every
    decision; chance nodes are resolved by their probabilities (not counted
    as steps)."""
    import random

    import pyspiel

    game = pyspiel.load_game(name)
    chance_rng = random.Random(settings.seed)
    where = f"open_spiel {name}"
    box = {"state": game.new_initial_state()}

    def run(k):
        state, n = box["state"], 0
        while n < k:
            if state.is_terminal():
                state = game.new_initial_state()
                continue
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(chance_rng.choices(outcomes, probs)[0])
                continue
            state.observation_tensor()
            legal = state.legal_actions()
            a = sampler.choice(legal)
            if a not in legal:
                raise IllegalActionInBenchmark(f"{where}: sampled illegal action {a}")
            state.apply_action(a)
            n += 1
        box["state"] = state
        return n

    return run


def peer_openspiel(name: str, settings: Settings, sampler) -> dict:
    return measure(
        openspiel_loop(name, settings, sampler),
        settings.repeats,
        settings.python_min_time or settings.min_time,
    )


def peer_envpool_cartpole(num_envs: int, threads: int, settings: Settings, sampler) -> dict:
    """EnvPool's C++ ``CartPole-v1`` (gymnasium interface), synchronous
    (``batch_size == num_envs``), ``threads`` worker threads; actions sampled
    like every other vector loop (all actions of CartPole are legal)."""
    import warnings

    import envpool

    with warnings.catch_warnings():  # gymnasium's float32 Box notice about EnvPool's bounds
        warnings.simplefilter("ignore", UserWarning)
        env = envpool.make(
            "CartPole-v1",
            env_type="gymnasium",
            num_envs=num_envs,
            batch_size=num_envs,
            num_threads=threads,
            seed=settings.seed,
        )
        env.reset()
        masks = np.ones((num_envs, env.action_space.n), np.int8)
    where = f"EnvPool CartPole-v1 ({num_envs} envs, {threads} threads)"
    fig = _measure_vector(env, masks, np.zeros(num_envs, np.int32), where, settings, sampler)
    fig.update(num_envs=num_envs, threads=threads)
    return fig


def envpool_sweep(settings: Settings, sampler, log) -> dict:
    """EnvPool CartPole at each ``settings.envpool_envs`` x ``envpool_threads``;
    one ``unavailable`` entry (with the reason) when EnvPool does not import
    on this Python."""
    out: dict[str, Any] = {"label": "EnvPool CartPole-v1 (C++), sync", "by_config": {}}
    try:
        import envpool  # noqa: F401
    except Exception as e:  # ImportError, or a binary built for another CPU/ABI
        out.update(
            status="unavailable", reason=f"envpool does not import here: {type(e).__name__}: {e}"
        )
        log(f"  peer {out['label']}: unavailable ({out['reason']})")
        return out
    out["status"] = "ok"
    for n in settings.envpool_envs:
        for t in settings.envpool_threads:
            fig = guarded(peer_envpool_cartpole, int(n), int(t), settings, sampler)
            out["by_config"][envpool_key(n, t)] = fig
            log(f"  peer EnvPool CartPole x{n}, {t} thread(s): {fmt_fig(fig)}")
    return out


def envpool_key(num_envs: int, threads: int) -> str:
    return f"{int(num_envs)}x{int(threads)}"


#: references people know that this machine cannot build: published
#: figures, cited (never measured here, never used in a ratio)
CITED = {
    "pufferlib_ocean": {
        "label": "PufferLib Ocean (C environments)",
        "figure": ">1M steps/s per environment on one CPU core (every Ocean env of the 2.0 "
        "release); training at 0.3-1.2M steps/s on one GPU",
        "source": "PufferLib 2.0 release post (PufferAI blog, 2024)",
        "note": "cited, not measured: PufferLib's build fetches files at install time, "
        "which this machine cannot",
    },
}


PEERS = {
    # key: (label, kind, function, argument)
    "cartpole_single": ("Gymnasium CartPole-v1, single env", "single", peer_cartpole_single, None),
    "pz_connect_four": (
        "PettingZoo connect_four_v3, AEC",
        "aec",
        peer_pettingzoo,
        "classic/connect_four-v3",
    ),
    "pz_texas_holdem": (
        "PettingZoo texas_holdem_v4, AEC",
        "aec",
        peer_pettingzoo,
        "classic/texas_holdem-v4",
    ),
    "os_connect_four": (
        "OpenSpiel connect_four + obs",
        "openspiel",
        peer_openspiel,
        "connect_four",
    ),
    "os_leduc_poker": ("OpenSpiel leduc_poker + obs", "openspiel", peer_openspiel, "leduc_poker"),
}


def run_peers(
    settings: Settings, sampler, log, first: dict | None = None, sweep: bool = True
) -> dict:
    """Measure the peers. The scalar peers are measured twice, before and
    after the games (``first`` holds the first pass), and pooled: the load
    of a shared machine drifts, and the ratios should not depend on when a
    peer happened to run (one pass in --quick). ``sweep``: also the CartPole
    vector env over ``num_envs``."""
    out: dict[str, Any] = {}
    for key, (label, _, fn, arg) in PEERS.items():
        fig = guarded(fn, settings, sampler) if arg is None else guarded(fn, arg, settings, sampler)
        if first is not None and key in first:
            fig = pool_figures(first[key], fig)
        fig["label"] = label
        out[key] = fig
        log(
            f"  peer {label}: {fmt_fig(fig)}"
            + (f" (both passes: {fig.get('passes', 1)})" if first is not None else "")
        )
    if not sweep:
        return out
    by_num_envs = {}
    for n in settings.num_envs:
        fig = guarded(peer_cartpole_vector, n, settings, sampler)
        by_num_envs[str(n)] = fig
        log(f"  peer CartPole-v1 vector x{n}: {fmt_fig(fig)}")
    out["cartpole_vector"] = {
        "label": "Gymnasium CartPole-v1, numpy vector env",
        "by_num_envs": by_num_envs,
    }
    out["envpool_cartpole"] = envpool_sweep(settings, sampler, log)
    out["cited"] = CITED
    return out
