"""Training steps per second of the fast PPO on one and on several threads.

Run: ``python -m dungeonrl.benchmarks.ppo_threads [--seconds 40] [--rounds 2]
[--json PATH]``

A fast-PPO iteration is a rollout (the network picks an action for every
env, the envs step) and an update (two epochs of minibatch gradient steps
over the rollout). The envs do not step during the update, so its matrix
products can use every core; during the rollout the network's forward pass
and the env kernels take turns on the same cores. Configurations (the
thread counts of :class:`~dungeonrl.agents.algos.ppo.PPOConfig`):

* ``one_thread``: ``torch_threads=1``;
* ``update_threads``: the update on every core (``update_threads=cores``),
  the rollout on one thread;
* ``all_threads``: torch on every core throughout (``torch_threads=cores``;
  the fast PPO's default on an idle machine, see ``TORCH_DEFAULT_THREADS``);
* ``update_and_env_threads`` (one-seat games): the update on every core and
  the env step split over every core too (``env_threads=cores``).

Games: Unbroken Normal (the fast PPO's defaults: 1,024 envs x 32 steps, 2 x
256 tanh) and Dungeon Crawler at 8 seats against seven heuristics (the
shipped 8-seat agent's setting: the self-play view, 1,024 envs). Each
configuration trains whole iterations until ``--seconds`` have passed after
one warm-up iteration; the configurations take turns for ``--rounds``
rounds and each figure is the median over its rounds, with the mean
rollout and update seconds per iteration.
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

from ..machine import loadavg, machine_info
from . import cmdline, datafile


def configs(cores: int, multi: bool) -> dict:
    """name -> PPOConfig thread fields."""
    out = {
        "one_thread": {"torch_threads": 1},
        "update_threads": {"torch_threads": 1, "update_threads": cores},
        "all_threads": {"torch_threads": cores},
    }
    if not multi:
        out["update_and_env_threads"] = {
            "torch_threads": 1,
            "update_threads": cores,
            "env_threads": cores,
        }
    return out


def load_settings(name: str = "ppo_threads") -> dict[str, dict[str, Any]]:
    """key -> ``{"game", "core_kwargs", "partners"}`` of ``benchmarks/data/<name>.toml``
    (``partners``: the self-play view's other seats, ``None`` for a one-seat setting)."""
    rows = datafile.rows(
        datafile.load(name),
        "settings",
        f"{name}.toml",
        ("key", "game"),
        ("core_kwargs", "partners"),
    )
    return {
        r["key"]: {
            "game": r["game"],
            "core_kwargs": dict(r.get("core_kwargs", {})),
            "partners": r.get("partners"),
        }
        for r in rows
    }


#: the measured settings (:func:`load_settings`)
SETTINGS = load_settings()


def time_config(setting: str, threads: dict, seconds: float, **overrides) -> dict:
    """Steps/s of whole iterations after a warm-up one, and the mean rollout
    and update seconds per iteration (``overrides``: other PPOConfig fields)."""
    from ..agents.algos.ppo import PPOConfig, train
    from ..agents.algos.selfplay import make_view
    from ..envs.core.common import resolve_core

    game, kwargs, partners = (SETTINGS[setting][k] for k in ("game", "core_kwargs", "partners"))
    cfg = PPOConfig(env=game, core_kwargs=kwargs, total_steps=10**12, **threads, **overrides)
    view = None
    if partners is not None:
        view = make_view(resolve_core(game, dict(kwargs)), cfg.num_envs, partners, seed=0)
    marks, parts = [], []

    def cb(m, net):
        marks.append((time.perf_counter(), m["global_step"]))
        if len(marks) > 1:
            parts.append((m["rollout_s"], m["update_s"]))
        return len(marks) > 1 and marks[-1][0] - marks[0][0] >= seconds

    train(cfg, game=view, callback=cb)
    (t0, s0), (t1, s1) = marks[0], marks[-1]
    return {
        "steps_per_s": (s1 - s0) / (t1 - t0),
        "rollout_s": statistics.mean(p[0] for p in parts),
        "update_s": statistics.mean(p[1] for p in parts),
    }


def run(seconds: float, rounds: int, settings: list) -> dict:
    cores = os.cpu_count() or 1
    res: dict = {
        "kind": "ppo-threads",
        "machine": machine_info(),
        "cores": cores,
        "seconds": seconds,
        "rounds": rounds,
        "load_before": loadavg(),
        "settings": {},
    }
    for setting in settings:
        confs = configs(cores, SETTINGS[setting]["partners"] is not None)
        per: dict = {name: [] for name in confs}
        for r in range(rounds):
            names = list(confs)
            names = names[r % len(names) :] + names[: r % len(names)]
            for name in names:
                fig = time_config(setting, confs[name], seconds)
                per[name].append(fig)
                print(f"{setting} {name} round {r}: {fig['steps_per_s']:,.0f} steps/s", flush=True)
        res["settings"][setting] = {
            name: {
                "threads": confs[name],
                "steps_per_s": statistics.median(f["steps_per_s"] for f in figs),
                "rollout_s": statistics.median(f["rollout_s"] for f in figs),
                "update_s": statistics.median(f["update_s"] for f in figs),
                "rounds": figs,
            }
            for name, figs in per.items()
        }
    res["load_after"] = loadavg()
    return res


def markdown(res: dict) -> str:
    """One row per setting and configuration: steps/s, its ratio to one
    thread, rollout and update seconds per iteration."""
    lines = [
        "| setting | threads | steps/s | vs one thread | rollout s/iter | update s/iter |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for setting, confs in res["settings"].items():
        base = confs["one_thread"]["steps_per_s"]
        for c in confs.values():
            t = ", ".join(f"{k}={v}" for k, v in c["threads"].items())
            lines.append(
                f"| {setting} | {t} | {c['steps_per_s']:,.0f} | {c['steps_per_s'] / base:.2f}x "
                f"| {c['rollout_s']:.2f} | {c['update_s']:.2f} |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    p = cmdline.parser("ppo_threads")
    p.add_argument("--seconds", type=float, default=40.0, help="timed seconds per configuration")
    p.add_argument("--rounds", type=int, default=2, help="rounds of every configuration")
    p.add_argument("--settings", default=",".join(SETTINGS), help="comma-separated")
    p.add_argument("--json", default=None, help="write the result here")
    a = p.parse_args(argv)
    names = [s for s in a.settings.split(",") if s]
    bad = [s for s in names if s not in SETTINGS]
    if bad:
        p.error(f"unknown setting {bad}; choose from {sorted(SETTINGS)}")
    res = run(a.seconds, a.rounds, names)
    print(markdown(res))
    cmdline.save_json(res, a.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
