"""The throughput suite: every layer of every registered game, with the
peers people would otherwise pick measured in the same run.

Run: ``dungeonrl bench`` (full run, several minutes), ``dungeonrl bench
--quick`` (a first look, about a minute on 2 cores), ``dungeonrl bench
GAME`` (one game), ``dungeonrl bench --layers`` (where each microsecond of
a step goes, and the memory-bandwidth limit), ``dungeonrl bench --search``
(the search agent's speed beside OpenSpiel's MCTS,
:mod:`dungeonrl.benchmarks.search_speed`); ``python -m
dungeonrl.benchmarks.suite --help`` for the options. Results go to
``./bench-results/`` (or ``--out DIR``); the checked-in reference run is
``benchmarks/results/suite.json``, which ``python -m
dungeonrl.benchmarks.compare NEW.json`` compares a new run with, and from
which ``python -m dungeonrl.benchmarks.report`` regenerates the README.

What is measured
----------------
For every game of :func:`dungeonrl.registry.list_games` and every player
count that matters (single-agent games: 1; multi-agent games: 2, 4 and 8
within the spec's range), through the GameCore contract only, so a new
game joins with no benchmark code:

* ``kernel`` (:mod:`.layers`): ``core.random_rollout``, random legal play
  inside numba with observation, mask and autoreset every step (the
  engine's ceiling), on one thread and on 1..all cores;
* ``vector``: the native ``DungeonVectorEnv`` (single-agent games), swept
  over ``num_envs``; ``batch``: the core's fused ``step_autoreset`` on
  preallocated buffers (no adapter: the multi-agent batched path);
* ``python``: ``gymnasium.make(env_id).step`` (single-agent) or the
  PettingZoo AEC loop (multi-agent), masked random actions;
* ``training`` (:mod:`.training`): env-steps/s of the fast PPO and of
  sb3-contrib MaskablePPO, same network and batch shape;
* ``start`` and ``memory`` (:mod:`.startup`): time to the first step in a
  fresh process (cold and warm numba cache); bytes per record and per env,
  and peak RSS of a process holding 65,536 envs;
* ``profile`` (:mod:`.profile`): where the time of each configuration goes;
* ``paired`` (:mod:`.paired`): the loops the ratio targets compare (kernel,
  vector env or batched core at 4,096 envs, Python API loop, and the peers
  leduc_poker and CartPole or connect_four) timed in turns, round after
  round; the targets' ratios are the medians of the per-round ratios.

Peers, same run, same machine (:mod:`.peers`): Gymnasium ``CartPole-v1``
(single env and numpy vector env), EnvPool's C++ CartPole (1 and 4,096
envs, one and two threads), PettingZoo ``connect_four_v3`` and
``texas_holdem_v4``, OpenSpiel ``connect_four`` and ``leduc_poker`` with
``observation_tensor()`` every step. A peer whose package is missing is
recorded as ``"unavailable"`` with the reason; PufferLib Ocean is cited,
not measured. In the full run the scalar peers are measured twice, before
and after the games, and pooled.

Every timed loop samples uniformly random *legal* actions and checks them
(:mod:`.checks`); an illegal action raises
:class:`IllegalActionInBenchmark` and the run fails.

Timing (:mod:`.measure`): each figure calibrates its loop to about
``min_time`` seconds (the calibration doubles as warm-up), then reports the
median steps/s of ``repeats`` timed runs, and beside it the median steps
per CPU-second of this process (``cpu_median``). The targets, guards and
reported figures are stated once, in :mod:`.targets`, and the ratios are
read from the paired rounds: a shared core's
speed changes from one minute to the next, and a ratio of two medians
measured minutes apart moves with it, while a per-round ratio does not.

Modules: :mod:`.settings` (budgets), :mod:`.checks`, :mod:`.measure`,
:mod:`.games`, :mod:`.layers`, :mod:`.peers`, :mod:`.paired`, :mod:`.startup`,
:mod:`.training`, :mod:`.profile`, :mod:`.breakdown` (the per-layer
table), :mod:`.targets` (targets, guards and reported rows), :mod:`.guards`
(the recorded references of the relative guards), :mod:`.runner` (one run), :mod:`.validate`,
:mod:`.fmt`, :mod:`.report` (terminal table and README section),
:mod:`.plots`, :mod:`.cli`.
"""

from __future__ import annotations

from ...machine import loadavg, machine_info
from .checks import (
    IllegalActionInBenchmark,
    RandomLegalSampler,
    check_batch,
    check_one,
    sample_from_masks,
)
from .cli import build_parser, main, output_paths, save, settings_from_args
from .games import aec_factory, core_kwargs, make_core, player_counts
from .guards import load_references, ns_per_column, obs_columns
from .layers import (
    aec_loop,
    bench_aec,
    bench_batch,
    bench_kernel,
    bench_single,
    bench_vector,
    single_loop,
)
from .measure import (
    cpu_of,
    figure,
    guarded,
    measure,
    median_of,
    ok,
    pool_figures,
    safe,
    skipped,
    unavailable,
)
from .peers import (
    CITED,
    PEERS,
    envpool_sweep,
    peer_cartpole_single,
    peer_cartpole_vector,
    peer_envpool_cartpole,
    peer_openspiel,
    peer_pettingzoo,
    run_peers,
)
from .plots import plot
from .profile import profile_config
from .report import markdown, profile_text, rows, table
from .runner import run, run_config
from .settings import (
    DEFAULT_OUT,
    MODES,
    MULTI_PLAYERS,
    REF_ENVS,
    RESULTS,
    SCHEMA,
    Settings,
    default_out_dir,
)
from .startup import bench_memory, bench_start, buffer_bytes_per_env
from .targets import (
    TARGETS,
    Target,
    evaluate_targets,
    failed_guards,
    fmt_target,
    load_baselines,
    load_cold_start,
    ref_vector,
)
from .training import bench_training, profile_training, train_shape
from .validate import (
    CONFIG_FIELDS,
    GAME_FIELDS,
    PEER_FIELDS,
    TARGET_FIELDS,
    TOP_FIELDS,
    validate,
)
from .validate import _check_fig as _check_fig

__all__ = [
    "IllegalActionInBenchmark",
    "RandomLegalSampler",
    "check_batch",
    "check_one",
    "sample_from_masks",
    "build_parser",
    "main",
    "output_paths",
    "save",
    "settings_from_args",
    "aec_factory",
    "core_kwargs",
    "make_core",
    "player_counts",
    "aec_loop",
    "bench_aec",
    "bench_batch",
    "bench_kernel",
    "bench_single",
    "bench_vector",
    "single_loop",
    "cpu_of",
    "figure",
    "guarded",
    "measure",
    "median_of",
    "ok",
    "pool_figures",
    "safe",
    "skipped",
    "unavailable",
    "CITED",
    "PEERS",
    "envpool_sweep",
    "peer_cartpole_single",
    "peer_cartpole_vector",
    "peer_envpool_cartpole",
    "peer_openspiel",
    "peer_pettingzoo",
    "run_peers",
    "plot",
    "profile_config",
    "markdown",
    "profile_text",
    "rows",
    "table",
    "run",
    "run_config",
    "DEFAULT_OUT",
    "MODES",
    "MULTI_PLAYERS",
    "REF_ENVS",
    "RESULTS",
    "SCHEMA",
    "Settings",
    "default_out_dir",
    "bench_memory",
    "bench_start",
    "buffer_bytes_per_env",
    "TARGETS",
    "Target",
    "evaluate_targets",
    "failed_guards",
    "fmt_target",
    "load_baselines",
    "load_cold_start",
    "load_references",
    "ns_per_column",
    "obs_columns",
    "ref_vector",
    "bench_training",
    "profile_training",
    "train_shape",
    "CONFIG_FIELDS",
    "GAME_FIELDS",
    "PEER_FIELDS",
    "TARGET_FIELDS",
    "TOP_FIELDS",
    "validate",
    "machine_info",
    "loadavg",
]
