"""What machine a figure was measured on: CPU model, cores, memory,
platform, package versions (:func:`machine_info`), and the load average
(:func:`loadavg`). The one copy every benchmark and model card records;
it sits at the package's root, below the agents and the benchmarks, and
imports nothing of the project."""

from __future__ import annotations

import os
import platform

#: distributions whose versions every result file records (None when absent)
VERSIONED = (
    "numpy",
    "numba",
    "gymnasium",
    "pettingzoo",
    "torch",
    "open_spiel",
    "stable-baselines3",
    "sb3-contrib",
    "rlcard",
    "pygame",
    "envpool",
)


def cpu_model() -> str:
    """The CPU model name (``/proc/cpuinfo``; ``platform`` elsewhere)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return cpu


def machine_info() -> dict:
    """``{"cpu", "cores", "memory_gb", "platform", "versions"}``; ``versions``
    has ``python``, ``dungeonrl`` and every :data:`VERSIONED` distribution."""
    from importlib.metadata import PackageNotFoundError, version

    versions: dict[str, str | None] = {"python": platform.python_version()}
    for dist in VERSIONED:
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            versions[dist] = None
    try:
        from ..version import __version__

        versions["dungeonrl"] = __version__
    except ImportError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / 2**20
    except (OSError, ValueError, IndexError):
        pass
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": mem,
        "platform": platform.platform(),
        "versions": versions,
    }


def loadavg() -> list | None:
    """The 1, 5 and 15 minute load averages, or None where unknown."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None
