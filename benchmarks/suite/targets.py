"""The speed targets, stated once, and their evaluation against one run.

:data:`TARGETS` is the only place a target is written: the terminal table,
the README section and the JSON (``targets_spec``) all read it. A target's
``goal`` maps a game name to its threshold (``"*"``: every game); a game
without a goal is still measured and reported ("reported", no verdict).
Ratios are read in one run on one machine, from the paired rounds where
the run has them (:mod:`.paired`: the two loops take turns, and the ratio is
the median of the per-round ratios, so a change of the machine's speed
between two measurements cancels out); a run without them (``--paired-rounds
0``, an older JSON) falls back to the ratio of the two medians, which each
paired row keeps as ``unpaired``. ``value_cpu`` is the same ratio in steps
per CPU-second of the benchmark process, which other processes disturb less.

Two targets are outcomes of training, not of ``dungeonrl bench``: they are
read from the recorded baseline run (``benchmarks/results/baselines.json``,
written by ``python -m dungeonrl.benchmarks.baselines``).
"""

from __future__ import annotations

import dataclasses
import json
import os

from .measure import cpu_of, median_of, ok
from .settings import REF_ENVS, RESULTS


@dataclasses.dataclass(frozen=True)
class Target:
    """One row of the targets table."""

    id: str
    short: str  #: a few words for the terminal table
    label: str  #: what is compared, in words
    today: str  #: the figure when the target was set
    goal: dict  #: game name (or "*") -> threshold
    direction: str = ">="
    unit: str = "x"  #: "x" (a ratio), "s", "min" or "%" (a fraction shown as %)
    source: str = "bench"  #: "bench" (this run) or "baselines" (baselines.json)

    def goal_for(self, game: str):
        return self.goal.get(game, self.goal.get("*"))


TARGETS = (
    Target(
        "step_vs_rules",
        "step / rules-only",
        "time of the full step in the kernel (rules, mask and observation: "
        "random_rollout) / the same games with the observation off "
        "(random_rollout_rules), 1 thread",
        "1.74x Dungeon Crawler 4 seats",
        {"*": 1.5},
        "<=",
    ),
    Target(  # reported beside the other peers, no longer a target (a far smaller
        # game whose speed moves with the CPU while the kernels do not)
        "kernel_vs_leduc",
        "kernel / OpenSpiel leduc",
        "kernel, 1 thread, random legal play with observations and masks / "
        "OpenSpiel leduc_poker with observation tensor",
        "7.2x Unbroken, 5.5-6.5x Dungeon Crawler",
        {},
    ),
    Target(
        "vector_vs_kernel",
        "vector 4,096 / kernel",
        f"vector env at {REF_ENVS:,} envs / the same game's kernel",
        "~0.42 (Unbroken)",
        {"*": 0.8},
    ),
    Target(
        "compact_vs_kernel",
        "compact vector 4,096 / kernel",
        f"vector env at {REF_ENVS:,} envs with the compact observation "
        "(obs_dtype float16) / the same game's kernel",
        "0.47-0.55x Dungeon Kart, 0.41x Carl (float32 observation)",
        {"dungeon_kart": 0.8, "dcc_unstoppable": 0.8},
    ),
    Target(
        "single_vs_cartpole",
        "single env / CartPole",
        "gymnasium.make single-env step / CartPole-v1",
        "0.74x (AMD) to 1.5x (Intel)",
        {"*": 1.3},
    ),
    Target(
        "aec_vs_connect_four",
        "AEC / connect_four",
        "PettingZoo AEC loop (env.last + step, masks used) / connect_four_v3",
        "1.5-1.8x",
        {"*": 4.0},
    ),
    Target(
        "ppo_minutes_to_heuristic",
        "PPO: minutes to heuristic",
        "fast PPO on Unbroken Normal: wall time until its win rate first reaches the heuristic's",
        "~5 min",
        {"unbroken": 2.5},
        "<=",
        "min",
        "baselines",
    ),
    Target(
        "ppo_win_rate_25min",
        "PPO: win rate at 25 min",
        "fast PPO on Unbroken Normal: greedy win rate after 25 min, same 2,000 seeded games",
        "57.5 %",
        {"unbroken": 0.65},
        ">=",
        "%",
        "baselines",
    ),
    Target(
        "warm_start_s",
        "warm start",
        "warm start (numba cache filled) to the first step",
        "1.3-1.5 s",
        {"*": 1.0},
        "<=",
        "s",
    ),
)
TARGET_BY_ID = {t.id: t for t in TARGETS}
#: the baseline run the training targets are read from
BASELINE_RUN = "unbroken-ppo"
#: further recorded runs read against the same targets, each in its own row:
#: run name -> the row's ``variant`` (shown after the game's name)
BASELINE_VARIANTS = {"unbroken-ppo-kickstart": "cloned start"}


def targets_spec() -> dict:
    """:data:`TARGETS` as plain data (stored in every result JSON)."""
    return {t.id: dataclasses.asdict(t) for t in TARGETS}


def ratio(a, b):
    return a / b if (a is not None and b) else None


def ref_vector(cfg: dict) -> tuple[str, dict | None]:
    """The vector figure at :data:`REF_ENVS` envs: the Gymnasium adapter for
    single-agent games, the batched core path for multi-agent ones."""
    layer = "vector" if "vector" in cfg else "batch"
    return layer, cfg.get(layer, {}).get(str(REF_ENVS))


def paired_ratio_of(cfg: dict, tid: str) -> dict | None:
    """Target ``tid``'s ratio from the configuration's paired rounds, when
    they ran and timed both loops (the vector loop at :data:`REF_ENVS`)."""
    pr = cfg.get("paired")
    if not ok(pr) or tid not in pr.get("ratios", {}):
        return None
    if tid in ("vector_vs_kernel", "compact_vs_kernel") and pr.get("num_envs") != REF_ENVS:
        return None
    return pr["ratios"][tid]


def load_baselines(path: str | None = None) -> dict:
    """The recorded baseline runs (``{}`` when the file is missing)."""
    path = path or os.path.join(RESULTS, "baselines.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def _verdict(value, goal, direction):
    if value is None or goal is None:
        return None
    return value >= goal if direction == ">=" else value <= goal


def evaluate_targets(res: dict, baselines: dict | None = None) -> list:
    """One row per target, game and player count: ``value`` (None when not
    measured), ``target`` (None: reported only), ``met`` (True, False, or
    None when either is missing)."""
    peers = res.get("peers", {})
    ref = {
        "leduc": peers.get("os_leduc_poker"),
        "cartpole": peers.get("cartpole_single"),
        "c4": peers.get("pz_connect_four"),
    }
    out = []

    def add(tid, game, players, value, basis="", cpu=None, unpaired=None, spread=None):
        t = TARGET_BY_ID[tid]
        goal = t.goal_for(game)
        row = {
            "id": tid,
            "game": game,
            "players": players,
            "label": t.label,
            "short": t.short,
            "value": value,
            "target": goal,
            "direction": t.direction,
            "unit": t.unit,
            "met": _verdict(value, goal, t.direction),
            "basis": basis,
            "value_cpu": cpu,
            "today": t.today,
        }
        if unpaired is not None:
            row["unpaired"] = unpaired
        if spread is not None:
            row["range"] = spread
        out.append(row)

    def both(a, b):
        return ratio(median_of(a), median_of(b)), ratio(cpu_of(a), cpu_of(b))

    def read(tid, name, p, cfg, a, b, basis):
        """The paired ratio when the run has one (the median of per-round
        ratios, see :mod:`.paired`), else the ratio of the two medians."""
        v, c = both(a, b)
        pr = paired_ratio_of(cfg, tid)
        if pr is None:
            add(tid, name, p, v, basis, c)
        else:
            add(
                tid,
                name,
                p,
                pr["value"],
                f"{basis}; paired: median of {pr['rounds']} per-round ratios "
                f"[{pr['min']:.2f}, {pr['max']:.2f}]",
                pr.get("cpu"),
                unpaired={"value": v, "value_cpu": c},
                spread=[pr["min"], pr["max"]],
            )

    for name, g in res.get("games", {}).items():
        for pkey, cfg in g["configs"].items():
            p = int(pkey)
            kfig = cfg.get("kernel", {}).get("1")
            read(
                "step_vs_rules",
                name,
                p,
                cfg,
                None,  # rules-only rollouts run in the paired rounds only
                kfig,
                "core.random_rollout_rules vs core.random_rollout, 1 thread",
            )
            read(
                "kernel_vs_leduc", name, p, cfg, kfig, ref["leduc"], "core.random_rollout, 1 thread"
            )
            layer, fig = ref_vector(cfg)
            read(
                "vector_vs_kernel",
                name,
                p,
                cfg,
                fig,
                kfig,
                "vector env" if layer == "vector" else "batched core (multi-agent: no vector env)",
            )
            read(
                "compact_vs_kernel",
                name,
                p,
                cfg,
                None,  # the compact vector loop runs in the paired rounds only
                kfig,
                f"{'vector env' if layer == 'vector' else 'batched core'}, obs_dtype float16",
            )
            if g["multi_agent"]:
                read("aec_vs_connect_four", name, p, cfg, cfg.get("python"), ref["c4"], "AEC loop")
            else:
                read(
                    "single_vs_cartpole",
                    name,
                    p,
                    cfg,
                    cfg.get("python"),
                    ref["cartpole"],
                    "gymnasium.make",
                )
        st = g.get("start", {})
        add(
            "warm_start_s",
            name,
            None,
            st.get("warm_s") if ok(st) else None,
            "fresh process, first line to first step",
        )
    games = res.get("games", {})
    if baselines is not None and any(
        t.goal_for(n) is not None for n in games for t in TARGETS if t.source == "baselines"
    ):
        out += baseline_targets(baselines)
    return out


def baseline_targets(baselines: dict) -> list:
    """The training targets from the recorded baseline run (plain PPO from a
    random network), then from each recorded run of
    :data:`BASELINE_VARIANTS` (rows named after the variant)."""
    rows = []
    runs = [(BASELINE_RUN, None)]
    runs += [(k, label) for k, label in BASELINE_VARIANTS.items() if k in baselines]
    for run, who in runs:
        e = baselines.get(run) or {}
        basis = (
            f"baselines.json {run}, recorded {e.get('recorded')}, {e.get('train_minutes')} min"
            if e
            else "no recorded baseline run"
        )
        greedy = next(
            (
                r.get("win_rate")
                for r in e.get("final_eval", [])
                if r.get("agent") == "ppo (greedy)"
            ),
            None,
        )
        for tid, value in (
            ("ppo_minutes_to_heuristic", e.get("minutes_to_heuristic")),
            ("ppo_win_rate_25min", greedy),
        ):
            t = TARGET_BY_ID[tid]
            goal = t.goal_for("unbroken")
            rows.append(
                {
                    "id": tid,
                    "game": "unbroken",
                    "variant": who,
                    "players": None,
                    "label": t.label,
                    "short": t.short,
                    "value": value,
                    "target": goal,
                    "direction": t.direction,
                    "unit": t.unit,
                    "met": _verdict(value, goal, t.direction),
                    "basis": basis,
                    "value_cpu": None,
                    "today": t.today,
                }
            )
    return rows


def _fmt_value(v, unit, goal: bool = False) -> str:
    if unit == "%":
        return f"{100 * v:g} %" if goal else f"{100 * v:.1f} %"
    if unit in ("s", "min"):
        return f"{v:g} {unit}" if goal else f"{v:.2f} {unit}"
    return f"{v:g}x" if goal else f"{v:.2f}x"


def fmt_target(t) -> tuple[str, str, str]:
    """``(measured, goal, verdict)`` texts of a target row."""
    unit = t.get("unit") or ("s" if t["id"] == "warm_start_s" else "x")
    v = t["value"]
    shown = "n/a" if v is None else _fmt_value(v, unit)
    if v is not None and t.get("value_cpu") is not None:
        shown += f" (cpu {t['value_cpu']:.2f}x)"
    goal = (
        "-"
        if t["target"] is None
        else f"{t['direction']} {_fmt_value(t['target'], unit, goal=True)}"
    )
    if t["target"] is None:
        state = "reported"
    else:
        state = {True: "met", False: "MISSED", None: "not measured"}[t["met"]]
    return shown, goal, state
