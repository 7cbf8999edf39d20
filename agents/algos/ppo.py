"""Masked PPO in one readable file, driving the numba games directly.

In the spirit of CleanRL's ``ppo.py``: a typed :class:`PPOConfig`,
preallocated rollout storage (masks included), an explicit GAE loop and the
usual diagnostics (``approx_kl``, ``clipfrac``, ``explained_variance``,
``entropy``, ``sps``). What makes it fast is the environment side: there is
no per-env Python anywhere in the loop. The game is a batch of ``num_envs``
records stepped by the fused autoreset step of a
:class:`~dungeonrl.envs.core.batch.Batch` (step, keep the final observation,
reset finished games in place, observe, mask) on its preallocated numpy buffers,
and the network reads those buffers through ``torch.from_numpy`` views.

One iteration::

    for t in range(num_steps):                 # rollout, no gradients
        store obs[t], masks[t]                 # copies of the live buffers
        logits = actor(obs[t]); logits[~mask] = -1e8     # illegal actions masked
        action ~ softmax(logits)               # Gumbel-max sample
        game.step(action)                      # ONE numba call for all envs
        store reward[t], end[t]; truncated envs get reward += gamma * V(final_obs)
    advantages = GAE(rewards, values, ends)    # explicit backward loop
    for epoch, minibatch:                      # update
        logits = actor(obs); logits[~STORED mask] = -1e8 # same masks as sampling
        clipped surrogate + clipped value loss - ent_coef * masked entropy

The network (:class:`ActorCritic`) is an MLP with separate actor and critic
(or a shared trunk, ``shared=True``), orthogonal init as in CleanRL and SB3.
:func:`dungeonrl.agents.algos.sb3.policy_kwargs` builds the same network for
sb3-contrib's MaskablePPO, so the two paths are comparable.

Models are saved by :func:`save_model` as a ``torch.save`` dict that carries
the model spec of :mod:`dungeonrl.agents.modelspec` (env id, version,
layout version, observation/action sizes, feature and action name hashes,
core options); :func:`load_model` raises :class:`ModelSpecError` when the
model does not match the game it is loaded for.

``PPOConfig.device`` (``"cpu"`` by default; ``"cuda"``, ``"cuda:N"``,
``"auto"``, checked by :func:`resolve_device`) holds the network and the
rollout storage; the game's buffers stay numpy on the CPU and are copied in
once per step. Ctrl-C during :func:`train` ends it cleanly
(``TrainResult.interrupted``) with the completed iterations' history and
the network as it is, so the caller can still save them.

:func:`train` drives any object with the small :class:`SingleAgentGame`
interface (``obs``, ``masks``, ``actions`` numpy buffers; ``reset(seeds)``;
``step()`` filling ``reward``, ``terminated``, ``truncated``, ``final_obs``,
``final_states``). The self-play view of a multi-seat game
(:class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`: learner in one seat,
opponents from a pool stepped inside ``step()``) is one:
``train(cfg, game=make_view(core, n, "self:0.5,heuristic:0.5"), net=net)``
(see :mod:`dungeonrl.agents.algos.selfplay` and ``dungeonrl train dungeon_crawler``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
import torch.nn as nn

from ...envs.catalog import default_game
from ...envs.core.batch import Batch
from ...envs.core.common import draw_seeds, require_single_agent, resolve_core
from ...envs.core.hooks import hooks_for
from ...version import __version__
from ..modelspec import (
    ACTIVATION_NAMES,
    MODEL_FORMAT,
    MODEL_FORMAT_VERSION,
    ModelSpecError,
    check_model_spec,
    model_spec,
    read_model,
)

__all__ = [
    "PPOConfig",
    "ActorCritic",
    "SingleAgentGame",
    "train",
    "TrainResult",
    "save_model",
    "load_model",
    "masked_logits",
    "set_torch_threads",
    "TORCH_DEFAULT_THREADS",
    "ModelSpecError",
    "NEG_LOGIT",
    "MODEL_FORMAT",
    "resolve_device",
]

#: value given to illegal actions' logits: exp(-1e8 - max) == 0 exactly in float32,
#: and 0 * -1e8 == 0 in the entropy (``finfo.min`` would overflow to -inf and give NaN)
NEG_LOGIT = -1e8


@dataclass
class PPOConfig:
    """Everything a run needs (saved with the model)."""

    #: game short name or env id (default: the catalog's first game)
    env: str = field(default_factory=default_game)
    core_kwargs: dict = field(default_factory=dict)  #: options for ``spec.make_core``
    seed: int = 0
    total_steps: int = 2_000_000  #: env steps (decisions) to train for
    max_seconds: float | None = None  #: wall-clock budget (stops early; LR anneals on it)
    num_envs: int = 1024  #: games stepped together by one numba call
    num_steps: int = 32  #: rollout length per env and iteration
    num_minibatches: int = 16  #: batch (num_envs * num_steps) split into this many
    update_epochs: int = 2  #: (16 x 2: many small steps per sample, little compute)
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    clip_vloss: bool = True
    norm_adv: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None  #: stop the epochs of an iteration past this KL
    hidden: tuple = (256, 256)  #: MLP layer sizes (actor and critic alike)
    activation: str = "tanh"  #: "tanh" or "relu"
    shared: bool = False  #: one trunk for actor and critic
    #: torch intra-op threads; 0: torch's own default (``OMP_NUM_THREADS``
    #: if set, else every core), see :data:`TORCH_DEFAULT_THREADS`
    torch_threads: int = 0
    #: torch threads of the update phase alone (0: ``torch_threads``); the
    #: env kernels do not run during the update, so its matrix products
    #: can take every core without competing with them
    update_threads: int = 0
    device: str = "cpu"  #: torch device of the network and the rollout storage
    #: what the kernels write: "float32", or "float16" (the compact observation,
    #: half the bytes per step; cast to float32 on the learner side)
    obs_dtype: str = "float32"
    #: threads of the env step (1-player games; ``Batch(num_threads=...)``:
    #: the rows split over them, bit-identical games)
    env_threads: int = 1

    @property
    def batch_size(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def minibatch_size(self) -> int:
        return max(1, self.batch_size // self.num_minibatches)


def resolve_device(name: str | None = "cpu") -> torch.device:
    """The torch device for ``name``: ``"cpu"`` (the default), ``"cuda"``,
    ``"cuda:N"``, or ``"auto"`` (CUDA when torch sees a GPU, else CPU).
    Asking for CUDA without one raises ``ValueError`` saying why."""
    name = (name or "cpu").strip().lower()
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(name)
    except (RuntimeError, ValueError):
        raise ValueError(f"--device {name!r}: use cpu, cuda, cuda:N or auto") from None
    if dev.type == "cpu":
        return dev
    if dev.type != "cuda":
        raise ValueError(f"--device {name!r}: use cpu, cuda, cuda:N or auto")
    if not torch.cuda.is_available():
        why = (
            "this torch is a CPU-only build"
            if torch.version.cuda is None
            else "torch sees no CUDA device"
        )
        raise ValueError(
            f"--device {name}: no CUDA device is available ({why}, torch "
            f"{torch.__version__}); use --device cpu (or auto)"
        )
    if dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(
            f"--device {name}: there are {torch.cuda.device_count()} CUDA "
            f"device(s), numbered from 0"
        )
    return dev


#: torch's intra-op thread count when this module was imported: the
#: ``OMP_NUM_THREADS`` environment variable if set, else every core. The
#: fast PPO's default (``PPOConfig.torch_threads=0``): measured on an idle
#: 2-core machine, two threads train 1.56-1.63x faster than one (Unbroken
#: 20.9k vs 12.8k steps/s, Dungeon Crawler 8 seats 13.1k vs 8.4k;
#: ``python -m dungeonrl.benchmarks.ppo_threads``,
#: ``benchmarks/results/ppo_threads.json``). On a machine busy with other
#: work they slow it down instead (every thread of a matrix product waits
#: for the slowest): pass 1, or set ``OMP_NUM_THREADS=1``, when several
#: trainings share the cores.
TORCH_DEFAULT_THREADS = torch.get_num_threads()


def set_torch_threads(n: int = 0) -> int:
    """Use ``n`` intra-op threads; 0 means 1: the SB3 path's and cloning's
    default (on a loaded 2-core machine SB3's own 64-sample minibatches ran
    497 vs 58 steps/s on one and two threads); the fast PPO passes
    :data:`TORCH_DEFAULT_THREADS` for 0. Returns the number set."""
    n = n or 1
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    return n


def _phase_start(threads: int) -> float:
    """Set the torch threads of the training phase about to start (see
    ``PPOConfig.update_threads``); returns its start time."""
    set_torch_threads(threads)
    return time.perf_counter()


def _phase_end(t_start: float, threads: int) -> float:
    """Set the torch threads back to ``threads``; returns the phase's seconds."""
    set_torch_threads(threads)
    return time.perf_counter() - t_start


# --- network -------------------------------------------------------------------------
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
assert tuple(ACTIVATIONS) == ACTIVATION_NAMES  # the names a saved model may use


def _layer(i: int, o: int, gain: float) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, gain)
    nn.init.constant_(lin.bias, 0.0)
    return lin


def mlp(sizes, activation: str, out: int | None = None, out_gain: float = 1.0) -> nn.Sequential:
    """Linear+activation layers over ``sizes`` (orthogonal init, gain sqrt 2),
    then an optional linear output layer with ``out_gain``."""
    act = ACTIVATIONS[activation]
    layers = []
    for i, o in zip(sizes[:-1], sizes[1:]):
        layers += [_layer(i, o, np.sqrt(2)), act()]
    if out is not None:
        layers.append(_layer(sizes[-1], out, out_gain))
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """MLP actor (logits over every action) and critic (state value).

    ``shared=False``: two MLPs ``obs -> hidden... -> logits`` and ``obs ->
    hidden... -> value`` (SB3's ``net_arch=dict(pi=hidden, vf=hidden)``);
    ``shared=True``: one trunk and two linear heads (half the compute).
    """

    def __init__(
        self,
        obs_size: int,
        num_actions: int,
        hidden=(256, 256),
        activation: str = "tanh",
        shared: bool = False,
    ):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {list(ACTIVATIONS)}, not {activation!r}")
        self.arch = {
            "obs_size": int(obs_size),
            "num_actions": int(num_actions),
            "hidden": tuple(int(h) for h in hidden),
            "activation": activation,
            "shared": bool(shared),
        }
        sizes = (obs_size, *hidden)
        self.shared = bool(shared)
        self.actor: nn.Module  # a linear head on the trunk, or a whole MLP
        self.critic: nn.Module
        if self.shared:
            self.trunk = mlp(sizes, activation)
            self.actor = _layer(sizes[-1], num_actions, 0.01)
            self.critic = _layer(sizes[-1], 1, 1.0)
        else:
            self.actor = mlp(sizes, activation, num_actions, 0.01)
            self.critic = mlp(sizes, activation, 1, 1.0)

    def forward(self, obs: torch.Tensor):
        """``(logits, value)`` of a batch of observations."""
        if self.shared:
            h = self.trunk(obs)
            return self.actor(h), self.critic(h).squeeze(-1)
        return self.actor(obs), self.critic(obs).squeeze(-1)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.actor(self.trunk(obs)) if self.shared else self.actor(obs)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return (self.critic(self.trunk(obs)) if self.shared else self.critic(obs)).squeeze(-1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions (``mask`` False) get :data:`NEG_LOGIT`."""
    return logits.masked_fill(~mask, NEG_LOGIT)


def sample_actions(logits: torch.Tensor, gen: torch.Generator | None = None):
    """Gumbel-max sample of masked logits; returns ``(action, log_prob)``."""
    u = torch.rand(logits.shape, generator=gen, device=logits.device).clamp_(min=1e-20)
    action = (logits - torch.log(-torch.log(u))).argmax(dim=1)
    logp = torch.log_softmax(logits, dim=1).gather(1, action.unsqueeze(1)).squeeze(1)
    return action, logp


# --- the game, as the trainer sees it ------------------------------------------------
class SingleAgentGame:
    """``num_envs`` games of a 1-player core on preallocated buffers, stepped
    by the fused ``step_autoreset`` kernel (same-step autoreset).

    Buffers the trainer reads/writes in place (numpy; wrap with
    ``torch.from_numpy`` for zero-copy views): ``obs`` ``(n, obs_size)``
    float32 (float16 with ``obs_dtype="float16"``), ``masks``
    ``(n, num_actions)`` int8, ``actions`` ``(n,)`` int64;
    after ``step()``: ``reward`` ``(n,)`` float32 (the acting seat's),
    ``terminated`` / ``truncated`` ``(n,)`` bool and, for rows that just
    ended, ``final_obs`` / ``final_states``.
    """

    def __init__(self, core, num_envs: int, obs_dtype: str = "float32", num_threads: int = 1):
        require_single_agent(core, type(self).__name__)
        self.core = core
        self.spec = core.spec
        self.num_envs = int(num_envs)
        self.buf = Batch(core, self.num_envs, obs_dtype, num_threads)
        b = self.buf
        self.obs, self.masks, self.actions = b.obs, b.masks, b.actions
        self.reward = b.rewards[:, 0]  # a view: seat 0 is the agent
        self.terminated, self.truncated = b.terminated, b.truncated
        self.final_obs, self.final_states = b.final_obs, b.final_states

    def reset(self, seeds: np.ndarray) -> None:
        self.buf.reset(seeds)

    def step(self) -> None:
        self.buf.fused_step()


# --- training ------------------------------------------------------------------------
@dataclass
class TrainResult:
    net: ActorCritic
    config: PPOConfig
    history: list  #: one metrics dict per iteration
    core: object
    global_step: int
    seconds: float
    interrupted: bool = False  #: stopped by Ctrl-C (KeyboardInterrupt); the net is usable


def _explained_variance(pred: np.ndarray, target: np.ndarray) -> float:
    var = np.var(target)
    return float("nan") if var == 0 else float(1.0 - np.var(target - pred) / var)


def train(
    cfg: PPOConfig,
    *,
    core=None,
    game=None,
    callback: Callable[[dict, ActorCritic], bool | None] | None = None,
    net: ActorCritic | None = None,
) -> TrainResult:
    """Train a masked PPO agent. ``core`` (or ``game``, any object with the
    :class:`SingleAgentGame` interface) defaults to ``cfg.env`` built with
    ``cfg.core_kwargs``. ``callback(metrics, net)`` runs after every
    iteration; returning ``True`` stops training. ``net`` continues training
    an existing network. ``cfg.device`` holds the network and the rollout
    storage (the game's buffers stay numpy on the CPU).

    Ctrl-C (``KeyboardInterrupt``) ends training cleanly: the result has
    ``interrupted=True``, the iterations completed so far in ``history``
    and the network as it is (a valid network: an interrupted update step
    leaves finite weights)."""
    threads = set_torch_threads(cfg.torch_threads or TORCH_DEFAULT_THREADS)
    device = resolve_device(cfg.device)
    torch.manual_seed(cfg.seed)
    gen = torch.Generator(device=device).manual_seed(cfg.seed)
    if game is None:
        core = core if core is not None else resolve_core(cfg.env, dict(cfg.core_kwargs))
        game = SingleAgentGame(core, cfg.num_envs, cfg.obs_dtype, cfg.env_threads)
    core = game.core
    spec = core.spec
    hooks = hooks_for(spec.name)
    N, T, obs_dim, A = game.num_envs, cfg.num_steps, spec.obs_size, spec.num_actions
    if net is None:
        net = ActorCritic(obs_dim, A, cfg.hidden, cfg.activation, cfg.shared)
    net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)

    # preallocated rollout storage (time-major: [step, env])
    obs = torch.zeros((T, N, obs_dim), device=device)
    masks = torch.zeros((T, N, A), dtype=torch.bool, device=device)
    actions = torch.zeros((T, N), dtype=torch.int64, device=device)
    logprobs = torch.zeros((T, N), device=device)
    rewards = torch.zeros((T, N), device=device)
    ends = torch.zeros((T, N), device=device)  # 1 = the episode ended on this transition
    values = torch.zeros((T, N), device=device)
    on_cpu = device.type == "cpu"

    # zero-copy views of the game's numpy buffers
    obs_now = torch.from_numpy(game.obs)
    mask_now = torch.from_numpy(game.masks)
    act_now = torch.from_numpy(game.actions)
    reward_now = torch.from_numpy(game.reward)

    game.reset(draw_seeds(np.random.default_rng(cfg.seed), N))
    ep_return = np.zeros(N, np.float64)
    ep_length = np.zeros(N, np.int64)
    batch, mb = N * T, max(1, (N * T) // cfg.num_minibatches)
    history: list[dict] = []
    global_step, iteration = 0, 0
    t_start = time.perf_counter()
    interrupted = False
    try:
        while global_step < cfg.total_steps:
            elapsed = time.perf_counter() - t_start
            if cfg.max_seconds is not None and elapsed >= cfg.max_seconds:
                break
            iteration += 1
            frac = global_step / cfg.total_steps
            if cfg.max_seconds:
                frac = max(frac, elapsed / cfg.max_seconds)
            lr = cfg.learning_rate * (1.0 - frac) if cfg.anneal_lr else cfg.learning_rate
            for g in optimizer.param_groups:
                g["lr"] = lr

            # ---- rollout ----
            t0 = time.perf_counter()
            ep_stats: dict[str, list] = {"return": [], "length": []}
            with torch.no_grad():
                for t in range(T):
                    obs[t].copy_(obs_now)
                    if on_cpu:
                        torch.ne(mask_now, 0, out=masks[t])
                    else:
                        masks[t].copy_(mask_now.ne(0))
                    logits, value = net(obs[t])
                    action, logp = sample_actions(masked_logits(logits, masks[t]), gen)
                    actions[t], logprobs[t], values[t] = action, logp, value
                    act_now.copy_(action)
                    game.step()  # one numba call, all envs
                    rewards[t].copy_(reward_now)
                    done = game.terminated | game.truncated
                    rows = np.flatnonzero(game.truncated & ~game.terminated)  # cut off
                    if len(rows):  # bootstrap them with the value of their last observation
                        fo = torch.from_numpy(game.final_obs[rows]).to(device, torch.float32)
                        rewards[t, torch.from_numpy(rows).to(device)] += cfg.gamma * net.value(fo)
                    ends[t].copy_(torch.from_numpy(done))
                    ep_return += game.reward
                    ep_length += 1
                    if done.any():
                        rows = np.flatnonzero(done)
                        st = hooks.episode_stats(core, game.final_states, rows, game.reward[rows])
                        for k, v in st.items():
                            ep_stats.setdefault(k, []).append(np.asarray(v, np.float64))
                        ep_stats["return"].append(ep_return[rows].copy())
                        ep_stats["length"].append(ep_length[rows].astype(np.float64))
                        ep_return[rows] = 0.0
                        ep_length[rows] = 0
                next_value = net.value(obs_now.to(device, torch.float32))
            global_step += batch
            t_rollout = time.perf_counter() - t0

            # ---- generalised advantage estimation (explicit loop) ----
            with torch.no_grad():
                advantages = torch.zeros_like(rewards)
                last = torch.zeros(N, device=device)
                for t in reversed(range(T)):
                    nxt = next_value if t == T - 1 else values[t + 1]
                    nonterminal = 1.0 - ends[t]
                    delta = rewards[t] + cfg.gamma * nxt * nonterminal - values[t]
                    last = delta + cfg.gamma * cfg.gae_lambda * nonterminal * last
                    advantages[t] = last
                returns = advantages + values

            # ---- update, under the masks stored at sampling time ----
            t1 = _phase_start(cfg.update_threads or threads)
            b_obs, b_masks = obs.reshape(batch, obs_dim), masks.reshape(batch, A)
            b_actions, b_logprobs = actions.reshape(batch), logprobs.reshape(batch)
            b_adv, b_ret, b_val = (
                advantages.reshape(batch),
                returns.reshape(batch),
                values.reshape(batch),
            )
            kls, clipfracs, pg_losses, v_losses, entropies = [], [], [], [], []
            stop = False
            for _epoch in range(cfg.update_epochs):
                perm = torch.randperm(batch, generator=gen, device=device)
                for start in range(0, batch, mb):
                    idx = perm[start : start + mb]
                    logits, newvalue = net(b_obs[idx])
                    logp_all = torch.log_softmax(masked_logits(logits, b_masks[idx]), dim=1)
                    newlogp = logp_all.gather(1, b_actions[idx].unsqueeze(1)).squeeze(1)
                    entropy = -(logp_all.exp() * logp_all).sum(1)  # masked actions add 0
                    logratio = newlogp - b_logprobs[idx]
                    ratio = logratio.exp()
                    with torch.no_grad():
                        kls.append(((ratio - 1) - logratio).mean().item())
                        clipfracs.append(
                            ((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item()
                        )
                    adv = b_adv[idx]
                    if cfg.norm_adv and len(idx) > 1:
                        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                    pg_loss = torch.max(
                        -adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
                    ).mean()
                    if cfg.clip_vloss:
                        v_clipped = b_val[idx] + (newvalue - b_val[idx]).clamp(
                            -cfg.clip_coef, cfg.clip_coef
                        )
                        v_loss = (
                            0.5
                            * torch.max(
                                (newvalue - b_ret[idx]) ** 2, (v_clipped - b_ret[idx]) ** 2
                            ).mean()
                        )
                    else:
                        v_loss = 0.5 * ((newvalue - b_ret[idx]) ** 2).mean()
                    ent = entropy.mean()
                    loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
                    optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                    optimizer.step()
                    pg_losses.append(pg_loss.item())
                    v_losses.append(v_loss.item())
                    entropies.append(ent.item())
                if cfg.target_kl is not None and np.mean(kls[-(batch // mb) :]) > cfg.target_kl:
                    stop = True
                    break
            t_update = _phase_end(t1, threads)

            # ---- diagnostics ----
            now = time.perf_counter() - t_start
            eps = {k: np.concatenate(v) if v else np.zeros(0) for k, v in ep_stats.items()}
            n_eps = len(eps["return"])
            m = {
                "iteration": iteration,
                "global_step": global_step,
                "time_s": now,
                "sps": global_step / now,
                "sps_iter": batch / (t_rollout + t_update),
                "rollout_s": t_rollout,
                "update_s": t_update,
                "lr": lr,
                "episodes": n_eps,
                "win_rate": float(eps["win"].mean()) if n_eps else float("nan"),
                "mean_return": float(eps["return"].mean()) if n_eps else float("nan"),
                "mean_length": float(eps["length"].mean()) if n_eps else float("nan"),
                "approx_kl": float(np.mean(kls)),
                "clipfrac": float(np.mean(clipfracs)),
                "entropy": float(np.mean(entropies)),
                "pg_loss": float(np.mean(pg_losses)),
                "v_loss": float(np.mean(v_losses)),
                "explained_variance": _explained_variance(b_val.cpu().numpy(), b_ret.cpu().numpy()),
                "early_stop": stop,
                "torch_threads": threads,
                "update_threads": cfg.update_threads or threads,
            }
            for k, v in eps.items():
                if k not in ("win", "return", "length") and n_eps:
                    m[f"mean_{k}"] = float(v.mean())
            history.append(m)
            if callback is not None and callback(m, net):
                break

    except KeyboardInterrupt:
        # the iterations in `history` are complete; a cut rollout or update is dropped
        interrupted = True
        global_step = history[-1]["global_step"] if history else 0
    return TrainResult(
        net=net,
        config=cfg,
        history=history,
        core=core,
        global_step=global_step,
        seconds=time.perf_counter() - t_start,
        interrupted=interrupted,
    )


# --- saving and loading --------------------------------------------------------------
def save_model(
    path,
    net: ActorCritic,
    core,
    *,
    config: PPOConfig | None = None,
    core_kwargs: dict | None = None,
    metrics: dict | None = None,
) -> str:
    """Write ``net`` and the model spec of ``core`` to ``path`` (``torch.save``
    of a plain dict; loadable with ``weights_only=True``)."""
    if core_kwargs is None:
        core_kwargs = dict(config.core_kwargs) if config is not None else {}
    payload = {
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "dungeonrl_version": __version__,
        "model_spec": model_spec(core.spec, core_kwargs),
        "arch": dict(net.arch),
        "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "config": _plain(asdict(config)) if config is not None else {},
        "metrics": _plain(metrics or {}),
    }
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    torch.save(payload, path)
    return str(path)


def _plain(x):
    """Only builtin containers and scalars (what ``weights_only`` loads)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (np.floating, np.integer, np.bool_)):
        return x.item()
    return x


def _check_weights(state_dict, net: ActorCritic, source: str) -> None:
    """Every tensor the architecture has, with its shape, floating point and
    finite; nothing else."""
    own = net.state_dict()
    if not all(isinstance(k, str) for k in state_dict):
        raise ModelSpecError(f"{source}: 'state_dict' keys must be strings")
    missing = [k for k in own if k not in state_dict]
    extra = [k for k in state_dict if k not in own]
    if missing or extra:
        raise ModelSpecError(
            f"{source}: weights do not fit the saved architecture (missing "
            f"{missing[:4]}, unexpected {extra[:4]})"
        )
    for k, ref in own.items():
        w = state_dict[k]
        if not isinstance(w, torch.Tensor) or not w.is_floating_point():
            raise ModelSpecError(
                f"{source}: weight {k!r} must be a floating-point tensor, got "
                f"{getattr(w, 'dtype', type(w).__name__)}"
            )
        if tuple(w.shape) != tuple(ref.shape):
            raise ModelSpecError(
                f"{source}: weight {k!r} has shape {tuple(w.shape)}, the saved "
                f"architecture needs {tuple(ref.shape)}"
            )
        bad = int((~torch.isfinite(w)).sum())
        if bad:
            raise ModelSpecError(f"{source}: weight {k!r} has {bad} NaN or infinite values")


def load_model(path, core=None, *, strict: bool = True):
    """Load a saved PPO model: returns ``(net, payload)``. With ``core``
    (or its spec), the model spec is checked first and a mismatch raises
    :class:`ModelSpecError` (``strict=False``: content/version changes only
    warn; layout changes always raise)."""
    payload = read_model(path)
    if core is not None:
        spec = getattr(core, "spec", core)
        check_model_spec(payload.get("model_spec"), spec, strict=strict, source=str(path))
    arch = payload["arch"]
    net = ActorCritic(
        arch["obs_size"],
        arch["num_actions"],
        tuple(arch["hidden"]),
        arch["activation"],
        arch["shared"],
    )
    _check_weights(payload["state_dict"], net, str(path))
    try:
        net.load_state_dict(payload["state_dict"])
    except RuntimeError as e:  # pragma: no cover - _check_weights saw keys and shapes
        raise ModelSpecError(f"{path}: weights do not fit the saved architecture: {e}") from e
    net.eval()
    return net, payload
