"""Agents for evaluation and play, and ``load_policy`` for saved models.

Every agent is *batched*: ``agent.act(buf, rows) -> actions`` returns one
int64 action for each row index in ``rows`` of a
:class:`~dungeonrl.envs.core.batch.Batch` (observations, masks and
game records of all rows are in ``buf``). The evaluator calls it once per
step for every unfinished game, so a network sees one big batch.

=====================  ==================================================
agent                  what it is
=====================  ==================================================
:class:`RandomAgent`   uniform random legal action (numpy generator)
heuristic              the game's scripted player (``games.hooks_for``)
:class:`TorchAgent`    a fast-path PPO network (``agents/algos/ppo.py``, ``.pt``)
:class:`SB3Agent`      a MaskablePPO model (``.zip``)
=====================  ==================================================

:func:`make_agent` builds any of them from a name (``"random"``,
``"heuristic"``) or a saved model path; :func:`load_policy` turns a saved
model into the single-game callable ``policy(states, mask) -> action`` that
``dungeonrl play unbroken --agent PATH`` uses. Loading a model whose spec
does not match the game raises :class:`~dungeonrl.agents.modelspec.ModelSpecError`.
"""

from __future__ import annotations

import os

import numpy as np

from ..envs.core.batch import Batch
from ..envs.core.hooks import hooks_for
from .algos.search import is_search_ref, make_search_agent, prior_name
from .modelspec import (
    RLLIB_DEFAULT_MODULE,
    SB3_META_NAME,
    ModelSpecError,
    check_model_spec,
    load_sb3_model,
    model_kind,
    read_checkpoint_spec,
    read_model,
    read_sb3_spec,
)
from .pretrained import is_pretrained_ref
from .pretrained import model_path as pretrained_path
from .protocol import (
    AgentError,
    ProtocolAgent,
    TorchModuleAgent,
    import_agent,
    is_import_ref,
    is_sb3_model,
    is_torch_module,
    pick_actions,
)

__all__ = [
    "RandomAgent",
    "TorchAgent",
    "SB3Agent",
    "RLlibAgent",
    "make_agent",
    "as_agent",
    "model_file",
    "load_policy",
    "model_kind",
    "model_core_kwargs",
    "SB3_META_NAME",
]

#: name of the model-spec entry dungeonrl adds inside SB3 zip files


class RandomAgent:
    """Uniformly random legal action (masked), from a seeded numpy generator."""

    name = "random"
    whole_game = "random"  # the numba fast path of evaluate() may replace it
    scripted = 0  # self-play view / matches: played inside numba (code 0)

    def __init__(self, core=None, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def act(self, buf, rows: np.ndarray) -> np.ndarray:
        masks = buf.masks[rows]
        u = self.rng.random(masks.shape)
        u[masks == 0] = -1.0
        return u.argmax(axis=1).astype(np.int64)


class TorchAgent:
    """A fast-path PPO :class:`~dungeonrl.agents.algos.ppo.ActorCritic`: greedy
    (``deterministic=True``: the most probable legal action) or sampled."""

    whole_game = None

    def __init__(self, net, deterministic: bool = True, seed: int = 0, name: str = "ppo"):
        import torch

        self.torch = torch
        self.net = net.eval()
        self.deterministic = bool(deterministic)
        self.gen = torch.Generator().manual_seed(seed)
        self.name = name

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["torch"]  # a module: imported again on load
        return state

    def __setstate__(self, state: dict) -> None:
        import torch

        self.__dict__.update(state)
        self.torch = torch

    def act(self, buf, rows: np.ndarray) -> np.ndarray:
        from .algos.ppo import masked_logits, sample_actions

        torch = self.torch
        with torch.no_grad():
            obs = torch.from_numpy(buf.obs[rows])
            mask = torch.from_numpy(buf.masks[rows] != 0)
            logits = masked_logits(self.net.logits(obs), mask)
            if self.deterministic:
                a = logits.argmax(dim=1)
            else:
                a, _ = sample_actions(logits, self.gen)
        return a.numpy().astype(np.int64)


class SB3Agent:
    """A MaskablePPO model, acting through ``predict(obs, action_masks=...)``."""

    whole_game = None

    def __init__(self, model, deterministic: bool = True, name: str = "sb3"):
        self.model = model
        self.deterministic = bool(deterministic)
        self.name = name

    def act(self, buf, rows: np.ndarray) -> np.ndarray:
        obs = buf.obs[rows]
        masks = buf.masks[rows] != 0
        a, _ = self.model.predict(obs, action_masks=masks, deterministic=self.deterministic)
        return np.asarray(a, np.int64).reshape(len(rows))


class RLlibAgent:
    """An RLlib checkpoint's RLModule as a batched agent (``act(buf, rows)``,
    see above): greedy over the masked logits, or sampled. Loading
    needs Ray RLlib (no cluster)."""

    whole_game = None

    def __init__(
        self, path, core, *, deterministic: bool = True, seed: int = 0, strict: bool = True
    ):
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        saved = read_checkpoint_spec(path)
        check_model_spec(saved, core.spec, strict=strict, source=os.fspath(path))
        module_id = saved.get("module_id", RLLIB_DEFAULT_MODULE)
        mdir = os.path.join(os.fspath(path), "learner_group", "learner", "rl_module", module_id)
        if not os.path.isdir(mdir):
            raise ModelSpecError(f"{path}: no RLModule {module_id!r} in the checkpoint")
        self.torch = torch
        self.module = RLModule.from_checkpoint(mdir)
        self.module.eval()
        self.deterministic = bool(deterministic)
        self.gen = torch.Generator().manual_seed(seed)
        self.name = f"rllib:{os.path.basename(os.path.normpath(path))}"
        if os.path.basename(os.path.normpath(path)) == "checkpoint":
            self.name = f"rllib:{os.path.basename(os.path.dirname(os.path.normpath(path)))}"

    def act(self, buf, rows: np.ndarray) -> np.ndarray:
        torch = self.torch
        with torch.no_grad():
            obs = torch.from_numpy(np.ascontiguousarray(buf.obs[rows]))
            mask = torch.from_numpy(buf.masks[rows].astype(np.float32))
            out = self.module.forward_inference({"obs": {"observations": obs, "action_mask": mask}})
            logits = out["action_dist_inputs"]
            return pick_actions(logits, mask != 0, self.deterministic, self.gen)


# --- saved models ----------------------------------------------------------------------
def sb3_model_spec(path) -> dict:
    """The model spec dungeonrl stored inside an SB3 zip (a missing or garbled
    one raises :class:`ModelSpecError`, see ``modelspec.read_sb3_spec``)."""
    return read_sb3_spec(path)


def model_core_kwargs(path) -> dict:
    """The core options a saved model was trained with (``{}`` if unknown;
    ``pretrained:NAME`` reads the shipped file)."""
    path = model_file(path)
    if path is None:
        return {}
    kind = model_kind(path)
    if kind == "sb3":
        meta = sb3_model_spec(path) or {}
    elif kind == "rllib":
        meta = read_checkpoint_spec(path)
    else:
        meta = read_model(path).get("model_spec", {})
    return dict(meta.get("core_kwargs", {}))


def _load_sb3(path, core, strict: bool):
    return load_sb3_model(path, core.spec, strict=strict)


def make_agent(name, core, *, seed: int = 0, deterministic: bool = True, strict: bool = True):
    """An agent for ``core`` from a name: ``"random"``, ``"heuristic"``,
    ``"pretrained:NAME"`` (a shipped reference agent, see
    :mod:`.pretrained`), ``"search[:PRIOR][?key=value&...]"`` (tree search
    over determinizations, see :mod:`.algos.search`), ``"module:attribute"`` (your own agent, see
    :mod:`.protocol`) or a saved model path (``.pt``, SB3 ``.zip``, RLlib
    checkpoint). Any other object goes through :func:`as_agent`."""
    if not isinstance(name, (str, os.PathLike)):
        return as_agent(name, core, seed=seed, deterministic=deterministic)
    if is_search_ref(
        name
    ):  # search[:PRIOR][?key=value&...]: the search agent (agents/algos/search.py)
        return make_search_agent(name, core, seed=seed, strict=strict, resolve=make_agent)
    if name == "random":
        return RandomAgent(core, seed)
    if name == "heuristic":
        factory = hooks_for(core.spec.name).heuristic
        if factory is None:
            raise ValueError(f"{core.spec.name} has no scripted heuristic")
        return factory(core)
    if is_pretrained_ref(name):
        path = pretrained_path(name)
        label = str(name)
    else:
        path = os.fspath(name)
        label = os.path.basename(path)
        if not os.path.exists(path):
            if is_import_ref(path):
                return as_agent(
                    import_agent(path), core, seed=seed, deterministic=deterministic, name=path
                )
            raise FileNotFoundError(
                f"unknown agent {name!r}: use random, heuristic, pretrained:NAME, "
                "search[:PRIOR][?key=value&...], module:attribute or a model file"
            )
    if model_kind(path) == "rllib":
        return RLlibAgent(path, core, deterministic=deterministic, seed=seed, strict=strict)
    if model_kind(path) == "sb3":
        return SB3Agent(_load_sb3(path, core, strict), deterministic, name=label)
    from .algos.ppo import load_model

    net, _ = load_model(path, core, strict=strict)
    return TorchAgent(net, deterministic, seed, name=label)


def model_file(name) -> str | None:
    """The saved-model file an agent name stands for (a path, or the file
    of ``pretrained:NAME``); ``None`` for ``random``, ``heuristic`` and
    ``module:attribute`` agents, which carry no model spec; a search
    agent's prior network (see :mod:`.algos.search`)."""
    if not isinstance(name, (str, os.PathLike)) or name in ("random", "heuristic"):
        return None
    if is_search_ref(name):  # a search stands for its prior network (None without one)
        prior = prior_name(name)
        return None if prior is None else model_file(prior)
    if is_pretrained_ref(name):
        return pretrained_path(name)
    path = os.fspath(name)
    if not os.path.exists(path) and is_import_ref(path):
        return None
    return path


def as_agent(obj, core=None, *, seed: int = 0, deterministic: bool = True, name=None):
    """Any agent in the batched form ``act(buf, rows)`` the package drives:
    a name (see :func:`make_agent`; needs ``core``), a batched agent of this
    package (returned as is), a fast-path network, a torch module, an SB3
    model, an object with ``act(obs, mask)`` or a callable ``fn(obs, mask)``
    (see :mod:`.protocol`)."""
    if isinstance(obj, (str, os.PathLike)):
        if core is None:
            raise AgentError(f"agent {obj!r}: a name needs the game's core to build")
        return make_agent(obj, core, seed=seed, deterministic=deterministic)
    if hasattr(obj, "whole_game") and callable(getattr(obj, "act", None)):
        return obj  # already batched (random, heuristic, the model agents)
    if is_torch_module(obj) and not callable(getattr(obj, "act", None)):
        if callable(getattr(obj, "logits", None)) and hasattr(obj, "arch"):
            return TorchAgent(obj, deterministic, seed, name=name or "ppo")
        return TorchModuleAgent(obj, deterministic=deterministic, seed=seed, name=name)
    if is_sb3_model(obj):
        if core is not None:
            _check_sb3_spaces(obj, core)
        return SB3Agent(obj, deterministic, name=name or type(obj).__name__)
    return ProtocolAgent(obj, name=name)


def _check_sb3_spaces(model, core) -> None:
    spec = core.spec
    obs = getattr(model, "observation_space", None)
    act = getattr(model, "action_space", None)
    if obs is not None and tuple(getattr(obs, "shape", ()) or ()) != (spec.obs_size,):
        raise AgentError(
            f"SB3 model: observation shape {obs.shape} does not match {spec.name}'s "
            f"({spec.obs_size},)"
        )
    if act is not None and getattr(act, "n", spec.num_actions) != spec.num_actions:
        raise AgentError(f"SB3 model: {act.n} actions, {spec.name} has {spec.num_actions}")


def load_policy(path, core, *, deterministic: bool = True, strict: bool = True):
    """A saved model (fast-path ``.pt`` or SB3 ``.zip``) as a single-game
    policy: ``policy(states, mask) -> int``, where ``states`` is a record
    array of length 1 and ``mask`` its legal actions (1 = legal); the model
    sees the game from the seat to act. Raises
    :class:`ModelSpecError` if the model was trained on another game,
    layout or content (``strict=False``: content changes only warn)."""
    agent = make_agent(path, core, deterministic=deterministic, strict=strict)
    return _SavedModelPolicy(agent, core)


class _SavedModelPolicy:
    """What :func:`load_policy` returns: ``policy(states, mask) -> int``,
    with the batched agent it wraps as ``policy.agent``."""

    def __init__(self, agent, core):
        self.agent = agent
        self._core = core
        self._buf = Batch(core, 1)
        self._rows = np.zeros(1, np.int64)

    def __call__(self, states, mask) -> int:
        buf, core = self._buf, self._core
        buf.states[:1] = states[:1]
        buf.players[0] = max(0, int(core.to_play(buf.states[:1])[0]))  # the seat to act
        core.observe(buf.states, buf.players, buf.obs)
        buf.masks[0] = np.asarray(mask).reshape(-1) != 0
        return int(self.agent.act(buf, self._rows)[0])
