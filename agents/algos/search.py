"""A search agent: information-set Monte Carlo tree search over determinizations.

One agent string names it wherever an agent name is accepted (``dungeonrl
eval``, ``league``, ``exploit``, ``play``, ``serve``, ``--opponents`` and
``--partners`` pools, :func:`~dungeonrl.agents.policy.make_agent`)::

    search[:PRIOR][?key=value&key=value...]

    search                                  uniform prior, heuristic rollouts
    search?sims=200                         the same, 200 simulations a decision
    search:pretrained:unbroken-normal?sims=400&rollout=heuristic&c=1.5
    search:runs/dc-2p/model.pt?ms=250&opp=heuristic

``PRIOR`` (optional) is a fast-path policy network, ``pretrained:NAME`` or a
``.pt`` model file (loaded with its model-spec check): its masked softmax is
the prior of every node, its greedy policy models the other seats by
default, and ``rollout=value`` uses its value head. Without it the prior
gives half its mass to the action the game's scripted heuristic would
play there and spreads the rest evenly over the other legal actions (a
heuristic prior, so that a small budget starts from the heuristic's
choice and moves off it only on evidence); uniform in a game with no
scripted policy. The keys (each at most once):

============  ==========================================================
key           meaning (default)
============  ==========================================================
``sims``      simulations per decision, an integer >= 1 (200; with
              ``ms`` alone: no cap)
``ms``        time per decision in milliseconds, a number > 0 (none);
              with ``sims`` too, whichever ends first. At least one
              simulation always runs. A time budget depends on the
              machine, so only a ``sims`` budget is reproducible
``c``         PUCT exploration constant, a number > 0 (1.5)
``rollout``   leaf evaluation: ``heuristic`` (the game's scripted policy
              for every seat), ``random`` (uniform legal play) or
              ``value`` (the prior network's value head; needs a PRIOR)
              (``heuristic`` where the game has a scripted policy, else
              ``random``)
``rollouts``  rollouts per leaf, an integer >= 1, played in one compiled
              call (8)
``opp``       the agent that plays every other seat (rivals and a co-op
              partner) inside the simulations: ``prior`` (the PRIOR's
              greedy policy, or the rollout policy without one),
              ``heuristic``, ``random`` or any agent name but a search
              (``prior``)
``oppmode``   how a network ``opp`` picks its action: ``greedy`` (its
              most probable legal action) or ``sample`` (a draw from its
              masked softmax, made with the decision's generator: the
              policy a stochastic evaluation of that network plays, so
              a search against it models it exactly) (``greedy``;
              ``sample`` needs a network ``opp``)
============  ==========================================================

A bad string raises :class:`SearchError` (a ``ValueError``) naming the key
or value and listing the accepted ones. ``make_agent(..., deterministic=)``
does not apply: the search's randomness comes from the agent's ``seed``.

Algorithm
---------
Single-observer information-set MCTS (Cowling, Powley and Whitehouse,
"Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012) with
AlphaZero's PUCT selection (Silver et al. 2018). Every simulation starts
from a fresh *determinization* of the decision: a copy of the game in which
everything the searching seat cannot see (hidden cards, deck orders, the
future chance) is redrawn consistently with what it sees
(``core.resample_from_infostate``). One tree is shared by all simulations;
its nodes are the searching seat's information sets, keyed by the path of
its own actions and, after each, the observation and legal mask it gets
at its next decision (a closed loop: different draws, different nodes).
The other seats are not searched: they are played by the ``opp`` agent
between the searcher's decisions, so the search answers "what is my best
move against this model of the others" (with the frozen target as ``opp``
it is an approximate best response, the search half of approximate
exploitability). Each node belongs to the seat acting there (always the
searching seat here) and backs up that seat's return: the game's per-seat
rewards summed from the decision to the end (tree steps, the other seats'
steps and the rollout).

Why IS-MCTS rather than perfect-information Monte Carlo (PIMC: search
every determinization on its own, then vote): PIMC suffers *strategy
fusion* (each determinization's search assumes it may act differently in
worlds the seat cannot tell apart) and spends its budget on many small,
shallow searches; IS-MCTS keeps one set of statistics per information set
shared across determinizations, so its choice is one the seat can actually
play, and every simulation deepens the same tree (Cowling et al. show it
matching or beating PIMC at equal budgets on card games with hidden
information). Its known weakness (it does not model what the others know
about the searcher) matters little against a fixed ``opp`` model.

Selection at a node, among the actions legal in *this* determinization
(an action may be legal in some determinizations only): the PUCT score
``Q(a) + c * P(a) * sqrt(n_avail(a)) / (1 + n(a))``, where ``n_avail(a)``
counts the visits of the node in which ``a`` was available (the
availability count of IS-MCTS, in place of the parent's visits), ``P`` is
the prior renormalised over the available actions and ``Q`` the mean
backed-up return, min-max normalised over the values seen in this tree
(MuZero's normalisation: games here pay 0/1, +-1 or scores); an unvisited
action gets its node's mean value (first-play urgency). A new node is
evaluated once: ``rollouts`` copies of the leaf (the simulation's own
determinization, each copy given its own future chance by
``infostate.resample_chance``; the hidden cards differ from simulation to
simulation, not between the copies) are played to the end in one call of
the game's compiled ``play_rows`` kernel (the ``rollout``
policy in the searching seat; in the other seats the ``opp`` agent where
it is scripted, ``heuristic`` or ``random``, else the ``rollout`` policy:
a network ``opp`` plays only in the tree), and their mean return is the
leaf's value; or the network's value of the leaf (``rollout=value``).
Without a network, a node's heuristic prior is drawn at the node's first
selection, from the determinization played then (most leaves are never
selected from, so most never pay for it), the root's too, in the first
simulation's determinization. Each rollout's generator starts its stream afresh, so a
decision does not depend on what the agent searched before it.
The decision is the most visited root action (ties: the higher prior,
then the higher mean value, then the lower index).

Where no network takes part (no PRIOR, a scripted ``opp``, rollout
leaves) the simulations run in the game's compiled ``search_run`` kernel
(``envs/core/kernel/template.py``; the tree's arrays, the PUCT rule and
the children table keyed bit for bit by what the seat sees are in
``envs/core/kernel/tree.py``): one call runs many simulations, taking the
decision generator's raw draws from a buffer filled ahead in their order,
so it builds the very tree the Python simulations build
(``tests/agents/test_search_compiled.py``). With a network the same
algorithm runs in Python, the network's calls between its steps.

Deterministic under a ``sims`` budget: a decision's random numbers (its
determinizations, the rollouts' tie-breaks and chance, the scripted
``opp`` players) come from one generator seeded by the agent's seed and
what the seat sees (its observation and legal mask), never by the record's
hidden fields, so the same seed and the same game give the same actions in
any batch and order.
``last_simulations`` holds the simulations the last decision ran,
``last_root_visits`` its root's visits per action and ``last_root_values``
their summed backed-up values; ``simulations`` and
``decisions`` count them all. ``search_seconds`` sums the wall time of all
decisions, ``rollout_seconds`` the part spent inside the compiled rollout
calls (in the compiled tree: the kernel's time in its rollouts, read on
the processor's cycle counter, which x86-64 offers; elsewhere 0) and
``inference_seconds`` the part spent in the prior network (its
logits and values) and ``opp_seconds`` the part spent in an ``opp`` agent
that is not scripted (a network playing the other seats): the search's
overhead is ``search_seconds / rollout_seconds``.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

import numpy as np
from numba import config as numba_config

from ...envs.core.batch import Batch, core_batch
from ...envs.core.common import copy_records
from ...envs.core.infostate import resample_chance, resample_into
from ...envs.core.kernel import tree as T
from ...envs.core.kernel.header import O_PLAYING
from ..protocol import AgentError

__all__ = [
    "PREFIX",
    "KEYS",
    "SearchError",
    "SearchConfig",
    "SearchAgent",
    "is_search_ref",
    "parse_search_ref",
    "make_search_agent",
    "prior_name",
]

PREFIX = "search"
#: the accepted keys of the agent string, in the order the docs list them
KEYS = ("sims", "ms", "c", "rollout", "rollouts", "opp", "oppmode")
OPPMODES = ("greedy", "sample")
ROLLOUTS = ("heuristic", "random", "value")
DEFAULT_SIMS = 200
DEFAULT_C = 1.5
DEFAULT_ROLLOUTS = 8
#: scripted seat codes of the generated loops (``SCRIPTED_RANDOM``,
#: ``SCRIPTED_POLICY`` of every ``kernels.py``); -1 stops them
_CODE = {"random": 0, "heuristic": 1}
#: without a network, the prior's mass on the action the game's heuristic plays
HEURISTIC_PRIOR = 0.5
#: determinizations drawn per call of the sampler
_DRAW = 32
_SYNTAX = "search[:PRIOR][?key=value&...]"


class SearchError(AgentError):
    """A search agent string that cannot be built (an unknown key, a bad
    value, a prior that is not a policy network)."""


def is_search_ref(name) -> TypeGuard[str]:
    """Whether ``name`` is a search agent string (``search``,
    ``search:...`` or ``search?...``)."""
    return isinstance(name, str) and (
        name == PREFIX or name.startswith(PREFIX + ":") or name.startswith(PREFIX + "?")
    )


@dataclass(frozen=True)
class SearchConfig:
    """A parsed search agent string (see the module doc)."""

    prior: str | None = None
    sims: int | None = DEFAULT_SIMS
    ms: float | None = None
    c: float = DEFAULT_C
    rollout: str | None = None  # None: heuristic where the game has one, else random
    rollouts: int = DEFAULT_ROLLOUTS
    opp: str = "prior"
    oppmode: str = "greedy"
    text: str = PREFIX


def _accepted() -> str:
    return (
        "accepted keys: sims (integer >= 1), ms (number > 0), c (number > 0), "
        f"rollout ({'|'.join(ROLLOUTS)}), rollouts (integer >= 1), "
        "opp (prior|heuristic|random|an agent name), oppmode (greedy|sample)"
    )


def _parse(kind: Callable[[str], Any], noun: str, key: str, value: str, text: str) -> Any:
    """``kind(value)``, or a SearchError saying that ``key`` is not ``noun``."""
    try:
        return kind(value)
    except ValueError:
        raise SearchError(f"agent {text!r}: {key}={value!r} is not {noun}; {_accepted()}") from None


def _int(key: str, value: str, text: str) -> int:
    v = _parse(int, "an integer", key, value, text)
    if v < 1:
        raise SearchError(f"agent {text!r}: {key} must be >= 1, got {v}; {_accepted()}")
    return v


def _pos(key: str, value: str, text: str) -> float:
    v = _parse(float, "a number", key, value, text)
    if not (math.isfinite(v) and v > 0):
        raise SearchError(f"agent {text!r}: {key} must be a number > 0, got {value}; {_accepted()}")
    return v


def parse_search_ref(text: str) -> SearchConfig:
    """The :class:`SearchConfig` of a search agent string (see the module
    doc); :class:`SearchError` naming what is wrong and what is accepted."""
    if not is_search_ref(text):
        raise SearchError(f"agent {text!r} is not a search agent ({_SYNTAX})")
    head, sep, query = text.partition("?")
    prior = head[len(PREFIX) + 1 :] if head != PREFIX else None
    if prior is not None and not prior:
        raise SearchError(f"agent {text!r}: nothing after 'search:' (expected {_SYNTAX})")
    if prior is not None and is_search_ref(prior):
        raise SearchError(f"agent {text!r}: a search cannot be the prior of a search")
    if sep and not query:
        raise SearchError(f"agent {text!r}: nothing after '?'; {_accepted()}")
    given: dict[str, str] = {}
    for part in query.split("&") if query else ():
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise SearchError(f"agent {text!r}: {part!r} is not key=value; {_accepted()}")
        if key not in KEYS:
            raise SearchError(f"agent {text!r}: unknown key {key!r}; {_accepted()}")
        if key in given:
            raise SearchError(f"agent {text!r}: {key} is given twice")
        given[key] = value.strip()
    ms = _pos("ms", given["ms"], text) if "ms" in given else None
    if "sims" in given:
        sims: int | None = _int("sims", given["sims"], text)
    else:
        sims = None if ms is not None else DEFAULT_SIMS
    rollout = given.get("rollout")
    if rollout is not None and rollout not in ROLLOUTS:
        raise SearchError(
            f"agent {text!r}: unknown rollout {rollout!r} (expected one of {', '.join(ROLLOUTS)})"
        )
    if rollout == "value" and prior is None:
        raise SearchError(f"agent {text!r}: rollout=value needs a prior network (search:PRIOR?...)")
    opp = given.get("opp", "prior")
    if not opp:
        raise SearchError(f"agent {text!r}: opp is empty; {_accepted()}")
    if is_search_ref(opp):
        raise SearchError(f"agent {text!r}: opp cannot be a search agent (too slow to nest)")
    oppmode = given.get("oppmode", "greedy")
    if oppmode not in OPPMODES:
        raise SearchError(
            f"agent {text!r}: unknown oppmode {oppmode!r} (expected one of {', '.join(OPPMODES)})"
        )
    return SearchConfig(
        prior=prior,
        sims=sims,
        ms=ms,
        c=_pos("c", given["c"], text) if "c" in given else DEFAULT_C,
        rollout=rollout,
        rollouts=_int("rollouts", given["rollouts"], text)
        if "rollouts" in given
        else DEFAULT_ROLLOUTS,
        opp=opp,
        oppmode=oppmode,
        text=text,
    )


def prior_name(text) -> str | None:
    """The prior network of a search agent string (``None`` without one or
    for any other name): the model whose setting and file stand for it."""
    if not is_search_ref(text):
        return None
    return parse_search_ref(text).prior


def make_search_agent(
    text: str, core, *, seed: int = 0, strict: bool = True, resolve=None
) -> SearchAgent:
    """The :class:`SearchAgent` a search agent string names, for ``core``;
    ``resolve(name, core, seed=, deterministic=, strict=)`` builds the
    prior and ``opp`` agents it names (the package's resolver,
    :func:`~dungeonrl.agents.policy.make_agent`, which calls this)."""
    return SearchAgent(core, parse_search_ref(text), seed=seed, strict=strict, resolve=resolve)


class _Node:
    """One information set of the searching seat: per action its visits
    ``n``, summed values ``w`` and availability count ``avail``; the prior
    logits (``None``: uniform); children keyed by (action, what the seat
    sees next)."""

    __slots__ = ("seat", "n", "w", "avail", "logits", "children", "v_sum", "v_n", "pending")

    def __init__(
        self, seat: int, num_actions: int, logits, value: float | None, pending: bool = False
    ):
        self.seat = seat
        self.n = np.zeros(num_actions, np.float64)
        self.w = np.zeros(num_actions, np.float64)
        self.avail = np.zeros(num_actions, np.float64)
        # zeros: the uniform prior
        self.logits = np.zeros(num_actions, np.float64) if logits is None else logits
        self.children: dict = {}
        # the node's own value (none at the root) and everything backed up through it
        self.v_sum = 0.0 if value is None else float(value)
        self.v_n = 0.0 if value is None else 1.0
        #: the heuristic prior is drawn at the node's first selection
        self.pending = pending


class SearchAgent:
    """Information-set MCTS with a PUCT rule (see the module doc), as a
    batched agent: ``act(buf, rows)`` searches each row's decision from the
    record ``buf.states[row]``."""

    whole_game = None  # never replaced by a numba fast path
    #: the compiled tree's first size (nodes; at most the budget's simulations
    #: + 1); it doubles when full
    initial_nodes = 256
    scripted = None  # not a scripted seat of the compiled loops

    def __init__(
        self, core, config: SearchConfig, *, seed: int = 0, strict: bool = True, resolve=None
    ):
        self.core = core
        self.cfg = config
        self.seed = int(seed)
        self.name = config.text
        self.num_actions = int(core.spec.num_actions)
        self.P = int(core.num_players)
        self.net: Any = None  # the prior's ActorCritic (agents/algos/ppo.py), if any
        prior = None
        if (config.prior is not None or config.opp not in ("prior", *_CODE)) and resolve is None:
            raise SearchError(f"agent {config.text!r}: no resolver to build the agents it names")
        if config.prior is not None:
            try:
                prior = resolve(config.prior, core, seed=seed, deterministic=True, strict=strict)
            except (FileNotFoundError, ValueError) as e:
                raise SearchError(f"agent {config.text!r}: the prior cannot be loaded: {e}") from e
            net = getattr(prior, "net", None)  # a fast-path ActorCritic (policy.TorchAgent)
            if not (
                callable(getattr(net, "logits", None)) and callable(getattr(net, "value", None))
            ):
                raise SearchError(
                    f"agent {config.text!r}: the prior {config.prior!r} is not a fast-path "
                    "policy network (use pretrained:NAME or a .pt model file)"
                )
            self.net = net
            self.torch = prior.torch
        has_policy = core_batch(core).has_policy()
        rollout = config.rollout or ("heuristic" if has_policy else "random")
        if rollout == "heuristic" and not has_policy:
            raise SearchError(
                f"agent {config.text!r}: {core.spec.name} has no scripted policy for "
                "rollout=heuristic (use rollout=random)"
            )
        self.rollout = rollout
        #: without a network, the game's scripted choice gets half the prior
        self.heuristic_prior = has_policy
        self.rollout_code = _CODE.get(rollout, 0)
        # the other seats: a scripted code of the compiled loops, or a batched agent
        self.opp_code = -1
        self.opp_agent = None
        opp = config.opp
        if opp == "prior":
            if prior is not None:  # its greedy policy (built deterministic above)
                self.opp_agent = prior
            else:
                self.opp_code = self.rollout_code
        elif opp in _CODE:
            if opp == "heuristic" and not has_policy:
                raise SearchError(f"agent {config.text!r}: {core.spec.name} has no heuristic")
            self.opp_code = _CODE[opp]
        else:
            try:
                self.opp_agent = resolve(opp, core, seed=seed + 7919, deterministic=True)
            except (FileNotFoundError, ValueError) as e:
                raise SearchError(f"agent {config.text!r}: opp={opp!r} cannot be built: {e}") from e
        self.opp_net: Any = None  # oppmode=sample: the opp network sampled here
        if config.oppmode == "sample":
            net = getattr(self.opp_agent, "net", None)
            if not callable(getattr(net, "logits", None)):
                what = "scripted" if self.opp_agent is None else "not one"
                raise SearchError(
                    f"agent {config.text!r}: oppmode=sample needs a network opp (a fast-path "
                    f"model or pretrained:NAME; opp={opp!r} is {what})"
                )
            self.opp_net = net
            import torch

            self.torch = torch
        self._sim = Batch(core, 1)  # the simulated game (row 0) and its observation
        self._row0 = np.zeros(1, np.int64)
        self._obs1 = np.zeros((1, core.spec.obs_size), np.float32)
        self._rew = np.zeros((1, self.P), np.float32)
        self._flags = [np.zeros(1, np.bool_) for _ in range(3)]
        self._codes = np.full((1, self.P), self.opp_code, np.int8)
        self.c = float(config.c)
        # the rollouts' buffers, and per searching seat the scripted code of every seat
        k = config.rollouts
        self._leaf_rows = np.zeros(k, dtype=core.state_dtype)
        self._prng = np.zeros((k, 2), np.uint64)
        self._returns = np.zeros((k, self.P), np.float32)
        self._length = np.zeros(k, np.int64)
        self._prng1 = np.zeros((1, 2), np.uint64)
        self._out1 = np.zeros(1, np.int64)
        self._rollout_codes = []
        for s in range(self.P):
            codes = np.full((k, self.P), self.rollout_code, np.int8)
            if self.opp_code >= 0:  # a scripted opp plays the other seats in the rollouts too
                codes[:] = self.opp_code
                codes[:, s] = self.rollout_code
            self._rollout_codes.append(codes)
        self._bind_kernels()
        #: whether decisions run in the game's compiled tree (``search_run``:
        #: selection, steps, the other seats and the rollouts in one call):
        #: no network anywhere, a scripted ``opp``, rollout leaves and the
        #: JIT on; else the same algorithm in Python (the network's calls
        #: sit between its steps)
        self.compiled = (
            self.net is None
            and self.opp_agent is None
            and self.rollout != "value"
            and has_policy
            and not numba_config.DISABLE_JIT
        )
        self._tree: dict = {}
        self._raw = np.zeros(0, np.uint64)
        self._ctl = np.zeros(T.CTL_SIZE, np.int64)
        self._params = np.zeros(4, np.float64)
        self._cycles = np.zeros(2, np.int64)
        self._pool = core.alloc(_DRAW)
        self._obs_row = np.zeros(core.spec.obs_size, np.float32)
        self.last_simulations = 0
        #: the root's visit count and summed backed-up value per action at the
        #: last decision
        self.last_root_visits = np.zeros(self.num_actions, np.float64)
        self.last_root_values = np.zeros(self.num_actions, np.float64)
        self.simulations = 0
        self.decisions = 0
        self.search_seconds = 0.0
        self.rollout_seconds = 0.0
        self.inference_seconds = 0.0
        self.opp_seconds = 0.0

    #: what :meth:`_bind_kernels` makes: views of other buffers and calls bound
    #: to them, which a copy or a pickle would sever from what they view;
    #: made again instead (:meth:`__setstate__`)
    _BOUND = (
        "_st",
        "_st_bytes",
        "_st_legal",
        "_leaf_bytes",
        "_sim_bytes",
        "_act1",
        "_seat1",
        "_back",
        "_prng_adv",
        "_step_st",
        "_observe_st",
        "_policy_st",
        "_advance_st",
        "_play_leaf",
        "_runs",
    )

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self._BOUND}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_kernels()

    def _bind_kernels(self) -> None:
        """The simulation's record ``_st`` (one row, the determinization being
        played) and the kernel calls on it and the other fixed buffers, each
        typed once (:meth:`~dungeonrl.envs.core.batch.Batch.bound_call`: no
        dispatch per call)."""
        b = core_batch(self.core)
        has_policy = b.has_policy()
        st = self._st = self.core.alloc(1)
        # byte views of the records copied every simulation (numpy copies a
        # record field by field; a byte copy is one copy)
        self._st_bytes = st.view(np.uint8)
        self._st_legal = st["legal"][0]
        self._leaf_bytes = self._leaf_rows.view(np.uint8).reshape(len(self._leaf_rows), -1)
        self._sim_bytes = self._sim.states.view(np.uint8)
        self._act1 = np.zeros(1, np.int64)
        self._seat1 = np.zeros(1, np.int64)
        self._back = np.zeros((1, self.P), np.float32)
        self._prng_adv = np.zeros((1, 2), np.uint64)
        te, tr, il = self._flags
        self._step_st = b.bound_call("step_rows", st, self._row0, self._act1, self._rew, te, tr, il)
        self._observe_st = b.bound_call("observe_batch", st, self._seat1, self._obs1)
        self._policy_st = (
            b.bound_call("policy_rows", st, self._row0, self._prng1, self._out1)
            if has_policy
            else None
        )
        self._advance_st = None
        if self.opp_agent is None and self.opp_code >= 0:
            self._advance_st = b.bound_call(
                "advance_scripted",
                st,
                self._row0,
                self._seat1,
                self._codes,
                self._prng_adv,
                self._back,
                te,
                tr,
            )
        #: the compiled tree's call per searching seat (made on first use)
        self._runs: dict = {}
        self._play_leaf = [
            b.bound_call(
                "play_rows", self._leaf_rows, codes, self._prng, self._returns, self._length
            )
            for codes in self._rollout_codes
        ]

    # --- the batched agent ----------------------------------------------------------
    def act(self, buf, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, np.int64)
        out = np.zeros(len(rows), np.int64)
        for j, r in enumerate(rows):
            out[j] = self.decide(buf.states[r : r + 1])
        return out

    def decide(self, state) -> int:
        """The searched action of the seat to act in ``state`` (a 1-row
        record array or one record of a live game)."""
        t0 = time.perf_counter()
        try:
            return self._decide(state)
        finally:
            self.search_seconds += time.perf_counter() - t0

    def _decide(self, state) -> int:
        core = self.core
        root_state = core.alloc(1)
        if isinstance(state, np.ndarray) and state.dtype == core.state_dtype and state.size:
            copy_records(root_state, np.ascontiguousarray(state.reshape(-1)[:1]))
        else:
            root_state[:] = np.array(state, dtype=core.state_dtype).reshape(-1)[:1]
        if int(root_state["outcome"][0]) != O_PLAYING or int(root_state["actor"][0]) < 0:
            raise SearchError(f"agent {self.name!r}: the game is over, there is no decision")
        seat = int(root_state["actor"][0])
        legal = np.flatnonzero(root_state["legal"][0])
        self.decisions += 1
        if len(legal) == 1:
            self.last_simulations = 0
            self.last_root_visits = np.zeros(self.num_actions, np.float64)
            self.last_root_values = np.zeros(self.num_actions, np.float64)
            return int(legal[0])
        copy_records(self._st, root_state)
        obs = self._observe(seat)
        rng = self._decision_rng(obs, root_state["legal"][0], seat)
        # the root's prior: the network's from what the seat sees, or the
        # heuristic's drawn like every node's at its first selection (in the
        # first simulation's determinization)
        root = self._new_node(seat, obs, None, rng, lazy=True)
        t_end = None if self.cfg.ms is None else time.perf_counter() + self.cfg.ms / 1000.0
        if self.compiled:
            visits_all, w_all, n = self._search_compiled(root_state, seat, rng, root, t_end)
        else:
            n = self._search_python(root, root_state, seat, rng, t_end)
            visits_all, w_all = root.n, root.w
        self.last_simulations = n
        self.last_root_visits = visits_all.copy()
        self.last_root_values = w_all.copy()
        self.simulations += n
        visits = visits_all[legal]
        q = np.where(visits > 0, w_all[legal] / np.maximum(visits, 1), -math.inf)
        # most visits, then the higher prior (at a tiny budget the prior's
        # choice, not one noisy rollout, settles a tie), then the higher mean value
        best = np.lexsort((-q, -root.logits[legal], -visits))[0]
        return int(legal[best])

    def _search_python(self, root: _Node, root_state, seat: int, rng, t_end) -> int:
        """The simulations in Python (a network prior, value or ``opp``);
        the number run."""
        bounds = [math.inf, -math.inf]
        cfg = self.cfg
        n = 0
        pool_bytes = np.zeros((0, 0), np.uint8)
        while True:
            if cfg.sims is not None and n >= cfg.sims:
                break
            if t_end is not None and n > 0 and time.perf_counter() >= t_end:
                break
            if n % _DRAW == 0:  # the next determinizations, drawn in one call
                pool = self.core.resample_from_infostate(np.repeat(root_state, _DRAW), seat, rng)
                pool_bytes = pool.view(np.uint8).reshape(len(pool), -1)
            self._st_bytes[:] = pool_bytes[n % _DRAW]
            self._simulate(root, seat, rng, bounds)
            n += 1
        return n

    # --- the compiled tree ------------------------------------------------------------------
    def _search_compiled(self, root_state, seat: int, rng, root: _Node, t_end) -> tuple:
        """The simulations in the game's ``search_run`` kernel: the same
        algorithm, the same random numbers in the same order (the
        generator's raw draws, taken ahead into a buffer), so the same
        tree as :meth:`_search_python`. Returns the root's visits and value
        sums per action and the number of simulations."""
        cfg = self.cfg
        k = cfg.rollouts
        first = self.initial_nodes
        self._ensure_tree(first if cfg.sims is None else min(cfg.sims + 1, first))
        tr = self._tree
        T.tree_clear(tr["hval"])
        tr["stats"][0] = 0.0
        tr["stats"][0, 3] = root.logits
        tr["vals"][0] = 0.0
        tr["vals"][0, 2] = 1.0 if root.pending else 0.0
        ctl, params, cycles = self._ctl, self._params, self._cycles
        ctl[:] = 0
        ctl[T.C_SEAT] = seat
        ctl[T.C_ROLLOUTS] = k
        ctl[T.C_HEURISTIC] = int(self.heuristic_prior)
        ctl[T.C_NODES] = 1
        params[:] = (self.c, HEURISTIC_PRIOR, math.inf, -math.inf)
        cycles[:] = 0
        run = self._run(seat)
        n, block, wall = 0, -1, 0.0
        while True:
            if cfg.sims is not None and n >= cfg.sims:
                break
            if t_end is not None and n > 0 and time.perf_counter() >= t_end:
                break
            if n // _DRAW != block:  # the next determinizations, drawn in one call
                block = n // _DRAW
                key = self._take_raw(rng)
                # only the rows the budget reaches: row i of a sample is drawn
                # from its own stream, whatever the number of rows
                rows = _DRAW if cfg.sims is None else min(_DRAW, cfg.sims - n)
                resample_into(self.core, root_state, self._pool[:rows], seat, key)
            want = _DRAW - n % _DRAW
            if cfg.sims is not None:
                want = min(want, cfg.sims - n)
            if t_end is not None:
                want = 1  # the clock is read between simulations
            if ctl[T.C_NODES] >= len(tr["stats"]):
                self._ensure_tree(2 * len(tr["stats"]))
                tr = self._tree
                run = self._run(seat)
            if ctl[T.C_RAW_LEN] - ctl[T.C_RAW_POS] < 2 * ctl[T.C_NODES] + k + 3:
                self._refill(rng)
            ctl[T.C_START] = n % _DRAW
            ctl[T.C_COUNT] = want
            t0 = time.perf_counter()
            run()
            wall += time.perf_counter() - t0
            n += int(ctl[T.C_DONE])
        if cycles[0] > 0:  # the rollouts' share of the kernel's time, by its clock
            self.rollout_seconds += wall * float(cycles[1]) / float(cycles[0])
        root.logits = tr["stats"][0, 3].copy()  # drawn in the kernel where it was pending
        root.pending = False
        return tr["stats"][0, 0].copy(), tr["stats"][0, 1].copy(), n

    def _ensure_tree(self, cap: int) -> None:
        """A tree of at least ``cap`` nodes (grown: the nodes and children
        kept) and a raw-draw buffer to match."""
        old = self._tree
        if old and len(old["stats"]) >= cap:
            return
        new = T.tree_arrays(cap, self.num_actions, int(self.core.spec.obs_size))
        if old:
            m = len(old["stats"])
            for name in ("stats", "vals", "key_obs", "key_legal"):
                new[name][:m] = old[name]
            T.rehash(old["hkey"], old["hval"], new["hkey"], new["hval"])
        self._tree = new
        self._runs.clear()  # the calls were bound to the old arrays
        size = max(4096, 2 * (2 * cap + self.cfg.rollouts + 8) + 64)
        if len(self._raw) < size:
            raw = np.zeros(size, np.uint64)
            pos, ln = int(self._ctl[T.C_RAW_POS]), int(self._ctl[T.C_RAW_LEN])
            raw[: ln - pos] = self._raw[pos:ln]
            self._raw = raw
            self._ctl[T.C_RAW_POS], self._ctl[T.C_RAW_LEN] = 0, ln - pos

    def _refill(self, rng) -> None:
        """The unused raw draws moved to the front, the rest of the buffer
        filled with the generator's next ones (the order of the draws kept)."""
        ctl, raw = self._ctl, self._raw
        pos, ln = int(ctl[T.C_RAW_POS]), int(ctl[T.C_RAW_LEN])
        tail = ln - pos
        raw[:tail] = raw[pos:ln].copy()
        raw[tail:] = rng.bit_generator.random_raw(len(raw) - tail)
        ctl[T.C_RAW_POS], ctl[T.C_RAW_LEN] = 0, len(raw)

    def _take_raw(self, rng) -> np.uint64:
        """The next raw draw (from the buffer, refilled when empty)."""
        ctl = self._ctl
        if ctl[T.C_RAW_POS] >= ctl[T.C_RAW_LEN]:
            self._refill(rng)
        v = self._raw[ctl[T.C_RAW_POS]]
        ctl[T.C_RAW_POS] += 1
        return np.uint64(v)

    def warm(self) -> None:
        """Compile (or load from numba's cache) the game's search kernel
        for this agent's arrays, without searching (``dungeonrl
        precompile``)."""
        if self.compiled:
            self._ensure_tree(self.cfg.sims + 1 if self.cfg.sims is not None else 2)
            self._run(0)

    def _run(self, seat: int):
        """The ``search_run`` call on this agent's arrays for ``seat``,
        typed once (typing a record array costs milliseconds)."""
        run = self._runs.get(seat)
        if run is None:
            run = self._runs[seat] = self._bind_run(seat)
        return run

    def _bind_run(self, seat: int):
        tr = self._tree
        return core_batch(self.core).bound_call(
            "search_run",
            self._pool,
            self._ctl,
            self._params,
            self._raw,
            tr["stats"],
            tr["vals"],
            tr["key_obs"],
            tr["key_legal"],
            tr["hkey"],
            tr["hval"],
            self._st,
            self._leaf_rows,
            self._rollout_codes[seat],
            self._codes,
            self._prng,
            self._returns,
            self._length,
            self._obs_row,
            self._cycles,
        )

    # --- one simulation ---------------------------------------------------------------
    def _simulate(self, root: _Node, seat: int, rng, bounds: list) -> None:
        """One simulation from the determinization in ``_st`` (played in place)."""
        st = self._st
        ret = np.zeros(self.P, np.float64)  # each seat's rewards from the root decision on
        path: list[tuple[_Node, int]] = []
        node = root
        while True:
            if node.pending:  # the node's heuristic prior, drawn at its first selection
                node.logits = self._heuristic_logits(rng)
                node.pending = False
            a = self._select(node, st["legal"][0], bounds)
            path.append((node, a))
            self._step(a, ret)
            if int(st["outcome"][0]) == O_PLAYING:
                self._advance_others(seat, ret, rng)
            if int(st["outcome"][0]) != O_PLAYING:
                value = ret  # a finished game: its exact returns (no node below)
                break
            obs = self._observe(seat)
            key = (a, obs.tobytes() + st["legal"][0].tobytes())
            child = node.children.get(key)
            if child is None:
                value = ret + self._evaluate(seat, obs, rng)
                node.children[key] = self._new_node(seat, obs, float(value[seat]), rng, lazy=True)
                break
            node = child
        for nd, a in path:  # each node backs up the return of the seat acting there
            v = float(value[nd.seat])
            nd.n[a] += 1.0
            nd.w[a] += v
            nd.v_sum += v
            nd.v_n += 1.0
            bounds[0] = min(bounds[0], v)
            bounds[1] = max(bounds[1], v)

    def _select(self, node: _Node, legal: np.ndarray, bounds: list) -> int:
        """The PUCT choice among the actions legal in this determinization."""
        fpu = node.v_sum / node.v_n if node.v_n else 0.0
        return int(
            T.puct(
                legal, node.n, node.w, node.avail, node.logits, fpu, bounds[0], bounds[1], self.c
            )
        )

    def _step(self, a: int, ret: np.ndarray) -> None:
        """Action ``a`` in ``_st``; each seat's reward added to ``ret``."""
        self._act1[0] = a
        self._rew[:] = 0.0
        self._step_st()
        ret += self._rew[0, : len(ret)]

    def _advance_others(self, seat: int, ret: np.ndarray, rng) -> None:
        """The other seats of ``_st`` play (the ``opp`` model) until ``seat``
        is to act or the game ends."""
        st = self._st
        if int(st["actor"][0]) == seat:
            return
        if self._advance_st is not None:  # scripted: inside the compiled loop
            self._seat1[0] = seat
            self._prng_adv[0, 0] = rng.bit_generator.random_raw()
            self._prng_adv[0, 1] = 0
            self._back[:] = 0.0
            self._advance_st()
            ret += self._back[0]
            return
        sim = self._sim
        while int(st["outcome"][0]) == O_PLAYING and int(st["actor"][0]) != seat:
            self._sim_bytes[:] = self._st_bytes
            sim.players[0] = int(st["actor"][0])
            sim.refresh()
            t0 = time.perf_counter()
            if self.opp_net is None:
                assert self.opp_agent is not None  # a scripted opp advanced above
                a = int(self.opp_agent.act(sim, self._row0)[0])
            else:
                a = self._opp_sample(sim, rng)
            self.opp_seconds += time.perf_counter() - t0
            self._step(a, ret)

    def _opp_sample(self, sim, rng) -> int:
        """A draw from the opp network's masked softmax (Gumbel-max with the
        decision's generator)."""
        with self.torch.no_grad():
            z = self.opp_net.logits(self.torch.from_numpy(sim.obs[:1]))[0].double().numpy()
        legal = np.flatnonzero(sim.masks[0])
        g = z[legal] - np.log(-np.log(rng.random(len(legal)).clip(1e-300, None)))
        return int(legal[int(np.argmax(g))])

    # --- evaluation -----------------------------------------------------------------------
    def _evaluate(self, seat: int, obs: np.ndarray, rng) -> np.ndarray:
        """Each seat's expected return from the leaf ``_st`` on (seat ``seat``
        to act): the mean of ``rollouts`` compiled rollouts, each from a
        fresh draw of what ``seat`` cannot see, or the network's value."""
        if self.rollout == "value":
            out = np.zeros(self.P, np.float64)
            out[seat] = self._net_value(obs)
            return out
        k = self.cfg.rollouts
        rows = self._leaf_rows  # the simulation's determinization, k futures of it
        self._leaf_bytes[:] = self._st_bytes
        resample_chance(rows, rng)
        prng, returns, length = self._prng, self._returns, self._length
        prng[:, 0] = rng.bit_generator.random_raw(k)
        prng[:, 1] = 0  # each rollout's stream from its start: no history carried over
        returns[:] = 0.0
        length[:] = 0
        t0 = time.perf_counter()
        self._play_leaf[seat]()
        self.rollout_seconds += time.perf_counter() - t0
        return returns.sum(axis=0, dtype=np.float64) / k

    def _net_value(self, obs: np.ndarray) -> float:
        t0 = time.perf_counter()
        with self.torch.no_grad():
            v = float(self.net.value(self.torch.from_numpy(obs.reshape(1, -1)))[0])
        self.inference_seconds += time.perf_counter() - t0
        return v

    def _new_node(
        self, seat: int, obs: np.ndarray, value: float | None, rng=None, lazy: bool = False
    ) -> _Node:
        """A node for ``seat`` seeing ``obs`` in ``_st``, with its prior (a
        heuristic prior with ``lazy``: drawn at the node's first selection,
        from the determinization played then; most leaves are never
        selected from)."""
        logits = None
        if self.net is None and self.heuristic_prior:
            if lazy:
                return _Node(seat, self.num_actions, None, value, pending=True)
            logits = self._heuristic_logits(rng)
        elif self.net is not None:
            t0 = time.perf_counter()
            with self.torch.no_grad():
                t = self.net.logits(self.torch.from_numpy(obs.reshape(1, -1)))
            logits = t[0].double().numpy().copy()
            self.inference_seconds += time.perf_counter() - t0
        return _Node(seat, self.num_actions, logits, value)

    def _heuristic_logits(self, rng) -> np.ndarray:
        """Logits that give the game's scripted choice in ``_st`` (a
        determinization) half the prior and spread the rest evenly over
        the other legal actions."""
        prng, out = self._prng1, self._out1
        prng[0, 0] = rng.bit_generator.random_raw()
        prng[0, 1] = 0
        assert self._policy_st is not None  # heuristic_prior: the game has a policy
        self._policy_st()
        logits = np.zeros(self.num_actions, np.float64)
        n = int(np.count_nonzero(self._st_legal))
        # mass m on the heuristic's action, (1 - m) / (n - 1) on each other one
        m = HEURISTIC_PRIOR
        logits[int(out[0])] = math.log(m * max(1, n - 1) / (1.0 - m))
        return logits

    def _observe(self, seat: int) -> np.ndarray:
        """What ``seat`` sees in ``_st`` (a copy)."""
        self._seat1[0] = seat
        self._observe_st()
        return self._obs1[0].copy()

    def _decision_rng(self, obs: np.ndarray, legal: np.ndarray, seat: int):
        """The decision's generator: from the agent's seed and what the seat
        sees (never the hidden fields of the record)."""
        h = hashlib.blake2b(digest_size=16)
        h.update(np.int64(self.seed).tobytes())
        h.update(np.int64(seat).tobytes())
        h.update(np.ascontiguousarray(obs).tobytes())
        h.update(np.ascontiguousarray(legal).tobytes())
        return np.random.default_rng(list(np.frombuffer(h.digest(), np.uint32)))
