"""Run folders and what a training run does after it trains.

Shared by the native trainers (:mod:`dungeonrl.agents.commands.train`) and the RLlib
backend (:mod:`dungeonrl.agents.algos.rllib`): choosing and opening the run folder,
TensorBoard scalars, the ``--hidden`` sizes, the seeded evaluation after
training (solo, PvP or co-op) and the learning-curve picture.
"""

from __future__ import annotations

import math
import os
import shutil

from ...envs.core.common import resolve_core
from ..algos.selfplay import match_summary, play_match, play_team
from ..metrics import plot_learning_curve
from ..policy import make_agent
from ..words import count
from .evaluate import evaluate, format_table

__all__ = [
    "RUN_FILES",
    "choose_run_folder",
    "open_run_folder",
    "tb_writer",
    "tb_log",
    "hidden_sizes",
    "final_eval",
    "plot_run",
    "eval_multi",
    "eval_coop",
    "check_eval_partners",
]


# --- run folders ----------------------------------------------------------------------------
#: what a run writes in its folder (``--overwrite`` replaces exactly these)
RUN_FILES = (
    "model.pt",
    "model.zip",
    "checkpoint.pt",
    "metrics.csv",
    "metrics.json",
    "learning_curve.png",
    "tb",
    "checkpoints",
    "eval",
)


def _holds_run(path: str) -> bool:
    return os.path.isdir(path) and any(True for _ in os.scandir(path))


def choose_run_folder(out: str | None, default: str, overwrite: bool = False) -> str:
    """The folder a run writes to, decided before anything is created.

    * ``out`` given: used as is; if it already holds files, refused with
      ``ValueError`` unless ``overwrite`` (then the run replaces its
      :data:`RUN_FILES` there when it starts);
    * ``out`` None: ``default``, or with ``overwrite`` the same folder, or the
      first of ``default-2``, ``default-3``... that holds nothing (as RL Zoo
      and SB3's TensorBoard folders number runs)."""
    if out is not None:
        if os.path.exists(out) and not os.path.isdir(out):
            raise ValueError(f"--out {out} is a file, not a folder")
        if _holds_run(out) and not overwrite:
            raise ValueError(
                f"--out {out} already holds files of an earlier run; pass "
                f"--overwrite to replace them, or choose another --out"
            )
        return out
    if overwrite or not _holds_run(default):
        return default
    i = 2
    while _holds_run(f"{default}-{i}"):
        i += 1
    return f"{default}-{i}"


def open_run_folder(out: str, overwrite: bool = False) -> None:
    """Create the run folder when training starts (after every check); with
    ``overwrite``, remove an earlier run's :data:`RUN_FILES` first."""
    if overwrite and os.path.isdir(out):
        for name in RUN_FILES:
            p = os.path.join(out, name)
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.remove(p)
    os.makedirs(out, exist_ok=True)


# --- TensorBoard ----------------------------------------------------------------------------
_TB_GROUPS = {
    "rollout": ("win_rate", "mean_return", "mean_length", "episodes"),
    "train": (
        "approx_kl",
        "clipfrac",
        "entropy",
        "entropy_loss",
        "pg_loss",
        "v_loss",
        "explained_variance",
        "lr",
    ),
    "time": ("sps", "sps_iter", "rollout_s", "update_s", "time_s"),
}


def tb_writer(log_dir: str, log=print):
    """A ``torch.utils.tensorboard.SummaryWriter`` on ``log_dir``, or None
    (with a note) when tensorboard is not installed."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        log("(no TensorBoard logs: pip install tensorboard)")
        return None
    return SummaryWriter(log_dir=log_dir)


def tb_log(writer, m: dict, step: int) -> None:
    """Write one metrics row as scalars (``rollout/win_rate``,
    ``train/approx_kl``, ``time/sps``..., the names SB3 uses where they exist)."""
    if writer is None:
        return
    for k, v in m.items():
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or k in ("iteration", "global_step")
        ):
            continue
        if not math.isfinite(v):
            continue
        group = next(
            (g for g, keys in _TB_GROUPS.items() if k in keys),
            "rollout" if k.startswith("mean_") else "train",
        )
        writer.add_scalar(f"{group}/{k}", v, step)


def hidden_sizes(text) -> tuple:
    if not text:
        return (256, 256)
    try:
        sizes = tuple(int(h) for h in str(text).split(","))
    except ValueError:
        raise ValueError(f"--hidden {text!r}: give layer sizes like 256,256") from None
    if not sizes or min(sizes) < 1:
        raise ValueError(f"--hidden {text!r}: layer sizes must be >= 1")
    return sizes


def final_eval(
    metrics, agent, game, core_kwargs, opts, hooks, multi, log, coop: bool = False
) -> dict:
    """The seeded evaluation after training (into ``metrics["final_eval"]``);
    returns the reference win rates for the learning curve."""
    refs: dict[str, float] = {}
    if not opts.eval_games:
        return refs
    if coop:
        metrics["final_eval"] = eval_coop(agent, game, core_kwargs, opts, hooks, log)
        return refs
    if multi:
        metrics["final_eval"] = eval_multi(agent, game, core_kwargs, opts, hooks, log)
        return refs
    eval_kwargs = {k: v for k, v in core_kwargs.items() if k != "reward"}
    ecore = resolve_core(game, eval_kwargs)
    rows = [evaluate(agent, ecore, opts.eval_games, seed=0).summary]
    others = ["heuristic", "random"] if hooks.heuristic else ["random"]
    for name in others:
        s = evaluate(name, ecore, opts.eval_games, seed=0).summary
        rows.append(s)
        refs[name] = s["win_rate"]
    metrics["final_eval"] = rows
    log(
        f"evaluation, {count(opts.eval_games, 'game')} (seeds {_seeds(opts.eval_games)}), "
        f"{hooks.describe(ecore)}:"
    )
    log(format_table(rows, hooks))
    return refs


def plot_run(
    metrics, history, out, algo, core, hooks, multi, pool, refs, coop: bool = False
) -> None:
    what = f"{algo} on {core.spec.env_id} ({hooks.describe(core)})"
    if coop:
        what += "\nteam win rate, teammates from the pool " + ",".join(
            f"{n}:{w:g}" for n, w in pool
        )
    elif multi:
        what += "\nwin rate against the training pool " + ",".join(f"{n}:{w:g}" for n, w in pool)
    if metrics.get("interrupted"):
        what += " (interrupted)"
    extra = {}
    if hooks.stat_columns:
        key, label, _ = hooks.stat_columns[0]
        extra = {"extra_key": f"mean_{key}", "extra_label": label}
    plot_learning_curve(
        history, os.path.join(out, "learning_curve.png"), title=what, references=refs, **extra
    )


def eval_multi(agent, game, core_kwargs, opts, hooks, log) -> list:
    """Seeded matches of the trained agent (seats alternated) against each
    of ``--eval-opponents``, and the heuristic against the same opponents
    for reference."""
    ecore = resolve_core(game, {k: v for k, v in core_kwargs.items() if k != "reward"})
    names = [x.strip() for x in opts.eval_opponents.split(",") if x.strip()]
    rows = []
    players = [(agent.name, agent)]
    if hooks.heuristic is not None:
        players.append(("heuristic", make_agent("heuristic", ecore, seed=1)))
    for label, a in players:
        for opp in names:
            if label == opp:
                continue
            b = make_agent(opp, ecore, seed=2, deterministic=False)
            res = play_match(ecore, a, b, opts.eval_games, seed=0)
            rows.append(match_summary(res, f"{label} vs {opp}", opp))
    log(
        f"evaluation, {count(opts.eval_games, 'game')} per pairing "
        f"(seeds {_seeds(opts.eval_games)}, "
        f"seats alternated), {hooks.describe(ecore)}:"
    )
    log(format_table(rows))
    return rows


def check_eval_partners(text: str, core) -> list:
    """The ``--eval-partners`` names, each checked (``self``, or an agent
    :func:`~dungeonrl.agents.policy.make_agent` builds for ``core``) before
    training starts, so a typo does not cost the evaluation after it."""
    names = [x.strip() for x in str(text).split(",") if x.strip()]
    if not names:
        raise ValueError("--eval-partners is empty: give e.g. heuristic,self")
    for name in names:
        if name != "self":
            make_agent(name, core)
    return names


def eval_coop(agent, game, core_kwargs, opts, hooks, log) -> list:
    """Seeded co-op games of the trained agent (its seat alternated) with
    each of ``--eval-partners`` as teammate (``self``: the agent in every
    seat), and the heuristic with the same partners for reference (the
    team of two heuristics once)."""
    ecore = resolve_core(game, {k: v for k, v in core_kwargs.items() if k != "reward"})
    names = check_eval_partners(opts.eval_partners, ecore)
    players = [(agent.name, agent)]
    if hooks.heuristic is not None:
        players.append(("heuristic", make_agent("heuristic", ecore, seed=1)))
    rows, done = [], set()
    for label, a in players:
        for name in names:
            if name == "self":
                plabel, partner = label, None
            else:
                plabel = name
                partner = make_agent(name, ecore, seed=2, deterministic=True)
            if (label, plabel) in done:
                continue
            done.add((label, plabel))
            res = play_team(ecore, a, partner, opts.eval_games, seed=0)
            row = match_summary(res, f"{label} + {plabel}", plabel)
            row["partner"] = row.pop("opponent")
            rows.append(row)
    log(
        f"evaluation, {opts.eval_games} team games per pairing (seeds 0..{opts.eval_games - 1}, "
        f"the agent's seat alternated), {hooks.describe(ecore)}; win rate = the team's:"
    )
    log(format_table(rows))
    return rows


def _seeds(games: int) -> str:
    """The seeds of ``games`` evaluation games from seed 0, in words."""
    return "0" if games == 1 else f"0..{games - 1}"
