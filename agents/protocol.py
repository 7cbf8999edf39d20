"""The public agent protocol: your own agent anywhere an agent is accepted.

An agent is any object with

``act(obs, mask) -> actions``
    ``obs``: float32 array ``(B, obs_size)``, one row per game waiting on
    the agent, each seen from the seat to act (the game's documented
    observation); ``mask``: bool array ``(B, num_actions)``, its legal
    actions. Returns ``B`` integer actions (a list or array), one legal
    index per row. ``B`` varies from call to call.
``reset(rows)`` (optional)
    Called with the row indices (as passed to ``act`` batches, an int64
    array) whose games have just started, before the first ``act`` that
    includes them: clear per-game memory there.
``name`` (optional)
    The label tables and replays show.

:func:`~dungeonrl.agents.policy.as_agent` turns any of these into the batched form the evaluator,
the self-play pools, ``record`` and ``play`` drive:

==========================  ================================================
given                       becomes
==========================  ================================================
an object with ``act``      :class:`ProtocolAgent` (the protocol above)
a torch ``nn.Module``       :class:`TorchModuleAgent`: ``module(obs)`` gives
                            logits ``(B, num_actions)`` (or a tuple whose
                            first item is); greedy over the legal ones
a plain callable            :class:`ProtocolAgent` over ``fn(obs, mask)``
an SB3 model (``predict``)  the SB3 agent (``predict(obs, action_masks=)``)
a string                    :func:`~dungeonrl.agents.policy.make_agent`:
                            ``random``, ``heuristic``, ``pretrained:NAME``,
                            ``search[:PRIOR][?key=value&...]`` (tree
                            search, :mod:`~dungeonrl.agents.algos.search`),
                            ``module:attribute``, a model file (``.pt``,
                            SB3 ``.zip``) or an RLlib checkpoint folder
==========================  ================================================

``module:attribute`` (``--agent mypkg.bots:Greedy`` on the command line)
imports ``module`` and takes ``attribute`` (dots walk into it); a class is
instantiated with no arguments, anything else is used as given. A module
that is not installed is looked up in the current working folder too
(``mybots.py`` or a ``mybots/`` package there), from the ``dungeonrl``
command as from ``python -m dungeonrl``; that folder is on ``sys.path``
only while the module is imported.

What an agent returns is checked: a wrong count, a non-integer or an index
outside ``0..num_actions-1`` raises :class:`AgentError` naming the agent.
An in-range action that is not legal is played like any illegal action of
the game (the env's illegal-action rule applies).

Example (a complete agent; ``dungeonrl eval dungeon_crawler --agent
mybots:first_legal``)::

    import numpy as np

    def first_legal(obs, mask):
        return mask.argmax(axis=1)
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys

import numpy as np

from ..envs.core.errors import DungeonRLError

__all__ = [
    "AgentError",
    "ProtocolAgent",
    "TorchModuleAgent",
    "is_torch_module",
    "pick_actions",
    "is_sb3_model",
    "import_agent",
    "is_import_ref",
]

#: ``module:attribute`` (dotted both sides)
_IMPORT_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class AgentError(DungeonRLError, ValueError):
    """An agent that cannot be built or returned unusable actions."""


def is_import_ref(name) -> bool:
    """Whether ``name`` reads as ``module:attribute``."""
    return isinstance(name, str) and bool(_IMPORT_REF.match(name))


def import_agent(ref: str):
    """The object ``module:attribute`` names (a class is instantiated with no
    arguments). Raises :class:`AgentError` naming what could not be found."""
    if not is_import_ref(ref):
        raise AgentError(f"agent {ref!r}: expected module:attribute (e.g. mypkg.bots:Greedy)")
    mod_name, _, attr = ref.partition(":")
    try:
        obj = _import_user_module(mod_name)
    except ImportError as e:
        raise AgentError(
            f"agent {ref!r}: cannot import module {mod_name!r} from the installed "
            f"packages or the current folder {os.getcwd()} ({e})"
        ) from e
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentError(f"agent {ref!r}: module {mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if inspect.isclass(obj):
        try:
            obj = obj()
        except TypeError as e:
            raise AgentError(
                f"agent {ref!r}: the class must be constructible with no arguments ({e})"
            ) from e
    return obj


def _import_user_module(mod_name: str):
    """``importlib.import_module(mod_name)``; a top-level module that is not
    importable as it is, is looked up in the current working folder too (as
    ``python -m`` and ``python script.py`` users expect, while the
    installed ``dungeonrl`` command does not put that folder on
    ``sys.path``). The folder is on ``sys.path`` only while that import
    runs (so the module's own imports of its neighbours work), then taken
    off again: later imports of the process are not redirected to it."""
    top = mod_name.partition(".")[0]
    try:
        return importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name != top:  # the module exists; something it imports is missing
            raise
        missing = e
    here = os.getcwd()
    if any(os.path.abspath(p or ".") == here for p in sys.path):
        raise missing  # the folder was searched already
    sys.path.insert(0, here)
    try:
        importlib.invalidate_caches()  # a file written since the last lookup
        return importlib.import_module(mod_name)
    finally:
        try:
            sys.path.remove(here)
        except ValueError:  # pragma: no cover - the module removed it itself
            pass


class _RowsMixin:
    """Batched-form plumbing shared by the adapters: rows -> the protocol's
    arrays, the per-game ``reset`` and the check of what comes back."""

    whole_game = None  # never replaced by a numba fast path
    _reset = None

    def _setup(self, name: str) -> None:
        self.name = name
        self._ids: np.ndarray = np.zeros((0, 2), np.int64)

    def _new_games(self, buf, rows: np.ndarray) -> None:
        if self._reset is None:
            return
        states = buf.states
        if len(self._ids) < len(states):
            grown = np.full((len(states), 2), -1, np.int64)
            grown[: len(self._ids)] = self._ids
            self._ids = grown
        ids = np.stack(
            [states["seed"][rows].astype(np.int64), states["episode"][rows].astype(np.int64)],
            axis=1,
        )
        fresh = (self._ids[rows] != ids).any(axis=1)
        if fresh.any():
            self._ids[rows[fresh]] = ids[fresh]
            self._reset(np.asarray(rows[fresh], np.int64))

    def _check(self, actions, n: int, num_actions: int) -> np.ndarray:
        try:
            a = np.asarray(actions)
        except Exception as e:  # pragma: no cover - exotic return types
            raise AgentError(f"agent {self.name!r} returned {type(actions).__name__}") from e
        a = a.reshape(-1) if a.ndim > 1 and a.size == n else a
        if a.shape != (n,):
            raise AgentError(f"agent {self.name!r} returned {a.shape} actions for {n} observations")
        if a.dtype.kind not in "iub":
            if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
                a = a.astype(np.int64)
            else:
                raise AgentError(f"agent {self.name!r} returned non-integer actions ({a.dtype})")
        a = a.astype(np.int64)
        if n and (a.min() < 0 or a.max() >= num_actions):
            bad = int(a[(a < 0) | (a >= num_actions)][0])
            raise AgentError(
                f"agent {self.name!r} returned action {bad}, outside 0..{num_actions - 1}"
            )
        return a


class ProtocolAgent(_RowsMixin):
    """An object with ``act(obs, mask)`` (or a plain callable) in the batched
    form ``act(buf, rows)`` (see the module doc)."""

    def __init__(self, policy, name: str | None = None):
        fn = getattr(policy, "act", None)
        if fn is None:
            if not callable(policy):
                raise AgentError(
                    f"{type(policy).__name__} is not an agent: give an object with "
                    "act(obs, mask), a callable, a torch module or an SB3 model"
                )
            fn = policy
        self.policy = policy
        self._act = fn
        self._reset = getattr(policy, "reset", None) if fn is not policy else None
        if self._reset is not None and not callable(self._reset):
            self._reset = None
        default = getattr(policy, "name", None) or getattr(
            policy, "__name__", type(policy).__name__
        )
        self._setup(str(name or default))

    def act(self, buf, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, np.int64)
        self._new_games(buf, rows)
        obs = buf.obs[rows]
        mask = buf.masks[rows] != 0
        return self._check(self._act(obs, mask), len(rows), mask.shape[1])


class TorchModuleAgent(_RowsMixin):
    """A torch module whose forward maps observations ``(B, obs_size)`` to
    logits ``(B, num_actions)`` (or a tuple, logits first): the most
    probable legal action (``deterministic``) or a sample."""

    def __init__(
        self, module, *, deterministic: bool = True, seed: int = 0, name: str | None = None
    ):
        import torch

        self.torch = torch
        self.module = module.eval()
        self.deterministic = bool(deterministic)
        self.gen = torch.Generator().manual_seed(int(seed))
        self._reset = getattr(module, "reset", None)
        self._setup(str(name or type(module).__name__))

    def act(self, buf, rows: np.ndarray) -> np.ndarray:
        torch = self.torch
        rows = np.asarray(rows, np.int64)
        self._new_games(buf, rows)
        mask = torch.from_numpy(buf.masks[rows] != 0)
        with torch.no_grad():
            out = self.module(torch.from_numpy(np.ascontiguousarray(buf.obs[rows])))
            logits = out[0] if isinstance(out, (tuple, list)) else out
            if tuple(logits.shape) != tuple(mask.shape):
                raise AgentError(
                    f"agent {self.name!r}: the module gave logits of shape "
                    f"{tuple(logits.shape)}, expected {tuple(mask.shape)}"
                )
            return pick_actions(logits.float(), mask, self.deterministic, self.gen)


def pick_actions(logits, legal, deterministic: bool, gen) -> np.ndarray:
    """Torch ``logits`` ``(B, A)`` restricted to the ``legal`` (bool tensor)
    actions: the most probable one, or one sampled with generator ``gen``."""
    import torch

    logits = logits.masked_fill(~legal, float("-inf"))
    if deterministic:
        a = logits.argmax(dim=1)
    else:
        a = torch.multinomial(torch.softmax(logits, dim=1), 1, generator=gen)[:, 0]
    return a.numpy().astype(np.int64)


def is_torch_module(obj) -> bool:
    """A torch ``nn.Module`` (without importing torch when it is not loaded)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.nn.Module)


def is_sb3_model(obj) -> bool:
    """Duck-typed Stable-Baselines3 model: ``predict`` and ``policy``."""
    return callable(getattr(obj, "predict", None)) and hasattr(obj, "policy")
