"""The speed targets, guards and reported figures, stated once, and their
evaluation against one run.

:data:`TARGETS` (read from ``benchmarks/data/targets.toml``) is the only
place a row is written: the terminal table, the docs section and the JSON
(``targets_spec``) all read it. Each row is of one ``kind``:

* ``"target"``: a goal; a game's row is *met* or *MISSED*;
* ``"guard"``: a limit that must not be exceeded (a speed that must not get
  worse); a game's row is *within* it or has *FAILED*. A guard is either a
  fixed limit (``goal``) or ``relative``: a limit on the growth of the
  figure over its recorded reference (:mod:`.guards`,
  ``benchmarks/results/guard_reference.json``);
* ``"reported"``: a figure measured and shown without a target.

A row's ``goal`` maps a game name to its threshold (``"*"``: every game);
a game without a goal is still measured and reported (no verdict), and
``variants`` limits a goal to the named variants of a recorded run (the
training targets apply to the recipe, the cloned start). ``decision`` says,
in one sentence, what was decided for the row and why.

Ratios are read in one run on one machine, from the paired rounds where
the run has them (:mod:`.paired`: the two loops take turns, and the ratio is
the median of the per-round ratios, so a change of the machine's speed
between two measurements cancels out); a run without them (``--paired-rounds
0``, an older JSON) falls back to the ratio of the two medians, which each
paired row keeps as ``unpaired``. ``value_cpu`` is the same ratio in steps
per CPU-second of the benchmark process, which other processes disturb less.

Some rows are not measured by ``dungeonrl bench``: the training targets
are read from the recorded baseline runs (``benchmarks/results/baselines.json``,
written by ``python -m dungeonrl.benchmarks.baselines``), and the
cold-start guards from the cold-start benchmark
(``benchmarks/results/cold_start.json``, written by ``python -m
dungeonrl.benchmarks.cold_start``).
"""

from __future__ import annotations

import dataclasses
import json
import os

from .. import datafile
from .guards import load_references, ns_per_column, reference_basis, reference_value
from .measure import cpu_of, median_of, ok
from .settings import REF_ENVS, RESULTS

#: the kinds of row (see the module doc)
KINDS = ("target", "guard", "reported")
#: the reference machine of the guards in seconds: the 2-core machine the
#: checked-in results are measured on (a run elsewhere is reported only)
REFERENCE_CORES = 2
#: processes of the precompile its guard is stated for
PRECOMPILE_JOBS = 2


@dataclasses.dataclass(frozen=True)
class Target:
    """One row of the targets table."""

    id: str
    short: str  #: a few words for the terminal table
    label: str  #: what is compared, in words
    today: str  #: the figure when the row was set
    goal: dict  #: game name (or "*") -> threshold; {} for a reported or relative row
    direction: str = ">="
    unit: str = "x"  #: "x" (a ratio), "s", "min", "ns" or "%" (a fraction shown as %)
    #: "bench" (this run), "baselines" (baselines.json), "cold_start" (cold_start.json)
    source: str = "bench"
    kind: str = "target"  #: "target", "guard" or "reported"
    decision: str = ""  #: what was decided for this row and why, one sentence
    #: a relative guard: the limit is the recorded reference times (1 + relative)
    relative: float | None = None
    #: the variants of a recorded run the goal applies to (None: every row)
    variants: tuple | None = None
    #: a limit in seconds, stated for the reference machine only
    reference_machine: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"target {self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == "reported" and (self.goal or self.relative is not None):
            raise ValueError(f"target {self.id}: a reported row has no goal")
        if self.kind == "target" and self.relative is not None:
            raise ValueError(f"target {self.id}: only a guard is relative to a reference")

    def goal_for(self, game: str, variant: str | None = None):
        """The fixed threshold for ``game`` (and ``variant``), None if none."""
        if self.variants is not None and variant not in self.variants:
            return None
        return self.goal.get(game, self.goal.get("*"))


def load_targets(name: str = "targets") -> tuple[tuple[Target, ...], str, dict[str, str]]:
    """``(TARGETS, BASELINE_RUN, BASELINE_VARIANTS)`` from
    ``benchmarks/data/<name>.toml`` (each field of a row as :class:`Target`
    names it; ``label`` may name ``{REF_ENVS}``, ``{REFERENCE_CORES}`` and
    ``{PRECOMPILE_JOBS}``)."""
    data = datafile.load(name)
    fields = [f.name for f in dataclasses.fields(Target)]
    values = {"REF_ENVS": REF_ENVS, "REFERENCE_CORES": REFERENCE_CORES}
    values["PRECOMPILE_JOBS"] = PRECOMPILE_JOBS
    rows = datafile.rows(data, "targets", f"{name}.toml", fields[:5], fields[5:])
    targets = tuple(
        Target(
            **{
                **r,
                "label": r["label"].format(**values),
                "goal": {str(g): float(x) for g, x in r["goal"].items()},
                "variants": tuple(r["variants"]) if "variants" in r else None,
            }
        )
        for r in rows
    )
    runs = datafile.check_keys(
        data.get("baselines"), f"{name}.toml [baselines]", ("run", "variants")
    )
    return targets, str(runs["run"]), {str(k): str(v) for k, v in runs["variants"].items()}


#: the rows (``benchmarks/data/targets.toml``); the baseline run the training
#: targets are read from; further recorded runs read against the same
#: targets, each in its own row: run name -> the row's ``variant`` (shown
#: after the game's name)
TARGETS, BASELINE_RUN, BASELINE_VARIANTS = load_targets()
TARGET_BY_ID = {t.id: t for t in TARGETS}
#: the row of the precompile, which covers every game at once
ALL_GAMES = "all games"


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


def load_cold_start(path: str | None = None) -> dict:
    """The recorded cold-start run (``{}`` when the file is missing)."""
    path = path or os.path.join(RESULTS, "cold_start.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _verdict(value, goal, direction):
    if value is None or goal is None:
        return None
    return value >= goal if direction == ">=" else value <= goal


def _row(t: Target, game: str, players, value, goal, basis: str, **extra) -> dict:
    """One evaluated row: ``met`` is the verdict (a target met, a guard
    within its limit), None when the row has no limit or no value."""
    row = {
        "id": t.id,
        "kind": t.kind if goal is not None else "reported",
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
        "value_cpu": None,
        "today": t.today,
    }
    row.update(extra)
    return row


def guard_limit(reference: float | None, relative: float) -> float | None:
    """A relative guard's limit: the reference grown by ``relative``."""
    return None if reference is None else reference * (1.0 + relative)


def evaluate_targets(
    res: dict,
    baselines: dict | None = None,
    cold_start: dict | None = None,
    references: dict | None = None,
) -> list:
    """One row per target, game and player count: ``kind`` (``"target"``,
    ``"guard"``, or ``"reported"`` for a row without a limit), ``value``
    (None when not measured), ``target`` (the limit; None: reported only),
    ``met`` (True, False, or None when either is missing). A relative
    guard's row also carries its ``reference`` (from ``references``, default
    the recorded file of :mod:`.guards`). ``baselines`` and ``cold_start``
    add the rows read from those recorded runs."""
    references = load_references() if references is None else references
    peers = res.get("peers", {})
    ref = {
        "leduc": peers.get("os_leduc_poker"),
        "cartpole": peers.get("cartpole_single"),
        "c4": peers.get("pz_connect_four"),
    }
    out = []

    def add(tid, game, players, value, basis="", cpu=None, unpaired=None, spread=None):
        t = TARGET_BY_ID[tid]
        extra: dict = {"value_cpu": cpu}
        if t.relative is not None:
            reference = reference_value(references, tid, game, players)
            goal = guard_limit(reference, t.relative)
            extra["reference"] = reference
            extra["relative"] = t.relative
            basis = f"{basis}; {reference_basis(references, tid)}"
        else:
            goal = t.goal_for(game)
        if unpaired is not None:
            extra["unpaired"] = unpaired
        if spread is not None:
            extra["range"] = spread
        row = _row(t, game, players, value, goal, basis, **extra)
        if t.relative is not None and goal is None:
            row["kind"] = "guard"  # a guard still, with no reference to read it against
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
            ns = ns_per_column(cfg)
            add(
                "obs_ns_per_column",
                name,
                p,
                None if ns is None else ns["value"],
                "paired rounds: (1/kernel - 1/kernel_rules) per observation column"
                + ("" if ns is None else f", {ns['columns']:,} columns"),
                spread=None if ns is None else [ns["min"], ns["max"]],
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
        n in t.goal or "*" in t.goal for n in games for t in TARGETS if t.source == "baselines"
    ):
        out += baseline_targets(baselines)
    if cold_start:
        ids = {g.get("env_id"): n for n, g in games.items()}
        out += cold_start_targets(cold_start, [e for e in cold_start.get("cold", {}) if e in ids])
        for r in out:
            if r["id"] == "cold_first_step_s":
                r["game"] = ids.get(r["game"], r["game"])
    return out


def baseline_targets(baselines: dict) -> list:
    """The training targets from the recorded baseline run (plain PPO from a
    random network), then from each recorded run of
    :data:`BASELINE_VARIANTS` (rows named after the variant). A target's
    ``variants`` say which rows it applies to; the others are reported."""
    from ..baselines import BASELINES

    rows = []
    runs: list[tuple[str, str | None]] = [(BASELINE_RUN, None)]
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
            game = BASELINES[run]["game"]
            rows.append(_row(t, game, None, value, t.goal_for(game, who), basis, variant=who))
    return rows


def cold_start_targets(doc: dict, env_ids: list | None = None) -> list:
    """The cold-start guards from a recorded cold-start run (what ``python
    -m dungeonrl.benchmarks.cold_start --json`` writes): the first step of
    each game of ``env_ids`` (default every game of the run) from an empty
    cache, then the precompile of every game. Both are limits on the
    reference machine (:data:`REFERENCE_CORES` cores; the precompile with
    :data:`PRECOMPILE_JOBS` processes): measured elsewhere, a row is
    reported only, and says why."""
    m = doc.get("machine") or {}
    cores = m.get("cores")
    at = f" at {doc['commit']}" if doc.get("commit") else ""
    basis = f"cold_start.json, {doc.get('date')}{at}, {m.get('cpu')}, {cores} cores"
    elsewhere = (
        None
        if cores == REFERENCE_CORES
        else f"measured on {cores} cores, not the {REFERENCE_CORES}-core reference machine"
    )
    rows = []
    first = TARGET_BY_ID["cold_first_step_s"]
    cold = doc.get("cold") or {}
    for env_id in cold if env_ids is None else env_ids:
        goal = None if elsewhere else first.goal_for(env_id)
        row = _row(first, env_id, None, cold.get(env_id), goal, basis)
        if elsewhere:
            row["note"] = elsewhere
        rows.append(row)
    pre = TARGET_BY_ID["precompile_s"]
    jobs = doc.get("jobs")
    why = elsewhere or (
        None if jobs == PRECOMPILE_JOBS else f"{jobs} processes, not {PRECOMPILE_JOBS}"
    )
    row = _row(
        pre,
        ALL_GAMES,
        None,
        doc.get("precompile"),
        None if why else pre.goal_for(ALL_GAMES),
        f"{basis}, {jobs} processes",
    )
    if why:
        row["note"] = why
    rows.append(row)
    return rows


def failed_guards(rows: list) -> list:
    """The guard rows of ``rows`` whose figure exceeds the limit."""
    return [r for r in rows if r.get("kind") == "guard" and r.get("met") is False]


def fmt_value(v, unit, goal: bool = False) -> str:
    if unit == "%":
        return f"{100 * v:g} %" if goal else f"{100 * v:.1f} %"
    if unit in ("s", "min"):
        return f"{v:g} {unit}" if goal else f"{v:.2f} {unit}"
    if unit == "ns":
        return f"{v:g} ns" if goal else f"{v:.3f} ns"
    return f"{v:g}x" if goal else f"{v:.2f}x"


def row_state(t: dict) -> str:
    """The verdict of an evaluated row in words: a target ``met`` or
    ``MISSED``, a guard ``within guard`` or ``GUARD FAILED``, ``reported``
    (no limit), ``not measured`` (a limit, no value)."""
    kind = t.get("kind") or ("reported" if t.get("target") is None else "target")
    if kind == "guard" and t.get("target") is None and not t.get("note"):
        return "not measured" if t.get("value") is None else "guard: no recorded reference"
    if t.get("target") is None or kind == "reported":
        if t.get("note"):
            return f"reported: {t['note']}"
        return "reported" if t.get("value") is not None else "reported: not recorded by this run"
    if t.get("met") is None:
        return "not measured"
    if kind == "guard":
        return "within guard" if t["met"] else "GUARD FAILED"
    return "met" if t["met"] else "MISSED"


def fmt_target(t) -> tuple[str, str, str]:
    """``(measured, limit, verdict)`` texts of a target row."""
    unit = t.get("unit") or ("s" if t["id"] == "warm_start_s" else "x")
    v = t["value"]
    shown = "n/a" if v is None else fmt_value(v, unit)
    if v is not None and t.get("value_cpu") is not None:
        shown += f" (cpu {t['value_cpu']:.2f}x)"
    if t["target"] is None:
        goal = "-"
    elif t.get("reference") is not None:
        goal = (
            f"{t['direction']} {fmt_value(t['target'], unit)} "
            f"(reference {fmt_value(t['reference'], unit)} + {100 * t['relative']:g} %)"
        )
    else:
        goal = f"{t['direction']} {fmt_value(t['target'], unit, goal=True)}"
    return shown, goal, row_state(t)
