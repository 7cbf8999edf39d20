"""The single-agent view of a multi-seat game: one learner seat, the other
seats driven by an opponent pool. What self-play training and PvP
evaluation are built on.

:class:`SelfPlayView` holds ``n`` games of a multi-player core. In every
row the *learner* owns one seat; every other seat is played by an opponent
drawn from the pool when the episode starts. ``step_autoreset()`` applies
the learner's actions, then plays the opponents' decisions until each row is
back at the learner's turn (or the game is over), resets finished games in
place (same-step autoreset) and writes the learner's next observation and
legal mask. To the trainer it is a 1-player batch: the attribute names and
shapes are those of :class:`~dungeonrl.envs.core.batch.Batch`, so the
native vector env, the SB3 VecEnv and ``agents/algos/ppo.py`` drive it unchanged.

Seats
    ``seats="rotate"`` (default): row ``i`` starts in seat ``i % P`` and
    moves one seat on after every episode, so the learner plays every seat
    equally often; an ``int`` pins the learner to that seat.

Teammates
    A game whose spec declares teams (``spec.teams(P)``, e.g. 2 teams of 2)
    gives the learner partners: its teammates' seats are played by entries
    drawn, per episode, from the pool entries whose ``role`` is ``"partner"``
    or ``"both"`` (default), the rival seats by those whose role is
    ``"opponent"`` or ``"both"``. A partner can be a pool member or the
    learner itself as a frozen snapshot (:meth:`add_snapshot` entries play
    both roles). Teammates share the team's reward (the rules pay it).

Opponents
    An opponent is any batched agent: ``act(view, rows) -> int64 actions``
    reading ``view.obs[rows]`` / ``view.masks[rows]`` (the acting seat's
    observation and legal mask) or ``view.states[rows]``, with a ``name``.
    Each non-learner seat of a row draws its own opponent, with
    probabilities proportional to the pool weights, at the start of every
    episode. Opponents whose ``scripted`` attribute is a code known to the
    game's ``advance`` kernel (Dungeon Crawler: 0 random, 1 heuristic) are
    played entirely inside numba; the others (networks) are called once per
    opponent decision round with every row waiting on them in one batch.

Snapshots
    :meth:`add_snapshot` puts a frozen copy of the learner into one of
    ``snapshot_slots`` ring slots sharing the pool weight ``snapshot_weight``
    (the oldest slot is overwritten once all are full, or the one named by
    ``replace``; rows that drew it meet the newer snapshot from then on).
    Until the first snapshot the share goes to the other entries. The share
    is split evenly, or by ``slot_priority`` (pool index -> relative weight)
    when a caller sets it, as prioritized fictitious self-play does;
    ``on_episodes(rows)`` lets such a caller see every finished game.

Rewards
    ``rewards[:, 0]`` is the learner seat's reward summed over its own
    decision and the opponents' decisions that follow it. A row whose game
    ends during the opponents' decisions ends for the learner on that step
    (``terminated``/``truncated``), with ``final_obs`` the learner seat's view
    of the final state. Rewards the learner seat receives before its first
    decision of an episode (none in Dungeon Crawler) are added to its first
    step.

An illegal opponent action ends the game like any illegal action (the
acting seat is penalised, the learner's reward is that of the rules); it is
counted in ``opponent_illegal`` and never happens with the shipped agents.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence

import numpy as np

from ..batch import core_batch, vector_step
from ..common import MASK_DTYPE, draw_seeds
from ..copying import Copyable
from ..spec import GameCore, check_unknown_reset_options
from ..validate import _is_int, check_num_envs, check_obs_dtype, check_seed

__all__ = ["SelfPlayView", "Opponent", "placements", "seat_outcome"]

#: fresh games drawn in a row for a row whose game keeps ending before the
#: learner acts (see ``SelfPlayView._start``) before the view gives up
START_ATTEMPTS = 64


ROLES = ("both", "opponent", "partner")


class Opponent:
    """A pool entry: a batched agent, its sampling weight and its ``role``:
    ``"opponent"`` (rival seats only), ``"partner"`` (the learner's
    teammates only) or ``"both"``."""

    __slots__ = ("agent", "weight", "name", "role")

    def __init__(self, agent, weight: float = 1.0, name: str | None = None, role: str = "both"):
        if not weight >= 0:
            raise ValueError(f"opponent weight must be >= 0, got {weight!r}")
        if role not in ROLES:
            raise ValueError(f"unknown pool role {role!r}: expected one of {list(ROLES)}")
        self.agent = agent
        self.weight = float(weight)
        self.name = name or getattr(agent, "name", type(agent).__name__)
        self.role = role


class SelfPlayView(Copyable):
    """``n`` games of a multi-seat ``core`` seen from the learner's seat (see
    the module doc). ``opponents``: agents or :class:`Opponent` entries;
    ``advance``: the game's scripted-opponent kernel, ``advance(states, rows,
    learner, codes, prng, returns, terminated, truncated)`` (``None``: every
    opponent is called through ``act``); ``seed``: seeds the opponent draws,
    the scripted opponents' generators and the seeds of later episodes;
    ``unknown_reset_options``: ``"warn"`` (a reset option the game does not
    declare is ignored with one warning per key) or ``"raise"``;
    ``obs_dtype``: the learner's observations, ``"float32"`` or ``"float16"``
    (the compact observation; opponents called through ``act`` always see
    float32)."""

    _derived = ("reward",)  # a view of ``rewards``: rebuilt on a copy (see .copying)
    # set by _refresh_probs (declared here: __init__ reads them after calling it)
    _probs: np.ndarray | None  # rival draw probabilities (None: nothing to draw)
    _partner_probs: np.ndarray | None  # partner draw probabilities
    _codes_of: np.ndarray  # scripted code of every pool entry (-1: called through act)

    def __init__(
        self,
        core: GameCore,
        num_envs: int,
        opponents: Sequence,
        *,
        seats="rotate",
        advance: Callable | None = None,
        seed: int = 0,
        snapshot_slots: int = 0,
        snapshot_weight: float = 0.0,
        unknown_reset_options: str = "warn",
        obs_dtype: str = "float32",
    ):
        self.unknown_reset_options = check_unknown_reset_options(unknown_reset_options)
        self._warned_reset_keys: set = set()  # unknown reset options warned about
        self.obs_dtype = check_obs_dtype(obs_dtype)
        P = int(core.num_players)
        if P < 2:
            raise ValueError(
                f"SelfPlayView needs a multi-seat core; {core.spec.name} was built for {P} player"
            )
        num_envs = check_num_envs(num_envs)
        seed = check_seed(seed, "seed")
        self.pool = [o if isinstance(o, Opponent) else Opponent(o) for o in opponents]
        if not _is_int(snapshot_slots) or not 0 <= int(snapshot_slots) <= 2**16:
            raise ValueError(
                f"snapshot_slots must be an integer in [0, {2**16}], got {snapshot_slots!r}"[:200]
            )
        weight: object = snapshot_weight  # checked as whatever a caller passed
        if (
            isinstance(weight, (bool, np.bool_))
            or not isinstance(weight, (numbers.Real, np.floating, np.integer))
            or not 0 <= float(weight) < math.inf
        ):
            raise ValueError(
                f"snapshot_weight must be a finite number >= 0, got {snapshot_weight!r}"[:200]
            )
        if not self.pool and not (snapshot_slots and snapshot_weight):
            raise ValueError("the opponent pool is empty")
        if seats != "rotate":
            if (
                isinstance(seats, bool)
                or not isinstance(seats, (int, np.integer))
                or not 0 <= seats < P
            ):
                raise ValueError(f"seats must be 'rotate' or a seat 0..{P - 1}, got {seats!r}")
        self.core = core
        self.batch = core_batch(core)  # the kernel calls (on this view's arrays)
        self.spec = core.spec
        self.num_players = P
        self.n = self.num_envs = int(num_envs)
        self.rotate = seats == "rotate"
        self.team = core.spec.team_of(P)  # team index of every seat
        self.has_partners = bool((np.bincount(self.team) > 1).any())
        self.advance = advance
        self.rng = np.random.default_rng(seed)
        n, obs_dim, A = self.n, self.spec.obs_size, self.spec.num_actions
        # the game
        self.states = core.alloc(n)
        self.seeds = np.zeros(n, np.uint64)
        self.seat = (np.arange(n) % P if self.rotate else np.full(n, int(seats))).astype(np.int64)
        self.opp = np.zeros((n, P), np.int64)  # pool index per (row, seat)
        self.codes = np.full((n, P), -1, np.int8)  # scripted code per (row, seat)
        self.prng = np.zeros((n, 2), np.uint64)  # scripted opponents' generators
        self.prng[:, 0] = draw_seeds(self.rng, n)
        # what the learner sees (the names of a Batch)
        self.obs = np.zeros((n, obs_dim), self.obs_dtype)
        self.masks = np.zeros((n, A), MASK_DTYPE)
        self.actions = np.zeros(n, np.int64)
        self.players = self.seat  # observer seat of each row
        self.rewards = np.zeros((n, 1), np.float32)
        self.reward = self.rewards[:, 0]
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.illegal = np.zeros(n, np.bool_)
        self.final_obs = np.zeros((n, obs_dim), self.obs_dtype)
        self.final_states = core.alloc(n)
        self.final_seat = np.full(n, -1, np.int64)
        self.final_opponents = [""] * n
        self.final_partners = [""] * n
        # scratch
        self._ret = np.zeros((n, P), np.float32)  # per-seat return since the last step
        self._carry = np.zeros(n, np.float32)
        self._rew = np.zeros((n, P), np.float32)
        self._te = np.zeros(n, np.bool_)
        self._tr = np.zeros(n, np.bool_)
        self._il = np.zeros(n, np.bool_)
        self._acts = np.zeros(n, np.int64)
        self._rows = np.arange(n)
        self._actor = np.zeros(n, np.int64)  # seat to act, at waiting rows
        self._opp_view = _OpponentView(
            self.states, np.zeros((n, obs_dim), np.float32), np.zeros((n, A), MASK_DTYPE)
        )
        self._scratch_masks = np.zeros((n, A), MASK_DTYPE)
        self.opponent_illegal = 0
        self.episodes = 0
        # snapshot slots
        self.snapshot_weight = float(snapshot_weight)
        self._slots: list[int] = []
        self._slot_max = int(snapshot_slots) if snapshot_weight > 0 else 0
        self._next_slot = 0
        #: relative draw weight of a snapshot (pool index -> weight; 1 when absent)
        #: within the ``snapshot_weight`` share: prioritized fictitious self-play sets it
        self.slot_priority: dict[int, float] = {}
        #: ``on_episodes(rows)``: called with the rows whose games just ended,
        #: after ``final_*`` are written and before the rows restart (``None``: off)
        self.on_episodes: Callable | None = None
        self._refresh_probs()
        if self._probs is None and not self._slot_max:
            raise ValueError("every opponent of the pool has weight 0")

    def _after_copy(self) -> None:
        super()._after_copy()
        self.reward = self.rewards[:, 0]

    # --- the pool ------------------------------------------------------------------
    def _refresh_probs(self) -> None:
        w = np.array([o.weight for o in self.pool], np.float64)
        if self._slots:
            pri = np.array([max(0.0, float(self.slot_priority.get(k, 1.0))) for k in self._slots])
            if not pri.sum() > 0:
                pri[:] = 1.0
            for k, p in zip(self._slots, pri):
                w[k] = self.snapshot_weight * p / pri.sum()
        role = np.array([o.role for o in self.pool], dtype=object)
        w_opp = np.where(role != "partner", w, 0.0)
        w_part = np.where(role != "opponent", w, 0.0)
        # a pool of only snapshots has nothing to draw until the first one is added
        self._probs = w_opp / w_opp.sum() if w_opp.sum() > 0 else None
        self._partner_probs = w_part / w_part.sum() if w_part.sum() > 0 else None
        self._codes_of = np.array(
            [_code(o.agent) if self.advance is not None else -1 for o in self.pool], np.int8
        )

    def add_snapshot(self, agent, name: str | None = None, replace: int | None = None) -> int:
        """Put a frozen agent (e.g. a copy of the learner) into the next
        snapshot slot; returns its pool index. Once every slot is full the
        oldest is replaced, or the entry of pool index ``replace`` (one of
        the snapshots) when given."""
        if not self._slot_max:
            raise ValueError(
                "this view was built without snapshot slots "
                "(snapshot_slots > 0 and snapshot_weight > 0)"
            )
        entry = Opponent(
            agent, 0.0, name or getattr(agent, "name", None) or f"snapshot_{self._next_slot}"
        )
        if len(self._slots) < self._slot_max:
            self.pool.append(entry)
            self._slots.append(len(self.pool) - 1)
            k = self._slots[-1]
        elif replace is not None:
            if replace not in self._slots:
                raise ValueError(f"pool entry {replace!r} is not a snapshot slot")
            k = int(replace)
            self.pool[k] = entry
        else:
            k = self._slots[self._next_slot % self._slot_max]
            self.pool[k] = entry
        self.slot_priority.pop(k, None)
        self._next_slot += 1
        self._refresh_probs()
        return k

    def opponent_names(self) -> list:
        return [o.name for o in self.pool]

    def _draw_opponents(self, rows: np.ndarray) -> None:
        if self._probs is None:
            raise ValueError(
                "every opponent of the pool has weight 0 (a pool of only "
                "snapshots needs add_snapshot() before reset())"
            )
        P = self.num_players
        k = self.rng.choice(len(self.pool), size=(len(rows), P), p=self._probs)
        if self.has_partners:
            if self._partner_probs is None:
                raise ValueError(
                    f"{self.spec.name} has teams but no pool entry can be a "
                    "partner (role 'partner' or 'both' with weight > 0, or a "
                    "snapshot added with add_snapshot())"
                )
            mates = self.team[None, :] == self.team[self.seat[rows]][:, None]
            kp = self.rng.choice(len(self.pool), size=(len(rows), P), p=self._partner_probs)
            k = np.where(mates, kp, k)
        self.opp[rows] = k
        codes = self._codes_of[k]
        codes[np.arange(len(rows)), self.seat[rows]] = -1
        self.codes[rows] = codes

    # --- episodes ------------------------------------------------------------------
    def reset(self, seeds: np.ndarray, options: dict | None = None, checked: bool = False) -> None:
        """Start a new game in every row (row ``i`` from ``seeds[i]``), draw
        opponents, play them up to the learner's first decision, observe.
        ``options``: the game's reset options (``spec.reset_options``),
        applied to these games (not to the later autoreset ones); validated
        here unless ``checked`` (the caller's adapter validated them)."""
        opts = (
            options
            if checked
            else self.spec.check_reset_options(
                options, self.unknown_reset_options, self._warned_reset_keys
            )
        )
        self.seeds[:] = seeds
        self.batch.reset_states(self.states, self.seeds)
        if opts:
            self.core.apply_reset_options(self.states, opts)
        rows = self._rows
        self._carry[:] = 0.0
        self._start(rows)
        self.batch.observe_some(self.states, rows, self.seat, self.obs, self.masks)

    def _start(self, rows: np.ndarray) -> None:
        """Opponents for fresh games in ``rows``, played to the learner's turn
        (a game that ends before it is restarted, at most
        ``START_ATTEMPTS`` times in a row: a step cap shorter than the
        opponents' decisions before the learner's turn would loop forever)."""
        attempts = 0
        while len(rows):
            attempts += 1
            if attempts > START_ATTEMPTS:
                raise ValueError(
                    f"{self.core.spec.name}: {len(rows)} game(s) ended {START_ATTEMPTS} times "
                    f"in a row before the learner's seat could act (max_steps="
                    f"{int(self.states['max_steps'][rows[0]])} is shorter than the opponents' "
                    f"decisions before that seat's first turn); raise max_steps"
                )
            self._draw_opponents(rows)
            self._ret[rows] = 0.0
            self._te[rows] = False
            self._tr[rows] = False
            self._play_opponents(rows)
            self._carry[rows] += self._ret[rows, self.seat[rows]]
            over = rows[self._te[rows] | self._tr[rows]]
            if len(over):  # over before the learner moved: a new game
                sub = self.states[over]
                self.batch.reset_states(sub, draw_seeds(self.rng, len(over)))
                self.states[over] = sub
            rows = over

    def fused_step(self) -> None:
        """The learner's actions (``self.actions``), the opponents' replies,
        autoreset, the learner's next observation and mask."""
        batch, rows = self.batch, self._rows
        batch.step_states(self.states, self.actions, self._rew, self._te, self._tr, self._il)
        self.illegal[:] = self._il
        self._ret[:] = self._rew
        live = rows[~(self._te | self._tr)]
        self._play_opponents(live)
        self.reward[:] = self._ret[rows, self.seat] + self._carry
        self._carry[:] = 0.0
        self.terminated[:] = self._te
        self.truncated[:] = self._tr & ~self._te
        done = np.flatnonzero(self._te | self._tr)
        if len(done):
            batch.observe_some(self.states, done, self.seat, self.final_obs, self._scratch_masks)
            self.final_states[done] = self.states[done]
            self.final_seat[done] = self.seat[done]
            for i in done.tolist():
                me = self.team[self.seat[i]]
                self.final_opponents[i] = ",".join(
                    self.pool[self.opp[i, s]].name
                    for s in range(self.num_players)
                    if self.team[s] != me
                )
                self.final_partners[i] = ",".join(
                    self.pool[self.opp[i, s]].name
                    for s in range(self.num_players)
                    if self.team[s] == me and s != self.seat[i]
                )
            self.episodes += len(done)
            if self.on_episodes is not None:
                self.on_episodes(done)
            sub = self.states[done]
            batch.reset_states(sub, draw_seeds(self.rng, len(done)))
            self.states[done] = sub
            if self.rotate:
                self.seat[done] = (self.seat[done] + 1) % self.num_players
            self._start(done)
        batch.observe_some(self.states, rows, self.seat, self.obs, self.masks)

    # ``step``: the SingleAgentGame name used by agents/algos/ppo.py; ``step_autoreset``:
    # the first name of this method
    step = step_autoreset = fused_step

    def vector_step(self, actions, strict: bool):
        """The vector envs' whole step, as on a Batch (:func:`~..batch.vector_step`)."""
        return vector_step(self, actions, strict)

    def _play_opponents(self, rows: np.ndarray) -> None:
        """Opponent decisions in ``rows`` until the learner is to act or the
        game is over; per-seat rewards accumulate in ``self._ret``."""
        core = self.core
        while len(rows):
            if self.advance is not None:
                self.advance(
                    self.states,
                    rows,
                    self.seat,
                    self.codes,
                    self.prng,
                    self._ret,
                    self._te,
                    self._tr,
                )
            actor = core.to_play(self.states)[rows]
            wait = (actor >= 0) & (actor != self.seat[rows]) & ~(self._te[rows] | self._tr[rows])
            rows = rows[wait]
            if not len(rows):
                return
            actor = actor[wait]
            self._actor[rows] = actor
            v = self._opp_view
            self.batch.observe_some(self.states, rows, self._actor, v.obs, v.masks)
            who = self.opp[rows, actor]
            for k in np.unique(who).tolist():
                rr = rows[who == k]
                self._acts[rr] = self.pool[k].agent.act(v, rr)
            self.batch.step_some(
                self.states, rows, self._acts, self._rew, self._te, self._tr, self._il
            )
            self._ret[rows] += self._rew[rows]
            self.opponent_illegal += int(self._il[rows].sum())

    # --- info ------------------------------------------------------------------------
    def episode_info(self, i: int) -> dict:
        """The core's episode info of row ``i``'s last finished game, plus the
        learner's ``seat`` and ``team``, the ``placements`` of every seat (see
        :func:`placements`), the learner's ``outcome`` (win: best placement,
        shared wins included; draw: every seat placed alike, or no result;
        loss otherwise, or penalised without a result), ``opponents`` and
        ``partners``."""
        fs = self.final_states[i]
        info = dict(self.core.episode_info(fs))
        seat = int(self.final_seat[i])
        place = placements(self.spec, self.num_players, info, seat, float(self.reward[i]))
        info["seat"] = seat
        info["team"] = int(self.team[seat])
        info["placements"] = place
        info["outcome"] = seat_outcome(place, seat, float(self.reward[i]))
        info["opponents"] = self.final_opponents[i]
        info["partners"] = self.final_partners[i]
        return info


def placements(
    spec, num_players: int, info: dict, seat: int = -1, reward: float = 0.0
) -> list | None:
    """Placement of every seat in a finished game (0 = best; equal
    placements are a tie, teammates always share one), from the core's
    ``episode_info``: its ``placements`` when it gives them, else its
    ``winner`` seat (the winner's team first, every other seat second);
    without either, a positive ``reward`` of ``seat`` makes its team the
    winner. ``None``: the game has no result (truncated, illegal action)."""
    given = info.get("placements")
    team = spec.team_of(num_players)
    if given is not None:
        place = [int(p) for p in given]
        _check_placements(spec, team, place)
        return place
    winner = info.get("winner")
    if winner is None and seat >= 0 and reward > 0:
        winner = seat
    if winner is None or int(winner) < 0:
        return None
    return [0 if team[s] == team[int(winner)] else 1 for s in range(num_players)]


def _check_placements(spec, team, place) -> None:
    """The game's placements agree with its declared facts: one per seat,
    teammates placed alike, a shared first place only where ties exist."""
    if len(place) != len(team):
        raise ValueError(f"{spec.name}: {len(place)} placements for {len(team)} seats")
    for t in np.unique(team):
        if len({place[s] for s in np.flatnonzero(team == t)}) != 1:
            raise ValueError(
                f"{spec.name}: teammates {np.flatnonzero(team == t).tolist()} "
                f"placed differently: {place}"
            )
    best = {int(team[s]) for s in range(len(place)) if place[s] == min(place)}
    if len(best) > 1 and not spec.ties:
        raise ValueError(
            f"{spec.name} declares no ties but placed teams {sorted(best)} first together: {place}"
        )


def seat_outcome(place: list | None, seat: int, reward: float = 0.0) -> str:
    """``"win"`` / ``"draw"`` / ``"loss"`` of ``seat`` from the placements
    (``None``: no result, a draw unless the seat was penalised; every seat
    placed alike: the sign of the seat's reward, so a team that wins
    together wins)."""
    if place is None:
        return "loss" if reward < 0 else "draw"
    if min(place) == max(place):
        # every seat placed alike: a tie of rivals (zero reward), or one team
        # that won or lost together (its shared reward says which)
        return "win" if reward > 0 else "loss" if reward < 0 else "draw"
    return "win" if place[seat] == min(place) else "loss"


class _OpponentView:
    """What an opponent's ``act(view, rows)`` reads: the game records and the
    acting seat's observations and masks (valid at ``rows``)."""

    __slots__ = ("states", "obs", "masks")

    def __init__(self, states, obs, masks):
        self.states, self.obs, self.masks = states, obs, masks


def _code(agent) -> int:
    c = getattr(agent, "scripted", None)
    return -1 if c is None else int(c)
