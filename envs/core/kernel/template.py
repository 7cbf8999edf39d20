"""The engine's kernels, written once: the template of every game's
generated ``envs/<game>/kernels.py`` (and of the test fixtures' kernels).

An ordinary module, read by linters and type checkers like any other: the
game-specific names come from the placeholder game :mod:`.template_game`.
:func:`.codegen.generate` instantiates it per game, line for line:

* this docstring becomes the generated file's header;
* the block between ``# --- the game:`` and ``# --- end of the game
  block`` becomes the game's imports (its rules, encoder and policy, by
  name, so numba caches every kernel) and its :class:`~.facts.KernelFacts`
  as constants;
* a line ending in ``# template: if FACT`` is kept (without the comment)
  only when the game's ``FACT`` is true; so are the lines between
  ``# template: if FACT`` and ``# template: end`` (the marker lines go);
* ``KERNEL_KEY``, ``SOURCE_MODULES`` and ``SOURCE_DIGEST`` receive the
  game's values (:mod:`.freshness`). Here ``KERNEL_KEY`` is None, so
  importing the template regenerates nothing.

Its source is part of every generated file's digest: an edit here makes
every game's kernels stale (``python -m dungeonrl.envs.core.kernel.codegen``
regenerates them).

What the template provides (every game gets all of them):

==================  ==========================================================
kernel              what it does
==================  ==========================================================
``reset_row``       header (seed, episode, rng, steps, outcome...) + the game's
                    ``reset_row`` + auto-advance; the mask brought up to date
``step_row``        the step wrapper: illegal-action policy (game over,
                    penalty to the acting seat), ``apply_row``, auto-advance,
                    truncation at ``max_steps``, all-zero mask once over
``reset_batch``     configure + reset every row from its seed
``step_batch``      ``step_row`` on every row
``step_observe``    step + mask + observation of the seat to observe (single env)
``mask_batch``      copy the stored masks
``observe_batch``   observation of ``players[i]`` in row i
``step_rows``       ``step_row`` on a subset of rows (self-play, matches)
``observe_rows``    observation and mask on a subset of rows
``step_autoreset``  the hot loop: step, final observation and record of games
                    that ended, in-place reset (next episode of the row's seed
                    stream), seat to act, its observation and mask (big
                    batches streamed out where the game declares
                    ``stream_obs``, see ``core.memops``); each row's record
                    prefetched ``PREFETCH_AHEAD`` rows ahead (so are the
                    rows of ``step_rows``, ``observe_rows`` and
                    ``advance_scripted``)
``random_rollout``  uniform random legal play inside numba (benchmarks, soaks)
``random_rollout_rules``  the same games without observations (the rules' own cost)
``refresh_batch``   masks recomputed from the other fields (snapshot checks)
``policy_rows``     the game's scripted policy on a subset of rows (if any)
``advance_scripted``  scripted seats played inside numba up to the learner's turn
``play_rows``       whole games per row with a random or scripted player per seat
``restart_batch``   every row restarts as its seed stream's next episode
``search_run``      the search agent's simulations, tree and rollouts compiled
                    (if the game has a scripted policy; ``core.kernel.tree``)
==================  ==========================================================

The kernels that write observations (``observe_batch``, ``step_observe``,
``observe_rows``, ``step_autoreset``) take a float32 batch, which the
encoder writes in place, or a half batch (the compact observation, as
uint16), for which it writes a float32 stack row that is rounded on its
way out (:mod:`.half`).
"""

import numpy as np

from dungeonrl.envs.core.kernel import tree as search_tree
from dungeonrl.envs.core.kernel.borrow import borrow, scratch_f32, scratch_u64
from dungeonrl.envs.core.kernel.chance import redraw_chance, row_stream
from dungeonrl.envs.core.kernel.freshness import ensure_fresh
from dungeonrl.envs.core.kernel.half import encode_target, obs_scratch, store_obs, stream_row
from dungeonrl.envs.core.kernel.header import O_ILLEGAL, O_PLAYING, O_TRUNCATED
from dungeonrl.envs.core.kernel.jit import JIT, JIT_INLINE, njit
from dungeonrl.envs.core.kernel.memops import (
    PREFETCH_AHEAD,
    prefetch_record,
    prefetch_row_of,
    store_fence,
    stream_rows,
)

# sample_legal: a uniformly random legal action (-1 if none), inlined
from dungeonrl.envs.core.kernel.rng import rng_choice_mask as sample_legal
from dungeonrl.envs.core.kernel.rng import rng_seed

# --- the game: the generator writes the game's imports and facts here -----------
from dungeonrl.envs.core.kernel.template_game import (
    AUTO_COUNTS_STEPS,
    AUTO_LIMIT,
    ILLEGAL_PENALTY,
    MAX_SEATS,
    NUM_ACTIONS,
    OBS_SIZE,
    STREAM_OBS,
    WIN_OUTCOME,
    apply_row,
    configure_row,
    encode_row,
    finish_row,
    legal_row,
    policy_row,
)
from dungeonrl.envs.core.kernel.template_game import (
    reset_row as game_reset_row,
)

# --- end of the game block

# the slots of the search tree's control array (core.kernel.tree)
C_START, C_COUNT, C_SEAT, C_ROLLOUTS = (
    search_tree.C_START,
    search_tree.C_COUNT,
    search_tree.C_SEAT,
    search_tree.C_ROLLOUTS,
)
C_NODES, C_RAW_POS, C_RAW_LEN, C_DONE = (
    search_tree.C_NODES,
    search_tree.C_RAW_POS,
    search_tree.C_RAW_LEN,
    search_tree.C_DONE,
)
P_PRIOR = search_tree.P_PRIOR


@njit(**JIT_INLINE)
def refresh(st, T):
    """Bring ``st.legal`` up to date; returns (legal count, last legal action)."""
    if st.outcome != O_PLAYING:
        for a in range(NUM_ACTIONS):
            st.legal[a] = 0
        return 0, np.int64(-1)
    # a plain 1-d view, the type the policies' and mask_batch's calls pass:
    # legal_row (the whole mask tree) compiles once, not once per type
    n = legal_row(st, T, st.legal[:])
    last = np.int64(-1)
    if n == 1:
        for a in range(NUM_ACTIONS):
            if st.legal[a] != 0:
                last = a
    return n, last


@njit(**JIT_INLINE)
def settle(st, T, rew):
    """Refresh the mask and, with auto-advance on, take every decision that
    has exactly one legal action."""
    n, last = refresh(st, T)
    if st.auto_advance == 0:
        return
    for _ in range(AUTO_LIMIT):
        if n != 1 or st.outcome != O_PLAYING:
            return
        if AUTO_COUNTS_STEPS:
            if st.steps >= st.max_steps:
                return
            st.steps += 1
        apply_row(st, T, last, rew)
        n, last = refresh(st, T)


@njit(**JIT)
def finish(st, T):
    """The engine ends the game (illegal action, step cap)."""
    finish_row(st, T)  # template: if has_finish
    st.actor = -1
    for a in range(NUM_ACTIONS):
        st.legal[a] = 0


@njit(**JIT_INLINE)
def reset_row(st, T, seed, episode):
    """A new game in ``st`` (configured fields and the forced queue kept)."""
    rng_seed(st.rng, seed, episode)
    st.seed = seed
    st.episode = episode
    st.steps = 0
    st.outcome = O_PLAYING
    st.actor = 0
    st.last_actor = -1
    game_reset_row(st, T)
    rew = scratch_f32(MAX_SEATS)
    settle(st, T, rew)


@njit(**JIT_INLINE)
def restart(st, T):
    """Reset a finished game in place: the next episode of its seed stream."""
    reset_row(st, T, st.seed, st.episode + 1)


@njit(**JIT)
def restart_batch(states, tabs):
    """Every row restarts as the next episode of its seed stream."""
    T = tabs[0]
    for i in range(states.shape[0]):
        restart(states[i], T)


@njit(**JIT_INLINE)
def step_row(st, T, a, rew):
    """One agent decision. Writes every seat's reward into ``rew`` and
    returns (terminated, truncated, illegal). A finished game is left as it is."""
    for p in range(rew.shape[0]):
        rew[p] = 0.0
    if st.outcome != O_PLAYING:
        return False, False, False
    st.steps += 1
    h = st.actor
    st.last_actor = h
    if a < 0 or a >= NUM_ACTIONS or st.legal[a] == 0:
        st.outcome = O_ILLEGAL
        finish(st, T)
        if h >= 0 and h < rew.shape[0]:
            rew[h] = ILLEGAL_PENALTY
        return True, False, True
    apply_row(st, T, a, rew)
    settle(st, T, rew)
    if st.outcome != O_PLAYING:
        st.actor = -1
        for b in range(NUM_ACTIONS):
            st.legal[b] = 0
        if st.outcome == O_TRUNCATED:  # a cap of the rules (e.g. rounds)
            return False, True, False
        return True, False, False
    if st.steps >= st.max_steps:
        st.outcome = O_TRUNCATED
        finish(st, T)
        return False, True, False
    return False, False, False


@njit(**JIT)
def reset_batch(states, tabs, seeds, num_players, max_steps, auto_advance, reward_mode, cfg):
    T = tabs[0]
    for i in range(states.shape[0]):
        st = states[i]
        st.num_players = num_players[i]
        st.max_steps = max_steps
        st.auto_advance = auto_advance
        st.reward_mode = reward_mode
        configure_row(st, cfg)
        # a typed zero, not the literal 0: numba would compile reset_row (and
        # its callees) a second time for the literal, beside autoreset's int64
        reset_row(st, T, seeds[i], np.int64(0))


@njit(**JIT)
def step_batch(states, tabs, actions, rewards, terminated, truncated, illegal):
    T = tabs[0]
    rewards = borrow(rewards)
    for i in range(states.shape[0]):
        te, tr, il = step_row(states[i], T, actions[i], rewards[i])
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il


@njit(**JIT)
def mask_batch(states, tabs, masks):
    for i in range(states.shape[0]):
        for a in range(NUM_ACTIONS):
            masks[i, a] = states[i].legal[a]


@njit(**JIT)
def observe_batch(states, tabs, players, obs):
    T = tabs[0]
    obs = borrow(obs)
    row = obs_scratch(obs, OBS_SIZE)
    for i in range(states.shape[0]):
        out = encode_target(obs[i], row)
        encode_row(states[i], T, players[i], out)
        store_obs(obs[i], out)


@njit(**JIT)
def step_observe(
    states, tabs, actions, players, obs, masks, rewards, terminated, truncated, illegal
):
    """``step_batch``, then the mask and the observation of ``players[i]``."""
    T = tabs[0]
    obs = borrow(obs)
    rewards = borrow(rewards)
    row = obs_scratch(obs, OBS_SIZE)
    for i in range(states.shape[0]):
        st = states[i]
        te, tr, il = step_row(st, T, actions[i], rewards[i])
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il
        out = encode_target(obs[i], row)
        encode_row(st, T, players[i], out)
        store_obs(obs[i], out)
        for a in range(NUM_ACTIONS):
            masks[i, a] = st.legal[a]


@njit(**JIT)
def step_rows(states, tabs, rows, actions, rewards, terminated, truncated, illegal):
    """``step_batch`` on the rows ``rows`` only (outputs indexed by row)."""
    T = tabs[0]
    rewards = borrow(rewards)
    for j in range(rows.shape[0]):
        prefetch_row_of(states, rows, j + PREFETCH_AHEAD)
        r = rows[j]
        te, tr, il = step_row(states[r], T, actions[r], rewards[r])
        terminated[r] = te
        truncated[r] = tr
        illegal[r] = il


@njit(**JIT)
def observe_rows(states, tabs, rows, players, obs, masks):
    """Observation from ``players[r]`` and the mask of every row ``r`` in ``rows``."""
    T = tabs[0]
    obs = borrow(obs)
    row = obs_scratch(obs, OBS_SIZE)
    for j in range(rows.shape[0]):
        prefetch_row_of(states, rows, j + PREFETCH_AHEAD)
        r = rows[j]
        out = encode_target(obs[r], row)
        encode_row(states[r], T, players[r], out)
        store_obs(obs[r], out)
        for a in range(NUM_ACTIONS):
            masks[r, a] = states[r].legal[a]


@njit(**JIT)
def step_autoreset(
    states,
    tabs,
    actions,
    players,
    obs,
    masks,
    rewards,
    terminated,
    truncated,
    illegal,
    final_obs,
    final_states,
):
    """The hot loop. ``players[i]`` receives the seat to act next in row i;
    ``obs[i]`` and ``masks[i]`` are that seat's. A game that ended on this
    step leaves its last acting seat's view in ``final_obs[i]`` and its
    final record in ``final_states[i]``, then restarts in place."""
    T = tabs[0]
    obs = borrow(obs)
    rewards = borrow(rewards)
    final_obs = borrow(final_obs)
    # a big batch: encode each row into a stack row (in the L1 cache), then
    # stream it out without reading the line first (core.memops; a half
    # batch is rounded on the way, core.kernel.half)
    big = stream_rows(states.shape[0], obs.strides[0])
    stream = STREAM_OBS and obs.shape[1] == OBS_SIZE and big
    row = scratch_f32(OBS_SIZE)
    for i in range(states.shape[0]):
        prefetch_record(states, i + PREFETCH_AHEAD)
        st = states[i]
        te, tr, il = step_row(st, T, actions[i], rewards[i])
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il
        if te or tr:
            out = encode_target(final_obs[i], row)
            encode_row(st, T, st.last_actor, out)
            store_obs(final_obs[i], out)
            final_states[i] = st
            restart(st, T)
        players[i] = st.actor
        if stream:
            encode_row(st, T, st.actor, row)
            stream_row(obs[i], row)
        else:
            out = encode_target(obs[i], row)
            encode_row(st, T, st.actor, out)
            store_obs(obs[i], out)
        for a in range(NUM_ACTIONS):
            masks[i, a] = st.legal[a]
    if stream:
        store_fence()


@njit(**JIT_INLINE)
def random_move(st, T, prng, rew, stats):
    """One uniformly random legal decision on row ``st``, restarted in place
    if its game ended; ``stats`` as in ``random_rollout``."""
    a = sample_legal(prng, st.legal)
    te, tr, il = step_row(st, T, a, rew)
    stats[0] += 1
    if il:
        stats[3] += 1
    if te or tr:
        stats[1] += 1
        if st.outcome == WIN_OUTCOME:
            stats[2] += 1
        restart(st, T)


@njit(**JIT)
def random_rollout(states, tabs, n_steps, policy_seed, obs, masks, stats):
    """Uniform random legal play for ``n_steps`` decisions on every row, with
    autoreset, writing the acting seat's observation and mask after every
    step. ``stats`` (int64[4]) accumulates: steps, episodes, wins, illegal."""
    T = tabs[0]
    prng = scratch_u64(2)
    rew = scratch_f32(MAX_SEATS)
    stats = borrow(stats)
    obs = borrow(obs)
    for i in range(states.shape[0]):
        rng_seed(prng, policy_seed, i)
        st = states[i]
        for _ in range(n_steps):
            random_move(st, T, prng, rew, stats)
            encode_row(st, T, st.actor, obs[i])
            for b in range(NUM_ACTIONS):
                masks[i, b] = st.legal[b]


@njit(**JIT)
def random_rollout_rules(states, tabs, n_steps, policy_seed, masks, stats):
    """``random_rollout`` with the observation switched off: the same games
    (same actions, same seeds), the rules and the mask alone."""
    T = tabs[0]
    prng = scratch_u64(2)
    rew = scratch_f32(MAX_SEATS)
    stats = borrow(stats)
    for i in range(states.shape[0]):
        rng_seed(prng, policy_seed, i)
        st = states[i]
        for _ in range(n_steps):
            random_move(st, T, prng, rew, stats)
            for b in range(NUM_ACTIONS):
                masks[i, b] = st.legal[b]


@njit(**JIT)
def refresh_batch(states, tabs, out_mask):
    """Each row's legal mask recomputed from its other fields (a finished
    game's is all zero)."""
    T = tabs[0]
    out_mask = borrow(out_mask)
    for i in range(states.shape[0]):
        st = states[i]
        if st.outcome != O_PLAYING:
            for a in range(NUM_ACTIONS):
                out_mask[i, a] = 0
        else:
            legal_row(st, T, out_mask[i])


# template: if has_policy
#: seat codes of the scripted loops: a uniformly random legal action, the
#: game's scripted policy; any other code (-1) is a seat the loops stop at
SCRIPTED_RANDOM = 0
SCRIPTED_POLICY = 1


@njit(**JIT_INLINE)
def scripted_action(st, T, code, prng):
    if code == SCRIPTED_POLICY:
        return policy_row(st, T, prng)
    return sample_legal(prng, st.legal)


@njit(**JIT)
def policy_rows(states, tabs, rows, prng, out):
    """``out[j]`` = the scripted policy's action in row ``rows[j]``
    (its generator ``prng[rows[j]]`` breaks ties)."""
    T = tabs[0]
    prng = borrow(prng)
    for j in range(rows.shape[0]):
        r = rows[j]
        out[j] = policy_row(states[r], T, prng[r])


@njit(**JIT)
def advance_scripted(states, tabs, rows, learner, codes, prng, returns, terminated, truncated):
    """Scripted seats inside numba (the self-play view): in every row ``r``
    of ``rows``, while the game is on, the seat to act is not ``learner[r]``
    and ``codes[r, seat]`` is a scripted code, play that seat's decision.
    Per-seat rewards accumulate in ``returns[r]``; a game that ends sets
    ``terminated[r]`` / ``truncated[r]``. Stops at the learner's turn or at
    a seat played by a network (code -1)."""
    T = tabs[0]
    rew = scratch_f32(MAX_SEATS)
    prng = borrow(prng)
    for j in range(rows.shape[0]):
        prefetch_row_of(states, rows, j + PREFETCH_AHEAD)
        r = rows[j]
        st = states[r]
        p = prng[r]
        while st.outcome == O_PLAYING:
            h = st.actor
            if h == learner[r] or h < 0:
                break
            c = codes[r, h]
            if c != SCRIPTED_POLICY and c != SCRIPTED_RANDOM:
                break
            a = scripted_action(st, T, c, p)
            te, tr, il = step_row(st, T, a, rew)
            for k in range(st.num_players):
                returns[r, k] += rew[k]
            if te or tr:
                terminated[r] = te
                truncated[r] = tr
                break


@njit(**JIT)
def play_rows(states, tabs, codes, prng, returns, length):
    """Play every row's game to its end: seat ``p`` of row ``i`` is played
    by ``codes[i, p]`` (random legal or the scripted policy) with generator
    ``prng[i]``. ``returns[i]`` receives each seat's total reward, ``length[i]``
    the number of decisions; the final record stays in ``states[i]``."""
    T = tabs[0]
    rew = scratch_f32(MAX_SEATS)
    prng = borrow(prng)
    for i in range(states.shape[0]):
        st = states[i]
        n = 0
        while st.outcome == O_PLAYING:
            a = scripted_action(st, T, codes[i, st.actor], prng[i])
            step_row(st, T, a, rew)
            for k in range(st.num_players):
                returns[i, k] += rew[k]
            n += 1
        length[i] = n


@njit(**JIT)
def search_run(
    pool,
    tabs,
    ctl,
    params,
    raw,
    stats,
    vals,
    key_obs,
    key_legal,
    hkey,
    hval,
    sim,
    leaf,
    leaf_codes,
    opp_codes,
    leaf_prng,
    leaf_ret,
    leaf_len,
    obs_row,
    cycles,
):
    """Simulations of the search agent's compiled tree (the tree's arrays:
    ``core.kernel.tree``; the algorithm: ``dungeonrl.agents.algos.search``).
    Simulation ``j`` plays the determinization ``pool[ctl[C_START] + j]`` in
    ``sim[0]``: PUCT down the tree (a node's heuristic prior drawn at its
    first selection), the other seats played by their scripted codes
    ``opp_codes[0]``, to a finished game or a new node, valued by
    ``ctl[C_ROLLOUTS]`` rollouts (copies of the leaf with their chance
    redrawn, played by ``leaf_codes``), then backed up. Random numbers are
    the raw draws ``raw[ctl[C_RAW_POS]:ctl[C_RAW_LEN]]``, taken in order.
    Runs up to ``ctl[C_COUNT]`` simulations and stops early when the tree is
    full or fewer draws are left than one more may take; ``ctl[C_DONE]``
    receives how many ran, ``cycles`` the clock ticks of the call and of
    its rollouts."""
    t_call = search_tree.cycles_now()
    T = tabs[0]
    seat = ctl[C_SEAT]
    k = ctl[C_ROLLOUTS]
    P = leaf_ret.shape[1]
    cap = stats.shape[0]
    rew = scratch_f32(MAX_SEATS)
    ret = np.zeros(P, np.float64)
    value = np.zeros(P, np.float64)
    path_node = np.zeros(cap + 1, np.int64)
    path_action = np.zeros(cap + 1, np.int64)
    obs_bits = obs_row.view(np.uint32)
    row0 = np.zeros(1, np.int64)
    learner = np.zeros(1, np.int64)
    learner[0] = seat
    adv_prng = np.zeros((1, 2), np.uint64)
    back = np.zeros((1, P), np.float32)
    te = np.zeros(1, np.bool_)
    tr = np.zeros(1, np.bool_)
    draw = np.zeros(2, np.uint64)
    pol = np.zeros(2, np.uint64)
    st = sim[0]
    ctl[C_DONE] = 0
    for j in range(ctl[C_COUNT]):
        # a simulation draws at most: per tree move an advance of the other
        # seats and a node's prior, then a leaf's rollouts
        if ctl[C_NODES] >= cap or ctl[C_RAW_LEN] - ctl[C_RAW_POS] < 2 * ctl[C_NODES] + k + 3:
            break
        sim[0] = pool[ctl[C_START] + j]
        for p in range(P):
            ret[p] = 0.0
        node = np.int64(0)
        length = 0
        while True:
            if vals[node, 2] != 0.0:  # the node's prior, drawn at its first selection
                pol[0] = raw[ctl[C_RAW_POS]]
                pol[1] = 0
                ctl[C_RAW_POS] += 1
                search_tree.heuristic_logits(
                    stats[node, 3], st.legal, policy_row(st, T, pol), params[P_PRIOR]
                )
                vals[node, 2] = 0.0
            a = search_tree.select(stats, vals, node, st.legal, params)
            path_node[length] = node
            path_action[length] = a
            length += 1
            step_row(st, T, a, rew)
            for p in range(P):
                ret[p] += rew[p]
            if st.outcome == O_PLAYING and st.actor != seat:  # the other seats
                adv_prng[0, 0] = raw[ctl[C_RAW_POS]]
                adv_prng[0, 1] = 0
                ctl[C_RAW_POS] += 1
                for p in range(P):
                    back[0, p] = 0.0
                advance_scripted(sim, tabs, row0, learner, opp_codes, adv_prng, back, te, tr)
                for p in range(P):
                    ret[p] += back[0, p]
            if st.outcome != O_PLAYING:  # a finished game: its exact returns
                for p in range(P):
                    value[p] = ret[p]
                break
            encode_row(st, T, seat, obs_row)
            child, slot = search_tree.find_child(
                hkey, hval, key_obs, key_legal, node, a, obs_bits, st.legal
            )
            if child >= 0:
                node = child
                continue
            # a new node: its rollouts, then its prior
            for i in range(k):
                leaf[i] = st
            key = raw[ctl[C_RAW_POS]]
            ctl[C_RAW_POS] += 1
            for i in range(k):
                row_stream(draw, key, i)
                redraw_chance(leaf[i], draw)
            for i in range(k):
                leaf_prng[i, 0] = raw[ctl[C_RAW_POS]]
                leaf_prng[i, 1] = 0
                ctl[C_RAW_POS] += 1
                leaf_len[i] = 0
                for p in range(P):
                    leaf_ret[i, p] = 0.0
            t_roll = search_tree.cycles_now()
            play_rows(leaf, tabs, leaf_codes, leaf_prng, leaf_ret, leaf_len)
            cycles[1] += search_tree.cycles_now() - t_roll
            for p in range(P):
                s = 0.0
                for i in range(k):
                    s += leaf_ret[i, p]
                value[p] = ret[p] + s / k
            search_tree.add_node(
                stats,
                vals,
                key_obs,
                key_legal,
                hval,
                ctl,
                slot,
                node,
                a,
                obs_bits,
                st.legal,
                value[seat],
            )
            break
        search_tree.backup(stats, vals, params, path_node, path_action, length, value[seat])
        ctl[C_DONE] += 1
    cycles[0] += search_tree.cycles_now() - t_call


# template: end
# --- freshness (dungeonrl.envs.core.kernel.freshness) ---------------------------------
#: the code generator's name of this game (its KernelFacts)
KERNEL_KEY = None
#: every module compiled into this file, found from the sources: the ones
#: imported above, the facts, and all they import within dungeonrl
SOURCE_MODULES = ()
#: SHA-256 of the template and of those modules' contents: on import, a
#: mismatch regenerates this file (numba then compiles it again)
SOURCE_DIGEST = None
ensure_fresh(globals())
