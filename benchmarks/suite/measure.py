"""Figures: how a loop is timed (:func:`measure`), what a measured,
unavailable or skipped figure looks like, and the guards that turn a
missing peer into ``unavailable`` while an illegal action still fails."""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable
from typing import TypeGuard

from .checks import IllegalActionInBenchmark


def unavailable(reason: str) -> dict:
    return {"status": "unavailable", "reason": str(reason)}


def skipped(reason: str) -> dict:
    return {"status": "skipped", "reason": str(reason)}


def ok(fig) -> TypeGuard[dict]:
    return isinstance(fig, dict) and fig.get("status") == "ok"


def median_of(fig) -> float | None:
    return float(fig["median"]) if ok(fig) else None


def spread(values: list) -> dict | None:
    """The median of per-round ``values`` (``value``), the smallest and the
    largest, and how many rounds; None without any."""
    if not values:
        return None
    return {
        "value": float(statistics.median(values)),
        "min": float(min(values)),
        "max": float(max(values)),
        "rounds": len(values),
    }


def measure(
    run: Callable[[int], int], repeats: int, min_time: float, max_units: int = 1 << 30
) -> dict:
    """Time ``run(k)`` (k units of work, returns env-steps done): calibrate
    ``k`` so one call lasts about ``min_time`` (this also warms up), then
    take ``repeats`` timed calls. Returns a figure dict (median steps/s)."""
    run(1)  # warm-up: load (or compile) the kernels
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
    return {
        "status": "ok",
        "median": float(statistics.median(rates)),
        "min": float(min(rates)),
        "max": float(max(rates)),
        "rates": [float(r) for r in rates],
        "unit": "steps/s",
        "cpu_median": float(statistics.median(cpu_rates)),
        "cpu_rates": [float(r) for r in cpu_rates],
        "steps_per_repeat": int(steps),
    }


def pool_figures(a: dict, b: dict) -> dict:
    """One figure from two passes of the same measurement (medians over all
    repeats); a pass that failed leaves the other."""
    if not ok(a) or not ok(b):
        return a if ok(a) else b
    out = dict(a)
    out.update(
        figure(a["rates"] + b["rates"], a["cpu_rates"] + b["cpu_rates"], a["steps_per_repeat"])
    )
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
        return unavailable(
            f"not implemented by the core: {e}" if str(e) else "not implemented by the core"
        )
    except ImportError as e:
        return unavailable(f"import failed: {e}")
    except Exception as e:
        # gymnasium's DependencyNotInstalled, PettingZoo's FailedToImport (a
        # peer whose extra, e.g. pettingzoo[classic], is not installed)
        if type(e).__name__ in ("DependencyNotInstalled", "FailedToImport"):
            return unavailable(f"dependency not installed: {e}")
        raise


def per_call_us(fn, n_items: int, min_time: float = 0.2) -> float:
    """Microseconds per item of ``fn()`` (which processes ``n_items``)."""
    fn()
    reps, t0 = 0, time.perf_counter()
    while True:
        fn()
        reps += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return 1e6 * dt / (reps * n_items)


def safe(fn, *args) -> dict:
    """Like :func:`guarded`, and a failed subprocess is recorded too."""
    try:
        return guarded(fn, *args)
    except IllegalActionInBenchmark:
        raise
    except (RuntimeError, OSError, subprocess.SubprocessError, ValueError) as e:
        return unavailable(f"{type(e).__name__}: {e}")
