"""Self-play for the multi-seat games: opponent pools, the training view,
head-to-head matches and the league's ``play`` callable.

Opponent pools are written as ``NAME[:WEIGHT],...``, e.g.
``self:0.4,heuristic:0.4,random:0.2`` (a missing weight is 1). A name is

* ``self``: frozen snapshots of the learner (the trainer adds one every
  ``--snapshot-every`` iterations to ``--snapshot-slots`` ring slots; they
  play by sampling their policy, so they are varied opponents);
* ``random`` or ``heuristic``: the scripted agents (played inside numba);
* a saved model path (``.pt`` or SB3 ``.zip``), checked against the game.

:func:`make_view` builds the :class:`~dungeonrl.envs.core.selfplay.SelfPlayView`
that both PPO paths train on. :func:`play_match` plays seeded games of one
agent against another (agent A takes one seat, alternating ``i % P`` over
the games; agent B every other seat) with every row stepped together, the
scripted sides inside numba; :func:`match_summary` turns its result into an
evaluation row (win rate and 95% Wilson interval), and :func:`league_play`
is the ``play`` callable of :class:`~dungeonrl.agents.league.League`.
"""
from __future__ import annotations

import copy

import numpy as np

from ..envs.core._batch import MASK_DTYPE
from ..envs.core.selfplay import Opponent, SelfPlayView
from .games import hooks_for
from .metrics import wilson

__all__ = ["parse_pool", "make_view", "snapshot_agent", "play_match", "match_summary",
           "league_play", "SCRIPTED_NAMES"]

SCRIPTED_NAMES = ("random", "heuristic")


def parse_pool(text: str) -> list:
    """``"self:0.4,heuristic:0.4,random:0.2"`` -> ``[("self", 0.4), ...]``.
    Raises ``ValueError`` on an empty pool, a bad or negative weight, or an
    all-zero pool."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("the opponent pool is empty: give e.g. 'self:0.5,heuristic:0.5'")
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise ValueError(f"empty entry in the opponent pool {text!r}")
        name, weight = item, 1.0
        head, sep, tail = item.rpartition(":")
        if sep and not tail.strip():
            raise ValueError(f"opponent {head!r}: missing weight after ':' in {text!r}")
        if sep:
            try:
                weight = float(tail)
            except ValueError:
                head = ""          # not a weight: a path with a colon
            else:
                name = head
        if not weight >= 0 or weight == float("inf"):
            raise ValueError(f"opponent {name!r}: weight must be a finite number >= 0, "
                             f"got {tail!r}")
        out.append((name, weight))
    if sum(w for _, w in out) <= 0:
        raise ValueError(f"every opponent of the pool {text!r} has weight 0")
    return out


def make_view(core, num_envs: int, pool, *, seed: int = 0, snapshot_slots: int = 8,
              seats="rotate", strict: bool = True) -> SelfPlayView:
    """The self-play view of ``core`` with the opponent ``pool`` (a string
    for :func:`parse_pool` or its list). ``self`` entries become the
    snapshot share (fed by :meth:`SelfPlayView.add_snapshot`)."""
    from .policy import make_agent
    entries = parse_pool(pool) if isinstance(pool, str) else list(pool)
    hooks = hooks_for(core.spec.name)
    self_w = sum(w for name, w in entries if name == "self")
    opponents = []
    for i, (name, w) in enumerate(entries):
        if name == "self":
            continue
        agent = make_agent(name, core, seed=seed + 7919 * (i + 1), deterministic=False,
                           strict=strict)
        opponents.append(Opponent(agent, w, name if name in SCRIPTED_NAMES else agent.name))
    advance = hooks.scripted_advance(core) if hooks.scripted_advance else None
    return SelfPlayView(core, num_envs, opponents, seats=seats, advance=advance, seed=seed,
                        snapshot_slots=snapshot_slots if self_w > 0 else 0,
                        snapshot_weight=self_w)


def snapshot_agent(policy, seed: int = 0, name: str = "self"):
    """A frozen copy of a learner (a fast-path ``ActorCritic`` or an SB3
    model / policy) as a sampling opponent."""
    from .policy import TorchAgent
    if hasattr(policy, "policy") and hasattr(policy, "predict"):   # an SB3 model
        policy = policy.policy
    if hasattr(policy, "logits"):
        return TorchAgent(copy.deepcopy(policy), deterministic=False, seed=seed, name=name)
    return _SB3PolicyAgent(copy.deepcopy(policy), name)


class _SB3PolicyAgent:
    """A frozen MaskablePPO policy that samples its masked distribution."""

    scripted = None

    def __init__(self, policy, name: str):
        self.policy = policy.set_training_mode(False) or policy
        self.name = name

    def act(self, view, rows):
        a, _ = self.policy.predict(view.obs[rows], deterministic=False,
                                   action_masks=view.masks[rows] != 0)
        return np.asarray(a, np.int64).reshape(len(rows))


# --- matches -------------------------------------------------------------------------------
class _MatchView:
    __slots__ = ("states", "obs", "masks")

    def __init__(self, states, obs, masks):
        self.states, self.obs, self.masks = states, obs, masks


def play_match(core, agent_a, agent_b, games: int, seed: int = 0, *, batch: int = 2048) -> dict:
    """Games ``seed .. seed+games-1`` of ``agent_a`` (seat ``i % P`` in game
    ``i``) against ``agent_b`` (every other seat). Scripted sides draw from
    one generator per game (from ``seed`` and the game's seed), so results
    do not depend on ``batch``; agents sampling in Python (``RandomAgent``
    without the numba path, stochastic networks) draw per batch call.
    Returns per-game arrays:
    ``seat_a``, ``result`` (1 A won, -1 another seat won, 0 nobody: truncated
    or illegal), ``length`` (decisions, all seats) and ``illegal`` counts."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    hooks = hooks_for(core.spec.name)
    advance = hooks.scripted_advance(core) if hooks.scripted_advance else None
    out = {"seat_a": [], "result": [], "length": []}
    illegal = 0
    for lo in range(0, games, batch):
        n = min(batch, games - lo)
        r = _match_batch(core, agent_a, agent_b, np.arange(seed + lo, seed + lo + n,
                                                           dtype=np.uint64),
                         np.arange(lo, lo + n) % core.num_players, advance, seed)
        for k in out:
            out[k].append(r[k])
        illegal += r["illegal"]
    res = {k: np.concatenate(v) for k, v in out.items()}
    res["illegal"] = illegal
    return res


def _match_batch(core, agent_a, agent_b, seeds, seat_a, advance, policy_seed) -> dict:
    from ..envs.core.rng import rng_seed
    n, P = len(seeds), core.num_players
    O, A = core.spec.obs_size, core.spec.num_actions
    states = core.alloc(n)
    core.reset(states, seeds)
    view = _MatchView(states, np.zeros((n, O), np.float32), np.zeros((n, A), MASK_DTYPE))
    code_a, code_b = (getattr(x, "scripted", None) for x in (agent_a, agent_b))
    codes = np.full((n, P), -1 if code_b is None or advance is None else code_b, np.int8)
    codes[np.arange(n), seat_a] = -1 if code_a is None or advance is None else code_a
    prng = np.zeros((n, 2), np.uint64)     # scripted play of game seed+i: its own stream
    for j in range(n):
        rng_seed(prng[j], np.uint64(policy_seed), np.uint64(seeds[j]))
    nobody = np.full(n, -1, np.int64)
    ret = np.zeros((n, P), np.float32)
    rew = np.zeros((n, P), np.float32)
    te = np.zeros(n, np.bool_)
    tr = np.zeros(n, np.bool_)
    il = np.zeros(n, np.bool_)
    acts = np.zeros(n, np.int64)
    length = np.zeros(n, np.int64)
    steps0 = states["steps"].copy() if "steps" in states.dtype.names else None
    illegal = 0
    rows = np.arange(n)
    while len(rows):
        if advance is not None:
            advance(states, rows, nobody, codes, prng, ret, te, tr)
        actor = core.to_play(states)[rows]
        live = (actor >= 0) & ~(te[rows] | tr[rows])
        rows, actor = rows[live], actor[live]
        if not len(rows):
            break
        full = np.zeros(n, np.int64)
        full[rows] = actor
        core.observe_rows(states, rows, full, view.obs, view.masks)
        is_a = actor == seat_a[rows]
        for agent, sel in ((agent_a, is_a), (agent_b, ~is_a)):
            rr = rows[sel]
            if len(rr):
                acts[rr] = agent.act(view, rr)
        core.step_rows(states, rows, acts, rew, te, tr, il)
        ret[rows] += rew[rows]
        length[rows] += 1
        illegal += int(il[rows].sum())
    if steps0 is not None:            # decisions, scripted ones included
        length = (states["steps"] - steps0).astype(np.int64)
    mine = ret[np.arange(n), seat_a]
    others = ret.copy()
    others[np.arange(n), seat_a] = 0.0
    result = np.where(mine > 0, 1, np.where((others > 0).any(axis=1), -1, 0))
    return {"seat_a": seat_a.astype(np.int64), "result": result.astype(np.int64),
            "length": length, "illegal": illegal}


def match_summary(res: dict, name: str, opponent: str, seed: int = 0) -> dict:
    """An evaluation row (as :func:`dungeonrl.agents.evaluate.summarize`):
    A's win rate with its 95% Wilson interval, draws, mean decisions."""
    result = res["result"]
    n = len(result)
    k = int((result == 1).sum())
    lo, hi = wilson(k, n)
    return {"agent": name, "opponent": opponent, "games": n, "seed": seed, "wins": k,
            "losses": int((result == -1).sum()), "draws": int((result == 0).sum()),
            "win_rate": k / n, "ci95": [lo, hi], "mean_length": float(res["length"].mean()),
            "illegal_actions": int(res["illegal"])}


def league_play(core):
    """``play(agent_a, agent_b, games, seed) -> (wins_a, wins_b, draws)`` for
    :class:`~dungeonrl.agents.league.League` (seats alternate by game)."""
    def play(a, b, games, seed):
        r = play_match(core, a, b, games, seed)["result"]
        return int((r == 1).sum()), int((r == -1).sum()), int((r == 0).sum())
    return play
