"""A game's scripted policy (``envs/<game>/policy.py``) as a batched agent,
written once for every game on the engine: ``act`` runs the generated
scripted-policy kernel (through the core's batch), and
:func:`scripted_advance` lets the self-play view and matches play scripted
seats inside numba (``advance_scripted``); :func:`play_whole_games` plays
whole games of the scripted policy or random play inside numba (the
generated ``play_rows`` loop), for a game's ``play_whole_games`` hook."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .batch import core_batch
from .kernel.rng import rng_seed

#: the scripted-policy seat code of the engine's generated loops
#: (``SCRIPTED_POLICY`` of every ``kernels.py``)
SCRIPTED_POLICY = 1


class HeuristicAgent:
    """The game's scripted policy for any seat (``act(view, rows)`` reads the
    records; row ``i``'s tie-break generator is seeded from ``(seed, i)``)."""

    name = "heuristic"
    whole_game = "heuristic"
    scripted = SCRIPTED_POLICY

    def __init__(self, core, seed: int = 0):
        self.core = core
        self.prng = np.zeros((0, 2), np.uint64)
        self.seed = int(seed)

    def act(self, view, rows: np.ndarray) -> np.ndarray:
        n = len(view.states)
        if len(self.prng) < n:
            self.prng = np.zeros((n, 2), np.uint64)
            for i in range(n):
                rng_seed(self.prng[i], np.uint64(self.seed), i)
        out = np.zeros(len(rows), np.int64)
        core_batch(self.core).policy(view.states, rows, self.prng, out)
        return out


class ScriptedAdvance:
    """``advance`` callable of :class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`
    for any core whose game has a scripted policy: the game's
    ``advance_scripted`` kernel. It holds the core, not the kernel, so a view
    (and an env) holding it can be pickled and deep-copied; the kernel is
    looked up by name on the core's kernel module."""

    __slots__ = ("core",)

    def __init__(self, core):
        if not core_batch(core).has_scripted_advance():
            raise ValueError(f"{core.spec.name} has no advance_scripted kernel")
        self.core = core

    def __call__(self, states, rows, learner, codes, prng, returns, terminated, truncated):
        core_batch(self.core).scripted_advance(
            states, rows, learner, codes, prng, returns, terminated, truncated
        )


def scripted_advance(core) -> ScriptedAdvance:
    """``advance`` callable of :class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`
    for any core whose game has a scripted policy (see :class:`ScriptedAdvance`)."""
    return ScriptedAdvance(core)


#: whole-game agents of :func:`play_whole_games` -> seat code of the generated loops
WHOLE_GAME_CODES = {"heuristic": SCRIPTED_POLICY, "random": 0}


def play_whole_games(
    core, policy: str, seeds: np.ndarray, policy_seed: int, stats: Callable
) -> dict | None:
    """Games ``seeds`` played to the end inside numba by ``policy``
    (``"heuristic"``: the game's scripted policy, ``"random"``: random
    play) in every seat; game ``s`` is the one ``core.reset`` starts from
    seed ``s``, and its scripted generator is seeded from ``(policy_seed,
    s)``, so the result of a game does not depend on the batch it is played
    in. Returns ``stats(core, final_states, rows, last_reward)`` (the game's
    ``episode_stats``) plus seat 0's ``return`` and the ``length`` of each
    game; ``None`` for an agent without a numba path."""
    code = WHOLE_GAME_CODES.get(policy)
    if code is None:
        return None
    n, seats = len(seeds), core.spec.max_players  # a reward row's width (the kernels' MAX_SEATS)
    seeds = np.ascontiguousarray(seeds, np.uint64)
    states = core.alloc(n)
    core.reset(states, seeds)
    codes = np.full((n, seats), code, np.int8)
    prng = np.zeros((n, 2), np.uint64)
    for i in range(n):
        rng_seed(prng[i], np.uint64(policy_seed), np.uint64(seeds[i]))
    returns = np.zeros((n, seats), np.float32)
    length = np.zeros(n, np.int64)
    core_batch(core).play_whole(states, codes, prng, returns, length)
    out = stats(core, states, np.arange(n), returns[:, 0])
    out["return"] = returns[:, 0].astype(np.float64)
    out["length"] = length
    return out
