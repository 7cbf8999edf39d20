"""Batched Unbroken kernels: many games per numba call.

Each function loops over rows of a state array. ``step_autoreset`` is the
hot loop of the vector envs (step, keep the final observation, reset a
finished game in place as the next episode of its seed stream, observe and
mask). ``random_rollout`` and ``policy_rollout`` play whole batches inside
numba (uniform random legal play, or the scripted heuristic), for the
benchmarks and the balance tables.

Per-row results never depend on the other rows, the batch size or the order:
each row owns its generator.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..core.jit import JIT
from ..core.rng import rng_choice_mask, rng_seed
from ...encoders.unbroken import encode
from . import consts as C
from .rules import legal_mask, reset_game, step_game


@njit(**JIT)
def reset_batch(states, tabs, seeds, cfg_character, difficulty, reward_mode,
                auto_advance, max_steps):
    T = tabs[0]
    for i in range(states.shape[0]):
        reset_game(states[i], T, seeds[i], 0, cfg_character, difficulty, reward_mode,
                   auto_advance, max_steps)


@njit(**JIT)
def step_batch(states, tabs, actions, rewards, terminated, truncated, illegal):
    T = tabs[0]
    for i in range(states.shape[0]):
        r, te, tr, il = step_game(states[i], T, actions[i])
        rewards[i, 0] = r
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il


@njit(**JIT)
def step_observe(states, tabs, actions, obs, masks, rewards, terminated, truncated, illegal):
    """``step_batch`` + masks + observations in one call (the single env)."""
    T = tabs[0]
    for i in range(states.shape[0]):
        st = states[i]
        r, te, tr, il = step_game(st, T, actions[i])
        rewards[i, 0] = r
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il
        encode(st, T, obs[i])
        for a in range(C.NUM_ACTIONS):
            masks[i, a] = st.legal[a]


@njit(**JIT)
def mask_batch(states, tabs, masks):
    for i in range(states.shape[0]):
        for a in range(C.NUM_ACTIONS):
            masks[i, a] = states[i].legal[a]


@njit(**JIT)
def observe_batch(states, tabs, obs):
    T = tabs[0]
    for i in range(states.shape[0]):
        encode(states[i], T, obs[i])


@njit(**JIT)
def restart(st, T):
    """Reset a finished game in place: the next episode of its seed stream."""
    reset_game(st, T, st.seed, st.episode + 1, st.cfg_character, st.difficulty,
               st.reward_mode, st.auto_advance, st.max_steps)


@njit(**JIT)
def step_autoreset(states, tabs, actions, obs, masks, rewards, terminated, truncated,
                   illegal, final_obs, final_states):
    T = tabs[0]
    for i in range(states.shape[0]):
        st = states[i]
        r, te, tr, il = step_game(st, T, actions[i])
        rewards[i, 0] = r
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il
        if te or tr:
            encode(st, T, final_obs[i])
            final_states[i] = st
            restart(st, T)
        encode(st, T, obs[i])
        for a in range(C.NUM_ACTIONS):
            masks[i, a] = st.legal[a]


sample_legal = rng_choice_mask   # a uniformly random legal action


@njit(**JIT)
def random_rollout(states, tabs, n_steps, policy_seed, obs, masks, stats):
    """Uniform random legal play for ``n_steps`` steps on every row, with
    observation, mask and autoreset each step (the engine's ceiling).
    ``stats`` (int64[4]) accumulates: steps, episodes, wins, illegal."""
    T = tabs[0]
    prng = np.zeros(2, np.uint64)
    for i in range(states.shape[0]):
        rng_seed(prng, policy_seed, i)
        st = states[i]
        for _ in range(n_steps):
            a = sample_legal(prng, st.legal)
            r, te, tr, il = step_game(st, T, a)
            stats[0] += 1
            if il:
                stats[3] += 1
            if te or tr:
                stats[1] += 1
                if st.outcome == C.O_WIN:
                    stats[2] += 1
                restart(st, T)
            encode(st, T, obs[i])
            for a in range(C.NUM_ACTIONS):
                masks[i, a] = st.legal[a]


@njit(**JIT)
def refresh_batch(states, tabs, out_mask):
    """Recompute each row's legal mask from its fields into ``out_mask``
    (used to validate loaded snapshots and by scenario tests after editing
    a record)."""
    T = tabs[0]
    for i in range(states.shape[0]):
        legal_mask(states[i], T, out_mask[i])
