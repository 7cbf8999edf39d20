"""The throughput suite: every layer of every registered game, with the
peers people would otherwise pick measured in the same run.

Run: ``dungeonrl bench`` (full run, several minutes) or ``dungeonrl bench
--quick`` (a first look, under a minute on 2 cores); ``python -m
dungeonrl.benchmarks.suite --help`` for the options. The README section is
regenerated from the JSON by ``python -m dungeonrl.benchmarks.report``.

What is measured
----------------
For every game of :func:`dungeonrl.registry.list_games` and every player
count that matters (single-agent games: 1; multi-agent games: 2, 4 and 8
within the spec's range), through the :class:`~dungeonrl.envs.core.spec.GameCore`
contract only, so a new game joins with no benchmark code:

* ``kernel``: ``core.random_rollout`` (random legal play inside numba with
  observation, mask and autoreset every step: the engine's ceiling), on one
  thread and on 1..all cores (a thread pool over slices of the batch; the
  kernels release the GIL);
* ``vector``: the native ``DungeonVectorEnv`` (single-agent games) with
  actions passed from numpy, swept over ``num_envs``; ``batch``: the core's
  fused ``step_autoreset`` on preallocated buffers with actions from numpy
  (no adapter: the multi-agent batched path, and the adapter-free reference
  of single-agent games);
* ``python``: ``gymnasium.make(env_id).step`` with masked random actions
  (single-agent) or the PettingZoo AEC loop (multi-agent);
* ``training``: env-steps/s of sb3-contrib ``MaskablePPO`` on the native
  SB3 VecEnv and of the fast PPO (``dungeonrl.agents.ppo``), same network
  (single-agent games; "unavailable" when the code is not importable);
* ``start``: time to the first step in a fresh process, cold (empty
  ``NUMBA_CACHE_DIR``) and warm (cache filled);
* ``memory``: bytes per game record and per env of all batch buffers, and
  peak RSS of a fresh process holding 65,536 envs (its own ``VmHWM``; on
  Linux ``resource.getrusage`` keeps the parent's peak across fork + exec).

Peers, same run, same machine: Gymnasium ``CartPole-v1`` (single env, and
its numpy-vectorized ``vector_entry_point`` form over the same ``num_envs``),
PettingZoo ``connect_four_v3`` and ``texas_holdem_v4`` (AEC loop with
masks), OpenSpiel ``connect_four`` and ``leduc_poker`` through ``pyspiel``
with ``state.observation_tensor()`` every step. A peer whose package is
missing is recorded as ``"unavailable"``. In the full run the scalar peers
are measured twice, before and after the games, and pooled, so a ratio does
not depend on when the load of a shared machine happened to change.

Every timed loop samples uniformly random *legal* actions and checks them
(mask lookup before the step; the kernels count illegal actions in
``stats[3]``; the envs' ``illegal_action`` flags after the step); an illegal
action raises :class:`IllegalActionInBenchmark` and the run fails.

Timing: each figure calibrates its loop to about ``min_time`` seconds (the
calibration doubles as warm-up, so JIT loading is excluded), then reports
the median steps/s of ``repeats`` timed runs (wall clock), and beside it
the median steps per CPU-second of this process (``cpu_median``), which
other processes on the machine disturb less. The load average is recorded
before and after: on a busy machine the wall-clock figures are not to be
trusted. The full run also profiles where the time goes (``profile``
entries: the parts of a batched step, one-env call costs, cProfile tables
of the Python paths, the training time split, start-up phases).

Outputs: a table on the terminal (medians and ratios to the peers), a JSON
file (``benchmarks/results/suite.json``; ``suite_quick.json`` for
``--quick``) with the machine and every figure, and PNG plots (num_envs and
thread scaling per game, a log-scale bar chart against the peers).
``--from-json PATH`` prints the table and redraws the plots of a saved run.

Training
--------
Both PPO paths train with the fast PPO's network (``PPOConfig.hidden``,
separate actor and critic) and the same batch shape (envs x steps,
minibatches, epochs), after a tiny warm-up run that pays the one-time
costs (torch imports, first calls). The fast PPO runs ``agents.ppo.train``
on a ``SingleAgentGame`` whose ``step`` checks every action against the
mask; SB3 runs ``MaskablePPO`` on ``DungeonSB3VecEnv(...,
illegal_action="raise")``, with ``agents.sb3.policy_kwargs`` when it exists.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
SCHEMA = 1

#: player counts measured for multi-agent games (within the spec's range)
MULTI_PLAYERS = (2, 4, 8)
#: the num_envs at which targets against the peers are read
REF_ENVS = 4096

TARGETS = {
    "kernel_vs_leduc": 20.0,       # kernel steps/s / OpenSpiel leduc_poker (with obs)
    "vector_vs_leduc": 10.0,       # vector env at 4,096 envs / the same OpenSpiel figure
    "single_vs_cartpole": 0.8,     # gymnasium.make(...).step / CartPole-v1
    "aec_vs_connect_four": 5.0,    # AEC loop / PettingZoo connect_four_v3
    "fast_ppo_vs_sb3": 10.0,       # fast PPO / SB3 MaskablePPO env-steps/s
    "warm_start_s": 2.0,           # seconds to the first step, numba cache warm
}


class IllegalActionInBenchmark(RuntimeError):
    """A benchmark sampled an action its mask forbids: the run is invalid."""


# --- settings ----------------------------------------------------------------------------
@dataclasses.dataclass
class Settings:
    """Budgets of one run (see :data:`MODES`)."""

    mode: str = "full"
    repeats: int = 5
    min_time: float = 1.0                     #: seconds per timed repeat
    num_envs: tuple = (1, 16, 256, 4096, 65536)
    sweep_batch: bool = True                  #: sweep the adapter-free batch path too
    kernel_envs: int = 4096
    threads: tuple = ()                       #: () = 1, 2, 4... up to all cores
    python_min_time: float | None = None      #: min_time of the Python-API loops
    train: bool = True
    train_steps_sb3: int = 32768              #: one PPO iteration of the full shape
    train_steps_fast: int = 65536
    start: bool = True
    start_cold: bool = True
    start_repeats: int = 3
    memory: bool = True
    memory_envs: int = 65536
    memory_all_configs: bool = True
    peers: bool = True
    profile: bool = True
    plots: bool = True
    seed: int = 0
    games: tuple = ()                         #: () = every registered game
    max_configs: int = 0                      #: player counts per game (0 = all)
    torch_threads: int = 0                    #: 0 = the fast PPO's default, used for both

    def thread_counts(self) -> tuple:
        if self.threads:
            return tuple(int(t) for t in self.threads)
        cores = os.cpu_count() or 1
        out, t = [], 1
        while t < cores:
            out.append(t)
            t *= 2
        out.append(cores)
        return tuple(out)


MODES = {
    "full": Settings(),
    "quick": Settings(mode="quick", repeats=3, min_time=0.25, num_envs=(1, 256, 4096),
                      sweep_batch=False, kernel_envs=1024, train_steps_sb3=1024,
                      train_steps_fast=2048, start_cold=False, start_repeats=1,
                      memory_all_configs=False, profile=False),
    # for the tests: every code path, tiny budgets, no meaningful figures
    "tiny": Settings(mode="tiny", repeats=1, min_time=0.01, num_envs=(1, 32),
                     sweep_batch=True, kernel_envs=32, train_steps_sb3=64,
                     train_steps_fast=128, start_cold=False,
                     start_repeats=1, memory_envs=256, memory_all_configs=False,
                     profile=True, max_configs=1),
}


# --- samplers ------------------------------------------------------------------------------
class RandomLegalSampler:
    """Uniformly random legal actions, the policy of every benchmark.

    ``batch(masks, out)``: one action per row of an int8 ``(n, A)`` mask, in
    numba; ``one(mask)``: one action of a 1-D mask; ``choice(legal)``: one
    element of a list of legal action ids (OpenSpiel)."""

    def __init__(self, seed: int = 0):
        from ..envs.core.rng import rng_seed
        from .unbroken_bench import sample_from_masks   # a generic numba helper
        self._sample = sample_from_masks
        self._prng = np.zeros(2, np.uint64)
        rng_seed(self._prng, int(seed), 7)
        self._gen = np.random.default_rng(seed)
        self._draws = self._gen.integers(0, 2**31 - 1, size=1 << 16).tolist()
        self._k = 0

    def _next(self) -> int:
        k = self._k
        if k == len(self._draws):
            self._draws = self._gen.integers(0, 2**31 - 1, size=1 << 16).tolist()
            k = 0
        self._k = k + 1
        return self._draws[k]

    def batch(self, masks: np.ndarray, out: np.ndarray) -> np.ndarray:
        self._sample(self._prng, masks, out)
        return out

    def one(self, mask) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            return -1
        return int(legal[self._next() % len(legal)])

    def choice(self, legal):
        return legal[self._next() % len(legal)]


class _Rows:
    """Cached ``arange(n)`` for the batch legality check."""

    def __init__(self):
        self._cache: dict[int, np.ndarray] = {}

    def __call__(self, n: int) -> np.ndarray:
        r = self._cache.get(n)
        if r is None:
            r = self._cache[n] = np.arange(n)
        return r


_ROWS = _Rows()


def check_batch(masks: np.ndarray, actions: np.ndarray, where: str) -> None:
    """Raise :class:`IllegalActionInBenchmark` unless every ``actions[i]`` is
    legal in ``masks[i]``."""
    n, num_actions = masks.shape
    a = np.asarray(actions)
    if a.shape != (n,):
        raise IllegalActionInBenchmark(f"{where}: actions of shape {a.shape}, expected {(n,)}")
    lo, hi = int(a.min()), int(a.max())
    if lo < 0 or hi >= num_actions:
        raise IllegalActionInBenchmark(
            f"{where}: sampled action {lo if lo < 0 else hi} outside [0, {num_actions})")
    legal = masks[_ROWS(n), a]
    if not legal.all():
        i = int(np.flatnonzero(legal == 0)[0])
        raise IllegalActionInBenchmark(
            f"{where}: env {i} sampled illegal action {int(a[i])}")


def check_one(mask, action: int, where: str) -> None:
    if not 0 <= action < len(mask) or not mask[action]:
        raise IllegalActionInBenchmark(f"{where}: sampled illegal action {action}")


# --- timing ----------------------------------------------------------------------------------
def unavailable(reason: str) -> dict:
    return {"status": "unavailable", "reason": str(reason)}


def skipped(reason: str) -> dict:
    return {"status": "skipped", "reason": str(reason)}


def ok(fig) -> bool:
    return isinstance(fig, dict) and fig.get("status") == "ok"


def median_of(fig) -> float | None:
    return float(fig["median"]) if ok(fig) else None


def measure(run: Callable[[int], int], repeats: int, min_time: float,
            max_units: int = 1 << 30) -> dict:
    """Time ``run(k)`` (k units of work, returns env-steps done): calibrate
    ``k`` so one call lasts about ``min_time`` (this also warms up), then
    take ``repeats`` timed calls. Returns a figure dict (median steps/s)."""
    run(1)                       # warm-up: load (or compile) the kernels
    k = 1
    while True:
        t0 = time.perf_counter()
        run(k)
        dt = time.perf_counter() - t0
        if dt >= min_time / 4 or k >= max_units:
            break
        k = min(max_units, max(2 * k, int(k * (min_time / 3) / max(dt, 1e-7))))
    k = max(1, min(max_units, int(round(k * min_time / max(dt, 1e-9)))))
    rates, cpu_rates, steps = [], [], 0
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        steps = run(k)
        rates.append(steps / max(time.perf_counter() - t0, 1e-12))
        cpu_rates.append(steps / max(time.process_time() - c0, 1e-12))
    return figure(rates, cpu_rates, steps)


def figure(rates, cpu_rates, steps) -> dict:
    """A measured figure: medians of wall-clock steps/s (the headline) and of
    steps per CPU-second of this process (all its threads; robust to other
    processes sharing the cores)."""
    return {"status": "ok", "median": float(statistics.median(rates)),
            "min": float(min(rates)), "max": float(max(rates)),
            "rates": [float(r) for r in rates], "unit": "steps/s",
            "cpu_median": float(statistics.median(cpu_rates)),
            "cpu_rates": [float(r) for r in cpu_rates], "steps_per_repeat": int(steps)}


def pool_figures(a: dict, b: dict) -> dict:
    """One figure from two passes of the same measurement (medians over all
    repeats); a pass that failed leaves the other."""
    if not ok(a) or not ok(b):
        return a if ok(a) else b
    out = dict(a)
    out.update(figure(a["rates"] + b["rates"], a["cpu_rates"] + b["cpu_rates"],
                      a["steps_per_repeat"]))
    out["passes"] = a.get("passes", 1) + b.get("passes", 1)
    return out


def cpu_of(fig) -> float | None:
    return float(fig["cpu_median"]) if ok(fig) and fig.get("cpu_median") else None


def guarded(fn, *args, **kwargs) -> dict:
    """Run one benchmark; an illegal action propagates, anything else (a
    missing package, a game without the method) becomes ``unavailable``."""
    try:
        return fn(*args, **kwargs)
    except IllegalActionInBenchmark:
        raise
    except NotImplementedError as e:
        return unavailable(f"not implemented by the core: {e}" if str(e) else
                           "not implemented by the core")
    except ImportError as e:
        return unavailable(f"import failed: {e}")
    except Exception as e:
        # gymnasium's DependencyNotInstalled, PettingZoo's FailedToImport (a
        # peer whose extra, e.g. pettingzoo[classic], is not installed)
        if type(e).__name__ in ("DependencyNotInstalled", "FailedToImport"):
            return unavailable(f"dependency not installed: {e}")
        raise


# --- games -----------------------------------------------------------------------------------
def player_counts(spec) -> list[int]:
    if not spec.multi_agent:
        return [1]
    counts = [p for p in MULTI_PLAYERS if spec.min_players <= p <= spec.max_players]
    return counts or [max(2, spec.min_players)]


def core_kwargs(spec, players: int) -> dict:
    return {"num_players": players} if spec.multi_agent else {}


def make_core(spec, players: int):
    from ..envs.core._batch import resolve_core
    return resolve_core(spec, core_kwargs(spec, players))


def aec_factory(spec) -> Callable:
    """``factory(num_players=N)`` building the PettingZoo AEC env of a
    multi-agent game: ``dungeonrl.envs.<name>_v<version>.env`` if that module
    exists, else ``pettingzoo.make("aec", spec.env_id, ...)``."""
    name = f"dungeonrl.envs.{spec.name}_v{spec.version}"
    try:
        mod = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is None or not name.startswith(e.name):
            raise
        import pettingzoo
        if spec.env_id not in pettingzoo.aec_registry:
            raise ImportError(f"no module {name} and {spec.env_id} is not in "
                              "pettingzoo's AEC registry") from None
        return lambda **kw: pettingzoo.make("aec", spec.env_id, **kw)
    return mod.env


# --- layers ----------------------------------------------------------------------------------
def bench_kernel(core, settings: Settings, threads: int, pool=None) -> dict:
    """``core.random_rollout`` on ``kernel_envs`` games split over
    ``threads`` slices run concurrently."""
    n = max(threads, settings.kernel_envs)
    per = n // threads
    spec = core.spec
    slices = []
    for t in range(threads):
        st = core.alloc(per)
        core.reset(st, np.arange(t * per, (t + 1) * per, dtype=np.uint64) + np.uint64(settings.seed))
        slices.append((st, np.zeros((per, spec.obs_size), np.float32),
                       np.zeros((per, spec.num_actions), np.int8), np.zeros(4, np.int64)))
    try:
        inspect.signature(core.random_rollout).bind(*slices[0][:1], 1, 0, *slices[0][1:])
    except TypeError as e:
        return unavailable(
            f"{type(core).__name__}.random_rollout does not follow the GameCore contract "
            f"random_rollout(states, n_steps, policy_seed, obs, masks, stats): {e}")
    calls = [0]
    totals = {"episodes": 0, "steps": 0}

    def one(t, k):
        st, obs, masks, stats = slices[t]
        core.random_rollout(st, k, settings.seed * 1_000_003 + calls[0] * 64 + t, obs, masks,
                            stats)

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
                f"kernel ({spec.name}, {threads} threads): {illegal} illegal actions")
        steps = sum(int(s[3][0]) for s in slices)
        if steps != k * per * threads:
            raise RuntimeError(f"kernel ({spec.name}): stats report {steps} steps, "
                               f"expected {k * per * threads}")
        totals["episodes"] += sum(int(s[3][1]) for s in slices)
        totals["steps"] += steps
        return steps

    fig = measure(run, settings.repeats, settings.min_time)
    fig.update(num_envs=per * threads, threads=threads, episodes=totals["episodes"],
               mean_episode_length=(totals["steps"] / totals["episodes"]
                                    if totals["episodes"] else None))
    return fig


def bench_batch(core, num_envs: int, settings: Settings, sampler) -> dict:
    """The core's fused ``step_autoreset`` on preallocated buffers, actions
    sampled from the masks in numpy (the adapter-free batched path)."""
    from ..envs.core._batch import BatchBuffers
    buf = BatchBuffers(core, num_envs)
    buf.reset(np.arange(num_envs, dtype=np.uint64) + np.uint64(settings.seed))
    where = f"batch ({core.spec.name}, {num_envs} envs)"

    def run(k):
        masks, actions = buf.masks, buf.actions
        for _ in range(k):
            sampler.batch(masks, actions)
            check_batch(masks, actions, where)
            buf.step_autoreset()
            if buf.illegal.any():
                raise IllegalActionInBenchmark(f"{where}: the core flagged an illegal action")
        return k * num_envs

    fig = measure(run, settings.repeats, settings.min_time)
    fig["num_envs"] = num_envs
    return fig


def bench_vector(spec, num_envs: int, settings: Settings, sampler) -> dict:
    """``DungeonVectorEnv`` (what ``gymnasium.make_vec`` builds) with its
    default options; actions sampled from the returned ``action_mask``."""
    from ..envs.core.vector import DungeonVectorEnv
    env = DungeonVectorEnv(spec.name, num_envs=num_envs)
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

    fig = measure(run, settings.repeats, settings.min_time)
    fig["num_envs"] = num_envs
    env.close()
    return fig


def _vector_variant(spec, num_envs: int, settings: Settings, sampler, **env_kwargs) -> dict:
    """The vector env with non-default options (profiling), fewer repeats."""
    from ..envs.core.vector import DungeonVectorEnv
    env = DungeonVectorEnv(spec.name, num_envs=num_envs, **env_kwargs)
    _, infos = env.reset(seed=settings.seed)
    actions = np.zeros(num_envs, np.int64)
    box = {"masks": infos["action_mask"]}

    def run(k):
        for _ in range(k):
            sampler.batch(box["masks"], actions)
            check_batch(box["masks"], actions, "vector variant")
            _, _, _, _, inf = env.step(actions)
            box["masks"] = inf["action_mask"]
        return k * num_envs

    return measure(run, max(1, settings.repeats // 2), settings.min_time)


def _single_loop(env, mask_of, sampler, where, seed, check_info=True):
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


def bench_single(spec, settings: Settings, sampler) -> dict:
    """``gymnasium.make(env_id).step`` with masked random legal actions."""
    import gymnasium as gym
    env = gym.make(spec.env_id)
    run = _single_loop(env, lambda info: info["action_mask"], sampler,
                       f"single env ({spec.name})", settings.seed)
    fig = measure(run, settings.repeats, settings.python_min_time or settings.min_time)
    env.close()
    return fig


def _aec_loop(env, sampler, where, seed, check_info=False):
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


def bench_aec(spec, players: int, settings: Settings, sampler) -> dict:
    env = aec_factory(spec)(num_players=players)
    run = _aec_loop(env, sampler, f"AEC ({spec.name}, {players} players)", settings.seed,
                    check_info=True)
    fig = measure(run, settings.repeats, settings.python_min_time or settings.min_time)
    env.close()
    return fig


# --- peers -------------------------------------------------------------------------------------
def peer_cartpole_single(settings: Settings, sampler) -> dict:
    import gymnasium as gym
    env = gym.make("CartPole-v1")
    ones = np.ones(env.action_space.n, np.int8)
    run = _single_loop(env, lambda info: ones, sampler, "CartPole-v1 single", settings.seed,
                       check_info=False)
    fig = measure(run, settings.repeats, settings.python_min_time or settings.min_time)
    env.close()
    return fig


def peer_cartpole_vector(num_envs: int, settings: Settings, sampler) -> dict:
    import gymnasium as gym
    env = gym.make_vec("CartPole-v1", num_envs=num_envs, vectorization_mode="vector_entry_point")
    env.reset(seed=settings.seed)
    masks = np.ones((num_envs, env.single_action_space.n), np.int8)
    actions = np.zeros(num_envs, np.int64)
    where = f"CartPole-v1 vector ({num_envs} envs)"

    def run(k):
        for _ in range(k):
            sampler.batch(masks, actions)
            check_batch(masks, actions, where)
            env.step(actions)
        return k * num_envs

    fig = measure(run, settings.repeats, settings.min_time)
    fig["num_envs"] = num_envs
    env.close()
    return fig


def peer_pettingzoo(env_id: str, settings: Settings, sampler) -> dict:
    """A PettingZoo classic env from its registry (``pettingzoo.make``, the
    1.27 way; the module factories are deprecated), AEC loop with masks."""
    import pettingzoo
    env = pettingzoo.make("aec", env_id)
    run = _aec_loop(env, sampler, f"pettingzoo {env_id}", settings.seed)
    fig = measure(run, settings.repeats, settings.python_min_time or settings.min_time)
    env.close()
    return fig


def peer_openspiel(name: str, settings: Settings, sampler) -> dict:
    """pyspiel with ``state.observation_tensor()`` every decision; chance
    nodes are resolved by their probabilities (not counted as steps)."""
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

    return measure(run, settings.repeats, settings.python_min_time or settings.min_time)


PEERS = {
    # key: (label, kind, function, argument)
    "cartpole_single": ("Gymnasium CartPole-v1, single env", "single", peer_cartpole_single, None),
    "pz_connect_four": ("PettingZoo connect_four_v3, AEC", "aec", peer_pettingzoo,
                        "classic/connect_four-v3"),
    "pz_texas_holdem": ("PettingZoo texas_holdem_v4, AEC", "aec", peer_pettingzoo,
                        "classic/texas_holdem-v4"),
    "os_connect_four": ("OpenSpiel connect_four + obs", "openspiel", peer_openspiel,
                        "connect_four"),
    "os_leduc_poker": ("OpenSpiel leduc_poker + obs", "openspiel", peer_openspiel,
                       "leduc_poker"),
}


def run_peers(settings: Settings, sampler, log, first: dict | None = None,
              sweep: bool = True) -> dict:
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
        log(f"  peer {label}: {_fmt_fig(fig)}"
            + (f" (both passes: {fig.get('passes', 1)})" if first is not None else ""))
    if not sweep:
        return out
    sweep = {}
    for n in settings.num_envs:
        fig = guarded(peer_cartpole_vector, n, settings, sampler)
        sweep[str(n)] = fig
        log(f"  peer CartPole-v1 vector x{n}: {_fmt_fig(fig)}")
    out["cartpole_vector"] = {"label": "Gymnasium CartPole-v1, numpy vector env",
                              "by_num_envs": sweep}
    return out


# --- start-up and memory (subprocesses) ---------------------------------------------------------
_START_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
t_np = time.perf_counter()
import gymnasium as gym
t_gym = time.perf_counter()
import dungeonrl
from dungeonrl.registry import get_spec
t_pkg = time.perf_counter()
name, players = sys.argv[1], int(sys.argv[2])
try:
    spec = get_spec(name)
except Exception as e:
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    raise SystemExit(0)
if not spec.multi_agent:
    env = gym.make(spec.env_id)
    t_make = time.perf_counter()
    _, info = env.reset(seed=0)
    mask = info["action_mask"]
else:
    from dungeonrl.benchmarks.suite import aec_factory
    env = aec_factory(spec)(num_players=players)
    t_make = time.perf_counter()
    env.reset(seed=0)
    mask = env.last()[0]["action_mask"]
t_reset = time.perf_counter()
a = int(np.flatnonzero(mask)[0])
if not mask[a]:
    raise SystemExit("illegal action in the start-up probe")
env.step(a)
t1 = time.perf_counter()
print(json.dumps({"first_step_s": t1 - t0, "import_numpy_s": t_np - t0,
                  "import_gymnasium_s": t_gym - t_np, "import_dungeonrl_s": t_pkg - t_gym,
                  "make_s": t_make - t_pkg, "reset_s": t_reset - t_make,
                  "first_step_only_s": t1 - t_reset}))
"""

_MEMORY_SCRIPT = r"""
import json, resource, sys
import numpy as np
import dungeonrl
from dungeonrl.registry import get_spec
from dungeonrl.envs.core._batch import BatchBuffers, resolve_core
name, players, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    spec = get_spec(name)
except Exception as e:
    print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
    raise SystemExit(0)
kw = {"num_players": players} if spec.multi_agent else {}

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20

def peak_mb():
    # VmHWM: this process's own high-water mark. ru_maxrss is not enough on
    # Linux: it keeps the parent's peak across fork + exec.
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def first_legal(masks):
    a = masks.argmax(axis=1)
    if not masks[np.arange(len(a)), a].all():
        raise SystemExit("illegal action in the memory probe")
    return a.astype(np.int64)

small = BatchBuffers(resolve_core(spec, dict(kw)), 2)   # load the kernels first
small.reset(np.arange(2, dtype=np.uint64))
small.actions[:] = first_legal(small.masks)
small.step_autoreset()
before_peak = peak_mb()
before = rss_mb()
if not spec.multi_agent:
    from dungeonrl.envs.core.vector import DungeonVectorEnv
    env = DungeonVectorEnv(name, num_envs=n, **kw)
    _, infos = env.reset(seed=0)
    for _ in range(3):
        _, _, _, _, infos = env.step(first_legal(infos["action_mask"]))
else:
    buf = BatchBuffers(resolve_core(spec, dict(kw)), n)
    buf.reset(np.arange(n, dtype=np.uint64))
    for _ in range(3):
        buf.actions[:] = first_legal(buf.masks)
        buf.step_autoreset()
print(json.dumps({"peak_rss_mb": peak_mb(), "rss_before_mb": before,
                  "peak_before_mb": before_peak, "rss_after_mb": rss_mb(),
                  "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _subprocess_json(script: str, args: list, env: dict | None = None,
                     timeout: float = 900) -> tuple[dict, float]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", script, *map(str, args)], env=env,
                       capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"subprocess failed ({r.returncode}): {' | '.join(tail)}")
    return json.loads(r.stdout.strip().splitlines()[-1]), wall


def bench_start(spec, settings: Settings) -> dict:
    """Time to the first step in a fresh process: cold (numba cache empty)
    and warm (cache filled by the cold run, or the usual cache when the cold
    run is skipped). Figures are from the script's first line to the first
    ``step``; ``*_process_s`` add the interpreter start."""
    players = player_counts(spec)[0]
    out: dict[str, Any] = {"status": "ok", "players": players}
    with tempfile.TemporaryDirectory(prefix="dungeonrl-numba-") as d:
        env = dict(os.environ)
        if settings.start_cold:
            env["NUMBA_CACHE_DIR"] = d
            cold, wall = _subprocess_json(_START_SCRIPT, [spec.name, players], env)
            if "error" in cold:
                return unavailable(cold["error"])
            out["cold_s"], out["cold_process_s"] = cold["first_step_s"], wall
        else:
            out["cold_s"] = None
            out["cold_note"] = f"skipped in {settings.mode} mode"
            if settings.mode != "tiny":
                # fill the usual cache first: a source edit since the last run
                # would otherwise make the "warm" run compile
                primed, _ = _subprocess_json(_START_SCRIPT, [spec.name, players], env)
                if "error" in primed:
                    return unavailable(primed["error"])
                out["priming_s"] = primed["first_step_s"]
        warm, walls = [], []
        for _ in range(max(1, settings.start_repeats)):
            w, wall = _subprocess_json(_START_SCRIPT, [spec.name, players], env)
            if "error" in w:
                return unavailable(w["error"])
            warm.append(w)
            walls.append(wall)
    order = sorted(range(len(warm)), key=lambda i: warm[i]["first_step_s"])
    mid = warm[order[len(order) // 2]]
    out["warm_s"] = mid["first_step_s"]
    out["warm_runs_s"] = [w["first_step_s"] for w in warm]
    out["warm_process_s"] = float(statistics.median(walls))
    out["warm_breakdown_s"] = {k: v for k, v in mid.items() if k != "first_step_s"}
    return out


def buffer_bytes_per_env(core) -> dict:
    from ..envs.core._batch import BatchBuffers
    buf = BatchBuffers(core, 1)
    arrays = {k: v for k, v in vars(buf).items() if isinstance(v, np.ndarray)}
    return {"state_bytes": int(core.state_dtype.itemsize),
            "buffer_bytes_per_env": int(sum(a.nbytes for a in arrays.values())),
            "buffers": {k: int(a.nbytes) for k, a in arrays.items()}}


def bench_memory(spec, players: int, core, settings: Settings) -> dict:
    out = {"status": "ok", **buffer_bytes_per_env(core), "num_envs": settings.memory_envs}
    res, _ = _subprocess_json(_MEMORY_SCRIPT, [spec.name, players, settings.memory_envs])
    if "error" in res:
        out.update(peak_rss_mb=None, note=res["error"])
        return out
    out.update(res)
    out["peak_delta_mb"] = res["peak_rss_mb"] - res["peak_before_mb"]
    out["peak_bytes_per_env"] = int(out["peak_delta_mb"] * 2**20 / settings.memory_envs)
    return out


# --- training ------------------------------------------------------------------------------------
def _import_optional(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and name.startswith(e.name):
            return None
        raise


def train_shape(settings: Settings) -> dict:
    """The rollout/update shape both PPO paths train with (same network,
    same env, same batch): the fast PPO's defaults in the full run, smaller
    batches for --quick / tiny."""
    if settings.mode == "full":
        return {"num_envs": 1024, "num_steps": 32, "num_minibatches": 4, "update_epochs": 3}
    if settings.mode == "quick":
        return {"num_envs": 64, "num_steps": 16, "num_minibatches": 4, "update_epochs": 3}
    return {"num_envs": 8, "num_steps": 8, "num_minibatches": 2, "update_epochs": 1}


def _fast_ppo_runner(spec, settings: Settings):
    """``(run, None)`` where ``run(total_steps) -> dict`` trains the fast PPO
    of ``dungeonrl.agents.ppo`` (``PPOConfig`` + ``train``) on a batch whose
    ``step`` checks every action against the mask before the kernel runs;
    or ``(None, reason)``."""
    mod = _import_optional("dungeonrl.agents.ppo")
    if mod is None:
        return None, "dungeonrl.agents.ppo is not importable (not written yet)"
    for attr in ("PPOConfig", "train", "SingleAgentGame"):
        if not hasattr(mod, attr):
            return None, f"dungeonrl.agents.ppo has no {attr}"

    class CheckedGame(mod.SingleAgentGame):
        """The trainer's batch, with the benchmark's legality check."""

        def step(self):
            where = f"fast PPO ({spec.name})"
            check_batch(self.masks, self.actions, where)
            super().step()
            if self.buf.illegal.any():
                raise IllegalActionInBenchmark(f"{where}: the core flagged an illegal action")

    def run(total, shape=None, hidden=None):
        shape = shape or train_shape(settings)
        fields = {f.name for f in dataclasses.fields(mod.PPOConfig)}
        kw = {k: v for k, v in shape.items() if k in fields}
        if hidden is not None:
            kw["hidden"] = tuple(hidden)
        if "torch_threads" in fields:
            kw["torch_threads"] = settings.torch_threads
        cfg = mod.PPOConfig(env=spec.name, total_steps=int(total), seed=settings.seed, **kw)
        core = make_core(spec, 1)
        game = CheckedGame(core, cfg.num_envs)
        t0 = time.perf_counter()
        result = mod.train(cfg, core=core, game=game)
        dt = time.perf_counter() - t0
        hist = getattr(result, "history", None) or []
        iters = [h["sps_iter"] for h in hist if isinstance(h, dict) and "sps_iter" in h]
        # the training loop only (TrainResult.seconds starts after the network,
        # optimizer and game are built), as SB3's figure is learn() only
        return {"env_steps": int(result.global_step),
                "seconds": float(getattr(result, "seconds", dt)), "wall_s": dt,
                "rollout_s": float(sum(h.get("rollout_s", 0.0) for h in hist)),
                "update_s": float(sum(h.get("update_s", 0.0) for h in hist)),
                "hidden": list(getattr(cfg, "hidden", ())),
                "activation": getattr(cfg, "activation", "tanh"),
                "shared": bool(getattr(cfg, "shared", False)),
                "iterations": len(hist), "sps_per_iteration": iters, **shape}
    return run, None


def _sb3_policy_kwargs(hidden, activation: str, shared: bool) -> dict:
    """SB3 ``policy_kwargs`` of the fast PPO's network (separate actor and
    critic MLPs of ``hidden`` units, orthogonal init): from
    ``dungeonrl.agents.sb3.policy_kwargs`` when it exists."""
    mod = _import_optional("dungeonrl.agents.sb3")
    fn = getattr(mod, "policy_kwargs", None) if mod is not None else None
    if fn is not None:
        for args, kw in (((), {"hidden": tuple(hidden), "activation": activation,
                               "shared": shared}),
                         ((), {"hidden": tuple(hidden), "activation": activation}),
                         ((tuple(hidden), activation), {})):
            try:
                return dict(fn(*args, **kw))
            except TypeError:
                continue
    import torch.nn as nn
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    arch = list(hidden) if shared else {"pi": list(hidden), "vf": list(hidden)}
    return {"net_arch": arch, "activation_fn": act, "ortho_init": True}


def _sb3_runner(spec, settings: Settings):
    """``(run, None)`` where ``run(total_steps, net) -> dict`` trains
    sb3-contrib's MaskablePPO on the native SB3 VecEnv in strict mode (an
    illegal action raises), with the fast PPO's network and batch shape."""
    if _import_optional("sb3_contrib") is None:
        return None, "sb3_contrib is not installed (pip install dungeonrl[train])"

    def run(total, net, shape=None):
        from sb3_contrib import MaskablePPO
        from ..envs.core.errors import IllegalActionError
        from ..envs.core.vector import DungeonSB3VecEnv
        shape = shape or train_shape(settings)
        n_envs, n_steps = shape["num_envs"], shape["num_steps"]
        venv = DungeonSB3VecEnv(spec.name, num_envs=n_envs, seed=settings.seed,
                                illegal_action="raise")
        kwargs = _sb3_policy_kwargs(net["hidden"], net["activation"], net["shared"])
        from stable_baselines3.common.callbacks import BaseCallback

        class RolloutTimer(BaseCallback):
            """Time spent collecting rollouts (the rest of learn() is updates)."""

            def __init__(self):
                super().__init__()
                self.rollout_s, self._t = 0.0, None

            def _on_rollout_start(self):
                self._t = time.perf_counter()

            def _on_rollout_end(self):
                self.rollout_s += time.perf_counter() - self._t

            def _on_step(self):
                return True

        import torch
        if settings.torch_threads:
            torch.set_num_threads(settings.torch_threads)
        model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps,
                            batch_size=max(2, n_envs * n_steps // shape["num_minibatches"]),
                            n_epochs=shape["update_epochs"], policy_kwargs=kwargs,
                            seed=settings.seed, device="cpu", verbose=0)
        timer = RolloutTimer()
        t0 = time.perf_counter()
        try:
            model.learn(total_timesteps=int(total), callback=timer)
        except IllegalActionError as e:
            raise IllegalActionInBenchmark(f"SB3 MaskablePPO ({spec.name}): {e}") from e
        dt = time.perf_counter() - t0
        venv.close()
        return {"env_steps": int(model.num_timesteps), "seconds": dt, "wall_s": dt,
                "rollout_s": timer.rollout_s, "update_s": dt - timer.rollout_s,
                "policy_kwargs": {k: (v.__name__ if isinstance(v, type) else v)
                                  for k, v in kwargs.items()}, **shape}
    return run, None


def bench_training(spec, settings: Settings, log) -> dict:
    """Env-steps/s of the fast PPO and of SB3 MaskablePPO with the same
    network and batch shape (single-agent games)."""
    if spec.multi_agent:
        return {"sb3": skipped("multi-agent game: training throughput is measured on "
                               "single-agent games"),
                "fast_ppo": skipped("multi-agent game")}
    out: dict[str, Any] = {}
    net = {"hidden": [256, 256], "activation": "tanh", "shared": False}
    mod = _import_optional("dungeonrl.agents.ppo")
    if mod is not None and hasattr(mod, "PPOConfig"):
        c = mod.PPOConfig()
        net = {"hidden": list(getattr(c, "hidden", net["hidden"])),
               "activation": getattr(c, "activation", "tanh"),
               "shared": bool(getattr(c, "shared", False))}
    for algo, factory, total in (("fast_ppo", _fast_ppo_runner, settings.train_steps_fast),
                                 ("sb3", _sb3_runner, settings.train_steps_sb3)):
        fn, reason = factory(spec, settings)
        if fn is None:
            out[algo] = unavailable(reason)
        else:
            try:
                args = () if algo == "fast_ppo" else (net,)
                if settings.mode != "tiny":   # one-time costs (torch imports, first calls)
                    small = dict(train_shape(dataclasses.replace(settings, mode="tiny")))
                    fn(small["num_envs"] * small["num_steps"], *args, shape=small)
                c0 = time.process_time()
                r = fn(total, *args)
                cpu = time.process_time() - c0
                import torch
                out[algo] = {"status": "ok", "median": r["env_steps"] / r["seconds"],
                             "cpu_median": r["env_steps"] / max(cpu, 1e-9),
                             "unit": "env-steps/s", "torch_threads": torch.get_num_threads(),
                             **r}
            except IllegalActionInBenchmark:
                raise
            except Exception as e:  # written concurrently by others: record, do not crash
                out[algo] = unavailable(f"{type(e).__name__}: {e}")
        label = "fast PPO" if algo == "fast_ppo" else "SB3 MaskablePPO"
        log(f"  training {label}: {_fmt_fig(out[algo])}")
    out["network"] = net
    out["shape"] = train_shape(settings)
    return out


# --- profiling -----------------------------------------------------------------------------------
def _cprofile(run: Callable[[int], int], k: int, top: int = 12) -> dict:
    """cProfile ``run(k)``; the ``top`` functions by own time, per step."""
    import cProfile
    import pstats
    run(max(1, k // 10))   # warm
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    steps = run(k)
    prof.disable()
    wall = time.perf_counter() - t0
    st = pstats.Stats(prof, stream=io.StringIO())
    rows = []
    total = sum(v[2] for v in st.stats.values())
    for (file, line, fn), (cc, nc, tt, ct, _) in sorted(
            st.stats.items(), key=lambda kv: -kv[1][2])[:top]:
        where = f"{os.path.basename(file)}:{line}({fn})" if file != "~" else fn
        rows.append({"function": where, "calls_per_step": nc / steps,
                     "own_us_per_step": 1e6 * tt / steps,
                     "cum_us_per_step": 1e6 * ct / steps,
                     "own_share": tt / total if total else 0.0})
    return {"steps": steps, "us_per_step_profiled": 1e6 * wall / steps, "top": rows}


def _per_call_us(fn, n_items: int, min_time: float = 0.2) -> float:
    """Microseconds per item of ``fn()`` (which processes ``n_items``)."""
    fn()
    reps, t0 = 0, time.perf_counter()
    while True:
        fn()
        reps += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return 1e6 * dt / (reps * n_items)


def profile_config(spec, core, players: int, cfg: dict, settings: Settings, sampler) -> dict:
    """Where the time of one configuration goes: the parts of the batched
    step (observation encoding, mask, sampling, legality check, the copies
    the adapter returns) at the reference batch size, and cProfile tables of
    the Python paths."""
    from ..envs.core._batch import BatchBuffers
    n = min(REF_ENVS, max(settings.num_envs))
    mt = max(0.02, min(0.3, settings.min_time / 3))
    buf = BatchBuffers(core, n)
    buf.reset(np.arange(n, dtype=np.uint64))
    for _ in range(20):                      # move off the opening positions
        sampler.batch(buf.masks, buf.actions)
        check_batch(buf.masks, buf.actions, "profile")
        buf.step_autoreset()
    out: dict[str, Any] = {"num_envs": n}
    parts = {
        "observe_us": lambda: core.observe(buf.states, buf.players, buf.obs),
        "legal_mask_us": lambda: core.legal_mask(buf.states, buf.masks),
        "sample_us": lambda: sampler.batch(buf.masks, buf.actions),
        "legality_check_us": lambda: check_batch(buf.masks, buf.actions, "profile"),
        "reset_us": lambda: core.reset(buf.final_states, buf.seeds),
        "obs_copy_us": lambda: buf.obs.copy(),
        "mask_copy_us": lambda: buf.masks.copy(),
        "state_copy_us": lambda: buf.states.copy(),
    }
    out["per_env_step"] = {k: _per_call_us(f, n, mt) for k, f in parts.items()}
    # one env per call: what the single env pays per kernel call (numba's
    # dispatch of structured-array arguments included)
    one = BatchBuffers(core, 1)
    one.reset(np.arange(1, dtype=np.uint64))
    out["per_call_1env"] = {
        "observe_us": _per_call_us(lambda: core.observe(one.states, one.players, one.obs), 1, mt),
        "legal_mask_us": _per_call_us(lambda: core.legal_mask(one.states, one.masks), 1, mt),
    }
    layers = {}
    k1 = median_of(cfg.get("kernel", {}).get("1"))
    if k1:
        layers["kernel_us"] = 1e6 / k1
    b = median_of(cfg.get("batch", {}).get(str(n)))
    if b:
        layers["batch_us"] = 1e6 / b
    v = median_of(cfg.get("vector", {}).get(str(n)))
    if v:
        layers["vector_us"] = 1e6 / v
    p = median_of(cfg.get("python"))
    if p:
        layers["python_us"] = 1e6 / p
    out["per_env_step_layers"] = layers
    kfig = cfg.get("kernel", {}).get("1", {})
    if kfig.get("mean_episode_length"):
        out["mean_episode_length"] = kfig["mean_episode_length"]
        out["reset_us_per_step"] = out["per_env_step"]["reset_us"] / kfig["mean_episode_length"]
    if "kernel_us" in layers:
        pe = out["per_env_step"]
        out["kernel_rules_us_estimate"] = max(
            0.0, layers["kernel_us"] - pe["observe_us"] - pe["legal_mask_us"]
            - out.get("reset_us_per_step", 0.0))
    steps = 200 if settings.mode == "full" else 20
    try:
        if spec.multi_agent:
            env = aec_factory(spec)(num_players=players)
            run = _aec_loop(env, sampler, "profile", settings.seed, check_info=True)
            out["cprofile_aec"] = _cprofile(run, 20 * steps)
        else:
            import gymnasium as gym
            env = gym.make(spec.env_id)
            run = _single_loop(env, lambda info: info["action_mask"], sampler, "profile",
                               settings.seed)
            out["cprofile_single"] = _cprofile(run, 20 * steps)
            from ..envs.core.vector import DungeonVectorEnv
            venv = DungeonVectorEnv(spec.name, num_envs=n)
            _, infos = venv.reset(seed=settings.seed)
            box = {"masks": infos["action_mask"]}
            acts = np.zeros(n, np.int64)

            def vrun(k):
                for _ in range(k):
                    sampler.batch(box["masks"], acts)
                    check_batch(box["masks"], acts, "profile")
                    _, _, _, _, inf = venv.step(acts)
                    box["masks"] = inf["action_mask"]
                return k

            fig = guarded(_vector_variant, spec, n, settings, sampler, episode_info=False)
            out["vector_no_episode_info_us"] = 1e6 / fig["median"] if ok(fig) else None
            prof = _cprofile(vrun, max(5, steps // 4))
            for row in prof["top"]:          # per batched step -> per env-step
                for key in ("own_us_per_step", "cum_us_per_step"):
                    row[key] /= n
            prof["us_per_step_profiled"] /= n
            prof["note"] = f"per env-step at {n} envs"
            out["cprofile_vector"] = prof
    except IllegalActionInBenchmark:
        raise
    except Exception as e:
        out["cprofile_error"] = f"{type(e).__name__}: {e}"
    return out


def profile_training(spec, settings: Settings, training: dict, sampler) -> dict:
    """Where training time goes: the SB3 VecEnv alone at the same num_envs
    (its share of SB3's time), the rollout/update split of both paths, and
    both again with a small (64, 64) network and with one torch thread."""
    sb3 = training.get("sb3", {})
    if not ok(sb3):
        return {}
    from ..envs.core.vector import DungeonSB3VecEnv
    n = int(sb3.get("num_envs", train_shape(settings)["num_envs"]))
    venv = DungeonSB3VecEnv(spec.name, num_envs=n, seed=settings.seed)
    venv.reset()
    acts = np.zeros(n, np.int64)

    def run(k):
        for _ in range(k):
            masks = venv.action_masks().astype(np.int8)
            sampler.batch(masks, acts)
            check_batch(masks, acts, "profile sb3 vecenv")
            venv.step(acts)
        return k * n

    fig = measure(run, 1, max(0.05, settings.min_time / 2))
    out = {"sb3_vecenv_steps_per_s": fig["median"],
           "sb3_env_time_share": sb3["median"] / fig["median"], "sb3_num_envs": n}
    for algo in ("sb3", "fast_ppo"):
        r = training.get(algo, {})
        if ok(r) and r.get("seconds"):
            out[f"{algo}_rollout_share"] = r.get("rollout_s", 0.0) / r["seconds"]
            out[f"{algo}_update_share"] = r.get("update_s", 0.0) / r["seconds"]
            out[f"{algo}_us_per_step"] = 1e6 * r["seconds"] / r["env_steps"]
    # the same comparison with a small network (how much of the ratio is
    # torch) and with one torch thread (intra-op threads on busy cores)
    net = dict(training.get("network", {}))
    if not (ok(training.get("fast_ppo")) and net) or settings.mode == "tiny":
        return out
    import torch
    threads0 = torch.get_num_threads()
    shape = train_shape(settings)
    total = shape["num_envs"] * shape["num_steps"]
    variants = {"small_net": ({"hidden": [64, 64]}, 0),
                "one_thread": ({}, 1)}
    for key, (net_change, threads) in variants.items():
        s2 = dataclasses.replace(settings, torch_threads=threads or settings.torch_threads)
        fast, _ = _fast_ppo_runner(spec, s2)
        sb3_run, _ = _sb3_runner(spec, s2)
        n2 = {**net, **net_change}
        try:
            rf = fast(total, hidden=n2["hidden"])
            rs = sb3_run(total, n2)
        except IllegalActionInBenchmark:
            raise
        except Exception as e:   # the agents are written concurrently: record it
            out[key] = {"error": f"{type(e).__name__}: {e}"}
            continue
        finally:
            torch.set_num_threads(threads0)
        v = {"hidden": list(n2["hidden"]), "torch_threads": threads or threads0,
             "env_steps": total, "fast_ppo_steps_per_s": rf["env_steps"] / rf["seconds"],
             "sb3_steps_per_s": rs["env_steps"] / rs["seconds"]}
        v["ratio"] = v["fast_ppo_steps_per_s"] / v["sb3_steps_per_s"]
        out[key] = v
    return out


# --- the run -----------------------------------------------------------------------------------------
def machine_info() -> dict:
    from importlib.metadata import PackageNotFoundError, version
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = {"python": platform.python_version()}
    for dist in ("numpy", "numba", "gymnasium", "pettingzoo", "torch", "open_spiel",
                 "stable-baselines3", "sb3-contrib", "rlcard", "pygame"):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            versions[dist] = None
    try:
        from .. import __version__
        versions["dungeonrl"] = __version__
    except ImportError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / 2**20
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": mem,
            "platform": platform.platform(), "versions": versions}


def _loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def run(settings: Settings | None = None, sampler=None, log: Callable = print) -> dict:
    """Run the suite; returns the result dict (see :func:`validate`).
    ``sampler`` replaces the random legal sampler (the tests inject an
    illegal one)."""
    import dungeonrl  # noqa: F401  (registers the games)
    from ..registry import get_spec, list_games

    settings = settings or Settings()
    sampler = sampler or RandomLegalSampler(settings.seed)
    t_log = time.perf_counter()
    plain_log = log

    def log(msg):
        plain_log(f"[{time.perf_counter() - t_log:6.1f}s] {msg}")

    if settings.python_min_time is None:
        settings = dataclasses.replace(settings, python_min_time=settings.min_time)
    t_start = time.perf_counter()
    res: dict[str, Any] = {
        "schema": SCHEMA, "suite": "dungeonrl.benchmarks.suite", "mode": settings.mode,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": " ".join(sys.argv),
        "machine": machine_info(), "load_before": _loadavg(),
        "settings": {**dataclasses.asdict(settings), "thread_counts": list(settings.thread_counts())},
        "targets_spec": dict(TARGETS), "games": {}, "peers": {},
    }
    m = res["machine"]
    log(f"dungeonrl bench suite ({settings.mode}) on {m['cpu']}, {m['cores']} cores, "
        f"load {res['load_before']}")
    names = list(settings.games) or list_games()
    threads = settings.thread_counts()
    first_pass = None
    if settings.peers and settings.mode != "quick":
        log("peers, first pass")
        first_pass = run_peers(settings, sampler, log, sweep=False)
    with ThreadPoolExecutor(max(threads)) as pool:
        for name in names:
            spec = get_spec(name)
            g: dict[str, Any] = {"env_id": spec.env_id, "multi_agent": bool(spec.multi_agent),
                                 "configs": {}}
            res["games"][spec.name] = g
            counts = player_counts(spec)
            if settings.max_configs:
                counts = counts[:settings.max_configs]
            for players in counts:
                log(f"{spec.name} ({players} player{'s' if players > 1 else ''})")
                cfg: dict[str, Any] = {"players": players, "core_kwargs": core_kwargs(spec, players)}
                g["configs"][str(players)] = cfg
                core = make_core(spec, players)
                cfg["kernel"] = {}
                for t in threads:
                    fig = guarded(bench_kernel, core, settings, t, pool)
                    cfg["kernel"][str(t)] = fig
                    log(f"  kernel {t} thread(s): {_fmt_fig(fig)}")
                cfg["batch"] = {}
                sizes = settings.num_envs if settings.sweep_batch else \
                    [n for n in settings.num_envs if n == REF_ENVS] or [max(settings.num_envs)]
                for n in sizes:
                    fig = guarded(bench_batch, core, n, settings, sampler)
                    cfg["batch"][str(n)] = fig
                    log(f"  batch (core step_autoreset) x{n}: {_fmt_fig(fig)}")
                if not spec.multi_agent:
                    cfg["vector"] = {}
                    for n in settings.num_envs:
                        fig = guarded(bench_vector, spec, n, settings, sampler)
                        cfg["vector"][str(n)] = fig
                        log(f"  vector env x{n}: {_fmt_fig(fig)}")
                    cfg["python"] = guarded(bench_single, spec, settings, sampler)
                    cfg["python"]["api"] = "gymnasium.make(...).step"
                    log(f"  single env: {_fmt_fig(cfg['python'])}")
                else:
                    cfg["python"] = guarded(bench_aec, spec, players, settings, sampler)
                    cfg["python"]["api"] = "pettingzoo AEC loop"
                    log(f"  AEC loop: {_fmt_fig(cfg['python'])}")
                if settings.memory and (settings.memory_all_configs or players == counts[-1]):
                    cfg["memory"] = _safe(bench_memory, spec, players, core, settings)
                    log(f"  memory: {_fmt_memory(cfg['memory'])}")
                else:
                    cfg["memory"] = {"status": "skipped", **buffer_bytes_per_env(core),
                                     "reason": "peak RSS measured for the largest player count"
                                     if settings.memory else "disabled"}
                if settings.profile:
                    cfg["profile"] = profile_config(spec, core, players, cfg, settings, sampler)
            g["training"] = (bench_training(spec, settings, log) if settings.train else
                             {"sb3": skipped("disabled"), "fast_ppo": skipped("disabled")})
            if settings.profile and settings.train:
                g["training"]["profile"] = _safe(profile_training, spec, settings,
                                                 g["training"], sampler)
            if settings.start:
                g["start"] = _safe(bench_start, spec, settings)
            else:
                g["start"] = skipped("disabled")
            log(f"  start: {_fmt_start(g['start'])}")
    if settings.peers:
        log("peers, second pass" if first_pass is not None else "peers")
        res["peers"] = run_peers(settings, sampler, log, first=first_pass)
    res["targets"] = evaluate_targets(res)
    res["load_after"] = _loadavg()
    res["elapsed_s"] = time.perf_counter() - t_start
    return res


def _safe(fn, *args) -> dict:
    """Like :func:`guarded`, and a failed subprocess is recorded too."""
    try:
        return guarded(fn, *args)
    except IllegalActionInBenchmark:
        raise
    except (RuntimeError, OSError, subprocess.SubprocessError, ValueError) as e:
        return unavailable(f"{type(e).__name__}: {e}")


# --- targets and ratios -------------------------------------------------------------------------------
def _ratio(a, b):
    return a / b if (a is not None and b) else None


def ref_vector(cfg: dict) -> tuple[str, dict | None]:
    """The vector figure at :data:`REF_ENVS` envs: the Gymnasium adapter for
    single-agent games, the batched core path for multi-agent ones."""
    layer = "vector" if "vector" in cfg else "batch"
    return layer, cfg.get(layer, {}).get(str(REF_ENVS))


def evaluate_targets(res: dict) -> list:
    peers = res.get("peers", {})
    leduc = median_of(peers.get("os_leduc_poker"))
    cartpole = median_of(peers.get("cartpole_single"))
    c4 = median_of(peers.get("pz_connect_four"))
    out = []

    def add(tid, game, players, label, value, target, higher=True, basis="", cpu=None):
        met = None if value is None else (value >= target if higher else value <= target)
        out.append({"id": tid, "game": game, "players": players, "label": label,
                    "value": value, "target": target, "direction": ">=" if higher else "<=",
                    "met": met, "basis": basis, "value_cpu": cpu})

    def cpu_ratio(a, b):
        return _ratio(cpu_of(a), cpu_of(b))

    for name, g in res.get("games", {}).items():
        for pkey, cfg in g["configs"].items():
            p = int(pkey)
            k1 = median_of(cfg.get("kernel", {}).get("1"))
            kfig = cfg.get("kernel", {}).get("1")
            add("kernel_vs_leduc", name, p, "kernel (1 thread) / OpenSpiel leduc_poker",
                _ratio(k1, leduc), TARGETS["kernel_vs_leduc"],
                basis="core.random_rollout, 1 thread",
                cpu=cpu_ratio(kfig, peers.get("os_leduc_poker")))
            layer, fig = ref_vector(cfg)
            add("vector_vs_leduc", name, p, f"{layer} at {REF_ENVS:,} envs / OpenSpiel leduc_poker",
                _ratio(median_of(fig), leduc), TARGETS["vector_vs_leduc"], basis=layer,
                cpu=cpu_ratio(fig, peers.get("os_leduc_poker")))
            if g["multi_agent"]:
                add("aec_vs_connect_four", name, p, "AEC loop / PettingZoo connect_four_v3",
                    _ratio(median_of(cfg.get("python")), c4), TARGETS["aec_vs_connect_four"],
                    cpu=cpu_ratio(cfg.get("python"), peers.get("pz_connect_four")))
            else:
                add("single_vs_cartpole", name, p, "gymnasium.make step / CartPole-v1",
                    _ratio(median_of(cfg.get("python")), cartpole),
                    TARGETS["single_vs_cartpole"],
                    cpu=cpu_ratio(cfg.get("python"), peers.get("cartpole_single")))
        tr = g.get("training", {})
        if not g["multi_agent"]:
            add("fast_ppo_vs_sb3", name, None,
                "fast PPO / SB3 MaskablePPO, same batch shape (env-steps/s)",
                _ratio(median_of(tr.get("fast_ppo")), median_of(tr.get("sb3"))),
                TARGETS["fast_ppo_vs_sb3"],
                cpu=cpu_ratio(tr.get("fast_ppo"), tr.get("sb3")))
        st = g.get("start", {})
        add("warm_start_s", name, None, "warm start to first step (s)",
            st.get("warm_s") if ok(st) else None, TARGETS["warm_start_s"], higher=False)
    return out


# --- validation of the JSON ------------------------------------------------------------------------------
TOP_FIELDS = ("schema", "suite", "mode", "created", "command", "machine", "load_before",
              "load_after", "elapsed_s", "settings", "targets_spec", "games", "peers", "targets")
MACHINE_FIELDS = ("cpu", "cores", "platform", "versions")
VERSION_FIELDS = ("python", "numpy", "numba", "gymnasium", "pettingzoo", "torch", "open_spiel")
CONFIG_FIELDS = ("players", "kernel", "batch", "python", "memory")
MEMORY_FIELDS = ("state_bytes", "buffer_bytes_per_env")
GAME_FIELDS = ("env_id", "multi_agent", "configs", "training", "start")
PEER_FIELDS = tuple(PEERS) + ("cartpole_vector",)
TARGET_FIELDS = ("id", "game", "players", "label", "value", "target", "direction", "met")


def _check_fig(fig, where, problems):
    if not isinstance(fig, dict) or "status" not in fig:
        problems.append(f"{where}: not a figure")
    elif fig["status"] == "ok":
        for k in ("median",):
            if not isinstance(fig.get(k), (int, float)):
                problems.append(f"{where}: no {k}")
    elif fig["status"] in ("unavailable", "skipped"):
        if not fig.get("reason"):
            problems.append(f"{where}: {fig['status']} without a reason")
    else:
        problems.append(f"{where}: unknown status {fig['status']!r}")


def validate(res: dict) -> list:
    """Problems with a result dict (empty list = every field is there)."""
    problems = [f"missing top-level field {k!r}" for k in TOP_FIELDS if k not in res]
    if problems:
        return problems
    m = res["machine"]
    problems += [f"machine: missing {k!r}" for k in MACHINE_FIELDS if k not in m]
    problems += [f"machine.versions: missing {k!r}" for k in VERSION_FIELDS
                 if k not in m.get("versions", {})]
    for name, g in res["games"].items():
        problems += [f"{name}: missing {k!r}" for k in GAME_FIELDS if k not in g]
        for p, cfg in g.get("configs", {}).items():
            w = f"{name}[{p}]"
            problems += [f"{w}: missing {k!r}" for k in CONFIG_FIELDS if k not in cfg]
            if not g.get("multi_agent") and "vector" not in cfg:
                problems.append(f"{w}: missing 'vector'")
            for layer in ("kernel", "batch", "vector"):
                for key, fig in cfg.get(layer, {}).items():
                    _check_fig(fig, f"{w}.{layer}[{key}]", problems)
            _check_fig(cfg.get("python"), f"{w}.python", problems)
            mem = cfg.get("memory", {})
            problems += [f"{w}.memory: missing {k!r}" for k in MEMORY_FIELDS if k not in mem]
        tr = g.get("training", {})
        for algo in ("sb3", "fast_ppo"):
            _check_fig(tr.get(algo), f"{name}.training.{algo}", problems)
        st = g.get("start", {})
        if not isinstance(st, dict) or "status" not in st:
            problems.append(f"{name}.start: not a figure")
        elif st["status"] == "ok":
            problems += [f"{name}.start: missing {k!r}" for k in ("cold_s", "warm_s") if k not in st]
    if res["peers"]:
        problems += [f"peers: missing {k!r}" for k in PEER_FIELDS if k not in res["peers"]]
        for k in PEERS:
            if k in res["peers"]:
                _check_fig(res["peers"][k], f"peers.{k}", problems)
        for n, fig in res["peers"].get("cartpole_vector", {}).get("by_num_envs", {}).items():
            _check_fig(fig, f"peers.cartpole_vector[{n}]", problems)
    for t in res["targets"]:
        problems += [f"target {t.get('id')}: missing {k!r}" for k in TARGET_FIELDS if k not in t]
    return problems


# --- presentation ---------------------------------------------------------------------------------------
def _fmt_rate(x) -> str:
    return "-" if x is None else f"{x:,.0f}"


def _short(text, n: int = 60) -> str:
    text = str(text)
    return text if len(text) <= n else text[:n - 3] + "..."


def _fmt_fig(fig, short: bool = False) -> str:
    if ok(fig):
        return f"{fig['median']:,.0f} {fig.get('unit', 'steps/s')}"
    reason = _short(fig.get("reason")) if short else fig.get("reason")
    return f"{fig.get('status')}: {reason}"


def _cell(fig) -> str:
    """A figure in the table: the median, or the status with a short reason."""
    return _fmt_rate(median_of(fig)) if ok(fig) else _fmt_fig(fig, short=True)


def _fmt_memory(mem) -> str:
    if mem.get("status") != "ok":
        return f"{mem.get('status')}: {_short(mem.get('reason') or mem.get('note'))}"
    peak = mem.get("peak_rss_mb")
    delta = mem.get("peak_delta_mb")
    grew = "" if delta is None else f" (+{delta:,.0f} MB for the envs)"
    return (f"{mem['state_bytes']:,} B/state, {mem['buffer_bytes_per_env']:,} B/env buffers, "
            f"peak RSS {'-' if peak is None else f'{peak:,.0f} MB'}{grew} at "
            f"{mem['num_envs']:,} envs")


def _fmt_start(st) -> str:
    if not ok(st):
        return f"{st.get('status')}: {_short(st.get('reason'))}"
    cold = "-" if st.get("cold_s") is None else f"{st['cold_s']:.1f} s"
    return f"cold {cold}, warm {st['warm_s']:.2f} s"


def _fmt_x(r) -> str:
    return "" if r is None else (f"{r:.2f}x" if r < 10 else f"{r:.1f}x")


def rows(res: dict, compact: bool = False) -> list:
    """``(what, figure, ratio note)`` rows of the summary table; ``compact``
    keeps only the smallest, the reference and the largest ``num_envs`` of
    each sweep (the plots show the whole sweep)."""
    def keep(sizes):
        if not compact or not sizes:
            return list(sizes)
        ints = sorted(int(n) for n in sizes)
        return [str(n) for n in ints if n in (ints[0], REF_ENVS, ints[-1])]

    peers = res.get("peers", {})
    leduc = median_of(peers.get("os_leduc_poker"))
    cartpole = median_of(peers.get("cartpole_single"))
    c4 = median_of(peers.get("pz_connect_four"))
    cp_vec = peers.get("cartpole_vector", {}).get("by_num_envs", {})
    out = []
    for name, g in res["games"].items():
        for pkey, cfg in g["configs"].items():
            tag = f"{name}" + (f" {pkey}p" if g["multi_agent"] else "")
            for t, fig in cfg["kernel"].items():
                r = _ratio(median_of(fig), leduc)
                out.append((f"{tag} kernel, {t} thread{'s' if t != '1' else ''}",
                            _cell(fig),
                            f"{_fmt_x(r)} OS leduc" if r else ""))
            layer = "vector" if "vector" in cfg else "batch"
            for n in keep(cfg[layer]):
                fig = cfg[layer][n]
                r = _ratio(median_of(fig), leduc)
                rc = _ratio(median_of(fig), median_of(cp_vec.get(n)))
                note = ", ".join(x for x in (f"{_fmt_x(r)} OS leduc" if r else "",
                                             f"{_fmt_x(rc)} CartPole vec" if rc else "") if x)
                label = "vector env" if layer == "vector" else "batched core"
                out.append((f"{tag} {label} x{int(n):,}", _cell(fig), note))
            if layer == "vector" and str(REF_ENVS) in cfg.get("batch", {}):
                fig = cfg["batch"][str(REF_ENVS)]
                out.append((f"{tag} batched core x{REF_ENVS:,} (no adapter)", _cell(fig), ""))
            fig = cfg["python"]
            if g["multi_agent"]:
                r = _ratio(median_of(fig), c4)
                out.append((f"{tag} AEC loop", _cell(fig),
                            f"{_fmt_x(r)} PZ connect_four" if r else ""))
            else:
                r = _ratio(median_of(fig), cartpole)
                out.append((f"{tag} single env (gymnasium.make)", _cell(fig),
                            f"{_fmt_x(r)} CartPole" if r else ""))
            out.append((f"{tag} memory", _fmt_memory(cfg["memory"]), ""))
        tr = g.get("training", {})
        if not g["multi_agent"]:
            for algo, label in (("sb3", "SB3 MaskablePPO"), ("fast_ppo", "fast PPO")):
                fig = tr.get(algo, {})
                out.append((f"{name} train {label} (env-steps/s)", _cell(fig), ""))
        out.append((f"{name} start-up", _fmt_start(g.get("start", {})), ""))
    for key, (label, *_rest) in PEERS.items():
        fig = peers.get(key)
        if fig is not None:
            out.append((f"peer: {label}", _cell(fig), ""))
    for n in keep(cp_vec):
        out.append((f"peer: CartPole-v1 numpy vector x{int(n):,}", _cell(cp_vec[n]), ""))
    return out


def _fmt_target(t) -> str:
    v = t["value"]
    if v is None:
        shown = "n/a"
    elif t["id"] == "warm_start_s":
        shown = f"{v:.2f} s"
    else:
        shown = f"{v:.2f}x"
        if t.get("value_cpu") is not None:
            shown += f" (cpu {t['value_cpu']:.2f}x)"
    goal = f"{t['direction']} {t['target']:g}" + (" s" if t["id"] == "warm_start_s" else "x")
    state = {True: "met", False: "MISSED", None: "not measured"}[t["met"]]
    return shown, goal, state


def table(res: dict) -> str:
    m = res["machine"]
    s = res["settings"]
    head = (f"dungeonrl throughput suite ({res['mode']}): {m['cpu']}, {m['cores']} cores; "
            f"load {res.get('load_before')} -> {res.get('load_after')}; "
            f"medians of {s['repeats']} repeats of ~{s['min_time']:g} s; steps/s")
    body = rows(res)
    w0 = max(len(r[0]) for r in body)
    w1 = max(len(r[1]) for r in body)
    lines = [head, ""] + [f"{a:<{w0}}  {b:>{w1}}  {c}".rstrip() for a, b, c in body]
    lines += ["", "targets (reported, not asserted; cpu = the ratio in steps per CPU-second):"]
    for t in res["targets"]:
        shown, goal, state = _fmt_target(t)
        who = t["game"] + (f" {t['players']}p" if t["players"] and t["players"] > 1 else "")
        lines.append(f"  {who:<18s} {t['label']:<52s} {shown:>22s}  {goal:<8s} {state}")
    return "\n".join(lines)


def profile_text(res: dict) -> str:
    """Where the time goes, per game configuration (from the profile data)."""
    lines = []
    for name, g in res["games"].items():
        for pkey, cfg in g["configs"].items():
            pr = cfg.get("profile")
            if not pr:
                continue
            lines.append(f"{name} ({pkey}p): microseconds per env-step at {pr['num_envs']} envs")
            lay = pr.get("per_env_step_layers", {})
            lines.append("  layers: " + ", ".join(f"{k[:-3]} {v:.3f}" for k, v in lay.items()))
            if pr.get("vector_no_episode_info_us"):
                lines.append(f"  vector with episode_info=False: "
                             f"{pr['vector_no_episode_info_us']:.3f}")
            lines.append("  parts:  " + ", ".join(f"{k[:-3]} {v:.3f}"
                                                  for k, v in pr["per_env_step"].items()))
            if "per_call_1env" in pr:
                lines.append("  one-env calls: " + ", ".join(
                    f"{k[:-3]} {v:.3f}" for k, v in pr["per_call_1env"].items()))
            if "reset_us_per_step" in pr:
                lines.append(f"  episodes of {pr['mean_episode_length']:.0f} steps: a reset costs "
                             f"{pr['reset_us_per_step']:.3f} per step")
            if "kernel_rules_us_estimate" in pr:
                lines.append(f"  kernel rules (kernel - observe - mask - reset) ~ "
                             f"{pr['kernel_rules_us_estimate']:.3f}")
            for key in ("cprofile_single", "cprofile_vector", "cprofile_aec"):
                cp = pr.get(key)
                if not cp:
                    continue
                lines.append(f"  {key}: {cp['us_per_step_profiled']:.2f} us/step under cProfile "
                             f"{cp.get('note', '')}".rstrip())
                for row in cp["top"][:8]:
                    lines.append(f"    {row['own_us_per_step']:8.3f} us own  "
                                 f"{100 * row['own_share']:5.1f}%  {row['function']}")
        tp = g.get("training", {}).get("profile")
        if tp:
            lines.append(f"{name} training: SB3 VecEnv alone {tp['sb3_vecenv_steps_per_s']:,.0f} "
                         f"steps/s at {tp['sb3_num_envs']} envs; env share of SB3 training "
                         f"time ~{100 * tp['sb3_env_time_share']:.1f}%")
            for algo in ("fast_ppo", "sb3"):
                if f"{algo}_us_per_step" in tp:
                    lines.append(f"  {algo}: {tp[f'{algo}_us_per_step']:.1f} us/env-step; "
                                 f"rollout {100 * tp[f'{algo}_rollout_share']:.0f}%, "
                                 f"update {100 * tp[f'{algo}_update_share']:.0f}%")
            for key in ("small_net", "one_thread"):
                sn = tp.get(key)
                if sn and "ratio" in sn:
                    lines.append(f"  {key} ({sn['hidden']}, {sn['torch_threads']} torch "
                                 f"thread(s)): fast PPO {sn['fast_ppo_steps_per_s']:,.0f}, SB3 "
                                 f"{sn['sb3_steps_per_s']:,.0f} env-steps/s ({sn['ratio']:.2f}x)")
        st = g.get("start", {})
        if ok(st) and st.get("warm_breakdown_s"):
            lines.append(f"{name} warm start: " + ", ".join(
                f"{k[:-2]} {v:.2f} s" for k, v in st["warm_breakdown_s"].items()))
    return "\n".join(lines)


# --- plots ------------------------------------------------------------------------------------------------------
def plot(res: dict, out_dir: str, prefix: str = "suite") -> list:
    """PNG plots; returns the file names written (relative to ``out_dir``)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    peers = res.get("peers", {})
    cp_vec = peers.get("cartpole_vector", {}).get("by_num_envs", {})
    for name, g in res["games"].items():
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2),
                                      gridspec_kw={"width_ratios": [2.2, 1]})
        tcounts = set()
        for ci, (pkey, cfg) in enumerate(g["configs"].items()):
            tag = f" {pkey}p" if g["multi_agent"] else ""
            multi = len(g["configs"]) > 1
            for li, (layer, style) in enumerate((("vector", "o-"), ("batch", "s--"))):
                pts = [(int(n), f["median"]) for n, f in cfg.get(layer, {}).items() if ok(f)]
                if pts:
                    xs, ys = zip(*sorted(pts))
                    label = ("vector env (Gymnasium adapter)" if layer == "vector"
                             else "batched core (step_autoreset)") + tag
                    ax.plot(xs, ys, style, color=f"C{ci if multi else li}", label=label)
            k = cfg.get("kernel", {})
            kpts = {int(t): f["median"] for t, f in k.items() if ok(f)}
            if kpts:
                t_best = max(kpts, key=kpts.get)
                ax.axhline(kpts[t_best], ls=":", color=f"C{ci if multi else 2}",
                           label=f"kernel (random_rollout), {t_best} thread"
                                 f"{'s' if t_best > 1 else ''}{tag}")
                xs, ys = zip(*sorted(kpts.items()))
                tcounts.update(xs)
                ax2.plot(xs, ys, "o-", color=f"C{ci if multi else 2}", label=f"kernel{tag}")
                ax2.plot(xs, [ys[0] * x / xs[0] for x in xs], ":", color="gray")
        pts = [(int(n), f["median"]) for n, f in cp_vec.items() if ok(f)]
        if pts:
            xs, ys = zip(*sorted(pts))
            ax.plot(xs, ys, "^-", color="black", alpha=0.6, label="CartPole-v1 numpy vector (peer)")
        leduc = median_of(peers.get("os_leduc_poker"))
        if leduc:
            ax.axhline(leduc, ls="--", color="tab:red", alpha=0.6,
                       label="OpenSpiel leduc_poker + obs (peer)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("num_envs")
        ax.set_ylabel("env-steps per second")
        ax.set_title(f"{g['env_id']}: num_envs scaling")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right", ncol=2 if len(g["configs"]) > 1 else 1)
        if tcounts:
            ax2.set_xticks(sorted(tcounts))
        ax2.set_xlabel("threads")
        ax2.set_ylabel("kernel env-steps per second")
        ax2.set_title("kernel thread scaling (dotted: linear)")
        ax2.grid(True, alpha=0.3)
        ax2.legend(fontsize=8)
        fig.suptitle(f"{res['machine']['cpu']}, {res['machine']['cores']} cores ({res['mode']} run)",
                     fontsize=9)
        fig.tight_layout()
        fname = f"{prefix}_scaling_{name}.png"
        fig.savefig(os.path.join(out_dir, fname), dpi=110)
        plt.close(fig)
        written.append(fname)

    bars = []   # (label, value, is_peer)
    for name, g in res["games"].items():
        for pkey, cfg in g["configs"].items():
            tag = name + (f" {pkey}p" if g["multi_agent"] else "")
            kern = cfg.get("kernel", {})
            for t in sorted(kern, key=int):
                if median_of(kern[t]) and (t == "1" or t == max(kern, key=int)):
                    bars.append((f"{tag}: kernel, {t} thread{'s' if t != '1' else ''}",
                                 kern[t]["median"], False))
            layer, f = ref_vector(cfg)
            if median_of(f):
                bars.append((f"{tag}: {layer} x{REF_ENVS}", f["median"], False))
            p = median_of(cfg.get("python"))
            if p:
                bars.append((f"{tag}: {'AEC loop' if g['multi_agent'] else 'single env'}", p, False))
        for algo, label in (("fast_ppo", "train fast PPO"), ("sb3", "train SB3 MaskablePPO")):
            v = median_of(g.get("training", {}).get(algo))
            if v:
                bars.append((f"{name}: {label}", v, False))
    for key, (label, *_r) in PEERS.items():
        v = median_of(peers.get(key))
        if v:
            bars.append((label, v, True))
    v = median_of(cp_vec.get(str(REF_ENVS)))
    if v:
        bars.append((f"CartPole-v1 numpy vector x{REF_ENVS}", v, True))
    if bars:
        fig, ax = plt.subplots(figsize=(9, 0.38 * len(bars) + 1.2))
        labels = [b[0] for b in bars][::-1]
        vals = [b[1] for b in bars][::-1]
        colors = ["tab:gray" if b[2] else "tab:blue" for b in bars][::-1]
        ax.barh(labels, vals, color=colors)
        ax.set_xscale("log")
        for y, v in enumerate(vals):
            ax.text(v, y, f" {v:,.0f}", va="center", fontsize=8)
        ax.set_xlabel("steps per second (log); blue: dungeonrl, gray: peers")
        ax.set_title(f"dungeonrl vs peers, same run ({res['machine']['cpu']}, "
                     f"{res['machine']['cores']} cores)", fontsize=10)
        ax.set_xlim(right=max(vals) * 8)
        fig.tight_layout()
        fname = f"{prefix}_peers.png"
        fig.savefig(os.path.join(out_dir, fname), dpi=110)
        plt.close(fig)
        written.append(fname)
    return written


# --- README section (used by benchmarks/report.py) ---------------------------------------------------------
def markdown(res: dict, image_dir: str = "benchmarks/results") -> str:
    m = res["machine"]
    v = m["versions"]
    s = res["settings"]
    vers = ", ".join(f"{k} {v[k]}" for k in ("python", "numpy", "numba", "gymnasium",
                                              "pettingzoo", "torch", "open_spiel") if v.get(k))
    lines = [
        f"Measured by `dungeonrl bench` ({res['mode']} run, {res['created'][:10]}, "
        f"{res['elapsed_s'] / 60:.1f} min) on {m['cpu']}, {m['cores']} cores; {vers}. "
        f"Medians of {s['repeats']} repeats of ~{s['min_time']:g} s each; load average "
        f"{res.get('load_before')} before, {res.get('load_after')} after. Every benchmark "
        "plays uniformly random legal actions and fails on an illegal one.",
        "",
        "| what | steps/s (median) | vs peer |",
        "|---|---:|---|",
    ]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows(res, compact=True)]
    lines += ["", "Targets (ratios in this run; reported, not asserted; *cpu*: the same ratio "
              "in steps per CPU-second of the process, which other processes on the machine "
              "disturb less):", "",
              "| game | target | measured | goal | |", "|---|---|---:|---|---|"]
    for t in res["targets"]:
        shown, goal, state = _fmt_target(t)
        who = t["game"] + (f" ({t['players']} players)" if t["players"] and t["players"] > 1
                           else "")
        lines.append(f"| {who} | {t['label']} | {shown} | {goal} | {state} |")
    plots = res.get("plots") or []
    if plots:
        lines += ["", "Every num_envs of the sweep, and the kernel's thread scaling, in the plots "
                  f"(the JSON, `{image_dir}/suite.json`, has every figure):", ""]
        lines += [f"![{p[:-4]}]({image_dir}/{p})" for p in plots]
    return "\n".join(lines)


# --- command line ---------------------------------------------------------------------------------------------
def _ints(text: str) -> tuple:
    return tuple(int(x) for x in text.replace(" ", "").split(",") if x)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dungeonrl bench",
        description="throughput suite: every layer of every registered game, peers in the same run")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="first look, under a minute")
    g.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)  # tests
    p.add_argument("--games", default=None, help="comma-separated game names (default: all)")
    p.add_argument("--repeats", type=int, default=None, help="timed repeats per figure")
    p.add_argument("--min-time", type=float, default=None, help="seconds per timed repeat")
    p.add_argument("--envs", "--num-envs", dest="num_envs", type=_ints, default=None,
                   help="num_envs sweep, e.g. 1,16,256 (default 1,16,256,4096,65536)")
    p.add_argument("--threads", type=_ints, default=None, help="kernel thread counts, e.g. 1,2")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-threads", type=int, default=None,
                   help="torch threads of both PPO paths (default: the fast PPO's own)")
    p.add_argument("--json", default=None,
                   help="JSON output (default benchmarks/results/suite.json; suite_quick.json "
                        "with --quick); 'none' to skip")
    p.add_argument("--out", default=None, help="folder of the PNG plots (default: the JSON's)")
    p.add_argument("--from-json", default=None, metavar="PATH",
                   help="measure nothing: print the table and redraw the plots of a saved run")
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--no-train", action="store_true")
    p.add_argument("--no-start", action="store_true")
    p.add_argument("--no-cold", action="store_true", help="skip the cold (compile) start")
    p.add_argument("--no-memory", action="store_true")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--profile", dest="profile", action="store_true", default=None,
                   help="profile where the time goes (default in the full run)")
    p.add_argument("--no-profile", dest="profile", action="store_false")
    return p


def settings_from_args(a) -> Settings:
    mode = "tiny" if a.tiny else "quick" if a.quick else "full"
    s = dataclasses.replace(MODES[mode], seed=a.seed)
    changes: dict[str, Any] = {}
    if a.games:
        changes["games"] = tuple(x for x in a.games.split(",") if x)
    if a.repeats:
        changes["repeats"] = a.repeats
    if a.min_time:
        changes["min_time"] = a.min_time
    if a.num_envs:
        changes["num_envs"] = a.num_envs
    if a.threads:
        changes["threads"] = a.threads
    for flag, key in (("no_peers", "peers"), ("no_train", "train"), ("no_start", "start"),
                      ("no_cold", "start_cold"), ("no_memory", "memory"),
                      ("no_plots", "plots")):
        if getattr(a, flag):
            changes[key] = False
    if a.profile is not None:
        changes["profile"] = a.profile
    if a.torch_threads is not None:
        changes["torch_threads"] = a.torch_threads
    return dataclasses.replace(s, **changes)


def save(res: dict, json_path: str | None, out_dir: str | None, settings: Settings,
         log: Callable = print) -> None:
    prefix = "suite" if settings.mode == "full" else f"suite_{settings.mode}"
    if settings.plots and out_dir:
        os.makedirs(out_dir, exist_ok=True)
        try:
            res["plots"] = plot(res, out_dir, prefix)
            res["plots_dir"] = os.path.abspath(out_dir)
            log("plots: " + ", ".join(os.path.join(out_dir, p) for p in res["plots"]))
        except ImportError as e:
            res["plots"] = []
            log(f"plots skipped: {e}")
    if json_path:
        os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
        with open(json_path, "w") as f:
            json.dump(res, f, indent=1)
        log(f"results: {json_path}")


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.from_json:
        with open(a.from_json) as f:
            res = json.load(f)
        problems = validate(res)
        if problems:
            print("dungeonrl bench: " + "; ".join(problems[:5]), file=sys.stderr)
            return 2
        print(table(res))
        if any(c.get("profile") for g in res["games"].values() for c in g["configs"].values()):
            print("\nwhere the time goes:\n" + profile_text(res))
        if not a.no_plots:
            out_dir = a.out or os.path.dirname(os.path.abspath(a.from_json))
            prefix = "suite" if res["mode"] == "full" else f"suite_{res['mode']}"
            res["plots"] = plot(res, out_dir, prefix)
            with open(a.from_json, "w") as f:
                json.dump(res, f, indent=1)
            print("plots: " + ", ".join(os.path.join(out_dir, p) for p in res["plots"]))
        return 0
    settings = settings_from_args(a)
    default_json = os.path.join(
        RESULTS, "suite.json" if settings.mode == "full" else f"suite_{settings.mode}.json")
    json_path = None if (a.json or "").lower() == "none" else (a.json or default_json)
    out_dir = a.out or (os.path.dirname(os.path.abspath(json_path)) if json_path else RESULTS)
    try:
        res = run(settings)
    except IllegalActionInBenchmark as e:
        print(f"dungeonrl bench: FAILED, a benchmark sampled an illegal action: {e}",
              file=sys.stderr)
        return 3
    print()
    print(table(res))
    if settings.profile:
        print()
        print("where the time goes:")
        print(profile_text(res))
    save(res, json_path, out_dir, settings)
    print(f"total {res['elapsed_s']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
