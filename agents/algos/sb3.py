"""The Stable-Baselines3 path: sb3-contrib ``MaskablePPO`` on the native
batched ``DungeonSB3VecEnv`` (no subprocesses).

What :func:`train_sb3` sets up:

* the training env: ``DungeonSB3VecEnv(game, num_envs, seed, **core_kwargs)``,
  one numba call per vector step; MaskablePPO reads the masks through
  ``env_method("action_masks")``;
* the network of the fast path (:func:`policy_kwargs`): separate actor and
  critic MLPs (``net_arch=dict(pi=hidden, vf=hidden)``) or, with
  ``shared=True``, one shared trunk (:class:`MLPTrunk` as the features
  extractor) and linear heads, same activation, orthogonal init;
* a ``MaskableEvalCallback`` on a separate eval env (masked deterministic
  play, best model kept), a ``CheckpointCallback``, TensorBoard logs when
  ``tensorboard`` is importable, and a progress bar: our tqdm bar with the
  live win rate and steps/s (``progress="tqdm"``), or SB3's own rich bar
  (``progress="rich"``; falls back to tqdm when rich is missing);
* a metrics history (one row per rollout, same keys as the fast path where
  they exist) for the CSV/JSON and the learning curve.

:func:`save_sb3` writes the usual SB3 zip and adds the dungeonrl model spec
inside it (``dungeonrl_model_spec.json``; SB3 ignores extra entries), so
``load_policy`` can refuse a model of another game or layout.
"""

from __future__ import annotations

import json
import os
import time
import warnings
import zipfile
from dataclasses import asdict, dataclass, field

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from ...envs.catalog import default_game
from ...envs.core.adapters import (
    vector,
)  # its DungeonSB3VecEnv is built on first use (it imports SB3)
from ...envs.core.hooks import hooks_for
from ..metrics import RecentRate
from ..modelspec import model_spec
from ..policy import SB3_META_NAME
from .ppo import ACTIVATIONS, mlp, resolve_device, set_torch_threads
from .selfplay import snapshot_agent

__all__ = [
    "SB3Config",
    "policy_kwargs",
    "MLPTrunk",
    "train_sb3",
    "save_sb3",
    "TrainProgress",
    "SnapshotCallback",
    "TimeBudget",
    "tensorboard_available",
]


@dataclass
class SB3Config:
    env: str = field(default_factory=default_game)
    core_kwargs: dict = field(default_factory=dict)
    seed: int = 0
    total_steps: int = 200_000
    num_envs: int = 64
    n_steps: int = 128  #: rollout length per env
    batch_size: int = 512  #: 16 minibatches of the 8,192-step rollout
    n_epochs: int = 2
    learning_rate: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple = (256, 256)
    activation: str = "tanh"
    shared: bool = False
    eval_every: int = 50_000  #: env steps between evaluations (0: none)
    eval_episodes: int = 100
    eval_envs: int = 16
    checkpoint_every: int = 100_000  #: env steps between checkpoints (0: none)
    tensorboard: bool = True  #: log to out/tb when tensorboard is installed
    progress: str | None = "tqdm"  #: "tqdm", "rich" or None
    torch_threads: int = 0
    device: str = "cpu"  #: torch device ("cpu", "cuda", "cuda:N", "auto")
    max_seconds: float | None = None  #: wall-clock budget of ``learn`` (stops early)


def tensorboard_available() -> bool:
    try:
        import tensorboard  # noqa: F401

        return True
    except ImportError:
        return False


def _rich_available() -> bool:
    try:
        import rich  # noqa: F401
        import tqdm  # noqa: F401

        return True
    except ImportError:
        return False


# --- the shared network ----------------------------------------------------------------
class MLPTrunk(BaseFeaturesExtractor):
    """Shared MLP trunk as an SB3 features extractor (``shared=True``)."""

    def __init__(self, observation_space, hidden=(256, 256), activation: str = "tanh"):
        super().__init__(observation_space, features_dim=int(hidden[-1]))
        self.net = mlp((int(observation_space.shape[0]), *hidden), activation)

    def forward(self, obs):
        return self.net(obs)


def policy_kwargs(hidden=(256, 256), activation: str = "tanh", shared: bool = False) -> dict:
    """``policy_kwargs`` for ``MaskablePPO("MlpPolicy", ...)`` that build the
    network of :class:`dungeonrl.agents.algos.ppo.ActorCritic`."""
    act = ACTIVATIONS[activation]
    if shared:
        return dict(
            features_extractor_class=MLPTrunk,
            features_extractor_kwargs=dict(hidden=tuple(hidden), activation=activation),
            share_features_extractor=True,
            net_arch=dict(pi=[], vf=[]),
            activation_fn=act,
            ortho_init=True,
        )
    return dict(net_arch=dict(pi=list(hidden), vf=list(hidden)), activation_fn=act, ortho_init=True)


# --- callbacks ----------------------------------------------------------------------------
class TrainProgress(BaseCallback):
    """Counts finished episodes (win, Level...) from the VecEnv infos, keeps
    one history row per rollout, and drives a tqdm bar with the live win
    rate and steps/s (``bar=False``: no bar)."""

    TRAIN_KEYS = {
        "train/approx_kl": "approx_kl",
        "train/clip_fraction": "clipfrac",
        "train/entropy_loss": "entropy_loss",
        "train/policy_gradient_loss": "pg_loss",
        "train/value_loss": "v_loss",
        "train/explained_variance": "explained_variance",
    }

    def __init__(self, total: int | None, bar: bool = True, desc: str = "MaskablePPO"):
        super().__init__()
        self.total = int(total) if total else None  # None: open-ended (a time budget)
        self.use_bar, self.desc = bool(bar), desc
        self.history: list = []
        self.recent = RecentRate(2000)
        self._reset_chunk()

    def _reset_chunk(self):
        self.c_eps, self.c_wins, self.c_ret, self.c_len, self.c_level, self.c_nlevel = (
            0,
            0,
            0.0,
            0.0,
            0.0,
            0,
        )

    def _on_training_start(self) -> None:
        self.t0 = time.perf_counter()
        self.start_steps = self.model.num_timesteps
        self.bar = None
        if self.use_bar:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=self.total, desc=self.desc, unit="step", unit_scale=True, dynamic_ncols=True
            )

    def _on_step(self) -> bool:
        dones = self.locals.get("dones")
        infos = self.locals.get("infos")
        if dones is not None and np.any(dones):
            assert infos is not None  # SB3's collect_rollouts passes both
            for i in np.flatnonzero(dones):
                info = infos[i]
                ep = info.get("episode", {})
                r = float(ep.get("r", 0.0))
                win = info["outcome"] == "win" if "outcome" in info else r > 0
                self.c_eps += 1
                self.c_wins += int(win)
                self.c_ret += r
                self.c_len += float(ep.get("l", 0))
                if "level" in info:
                    self.c_level += float(info["level"])
                    self.c_nlevel += 1
        if self.bar is not None:
            self.bar.update(self.training_env.num_envs)
        return True

    def _on_rollout_end(self) -> None:
        now = time.perf_counter() - self.t0
        steps = self.model.num_timesteps
        n = self.c_eps
        row = {
            "iteration": len(self.history) + 1,
            "global_step": steps,
            "time_s": now,
            "sps": (steps - self.start_steps) / max(now, 1e-9),
            "episodes": n,
            "win_rate": self.c_wins / n if n else float("nan"),
            "mean_return": self.c_ret / n if n else float("nan"),
            "mean_length": self.c_len / n if n else float("nan"),
        }
        if self.c_nlevel:
            row["mean_level"] = self.c_level / self.c_nlevel
        for k, v in self.model.logger.name_to_value.items():  # last update's diagnostics
            if k in self.TRAIN_KEYS:
                row[self.TRAIN_KEYS[k]] = float(v)
        self.history.append(row)
        self.recent.add(self.c_wins, n)
        self._reset_chunk()
        if self.bar is not None:
            post = {
                "win": f"{self.recent.rate:.1%}" if self.recent.n else "-",
                "sps": f"{row['sps']:,.0f}",
            }
            if "mean_level" in row:
                post["lvl"] = f"{row['mean_level']:.2f}"
            self.bar.set_postfix(post, refresh=False)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


class TimeBudget(BaseCallback):
    """Stops ``learn`` once ``seconds`` of wall-clock time have passed since
    training started (checked after every vector step)."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds = float(seconds)

    def _on_training_start(self) -> None:
        self.t0 = time.perf_counter()

    def _on_step(self) -> bool:
        return time.perf_counter() - self.t0 < self.seconds


# --- training and saving ----------------------------------------------------------------
class SnapshotCallback(BaseCallback):
    """Self-play: add a frozen copy of the policy to the view's pool at the
    start and after every ``every`` rollouts."""

    def __init__(self, view, every: int, seed: int = 0):
        super().__init__()
        self.view, self.every, self.seed, self.rollouts = view, int(every), int(seed), 0

    def _add(self):
        self.view.add_snapshot(
            snapshot_agent(
                self.model, self.seed + self.rollouts, f"self@{self.model.num_timesteps}"
            )
        )

    def _on_training_start(self) -> None:
        self._add()

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        if self.rollouts % self.every == 0:
            self._add()


def train_sb3(
    cfg: SB3Config,
    out_dir: str | None = None,
    *,
    verbose: int = 0,
    make_view=None,
    snapshot_every: int = 0,
    before_start=None,
    stop_on_interrupt: bool = False,
):
    """Train MaskablePPO; returns ``(model, history, core)``. With ``out_dir``:
    checkpoints under ``out_dir/checkpoints``, the eval callback's best model
    and ``evaluations.npz`` under ``out_dir/eval``, TensorBoard logs under
    ``out_dir/tb``. ``cfg.max_seconds`` stops training when the time is up;
    ``cfg.device`` places the network (``"cpu"`` by default).

    ``before_start()`` runs after the envs and the model are built, before
    anything is written (the CLI creates the run folder there, so a failed
    setup leaves nothing behind). ``stop_on_interrupt``: Ctrl-C
    (``KeyboardInterrupt``) during ``learn`` ends training cleanly and the
    model is returned with ``model.dungeonrl_interrupted = True`` (False
    otherwise); without it the interrupt propagates.

    Multi-seat games: ``make_view(n, seed, opponents=None)`` builds a
    self-play view (:func:`dungeonrl.agents.algos.selfplay.make_view`) that the
    VecEnv wraps; the evaluation env plays against the heuristic (random if
    the game has none) and ``snapshot_every`` > 0 feeds snapshots of the
    policy to the pool's ``self`` share."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.callbacks import CheckpointCallback, ProgressBarCallback

    DungeonSB3VecEnv = vector.DungeonSB3VecEnv  # built on first access (SB3 is imported)

    set_torch_threads(cfg.torch_threads)
    device = resolve_device(cfg.device)
    view = None
    if make_view is not None:
        view = make_view(cfg.num_envs, cfg.seed)
        venv = DungeonSB3VecEnv(view, seed=cfg.seed)
    else:
        venv = DungeonSB3VecEnv(cfg.env, num_envs=cfg.num_envs, seed=cfg.seed, **cfg.core_kwargs)
    core = venv.core
    tb = None
    if out_dir is not None and cfg.tensorboard and tensorboard_available():
        tb = os.path.join(out_dir, "tb")
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        policy_kwargs=policy_kwargs(cfg.hidden, cfg.activation, cfg.shared),
        tensorboard_log=tb,
        seed=cfg.seed,
        device=device,
        verbose=verbose,
    )

    rich_bar = cfg.progress == "rich" and _rich_available()
    open_ended = cfg.max_seconds is not None and cfg.total_steps >= 10**12
    progress = TrainProgress(
        None if open_ended else cfg.total_steps,
        bar=cfg.progress is not None and not rich_bar,
        desc=f"MaskablePPO {core.spec.name}",
    )
    callbacks: list[BaseCallback] = [progress]
    if cfg.max_seconds is not None:
        callbacks.append(TimeBudget(cfg.max_seconds))
    if view is not None and snapshot_every and view.snapshot_weight > 0:
        callbacks.append(SnapshotCallback(view, snapshot_every, cfg.seed))
    if rich_bar:
        callbacks.append(ProgressBarCallback())
    if before_start is not None:
        before_start()
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        if cfg.checkpoint_every:
            callbacks.append(
                CheckpointCallback(
                    save_freq=max(1, cfg.checkpoint_every // cfg.num_envs),
                    save_path=os.path.join(out_dir, "checkpoints"),
                    name_prefix="model",
                )
            )
        if cfg.eval_every:
            if make_view is not None:
                opp = "heuristic" if hooks_for(core.spec.name).heuristic else "random"
                eval_env = DungeonSB3VecEnv(
                    make_view(cfg.eval_envs, cfg.seed + 1_000_003, opp), seed=cfg.seed + 1_000_003
                )
            else:
                eval_env = DungeonSB3VecEnv(
                    cfg.env, num_envs=cfg.eval_envs, seed=cfg.seed + 1_000_003, **cfg.core_kwargs
                )
            callbacks.append(
                MaskableEvalCallback(
                    eval_env,
                    n_eval_episodes=cfg.eval_episodes,
                    eval_freq=max(1, cfg.eval_every // cfg.num_envs),
                    best_model_save_path=os.path.join(out_dir, "eval"),
                    log_path=os.path.join(out_dir, "eval"),
                    deterministic=True,
                    verbose=0,
                    warn=False,
                )
            )
    # our documented flag on the model (train.py reads it); MaskablePPO declares no such field
    model.dungeonrl_interrupted = False  # type: ignore[attr-defined]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Monitor wrapper.*")
        try:
            model.learn(cfg.total_steps, callback=callbacks, tb_log_name="maskable_ppo")
        except KeyboardInterrupt:
            if not stop_on_interrupt:
                raise
            model.dungeonrl_interrupted = True  # type: ignore[attr-defined]
            progress._on_training_end()  # close the bar
            try:
                model.logger.close()  # flush the TensorBoard events
            except Exception:  # pragma: no cover - logger not set up
                pass
    return model, progress.history, core


def save_sb3(model, path: str, core, core_kwargs: dict | None = None) -> str:
    """``model.save(path)`` plus the dungeonrl model spec inside the zip."""
    if not str(path).endswith(".zip"):
        path = f"{path}.zip"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    model.save(path)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr(SB3_META_NAME, json.dumps(model_spec(core.spec, core_kwargs)))
    return path


def config_dict(cfg: SB3Config) -> dict:
    d = asdict(cfg)
    d["hidden"] = list(cfg.hidden)
    return d
