"""Batched Dungeon Crawler kernels: many games per numba call.

Every game row carries its own ``num_players`` (2..8), so one batch can mix
table sizes. ``step_autoreset`` is the hot loop of self-play (step, keep the
final observation and record, reset a finished game in place as the next
episode of its seed stream, then observe from the seat to act and mask);
``step_autoreset_ma`` also returns that seat. ``random_rollout`` plays
uniform random legal moves inside numba for the benchmarks and soaks.

Rewards are ``float32[n, k]`` with k >= the seats of every row; column p is
seat p's reward for the transition. Per-row results never depend on the
other rows, the batch size or the order: each row owns its generator.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..core.jit import JIT
from ..core.rng import rng_below, rng_seed
from ...encoders.dungeon_crawler import encode
from . import consts as C
from .rules import legal_mask, reset_game, step_game

#: small helpers are inlined into their callers (numba IR level)
JIT_INLINE = dict(JIT, inline="always")


@njit(**JIT)
def reset_batch(states, tabs, seeds, num_players, reward_mode, auto_advance, max_steps):
    T = tabs[0]
    for i in range(states.shape[0]):
        reset_game(states[i], T, seeds[i], 0, num_players[i], reward_mode, auto_advance,
                   max_steps)


@njit(**JIT)
def step_batch(states, tabs, actions, rewards, terminated, truncated, illegal):
    T = tabs[0]
    for i in range(states.shape[0]):
        te, tr, il = step_game(states[i], T, actions[i], rewards[i])
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il


@njit(**JIT)
def mask_batch(states, tabs, masks):
    for i in range(states.shape[0]):
        for a in range(C.NUM_ACTIONS):
            masks[i, a] = states[i].legal[a]


@njit(**JIT)
def observe_batch(states, tabs, players, obs):
    T = tabs[0]
    for i in range(states.shape[0]):
        encode(states[i], T, players[i], obs[i])


@njit(**JIT)
def step_rows(states, tabs, rows, actions, rewards, terminated, truncated, illegal):
    """``step_batch`` on the rows ``rows`` only (in place; outputs indexed by row)."""
    T = tabs[0]
    for j in range(rows.shape[0]):
        r = rows[j]
        te, tr, il = step_game(states[r], T, actions[r], rewards[r])
        terminated[r] = te
        truncated[r] = tr
        illegal[r] = il


@njit(**JIT)
def observe_rows(states, tabs, rows, players, obs, masks):
    """Observation from ``players[r]`` and legal mask of every row ``r`` in ``rows``."""
    T = tabs[0]
    for j in range(rows.shape[0]):
        r = rows[j]
        encode(states[r], T, players[r], obs[r])
        for a in range(C.NUM_ACTIONS):
            masks[r, a] = states[r].legal[a]


@njit(**JIT)
def restart(st, T):
    """Reset a finished game in place: the next episode of its seed stream."""
    reset_game(st, T, st.seed, st.episode + 1, st.num_players, st.reward_mode,
               st.auto_advance, st.max_steps)


@njit(**JIT)
def _seat(st):
    return st.actor if st.actor >= 0 else st.last_actor


@njit(**JIT)
def step_autoreset_ma(states, tabs, actions, players, obs, masks, rewards, terminated,
                      truncated, illegal, final_obs, final_states):
    """Fused multi-agent step. ``players[i]`` receives the seat to act next
    in row i; ``obs[i]`` / ``masks[i]`` are that seat's. For a finished
    game, ``final_obs[i]`` is the last acting seat's view of the final
    state and ``final_states[i]`` a copy of it, before the reset."""
    T = tabs[0]
    for i in range(states.shape[0]):
        st = states[i]
        te, tr, il = step_game(st, T, actions[i], rewards[i])
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il
        if te or tr:
            encode(st, T, st.last_actor, final_obs[i])
            final_states[i] = st
            restart(st, T)
        players[i] = st.actor
        encode(st, T, st.actor, obs[i])
        for a in range(C.NUM_ACTIONS):
            masks[i, a] = st.legal[a]


@njit(**JIT_INLINE)
def sample_legal(r, mask):
    """A uniformly random legal action (-1 if none): the same draw and the
    same result as ``core.rng.rng_choice_mask``, with a branch-free count."""
    n = 0
    for a in range(mask.shape[0]):
        n += mask[a] != 0
    if n == 0:
        return -1
    k = rng_below(r, n)
    for a in range(mask.shape[0]):          # the (k+1)-th legal index
        k -= mask[a] != 0
        if k < 0:
            return a
    return -1


@njit(**JIT)
def random_rollout(states, tabs, n_steps, policy_seed, obs, masks, stats):
    """Uniform random legal play for ``n_steps`` decisions on every row, with
    autoreset, writing the acting seat's observation and mask after every
    step (the contract of ``GameCore.random_rollout``). ``stats`` (int64[4])
    accumulates: steps, episodes, wins, illegal."""
    T = tabs[0]
    prng = np.zeros(2, np.uint64)
    rew = np.zeros(C.MAX_P, np.float32)
    for i in range(states.shape[0]):
        rng_seed(prng, policy_seed, i)
        st = states[i]
        for _ in range(n_steps):
            a = sample_legal(prng, st.legal)
            te, tr, il = step_game(st, T, a, rew)
            stats[0] += 1
            if il:
                stats[3] += 1
            if te or tr:
                stats[1] += 1
                if st.outcome == C.O_WIN:
                    stats[2] += 1
                restart(st, T)
            encode(st, T, st.actor, obs[i])
            for a in range(C.NUM_ACTIONS):
                masks[i, a] = st.legal[a]


@njit(**JIT)
def refresh_batch(states, tabs, out_mask):
    """Recompute each row's legal mask from its other fields (used to check
    loaded snapshots and after a test edits a record)."""
    T = tabs[0]
    for i in range(states.shape[0]):
        legal_mask(states[i], T, out_mask[i])
