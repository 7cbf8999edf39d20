"""The search tree's compiled parts: node statistics, the PUCT choice, the
children table and the backup, over plain arrays, for the search agent
(:mod:`dungeonrl.agents.algos.search`) and every game's ``search_run``
kernel (the engine template, :mod:`.template`).

A tree of at most ``cap`` nodes of a game with ``A`` actions and
observations of ``O`` floats is these arrays (:func:`tree_arrays`; node 0
is the root):

============  =====================  ==============================================
array         shape, dtype           what
============  =====================  ==============================================
``stats``     (cap, 4, A) float64    per action: visits ``n``, summed values ``w``,
                                     availability ``avail``, prior ``logits``
``vals``      (cap, 3) float64       the node's own value sum and count (its
                                     first-play urgency is their mean), and 1
                                     while its prior is still to be drawn
``key_obs``   (cap, O) uint32        the bits of the observation that made it
``key_legal`` (cap, A) int8          the legal mask that made it
``hkey``      (hcap,) uint64         the children table: a hash per slot
``hval``      (hcap, 3) int64        parent, action, child (-1: an empty slot)
``ctl``       (CTL_SIZE,) int64      counters and settings, see the ``C_*`` names
``params``    (4,) float64           PUCT constant, heuristic prior mass, the
                                     min-max bounds of the values seen
``cycles``    (2,) int64             clock ticks of the calls, and of their rollouts
============  =====================  ==============================================

A child is found by its parent, the action and what the searching seat
sees next (observation and mask), compared bit for bit: the hash only
picks the slot. The table is open addressing with linear probing, at most
half full (``hcap >= 2 * cap``).
"""

from __future__ import annotations

import math
import platform

import numpy as np
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic

from .jit import JIT, JIT_INLINE, njit
from .rng import mix64

__all__ = [
    "CTL_SIZE",
    "C_START",
    "C_COUNT",
    "C_SEAT",
    "C_ROLLOUTS",
    "C_HEURISTIC",
    "C_NODES",
    "C_RAW_POS",
    "C_RAW_LEN",
    "C_DONE",
    "P_C",
    "P_PRIOR",
    "P_LO",
    "P_HI",
    "cycles_now",
    "has_cycle_clock",
    "puct",
    "tree_arrays",
    "tree_clear",
    "rehash",
    "select",
    "heuristic_logits",
    "find_child",
    "add_node",
    "backup",
]

# ctl: the pool rows to simulate from, the settings, the counters
C_START = 0  # first pool row of this call
C_COUNT = 1  # simulations asked for
C_SEAT = 2  # the searching seat
C_ROLLOUTS = 3  # rollouts per leaf
C_HEURISTIC = 4  # 1: a new node's prior favours the scripted policy's action
C_NODES = 5  # nodes in the tree
C_RAW_POS = 6  # next unused raw draw
C_RAW_LEN = 7  # raw draws in the buffer
C_DONE = 8  # simulations this call ran
CTL_SIZE = 9
# params
P_C = 0
P_PRIOR = 1
P_LO = 2
P_HI = 3

S_N, S_W, S_AVAIL, S_LOGITS = 0, 1, 2, 3
_FNV = np.uint64(0x100000001B3)
_BASIS = np.uint64(0xCBF29CE484222325)


# --- a clock for the rollouts' share ------------------------------------------------------
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "i386")

if _X86 and not config.DISABLE_JIT:

    @intrinsic
    def _rdtsc(typingctx):
        """The processor's time-stamp counter (``llvm.readcyclecounter``)."""

        def codegen(context, builder, signature, args):
            fnty = cgutils.ir.FunctionType(cgutils.ir.IntType(64), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
            return builder.call(fn, [])

        return types.int64(), codegen

    @njit(**JIT_INLINE)
    def cycles_now():
        """Clock ticks (the time-stamp counter of x86-64; 0 elsewhere)."""
        return _rdtsc()

else:  # another processor (its cycle counter may trap in user code), or no JIT

    @njit(**JIT_INLINE)
    def cycles_now():
        """Clock ticks (the time-stamp counter of x86-64; 0 elsewhere)."""
        return np.int64(0)


def has_cycle_clock() -> bool:
    """Whether :func:`cycles_now` counts (x86-64 with the JIT on)."""
    return _X86 and not config.DISABLE_JIT


# --- the arrays ---------------------------------------------------------------------------
def tree_arrays(cap: int, num_actions: int, obs_size: int) -> dict:
    """Zeroed arrays of a tree of ``cap`` nodes (see the module doc)."""
    hcap = 1
    while hcap < 2 * cap:
        hcap *= 2
    hval = np.zeros((hcap, 3), np.int64)
    hval[:, 2] = -1
    return {
        "stats": np.zeros((cap, 4, num_actions), np.float64),
        "vals": np.zeros((cap, 3), np.float64),
        "key_obs": np.zeros((cap, obs_size), np.uint32),
        "key_legal": np.zeros((cap, num_actions), np.int8),
        "hkey": np.zeros(hcap, np.uint64),
        "hval": hval,
    }


@njit(**JIT)
def tree_clear(hval):
    """Empty the children table (a new decision's tree: its nodes are
    written afresh as they are added)."""
    for s in range(hval.shape[0]):
        hval[s, 2] = -1


@njit(**JIT)
def rehash(hkey, hval, new_hkey, new_hval):
    """Move every child of the table ``hkey, hval`` into the larger empty
    table ``new_hkey, new_hval`` (a grown tree)."""
    mask = new_hval.shape[0] - 1
    for s in range(hval.shape[0]):
        if hval[s, 2] < 0:
            continue
        t = np.int64(hkey[s] & np.uint64(mask))
        while new_hval[t, 2] >= 0:
            t = (t + 1) & mask
        new_hkey[t] = hkey[s]
        new_hval[t, 0] = hval[s, 0]
        new_hval[t, 1] = hval[s, 1]
        new_hval[t, 2] = hval[s, 2]


# --- selection ----------------------------------------------------------------------------
@njit(**JIT)
def puct(legal, n, w, avail, logits, fpu, lo, hi, c):
    """The PUCT choice among the legal actions (``legal`` nonzero); counts
    their availability. Prior: the softmax of ``logits`` over them."""
    zmax = -np.inf
    for a in range(legal.shape[0]):
        if legal[a] != 0:
            avail[a] += 1.0
            if logits[a] > zmax:
                zmax = logits[a]
    tot = 0.0
    for a in range(legal.shape[0]):
        if legal[a] != 0:
            tot += math.exp(logits[a] - zmax)
    best = -1
    best_s = -np.inf
    for a in range(legal.shape[0]):
        if legal[a] == 0:
            continue
        q = w[a] / n[a] if n[a] > 0 else fpu
        q = (q - lo) / (hi - lo) if hi > lo else 0.5
        s = q + c * (math.exp(logits[a] - zmax) / tot) * math.sqrt(avail[a]) / (1.0 + n[a])
        if s > best_s:
            best_s = s
            best = a
    return best


@njit(**JIT_INLINE)
def select(stats, vals, node, legal, params):
    """The PUCT choice at ``node`` among the actions legal in this
    determinization (its first-play urgency: the node's mean value)."""
    fpu = vals[node, 0] / vals[node, 1] if vals[node, 1] != 0.0 else 0.0
    return puct(
        legal,
        stats[node, S_N],
        stats[node, S_W],
        stats[node, S_AVAIL],
        stats[node, S_LOGITS],
        fpu,
        params[P_LO],
        params[P_HI],
        params[P_C],
    )


# --- the children table -------------------------------------------------------------------
@njit(**JIT_INLINE)
def _key_hash(parent, action, obs_bits, legal):
    # FNV-1a in four lanes (words i, i+1, i+2, i+3 each into its own): four
    # independent multiply chains instead of one, about 4x faster on the
    # observations of a few hundred floats the tree hashes at every step
    h0 = _BASIS
    h1 = _BASIS ^ np.uint64(1)
    h2 = _BASIS ^ np.uint64(2)
    h3 = _BASIS ^ np.uint64(3)
    n = obs_bits.shape[0]
    m = n - n % 4
    for i in range(0, m, 4):
        h0 = (h0 ^ np.uint64(obs_bits[i])) * _FNV
        h1 = (h1 ^ np.uint64(obs_bits[i + 1])) * _FNV
        h2 = (h2 ^ np.uint64(obs_bits[i + 2])) * _FNV
        h3 = (h3 ^ np.uint64(obs_bits[i + 3])) * _FNV
    for i in range(m, n):
        h0 = (h0 ^ np.uint64(obs_bits[i])) * _FNV
    n = legal.shape[0]
    m = n - n % 4
    for i in range(0, m, 4):
        h0 = (h0 ^ np.uint64(np.uint8(legal[i]))) * _FNV
        h1 = (h1 ^ np.uint64(np.uint8(legal[i + 1]))) * _FNV
        h2 = (h2 ^ np.uint64(np.uint8(legal[i + 2]))) * _FNV
        h3 = (h3 ^ np.uint64(np.uint8(legal[i + 3]))) * _FNV
    for i in range(m, n):
        h0 = (h0 ^ np.uint64(np.uint8(legal[i]))) * _FNV
    h = mix64(h0) ^ mix64(h1 + np.uint64(0x9E3779B97F4A7C15)) ^ mix64(h2 ^ mix64(h3))
    return mix64(h ^ mix64(np.uint64(parent) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(action)))


@njit(**JIT_INLINE)
def _same_key(key_obs, key_legal, child, obs_bits, legal):
    for i in range(obs_bits.shape[0]):
        if key_obs[child, i] != obs_bits[i]:
            return False
    for i in range(legal.shape[0]):
        if key_legal[child, i] != legal[i]:
            return False
    return True


@njit(**JIT)
def find_child(hkey, hval, key_obs, key_legal, parent, action, obs_bits, legal):
    """(child, slot): the child of ``parent`` by ``action`` reached seeing
    ``obs_bits`` (an observation's bits) and ``legal``, or (-1, the empty
    slot where it goes)."""
    h = _key_hash(parent, action, obs_bits, legal)
    mask = hval.shape[0] - 1
    s = np.int64(h & np.uint64(mask))
    while True:
        child = hval[s, 2]
        if child < 0:
            hkey[s] = h
            return np.int64(-1), s
        if (
            hkey[s] == h
            and hval[s, 0] == parent
            and hval[s, 1] == action
            and _same_key(key_obs, key_legal, child, obs_bits, legal)
        ):
            return child, s
        s = (s + 1) & mask


@njit(**JIT)
def add_node(
    stats, vals, key_obs, key_legal, hval, ctl, slot, parent, action, obs_bits, legal, value
):
    """A new node (its statistics zero, prior uniform or, with
    ``ctl[C_HEURISTIC]``, still to be drawn, its own value ``value``) as the
    child in ``slot`` (from :func:`find_child`); its index."""
    i = ctl[C_NODES]
    ctl[C_NODES] = i + 1
    stats[i, :, :] = 0.0
    vals[i, 0] = value
    vals[i, 1] = 1.0
    vals[i, 2] = 1.0 if ctl[C_HEURISTIC] != 0 else 0.0
    for k in range(obs_bits.shape[0]):
        key_obs[i, k] = obs_bits[k]
    for k in range(legal.shape[0]):
        key_legal[i, k] = legal[k]
    hval[slot, 0] = parent
    hval[slot, 1] = action
    hval[slot, 2] = i
    return i


@njit(**JIT)
def backup(stats, vals, params, path_node, path_action, length, v):
    """Back ``v`` (the searching seat's return) up the path."""
    for j in range(length):
        nd = path_node[j]
        a = path_action[j]
        stats[nd, S_N, a] += 1.0
        stats[nd, S_W, a] += v
        vals[nd, 0] += v
        vals[nd, 1] += 1.0
        params[P_LO] = min(params[P_LO], v)
        params[P_HI] = max(params[P_HI], v)


@njit(**JIT)
def heuristic_logits(logits, legal, action, mass):
    """Prior logits that give ``action`` the share ``mass`` and spread the
    rest evenly over the other legal actions (zero elsewhere)."""
    for a in range(logits.shape[0]):
        logits[a] = 0.0
    n = 0
    for a in range(legal.shape[0]):
        if legal[a] != 0:
            n += 1
    logits[action] = math.log(mass * max(1, n - 1) / (1.0 - mass))
