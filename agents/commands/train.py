"""``dungeonrl train``: train a masked PPO agent on a game.

    dungeonrl train unbroken --algo ppo --steps 5000000 --seed 0 --out runs/ub
    dungeonrl train unbroken --algo ppo --minutes 25 --difficulty normal --character sneak
    dungeonrl train unbroken --algo sb3 --steps 200000 --num-envs 64
    dungeonrl train dungeon_crawler --players 2 --minutes 25 \\
        --opponents self:0.4,heuristic:0.4,random:0.2
    dungeonrl train dcc_unstoppable --floor 1 --difficulty normal --minutes 12
    dungeonrl train dcc_unstoppable --players 2 --partners self:0.5,heuristic:0.5 --minutes 12

``--algo ppo`` (default) is the fast path (:mod:`dungeonrl.agents.algos.ppo`: the
numba batch stepped directly, 1,024 envs by default); ``--algo sb3`` is
sb3-contrib MaskablePPO on ``DungeonSB3VecEnv`` (64 envs by default), with
its evaluation callback, checkpoints and TensorBoard logs. Both use the same
network (``--hidden``, ``--activation``, ``--shared``).

A tqdm bar shows the live win rate (last 2,000 training episodes), the mean
Level and steps/s. The run folder then holds:

* ``model.pt`` (fast path) or ``model.zip`` (SB3), carrying the model spec;
  the fast path also refreshes ``checkpoint.pt`` every ``--checkpoint-minutes``;
* ``metrics.csv`` (one row per iteration: steps, time, steps/s, win rate,
  mean Level, return, approx_kl, clipfrac, entropy, explained variance...)
  and ``metrics.json`` (config, history, final evaluation);
* ``tb/``: TensorBoard event files (``tensorboard --logdir runs``): the fast
  path writes ``tb/ppo`` (``rollout/win_rate``, ``rollout/mean_return``,
  ``train/approx_kl``, ``train/entropy``..., ``time/sps``, one point per
  iteration, and ``eval/<agent>/win_rate`` after the final evaluation);
  SB3 writes its own ``tb/maskable_ppo_1``;
* ``learning_curve.png``: training win rate against env steps, with the
  heuristic's and random play's evaluated win rates as reference lines.

Runs a user can trust:

* **Run folders are never overwritten silently.** ``--out DIR`` that already
  holds files is refused (exit code 2) unless ``--overwrite``, which
  replaces the run's own files there (:data:`RUN_FILES`) and nothing else.
  Without ``--out`` the run goes to ``runs/<game>-<algo>-s<seed>``, or, when
  that holds an earlier run, to the first free ``...-2``, ``...-3`` (as RL
  Zoo numbers its runs), and says so.
* **A failed check creates nothing**: options, values, the device, the
  opponent pool, ``--init`` and the run folder are all checked before the
  folder is created.
* **Ctrl-C** during training keeps what there is: the model, the metrics so
  far (``metrics.json`` with ``"interrupted": true``), the CSV, the curve
  and the TensorBoard logs; the final evaluation is skipped and the command
  exits with code 130. A Ctrl-C during the final evaluation keeps the model
  and the training metrics (both are written before the evaluation starts).
* **``--minutes``** bounds the training itself (setup and ``--kickstart``
  included, for both algos); the final evaluation runs after it and is not
  included: the last line reports both times.
* **``--device``**: ``cpu`` (default), ``cuda``, ``cuda:N`` or ``auto``; the
  network and the rollout storage live there, the games stay numpy on the
  CPU. Asking for CUDA without one is an error that says why.

At the end the agent is evaluated on ``--eval-games`` seeded games (default
1,000; 0 skips) against the heuristic and random play on the same games.
Game options (Unbroken: ``--character``, ``--difficulty``, ``--reward``;
Dungeon Crawler: ``--players``) come from :mod:`dungeonrl.envs.core.hooks`;
Unbroken trains on ``reward="score"`` unless told otherwise.

Multi-seat games (Dungeon Crawler) train by self-play on the single-agent
view of :mod:`dungeonrl.agents.algos.selfplay`: the learner takes one seat
(rotating between episodes) and the other seats are drawn from the
``--opponents`` pool (``NAME[:WEIGHT],...``: ``self`` = frozen snapshots of
the learner, refreshed every ``--snapshot-every`` iterations into
``--snapshot-slots`` ring slots; ``heuristic``; ``random``; saved models).
Both ``--algo ppo`` and ``--algo sb3`` train on it; ``--kickstart heuristic``
clones the heuristic while it plays the pool's fixed opponents. The live
win rate is against the training pool; the final evaluation plays
``--eval-games`` seeded games (seats alternated) against each of
``--eval-opponents`` (default heuristic and random), with the heuristic's
results against the same opponents for reference.

Co-op games (every seat in one team: Dungeon Crawler Carl: Unstoppable with
``--players 2``) train on the same view with the learner's *teammate*
drawn per episode from ``--partners`` (same syntax; default
``self:0.5,heuristic:0.5``). There ``self`` is the learner's current
policy: ``--snapshot-every 1 --snapshot-slots 1`` by default, so the
teammate copy is refreshed after every update and plays the same policy
the learner samples from during the next rollout (its decisions are not
training data). The team's reward is shared (the rules pay both seats).
The live win rate is the team's; the final evaluation plays
``--eval-games`` seeded games (the agent's seat alternated) with each of
``--eval-partners`` as teammate (default ``heuristic,self``: the
heuristic, and the agent itself in both seats), plus the team of two
heuristics for reference.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import os
import sys
import time
from dataclasses import asdict, dataclass
from types import SimpleNamespace

from ...envs.catalog import default_game
from ...envs.core.common import resolve_core
from ...envs.core.hooks import add_core_options, core_kwargs_from, hooks_for
from ...registry import get_spec
from ..algos import rllib
from ..algos.pfsp import PFSPLeague
from ..algos.selfplay import (
    make_view,
    match_summary,
    parse_pool,
    play_match,
    play_team,
    snapshot_agent,
)
from ..metrics import RecentRate, run_metrics, write_csv, write_json
from ..options import (
    add_options,
    copy_options,
    nonneg_float,
    nonneg_int,
    option,
    positive_float,
    positive_int,
    seed_int,
)
from ..policy import SB3Agent, TorchAgent, make_agent
from ..pretrained import is_pretrained_ref
from ..pretrained import model_path as pretrained_path
from ..words import count
from .evaluate import evaluate
from .runs import (
    RUN_FILES,
    check_eval_partners,
    choose_run_folder,
    final_eval,
    hidden_sizes,
    open_run_folder,
    plot_run,
    tb_log,
    tb_writer,
)

__all__ = [
    "main",
    "main_options",
    "build_parser",
    "run_training",
    "choose_run_folder",
    "RUN_FILES",
    "TrainOptions",
    "NetworkOptions",
    "FastPathOptions",
    "SelfPlayOptions",
    "CoopOptions",
    "is_coop",
]


# --- options (the `dungeonrl train GAME` leaf of dungeonrl.cli's tree) --------------------
@dataclass
class TrainOptions:
    """training run"""

    algo: str = option(
        "ppo",
        "ppo: the fast path (agents/algos/ppo.py); "
        "sb3: sb3-contrib MaskablePPO on the native VecEnv",
        choices=("ppo", "sb3"),
    )
    steps: int | None = option(
        None,
        "env steps (decisions) to train for",
        flags=("--steps", "--timesteps"),
        type=positive_int,
        default_text="ppo 1,000,000, sb3 200,000; with --minutes: until the time is up",
    )
    minutes: float | None = option(
        None,
        "wall-clock budget of the training itself (setup and --kickstart included; "
        "the final evaluation runs after it and is NOT included); with --steps, "
        "whichever ends first; the fast path anneals its learning rate over it",
        type=positive_float,
        default_text="no time limit",
    )
    num_envs: int | None = option(
        None, "games stepped together", type=positive_int, default_text="ppo 1024, sb3 64"
    )
    out: str | None = option(
        None,
        "run folder; one that already holds a run is refused unless --overwrite",
        metavar="DIR",
        default_text="runs/<game>-<algo>-s<seed>, or the first free "
        "<that>-2, -3... when it holds a run",
    )
    overwrite: bool = option(
        False,
        "reuse an --out folder that holds a run: its run files "
        "(model, checkpoints, metrics, curve, tb/) are replaced",
    )
    device: str = option("cpu", "torch device: cpu, cuda, cuda:N, or auto (cuda when present)")
    torch_threads: int = option(
        0,
        "torch intra-op threads (0: the fast PPO takes torch's default, OMP_NUM_THREADS or "
        "every core; SB3 takes 1); pass 1 when other work shares the cores",
        type=nonneg_int,
    )
    update_threads: int = option(
        0,
        "torch threads of the PPO update alone (0: --torch-threads); the envs do not "
        "step during the update",
        type=nonneg_int,
        algos=("ppo",),
    )
    eval_games: int = option(1000, "games of the final evaluation (0: skip)", type=nonneg_int)
    progress: str = option(
        "tqdm",
        "progress bar (rich: SB3's own bar, --algo sb3 only)",
        choices=("tqdm", "rich", "none"),
    )


@dataclass
class NetworkOptions:
    """network and PPO hyperparameters (the same network for both algos)"""

    hidden: str | None = option(
        None, "MLP layer sizes, comma-separated", metavar="SIZES", default_text="256,256"
    )
    activation: str | None = option(
        None, "activation of the MLPs", choices=("tanh", "relu"), default_text="tanh"
    )
    shared: bool = option(False, "one trunk for actor and critic (default: two MLPs)")
    num_steps: int | None = option(None, "rollout length per env", type=positive_int)
    epochs: int | None = option(None, "update epochs per iteration", type=positive_int)
    lr: float | None = option(None, "learning rate", type=positive_float)
    ent_coef: float | None = option(None, "entropy coefficient", type=nonneg_float)
    gamma: float | None = option(None, "discount factor", type=positive_float)
    minibatches: int | None = option(
        None, "minibatches per epoch", type=positive_int, algos=("ppo",)
    )
    batch_size: int | None = option(None, "minibatch size", type=positive_int, algos=("sb3",))


@dataclass
class FastPathOptions:
    """fast path only (--algo ppo)"""

    checkpoint_minutes: float = option(
        5.0, "refresh checkpoint.pt this often (0: never)", type=nonneg_float, algos=("ppo",)
    )
    init: str | None = option(
        None,
        "continue from a saved model (.pt) or a shipped agent (pretrained:NAME)",
        metavar="MODEL",
        algos=("ppo",),
        default_text="a fresh network",
    )
    kickstart: str | None = option(
        None,
        "clone AGENT (e.g. heuristic) before PPO (agents/algos/bc.py); "
        "its time counts in --minutes",
        metavar="AGENT",
        algos=("ppo",),
        default_text="no cloning",
    )
    bc_steps: int = option(
        300_000,
        "teacher decisions to clone",
        type=positive_int,
        algos=("ppo",),
        requires="kickstart",
    )
    bc_epochs: int = option(
        3, "cloning epochs", type=positive_int, algos=("ppo",), requires="kickstart"
    )
    dagger_rounds: int = option(
        0,
        "rounds of student play labelled by the teacher after cloning",
        type=nonneg_int,
        algos=("ppo",),
        requires="kickstart",
    )
    obs_dtype: str = option(
        "float32",
        "observations the kernels write: float32, or float16 (the compact observation, "
        "half the bytes; the learner casts it to float32)",
        choices=("float32", "float16"),
        algos=("ppo",),
    )
    env_threads: int = option(
        1,
        "threads of the env step (1-player games: the rows split over them, same games; "
        "multi-seat games step on one)",
        type=positive_int,
        algos=("ppo",),
    )


@dataclass
class SelfPlayOptions:
    """self-play (multi-seat games)"""

    opponents: str | None = option(
        None,
        "opponent pool NAME[:WEIGHT],... with names self "
        "(snapshots of the learner), heuristic, random or a "
        "saved model",
        metavar="POOL",
    )
    snapshot_every: int = option(
        10,
        "add a snapshot of the learner to the pool every ITERS iterations (sb3: rollouts)",
        type=positive_int,
        metavar="ITERS",
    )
    snapshot_slots: int = option(
        8,
        "snapshots kept in the pool (the oldest is replaced; with --league the one "
        "the learner beats most)",
        type=positive_int,
    )
    league: bool = option(
        False,
        "league training: the 'self' share becomes a growing pool of past "
        "checkpoints drawn by prioritized fictitious self-play (agents/algos/pfsp.py); "
        "league.json in the run folder rates them with openskill",
        algos=("ppo",),
    )
    pfsp: str = option(
        "hard",
        "PFSP weighting of the league: hard (members that still beat the learner), "
        "variance (even matches) or uniform",
        choices=("hard", "variance", "uniform"),
        algos=("ppo",),
        requires="league",
    )
    eval_opponents: str = option(
        "heuristic,random", "opponents of the final evaluation (comma-separated agents)"
    )


@dataclass
class CoopOptions:
    """co-op training (--players 2): the learner's teammates"""

    opponents: str | None = option(
        None,
        "teammate pool NAME[:WEIGHT],... with names self "
        "(the learner's current policy), heuristic, random "
        "or a saved model; co-op only",
        metavar="POOL",
        flags=("--partners",),
    )
    snapshot_every: int = option(
        1,
        "refresh the 'self' teammate from the learner every ITERS "
        "iterations (1: it plays the current policy)",
        type=positive_int,
        metavar="ITERS",
    )
    snapshot_slots: int = option(
        1,
        "learner snapshots kept as teammates (the oldest is replaced; 1: only the latest)",
        type=positive_int,
    )
    eval_partners: str = option(
        "heuristic,self",
        "teammates of the final evaluation "
        "(comma-separated agents; self: the "
        "trained agent in every seat)",
    )


#: PPOConfig / SB3Config field behind each per-algo hyperparameter option
_ALGO_FIELDS = {
    "num_steps": ("num_steps", "n_steps"),
    "epochs": ("update_epochs", "n_epochs"),
    "lr": ("learning_rate", "learning_rate"),
    "ent_coef": ("ent_coef", "ent_coef"),
    "gamma": ("gamma", "gamma"),
    "minibatches": ("num_minibatches", None),
    "batch_size": (None, "batch_size"),
}


def main_options(spec) -> list:
    """The option groups of ``dungeonrl train GAME`` (see :mod:`dungeonrl.cli`);
    the per-algo defaults shown come from :class:`PPOConfig` and
    :class:`SB3Config`."""
    from ..algos.ppo import PPOConfig

    ppo = {f.name: f.default for f in dataclasses.fields(PPOConfig)}
    try:
        from ..algos.sb3 import SB3Config

        sb3 = {f.name: f.default for f in dataclasses.fields(SB3Config)}
    except ImportError:  # pragma: no cover - stable-baselines3 missing
        sb3 = {}
    net = _with_default_texts(
        NetworkOptions,
        {
            k: ", ".join(
                f"{algo} {src[f]:g}"
                for algo, src, f in (("ppo", ppo, a), ("sb3", sb3, b))
                if f and f in src
            )
            for k, (a, b) in _ALGO_FIELDS.items()
        },
    )
    hooks = hooks_for(spec.name)
    game = argparse.ArgumentParser(add_help=False, description=f"{spec.name} options")
    add_core_options(game, hooks)
    groups = [TrainOptions, net, FastPathOptions, game]
    if spec.multi_agent:
        groups.append(_with_default_texts(SelfPlayOptions, {"opponents": hooks.selfplay_defaults}))
    elif is_coop(spec, spec.max_players):
        groups.append(_with_default_texts(CoopOptions, {"opponents": hooks.selfplay_defaults}))
    groups.append(rllib.train_options(spec))  # Ray is imported by --backend rllib only
    return groups


def is_coop(spec, num_players: int) -> bool:
    """Whether ``num_players`` seats of the game form one team (a co-op
    game: the learner's other seats are teammates, never rivals)."""
    return num_players > 1 and len(spec.teams(int(num_players))) == 1


def _with_default_texts(cls, texts: dict):
    """A copy of the options dataclass ``cls`` whose ``--help`` shows
    ``texts[field]`` as the default."""
    new = []
    for f in dataclasses.fields(cls):
        meta = dict(f.metadata)
        if texts.get(f.name):
            meta["default_text"] = texts[f.name]
        new.append((f.name, f.type, dataclasses.field(default=f.default, metadata=meta)))
    return dataclasses.make_dataclass(cls.__name__, new, namespace={"__doc__": cls.__doc__})


def build_parser(hooks=None, multi: bool = False, game: str | None = None):
    """An argparse parser of the options of ``dungeonrl train GAME`` (the
    option groups of :func:`main_options` and ``--seed``, with their
    defaults; the CLI's leaf adds its usage rules on top). ``hooks`` and
    ``multi`` are kept for old callers; ``game`` ``None``: the catalog's
    first game)."""
    spec = get_spec(game or default_game())
    parser = argparse.ArgumentParser(prog=f"dungeonrl train {spec.name}")
    parser.add_argument("--seed", type=seed_int, default=0)
    for group in main_options(spec):
        if isinstance(group, argparse.ArgumentParser):
            copy_options(parser, group, skip=("seed",))
        else:
            add_options(parser, group)
    return parser


def _add_snapshot(view, league, agent) -> None:
    """A frozen learner into the pool: the league's (``--league``) or the ring."""
    if league is not None:
        league.add(agent, agent.name)
    else:
        view.add_snapshot(agent)


def _start_pool(view, net, opts, seed: int):
    """The league of ``--league`` (None without it) and the first snapshot."""
    league = None
    if getattr(opts, "league", False):
        if not view.snapshot_weight > 0:
            raise ValueError("--league needs a 'self' share in --opponents (e.g. self:0.8)")
        league = PFSPLeague(view, weighting=opts.pfsp)
    if view.snapshot_weight > 0:
        _add_snapshot(view, league, snapshot_agent(net, seed, "self@0"))
    return league


def _init_network(init: str, core, cfg):
    """The network ``--init`` names (a model file or a shipped agent,
    ``pretrained:NAME``), in training mode; ``cfg`` takes its architecture."""
    from ..algos.ppo import load_model  # torch: imported when training

    path = pretrained_path(init) if is_pretrained_ref(init) else init
    net, _ = load_model(path, core, strict=False)
    net.train()
    cfg.hidden, cfg.activation, cfg.shared = (
        tuple(net.arch["hidden"]),
        net.arch["activation"],
        net.arch["shared"],
    )
    return net


def _config(cls, r, which: int, same: tuple[str, ...], **extra):
    """A ``cls`` (:class:`PPOConfig` or :class:`SB3Config`) of the run's
    settings ``r`` (the game and its options, the seed, the network, the
    threads, the device; ``extra``), then each option the command line gave
    of :data:`_ALGO_FIELDS` (``which``: 0 for PPOConfig's fields, 1 for
    SB3Config's) and of ``same`` (options named as their field)."""
    from ..algos.ppo import resolve_device

    resolve_device(r.device)
    opts = r.opts
    same_names = {k: getattr(r, k) for k in ("core_kwargs", "seed", "hidden", "device")}
    threads = {"torch_threads": opts.torch_threads, "shared": opts.shared}
    cfg = cls(env=r.game, **same_names, **threads, **extra)
    if r.num_envs:
        cfg.num_envs = r.num_envs
    for src, dst in [(k, f[which]) for k, f in _ALGO_FIELDS.items()] + [(k, k) for k in same]:
        v = getattr(opts, src, None)
        if dst is not None and v is not None:
            setattr(cfg, dst, v)
    return cfg


def _train_ppo(r, log) -> tuple:
    """The fast-path PPO part of :func:`run_training` (``r``: its settings);
    returns ``(core, model_path, config, agent, steps_done, interrupted,
    history, writer)``."""
    game, steps, seed, out, opts = r.game, r.steps, r.seed, r.out, r.opts
    core_kwargs, device, minutes = r.core_kwargs, r.device, r.minutes
    multi, pool, overwrite, bar_on, t0 = r.multi, r.pool, r.overwrite, r.bar_on, r.t0
    import torch
    from tqdm.auto import tqdm

    from ..algos.ppo import PPOConfig, save_model, train

    # (and the threads of the env step, of the update)
    cfg = _config(PPOConfig, r, 0, ("activation", "obs_dtype", "env_threads", "update_threads"))
    if opts.kickstart:  # fine-tuning a cloned policy: gentler defaults
        cfg.learning_rate = opts.lr if opts.lr is not None else 1e-4
        cfg.ent_coef = opts.ent_coef if opts.ent_coef is not None else 0.001
    if minutes:
        cfg.max_seconds = 60.0 * minutes
    cfg.total_steps = steps if steps else (10**12 if minutes else 1_000_000)
    core = resolve_core(game, dict(core_kwargs))
    net = _init_network(opts.init, core, cfg) if opts.init else None
    view = None
    if multi:
        # built before the folder: a bad opponent (unknown agent, a model of
        # another game) is an argument error that must leave nothing behind
        view = make_view(
            core,
            cfg.num_envs,
            pool,
            seed=seed,
            snapshot_slots=opts.snapshot_slots,
            obs_dtype=cfg.obs_dtype,
        )
    kick = league = None
    if opts.kickstart:
        kick = _kickstart(opts, cfg, core, game, seed, log, pool)
        net = kick.pop("net")
        if cfg.max_seconds:
            cfg.max_seconds = max(0.0, cfg.max_seconds - (time.perf_counter() - t0))
    if multi:
        from ..algos.ppo import ActorCritic

        if net is None:
            torch.manual_seed(seed)
            net = ActorCritic(
                core.spec.obs_size, core.spec.num_actions, cfg.hidden, cfg.activation, cfg.shared
            )
        league = _start_pool(view, net, opts, seed)
    open_run_folder(out, overwrite)
    writer = tb_writer(os.path.join(out, "tb", "ppo"), log)
    recent = RecentRate(2000)
    total = cfg.total_steps if steps else None
    bar = tqdm(
        total=total,
        desc=f"PPO {game}",
        unit="step",
        unit_scale=True,
        dynamic_ncols=True,
        disable=not bar_on,
    )
    last_ckpt = [time.perf_counter()]
    ckpt_path = os.path.join(out, "checkpoint.pt")
    history_ref: list = []

    def on_iter(m, net_):
        history_ref.append(m)
        recent.add(
            m["win_rate"] * m["episodes"] if m["episodes"] else 0,
            m["episodes"],
            level=m.get("mean_level", 0.0) * m["episodes"],
        )
        bar.update(m["global_step"] - bar.n)
        post = {
            "win": f"{recent.rate:.1%}",
            "sps": f"{m['sps']:,.0f}",
            "kl": f"{m['approx_kl']:.3f}",
        }
        if "mean_level" in m:
            post["lvl"] = f"{recent.mean('level'):.2f}"
        bar.set_postfix(post, refresh=False)
        tb_log(writer, m, m["global_step"])
        if (
            view is not None
            and view.snapshot_weight > 0
            and m["iteration"] % opts.snapshot_every == 0
        ):
            # opponents play on the CPU: a snapshot of a network on another device moves
            frozen = net_ if device == "cpu" else copy.deepcopy(net_).cpu()
            _add_snapshot(
                view,
                league,
                snapshot_agent(frozen, seed + m["iteration"], f"self@{m['global_step']}"),
            )
        elif league is not None:
            league.refresh()
        if (
            opts.checkpoint_minutes
            and time.perf_counter() - last_ckpt[0] > 60 * opts.checkpoint_minutes
        ):
            save_model(ckpt_path, net_, core, config=cfg, metrics=m)
            write_csv(history_ref, os.path.join(out, "metrics.csv"))
            last_ckpt[0] = time.perf_counter()

    result = train(cfg, core=core, game=view, callback=on_iter, net=net)
    bar.close()
    interrupted = result.interrupted
    history = result.history
    result.net.cpu()
    model_path = save_model(
        os.path.join(out, "model.pt"),
        result.net,
        core,
        config=cfg,
        metrics=history[-1] if history else {},
    )
    if os.path.exists(ckpt_path):
        os.remove(ckpt_path)
    if league is not None:
        write_json(league.summary(), os.path.join(out, "league.json"))
    config = asdict(cfg)
    config["hidden"] = list(cfg.hidden)
    agent = TorchAgent(result.net, deterministic=True, name="ppo (greedy)")
    steps_done = result.global_step
    if kick is not None:
        config["kickstart"] = kick
    return core, model_path, config, agent, steps_done, interrupted, history, writer


def _train_sb3(r, log) -> tuple:
    """The sb3-contrib MaskablePPO part of :func:`run_training` (``r``: its
    settings); returns ``(core, model_path, config, agent, steps_done,
    interrupted, history)``."""
    game, steps, seed, out, opts = r.game, r.steps, r.seed, r.out, r.opts
    core_kwargs, minutes, multi, pool, overwrite = (
        r.core_kwargs,
        r.minutes,
        r.multi,
        r.pool,
        r.overwrite,
    )
    from ..algos.sb3 import SB3Config, config_dict, save_sb3, train_sb3

    progress = None if opts.progress == "none" else opts.progress
    cfg = _config(SB3Config, r, 1, ("activation", "obs_dtype"), progress=progress)
    if minutes:
        cfg.max_seconds = 60.0 * minutes
    cfg.total_steps = steps if steps else (10**12 if minutes else 200_000)
    factory = None
    if multi:

        def factory(n, s, opponents=None):
            c = resolve_core(game, dict(core_kwargs))
            return make_view(c, n, opponents or pool, seed=s, snapshot_slots=opts.snapshot_slots)

        factory(1, seed)  # a bad opponent fails here, before the folder
    model, history, core = train_sb3(
        cfg,
        out,
        make_view=factory,
        snapshot_every=opts.snapshot_every if multi else 0,
        before_start=lambda: open_run_folder(out, overwrite),
        stop_on_interrupt=True,
    )
    interrupted = bool(getattr(model, "dungeonrl_interrupted", False))
    model_path = save_sb3(model, os.path.join(out, "model.zip"), core, core_kwargs)
    config = config_dict(cfg)
    agent = SB3Agent(model, deterministic=True, name="maskable_ppo (greedy)")
    steps_done = int(model.num_timesteps)
    return core, model_path, config, agent, steps_done, interrupted, history


def run_training(
    game: str,
    algo: str,
    steps: int | None,
    seed: int,
    out: str,
    opts,
    num_envs: int | None = None,
    log=print,
) -> dict:
    """Train, save, evaluate and plot; returns the metrics dict (see module
    doc; ``metrics["interrupted"]`` is True after a Ctrl-C, which keeps the
    model and the metrics so far and skips the evaluation). ``opts`` is a
    namespace of the ``dungeonrl train`` options (missing ``device`` /
    ``overwrite`` / ``minutes`` mean cpu / no / none). Every check runs
    before ``out`` is created."""
    hooks = hooks_for(game)
    core_kwargs = dict(hooks.train_defaults)
    core_kwargs.update(core_kwargs_from(opts, hooks))
    hidden = hidden_sizes(opts.hidden)
    device = getattr(opts, "device", None) or "cpu"
    minutes = getattr(opts, "minutes", None)
    overwrite = bool(getattr(opts, "overwrite", False))
    spec = get_spec(game)
    # the game's options are checked here; a co-op game is multi-seat at 2+ players
    probe = resolve_core(game, dict(core_kwargs))
    players = probe.num_players
    multi = spec.multi_agent or players > 1
    coop = is_coop(spec, players)
    pool = None
    given_pool = getattr(opts, "opponents", None)
    if not multi and given_pool is not None:
        raise ValueError(f"--partners: {spec.name} is played solo here; teammates need --players 2")
    eval_games = getattr(opts, "eval_games", 0)
    if coop and eval_games:
        check_eval_partners(opts.eval_partners, probe)
    if multi:
        pool = parse_pool(hooks.selfplay_defaults if given_pool is None else given_pool)
        if opts.snapshot_every < 1 or opts.snapshot_slots < 1:
            raise ValueError("--snapshot-every and --snapshot-slots must be >= 1")
        if getattr(opts, "env_threads", 1) != 1:
            raise ValueError(
                "--env-threads: a multi-seat game steps on one thread (its opponents "
                "move between kernel calls)"
            )
    bar_on = opts.progress != "none"
    t0 = time.perf_counter()
    writer = None  # (the SB3 part writes its TensorBoard logs itself)
    r = SimpleNamespace(
        game=game,
        steps=steps,
        seed=seed,
        out=out,
        opts=opts,
        num_envs=num_envs,
        core_kwargs=core_kwargs,
        hidden=hidden,
        device=device,
        minutes=minutes,
        multi=multi,
        pool=pool,
        overwrite=overwrite,
        bar_on=bar_on,
        t0=t0,
    )
    if algo == "ppo":
        (core, model_path, config, agent, steps_done, interrupted, history, writer) = _train_ppo(
            r, log
        )
    else:
        (core, model_path, config, agent, steps_done, interrupted, history) = _train_sb3(r, log)

    seconds = time.perf_counter() - t0
    metrics = run_metrics(
        algo=algo,
        core=core,
        core_kwargs=core_kwargs,
        seed=seed,
        config=config,
        steps=steps_done,
        seconds=seconds,
        model=model_path,
        interrupted=interrupted,
        history=history,
    )
    if multi:
        assert pool is not None  # parsed above for every multi-seat run
        metrics["selfplay"] = {
            "opponents": [[n, w] for n, w in pool],
            "coop": coop,
            "snapshot_every": opts.snapshot_every,
            "snapshot_slots": opts.snapshot_slots,
        }
    # the model and the training metrics are on disk before the evaluation starts,
    # so a Ctrl-C during the evaluation loses nothing of the training
    write_csv(history, os.path.join(out, "metrics.csv"))
    write_json(metrics, os.path.join(out, "metrics.json"))
    refs = {}
    t_eval = time.perf_counter()
    if interrupted:
        log(
            f"interrupted after {steps_done:,} steps: the model and the metrics so far are "
            f"saved; no final evaluation"
        )
    else:
        try:
            refs = final_eval(metrics, agent, game, core_kwargs, opts, hooks, multi, log, coop)
        except KeyboardInterrupt:
            interrupted = metrics["interrupted"] = True
            metrics.pop("final_eval", None)
            log(
                "interrupted during the final evaluation: the model and the training "
                "metrics are saved; no evaluation"
            )
    eval_seconds = time.perf_counter() - t_eval
    if "final_eval" in metrics:
        metrics["eval_seconds"] = eval_seconds
        write_json(metrics, os.path.join(out, "metrics.json"))
        if writer is not None:
            for row in metrics["final_eval"]:
                tag = str(row.get("agent", "agent")).replace(" ", "_")
                writer.add_scalar(f"eval/{tag}/win_rate", row["win_rate"], steps_done)
    if writer is not None:
        writer.close()
    if history:
        plot_run(metrics, history, out, algo, core, hooks, multi, pool, refs, coop)
    files = [os.path.basename(model_path), "metrics.csv", "metrics.json"]
    if history:
        files.append("learning_curve.png")
    if os.path.isdir(os.path.join(out, "tb")):
        files.append("tb/")
    budget = f" (--minutes {minutes:g})" if minutes else ""
    ev = (
        f" + final evaluation {eval_seconds:.0f} s (not part of --minutes)"
        if "final_eval" in metrics
        else ""
    )
    log(
        f"trained {steps_done:,} steps in {seconds / 60:.1f} min{budget}"
        f" ({steps_done / max(seconds, 1e-9):,.0f} steps/s incl. setup){ev}; "
        f"wrote {out}/: {', '.join(files)}"
    )
    return metrics


def _kickstart(opts, cfg, core, game, seed, log, pool=None) -> dict:
    """Behaviour cloning of ``opts.kickstart`` into a fresh network."""
    import torch

    from ..algos.bc import BCConfig, kickstart
    from ..algos.ppo import ActorCritic

    t = time.perf_counter()
    torch.manual_seed(seed)
    net = ActorCritic(
        core.spec.obs_size, core.spec.num_actions, cfg.hidden, cfg.activation, cfg.shared
    )
    bc = BCConfig(
        steps=opts.bc_steps,
        epochs=opts.bc_epochs,
        gamma=cfg.gamma,
        seed=seed,
        torch_threads=cfg.torch_threads,
        dagger_rounds=opts.dagger_rounds,
    )
    log(
        f"kickstart: cloning {opts.kickstart} ({count(bc.steps, 'decision')}, "
        f"{count(bc.epochs, 'epoch')}"
        + (f", {count(bc.dagger_rounds, 'DAgger round')}" if bc.dagger_rounds else "")
        + ")"
    )

    def show(d):
        if "epoch" in d:
            log(
                f"  clone epoch {d['epoch']}: accuracy {d['accuracy']:.1%}, "
                f"{d['samples']:,} samples, {d['seconds']:.0f} s"
            )
        else:
            log(f"  {d['phase']}: {d['samples']:,} labelled decisions")

    make_game = None
    if pool is not None:  # multi-seat: the teacher plays against the scripted pool
        fixed = [(n, w) for n, w in pool if n != "self"] or [("heuristic", 1.0)]
        make_game = lambda n, s: make_view(core, n, fixed, seed=s)  # noqa: E731
    fit = kickstart(
        net, core, make_agent(opts.kickstart, core, seed=seed), bc, log=show, make_game=make_game
    )
    ecore = resolve_core(game, {k: v for k, v in cfg.core_kwargs.items() if k != "reward"})
    if pool is None:
        s = evaluate(TorchAgent(net, deterministic=True), ecore, 1000, seed=0).summary
        what = "of 1,000 games"
    elif is_coop(core.spec, core.num_players):
        res = play_team(
            ecore,
            TorchAgent(net, deterministic=True),
            make_agent("heuristic", ecore, seed=seed),
            1000,
            seed=0,
        )
        s = match_summary(res, "clone", "heuristic")
        s["partner"] = s.pop("opponent")
        what = "of 1,000 games with the heuristic as teammate"
    else:
        opp = "heuristic" if "heuristic" in (n for n, _ in pool) else "random"
        res = play_match(
            ecore,
            TorchAgent(net, deterministic=True),
            make_agent(opp, ecore, seed=seed),
            1000,
            seed=0,
        )
        s = match_summary(res, "clone", opp)
        what = f"of 1,000 games against {opp}"
    log(
        f"kickstart done in {time.perf_counter() - t:.0f} s: accuracy {fit['accuracy']:.1%}, "
        f"cloned agent wins {s['win_rate']:.1%} {what} (greedy)"
    )
    net.train()
    return {
        "net": net,
        "teacher": opts.kickstart,
        "bc": {**bc.__dict__},
        "fit": fit,
        "clone_eval": s,
        "seconds": time.perf_counter() - t,
    }


def main(args) -> int:
    """Train an agent: progress bar, then model, metrics (CSV, JSON,
    TensorBoard) and learning curve in the run folder, then a seeded
    evaluation against the reference agents. Ctrl-C keeps the model and the
    metrics so far (exit code 130)."""
    game = args.env
    given: set[str] = getattr(args, "given", set())
    if getattr(args, "backend", "native") == "rllib" or given & {
        "env_runners",
        "address",
        "vectorize",
        "policy_mapping",
    }:
        msg = rllib.check_backend_options(args)
        if msg:
            print(f"dungeonrl train: {msg}", file=sys.stderr)
            return 2
        return rllib.cli_train(args)
    if args.progress == "rich" and args.algo != "sb3":
        print("dungeonrl train: --progress rich is SB3's own bar: --algo sb3 only", file=sys.stderr)
        return 2
    if args.device != "cpu":
        try:
            from ..algos.ppo import resolve_device

            resolve_device(args.device)
        except ValueError as e:
            print(f"dungeonrl train: {e}", file=sys.stderr)
            return 2
    default = os.path.join("runs", f"{game}-{args.algo}-s{args.seed}")
    try:
        out = choose_run_folder(args.out, default, args.overwrite)
    except ValueError as e:
        print(f"dungeonrl train: {e}", file=sys.stderr)
        return 2
    if args.out is None and out != default and "overwrite" not in given:
        print(
            f"dungeonrl train: {default} holds an earlier run; this one goes to {out}",
            file=sys.stderr,
        )
    try:
        metrics = run_training(
            game, args.algo, args.steps, args.seed, out, args, num_envs=args.num_envs
        )
    except (ValueError, OSError) as e:
        print(f"dungeonrl train: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # before training started (setup, kickstart): nothing to keep
        print(
            "\ndungeonrl train: interrupted before training started; nothing saved", file=sys.stderr
        )
        return 130
    return 130 if metrics.get("interrupted") else 0
