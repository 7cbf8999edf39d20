"""Kickstarting: behaviour cloning of a teacher agent before PPO.

A game's scripted heuristic plays ``steps`` decisions on the batched game
(``num_envs`` games stepped by the fused numba kernel, the teacher deciding
for all rows in one call); we record the observation, the legal mask, the
teacher's action and the discounted return that followed. The actor is then
fitted by cross-entropy on the *masked* logits (the same masking as PPO),
and the critic by regression on the returns (so PPO's first advantages are
not noise that would undo the cloned policy). PPO (:func:`.ppo.train` with
``net=``) then fine-tunes it on its own experience.

With ``dagger_rounds > 0`` the cloned student then plays itself (sampling
from its policy) while the teacher labels every state it reaches (DAgger),
and the actor is refitted on all the data: this corrects the states a pure
clone drifts into and never saw.

This is optional (``dungeonrl train --kickstart heuristic``) and reported as
such: the pure-PPO baseline starts from a random network.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ...envs.core.common import draw_seeds
from ..policy import TorchAgent
from .ppo import ActorCritic, SingleAgentGame, masked_logits, set_torch_threads

__all__ = ["BCConfig", "collect", "clone", "kickstart"]


@dataclass
class BCConfig:
    steps: int = 300_000  #: teacher decisions to record
    num_envs: int = 1024
    epochs: int = 3
    minibatch: int = 2048
    learning_rate: float = 1e-3
    vf_coef: float = 0.5
    gamma: float = 0.995  #: for the critic's returns (use PPO's gamma)
    seed: int = 0
    torch_threads: int = 0
    dagger_rounds: int = 0  #: rounds of student play labelled by the teacher
    dagger_steps: int = 200_000  #: decisions recorded per round
    dagger_epochs: int = 2


def collect(
    core,
    teacher,
    cfg: BCConfig,
    student=None,
    steps: int | None = None,
    seed_offset: int = 0,
    make_game=None,
) -> dict:
    """Play on ``cfg.num_envs`` autoreset games and label every decision with
    the teacher's action: time-major arrays ``obs``, ``masks``, ``actions``
    (the teacher's), ``returns`` and ``valid`` (the return is complete: the
    episode ended inside the recording). The teacher plays, or ``student``
    (an agent with ``act(buf, rows)``) when given (DAgger). ``make_game(n,
    seed)`` builds the game (default: a :class:`SingleAgentGame` of ``core``;
    multi-seat games pass a self-play view)."""
    seed = cfg.seed + 7_777 + seed_offset
    game = (
        SingleAgentGame(core, cfg.num_envs) if make_game is None else make_game(cfg.num_envs, seed)
    )
    game.reset(draw_seeds(np.random.default_rng(seed), cfg.num_envs))
    buf = getattr(game, "buf", game)
    N = cfg.num_envs
    T = max(1, (steps or cfg.steps) // N)
    obs = np.zeros((T, N, core.spec.obs_size), np.float32)
    masks = np.zeros((T, N, core.spec.num_actions), np.bool_)
    actions = np.zeros((T, N), np.int64)
    rewards = np.zeros((T, N), np.float32)
    ends = np.zeros((T, N), np.bool_)
    rows = np.arange(N, dtype=np.int64)
    for t in range(T):
        obs[t] = game.obs
        masks[t] = game.masks != 0
        a = teacher.act(buf, rows)
        actions[t] = a
        game.actions[:] = a if student is None else student.act(buf, rows)
        game.step()
        rewards[t] = game.reward
        ends[t] = game.terminated | game.truncated
    returns = np.zeros((T, N), np.float32)
    valid = np.zeros((T, N), np.bool_)
    g = np.zeros(N, np.float32)
    seen_end = np.zeros(N, np.bool_)
    for t in reversed(range(T)):
        g = np.where(ends[t], 0.0, g)
        seen_end |= ends[t]
        g = rewards[t] + cfg.gamma * g
        returns[t] = g
        valid[t] = seen_end
    return {
        "obs": obs,
        "masks": masks,
        "actions": actions,
        "returns": returns,
        "valid": valid,
        "episodes": int(ends.sum()),
    }


def clone(net: ActorCritic, data: dict, cfg: BCConfig, log=None, epochs: int | None = None) -> dict:
    """Fit ``net`` to the teacher's actions (masked cross-entropy) and
    returns; returns the final accuracy and losses."""
    set_torch_threads(cfg.torch_threads)
    gen = torch.Generator().manual_seed(cfg.seed)
    n_obs, A = data["obs"].shape[-1], data["masks"].shape[-1]
    obs = torch.from_numpy(data["obs"].reshape(-1, n_obs))
    masks = torch.from_numpy(data["masks"].reshape(-1, A))
    actions = torch.from_numpy(data["actions"].reshape(-1))
    returns = torch.from_numpy(data["returns"].reshape(-1))
    valid = torch.from_numpy(data["valid"].reshape(-1)).float()
    n = len(actions)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    net.train()
    out = {}
    t0 = time.perf_counter()
    epochs = epochs or cfg.epochs
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=gen)
        correct, tot_pi, tot_v, seen = 0, 0.0, 0.0, 0
        for start in range(0, n, cfg.minibatch):
            lr = cfg.learning_rate * (1 - (epoch * n + start) / (epochs * n))
            for g in opt.param_groups:
                g["lr"] = lr
            idx = perm[start : start + cfg.minibatch]
            logits, value = net(obs[idx])
            logits = masked_logits(logits, masks[idx])
            pi_loss = F.cross_entropy(logits, actions[idx])
            w = valid[idx]
            v_loss = 0.5 * (w * (value - returns[idx]) ** 2).sum() / w.sum().clamp(min=1)
            loss = pi_loss + cfg.vf_coef * v_loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            with torch.no_grad():
                correct += int((logits.argmax(1) == actions[idx]).sum())
            tot_pi += pi_loss.item() * len(idx)
            tot_v += v_loss.item() * len(idx)
            seen += len(idx)
        out = {
            "epoch": epoch + 1,
            "accuracy": correct / seen,
            "pi_loss": tot_pi / seen,
            "v_loss": tot_v / seen,
            "samples": n,
            "seconds": time.perf_counter() - t0,
        }
        if log is not None:
            log(out)
    net.eval()
    return out


def kickstart(net: ActorCritic, core, teacher, cfg: BCConfig, log=None, make_game=None) -> dict:
    """Clone ``teacher`` into ``net`` (then ``cfg.dagger_rounds`` of DAgger);
    returns the last fit's metrics. ``make_game``: as for :func:`collect`."""
    data = collect(core, teacher, cfg, make_game=make_game)
    if log is not None:
        log({"phase": "collect", "samples": int(data["actions"].size)})
    out = clone(net, data, cfg, log)
    for r in range(cfg.dagger_rounds):
        student = TorchAgent(net, deterministic=False, seed=cfg.seed + r)
        new = collect(
            core,
            teacher,
            cfg,
            student=student,
            steps=cfg.dagger_steps,
            seed_offset=r + 1,
            make_game=make_game,
        )
        flat = {
            k: np.concatenate(
                [data[k].reshape(-1, *data[k].shape[2:]), new[k].reshape(-1, *new[k].shape[2:])]
            )[None]
            for k in ("obs", "masks", "actions", "returns", "valid")
        }
        data = flat
        if log is not None:
            log({"phase": f"dagger_{r + 1}", "samples": int(data["actions"].size)})
        out = clone(net, data, cfg, log, epochs=cfg.dagger_epochs)
    return out
