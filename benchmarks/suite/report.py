"""The summary table (terminal), the profile text and the README section
of one run."""

from __future__ import annotations

from .fmt import cell, fmt_memory, fmt_start, fmt_x
from .measure import median_of, ok
from .peers import CITED, PEERS
from .settings import REF_ENVS
from .targets import (
    TARGETS,
    evaluate_targets,
    failed_guards,
    fmt_target,
    fmt_value,
    load_baselines,
    load_cold_start,
    ratio,
)


def rows(res: dict, compact: bool = False) -> list:
    """``(what, figure, ratio note)`` rows of the summary table; ``compact``
    keeps only the smallest, the reference and the largest ``num_envs`` of
    each sweep (the plots show the whole sweep)."""

    def keep(sizes):
        if not compact or not sizes:
            return list(sizes)
        ints = sorted(int(n) for n in sizes)
        return [str(n) for n in ints if n in (ints[0], REF_ENVS, ints[-1])]

    peers = res.get("peers", {})
    leduc = median_of(peers.get("os_leduc_poker"))
    cartpole = median_of(peers.get("cartpole_single"))
    c4 = median_of(peers.get("pz_connect_four"))
    cp_vec = peers.get("cartpole_vector", {}).get("by_num_envs", {})
    out = []
    for name, g in res["games"].items():
        for pkey, cfg in g["configs"].items():
            tag = f"{name}" + (f" {pkey}p" if g["multi_agent"] else "")
            for t, fig in cfg["kernel"].items():
                r = ratio(median_of(fig), leduc)
                out.append(
                    (
                        f"{tag} kernel, {t} thread{'s' if t != '1' else ''}",
                        cell(fig),
                        f"{fmt_x(r)} OS leduc" if r else "",
                    )
                )
            layer = "vector" if "vector" in cfg else "batch"
            for n in keep(cfg[layer]):
                fig = cfg[layer][n]
                r = ratio(median_of(fig), leduc)
                rc = ratio(median_of(fig), median_of(cp_vec.get(n)))
                note = ", ".join(
                    x
                    for x in (
                        f"{fmt_x(r)} OS leduc" if r else "",
                        f"{fmt_x(rc)} CartPole vec" if rc else "",
                    )
                    if x
                )
                label = "vector env" if layer == "vector" else "batched core"
                out.append((f"{tag} {label} x{int(n):,}", cell(fig), note))
            if layer == "vector" and str(REF_ENVS) in cfg.get("batch", {}):
                fig = cfg["batch"][str(REF_ENVS)]
                out.append((f"{tag} batched core x{REF_ENVS:,} (no adapter)", cell(fig), ""))
            fig = cfg["python"]
            if g["multi_agent"]:
                r = ratio(median_of(fig), c4)
                out.append(
                    (f"{tag} AEC loop", cell(fig), f"{fmt_x(r)} PZ connect_four" if r else "")
                )
            else:
                r = ratio(median_of(fig), cartpole)
                out.append(
                    (
                        f"{tag} single env (gymnasium.make)",
                        cell(fig),
                        f"{fmt_x(r)} CartPole" if r else "",
                    )
                )
            out.append((f"{tag} memory", fmt_memory(cfg["memory"]), ""))
        tr = g.get("training", {})
        if not g["multi_agent"]:
            for algo, label in (("sb3", "SB3 MaskablePPO"), ("fast_ppo", "fast PPO")):
                fig = tr.get(algo, {})
                out.append((f"{name} train {label} (env-steps/s)", cell(fig), ""))
        out.append((f"{name} start-up", fmt_start(g.get("start", {})), ""))
    for key, (label, *_rest) in PEERS.items():
        fig = peers.get(key)
        if fig is not None:
            out.append((f"peer: {label}", cell(fig), ""))
    for n in keep(cp_vec):
        out.append((f"peer: CartPole-v1 numpy vector x{int(n):,}", cell(cp_vec[n]), ""))
    ep = peers.get("envpool_cartpole")
    if ep is not None and not ok(ep):
        out.append(("peer: EnvPool CartPole-v1 (C++)", cell(ep), ""))
    for key, fig in (ep or {}).get("by_config", {}).items():
        n, t = key.split("x")
        out.append(
            (
                f"peer: EnvPool CartPole-v1 x{int(n):,}, {t} thread{'s' if t != '1' else ''}",
                cell(fig),
                "",
            )
        )
    return out


def current_targets(res: dict) -> list:
    """The targets evaluated now, from the run's figures: a saved run is
    shown against today's :data:`~.targets.TARGETS` (stated once), the
    recorded guard references, baseline runs and cold-start run, not the
    targets of the day it ran."""
    return evaluate_targets(res, load_baselines(), load_cold_start())


def _who(t: dict) -> str:
    who = t["game"] + (f" {t['players']}p" if t["players"] and t["players"] > 1 else "")
    return who + (f", {t['variant']}" if t.get("variant") else "")


def target_lines(res: dict) -> list:
    """The targets, guards and reported figures of the run, one terminal
    line each, then a line naming every guard that failed."""
    lines = []
    rows = current_targets(res)
    for t in rows:
        shown, goal, state = fmt_target(t)
        what = t.get("short") or t["label"]
        lines.append(f"  {_who(t):<18s} {what:<27s} {shown:>22s}  {goal:<10s} {state}")
    failed = failed_guards(rows)
    if failed:
        lines.append(
            f"  {len(failed)} GUARD(S) FAILED: "
            + ", ".join(f"{t['short']} {_who(t)}" for t in failed)
        )
    return lines


def table(res: dict) -> str:
    m = res["machine"]
    s = res["settings"]
    head = (
        f"dungeonrl throughput suite ({res['mode']}): {m['cpu']}, {m['cores']} cores; "
        f"load {res.get('load_before')} -> {res.get('load_after')}; "
        f"medians of {s['repeats']} repeats of ~{s['min_time']:g} s; steps/s"
    )
    body = rows(res)
    w0 = max(len(r[0]) for r in body)
    w1 = max([len(r[1]) for r in body if len(r[1]) <= 24] or [0])  # long texts run on
    lines = [head, ""] + [f"{a:<{w0}}  {b:>{w1}}  {c}".rstrip() for a, b, c in body]
    lines += [
        "",
        "targets, guards and reported figures (cpu = the ratio in steps per CPU-second; "
        "`python -m dungeonrl.benchmarks.compare` exits 1 on a failed guard):",
    ]
    lines += target_lines(res)
    cited = res.get("peers", {}).get("cited") or {}
    for c in cited.values():
        lines.append(f"cited, not measured: {c['label']}: {c['figure']} ({c['source']})")
    return "\n".join(lines)


def profile_text(res: dict) -> str:
    """Where the time goes, per game configuration (from the profile data)."""
    lines = []
    for name, g in res["games"].items():
        for pkey, cfg in g["configs"].items():
            pr = cfg.get("profile")
            if not pr:
                continue
            lines.append(f"{name} ({pkey}p): microseconds per env-step at {pr['num_envs']} envs")
            lay = pr.get("per_env_step_layers", {})
            lines.append("  layers: " + ", ".join(f"{k[:-3]} {v:.3f}" for k, v in lay.items()))
            if pr.get("vector_no_episode_info_us"):
                lines.append(
                    f"  vector with episode_info=False: {pr['vector_no_episode_info_us']:.3f}"
                )
            lines.append(
                "  parts:  " + ", ".join(f"{k[:-3]} {v:.3f}" for k, v in pr["per_env_step"].items())
            )
            if "per_call_1env" in pr:
                lines.append(
                    "  one-env calls: "
                    + ", ".join(f"{k[:-3]} {v:.3f}" for k, v in pr["per_call_1env"].items())
                )
            if "reset_us_per_step" in pr:
                lines.append(
                    f"  episodes of {pr['mean_episode_length']:.0f} steps: a reset costs "
                    f"{pr['reset_us_per_step']:.3f} per step"
                )
            if "kernel_rules_us_estimate" in pr:
                lines.append(
                    f"  kernel rules (kernel - observe - mask - reset) ~ "
                    f"{pr['kernel_rules_us_estimate']:.3f}"
                )
            for key in ("cprofile_single", "cprofile_vector", "cprofile_aec"):
                cp = pr.get(key)
                if not cp:
                    continue
                lines.append(
                    f"  {key}: {cp['us_per_step_profiled']:.2f} us/step under cProfile "
                    f"{cp.get('note', '')}".rstrip()
                )
                for row in cp["top"][:8]:
                    lines.append(
                        f"    {row['own_us_per_step']:8.3f} us own  "
                        f"{100 * row['own_share']:5.1f}%  {row['function']}"
                    )
        tp = g.get("training", {}).get("profile")
        if tp:
            lines.append(
                f"{name} training: SB3 VecEnv alone {tp['sb3_vecenv_steps_per_s']:,.0f} "
                f"steps/s at {tp['sb3_num_envs']} envs; env share of SB3 training "
                f"time ~{100 * tp['sb3_env_time_share']:.1f}%"
            )
            for algo in ("fast_ppo", "sb3"):
                if f"{algo}_us_per_step" in tp:
                    lines.append(
                        f"  {algo}: {tp[f'{algo}_us_per_step']:.1f} us/env-step; "
                        f"rollout {100 * tp[f'{algo}_rollout_share']:.0f}%, "
                        f"update {100 * tp[f'{algo}_update_share']:.0f}%"
                    )
            for key in ("small_net", "one_thread"):
                sn = tp.get(key)
                if sn and "ratio" in sn:
                    lines.append(
                        f"  {key} ({sn['hidden']}, {sn['torch_threads']} torch "
                        f"thread(s)): fast PPO {sn['fast_ppo_steps_per_s']:,.0f}, SB3 "
                        f"{sn['sb3_steps_per_s']:,.0f} env-steps/s ({sn['ratio']:.2f}x)"
                    )
        st = g.get("start", {})
        if ok(st) and st.get("warm_breakdown_s"):
            lines.append(
                f"{name} warm start: "
                + ", ".join(f"{k[:-2]} {v:.2f} s" for k, v in st["warm_breakdown_s"].items())
            )
    return "\n".join(lines)


# --- README section (used by benchmarks/report.py) -----------------------------------------------


def _goal_text(t) -> str:
    """A row's kind and limit in words: ``target: >= 1.3x for each game``,
    ``guard: <= reference + 15 % for each game``, ``reported``."""

    def one(v):
        return fmt_target(
            {
                "id": t.id,
                "value": None,
                "target": v,
                "direction": t.direction,
                "unit": t.unit,
                "met": None,
                "kind": t.kind,
            }
        )[1]

    if t.kind == "reported":
        return "reported, no target"
    if t.relative is not None:
        return f"guard: {t.direction} its recorded reference + {100 * t.relative:g} % for each game"
    if "*" in t.goal:
        where = "in all" if t.id == "precompile_s" else "for each game"
        limit = f"{one(t.goal['*'])} {where}"
    else:
        limit = ", ".join(f"{one(v)} {game}" for game, v in t.goal.items())
        if t.source == "bench":
            limit += "; other games reported"
    if t.variants:
        limit += f" ({', '.join(t.variants)}; other runs reported)"
    return f"{t.kind}: {limit}"


def targets_markdown(targets: list) -> list:
    """The targets table: one row per row of :data:`TARGETS`, its kind and
    limit, every game configuration's value and verdict in this run, and
    what was decided for it and why."""
    lines = ["| figure | kind and limit | this run | decided |", "|---|---|---|---|"]
    for t in TARGETS:
        got = []
        for r in (r for r in targets if r["id"] == t.id):
            shown, _, state = fmt_target({**r, "value_cpu": None})
            notes = []
            if r.get("range"):
                notes.append(f"rounds {r['range'][0]:.2f}-{r['range'][1]:.2f}")
            if r.get("reference") is not None:
                unit = r.get("unit") or "x"
                notes.append(
                    f"reference {fmt_value(r['reference'], unit)}, "
                    f"limit {fmt_value(r['target'], unit)}"
                )
            if notes:
                shown += f" ({'; '.join(notes)})"
            got.append(f"{_who(r)} {shown} ({state})")
        lines.append(
            f"| {t.label} | {_goal_text(t)} | {'; '.join(got) or 'not measured'} | {t.decision} |"
        )
    return lines


#: the versions the section names (of those every result records, ``machine.VERSIONED``)
VERSIONS_SHOWN: tuple[str, ...] = ("python", "numpy", "numba", "gymnasium", "pettingzoo")
VERSIONS_SHOWN += ("torch", "open_spiel", "envpool")


def markdown(res: dict, image_dir: str = "benchmarks/results") -> str:
    """The README's speed section: the targets row by row, then every
    figure, the cited references and the plots."""
    m = res["machine"]
    v = m["versions"]
    s = res["settings"]
    vers = ", ".join(f"{k} {v[k]}" for k in VERSIONS_SHOWN if v.get(k))
    lines = [
        f"Measured by `dungeonrl bench` ({res['mode']} run, {res['created'][:10]}, "
        f"{res['elapsed_s'] / 60:.1f} min) on {m['cpu']}, {m['cores']} cores; {vers}. "
        f"Medians of {s['repeats']} repeats of ~{s['min_time']:g} s each; load average "
        f"{res.get('load_before')} before, {res.get('load_after')} after. Every benchmark "
        "plays uniformly random legal actions and fails on an illegal one.",
        "",
        "Targets, guards and reported figures, one row each, read in this one run: a "
        "target is met or missed, a guard is a limit a figure must stay within (it "
        "fails when exceeded; `python -m dungeonrl.benchmarks.compare` exits 1 on a "
        "failed guard of a new run), a reported figure has no target. The cold-start "
        "guards are read from the cold-start run (First use, below), the training "
        "rows from the recorded baselines; the JSON and the terminal table also give "
        "each ratio in steps per CPU-second of the process, which other processes on "
        "the machine disturb less. "
        + (
            f"Ratios come from paired rounds: the two loops a ratio compares take turns, "
            f"{s['paired_rounds']} rounds of ~{s['paired_time']:g} s per loop, and the ratio "
            "is the median of the per-round ratios (the range over the rounds follows "
            "each value), so a change of the machine's speed between two measurements "
            "cancels out:"
            if s.get("paired_rounds")
            else "Ratios are of the two medians:"
        ),
        "",
    ]
    lines += targets_markdown(current_targets(res))
    lines += [
        "",
        "Every figure of the run:",
        "",
        "| what | steps/s (median) | vs peer |",
        "|---|---:|---|",
    ]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows(res, compact=True)]
    cited = res.get("peers", {}).get("cited") or CITED
    for c in cited.values():
        lines += [
            "",
            f"Cited, not measured: **{c['label']}**, {c['figure']} ({c['source']}; {c['note']}).",
        ]
    plots = res.get("plots") or []
    if plots:
        lines += [
            "",
            "Every num_envs of the sweep, and the kernel's thread scaling, in the plots "
            f"(the JSON, `{image_dir}/suite.json`, has every figure):",
            "",
        ]
        lines += [f"![{p[:-4]}]({image_dir}/{p})" for p in plots]
    return "\n".join(lines)
