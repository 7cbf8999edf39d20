"""Dungeon Kart kernel throughput on one thread: the generated
``random_rollout`` (uniform random legal play with autoreset, writing the
acting seat's observation and mask after every step) against the same
games without the observation (``random_rollout_rules``: rules + mask
alone), and the encoder alone (``encode_row`` of a batch of mid-race
states, each into the same row the way ``random_rollout`` writes it, ns per
observation).

Run: ``python -m dungeonrl.benchmarks.kart_kernel_bench [--players 4]
[--envs 64] [--steps 2000] [--repeats 7] [--blocks]`` (``--blocks``: each
block of the encoder alone too). Times are CPU seconds of
this thread (``time.thread_time``: steps per CPU-second, so a busy
machine's waiting is left out; a shared core's caches still are not).
Prints the median and best of the repeats, interleaved so that both figures
see the same machine load, and the load average (record it with the
figures).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from ..encoders import dungeon_kart as E
from ..envs.core.kernel.jit import JIT, njit
from ..envs.dungeon_kart import kernels as K
from ..envs.dungeon_kart.core import DungeonKartCore


@njit(**JIT)
def encode_rows(states, tabs, seats, out, reps):
    """``reps`` times the observation of every row into one row ``out``
    (the way ``random_rollout`` writes it: a row that stays in cache)."""
    T = tabs[0]
    for _ in range(reps):
        for i in range(states.shape[0]):
            K.encode_row(states[i], T, seats[i], out)


#: the encoder's blocks timed by ``--blocks`` (``encode_row`` runs them in order)
BLOCKS = ("encode_globals", "encode_patch", "encode_rivals", "encode_row")


@njit(**JIT)
def encode_block(states, tabs, seats, out, reps, which):
    """Like ``encode_rows`` for one block of the encoder (index into BLOCKS)."""
    T = tabs[0]
    for _ in range(reps):
        for i in range(states.shape[0]):
            if which == 0:
                E.encode_globals(states[i], T, seats[i], out)
            elif which == 1:
                E.encode_patch(states[i], T, seats[i], out)
            elif which == 2:
                E.encode_rivals(states[i], T, seats[i], out)
            else:
                E.encode_row(states[i], T, seats[i], out)


def _setup(players, envs):
    core = DungeonKartCore(num_players=players)
    st = core.alloc(envs)
    core.reset(st, np.arange(envs, dtype=np.uint64))
    obs = np.zeros((envs, core.spec.obs_size), np.float32)
    masks = np.zeros((envs, core.spec.num_actions), np.uint8)
    return core, st, obs, masks


def measure(players=4, envs=64, steps=2000, repeats=7, blocks=False):
    core, st, obs, masks = _setup(players, envs)
    stats = np.zeros(4, np.int64)
    core.random_rollout(st, 10, 1, obs, masks, stats)  # compile / load the cache
    core.random_rollout_rules(st, 10, 1, masks, stats)
    # mid-race states for the encoder alone: play on, keep a copy
    core.random_rollout(st, 300, 99, obs, masks, stats)
    frozen = st.copy()
    seats = np.asarray(frozen["actor"], np.int64) % players
    enc_reps = max(1, steps // 10)
    one = np.zeros(core.spec.obs_size, np.float32)
    encode_rows(frozen, core.TR, seats, one, 1)
    rates: dict[str, list[float]] = {"with_obs": [], "no_obs": [], "encoder_ns": []}
    for r in range(repeats):
        stats[:] = 0
        t0 = time.thread_time()
        core.random_rollout(st, steps, 2 + r, obs, masks, stats)
        rates["with_obs"].append(stats[0] / (time.thread_time() - t0))
        stats[:] = 0
        t0 = time.thread_time()
        core.random_rollout_rules(st, steps, 2 + r, masks, stats)
        rates["no_obs"].append(stats[0] / (time.thread_time() - t0))
        t0 = time.thread_time()
        encode_rows(frozen, core.TR, seats, one, enc_reps)
        rates["encoder_ns"].append((time.thread_time() - t0) / (enc_reps * envs) * 1e9)
    if blocks:
        encode_block(frozen, core.TR, seats, one, 1, 0)
        for b, name in enumerate(BLOCKS):
            ns = []
            for _ in range(repeats):
                t0 = time.thread_time()
                encode_block(frozen, core.TR, seats, one, enc_reps, b)
                ns.append((time.thread_time() - t0) / (enc_reps * envs) * 1e9)
            rates[name + "_ns"] = ns
    out: dict[str, Any] = {
        k: {"median": float(np.median(v)), "best": float(min(v) if k.endswith("_ns") else max(v))}
        for k, v in rates.items()
    }
    out["loadavg"] = list(os.getloadavg())
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument(
        "--blocks",
        action="store_true",
        help="also time each block of the encoder alone (ns per observation)",
    )
    a = p.parse_args(argv)
    r = measure(a.players, a.envs, a.steps, a.repeats, a.blocks)
    la = ", ".join(f"{x:.2f}" for x in r["loadavg"])
    print(
        f"dungeon_kart kernel ({a.players}p, {a.envs} envs, {a.steps} steps, 1 thread, "
        f"{a.repeats} repeats; load average {la})"
    )
    for k, label in (("no_obs", "rules + mask alone  "), ("with_obs", "with the observation")):
        print(
            f"  {label}: median {r[k]['median']:>12,.0f} steps/CPU-s, "
            f"best {r[k]['best']:>12,.0f} steps/CPU-s"
        )
    print(
        f"  encoder alone       : median {r['encoder_ns']['median']:>9,.0f} ns/obs, "
        f"best {r['encoder_ns']['best']:>9,.0f} ns/obs"
    )
    for name in BLOCKS if a.blocks else ():
        print(
            f"    {name:18s}: median {r[name + '_ns']['median']:>9,.0f} ns/obs, "
            f"best {r[name + '_ns']['best']:>9,.0f} ns/obs"
        )


if __name__ == "__main__":
    main()
