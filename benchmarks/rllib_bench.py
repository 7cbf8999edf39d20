"""RLlib measurements for the README (run in the ``[rllib]`` virtualenv).

    python -m dungeonrl.benchmarks.rllib_bench throughput   # -> results/rllib_throughput.json
    python -m dungeonrl.benchmarks.rllib_bench curve --minutes 6
        # -> results/rllib_curve.{json,png}
    python -m dungeonrl.benchmarks.rllib_bench scaleout     # -> results/rllib_scaleout.{json,png}
    python -m dungeonrl.benchmarks.rllib_bench envonly      # adds the envs alone to throughput

``throughput``: env steps per second sampled by 1 and 2 RLlib env runners
(remote actors of a local Ray) on the catalog's default game (Unbroken),
each runner holding ``--num-envs`` games either as one Python env per slot
(Gymnasium's ``SyncVectorEnv`` of
:class:`~dungeonrl.agents.algos.rllib.RLlibSingleEnv`) or as our batched env
(:class:`~dungeonrl.agents.algos.rllib.RLlibVectorEnv`: one numba call per step).
The runners sample in parallel with the exploring RLModule (the PPO
default network), as in training; a warm-up sample comes first.

``curve``: ``dungeonrl train unbroken`` with the fast path and with
``--backend rllib`` for the same wall time, one after the other (never at
once), then one figure of both training win rates against wall time.

``scaleout``: from the measured figures, the sampling throughput to expect
with R runners on M machines, and where the learner (its measured update
rate) caps it. Every file records the machine and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

from ..envs.catalog import ENV_IDS, default_game

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")

#: the game measured: the catalog's default (the first in the suite's order), and its title
GAME = default_game()
TITLE = ENV_IDS[GAME].rpartition("/")[2].rpartition("-v")[0]


def _machine() -> dict:
    from ..machine import loadavg, machine_info

    info = machine_info()
    try:
        import ray

        info["versions"]["ray"] = ray.__version__
    except ImportError:
        pass
    info["loadavg"] = loadavg()
    return info


def _write(name: str, obj) -> str:
    path = os.path.join(RESULTS, name)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
    return path


def measure(runners: int, vectorize: str, num_envs: int, steps: int) -> dict:
    """Env steps per second sampled by ``runners`` remote env runners."""
    from dungeonrl.agents.algos.rllib import init_ray, ppo_config

    init_ray(num_cpus=max(2, runners))
    cfg = ppo_config(GAME, env_runners=runners, num_envs=num_envs, vectorize=vectorize, seed=0)
    algo = cfg.build_algo()
    group = algo.env_runner_group
    try:

        def sample(er, n=steps):
            eps = er.sample(num_timesteps=n, explore=True)
            return sum(len(e) for e in eps)

        group.foreach_env_runner(
            lambda er: sample(er, max(num_envs * 4, 256)), local_env_runner=False
        )  # warm-up (compile, caches)
        t = time.perf_counter()
        counts = group.foreach_env_runner(sample, local_env_runner=False)
        dt = time.perf_counter() - t
    finally:
        algo.stop()
    total = int(sum(counts))
    return {
        "runners": runners,
        "vectorize": vectorize,
        "num_envs_per_runner": num_envs,
        "env_steps": total,
        "seconds": dt,
        "steps_per_s": total / dt,
        "per_runner_steps_per_s": total / dt / runners,
    }


def env_only(vectorize: str, num_envs: int, steps: int) -> dict:
    """Env steps per second of the env alone (random legal actions, no RLlib):
    what sampling would cost without RLlib's per-env bookkeeping."""
    import gymnasium as gym
    import numpy as np

    from dungeonrl.agents.algos.rllib import RLlibSingleEnv, RLlibVectorEnv

    env: gym.vector.VectorEnv
    if vectorize == "native":
        env = RLlibVectorEnv(GAME, num_envs=num_envs)
    else:
        env = gym.vector.SyncVectorEnv([lambda: RLlibSingleEnv(GAME)] * num_envs)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)

    def act(mask):
        u = rng.random(mask.shape)
        u[mask == 0] = -1.0
        return u.argmax(axis=1)

    for _ in range(20):
        obs, *_ = env.step(act(obs["action_mask"]))
    t = time.perf_counter()
    for _ in range(steps):
        obs, *_ = env.step(act(obs["action_mask"]))
    dt = time.perf_counter() - t
    env.close()
    return {
        "vectorize": vectorize,
        "num_envs": num_envs,
        "env_steps": steps * num_envs,
        "seconds": dt,
        "steps_per_s": steps * num_envs / dt,
    }


def cmd_envonly(args) -> int:
    path = os.path.join(RESULTS, "rllib_throughput.json")
    with open(path) as f:
        res = json.load(f)
    load0 = list(os.getloadavg())
    rows = [env_only(v, args.num_envs, args.steps) for v in ("python", "native")]
    for r in rows:
        print(
            f"{r['vectorize']:6s} envs alone, {args.num_envs} games: "
            f"{r['steps_per_s']:,.0f} env steps/s",
            flush=True,
        )
    res["env_only"] = {
        "what": "the same games stepped without RLlib (random legal actions, one process)",
        "loadavg_before": load0,
        "loadavg_after": list(os.getloadavg()),
        "rows": rows,
    }
    _write("rllib_throughput.json", res)
    return 0


def cmd_throughput(args) -> int:
    import ray

    rows = []
    load0 = os.getloadavg()
    for vectorize in ("python", "native"):
        for runners in (1, 2):
            r = measure(runners, vectorize, args.num_envs, args.steps)
            r["loadavg_after"] = list(os.getloadavg())
            rows.append(r)
            print(
                f"{vectorize:6s} envs, {runners} runner(s) x {args.num_envs} games: "
                f"{r['steps_per_s']:,.0f} env steps/s",
                flush=True,
            )
    ray.shutdown()
    _write(
        "rllib_throughput.json",
        {
            "what": "env steps/s sampled by RLlib env runners on "
            f"{TITLE} (PPO's exploring RLModule, 256x256)",
            "loadavg_before": list(load0),
            "machine": _machine(),
            "rows": rows,
        },
    )
    return 0


def _train(argv: list, log: str) -> dict:
    with open(log, "w") as f:
        rc = subprocess.call(
            [sys.executable, "-m", "dungeonrl", *argv], stdout=f, stderr=subprocess.STDOUT
        )
    if rc != 0:
        raise SystemExit(f"training failed ({rc}); see {log}")
    out = argv[argv.index("--out") + 1]
    with open(os.path.join(out, "metrics.json")) as f:
        return json.load(f)


def cmd_curve(args) -> int:
    runs = os.path.abspath(args.runs)
    os.makedirs(runs, exist_ok=True)
    common = [
        "--minutes",
        str(args.minutes),
        "--eval-games",
        "1000",
        "--seed",
        "0",
        "--progress",
        "none",
        "--overwrite",
    ]
    load0 = os.getloadavg()
    fast = _train(["train", GAME, *common, "--out", f"{runs}/fast"], f"{runs}/fast.log")
    load1 = os.getloadavg()
    rl = _train(
        [
            "train",
            GAME,
            "--backend",
            "rllib",
            "--env-runners",
            str(args.env_runners),
            "--num-envs",
            str(args.num_envs),
            *common,
            "--out",
            f"{runs}/rllib",
        ],
        f"{runs}/rllib.log",
    )
    load2 = os.getloadavg()

    def brief(m):
        ev = (m.get("final_eval") or [{}])[0]
        return {
            "steps": m["steps"],
            "train_seconds": m["train_seconds"],
            "sps": m["sps"],
            "final_eval_win_rate": ev.get("win_rate"),
            "final_eval_ci95": ev.get("ci95"),
            "eval_games": ev.get("games"),
            "config": m["config"],
            "history": [
                {
                    k: h.get(k)
                    for k in (
                        "global_step",
                        "time_s",
                        "win_rate",
                        "episodes",
                        "mean_return",
                        "sample_s",
                        "learn_s",
                    )
                }
                for h in m["history"]
            ],
        }

    res = {
        "what": f"{TITLE}, {args.minutes} min of training each, one after the other",
        "loadavg": {"before": list(load0), "between": list(load1), "after": list(load2)},
        "machine": _machine(),
        "fast_ppo": brief(fast),
        "rllib_ppo": brief(rl),
    }
    _write("rllib_curve.json", res)
    plot_curve(res, os.path.join(RESULTS, "rllib_curve.png"))
    return 0


def plot_curve(res: dict, path: str) -> None:
    from matplotlib.figure import Figure

    from dungeonrl.agents.metrics import smooth_win_rate

    fig = Figure(figsize=(15, 4))
    a0, a1, a2 = fig.subplots(1, 3)
    for key, label, color in (
        ("fast_ppo", "fast PPO (agents/algos/ppo.py)", "tab:blue"),
        ("rllib_ppo", "RLlib PPO (--backend rllib)", "tab:red"),
    ):
        h = res[key]["history"]
        t = [x["time_s"] / 60 for x in h]
        w = [100 * v for v in smooth_win_rate(h)]
        ev = res[key]["final_eval_win_rate"]
        a0.plot(t, [x["mean_return"] for x in h], color=color, label=label)
        a1.plot(t, w, color=color, label=f"{label}: eval {ev:.1%}" if ev is not None else label)
        a2.plot(t, [x["global_step"] / 1e6 for x in h], color=color, label=label)
    a0.set_xlabel("wall time (min)")
    a0.set_ylabel("mean training episode return (reward=score)")
    a0.legend(fontsize=8)
    a0.grid(alpha=0.3)
    a1.set_xlabel("wall time (min)")
    a1.set_ylabel("training win rate % (last 2,000 episodes)")
    a1.legend(fontsize=8)
    a1.grid(alpha=0.3)
    a2.set_xlabel("wall time (min)")
    a2.set_ylabel("env steps (millions)")
    a2.legend(fontsize=8)
    a2.grid(alpha=0.3)
    la = res["loadavg"]
    fig.suptitle(
        f"{TITLE}, same wall time; load average {la['before'][0]:.1f} / "
        f"{la['between'][0]:.1f} / {la['after'][0]:.1f} "
        f"({res['machine']['cores']} cores)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def cmd_scaleout(args) -> int:
    """Throughput to expect from R runners x M machines (see module doc)."""
    with open(os.path.join(RESULTS, "rllib_throughput.json")) as f:
        tp = json.load(f)
    with open(os.path.join(RESULTS, "rllib_curve.json")) as f:
        curve = json.load(f)
    rows = {(r["vectorize"], r["runners"]): r for r in tp["rows"]}
    h = curve["rllib_ppo"]["history"]
    cfg = curve["rllib_ppo"]["config"]
    learn = [x["learn_s"] for x in h[1:] if x.get("learn_s")]
    learn_s = sorted(learn)[len(learn) // 2] if learn else None
    learner_sps = cfg["train_batch"] / learn_s if learn_s else None
    out: dict[str, Any] = {
        "inputs": {
            "per_runner_steps_per_s": {
                f"{v}": rows[(v, 1)]["steps_per_s"] for v in ("python", "native")
            },
            "two_runner_efficiency": {
                v: rows[(v, 2)]["steps_per_s"] / (2 * rows[(v, 1)]["steps_per_s"])
                for v in ("python", "native")
            },
            "learner_update_s_per_batch": learn_s,
            "train_batch": cfg["train_batch"],
            "learner_steps_per_s": learner_sps,
        },
        "model": "sampling(R, M) = R * M * per_runner (one core per runner, no sharing); "
        "a synchronous PPO iteration takes batch/sampling + batch/learner seconds, "
        "so trained steps/s = 1 / (1/sampling + 1/learner)",
        "table": [],
    }
    for v in ("python", "native"):
        per = rows[(v, 1)]["steps_per_s"]
        for m in (1, 2, 4, 8):
            for r in (1, 2, 4, 8, 16):
                s = r * m * per
                trained = 1 / (1 / s + 1 / learner_sps) if learner_sps else None
                out["table"].append(
                    {
                        "vectorize": v,
                        "machines": m,
                        "runners_per_machine": r,
                        "sampling_steps_per_s": s,
                        "trained_steps_per_s": trained,
                        "learner_bound": bool(learner_sps and s > learner_sps),
                    }
                )
    out["machine"] = _machine()
    _write("rllib_scaleout.json", out)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for v, color in (("python", "tab:orange"), ("native", "tab:blue")):
        pts = [t for t in out["table"] if t["vectorize"] == v and t["runners_per_machine"] == 8]
        x = [8 * t["machines"] for t in pts]
        lines = [("sampling_steps_per_s", "--", "sampling")]
        if learner_sps:
            lines.append(("trained_steps_per_s", "-", "PPO iterations (1 CPU learner)"))
        for key, style, what in lines:
            ax.plot(x, [t[key] for t in pts], style, color=color, label=f"{v} envs: {what}")
    if learner_sps:
        ax.axhline(learner_sps, color="gray", ls=":", label=f"learner {learner_sps:,.0f} steps/s")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("env runners (8 per machine)")
    ax.set_ylabel("env steps/s")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3, which="both")
    ax.set_title("Simulated scale-out from the measured per-runner rates")
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "rllib_scaleout.png"), dpi=100)
    print(json.dumps(out["inputs"], indent=1))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("throughput")
    t.add_argument("--num-envs", type=int, default=256)
    t.add_argument("--steps", type=int, default=20_000, help="env steps per runner timed")
    c = sub.add_parser("curve")
    c.add_argument("--minutes", type=float, default=6.0)
    c.add_argument("--env-runners", type=int, default=0)
    c.add_argument("--num-envs", type=int, default=256)
    c.add_argument("--runs", default="runs/rllib-curve")
    sub.add_parser("scaleout")
    e = sub.add_parser("envonly")
    e.add_argument("--num-envs", type=int, default=256)
    e.add_argument("--steps", type=int, default=200)
    args = p.parse_args(argv)
    return {
        "throughput": cmd_throughput,
        "curve": cmd_curve,
        "scaleout": cmd_scaleout,
        "envonly": cmd_envonly,
    }[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
