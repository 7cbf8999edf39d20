"""Ratios measured in paired rounds (what the ratio targets are read from).

A ratio of two medians taken minutes apart moves with the machine: on a
shared cloud core the same loop runs up to 1.5x faster or slower from one
minute to the next, so a kernel timed in a fast phase and the vector env
timed in a slow one give a ratio off by that factor, in either direction.
Here the loops a target compares take turns instead. Every loop is first
calibrated so one call lasts about ``round_time``; then each of ``rounds``
rounds times every loop once (the order rotates from round to round, so no
loop always runs first), and a ratio is the median over the rounds of the
ratio within each round. A drift slower than one round cancels out of it.

:data:`PAIRS` names the two loops of each ratio target; :func:`paired_config`
opens the loops of one game configuration (its kernel with and without
the observation, its vector env or
batched core at :data:`REF_ENVS` envs with the float32 and with the compact
observation, its Python API loop, and the peers
the targets name, unless peers are off), and :func:`interleave` times them.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .measure import guarded, spread, unavailable
from .settings import Settings

#: target id -> (numerator loop, denominator loop)
PAIRS = {
    # the full step's time over the rules-only step's: rules-only rate / full rate
    "step_vs_rules": ("kernel_rules", "kernel"),
    "kernel_vs_leduc": ("kernel", "leduc"),
    "vector_vs_kernel": ("vector", "kernel"),
    "compact_vs_kernel": ("vector_compact", "kernel"),
    "single_vs_cartpole": ("python", "cartpole"),
    "aec_vs_connect_four": ("python", "connect_four"),
}


def calibrate(
    run: Callable[[int], int], round_time: float, clock=time.perf_counter, max_units: int = 1 << 30
) -> int:
    """Units ``k`` for which ``run(k)`` lasts about ``round_time`` (the
    first call warms the loop up: kernels load, caches fill)."""
    run(1)
    k = 1
    while True:
        t0 = clock()
        run(k)
        dt = clock() - t0
        if dt >= round_time / 4 or k >= max_units:
            break
        k = min(max_units, max(2 * k, int(k * (round_time / 3) / max(dt, 1e-9))))
    return max(1, min(max_units, int(round(k * round_time / max(dt, 1e-9)))))


def interleave(
    loops: dict,
    rounds: int,
    round_time: float,
    clock=time.perf_counter,
    cpu_clock=time.process_time,
) -> dict:
    """Time every loop of ``loops`` (name -> ``run(k)`` returning the steps
    done) once per round for ``rounds`` rounds. Returns ``rates`` and
    ``cpu_rates`` (name -> steps/s per round, in round order), ``units``
    (each loop's calibrated ``k``) and the rounds' ``order``."""
    names = list(loops)
    units = {name: calibrate(loops[name], round_time, clock) for name in names}
    rates: dict[str, list[float]] = {name: [] for name in names}
    cpu_rates: dict[str, list[float]] = {name: [] for name in names}
    order = []
    for r in range(rounds):
        turn = names[r % len(names) :] + names[: r % len(names)] if names else []
        order.append(turn)
        for name in turn:
            t0, c0 = clock(), cpu_clock()
            steps = loops[name](units[name])
            rates[name].append(steps / max(clock() - t0, 1e-12))
            cpu_rates[name].append(steps / max(cpu_clock() - c0, 1e-12))
    return {"rates": rates, "cpu_rates": cpu_rates, "units": units, "order": order}


def paired_ratio(num: list, den: list) -> dict | None:
    """The median over rounds of ``num[i] / den[i]``, with the smallest and
    largest per-round ratio; None without rounds."""
    return spread([a / b for a, b in zip(num, den) if b])


def ratios(timed: dict) -> dict:
    """Every :data:`PAIRS` ratio whose two loops were timed: target id ->
    ``paired_ratio`` of the wall-clock rates, plus ``cpu`` (the same from
    steps per CPU-second)."""
    out = {}
    rates, cpu = timed["rates"], timed["cpu_rates"]
    for tid, (a, b) in PAIRS.items():
        if a in rates and b in rates:
            r = paired_ratio(rates[a], rates[b])
            if r is not None:
                c = paired_ratio(cpu[a], cpu[b])
                r["cpu"] = c["value"] if c else None
                out[tid] = r
    return out


def config_loops(spec, core, players: int, settings: Settings, sampler) -> tuple:
    """Open the loops one configuration's ratio targets compare. Returns
    ``(loops, closers, missing)``: name -> ``run(k)``, the objects to
    ``close()`` afterwards, and name -> why a loop could not be opened (a
    peer whose package is not installed)."""
    from .layers import aec_env_loop, batch_loop, kernel_loop, single_env_loop, vector_loop
    from .peers import cartpole_single_loop, openspiel_loop, pettingzoo_loop

    loops, closers, missing = {}, [], {}

    def add(name, opener):
        fig = guarded(lambda: {"status": "ok", "loop": opener()})
        if fig["status"] != "ok":
            missing[name] = fig["reason"]
            return
        got = fig["loop"]
        if isinstance(got, tuple):
            got, obj = got
            closers.append(obj)
        loops[name] = got

    n = settings.paired_envs()
    peers = settings.peers
    add("kernel", lambda: kernel_loop(core, settings, 1)[0])
    add("kernel_rules", lambda: kernel_loop(core, settings, 1, observe=False)[0])
    if spec.multi_agent:
        add("vector", lambda: batch_loop(core, n, settings, sampler))
        add("vector_compact", lambda: batch_loop(core, n, settings, sampler, "float16"))
        add("python", lambda: aec_env_loop(spec, players, settings, sampler))
        if peers:
            add(
                "connect_four",
                lambda: pettingzoo_loop("classic/connect_four-v3", settings, sampler),
            )
    else:
        add("vector", lambda: vector_loop(spec, n, settings, sampler))
        add("vector_compact", lambda: vector_loop(spec, n, settings, sampler, obs_dtype="float16"))
        add("python", lambda: single_env_loop(spec, settings, sampler))
        if peers:
            add("cartpole", lambda: cartpole_single_loop(settings, sampler))
    if peers:
        add("leduc", lambda: openspiel_loop("leduc_poker", settings, sampler))
    return loops, closers, missing


def paired_config(spec, core, players: int, settings: Settings, sampler) -> dict:
    """The paired rounds of one game configuration (see the module doc):
    ``rates`` and ``cpu_rates`` per loop and round, ``ratios`` per target
    id, ``missing`` loops with the reason."""
    if settings.paired_rounds < 1:
        return unavailable("paired rounds disabled (paired_rounds=0)")
    loops, closers, missing = config_loops(spec, core, players, settings, sampler)
    try:
        timed = interleave(loops, settings.paired_rounds, settings.paired_time)
    finally:
        for obj in closers:
            obj.close()
    return {
        "status": "ok",
        "rounds": settings.paired_rounds,
        "round_time": settings.paired_time,
        "num_envs": settings.paired_envs(),
        "vector_layer": "batch" if spec.multi_agent else "vector",
        **timed,
        "ratios": ratios(timed),
        "missing": missing,
    }


def fmt_paired(fig: dict) -> str:
    """One log line: each ratio with its range over the rounds."""
    if fig.get("status") != "ok":
        return f"{fig.get('status')}: {fig.get('reason', '')}"
    parts = [
        f"{tid} {r['value']:.2f}x [{r['min']:.2f}, {r['max']:.2f}]"
        for tid, r in fig["ratios"].items()
    ]
    if fig.get("missing"):
        parts.append("missing: " + ", ".join(sorted(fig["missing"])))
    return f"{fig['rounds']} rounds, vector loop x{fig.get('num_envs')}; " + (
        "; ".join(parts) or "no ratio"
    )
