"""The fields a result JSON must have (:func:`validate`)."""

from __future__ import annotations

from .peers import PEERS

TOP_FIELDS = (
    "schema",
    "suite",
    "mode",
    "created",
    "command",
    "machine",
    "load_before",
    "load_after",
    "elapsed_s",
    "settings",
    "targets_spec",
    "games",
    "peers",
    "targets",
)
MACHINE_FIELDS = ("cpu", "cores", "platform", "versions")
VERSION_FIELDS = ("python", "numpy", "numba", "gymnasium", "pettingzoo", "torch", "open_spiel")
CONFIG_FIELDS = ("players", "kernel", "batch", "python", "memory")
MEMORY_FIELDS = ("state_bytes", "buffer_bytes_per_env")
GAME_FIELDS = ("env_id", "multi_agent", "configs", "training", "start")
PEER_FIELDS = tuple(PEERS) + ("cartpole_vector",)
TARGET_FIELDS = ("id", "game", "players", "label", "value", "target", "direction", "met")


def _check_paired(fig, where, problems):
    """The paired rounds of a configuration (optional: older runs, and runs
    with ``--paired-rounds 0``, have none)."""
    if not isinstance(fig, dict) or "status" not in fig:
        problems.append(f"{where}: not a figure")
    elif fig["status"] != "ok":
        _check_fig(fig, where, problems)
    else:
        problems += [
            f"{where}: missing {k!r}" for k in ("rounds", "rates", "ratios") if k not in fig
        ]
        for name, rates in fig.get("rates", {}).items():
            if len(rates) != fig.get("rounds"):
                problems.append(
                    f"{where}: {name} has {len(rates)} rates for {fig.get('rounds')} rounds"
                )


def _check_fig(fig, where, problems):
    if not isinstance(fig, dict) or "status" not in fig:
        problems.append(f"{where}: not a figure")
    elif fig["status"] == "ok":
        for k in ("median",):
            if not isinstance(fig.get(k), (int, float)):
                problems.append(f"{where}: no {k}")
    elif fig["status"] in ("unavailable", "skipped"):
        if not fig.get("reason"):
            problems.append(f"{where}: {fig['status']} without a reason")
    else:
        problems.append(f"{where}: unknown status {fig['status']!r}")


def validate(res: dict) -> list:
    """Problems with a result dict (empty list = every field is there)."""
    problems = [f"missing top-level field {k!r}" for k in TOP_FIELDS if k not in res]
    if problems:
        return problems
    m = res["machine"]
    problems += [f"machine: missing {k!r}" for k in MACHINE_FIELDS if k not in m]
    problems += [
        f"machine.versions: missing {k!r}" for k in VERSION_FIELDS if k not in m.get("versions", {})
    ]
    for name, g in res["games"].items():
        problems += [f"{name}: missing {k!r}" for k in GAME_FIELDS if k not in g]
        for p, cfg in g.get("configs", {}).items():
            w = f"{name}[{p}]"
            problems += [f"{w}: missing {k!r}" for k in CONFIG_FIELDS if k not in cfg]
            if not g.get("multi_agent") and "vector" not in cfg:
                problems.append(f"{w}: missing 'vector'")
            for layer in ("kernel", "batch", "vector"):
                for key, fig in cfg.get(layer, {}).items():
                    _check_fig(fig, f"{w}.{layer}[{key}]", problems)
            _check_fig(cfg.get("python"), f"{w}.python", problems)
            if "paired" in cfg:
                _check_paired(cfg["paired"], f"{w}.paired", problems)
            mem = cfg.get("memory", {})
            problems += [f"{w}.memory: missing {k!r}" for k in MEMORY_FIELDS if k not in mem]
        tr = g.get("training", {})
        for algo in ("sb3", "fast_ppo"):
            _check_fig(tr.get(algo), f"{name}.training.{algo}", problems)
        st = g.get("start", {})
        if not isinstance(st, dict) or "status" not in st:
            problems.append(f"{name}.start: not a figure")
        elif st["status"] == "ok":
            problems += [
                f"{name}.start: missing {k!r}" for k in ("cold_s", "warm_s") if k not in st
            ]
    if res["peers"]:
        problems += [f"peers: missing {k!r}" for k in PEER_FIELDS if k not in res["peers"]]
        for k in PEERS:
            if k in res["peers"]:
                _check_fig(res["peers"][k], f"peers.{k}", problems)
        for n, fig in res["peers"].get("cartpole_vector", {}).get("by_num_envs", {}).items():
            _check_fig(fig, f"peers.cartpole_vector[{n}]", problems)
        if res.get("schema", 1) >= 2:  # EnvPool joined in schema 2
            ep = res["peers"].get("envpool_cartpole")
            if ep is None:
                problems.append("peers: missing 'envpool_cartpole'")
            elif ep.get("status") != "ok":
                _check_fig(ep, "peers.envpool_cartpole", problems)
            else:
                if not ep.get("by_config"):
                    problems.append("peers.envpool_cartpole: no figures")
                for key, fig in ep.get("by_config", {}).items():
                    _check_fig(fig, f"peers.envpool_cartpole[{key}]", problems)
    for t in res["targets"]:
        problems += [f"target {t.get('id')}: missing {k!r}" for k in TARGET_FIELDS if k not in t]
    return problems
