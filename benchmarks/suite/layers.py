"""The layers a user touches, one timed loop each: the in-kernel rollout,
the adapter-free batch, the Gymnasium vector env, ``gymnasium.make`` and
the PettingZoo AEC loop."""

from __future__ import annotations

import inspect

import numpy as np

from .checks import IllegalActionInBenchmark, check_batch, check_one
from .games import aec_factory
from .measure import measure, unavailable
from .settings import Settings


class ContractError(NotImplementedError):
    """A core that does not follow the GameCore contract a loop needs."""


def kernel_loop(core, settings: Settings, threads: int, pool=None, observe: bool = True):
    """``run(k)`` for :func:`measure`: ``core.random_rollout`` on
    ``kernel_envs`` games split over ``threads`` slices run concurrently
    (``observe=False``: ``core.random_rollout_rules``, the same games with
    the observation off), and the ``totals`` it accumulates (episodes,
    steps). Raises :class:`ContractError` for a core without the method."""
    n = max(threads, settings.kernel_envs)
    per = n // threads
    spec = core.spec
    slices = []
    for t in range(threads):
        st = core.alloc(per)
        core.reset(
            st, np.arange(t * per, (t + 1) * per, dtype=np.uint64) + np.uint64(settings.seed)
        )
        slices.append(
            (
                st,
                np.zeros((per, spec.obs_size), np.float32),
                np.zeros((per, spec.num_actions), np.int8),
                np.zeros(4, np.int64),
            )
        )
    try:
        inspect.signature(core.random_rollout).bind(*slices[0][:1], 1, 0, *slices[0][1:])
    except TypeError as e:
        raise ContractError(
            f"{type(core).__name__}.random_rollout does not follow the GameCore contract "
            f"random_rollout(states, n_steps, policy_seed, obs, masks, stats): {e}"
        ) from None
    calls = [0]
    totals = {"episodes": 0, "steps": 0, "num_envs": per * threads}

    def one(t, k):
        st, obs, masks, stats = slices[t]
        seed = settings.seed * 1_000_003 + calls[0] * 64 + t
        if observe:
            core.random_rollout(st, k, seed, obs, masks, stats)
        else:
            core.random_rollout_rules(st, k, seed, masks, stats)

    def run(k):
        for s in slices:
            s[3][:] = 0
        if threads == 1:
            one(0, k)
        else:
            list(pool.map(lambda t: one(t, k), range(threads)))
        calls[0] += 1
        illegal = sum(int(s[3][3]) for s in slices)
        if illegal:
            raise IllegalActionInBenchmark(
                f"kernel ({spec.name}, {threads} threads): {illegal} illegal actions"
            )
        steps = sum(int(s[3][0]) for s in slices)
        if steps != k * per * threads:
            raise RuntimeError(
                f"kernel ({spec.name}): stats report {steps} steps, expected {k * per * threads}"
            )
        totals["episodes"] += sum(int(s[3][1]) for s in slices)
        totals["steps"] += steps
        return steps

    return run, totals


def bench_kernel(core, settings: Settings, threads: int, pool=None, observe: bool = True) -> dict:
    """The in-kernel rollout (:func:`kernel_loop`) timed by :func:`measure`."""
    try:
        run, totals = kernel_loop(core, settings, threads, pool, observe)
    except ContractError as e:
        return unavailable(str(e))
    fig = measure(run, settings.repeats, settings.min_time)
    fig.update(
        num_envs=totals["num_envs"],
        threads=threads,
        episodes=totals["episodes"],
        mean_episode_length=(totals["steps"] / totals["episodes"] if totals["episodes"] else None),
    )
    return fig


def batch_loop(
    core,
    num_envs: int,
    settings: Settings,
    sampler,
    obs_dtype: str = "float32",
    num_threads: int = 1,
):
    """``run(k)``: the core's fused ``step_autoreset`` on preallocated
    buffers, actions sampled from the masks in numpy (the adapter-free
    batched path); ``obs_dtype="float16"``: the compact observation;
    ``num_threads`` > 1: the rows split over that many threads."""
    from ...envs.core.batch import Batch

    buf = Batch(core, num_envs, obs_dtype, num_threads)
    buf.reset(np.arange(num_envs, dtype=np.uint64) + np.uint64(settings.seed))
    where = f"batch ({core.spec.name}, {num_envs} envs)"

    def run(k):
        masks, actions = buf.masks, buf.actions
        for _ in range(k):
            sampler.batch(masks, actions)
            check_batch(masks, actions, where)
            buf.fused_step()
            if buf.illegal.any():
                raise IllegalActionInBenchmark(f"{where}: the core flagged an illegal action")
        return k * num_envs

    return run


def bench_batch(core, num_envs: int, settings: Settings, sampler) -> dict:
    """:func:`batch_loop` timed by :func:`measure`."""
    fig = measure(
        batch_loop(core, num_envs, settings, sampler), settings.repeats, settings.min_time
    )
    fig["num_envs"] = num_envs
    return fig


def vector_loop(spec, num_envs: int, settings: Settings, sampler, **env_kwargs):
    """``(run, env)``: ``DungeonVectorEnv`` (what ``gymnasium.make_vec``
    builds), with its default options unless ``env_kwargs`` say otherwise;
    actions sampled from the returned ``action_mask``."""
    from ...envs.core.adapters.vector import DungeonVectorEnv

    env = DungeonVectorEnv(spec.name, num_envs=num_envs, **env_kwargs)
    _, infos = env.reset(seed=settings.seed)
    actions = np.zeros(num_envs, np.int64)
    where = f"vector ({spec.name}, {num_envs} envs)"
    state = {"masks": infos["action_mask"]}

    def run(k):
        masks = state["masks"]
        for _ in range(k):
            sampler.batch(masks, actions)
            check_batch(masks, actions, where)
            _, _, _, _, infos = env.step(actions)
            if infos["illegal_action"].any():
                raise IllegalActionInBenchmark(f"{where}: the env flagged an illegal action")
            masks = infos["action_mask"]
        state["masks"] = masks
        return k * num_envs

    return run, env


def bench_vector(spec, num_envs: int, settings: Settings, sampler, **env_kwargs) -> dict:
    """:func:`vector_loop` timed by :func:`measure`."""
    run, env = vector_loop(spec, num_envs, settings, sampler, **env_kwargs)
    fig = measure(run, settings.repeats, settings.min_time)
    fig["num_envs"] = num_envs
    env.close()
    return fig


def vector_variant(spec, num_envs: int, settings: Settings, sampler, **env_kwargs) -> dict:
    """The vector env with non-default options (profiling), fewer repeats."""
    run, env = vector_loop(spec, num_envs, settings, sampler, **env_kwargs)
    fig = measure(run, max(1, settings.repeats // 2), settings.min_time)
    env.close()
    return fig


def single_loop(env, mask_of, sampler, where, seed, check_info=True):
    """Masked random play on one Gymnasium env; ``run(k)`` for :func:`measure`."""
    _, info = env.reset(seed=seed)
    state = {"info": info}

    def run(k):
        info = state["info"]
        for _ in range(k):
            mask = mask_of(info)
            a = sampler.one(mask)
            check_one(mask, a, where)
            _, _, term, trunc, info = env.step(a)
            if check_info and info.get("illegal_action"):
                raise IllegalActionInBenchmark(f"{where}: the env flagged an illegal action")
            if term or trunc:
                _, info = env.reset()
        state["info"] = info
        return k

    return run


def single_env_loop(spec, settings: Settings, sampler):
    """``(run, env)``: ``gymnasium.make(env_id).step`` with masked random
    legal actions."""
    import gymnasium as gym

    env = gym.make(spec.env_id)
    run = single_loop(
        env, lambda info: info["action_mask"], sampler, f"single env ({spec.name})", settings.seed
    )
    return run, env


def bench_single(spec, settings: Settings, sampler) -> dict:
    """:func:`single_env_loop` timed by :func:`measure`."""
    run, env = single_env_loop(spec, settings, sampler)
    fig = measure(run, settings.repeats, settings.python_min_time or settings.min_time)
    env.close()
    return fig


def aec_loop(env, sampler, where, seed, check_info=False):
    """The PettingZoo AEC loop with masks; counts decisions (steps with an
    action), and resets when every agent is done."""
    env.reset(seed=seed)

    def run(k):
        n = 0
        while n < k:
            if not env.agents:
                env.reset()
                continue
            agent = env.agent_selection
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            a = sampler.one(mask)
            check_one(mask, a, where)
            env.step(a)
            if check_info and env.infos.get(agent, {}).get("illegal_action"):
                raise IllegalActionInBenchmark(f"{where}: the env flagged an illegal action")
            n += 1
        return n

    return run


def aec_env_loop(spec, players: int, settings: Settings, sampler):
    """``(run, env)``: the game's PettingZoo AEC env with ``players`` seats
    in the masked loop of :func:`aec_loop`."""
    env = aec_factory(spec)(num_players=players)
    run = aec_loop(
        env, sampler, f"AEC ({spec.name}, {players} players)", settings.seed, check_info=True
    )
    return run, env


def bench_aec(spec, players: int, settings: Settings, sampler) -> dict:
    """:func:`aec_env_loop` timed by :func:`measure`."""
    run, env = aec_env_loop(spec, players, settings, sampler)
    fig = measure(run, settings.repeats, settings.python_min_time or settings.min_time)
    env.close()
    return fig
