"""Self-play for the multi-seat games: opponent pools, the training view,
head-to-head matches and the league's ``play`` callable.

Opponent pools are written as ``NAME[:WEIGHT],...``, e.g.
``self:0.4,heuristic:0.4,random:0.2`` (a missing weight is 1). A name is

* ``self``: frozen snapshots of the learner (the trainer adds one every
  ``--snapshot-every`` iterations to ``--snapshot-slots`` ring slots; they
  play by sampling their policy, so they are varied opponents);
* ``random`` or ``heuristic``: the scripted agents (played inside numba);
* a saved model path (``.pt`` or SB3 ``.zip``), checked against the game;
* ``pretrained:NAME`` (a shipped reference agent, :mod:`..pretrained`) or
  ``module:attribute`` (your own agent, :mod:`..protocol`); a weight after
  them still reads as ``pretrained:NAME:0.5``.

:func:`make_view` builds the :class:`~dungeonrl.envs.core.adapters.selfplay.SelfPlayView`
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

from ...envs.core.adapters.selfplay import Opponent, SelfPlayView, placements
from ...envs.core.common import MASK_DTYPE
from ...envs.core.hooks import hooks_for
from ...envs.core.kernel.rng import rng_seed
from ..league import Placement
from ..metrics import wilson
from ..policy import TorchAgent, make_agent

__all__ = [
    "parse_pool",
    "make_view",
    "snapshot_agent",
    "play_match",
    "table_result",
    "play_team",
    "play_table",
    "match_summary",
    "league_play",
    "table_play",
    "SCRIPTED_NAMES",
]

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
                head = ""  # not a weight: a path with a colon
            else:
                name = head
        if not weight >= 0 or weight == float("inf"):
            raise ValueError(
                f"opponent {name!r}: weight must be a finite number >= 0, got {tail!r}"
            )
        out.append((name, weight))
    if sum(w for _, w in out) <= 0:
        raise ValueError(f"every opponent of the pool {text!r} has weight 0")
    return out


def make_view(
    core,
    num_envs: int,
    pool,
    *,
    seed: int = 0,
    snapshot_slots: int = 8,
    seats="rotate",
    strict: bool = True,
    partners=None,
    obs_dtype: str = "float32",
) -> SelfPlayView:
    """The self-play view of ``core`` with the opponent ``pool`` (a string
    for :func:`parse_pool` or its list). ``self`` entries become the
    snapshot share (fed by :meth:`SelfPlayView.add_snapshot`).

    Games with teams (``core.spec.teams``): the learner's teammates are
    drawn per episode from the same pool (snapshots of the learner
    included) unless ``partners`` (a pool string or list, without
    ``self``: snapshots always play both roles) gives them their own pool;
    the ``pool`` entries then play only the rival seats. ``obs_dtype``: the
    learner's observations (``"float16"``: the compact observation)."""
    entries = parse_pool(pool) if isinstance(pool, str) else list(pool)
    mates = (
        []
        if partners is None
        else (parse_pool(partners) if isinstance(partners, str) else list(partners))
    )
    if any(name == "self" for name, _ in mates):
        raise ValueError(
            "'self' in the partner pool: snapshots of the learner already play "
            "both roles (give 'self' a weight in the opponent pool)"
        )
    hooks = hooks_for(core.spec.name)
    self_w = sum(w for name, w in entries if name == "self")
    opponents = []
    roles = [("opponent" if mates else "both")] * len(entries) + ["partner"] * len(mates)
    for i, ((name, w), role) in enumerate(zip(entries + mates, roles)):
        if name == "self":
            continue
        agent = make_agent(
            name, core, seed=seed + 7919 * (i + 1), deterministic=False, strict=strict
        )
        opponents.append(
            Opponent(agent, w, name if name in SCRIPTED_NAMES else agent.name, role=role)
        )
    advance = hooks.scripted_advance(core) if hooks.scripted_advance else None
    return SelfPlayView(
        core,
        num_envs,
        opponents,
        seats=seats,
        advance=advance,
        seed=seed,
        snapshot_slots=snapshot_slots if self_w > 0 else 0,
        snapshot_weight=self_w,
        obs_dtype=obs_dtype,
    )


def snapshot_agent(policy, seed: int = 0, name: str = "self"):
    """A frozen copy of a learner (a fast-path ``ActorCritic`` or an SB3
    model / policy) as a sampling opponent."""
    if hasattr(policy, "policy") and hasattr(policy, "predict"):  # an SB3 model
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
        a, _ = self.policy.predict(
            view.obs[rows], deterministic=False, action_masks=view.masks[rows] != 0
        )
        return np.asarray(a, np.int64).reshape(len(rows))


# --- matches -------------------------------------------------------------------------------
class _MatchView:
    __slots__ = ("states", "obs", "masks")

    def __init__(self, states, obs, masks):
        self.states, self.obs, self.masks = states, obs, masks

    def observe_live(self, core, rows, te, tr):
        """Of ``rows``, the games still waiting on a decision (a seat to
        play, not ended), with their seats to play, their observations
        and masks written into the view (each row as its actor sees it)."""
        actor = core.to_play(self.states)[rows]
        live = (actor >= 0) & ~(te[rows] | tr[rows])
        rows, actor = rows[live], actor[live]
        if len(rows):
            full = np.zeros(len(self.states), np.int64)
            full[rows] = actor
            core.observe_rows(self.states, rows, full, self.obs, self.masks)
        return rows, actor


def play_match(core, agent_a, agent_b, games: int, seed: int = 0, *, batch: int = 2048) -> dict:
    """Games ``seed .. seed+games-1`` of ``agent_a`` (seat ``i % P`` in game
    ``i``, and every seat of its team when the game has teams: a side's
    partner is itself) against ``agent_b`` (every other seat). Scripted
    sides draw from one generator per game (from ``seed`` and the game's
    seed), so results do not depend on ``batch``; agents sampling in Python
    (``RandomAgent`` without the numba path, stochastic networks) draw per
    batch call. Returns per-game arrays:
    ``seat_a``, ``result`` (1 A's seat took first place, shared first
    included; -1 a rival seat did; 0 nobody: a tie, truncated or illegal;
    :func:`table_result`), ``length`` (decisions,
    all seats) and ``illegal`` counts."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    P = core.num_players
    team = core.spec.team_of(P)
    out: dict[str, list[np.ndarray]] = {"seat_a": [], "result": [], "length": []}
    illegal = 0
    for lo in range(0, games, batch):
        n = min(batch, games - lo)
        seat_a = np.arange(lo, lo + n) % P
        side = np.where(team[None, :] == team[seat_a][:, None], 0, 1)
        r = _table_batch(
            core,
            (agent_a, agent_b),
            side,
            np.arange(seed + lo, seed + lo + n, dtype=np.uint64),
            seed,
        )
        result = table_result(r["returns"], side, seat_a)
        illegal += _add_chunk(out, seat_a, result, r)
    return _results(out, illegal)


def table_result(returns, side, seat_a) -> np.ndarray:
    """Per game, ``1`` when seat ``seat_a`` holds the table's best return and
    it is positive (first place, shared first included), ``-1`` when a seat
    of side 1 does instead, ``0`` when no seat does (a tie, a truncated
    game). A positive return alone is not a win: a ranking game such as
    Dungeon Kart pays every place above the middle (second of four gets
    +1/3), so only the best return is first place; in games that pay the
    winner alone (two seats, Dungeon Crawler) the two readings agree."""
    ret = np.asarray(returns, np.float64)
    n = len(ret)
    mine = ret[np.arange(n), np.asarray(seat_a)]
    best = ret.max(axis=1)
    rival = np.where(np.asarray(side) == 1, ret, -np.inf).max(axis=1)
    won = (mine > 0) & (mine >= best)
    lost = ~won & (rival > 0) & (rival >= best)
    return np.where(won, 1, np.where(lost, -1, 0))


def _add_chunk(out: dict, seat_a, result, r) -> int:
    """Append one batch of games (the agent's seat, its result, the
    lengths) to ``out``; returns the batch's illegal-action count."""
    out["seat_a"].append(seat_a.astype(np.int64))
    out["result"].append(result.astype(np.int64))
    out["length"].append(r["length"])
    return r["illegal"]


def _results(out: dict, illegal: int) -> dict:
    res: dict[str, np.ndarray | int] = {k: np.concatenate(v) for k, v in out.items()}
    res["illegal"] = illegal
    return res


def play_team(
    core, agent, partner=None, games: int = 1000, seed: int = 0, *, opponent=None, batch: int = 2048
) -> dict:
    """Games ``seed .. seed+games-1`` of a team: ``agent`` in seat ``i % P``
    of game ``i``, ``partner`` in every other seat of its team (``None``:
    ``agent`` plays them too, i.e. it partners itself) and ``opponent`` in
    the rival seats (required when the game has rival teams; a co-op game
    such as Dungeon Crawler Carl: Unstoppable has none). The games, the
    scripted sides' generators and the result do not depend on ``batch``,
    as in :func:`play_match`. Returns per-game arrays ``seat_a``,
    ``result`` (1: the agent's team won; -1: its seat's return is negative,
    the team lost, or a rival team won; 0: no result, e.g. truncated) and
    ``length`` (decisions, all seats), and the ``illegal`` count."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    P = core.num_players
    team = core.spec.team_of(P)
    if opponent is None and len(set(team.tolist())) > 1:
        raise ValueError(
            f"{core.spec.name} with {P} players has rival teams: give an opponent for their seats"
        )
    agents = (agent, agent if partner is None else partner, opponent)
    out: dict[str, list[np.ndarray]] = {"seat_a": [], "result": [], "length": []}
    illegal = 0
    for lo in range(0, games, batch):
        n = min(batch, games - lo)
        seat_a = np.arange(lo, lo + n) % P
        mate = team[None, :] == team[seat_a][:, None]
        side = np.where(mate, 1, 2)
        side[np.arange(n), seat_a] = 0
        r = _table_batch(
            core, agents, side, np.arange(seed + lo, seed + lo + n, dtype=np.uint64), seed
        )
        mine = r["returns"][np.arange(n), seat_a]
        # a game's end pays the team: > 0 won, < 0 lost (or a rival side won)
        result = np.where(mine > 0, 1, np.where(mine < 0, -1, 0))
        if opponent is not None:
            rivals = np.where(side == 2, r["returns"], 0.0)
            result = np.where((result == 0) & (rivals > 0).any(axis=1), -1, result)
        illegal += _add_chunk(out, seat_a, result, r)
    return _results(out, illegal)


def play_table(core, lineup, games: int, seed: int = 0, *, names=None, batch: int = 2048) -> list:
    """Games ``seed .. seed+games-1`` with one agent per *side* of the game
    (``lineup[k]`` plays every seat of team ``k`` of ``core.spec.teams``; a
    game without teams has one side per seat); side ``k`` takes team
    ``(k + i) % teams`` in game ``i`` so no side keeps the first seats.
    Returns one :class:`~dungeonrl.agents.league.Placement` per game
    (``names``: the side names, default the agents' ``name``), from the
    game's placements (:func:`dungeonrl.envs.core.adapters.selfplay.placements`);
    a game without a result (truncated, illegal) is a tie of every side."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    P = core.num_players
    team = core.spec.team_of(P)
    T = int(team.max()) + 1
    if len(lineup) != T:
        raise ValueError(
            f"{core.spec.name} with {P} players has {T} sides, got a lineup of {len(lineup)}"
        )
    names = list(names) if names is not None else [getattr(a, "name", str(a)) for a in lineup]
    out = []
    for lo in range(0, games, batch):
        n = min(batch, games - lo)
        shift = np.arange(lo, lo + n) % T
        side = (team[None, :] - shift[:, None]) % T  # side playing each seat
        r = _table_batch(
            core, tuple(lineup), side, np.arange(seed + lo, seed + lo + n, dtype=np.uint64), seed
        )
        for i in range(n):
            info = core.episode_info(r["states"][i])
            place = placements(core.spec, P, info)
            ranks = [0] * T
            for k in range(T):
                seats = np.flatnonzero(side[i] == k)
                ranks[k] = 0 if place is None else int(place[int(seats[0])])
            out.append(Placement(tuple((nm,) for nm in names), tuple(ranks)))
    return out


def _table_batch(core, agents, side, seeds, policy_seed) -> dict:
    """Play games ``seeds`` to the end, ``agents[side[i, s]]`` in seat ``s``
    of game ``i``. Returns per-seat ``returns``, ``length``, the final
    ``states`` and the ``illegal`` count."""
    hooks = hooks_for(core.spec.name)
    advance = hooks.scripted_advance(core) if hooks.scripted_advance else None
    n, P = len(seeds), core.num_players
    n_obs, A = core.spec.obs_size, core.spec.num_actions
    states = core.alloc(n)
    core.reset(states, seeds)
    view = _MatchView(states, np.zeros((n, n_obs), np.float32), np.zeros((n, A), MASK_DTYPE))
    code = np.array(
        [
            -1 if advance is None or getattr(a, "scripted", None) is None else int(a.scripted)
            for a in agents
        ],
        np.int8,
    )
    codes = np.ascontiguousarray(code[side])
    prng = np.zeros((n, 2), np.uint64)  # scripted play of game seed+i: its own stream
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
        rows, actor = view.observe_live(core, rows, te, tr)
        if not len(rows):
            break
        who = side[rows, actor]
        for k, agent in enumerate(agents):
            rr = rows[who == k]
            if len(rr):
                acts[rr] = agent.act(view, rr)
        core.step_rows(states, rows, acts, rew, te, tr, il)
        ret[rows] += rew[rows]
        length[rows] += 1
        illegal += int(il[rows].sum())
    if steps0 is not None:  # decisions, scripted ones included
        length = (states["steps"] - steps0).astype(np.int64)
    return {"returns": ret, "length": length, "states": states, "illegal": illegal}


def match_summary(res: dict, name: str, opponent: str, seed: int = 0) -> dict:
    """An evaluation row (as :func:`dungeonrl.agents.commands.evaluate.summarize`):
    A's win rate with its 95% Wilson interval, draws, mean decisions."""
    result = res["result"]
    n = len(result)
    k = int((result == 1).sum())
    lo, hi = wilson(k, n)
    return {
        "agent": name,
        "opponent": opponent,
        "games": n,
        "seed": seed,
        "wins": k,
        "losses": int((result == -1).sum()),
        "draws": int((result == 0).sum()),
        "win_rate": k / n,
        "ci95": [lo, hi],
        "mean_length": float(res["length"].mean()),
        "illegal_actions": int(res["illegal"]),
    }


def table_play(core):
    """``play(agents, names, games, seed) -> [Placement]`` for
    :class:`~dungeonrl.agents.league.PlacementLeague` (one agent per side)."""

    def play(agents, names, games, seed):
        return play_table(core, agents, games, seed, names=names)

    return play


def league_play(core):
    """``play(agent_a, agent_b, games, seed) -> (wins_a, wins_b, draws)`` for
    :class:`~dungeonrl.agents.league.League` (seats alternate by game)."""

    def play(a, b, games, seed):
        r = play_match(core, a, b, games, seed)["result"]
        return int((r == 1).sum()), int((r == -1).sum()), int((r == 0).sum())

    return play
