"""Where each microsecond of a step goes, layer by layer, and how far that
is from the machine's physical limit: the README's profile table.

    dungeonrl bench --layers [--quick] [--games unbroken] [--out DIR]
    python -m dungeonrl.benchmarks.suite.breakdown [same options]

For every configuration of every registered game (through the GameCore
contract only), at ``N`` envs (4,096; 1,024 with ``--quick``), one batched
step is taken apart with a timer around each call of an unfused loop:

* **rules**: ``core.step`` alone (apply the action, auto-advance, outcome),
  with the observation encoder and the mask switched off;
* **reset**: ``core.reset`` of the games that just finished (per env-step,
  so it is amortised over the episode; "-" when no game ended in the
  timed window);
* **mask**: ``core.legal_mask``; **encoder**: ``core.observe``;

and compared with the fused paths and the adapters over them:

* **fused**: the core's ``step_autoreset`` (step, final observation, reset,
  mask and observation in one call), the vector envs' kernel; and the same
  with the compact observation (``obs_dtype="float16"``: the row rounded to
  half precision on its way out, half the bytes);
* **kernel**: ``core.random_rollout`` on one thread (the same work with the
  random policy inside numba: the engine's ceiling), and the same rollout
  with the observation switched off (``core.random_rollout_rules``: what
  the rules and the mask cost inside the kernel, so kernel - rules is the
  encoder's in-kernel share);
* **dispatch**: what one kernel call costs beyond its work (a one-env
  ``legal_mask`` call minus the per-env cost of the batched call): the
  Python shim plus numba's type dispatch of record arguments;
* **vector adapter**: ``DungeonVectorEnv.step`` minus the fused core step
  at the same ``N`` (per env-step);
* **single-env adapter**: ``gymnasium.make(...).step`` (or, for
  multi-agent games, one decision of the PettingZoo AEC loop) minus a
  one-env ``step_observe`` call, per step;
* **policy**: the benchmark's own random legal sampling (not a layer of the
  library; shown so the sums add up).

The fused step, the two rollouts and the vector env take turns in paired
rounds (:func:`paired_layers`), so the subtractions between them are read
inside one round, not across a change of the machine's speed.

The **physical limit**: the bytes a step must write (observation, mask and
reward of the acting seat's row) over the memory bandwidth measured on
this machine with a numpy copy of a large array (the best of several
copies; a copy reads and writes each byte, and only the writes are
counted). The copy runs on one thread, like the one-thread figures it
bounds. A step can not be faster than that, whatever the rules cost. The
compact row's limit counts its observation at two bytes a column.

The figures are microseconds per env-step; every timed loop plays random
legal actions and fails on an illegal one, like the rest of the suite.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...machine import loadavg, machine_info
from .checks import IllegalActionInBenchmark, RandomLegalSampler, check_batch, check_one
from .games import aec_factory, core_kwargs, make_core, player_counts, unknown_game_error
from .layers import aec_loop, single_loop
from .measure import measure, per_call_us
from .settings import REF_ENVS, default_out_dir

#: rows of the table: key, label (in the order a step spends its time)
PARTS = (
    ("rules_us", "rules (`step`, encoder and mask off)"),
    ("reset_us", "reset of finished games (amortised)"),
    ("mask_us", "legal mask"),
    ("encoder_us", "observation encoder"),
    ("unfused_us", "sum of the four, separate calls"),
    ("fused_us", "fused `step_autoreset` (the vector envs' kernel)"),
    ("fused_compact_us", 'the same, compact observation (`obs_dtype="float16"`)'),
    ("fused_threads_us", "fused step on every core (`num_threads` = cores), wall time"),
    ("kernel_us", "in-kernel rollout, 1 thread (policy inside numba)"),
    ("kernel_rules_us", "the same rollout with observations off (`random_rollout_rules`)"),
    ("dispatch_us", "dispatch + shim, per kernel call"),
    ("vector_adapter_us", "vector env adapter (vector env - fused)"),
    ("vector_us", "vector env step"),
    ("one_env_call_us", "one-env `step_observe` call (the single env's kernel call)"),
    ("single_adapter_us", "single-env adapter (Python API - one-env call - policy)"),
    ("single_us", "Python API step (`gymnasium.make` / AEC decision)"),
    ("policy_batch_us", "benchmark policy, batched sampling"),
    ("limit_us", "physical limit (bytes written / memory bandwidth)"),
    ("limit_compact_us", "physical limit, compact observation"),
)

MODES = {  # num_envs, seconds per part, bandwidth array MiB, bandwidth copies
    "full": (REF_ENVS, 1.0, 512, 7),
    "quick": (1024, 0.2, 128, 3),
    "tiny": (32, 0.01, 8, 1),
}


def memory_bandwidth(mib: int = 512, copies: int = 7) -> dict:
    """Bytes written per second by ``np.copyto`` of a ``mib`` MiB float64
    array: the best of ``copies`` (after one untimed copy that maps the
    pages), and their median."""
    n = (int(mib) << 20) // 8
    src = np.ones(n, np.float64)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    times = []
    for _ in range(max(1, copies)):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        times.append(time.perf_counter() - t0)
    times.sort()
    nbytes = src.nbytes
    return {
        "array_bytes": int(nbytes),
        "copies": len(times),
        "write_bytes_per_s": nbytes / times[0],
        "write_bytes_per_s_median": nbytes / times[len(times) // 2],
        "method": f"numpy copyto of a {mib} MiB float64 array, best of {len(times)}",
    }


def bytes_per_step(buf) -> dict:
    """Bytes a step must write per env: one observation row, one mask row,
    the reward of every seat (the buffers the adapters hand out)."""
    obs = buf.obs[0].nbytes
    mask = buf.masks[0].nbytes
    reward = buf.rewards[0].nbytes
    return {
        "obs": int(obs),
        "mask": int(mask),
        "reward": int(reward),
        "total": int(obs + mask + reward),
    }


class _Timer:
    """Accumulates seconds per named part."""

    def __init__(self):
        self.s: dict[str, float] = {}

    def __call__(self, key: str, fn: Callable, *args):
        t0 = time.perf_counter()
        fn(*args)
        self.s[key] = self.s.get(key, 0.0) + time.perf_counter() - t0


def unfused_parts(core, n: int, min_time: float, sampler, seed: int = 0) -> dict:
    """Microseconds per env-step of each part of an unfused batched step
    (rules, reset of finished rows, mask, encoder, policy) at ``n`` envs."""
    from ...envs.core.batch import Batch

    buf = Batch(core, n)
    buf.reset(np.arange(n, dtype=np.uint64) + np.uint64(seed))
    rows = np.arange(n)
    where = f"layer profile ({core.spec.name})"
    timer = _Timer()
    steps = 0
    episodes = 0
    next_seed = np.uint64(seed + n)

    def reset_done(done):
        sub = buf.states[done]
        core.reset(sub, np.arange(len(done), dtype=np.uint64) + next_seed)
        buf.states[done] = sub

    def policy():
        sampler.batch(buf.masks, buf.actions)
        check_batch(buf.masks, buf.actions, where)

    t_end = None
    while True:
        timer("policy_batch_us", policy)
        timer(
            "rules_us",
            core.step,
            buf.states,
            buf.actions,
            buf.rewards,
            buf.terminated,
            buf.truncated,
            buf.illegal,
        )
        if buf.illegal.any():
            raise IllegalActionInBenchmark(f"{where}: the core flagged an illegal action")
        done = rows[buf.terminated | buf.truncated]
        if len(done):
            timer("reset_us", reset_done, done)
            next_seed += np.uint64(len(done))
            episodes += len(done)
            buf.terminated[:] = False
            buf.truncated[:] = False
        timer("mask_us", core.legal_mask, buf.states, buf.masks)
        buf.players[:] = np.maximum(core.to_play(buf.states), 0)
        timer("encoder_us", core.observe, buf.states, buf.players, buf.obs)
        steps += 1
        if t_end is None:  # the first step loaded the kernels: start again
            timer.s.clear()
            steps, episodes = 0, 0
            t_end = time.perf_counter() + min_time
        elif time.perf_counter() >= t_end and steps >= 3:
            break
    out: dict[str, Any] = {k: 1e6 * v / (steps * n) for k, v in timer.s.items()}
    if not episodes:  # no game ended in the window: nothing to amortise
        out["reset_us"] = None
    out["unfused_us"] = sum(
        out.get(k) or 0.0 for k in ("rules_us", "reset_us", "mask_us", "encoder_us")
    )
    out["batched_steps"] = steps
    out["mean_episode_length"] = (steps * n / episodes) if episodes else None
    out["bytes"] = bytes_per_step(buf)
    return out


def _rate_us(fig) -> float | None:
    return 1e6 / fig["median"] if fig.get("status") == "ok" and fig["median"] else None


#: rounds in which the fused step, the kernels and the vector env take turns
PAIRED_ROUNDS = 5


def paired_layers(spec, core, n: int, s, sampler, policy_us: float) -> dict:
    """The fused ``step_autoreset``, the in-kernel rollouts (observations on
    and off) and the vector env, timed in turns (:func:`.paired.interleave`,
    :data:`PAIRED_ROUNDS` rounds of about ``s.min_time / 2`` per loop), so
    the differences the table shows are read inside one round and a change
    of the machine's speed between two loops does not enter them: each row
    is the median over the rounds, and the vector adapter the median of the
    per-round ``vector - fused``. Both the batch loop and the vector loop
    sample actions in numpy, so ``policy_us`` is taken off the fused row
    (and off the threaded fused row, which splits the rows over every core
    of the machine: ``num_threads=os.cpu_count()``)."""
    from statistics import median

    from .layers import ContractError, batch_loop, kernel_loop, vector_loop
    from .paired import interleave

    threads = os.cpu_count() or 1
    loops = {
        "fused": batch_loop(core, n, s, sampler),
        "fused_compact": batch_loop(core, n, s, sampler, "float16"),
        "fused_threads": batch_loop(core, n, s, sampler, num_threads=threads),
    }
    closers = []
    for key, observe in (("kernel", True), ("kernel_rules", False)):
        try:
            loops[key] = kernel_loop(core, s, 1, observe=observe)[0]
        except ContractError:
            pass  # a core without random_rollout: no row
    if not spec.multi_agent:
        run, env = vector_loop(spec, n, s, sampler)
        loops["vector"] = run
        closers.append(env)
    try:
        timed = interleave(loops, PAIRED_ROUNDS, s.min_time / 2)
    finally:
        for env in closers:
            env.close()
    us = {k: [1e6 / r for r in v] for k, v in timed["rates"].items()}
    out: dict[str, Any] = {
        "paired_rounds": PAIRED_ROUNDS,
        "fused_us": max(0.0, median(us["fused"]) - policy_us),
        "fused_compact_us": max(0.0, median(us["fused_compact"]) - policy_us),
        "fused_threads_us": max(0.0, median(us["fused_threads"]) - policy_us),
        "fused_threads": threads,
        "kernel_us": median(us["kernel"]) if "kernel" in us else None,
        "kernel_rules_us": (median(us["kernel_rules"]) if "kernel_rules" in us else None),
    }
    if "vector" in us:
        out["vector_us"] = median(us["vector"])
        out["vector_adapter_us"] = max(
            0.0, median([v - f for v, f in zip(us["vector"], us["fused"])])
        )
    return out


def profile_config(spec, players: int, n: int, min_time: float, sampler, seed: int = 0) -> dict:
    """Every row of :data:`PARTS` (but the limit) for one configuration."""
    from types import SimpleNamespace

    from ...envs.core.batch import Batch

    core = make_core(spec, players)
    out: dict[str, Any] = {"game": spec.name, "players": players, "num_envs": n}
    out.update(unfused_parts(core, n, min_time, sampler, seed))
    s = SimpleNamespace(min_time=min_time, kernel_envs=n, seed=seed)
    out.update(paired_layers(spec, core, n, s, sampler, out["policy_batch_us"]))
    # dispatch: a one-env call minus the per-env work of a batched call
    one = Batch(core, 1)
    one.reset(np.array([seed], np.uint64))
    call_us = per_call_us(lambda: core.legal_mask(one.states, one.masks), 1, min_time)
    out["dispatch_us"] = max(0.0, call_us - out["mask_us"])
    out.update(_python_api(spec, players, core, min_time, sampler, seed))
    return out


def _python_api(spec, players: int, core, min_time: float, sampler, seed: int) -> dict:
    """The Python API step, a one-env ``step_observe`` call and the policy
    of one env, per step; the adapter is what remains."""
    from ...envs.core.batch import Batch

    if spec.multi_agent:
        env = aec_factory(spec)(num_players=players)
        run = aec_loop(env, sampler, f"layer profile AEC ({spec.name})", seed, check_info=True)
    else:
        import gymnasium as gym

        env = gym.make(spec.env_id)
        run = single_loop(
            env,
            lambda info: info["action_mask"],
            sampler,
            f"layer profile single env ({spec.name})",
            seed,
        )
    fig = measure(run, 3, min_time)
    env.close()
    single = _rate_us(fig)
    one = Batch(core, 1)
    one.reset(np.array([seed], np.uint64))
    step_us, policy_us = _one_env_step(core, one, min_time, sampler, seed)
    out = {
        "single_us": single,
        "one_env_call_us": step_us,
        "policy_one_us": policy_us,
        "single_api": "AEC loop" if spec.multi_agent else "gymnasium.make",
    }
    if single is not None:
        out["single_adapter_us"] = max(0.0, single - step_us - policy_us)
    return out


def _one_env_step(core, one, min_time: float, sampler, seed: int) -> tuple[float, float]:
    """Microseconds of a one-env ``step_observe`` call (what the single env
    calls once per step) and of picking one legal action, each timed around
    its own call."""
    t_step = t_policy = 0.0
    calls, k = 0, 0
    t_end = time.perf_counter() + min_time
    while calls < 3 or time.perf_counter() < t_end:
        if not one.masks[0].any():
            k += 1
            one.reset(np.array([seed + k], np.uint64))
        one.players[0] = max(int(core.to_play(one.states)[0]), 0)
        t0 = time.perf_counter()
        a = sampler.one(one.masks[0])
        check_one(one.masks[0], a, "layer profile one-env step")
        t1 = time.perf_counter()
        one.actions[0] = a
        one.step()
        t2 = time.perf_counter()
        if calls:  # the first call may load the kernel
            t_policy += t1 - t0
            t_step += t2 - t1
        calls += 1
    return 1e6 * t_step / (calls - 1), 1e6 * t_policy / (calls - 1)


def run(mode: str = "quick", games: tuple = (), seed: int = 0, log: Callable = print) -> dict:
    """The per-layer profile of every configuration of ``games`` (default
    all registered games)."""
    import dungeonrl  # noqa: F401  (registers the games)

    from ...registry import get_spec, list_games

    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    n, min_time, mib, copies = MODES[mode]
    sampler = RandomLegalSampler(seed)
    t0 = time.perf_counter()
    res: dict[str, Any] = {
        "kind": "layer-profile",
        "mode": mode,
        "num_envs": n,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": machine_info(),
        "load_before": loadavg(),
    }
    log(f"memory bandwidth ({mib} MiB copy)...")
    bw = memory_bandwidth(mib, copies)
    res["bandwidth"] = bw
    log(f"  {bw['write_bytes_per_s'] / 1e9:.2f} GB/s written")
    configs = []
    for name in games or list_games():
        spec = get_spec(name)
        counts = player_counts(spec) if mode != "tiny" else player_counts(spec)[:1]
        for players in counts:
            log(f"{spec.name} ({players}p) at {n} envs...")
            cfg = profile_config(spec, players, n, min_time, sampler, seed)
            cfg["core_kwargs"] = core_kwargs(spec, players)
            cfg["limit_us"] = 1e6 * cfg["bytes"]["total"] / bw["write_bytes_per_s"]
            cfg["limit_steps_per_s"] = bw["write_bytes_per_s"] / cfg["bytes"]["total"]
            half = cfg["bytes"]["total"] - cfg["bytes"]["obs"] // 2  # float16 observation
            cfg["limit_compact_us"] = 1e6 * half / bw["write_bytes_per_s"]
            configs.append(cfg)
            log(
                "  "
                + ", ".join(
                    f"{k[:-3]} {v:.3f}"
                    for k, v in cfg.items()
                    if k.endswith("_us") and v is not None
                )
            )
    res["configs"] = configs
    res["load_after"] = loadavg()
    res["elapsed_s"] = time.perf_counter() - t0
    return res


def _us(v) -> str:
    if v is None:
        return "-"
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def _millions(x: float) -> str:
    return f"{x / 1e6:.2f}M" if x < 1e7 else f"{x / 1e6:,.0f}M"


def markdown(res: dict) -> str:
    """The README's profile table: one column per game configuration, one
    row per part of :data:`PARTS` (microseconds per env-step), then the
    bytes per step and the limit in steps/s."""
    cfgs = res["configs"]
    m = res["machine"]
    bw = res["bandwidth"]
    heads = [
        c["game"]
        + (
            f" {c['players']}p"
            if c["players"] > 1 or len([d for d in cfgs if d["game"] == c["game"]]) > 1
            else ""
        )
        for c in cfgs
    ]
    lines = [
        f"Microseconds per env-step at {res['num_envs']:,} envs, one thread unless "
        "the row says otherwise "
        f"(`dungeonrl bench --layers`, {res['mode']} run, {res['created'][:10]}, {m['cpu']}, "
        f"{m['cores']} cores, load {res.get('load_before')}); memory bandwidth "
        f"{bw['write_bytes_per_s'] / 1e9:.1f} GB/s written ({bw['method']}).",
        "",
        "| part | " + " | ".join(heads) + " |",
        "|---|" + "---:|" * len(cfgs),
    ]
    for key, label in PARTS:
        lines.append(f"| {label} | " + " | ".join(_us(c.get(key)) for c in cfgs) + " |")
    lines.append(
        "| bytes written per step (obs + mask + reward) | "
        + " | ".join(
            f"{c['bytes']['obs']:,} + {c['bytes']['mask']:,} + {c['bytes']['reward']:,}"
            for c in cfgs
        )
        + " |"
    )
    lines.append(
        "| limit, steps/s per core | "
        + " | ".join(_millions(c["limit_steps_per_s"]) for c in cfgs)
        + " |"
    )
    lines.append(
        "| in-kernel rollout / limit | "
        + " | ".join(
            f"{c['limit_us'] / c['kernel_us']:.1%}" if c.get("kernel_us") else "-" for c in cfgs
        )
        + " |"
    )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dungeonrl bench --layers",
        description="where each microsecond of a step goes, per layer, "
        "and the memory-bandwidth limit",
    )
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="1,024 envs, short timings")
    g.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--games", default=None, help="comma-separated game names (default: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--out", default=None, help="folder of layers.json / layers.md (default ./bench-results)"
    )
    return p


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    mode = "tiny" if a.tiny else "quick" if a.quick else "full"
    games = tuple(x for x in (a.games or "").split(",") if x)
    problem = unknown_game_error(games)
    if problem:
        print(f"dungeonrl bench --layers: {problem}", file=sys.stderr)
        return 2
    try:
        res = run(mode, games, a.seed)
    except IllegalActionInBenchmark as e:
        print(
            f"dungeonrl bench --layers: FAILED, an illegal action was sampled: {e}", file=sys.stderr
        )
        return 3
    text = markdown(res)
    print()
    print(text)
    out = a.out or default_out_dir()
    os.makedirs(out, exist_ok=True)
    stem = "layers" if mode == "full" else f"layers_{mode}"
    with open(os.path.join(out, f"{stem}.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, f"{stem}.md"), "w") as f:
        f.write(text + "\n")
    print(f"\nresults: {os.path.join(out, stem)}.json, .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
