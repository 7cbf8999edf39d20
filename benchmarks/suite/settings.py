"""Budgets of one run (:class:`Settings`, :data:`MODES`) and the constants
every part of the suite shares."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from .. import datafile

#: the checked-in reference results (the README's figures); a run writes
#: there only when asked (``--out benchmarks/results``)
RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results")
#: where a run writes unless told otherwise: ``./bench-results`` of the
#: current directory, outside the installed package
DEFAULT_OUT = "bench-results"
SCHEMA = 2

#: player counts measured for multi-agent games (within the spec's range)
MULTI_PLAYERS = (2, 4, 8)
#: the num_envs at which targets against the peers are read
REF_ENVS = 4096


def default_out_dir() -> str:
    """The folder a run writes its JSON and plots to by default."""
    return os.path.abspath(DEFAULT_OUT)


@dataclasses.dataclass
class Settings:
    """Budgets of one run (see :data:`MODES`)."""

    mode: str = "full"
    repeats: int = 5
    min_time: float = 1.0  #: seconds per timed repeat
    num_envs: tuple = (1, 16, 256, 4096, 65536)
    sweep_batch: bool = True  #: sweep the adapter-free batch path too
    kernel_envs: int = 4096
    threads: tuple = ()  #: () = 1, 2, 4... up to all cores
    python_min_time: float | None = None  #: min_time of the Python-API loops
    train: bool = True
    train_steps_sb3: int = 32768  #: one PPO iteration of the full shape
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
    games: tuple = ()  #: () = every registered game
    max_configs: int = 0  #: player counts per game (0 = all)
    torch_threads: int = 0  #: 0 = the fast PPO's default, used for both
    envpool_envs: tuple = (1, REF_ENVS)  #: num_envs of the EnvPool CartPole peer
    envpool_threads: tuple = (1, 2)  #: its worker threads
    paired_rounds: int = 7  #: rounds of the paired ratios (0 = off)
    paired_time: float = 0.4  #: seconds per loop and round

    def paired_envs(self) -> int:
        """num_envs of the vector loop in the paired rounds."""
        return REF_ENVS if REF_ENVS in self.num_envs else max(self.num_envs)

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


def load_modes(name: str = "suite_modes") -> dict[str, Settings]:
    """The run modes: ``full`` (the defaults of :class:`Settings`), then each
    table of ``benchmarks/data/<name>.toml``: the fields that differ."""
    fields = [f.name for f in dataclasses.fields(Settings)]
    modes = {"full": Settings()}
    for mode, changes in datafile.load(name).items():
        datafile.check_keys(changes, f"{name}.toml [{mode}]", (), fields)
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()
        }
        modes[mode] = Settings(mode=mode, **values)
    return modes


#: mode name -> its budgets (:func:`load_modes`)
MODES = load_modes()
