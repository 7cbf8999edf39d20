"""One run of the suite: every configuration of every game, then the
peers (:func:`run`)."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...machine import loadavg, machine_info
from .checks import RandomLegalSampler
from .fmt import fmt_fig, fmt_memory, fmt_start
from .games import core_kwargs, make_core, player_counts
from .layers import bench_aec, bench_batch, bench_kernel, bench_single, bench_vector
from .measure import guarded, safe, skipped
from .paired import fmt_paired, paired_config
from .peers import run_peers
from .profile import profile_config
from .settings import REF_ENVS, SCHEMA, Settings
from .startup import bench_memory, bench_start, buffer_bytes_per_env
from .targets import evaluate_targets, load_baselines, load_cold_start, targets_spec
from .training import bench_training, profile_training


def run(settings: Settings | None = None, sampler=None, log: Callable = print) -> dict:
    """Run the suite; returns the result dict (see :func:`validate`).
    ``sampler`` replaces the random legal sampler (the tests inject an
    illegal one)."""
    import dungeonrl  # noqa: F401  (registers the games)

    from ...registry import get_spec, list_games

    settings = settings or Settings()
    sampler = sampler or RandomLegalSampler(settings.seed)
    t_log = time.perf_counter()
    plain_log = log

    def stamped_log(msg):
        plain_log(f"[{time.perf_counter() - t_log:6.1f}s] {msg}")

    log = stamped_log
    if settings.python_min_time is None:
        settings = dataclasses.replace(settings, python_min_time=settings.min_time)
    t_start = time.perf_counter()
    res: dict[str, Any] = {
        "schema": SCHEMA,
        "suite": "dungeonrl.benchmarks.suite",
        "mode": settings.mode,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": " ".join(sys.argv),
        "machine": machine_info(),
        "load_before": loadavg(),
        "settings": {
            **dataclasses.asdict(settings),
            "thread_counts": list(settings.thread_counts()),
        },
        "targets_spec": targets_spec(),
        "games": {},
        "peers": {},
    }
    m = res["machine"]
    log(
        f"dungeonrl bench suite ({settings.mode}) on {m['cpu']}, {m['cores']} cores, "
        f"load {res['load_before']}"
    )
    names = list(settings.games) or list_games()
    threads = settings.thread_counts()
    first_pass = None
    if settings.peers and settings.mode != "quick":
        log("peers, first pass")
        first_pass = run_peers(settings, sampler, log, sweep=False)
    with ThreadPoolExecutor(max(threads)) as pool:
        for name in names:
            spec = get_spec(name)
            g: dict[str, Any] = {
                "env_id": spec.env_id,
                "multi_agent": bool(spec.multi_agent),
                "configs": {},
            }
            res["games"][spec.name] = g
            counts = player_counts(spec)
            if settings.max_configs:
                counts = counts[: settings.max_configs]
            for players in counts:
                log(f"{spec.name} ({players} player{'s' if players > 1 else ''})")
                g["configs"][str(players)] = run_config(
                    spec, players, counts, settings, sampler, pool, threads, log
                )
            g["training"] = (
                bench_training(spec, settings, log)
                if settings.train
                else {"sb3": skipped("disabled"), "fast_ppo": skipped("disabled")}
            )
            if settings.profile and settings.train:
                g["training"]["profile"] = safe(
                    profile_training, spec, settings, g["training"], sampler
                )
            if settings.start:
                g["start"] = safe(bench_start, spec, settings)
            else:
                g["start"] = skipped("disabled")
            log(f"  start: {fmt_start(g['start'])}")
    if settings.peers:
        log("peers, second pass" if first_pass is not None else "peers")
        res["peers"] = run_peers(settings, sampler, log, first=first_pass)
    res["targets"] = evaluate_targets(res, load_baselines(), load_cold_start())
    res["load_after"] = loadavg()
    res["elapsed_s"] = time.perf_counter() - t_start
    return res


def run_config(
    spec,
    players: int,
    counts: list,
    settings: Settings,
    sampler,
    pool,
    threads: tuple,
    log: Callable,
) -> dict:
    """Every layer of one game configuration (``players`` seats)."""
    cfg: dict[str, Any] = {"players": players, "core_kwargs": core_kwargs(spec, players)}
    core = make_core(spec, players)
    # the float32 columns the in-kernel rollout writes (ns per column, see .guards)
    cfg["obs_columns"] = int(core.spec.obs_size)
    cfg["kernel"] = {}
    for t in threads:
        fig = guarded(bench_kernel, core, settings, t, pool)
        cfg["kernel"][str(t)] = fig
        log(f"  kernel {t} thread(s): {fmt_fig(fig)}")
    cfg["batch"] = {}
    sizes = (
        settings.num_envs
        if settings.sweep_batch
        else [n for n in settings.num_envs if n == REF_ENVS] or [max(settings.num_envs)]
    )
    for n in sizes:
        fig = guarded(bench_batch, core, n, settings, sampler)
        cfg["batch"][str(n)] = fig
        log(f"  batch (core step_autoreset) x{n}: {fmt_fig(fig)}")
    if not spec.multi_agent:
        cfg["vector"] = {}
        for n in settings.num_envs:
            fig = guarded(bench_vector, spec, n, settings, sampler)
            cfg["vector"][str(n)] = fig
            log(f"  vector env x{n}: {fmt_fig(fig)}")
        cfg["python"] = guarded(bench_single, spec, settings, sampler)
        cfg["python"]["api"] = "gymnasium.make(...).step"
        log(f"  single env: {fmt_fig(cfg['python'])}")
    else:
        cfg["python"] = guarded(bench_aec, spec, players, settings, sampler)
        cfg["python"]["api"] = "pettingzoo AEC loop"
        log(f"  AEC loop: {fmt_fig(cfg['python'])}")
    if settings.memory and (settings.memory_all_configs or players == counts[-1]):
        cfg["memory"] = safe(bench_memory, spec, players, core, settings)
        log(f"  memory: {fmt_memory(cfg['memory'])}")
    else:
        cfg["memory"] = {
            "status": "skipped",
            **buffer_bytes_per_env(core),
            "reason": "peak RSS measured for the largest player count"
            if settings.memory
            else "disabled",
        }
    if settings.profile:
        cfg["profile"] = profile_config(spec, core, players, cfg, settings, sampler)
    if settings.paired_rounds:
        cfg["paired"] = guarded(paired_config, spec, core, players, settings, sampler)
        log(f"  paired rounds: {fmt_paired(cfg['paired'])}")
    return cfg
