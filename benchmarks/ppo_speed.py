"""Env steps per second of training: the fast-path masked PPO
(``agents/algos/ppo.py``) against sb3-contrib MaskablePPO on ``DungeonSB3VecEnv``,
with the same network, on the same game and machine, in one run.

Run: ``python -m dungeonrl.benchmarks.ppo_speed [--seconds 60] [--json PATH]``

Each configuration trains for whole iterations (rollout + update) until
``--seconds`` have passed after one warm-up iteration; steps/s = env steps
of the timed iterations / their wall time. Configurations:

* ``fast_ppo``: the fast path's defaults (1,024 envs x 32 steps, 16
  minibatches of 2,048, 2 epochs);
* ``sb3_default``: MaskablePPO with SB3's own PPO defaults (n_steps 2,048,
  batch 64, 10 epochs) on 8 envs;
* ``sb3_matched``: MaskablePPO with the fast path's batch geometry and epochs
  (1,024 envs x 32 steps, minibatch 2,048, 2 epochs).

Network for all: separate actor and critic MLPs 2 x 256 tanh
(``--hidden``, ``--activation``, ``--shared`` to change). The game and its
options: ``benchmarks/data/ppo_speed.toml`` (Unbroken, Normal, Sneak).
Torch threads: ``--threads`` (default 0 = 1 thread).

The headline ratio compares each at its own defaults, as people run them
(a comparison, not a target: the targets live in
``dungeonrl.benchmarks.suite.targets``); ``sb3_matched``
shows what is left when SB3 gets the fast path's batch geometry: both are
then bound by the same torch update, and the gap is the rollout side only.
``--json benchmarks/results/ppo_speed.json`` feeds the README's
``training-speed`` section (``python -m dungeonrl.benchmarks.report``).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from . import datafile

#: the game, its core options and its title (``benchmarks/data/ppo_speed.toml``)
SETTING = datafile.check_keys(
    datafile.load("ppo_speed"), "ppo_speed.toml", ("game", "core_kwargs", "title")
)


def time_fast(seconds, hidden, activation, shared, threads, **kw):
    from ..agents.algos.ppo import PPOConfig, train

    cfg = PPOConfig(
        env=SETTING["game"],
        core_kwargs=dict(SETTING["core_kwargs"]),
        total_steps=10**12,
        hidden=hidden,
        activation=activation,
        shared=shared,
        torch_threads=threads or 1,  # 0: one thread, as for SB3 (not the fast PPO's own default)
        **kw,
    )
    marks = []

    def cb(m, net):
        marks.append((time.perf_counter(), m["global_step"]))
        return len(marks) > 1 and marks[-1][0] - marks[0][0] >= seconds

    train(cfg, callback=cb)
    (t0, s0), (t1, s1) = marks[0], marks[-1]
    return (s1 - s0) / (t1 - t0), {
        "num_envs": cfg.num_envs,
        "num_steps": cfg.num_steps,
        "minibatch": cfg.minibatch_size,
        "epochs": cfg.update_epochs,
    }


def time_sb3(seconds, hidden, activation, shared, threads, num_envs, n_steps, batch_size, n_epochs):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from ..agents.algos.ppo import set_torch_threads
    from ..agents.algos.sb3 import policy_kwargs
    from ..envs.core.adapters.vector import DungeonSB3VecEnv

    set_torch_threads(threads)
    venv = DungeonSB3VecEnv(
        SETTING["game"], num_envs=num_envs, seed=0, episode_info=True, **SETTING["core_kwargs"]
    )
    marks = []

    class Timer(BaseCallback):
        def _on_rollout_start(self):  # = end of the previous iteration's update
            marks.append((time.perf_counter(), self.model.num_timesteps))

        def _on_step(self):
            return not (len(marks) > 1 and marks[-1][0] - marks[0][0] >= seconds)

    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=n_steps,
        batch_size=batch_size,
        n_epochs=n_epochs,
        gamma=0.995,
        ent_coef=0.01,
        device="cpu",
        seed=0,
        policy_kwargs=policy_kwargs(hidden, activation, shared),
    )
    model.learn(10**12, callback=Timer())
    (t0, s0), (t1, s1) = marks[0], marks[-1]
    return (s1 - s0) / (t1 - t0), {
        "num_envs": num_envs,
        "num_steps": n_steps,
        "minibatch": batch_size,
        "epochs": n_epochs,
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=60.0, help="timed seconds per configuration")
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--activation", default="tanh")
    p.add_argument("--shared", action="store_true")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--only", default=None, help="comma list of configurations to run")
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    hidden = tuple(int(h) for h in a.hidden.split(","))
    common = (a.seconds, hidden, a.activation, a.shared, a.threads)
    configs = {
        "fast_ppo": lambda: time_fast(*common),
        "sb3_default": lambda: time_sb3(
            *common, num_envs=8, n_steps=2048, batch_size=64, n_epochs=10
        ),
        "sb3_matched": lambda: time_sb3(
            *common, num_envs=1024, n_steps=32, batch_size=2048, n_epochs=2
        ),
    }
    names = a.only.split(",") if a.only else list(configs)
    rows = {}
    for name in names:
        sps, geo = configs[name]()
        rows[name] = {"steps_per_s": sps, **geo}
        print(f"{name:<12} {sps:>9,.0f} steps/s  {geo}", flush=True)
    if "fast_ppo" in rows:
        for name in rows:
            if name != "fast_ppo":
                ratio = rows["fast_ppo"]["steps_per_s"] / rows[name]["steps_per_s"]
                print(f"fast_ppo / {name}: {ratio:.1f}x")
    if a.json:
        with open(a.json, "w") as f:
            from ..machine import machine_info

            m = machine_info()
            json.dump(
                {
                    "network": {
                        "hidden": list(hidden),
                        "activation": a.activation,
                        "shared": a.shared,
                    },
                    "threads": a.threads,
                    "seconds": a.seconds,
                    "date": time.strftime("%Y-%m-%d"),
                    "machine": {"cpu": m["cpu"], "cores": m["cores"]},
                    "load_avg_1m_at_end": os.getloadavg()[0],
                    "results": rows,
                },
                f,
                indent=1,
            )
    return rows


if __name__ == "__main__":
    main()


LABELS = {
    "fast_ppo": "fast PPO (agents/algos/ppo.py), its defaults",
    "sb3_default": "SB3 MaskablePPO, SB3's PPO defaults",
    "sb3_matched": "SB3 MaskablePPO, the fast path's batch geometry",
}


def markdown(data: dict) -> str:
    """README table of a ``--json`` result."""
    r = data["results"]
    net = data["network"]
    m = (
        data["machine"]
        if isinstance(data["machine"], dict)
        else {"cpu": data["machine"], "cores": "?"}
    )
    lines = [
        f"Measured by `python -m dungeonrl.benchmarks.ppo_speed --json "
        f"benchmarks/results/ppo_speed.json` ({data.get('date', '?')}, {m['cpu']}, "
        f"{m['cores']} cores, {data.get('seconds', '?')} s timed per configuration, "
        f"load {data['load_avg_1m_at_end']:.1f} at the end). {SETTING['title']}; "
        f"network: separate actor and critic MLPs {net['hidden']} {net['activation']}, "
        "1 torch thread.",
        "",
        "| configuration | envs x steps | minibatch | epochs | env-steps/s | fast PPO is |",
        "|---|---|---:|---:|---:|---:|",
    ]
    fast = r.get("fast_ppo", {}).get("steps_per_s")
    for k, v in r.items():
        ratio = f"{fast / v['steps_per_s']:.1f}x" if fast and k != "fast_ppo" else ""
        lines.append(
            f"| {LABELS.get(k, k)} | {v['num_envs']:,} x {v['num_steps']:,} | "
            f"{v['minibatch']:,} | {v['epochs']} | {v['steps_per_s']:,.0f} | {ratio} |"
        )
    if fast and "sb3_default" in r:
        x = fast / r["sb3_default"]["steps_per_s"]
        lines += [
            "",
            f"With the same network, the fast PPO collects {x:.1f}x the env-steps/s "
            "of SB3 MaskablePPO at SB3's defaults. This is a comparison, not a "
            "target: the speed targets are stated once, in the *Speed* section's "
            "table (`dungeonrl bench`).",
        ]
    return "\n".join(lines)
