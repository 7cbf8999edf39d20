"""TEST FIXTURE ONLY -- not a game of the suite.

"Relay": a four-seat team race written only as rules against the engine's
row contract, used to test what a one-winner game cannot: two teams of two,
a turn order the state decides, chance through :mod:`dungeonrl.envs.core.kernel.chance`,
team rewards and a tie. Registered under ``dungeonrl-test/Relay-v0`` by the
tests that need it, never by ``dungeonrl.registry.GAMES``.

Rules. Seats 0 and 2 are team 0, seats 1 and 3 team 1. Every seat has a
runner on a track of squares 0..GOAL and makes exactly ``MOVES`` moves. At
the start every seat rolls a d6 for its *initiative*. The seat to move is
always the one furthest behind among the seats with moves left; ties go to
the seat with fewer moves made, then to the higher initiative, then to the
lower seat number. A runner never passes GOAL.

=====  ========  ===============================================
index  name      effect (legal when)
=====  ========  ===============================================
0      roll      moves 1..3 by a die roll (always)
1      step      moves 1 (always)
2      draft     moves 2 (the teammate's runner is ahead of this one)
=====  ========  ===============================================

When every seat has moved ``MOVES`` times, each team scores the sum of its
two runners' squares plus its *bonus* (0 unless the ``handicap`` reset
option gives team 1 one). The higher score wins: +1 to both of its seats,
-1 to both rival seats; equal scores are a tie, 0 to all. Nothing is paid
before the end. An illegal action ends the game with ``ILLEGAL_PENALTY`` for
the acting seat (the engine's step wrapper); the step cap truncates.

Observation (from seat ``s``; seats listed as ``s``, its teammate, then the
two rivals in seat order): per seat ``pos/GOAL``, ``moves/MOVES``,
``initiative/6`` and ``to act``; then the own team's and the rivals' bonus
over GOAL, and ``steps/max_steps``. Everything is public (perfect
information); only the generator is hidden.
"""

from __future__ import annotations

import hashlib

import numpy as np

from dungeonrl.envs.core.kernel import chance
from dungeonrl.envs.core.errors import CorruptStateError
from dungeonrl.envs.core.kernel.facts import KernelFacts
from dungeonrl.envs.core.kernel.freshness import load_kernels
from dungeonrl.envs.core.kernel.header import O_GAME, O_PLAYING, state_dtype
from dungeonrl.envs.core.kernel.jit import JIT, njit
from dungeonrl.envs.core.kernel_core import KernelCore, int_arg
from dungeonrl.envs.catalog import GameEntry
from dungeonrl.envs.core.spec import GameSpec

SEATS = 4
GOAL = 10
MOVES = 4
MAX_STEPS = SEATS * MOVES
WIN_REWARD = 1.0
ILLEGAL_PENALTY = -1.0
MAX_HANDICAP = 3
ROLL, STEP, DRAFT = 0, 1, 2
NUM_ACTIONS = 3
PER_SEAT = 4
OBS_SIZE = SEATS * PER_SEAT + 3
O_TEAM0, O_TEAM1, O_TIE = O_GAME, O_GAME + 1, O_GAME + 2
OUTCOME_NAMES = ("playing", "truncated", "illegal", "team_0", "team_1", "tie")
TEAMS = ((0, 2), (1, 3))

GAME_FIELDS = [
    ("pos", np.int8, (SEATS,)),  # square 0..GOAL
    ("moves", np.int8, (SEATS,)),  # moves made 0..MOVES
    ("init", np.int8, (SEATS,)),  # initiative 1..6
    ("bonus", np.int8, (2,)),  # per-team score bonus (reset option)
]
STATE_DTYPE = state_dtype(GAME_FIELDS, NUM_ACTIONS)
LAYOUT_VERSION = hashlib.sha1(
    f"relay-fixture:{STATE_DTYPE.descr}:{GOAL}:{MOVES}".encode()
).hexdigest()[:12]

KERNEL_FACTS = KernelFacts(
    game="relay",
    num_actions=NUM_ACTIONS,
    max_seats=SEATS,
    illegal_penalty=ILLEGAL_PENALTY,
    win_outcome=O_TEAM0,
    rules_module="helpers.fixture_team",
    encoder_module="helpers.fixture_team",
    kernel_file="tests/helpers/fixture_team_kernels.py",
)


# --- the rules: the row contract of envs/README.md ------------------------------
@njit(**JIT)
def configure_row(st, cfg):
    """Nothing to configure beyond the header (max_steps)."""


@njit(**JIT)
def mate(p):
    return (p + 2) % SEATS


@njit(**JIT)
def next_actor(st):
    """The seat to move: furthest behind among seats with moves left, then
    fewer moves, then higher initiative, then lower seat; -1 when all moved."""
    best = -1
    for p in range(SEATS):
        if st.moves[p] >= MOVES:
            continue
        if best < 0:
            best = p
            continue
        if st.pos[p] != st.pos[best]:
            if st.pos[p] < st.pos[best]:
                best = p
        elif st.moves[p] != st.moves[best]:
            if st.moves[p] < st.moves[best]:
                best = p
        elif st.init[p] > st.init[best]:
            best = p
    return best


@njit(**JIT)
def reset_row(st, T):
    for p in range(SEATS):
        st.pos[p] = 0
        st.moves[p] = 0
        st.init[p] = chance.roll(st, 6)
    st.bonus[0] = 0
    st.bonus[1] = 0
    st.actor = next_actor(st)


@njit(**JIT)
def legal_row(st, T, mask):
    p = st.actor
    mask[ROLL] = 1
    mask[STEP] = 1
    mask[DRAFT] = 1 if st.pos[mate(p)] > st.pos[p] else 0
    return 2 + mask[DRAFT]


@njit(**JIT)
def team_score(st, t):
    return np.int64(st.pos[t]) + np.int64(st.pos[t + 2]) + np.int64(st.bonus[t])


@njit(**JIT)
def apply_row(st, T, a, rew):
    p = st.actor
    if a == ROLL:
        d = chance.roll(st, 3)
    elif a == STEP:
        d = 1
    else:
        d = 2
    st.pos[p] = min(GOAL, st.pos[p] + d)
    st.moves[p] += 1
    st.actor = next_actor(st)
    if st.actor >= 0:
        return
    s0 = team_score(st, 0)
    s1 = team_score(st, 1)
    if s0 == s1:
        st.outcome = O_TIE
        return
    win = 0 if s0 > s1 else 1
    st.outcome = O_TEAM0 if win == 0 else O_TEAM1
    for q in range(SEATS):
        rew[q] += WIN_REWARD if q % 2 == win else -WIN_REWARD


# --- the encoder ------------------------------------------------------------------
@njit(**JIT)
def encode_row(st, T, seat, out):
    seat = np.int64(seat)  # an int64 index or an int8 header field
    r1 = (seat + 1) % SEATS
    r2 = (seat + 3) % SEATS
    order = (seat, mate(seat), min(r1, r2), max(r1, r2))
    for k in range(SEATS):
        q = order[k]
        o = k * PER_SEAT
        out[o] = st.pos[q] / GOAL
        out[o + 1] = st.moves[q] / MOVES
        out[o + 2] = st.init[q] / 6.0
        out[o + 3] = 1.0 if st.outcome == O_PLAYING and st.actor == q else 0.0
    out[SEATS * PER_SEAT] = st.bonus[seat % 2] / GOAL
    out[SEATS * PER_SEAT + 1] = st.bonus[1 - seat % 2] / GOAL
    out[SEATS * PER_SEAT + 2] = st.steps / st.max_steps


# --- the core: configuration and non-hot helpers ------------------------------------
class RelayCore(KernelCore):
    """The fixture's rules for one ``max_steps`` setting (always 4 seats)."""

    state_dtype = STATE_DTYPE
    #: its declaration (the fixture is outside the catalog): the sampler of
    #: ``resample_from_infostate`` (only the generator is hidden)
    game_entry = GameEntry(
        name="relay",
        env_id="dungeonrl-test/Relay-v0",
        infostate="helpers.fixture_team_infostate:resample_rows",
    )

    def __init__(
        self, num_players: int = SEATS, max_steps: int = MAX_STEPS, auto_advance: bool = True
    ):
        # generated (written on first use); imports this module's rules
        self.kernels = load_kernels(f"{__name__}:KERNEL_FACTS")
        self.spec = SPEC
        self.TR = np.zeros(1, np.dtype([("unused", np.int8)]))
        int_arg(num_players, "num_players", SEATS, SEATS)
        self._configure(SEATS, int_arg(max_steps, "max_steps", 1, MAX_STEPS), auto_advance, 0)

    def apply_reset_options(self, states, options: dict) -> None:
        """``handicap``: team 1's score bonus (0..3) for these games."""
        if "handicap" in options:
            states["bonus"][:, 1] = options["handicap"]

    def phase_name(self, state) -> str:
        return "finished" if self.is_over(state) else "racing"

    def render_ansi(self, state) -> str:
        rows = []
        for p in range(SEATS):
            track = "".join(str(p) if i == state["pos"][p] else "." for i in range(GOAL + 1))
            mark = "*" if int(state["actor"]) == p else " "
            rows.append(
                f"{mark}[{track}] team {p % 2} moves {int(state['moves'][p])}/{MOVES}"
                f" init {int(state['init'][p])}"
            )
        return "\n".join(rows)

    def episode_info(self, state) -> dict:
        out = int(state["outcome"])
        scores = [
            int(state["pos"][t]) + int(state["pos"][t + 2]) + int(state["bonus"][t]) for t in (0, 1)
        ]
        if out == O_TEAM0:
            place = [0, 1, 0, 1]
        elif out == O_TEAM1:
            place = [1, 0, 1, 0]
        else:  # a tie, or no result (truncated, illegal)
            place = [0, 0, 0, 0]
        return {
            "outcome": OUTCOME_NAMES[out],
            "scores": scores,
            "placements": place if out in (O_TEAM0, O_TEAM1, O_TIE) else None,
        }

    def check_state(self, state) -> None:
        def bad(msg):
            raise CorruptStateError(f"corrupt Relay state: {msg}")

        pos, moves, init = (np.asarray(state[f]).astype(int) for f in ("pos", "moves", "init"))
        if int(state["num_players"]) != SEATS:
            bad(f"num_players {int(state['num_players'])}")
        if ((pos < 0) | (pos > GOAL)).any():
            bad(f"pos {pos.tolist()} outside [0, {GOAL}]")
        if ((moves < 0) | (moves > MOVES)).any():
            bad(f"moves {moves.tolist()} outside [0, {MOVES}]")
        if ((init < 1) | (init > 6)).any():
            bad(f"initiative {init.tolist()} outside [1, 6]")
        bonus = np.asarray(state["bonus"]).astype(int)
        if ((bonus < 0) | (bonus > MAX_HANDICAP)).any():
            bad(f"bonus {bonus.tolist()} outside [0, {MAX_HANDICAP}]")
        out = int(state["outcome"])
        if not 0 <= out < len(OUTCOME_NAMES):
            bad(f"outcome {out}")
        steps = int(state["steps"])
        if not 0 <= steps <= self.max_steps:
            bad(f"steps {steps} outside [0, {self.max_steps}]")
        if out == O_PLAYING and not 0 <= int(state["actor"]) < SEATS:
            bad(f"actor {int(state['actor'])}")
        self.check_mask(state, "Relay")


def make_core(**kwargs) -> RelayCore:
    return RelayCore(**kwargs)


def _handicap(value) -> int:
    return int_arg(value, "reset option 'handicap'", 0, MAX_HANDICAP)


SPEC = GameSpec(
    name="relay",
    env_id="dungeonrl-test/Relay-v0",
    version=0,
    min_players=SEATS,
    max_players=SEATS,
    num_actions=NUM_ACTIONS,
    action_names=("roll", "step", "draft"),
    obs_size=OBS_SIZE,
    feature_names=tuple(
        f"{who}_{f}"
        for who in ("self", "mate", "rival_a", "rival_b")
        for f in ("pos", "moves", "initiative", "to_act")
    )
    + ("own_bonus", "rival_bonus", "steps_frac"),
    max_episode_steps=MAX_STEPS,
    reward_range=(ILLEGAL_PENALTY, WIN_REWARD),
    illegal_penalty=ILLEGAL_PENALTY,
    layout_version=LAYOUT_VERSION,
    render_modes=("ansi",),
    obs_low=0.0,
    obs_high=1.0,
    multi_agent=True,
    make_core=make_core,
    utility="team",
    teams=lambda n: TEAMS,
    ties=True,
    turn_order="state",
    chance="explicit",
    information="perfect",
    reset_options={"handicap": _handicap},
)
