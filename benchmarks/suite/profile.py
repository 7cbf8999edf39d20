"""Where the time of one configuration goes, inside a suite run: the parts
of a batched step, one-env call costs and cProfile tables of the Python
paths (the ``profile`` entries of the JSON). The per-layer table of the
README is :mod:`.breakdown`."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .checks import IllegalActionInBenchmark, check_batch
from .games import aec_factory
from .layers import aec_loop, single_loop, vector_variant
from .measure import guarded, median_of, ok, per_call_us
from .settings import REF_ENVS, Settings


def _cprofile(run: Callable[[int], int], k: int, top: int = 12) -> dict:
    """cProfile ``run(k)``; the ``top`` functions by own time, per step."""
    import cProfile
    import pstats

    run(max(1, k // 10))  # warm
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    steps = run(k)
    prof.disable()
    wall = time.perf_counter() - t0
    st = pstats.Stats(prof, stream=io.StringIO())
    rows = []
    table = st.stats  # type: ignore[attr-defined]  # typeshed omits Stats.stats, the raw table
    total = sum(v[2] for v in table.values())
    ranked = sorted(table.items(), key=lambda kv: -kv[1][2])[:top]
    for (file, line, fn), (_cc, nc, tt, ct, _) in ranked:
        where = f"{os.path.basename(file)}:{line}({fn})" if file != "~" else fn
        rows.append(
            {
                "function": where,
                "calls_per_step": nc / steps,
                "own_us_per_step": 1e6 * tt / steps,
                "cum_us_per_step": 1e6 * ct / steps,
                "own_share": tt / total if total else 0.0,
            }
        )
    return {"steps": steps, "us_per_step_profiled": 1e6 * wall / steps, "top": rows}


def profile_config(spec, core, players: int, cfg: dict, settings: Settings, sampler) -> dict:
    """Where the time of one configuration goes: the parts of the batched
    step (observation encoding, mask, sampling, legality check, the copies
    the adapter returns) at the reference batch size, and cProfile tables of
    the Python paths."""
    from ...envs.core.batch import Batch

    n = min(REF_ENVS, max(settings.num_envs))
    mt = max(0.02, min(0.3, settings.min_time / 3))
    buf = Batch(core, n)
    buf.reset(np.arange(n, dtype=np.uint64))
    for _ in range(20):  # move off the opening positions
        sampler.batch(buf.masks, buf.actions)
        check_batch(buf.masks, buf.actions, "profile")
        buf.fused_step()
    out: dict[str, Any] = {"num_envs": n}
    parts = {
        "observe_us": lambda: core.observe(buf.states, buf.players, buf.obs),
        "legal_mask_us": lambda: core.legal_mask(buf.states, buf.masks),
        "sample_us": lambda: sampler.batch(buf.masks, buf.actions),
        "legality_check_us": lambda: check_batch(buf.masks, buf.actions, "profile"),
        "reset_us": lambda: core.reset(buf.final_states, buf.seeds),
        "obs_copy_us": lambda: buf.obs.copy(),
        "mask_copy_us": lambda: buf.masks.copy(),
        "state_copy_us": lambda: buf.states.copy(),
    }
    out["per_env_step"] = {k: per_call_us(f, n, mt) for k, f in parts.items()}
    # one env per call: what the single env pays per kernel call (numba's
    # dispatch of structured-array arguments included)
    one = Batch(core, 1)
    one.reset(np.arange(1, dtype=np.uint64))
    out["per_call_1env"] = {
        "observe_us": per_call_us(lambda: core.observe(one.states, one.players, one.obs), 1, mt),
        "legal_mask_us": per_call_us(lambda: core.legal_mask(one.states, one.masks), 1, mt),
    }
    layers = {}
    k1 = median_of(cfg.get("kernel", {}).get("1"))
    if k1:
        layers["kernel_us"] = 1e6 / k1
    b = median_of(cfg.get("batch", {}).get(str(n)))
    if b:
        layers["batch_us"] = 1e6 / b
    v = median_of(cfg.get("vector", {}).get(str(n)))
    if v:
        layers["vector_us"] = 1e6 / v
    p = median_of(cfg.get("python"))
    if p:
        layers["python_us"] = 1e6 / p
    out["per_env_step_layers"] = layers
    kfig = cfg.get("kernel", {}).get("1", {})
    if kfig.get("mean_episode_length"):
        out["mean_episode_length"] = kfig["mean_episode_length"]
        out["reset_us_per_step"] = out["per_env_step"]["reset_us"] / kfig["mean_episode_length"]
    if "kernel_us" in layers:
        pe = out["per_env_step"]
        out["kernel_rules_us_estimate"] = max(
            0.0,
            layers["kernel_us"]
            - pe["observe_us"]
            - pe["legal_mask_us"]
            - out.get("reset_us_per_step", 0.0),
        )
    steps = 200 if settings.mode == "full" else 20
    try:
        if spec.multi_agent:
            env = aec_factory(spec)(num_players=players)
            run = aec_loop(env, sampler, "profile", settings.seed, check_info=True)
            out["cprofile_aec"] = _cprofile(run, 20 * steps)
        else:
            import gymnasium as gym

            env = gym.make(spec.env_id)
            run = single_loop(
                env, lambda info: info["action_mask"], sampler, "profile", settings.seed
            )
            out["cprofile_single"] = _cprofile(run, 20 * steps)
            from ...envs.core.adapters.vector import DungeonVectorEnv

            venv = DungeonVectorEnv(spec.name, num_envs=n)
            _, infos = venv.reset(seed=settings.seed)
            box = {"masks": infos["action_mask"]}
            acts = np.zeros(n, np.int64)

            def vrun(k):
                for _ in range(k):
                    sampler.batch(box["masks"], acts)
                    check_batch(box["masks"], acts, "profile")
                    _, _, _, _, inf = venv.step(acts)
                    box["masks"] = inf["action_mask"]
                return k

            fig = guarded(vector_variant, spec, n, settings, sampler, episode_info=False)
            out["vector_no_episode_info_us"] = 1e6 / fig["median"] if ok(fig) else None
            prof = _cprofile(vrun, max(5, steps // 4))
            for row in prof["top"]:  # per batched step -> per env-step
                for key in ("own_us_per_step", "cum_us_per_step"):
                    row[key] /= n
            prof["us_per_step_profiled"] /= n
            prof["note"] = f"per env-step at {n} envs"
            out["cprofile_vector"] = prof
    except IllegalActionInBenchmark:
        raise
    except Exception as e:
        out["cprofile_error"] = f"{type(e).__name__}: {e}"
    return out
