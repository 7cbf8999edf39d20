"""A game's kernel throughput on one thread: the generated ``random_rollout``
(uniform random legal play with autoreset, writing the acting seat's
observation and mask after every step).

Run: ``python -m dungeonrl.benchmarks.kernel_bench GAME [--players N]
[--envs 64] [--steps 2000] [--repeats 5] [--split] [--blocks]``. Prints the
median and best steps/s of the repeats (wall clock), the median per CPU
second of this thread (``time.thread_time``: the figure "per core", less
sensitive to other jobs taking turns on the cores) and the load average (the
wall figure depends on how busy the machine is: record the load with it).

``--split`` also times, interleaved with the full rollout in every repeat so
that all see the same load: the same games without the observation
(``random_rollout_rules``: rules + mask alone), and the game's ``encode_row``
alone over 128 records met along random games, each into one row that stays
in cache as the row being stepped does in the rollout (ns per observation).
The encoder's share is the difference of the first two. ``--blocks`` (with
``--split``) times each block of the encoder alone too: the blocks a game
names in ``benchmarks/data/kernel_bench.toml``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import time
from typing import Any

import numpy as np

from ..envs.core.kernel.jit import JIT, njit
from . import datafile

#: how each figure is shown: key, label, unit (``steps``: steps/s, ``ns``: ns/obs)
ROWS = (("with_obs", "with the observation", "steps"),)
SPLIT_ROWS = (("no_obs", "rules + mask alone", "steps"), ("encoder", "encoder alone", "ns"))


def load_blocks(name: str = "kernel_bench") -> dict:
    """Game -> the ``"module:function"`` of each block of its encoder (the
    data file's ``[blocks]``)."""
    data = datafile.check_keys(datafile.load(name), f"{name}.toml", (), ("blocks",))
    return {
        datafile.check_game(g, f"{name}.toml [blocks]"): [str(b) for b in v]
        for g, v in data.get("blocks", {}).items()
    }


BLOCKS = load_blocks()


def _make_encoder_timer(fn):
    """An ``@njit`` loop calling ``fn(st, T, seat, out)`` on every record of
    ``states``, ``reps`` times over (a closure: compiled, not cached)."""

    @njit(**dict(JIT, cache=False))
    def run(states, tabs, seats, out, reps):
        T = tabs[0]
        for _ in range(reps):
            for i in range(states.shape[0]):
                fn(states[i], T, seats[i], out)

    return run


def _function(dotted: str):
    module, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module), attr)


def _snapshots(core, count=128, seed=7):
    """``count`` records met along random games (every 3rd decision)."""
    st = core.alloc(64)
    core.reset(st, np.arange(64, dtype=np.uint64) + 1000)
    masks = np.zeros((64, core.spec.num_actions), np.uint8)
    stats = np.zeros(4, np.int64)
    out: list[np.ndarray] = []
    while sum(len(x) for x in out) < count:
        core.random_rollout_rules(st, 3, seed + len(out), masks, stats)
        out.append(st.copy())
    return np.concatenate(out)[:count]


def _timed(fn, *args) -> tuple[float, float]:
    """``(wall seconds, CPU seconds of this thread)`` of ``fn(*args)``."""
    t0, c0 = time.perf_counter(), time.thread_time()
    fn(*args)
    return time.perf_counter() - t0, max(time.thread_time() - c0, 1e-9)


def measure(game, players=1, envs=64, steps=2000, repeats=5, split=False, blocks=False):
    """The figures of ``game`` at ``players`` seats (see the module's text)."""
    from ..envs.core.common import resolve_core
    from ..envs.core.kernel_core import KernelCore

    core = resolve_core(game, {"num_players": players} if players > 1 else {})
    if not isinstance(core, KernelCore) or core.kernels is None:
        raise SystemExit(f"{game}: its core has no generated kernels to time")
    st = core.alloc(envs)
    core.reset(st, np.arange(envs, dtype=np.uint64))
    obs = np.zeros((envs, core.spec.obs_size), np.float32)
    masks = np.zeros((envs, core.spec.num_actions), np.uint8)
    stats = np.zeros(4, np.int64)
    core.random_rollout(st, 10, 1, obs, masks, stats)  # compile / load the cache
    timers: dict[str, Any] = {}
    if split or blocks:
        st2 = core.alloc(envs)
        core.reset(st2, np.arange(envs, dtype=np.uint64))
        core.random_rollout_rules(st2, 10, 1, masks, stats)
        snaps = _snapshots(core)
        seats = np.maximum(np.asarray(snaps["actor"], np.int64), 0) % max(players, 1)
        one = np.zeros(core.spec.obs_size, np.float32)
        timers["encoder"] = _make_encoder_timer(core.kernels.encode_row)
        for dotted in BLOCKS.get(game, []) if blocks else ():
            timers[dotted.rpartition(":")[2]] = _make_encoder_timer(_function(dotted))
        for run in timers.values():
            run(snaps[:4], core.TR, seats[:4], one, 1)
        enc_reps = max(1, envs * steps // len(snaps) // 2)
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for r in range(repeats):
        stats[:] = 0
        w, c = _timed(core.random_rollout, st, steps, 2 + r, obs, masks, stats)
        wall.setdefault("with_obs", []).append(stats[0] / w)
        cpu.setdefault("with_obs", []).append(stats[0] / c)
        if not timers:
            continue
        stats[:] = 0
        w, c = _timed(core.random_rollout_rules, st2, steps, 2 + r, masks, stats)
        wall.setdefault("no_obs", []).append(stats[0] / w)
        cpu.setdefault("no_obs", []).append(stats[0] / c)
        for name, run in timers.items():
            w, c = _timed(run, snaps, core.TR, seats, one, enc_reps)
            cpu.setdefault(name, []).append(c / (enc_reps * len(snaps)) * 1e9)
    out: dict[str, Any] = {
        k: {"median": float(np.median(v)), "best": float(max(v)), "cpu_median": 0.0}
        for k, v in wall.items()
    }
    for k, v in cpu.items():
        fig = out.setdefault(k, {"median": float(np.median(v)), "best": float(min(v))})
        fig["cpu_median"] = float(np.median(v))
    out["loadavg"] = list(os.getloadavg())
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.benchmarks.kernel_bench", description=__doc__.splitlines()[0]
    )
    p.add_argument("game", help="a game of the catalog")
    p.add_argument("--players", type=int, default=1)
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument(
        "--split",
        action="store_true",
        help="also time rules + mask alone and the encoder alone",
    )
    p.add_argument("--blocks", action="store_true", help="also time each block of the encoder")
    return p


def main(argv=None) -> int:
    a = parser().parse_args(argv)
    r = measure(a.game, a.players, a.envs, a.steps, a.repeats, a.split, a.blocks)
    la = ", ".join(f"{x:.2f}" for x in r["loadavg"])
    print(
        f"{a.game} random_rollout ({a.players}p, {a.envs} envs, {a.steps} steps, 1 thread, "
        f"{a.repeats} repeats; load average {la})"
    )
    shown = ROWS + (SPLIT_ROWS if "encoder" in r else ())
    shown += tuple((b, f"  {b}", "ns") for b in r if b not in {k for k, *_ in shown} | {"loadavg"})
    for key, label, unit in shown:
        f = r[key]
        if unit == "steps":
            print(
                f"  {label:20s}: median {f['median']:>12,.0f} steps/s, best {f['best']:>12,.0f} "
                f"steps/s, per CPU second {f['cpu_median']:>12,.0f} steps/s"
            )
        else:
            print(f"  {label:20s}: median {f['median']:>9,.0f} ns/obs, best {f['best']:>9,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
