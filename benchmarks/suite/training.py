"""Training throughput: env-steps/s of the fast PPO (``agents.algos.ppo``) and
of sb3-contrib MaskablePPO with the same network and batch shape, and where
their time goes.

Both paths train with the fast PPO's network (``PPOConfig.hidden``,
separate actor and critic) and the same batch shape (envs x steps,
minibatches, epochs), after a tiny warm-up run that pays the one-time costs
(torch imports, first calls). The fast PPO runs ``agents.algos.ppo.train`` on a
``SingleAgentGame`` whose ``step`` checks every action against the mask;
SB3 runs ``MaskablePPO`` on ``DungeonSB3VecEnv(..., illegal_action="raise")``,
with ``agents.algos.sb3.policy_kwargs`` when it exists."""

from __future__ import annotations

import dataclasses
import importlib
import time
from typing import Any

import numpy as np

from .checks import IllegalActionInBenchmark, check_batch
from .fmt import fmt_fig
from .games import make_core
from .measure import measure, ok, skipped, unavailable
from .settings import Settings


def _import_optional(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is not None and name.startswith(e.name):
            return None
        raise


def train_shape(settings: Settings) -> dict:
    """The rollout/update shape both PPO paths train with (same network,
    same env, same batch): the fast PPO's defaults in the full run, smaller
    batches for --quick / tiny."""
    if settings.mode == "full":
        return {"num_envs": 1024, "num_steps": 32, "num_minibatches": 4, "update_epochs": 3}
    if settings.mode == "quick":
        return {"num_envs": 64, "num_steps": 16, "num_minibatches": 4, "update_epochs": 3}
    return {"num_envs": 8, "num_steps": 8, "num_minibatches": 2, "update_epochs": 1}


def _fast_ppo_runner(spec, settings: Settings):
    """``(run, None)`` where ``run(total_steps) -> dict`` trains the fast PPO
    of ``dungeonrl.agents.algos.ppo`` (``PPOConfig`` + ``train``) on a batch whose
    ``step`` checks every action against the mask before the kernel runs;
    or ``(None, reason)``."""
    mod = _import_optional("dungeonrl.agents.algos.ppo")
    if mod is None:
        return None, "dungeonrl.agents.algos.ppo is not importable (not written yet)"
    for attr in ("PPOConfig", "train", "SingleAgentGame"):
        if not hasattr(mod, attr):
            return None, f"dungeonrl.agents.algos.ppo has no {attr}"

    game_base: Any = mod.SingleAgentGame  # found at run time (checked above)

    class CheckedGame(game_base):
        """The trainer's batch, with the benchmark's legality check."""

        def step(self):
            where = f"fast PPO ({spec.name})"
            check_batch(self.masks, self.actions, where)
            super().step()
            if self.buf.illegal.any():
                raise IllegalActionInBenchmark(f"{where}: the core flagged an illegal action")

    def run(total, shape=None, hidden=None):
        shape = shape or train_shape(settings)
        fields = {f.name for f in dataclasses.fields(mod.PPOConfig)}
        kw = {k: v for k, v in shape.items() if k in fields}
        if hidden is not None:
            kw["hidden"] = tuple(hidden)
        if "torch_threads" in fields:
            kw["torch_threads"] = settings.torch_threads
        cfg = mod.PPOConfig(env=spec.name, total_steps=int(total), seed=settings.seed, **kw)
        core = make_core(spec, 1)
        game = CheckedGame(core, cfg.num_envs)
        t0 = time.perf_counter()
        result = mod.train(cfg, core=core, game=game)
        dt = time.perf_counter() - t0
        hist = getattr(result, "history", None) or []
        iters = [h["sps_iter"] for h in hist if isinstance(h, dict) and "sps_iter" in h]
        # the training loop only (TrainResult.seconds starts after the network,
        # optimizer and game are built), as SB3's figure is learn() only
        return {
            "env_steps": int(result.global_step),
            "seconds": float(getattr(result, "seconds", dt)),
            "wall_s": dt,
            "rollout_s": float(sum(h.get("rollout_s", 0.0) for h in hist)),
            "update_s": float(sum(h.get("update_s", 0.0) for h in hist)),
            "hidden": list(getattr(cfg, "hidden", ())),
            "activation": getattr(cfg, "activation", "tanh"),
            "shared": bool(getattr(cfg, "shared", False)),
            "iterations": len(hist),
            "sps_per_iteration": iters,
            **shape,
        }

    return run, None


def _sb3_policy_kwargs(hidden, activation: str, shared: bool) -> dict:
    """SB3 ``policy_kwargs`` of the fast PPO's network (separate actor and
    critic MLPs of ``hidden`` units, orthogonal init): from
    ``dungeonrl.agents.algos.sb3.policy_kwargs`` when it exists."""
    mod = _import_optional("dungeonrl.agents.algos.sb3")
    fn = getattr(mod, "policy_kwargs", None) if mod is not None else None
    if fn is not None:
        for args, kw in (
            ((), {"hidden": tuple(hidden), "activation": activation, "shared": shared}),
            ((), {"hidden": tuple(hidden), "activation": activation}),
            ((tuple(hidden), activation), {}),
        ):
            try:
                return dict(fn(*args, **kw))
            except TypeError:
                continue
    import torch.nn as nn

    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    arch = list(hidden) if shared else {"pi": list(hidden), "vf": list(hidden)}
    return {"net_arch": arch, "activation_fn": act, "ortho_init": True}


def _sb3_runner(spec, settings: Settings):
    """``(run, None)`` where ``run(total_steps, net) -> dict`` trains
    sb3-contrib's MaskablePPO on the native SB3 VecEnv in strict mode (an
    illegal action raises), with the fast PPO's network and batch shape."""
    if _import_optional("sb3_contrib") is None:
        return None, "sb3_contrib is not installed (pip install dungeonrl[train])"

    def run(total, net, shape=None):
        from sb3_contrib import MaskablePPO

        from ...envs.core.adapters.vector import DungeonSB3VecEnv
        from ...envs.core.errors import IllegalActionError

        shape = shape or train_shape(settings)
        n_envs, n_steps = shape["num_envs"], shape["num_steps"]
        venv = DungeonSB3VecEnv(
            spec.name, num_envs=n_envs, seed=settings.seed, illegal_action="raise"
        )
        kwargs = _sb3_policy_kwargs(net["hidden"], net["activation"], net["shared"])
        from stable_baselines3.common.callbacks import BaseCallback

        class RolloutTimer(BaseCallback):
            """Time spent collecting rollouts (the rest of learn() is updates)."""

            def __init__(self):
                super().__init__()
                self.rollout_s, self._t = 0.0, 0.0  # _t: set at each rollout's start

            def _on_rollout_start(self):
                self._t = time.perf_counter()

            def _on_rollout_end(self):
                self.rollout_s += time.perf_counter() - self._t

            def _on_step(self):
                return True

        import torch

        if settings.torch_threads:
            torch.set_num_threads(settings.torch_threads)
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=n_steps,
            batch_size=max(2, n_envs * n_steps // shape["num_minibatches"]),
            n_epochs=shape["update_epochs"],
            policy_kwargs=kwargs,
            seed=settings.seed,
            device="cpu",
            verbose=0,
        )
        timer = RolloutTimer()
        t0 = time.perf_counter()
        try:
            model.learn(total_timesteps=int(total), callback=timer)
        except IllegalActionError as e:
            raise IllegalActionInBenchmark(f"SB3 MaskablePPO ({spec.name}): {e}") from e
        dt = time.perf_counter() - t0
        venv.close()
        return {
            "env_steps": int(model.num_timesteps),
            "seconds": dt,
            "wall_s": dt,
            "rollout_s": timer.rollout_s,
            "update_s": dt - timer.rollout_s,
            "policy_kwargs": {
                k: (v.__name__ if isinstance(v, type) else v) for k, v in kwargs.items()
            },
            **shape,
        }

    return run, None


def bench_training(spec, settings: Settings, log) -> dict:
    """Env-steps/s of the fast PPO and of SB3 MaskablePPO with the same
    network and batch shape (single-agent games)."""
    if spec.multi_agent:
        return {
            "sb3": skipped(
                "multi-agent game: training throughput is measured on single-agent games"
            ),
            "fast_ppo": skipped("multi-agent game"),
        }
    out: dict[str, Any] = {}
    net: dict[str, Any] = {"hidden": [256, 256], "activation": "tanh", "shared": False}
    mod = _import_optional("dungeonrl.agents.algos.ppo")
    if mod is not None and hasattr(mod, "PPOConfig"):
        c = mod.PPOConfig()
        net = {
            "hidden": list(getattr(c, "hidden", net["hidden"])),
            "activation": getattr(c, "activation", "tanh"),
            "shared": bool(getattr(c, "shared", False)),
        }
    for algo, factory, total in (
        ("fast_ppo", _fast_ppo_runner, settings.train_steps_fast),
        ("sb3", _sb3_runner, settings.train_steps_sb3),
    ):
        fn, reason = factory(spec, settings)
        if fn is None:
            out[algo] = unavailable(reason)
        else:
            try:
                args = () if algo == "fast_ppo" else (net,)
                if settings.mode != "tiny":  # one-time costs (torch imports, first calls)
                    small = dict(train_shape(dataclasses.replace(settings, mode="tiny")))
                    fn(small["num_envs"] * small["num_steps"], *args, shape=small)
                c0 = time.process_time()
                r = fn(total, *args)
                cpu = time.process_time() - c0
                import torch

                out[algo] = {
                    "status": "ok",
                    "median": r["env_steps"] / r["seconds"],
                    "cpu_median": r["env_steps"] / max(cpu, 1e-9),
                    "unit": "env-steps/s",
                    "torch_threads": torch.get_num_threads(),
                    **r,
                }
            except IllegalActionInBenchmark:
                raise
            except Exception as e:  # written concurrently by others: record, do not crash
                out[algo] = unavailable(f"{type(e).__name__}: {e}")
        label = "fast PPO" if algo == "fast_ppo" else "SB3 MaskablePPO"
        log(f"  training {label}: {fmt_fig(out[algo])}")
    out["network"] = net
    out["shape"] = train_shape(settings)
    return out


def profile_training(spec, settings: Settings, training: dict, sampler) -> dict:
    """Where training time goes: the SB3 VecEnv alone at the same num_envs
    (its share of SB3's time), the rollout/update split of both paths, and
    both again with a small (64, 64) network and with one torch thread."""
    sb3 = training.get("sb3", {})
    if not ok(sb3):
        return {}
    from ...envs.core.adapters.vector import DungeonSB3VecEnv

    n = int(sb3.get("num_envs", train_shape(settings)["num_envs"]))
    venv = DungeonSB3VecEnv(spec.name, num_envs=n, seed=settings.seed)
    venv.reset()
    acts = np.zeros(n, np.int64)

    def run(k):
        for _ in range(k):
            masks = venv.action_masks().astype(np.int8)
            sampler.batch(masks, acts)
            check_batch(masks, acts, "profile sb3 vecenv")
            venv.step(acts)
        return k * n

    fig = measure(run, 1, max(0.05, settings.min_time / 2))
    out = {
        "sb3_vecenv_steps_per_s": fig["median"],
        "sb3_env_time_share": sb3["median"] / fig["median"],
        "sb3_num_envs": n,
    }
    for algo in ("sb3", "fast_ppo"):
        r = training.get(algo, {})
        if ok(r) and r.get("seconds"):
            out[f"{algo}_rollout_share"] = r.get("rollout_s", 0.0) / r["seconds"]
            out[f"{algo}_update_share"] = r.get("update_s", 0.0) / r["seconds"]
            out[f"{algo}_us_per_step"] = 1e6 * r["seconds"] / r["env_steps"]
    # the same comparison with a small network (how much of the ratio is
    # torch) and with one torch thread (intra-op threads on busy cores)
    net = dict(training.get("network", {}))
    if not (ok(training.get("fast_ppo")) and net) or settings.mode == "tiny":
        return out
    import torch

    threads0 = torch.get_num_threads()
    shape = train_shape(settings)
    total = shape["num_envs"] * shape["num_steps"]
    variants = {"small_net": ({"hidden": [64, 64]}, 0), "one_thread": ({}, 1)}
    for key, (net_change, threads) in variants.items():
        s2 = dataclasses.replace(settings, torch_threads=threads or settings.torch_threads)
        fast, _ = _fast_ppo_runner(spec, s2)
        sb3_run, _ = _sb3_runner(spec, s2)
        n2 = {**net, **net_change}
        try:
            rf = fast(total, hidden=n2["hidden"])
            rs = sb3_run(total, n2)
        except IllegalActionInBenchmark:
            raise
        except Exception as e:  # the agents are written concurrently: record it
            out[key] = {"error": f"{type(e).__name__}: {e}"}
            continue
        finally:
            torch.set_num_threads(threads0)
        v = {
            "hidden": list(n2["hidden"]),
            "torch_threads": threads or threads0,
            "env_steps": total,
            "fast_ppo_steps_per_s": rf["env_steps"] / rf["seconds"],
            "sb3_steps_per_s": rs["env_steps"] / rs["seconds"],
        }
        v["ratio"] = v["fast_ppo_steps_per_s"] / v["sb3_steps_per_s"]
        out[key] = v
    return out
