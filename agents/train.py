"""``dungeonrl train``: train a masked PPO agent on a game.

    dungeonrl train unbroken --algo ppo --steps 5000000 --seed 0 --out runs/ub
    dungeonrl train unbroken --algo ppo --minutes 25 --difficulty normal --character sneak
    dungeonrl train unbroken --algo sb3 --steps 200000 --num-envs 64
    dungeonrl train dungeon_crawler --players 2 --minutes 25 --opponents self:0.4,heuristic:0.4,random:0.2

``--algo ppo`` (default) is the fast path (:mod:`dungeonrl.agents.ppo`: the
numba batch stepped directly, 1,024 envs by default); ``--algo sb3`` is
sb3-contrib MaskablePPO on ``DungeonSB3VecEnv`` (64 envs by default), with
its evaluation callback, checkpoints and TensorBoard logs. Both use the same
network (``--hidden``, ``--activation``, ``--shared``).

A tqdm bar shows the live win rate (last 2,000 training episodes), the mean
Level and steps/s. ``--out`` (default ``runs/<game>-<algo>-s<seed>``) then
holds:

* ``model.pt`` (fast path) or ``model.zip`` (SB3), carrying the model spec;
  the fast path also refreshes ``checkpoint.pt`` every ``--checkpoint-minutes``;
* ``metrics.csv`` (one row per iteration: steps, time, steps/s, win rate,
  mean Level, return, approx_kl, clipfrac, entropy, explained variance...)
  and ``metrics.json`` (config, history, final evaluation);
* ``learning_curve.png``: training win rate against env steps, with the
  heuristic's and random play's evaluated win rates as reference lines.

At the end the agent is evaluated on ``--eval-games`` seeded games (default
1,000; 0 skips) against the heuristic and random play on the same games.
Game options (Unbroken: ``--character``, ``--difficulty``, ``--reward``;
Dungeon Crawler: ``--players``) come from :mod:`dungeonrl.agents.games`;
Unbroken trains on ``reward="score"`` unless told otherwise.

Multi-seat games (Dungeon Crawler) train by self-play on the single-agent
view of :mod:`dungeonrl.agents.selfplay`: the learner takes one seat
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
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict

from .games import add_core_options, core_kwargs_from, hooks_for

__all__ = ["main", "build_parser", "run_training"]


def build_parser(hooks, multi: bool = False) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dungeonrl train", description=__doc__.split("\n\n")[0])
    p.add_argument("--algo", choices=("ppo", "sb3"), default="ppo",
                   help="ppo: the fast path (default); sb3: sb3-contrib MaskablePPO")
    p.add_argument("--steps", type=int, default=None, help="env steps to train for")
    p.add_argument("--minutes", type=float, default=None,
                   help="wall-clock budget (fast path; the learning rate anneals over it)")
    p.add_argument("--num-steps", type=int, default=None, help="rollout length per env")
    p.add_argument("--epochs", type=int, default=None, help="update epochs per iteration")
    p.add_argument("--minibatches", type=int, default=None, help="minibatches per epoch (fast path)")
    p.add_argument("--batch-size", type=int, default=None, help="minibatch size (sb3)")
    p.add_argument("--lr", type=float, default=None, help="learning rate")
    p.add_argument("--ent-coef", type=float, default=None)
    p.add_argument("--gamma", type=float, default=None)
    p.add_argument("--hidden", default=None, help="MLP sizes, e.g. 256,256")
    p.add_argument("--activation", choices=("tanh", "relu"), default=None)
    p.add_argument("--shared", action="store_true", help="one trunk for actor and critic")
    p.add_argument("--torch-threads", type=int, default=0, help="torch intra-op threads (0: 1, the fastest on the 2-core machine)")
    p.add_argument("--eval-games", type=int, default=1000,
                   help="games of the final evaluation (0: skip)")
    p.add_argument("--checkpoint-minutes", type=float, default=5.0,
                   help="fast path: refresh checkpoint.pt this often")
    p.add_argument("--progress", choices=("tqdm", "rich", "none"), default="tqdm",
                   help="progress bar (rich: SB3's own bar, sb3 only)")
    p.add_argument("--init", default=None, help="fast path: continue from a saved model")
    p.add_argument("--kickstart", default=None, metavar="AGENT",
                   help="fast path: clone AGENT (e.g. heuristic) before PPO (agents/bc.py); "
                        "the time it takes counts in --minutes")
    p.add_argument("--bc-steps", type=int, default=300_000, help="teacher decisions to clone")
    p.add_argument("--bc-epochs", type=int, default=3)
    p.add_argument("--dagger-rounds", type=int, default=0,
                   help="rounds of student play labelled by the teacher after cloning")
    add_core_options(p, hooks)
    if multi:
        g = p.add_argument_group("self-play (multi-seat games)")
        g.add_argument("--opponents", default=None, metavar="POOL",
                       help="opponent pool NAME[:WEIGHT],... with names self (snapshots of "
                            "the learner), heuristic, random or a saved model "
                            f"(default {hooks.selfplay_defaults})")
        g.add_argument("--snapshot-every", type=int, default=10, metavar="ITERS",
                       help="add a snapshot of the learner to the pool every ITERS "
                            "iterations (sb3: rollouts)")
        g.add_argument("--snapshot-slots", type=int, default=8,
                       help="snapshots kept in the pool (the oldest is replaced)")
        g.add_argument("--eval-opponents", default="heuristic,random",
                       help="opponents of the final evaluation (comma-separated agents)")
    return p


def _cli_default(dest: str):
    from .evaluate import _cli_default as d
    return d("train", dest)


def _given(args, dest: str):
    """The CLI's own option ``dest`` if the user set it (a value different
    from the CLI parser's default), else None."""
    v = getattr(args, dest, None)
    return None if v is None or v == _cli_default(dest) else v


def run_training(game: str, algo: str, steps: int | None, seed: int, out: str, opts,
                 num_envs: int | None = None, log=print) -> dict:
    """Train, save, evaluate and plot; returns the metrics dict (see module
    doc). ``opts`` is a namespace of :func:`build_parser` options."""
    from ..envs.core._batch import resolve_core
    from .evaluate import evaluate, format_table
    from .metrics import RecentRate, plot_learning_curve, write_csv, write_json

    from ..registry import get_spec
    from .selfplay import make_view, parse_pool, snapshot_agent
    hooks = hooks_for(game)
    core_kwargs = dict(hooks.train_defaults)
    core_kwargs.update(core_kwargs_from(opts, hooks))
    hidden = tuple(int(h) for h in opts.hidden.split(",")) if opts.hidden else (256, 256)
    multi = get_spec(game).multi_agent
    pool = None
    if multi:
        given_pool = getattr(opts, "opponents", None)
        pool = parse_pool(hooks.selfplay_defaults if given_pool is None else given_pool)
        if opts.snapshot_every < 1 or opts.snapshot_slots < 1:
            raise ValueError("--snapshot-every and --snapshot-slots must be >= 1")
    os.makedirs(out, exist_ok=True)
    bar_on = opts.progress != "none"
    t0 = time.perf_counter()

    if algo == "ppo":
        import torch
        from tqdm.auto import tqdm
        from .ppo import PPOConfig, load_model, save_model, train
        cfg = PPOConfig(env=game, core_kwargs=core_kwargs, seed=seed, hidden=hidden,
                        torch_threads=opts.torch_threads, shared=opts.shared)
        if num_envs:
            cfg.num_envs = num_envs
        for src, dst in (("num_steps", "num_steps"), ("epochs", "update_epochs"),
                         ("minibatches", "num_minibatches"), ("lr", "learning_rate"),
                         ("ent_coef", "ent_coef"), ("gamma", "gamma"),
                         ("activation", "activation")):
            v = getattr(opts, src, None)
            if v is not None:
                setattr(cfg, dst, v)
        if opts.kickstart:   # fine-tuning a cloned policy: gentler defaults
            cfg.learning_rate = opts.lr if opts.lr is not None else 1e-4
            cfg.ent_coef = opts.ent_coef if opts.ent_coef is not None else 0.001
        if opts.minutes:
            cfg.max_seconds = 60.0 * opts.minutes
        cfg.total_steps = steps if steps else (10**12 if opts.minutes else 1_000_000)
        core = resolve_core(game, dict(core_kwargs))
        net = None
        if opts.init:
            net, _ = load_model(opts.init, core, strict=False)
            net.train()
            cfg.hidden, cfg.activation, cfg.shared = (tuple(net.arch["hidden"]),
                                                      net.arch["activation"], net.arch["shared"])
        kick = None
        if opts.kickstart:
            kick = _kickstart(opts, cfg, core, game, seed, log, pool)
            net = kick.pop("net")
            if cfg.max_seconds:
                cfg.max_seconds = max(0.0, cfg.max_seconds - (time.perf_counter() - t0))
        view = None
        if multi:
            from .ppo import ActorCritic
            if net is None:
                torch.manual_seed(seed)
                net = ActorCritic(core.spec.obs_size, core.spec.num_actions, cfg.hidden,
                                  cfg.activation, cfg.shared)
            view = make_view(core, cfg.num_envs, pool, seed=seed,
                             snapshot_slots=opts.snapshot_slots)
            if view.snapshot_weight > 0:
                view.add_snapshot(snapshot_agent(net, seed, "self@0"))
        recent = RecentRate(2000)
        total = cfg.total_steps if steps else None
        bar = tqdm(total=total, desc=f"PPO {game}", unit="step", unit_scale=True,
                   dynamic_ncols=True, disable=not bar_on)
        last_ckpt = [time.perf_counter()]
        ckpt_path = os.path.join(out, "checkpoint.pt")

        def on_iter(m, net_):
            recent.add(m["win_rate"] * m["episodes"] if m["episodes"] else 0, m["episodes"],
                       level=m.get("mean_level", 0.0) * m["episodes"])
            bar.update(m["global_step"] - bar.n)
            post = {"win": f"{recent.rate:.1%}", "sps": f"{m['sps']:,.0f}",
                    "kl": f"{m['approx_kl']:.3f}"}
            if "mean_level" in m:
                post["lvl"] = f"{recent.mean('level'):.2f}"
            bar.set_postfix(post, refresh=False)
            if view is not None and view.snapshot_weight > 0 \
                    and m["iteration"] % opts.snapshot_every == 0:
                view.add_snapshot(snapshot_agent(net_, seed + m["iteration"],
                                                 f"self@{m['global_step']}"))
            if (opts.checkpoint_minutes and
                    time.perf_counter() - last_ckpt[0] > 60 * opts.checkpoint_minutes):
                save_model(ckpt_path, net_, core, config=cfg, metrics=m)
                write_csv(history_ref, os.path.join(out, "metrics.csv"))
                last_ckpt[0] = time.perf_counter()

        history_ref: list = []

        def on_iter_rec(m, net_):
            history_ref.append(m)
            on_iter(m, net_)

        result = train(cfg, core=core, game=view, callback=on_iter_rec, net=net)
        bar.close()
        history = result.history
        model_path = save_model(os.path.join(out, "model.pt"), result.net, core, config=cfg,
                                metrics=history[-1] if history else {})
        if os.path.exists(ckpt_path):
            os.remove(ckpt_path)
        config = asdict(cfg)
        config["hidden"] = list(cfg.hidden)
        from .policy import TorchAgent
        agent = TorchAgent(result.net, deterministic=True, name="ppo (greedy)")
        steps_done = result.global_step
        if kick is not None:
            config["kickstart"] = kick
    else:
        from .sb3 import SB3Config, config_dict, save_sb3, train_sb3
        from .policy import SB3Agent
        cfg = SB3Config(env=game, core_kwargs=core_kwargs, seed=seed, hidden=hidden,
                        torch_threads=opts.torch_threads, shared=opts.shared,
                        progress=None if opts.progress == "none" else opts.progress)
        if num_envs:
            cfg.num_envs = num_envs
        for src, dst in (("num_steps", "n_steps"), ("epochs", "n_epochs"),
                         ("batch_size", "batch_size"), ("lr", "learning_rate"),
                         ("ent_coef", "ent_coef"), ("gamma", "gamma"),
                         ("activation", "activation")):
            v = getattr(opts, src, None)
            if v is not None:
                setattr(cfg, dst, v)
        cfg.total_steps = steps if steps else 200_000
        factory = None
        if multi:
            def factory(n, s, opponents=None):
                c = resolve_core(game, dict(core_kwargs))
                return make_view(c, n, opponents or pool, seed=s,
                                 snapshot_slots=opts.snapshot_slots)
        model, history, core = train_sb3(cfg, out, make_view=factory,
                                         snapshot_every=opts.snapshot_every if multi else 0)
        model_path = save_sb3(model, os.path.join(out, "model.zip"), core, core_kwargs)
        config = config_dict(cfg)
        agent = SB3Agent(model, deterministic=True, name="maskable_ppo (greedy)")
        steps_done = int(model.num_timesteps)

    seconds = time.perf_counter() - t0
    metrics = {"algo": algo, "env_id": core.spec.env_id, "game": game, "seed": seed,
               "core_kwargs": core_kwargs, "setting": hooks.describe(core), "config": config,
               "steps": steps_done, "train_seconds": seconds,
               "sps": steps_done / seconds if seconds else None,
               "model": model_path, "history": history}
    if multi:
        metrics["selfplay"] = {"opponents": [[n, w] for n, w in pool],
                               "snapshot_every": opts.snapshot_every,
                               "snapshot_slots": opts.snapshot_slots}
    refs = {}
    if opts.eval_games and multi:
        metrics["final_eval"] = _eval_multi(agent, game, core_kwargs, opts, hooks, log)
    elif opts.eval_games:
        eval_kwargs = {k: v for k, v in core_kwargs.items() if k != "reward"}
        ecore = resolve_core(game, eval_kwargs)
        rows = [evaluate(agent, ecore, opts.eval_games, seed=0).summary]
        others = ["heuristic", "random"] if hooks.heuristic else ["random"]
        for name in others:
            s = evaluate(name, ecore, opts.eval_games, seed=0).summary
            rows.append(s)
            refs[name] = s["win_rate"]
        metrics["final_eval"] = rows
        log(f"evaluation, {opts.eval_games} games (seeds 0..{opts.eval_games - 1}), "
            f"{hooks.describe(ecore)}:")
        log(format_table(rows, hooks))
    write_csv(history, os.path.join(out, "metrics.csv"))
    write_json(metrics, os.path.join(out, "metrics.json"))
    if history:
        what = f"{algo} on {core.spec.env_id} ({hooks.describe(core)})"
        if multi:
            what += "\nwin rate against the training pool " + ",".join(
                f"{n}:{w:g}" for n, w in pool)
        extra = {}
        if hooks.stat_columns:
            key, label, _ = hooks.stat_columns[0]
            extra = {"extra_key": f"mean_{key}", "extra_label": label}
        plot_learning_curve(history, os.path.join(out, "learning_curve.png"),
                            title=what, references=refs, **extra)
    log(f"trained {steps_done:,} steps in {seconds / 60:.1f} min "
        f"({steps_done / max(seconds, 1e-9):,.0f} steps/s incl. setup); wrote {out}/: "
        f"{os.path.basename(model_path)}, metrics.csv, metrics.json"
        + (", learning_curve.png" if history else ""))
    return metrics


def _eval_multi(agent, game, core_kwargs, opts, hooks, log) -> list:
    """Seeded matches of the trained agent (seats alternated) against each
    of ``--eval-opponents``, and the heuristic against the same opponents
    for reference."""
    from ..envs.core._batch import resolve_core
    from .evaluate import format_table
    from .policy import make_agent
    from .selfplay import match_summary, play_match
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
    log(f"evaluation, {opts.eval_games} games per pairing (seeds 0..{opts.eval_games - 1}, "
        f"seats alternated), {hooks.describe(ecore)}:")
    log(format_table(rows))
    return rows


def _kickstart(opts, cfg, core, game, seed, log, pool=None) -> dict:
    """Behaviour cloning of ``opts.kickstart`` into a fresh network."""
    import torch
    from .bc import BCConfig, kickstart
    from .evaluate import evaluate
    from .policy import TorchAgent, make_agent
    from .ppo import ActorCritic
    from ..envs.core._batch import resolve_core
    t = time.perf_counter()
    torch.manual_seed(seed)
    net = ActorCritic(core.spec.obs_size, core.spec.num_actions, cfg.hidden, cfg.activation,
                      cfg.shared)
    bc = BCConfig(steps=opts.bc_steps, epochs=opts.bc_epochs, gamma=cfg.gamma, seed=seed,
                  torch_threads=cfg.torch_threads, dagger_rounds=opts.dagger_rounds)
    log(f"kickstart: cloning {opts.kickstart} ({bc.steps:,} decisions, {bc.epochs} epochs"
        + (f", {bc.dagger_rounds} DAgger rounds" if bc.dagger_rounds else "") + ")")
    def show(d):
        if "epoch" in d:
            log(f"  clone epoch {d['epoch']}: accuracy {d['accuracy']:.1%}, "
                f"{d['samples']:,} samples, {d['seconds']:.0f} s")
        else:
            log(f"  {d['phase']}: {d['samples']:,} labelled decisions")

    make_game = None
    if pool is not None:       # multi-seat: the teacher plays against the scripted pool
        from .selfplay import make_view
        fixed = [(n, w) for n, w in pool if n != "self"] or [("heuristic", 1.0)]
        make_game = lambda n, s: make_view(core, n, fixed, seed=s)  # noqa: E731
    fit = kickstart(net, core, make_agent(opts.kickstart, core, seed=seed), bc, log=show,
                    make_game=make_game)
    ecore = resolve_core(game, {k: v for k, v in cfg.core_kwargs.items() if k != "reward"})
    if pool is None:
        s = evaluate(TorchAgent(net, deterministic=True), ecore, 1000, seed=0).summary
        what = "of 1,000 games"
    else:
        from .selfplay import match_summary, play_match
        opp = "heuristic" if "heuristic" in (n for n, _ in pool) else "random"
        res = play_match(ecore, TorchAgent(net, deterministic=True),
                         make_agent(opp, ecore, seed=seed), 1000, seed=0)
        s = match_summary(res, "clone", opp)
        what = f"of 1,000 games against {opp}"
    log(f"kickstart done in {time.perf_counter() - t:.0f} s: accuracy {fit['accuracy']:.1%}, "
        f"cloned agent wins {s['win_rate']:.1%} {what} (greedy)")
    net.train()
    return {"net": net, "teacher": opts.kickstart, "bc": {**bc.__dict__},
            "fit": fit, "clone_eval": s, "seconds": time.perf_counter() - t}


def main(args) -> int:
    game = args.env
    hooks = hooks_for(game)
    from ..registry import get_spec
    p = build_parser(hooks, multi=get_spec(game).multi_agent)
    try:
        opts = p.parse_args(list(getattr(args, "extra", []) or []))
    except SystemExit as e:
        return int(e.code or 0) and 2
    steps = opts.steps if opts.steps is not None else _given(args, "timesteps")
    num_envs = _given(args, "num_envs")
    out = getattr(args, "out", None)
    if out is None or out == _cli_default("out"):
        out = os.path.join(out or "runs", f"{game}-{opts.algo}-s{args.seed}")
    if steps is not None and steps < 1:
        print("dungeonrl train: --steps must be >= 1", file=sys.stderr)
        return 2
    try:
        run_training(game, opts.algo, steps, args.seed, out, opts, num_envs=num_envs)
    except (ValueError, OSError) as e:
        print(f"dungeonrl train: {e}", file=sys.stderr)
        return 2
    return 0
