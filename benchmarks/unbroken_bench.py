"""The former Unbroken-only benchmark, folded into the throughput suite.

``dungeonrl bench unbroken [--quick] [--json PATH] ...`` runs
:mod:`dungeonrl.benchmarks.suite` on Unbroken alone: the same layers,
peers, targets and output format as ``dungeonrl bench``. What stays here
is the names other modules import: :func:`main`, and
:func:`bench_kernel` / :func:`bench_vector` with their old signatures
(``dungeonrl/demo.py``), now measured by the suite's loops.
"""

from __future__ import annotations

import dataclasses
import sys

from ..envs.catalog import default_game
from .suite.checks import sample_from_masks  # noqa: F401  (kept importable from here)

#: the game this former benchmark measured: the catalog's default (Unbroken, the first)
GAME = default_game()


def main(argv=None) -> int:
    """``dungeonrl bench unbroken``: the suite with ``--games unbroken``."""
    from . import suite

    argv = list(sys.argv[1:] if argv is None else argv)
    return suite.main(["--games", GAME, *argv])


def _settings(repeats: int, num_envs: int, threads: int = 1):
    from .suite import MODES

    return dataclasses.replace(
        MODES["quick"],
        repeats=max(1, int(repeats)),
        kernel_envs=int(num_envs),
        threads=(int(threads),),
    )


def bench_kernel(core, n_envs: int, n_steps: int, repeats: int, threads: int = 1):
    """``(median steps/s, rates)`` of ``core.random_rollout`` on ``n_envs``
    games over ``threads`` threads (``n_steps`` is ignored: the suite
    calibrates each repeat to its ``min_time``)."""
    from concurrent.futures import ThreadPoolExecutor

    from .suite import bench_kernel as kernel

    with ThreadPoolExecutor(max(1, threads)) as pool:
        fig = kernel(core, _settings(repeats, n_envs, threads), threads, pool)
    return fig["median"], fig["rates"]


def bench_vector(num_envs: int, n_steps: int, repeats: int, **core_kwargs):
    """``(median steps/s, rates)`` of Unbroken's ``DungeonVectorEnv`` at
    ``num_envs`` envs built with ``core_kwargs`` (``n_steps`` is ignored, as
    in :func:`bench_kernel`)."""
    from ..registry import get_spec
    from .suite import RandomLegalSampler
    from .suite import bench_vector as vector

    settings = _settings(repeats, num_envs)
    fig = vector(
        get_spec(GAME), int(num_envs), settings, RandomLegalSampler(settings.seed), **core_kwargs
    )
    return fig["median"], fig["rates"]


if __name__ == "__main__":
    sys.exit(main())
