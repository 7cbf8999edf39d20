"""TEST FIXTURE ONLY -- not a game of the suite.

"Race to 10": a tiny but real :class:`GameCore` (numba kernels over a
structured state record, per-env counter RNG, a legal mask that changes with
chance) used only to test the generic adapters in ``dungeonrl.envs.core``.
It is registered under its own test namespace (``dungeonrl-test/Race-v0``)
by the tests that need it, never by ``dungeonrl.registry.GAMES``.

Rules: one token starts on square 0 and must land exactly on square 10.
A die is rolled at the start and after every move (``last_roll``).

=====  ========  ===============================================
index  name      legal when
=====  ========  ===============================================
0      roll      ``pos <= 4`` (moves by a new die roll, 1..6)
1      step_1    always (moves 1)
2      step_2    ``pos <= 8`` and ``last_roll`` is even (moves 2)
=====  ========  ===============================================

Reward -0.05 per move, +1 on landing on 10 (terminated, won). After
``max_steps`` moves (default 12) the game is truncated. An illegal action
ends the game with ``ILLEGAL_PENALTY`` (the core's contract). Observation:
``pos/10, steps/max_steps, last_roll/6, last_roll even``.
"""
from __future__ import annotations

import hashlib

import numpy as np
from numba import njit

from dungeonrl.envs.core.errors import CorruptStateError
from dungeonrl.envs.core.jit import JIT
from dungeonrl.envs.core.rng import rng_die, rng_seed
from dungeonrl.envs.core.spec import GameCore, GameSpec

GOAL = 10
MAX_STEPS = 12
STEP_REWARD = -0.05
WIN_REWARD = 1.0
ILLEGAL_PENALTY = -1.0
ROLL, STEP_1, STEP_2 = 0, 1, 2
NUM_ACTIONS = 3
OBS_SIZE = 4

STATE_DTYPE = np.dtype([
    ("rng", np.uint64, (2,)),   # counter RNG: key, counter
    ("seed", np.uint64),        # game seed of this env
    ("episode", np.uint64),     # episode number within the seed stream
    ("pos", np.int16),          # square 0..GOAL
    ("last_roll", np.int8),     # 1..6
    ("over", np.uint8),         # 1 once the game ended
    ("won", np.uint8),          # 1 if it ended on GOAL
    ("steps", np.int32),        # moves made
])
LAYOUT_VERSION = hashlib.sha1(
    f"race-fixture:{STATE_DTYPE.descr}:{GOAL}".encode()).hexdigest()[:12]


@njit(**JIT)
def _reset_row(s, seed, episode):
    s["seed"] = seed
    s["episode"] = episode
    rng_seed(s["rng"], seed, episode)
    s["pos"] = 0
    s["steps"] = 0
    s["over"] = 0
    s["won"] = 0
    s["last_roll"] = rng_die(s["rng"])


@njit(**JIT)
def _legal(s, a):
    if s["over"] != 0:
        return False
    if a == ROLL:
        return s["pos"] + 6 <= GOAL
    if a == STEP_1:
        return True
    if a == STEP_2:
        return s["pos"] + 2 <= GOAL and s["last_roll"] % 2 == 0
    return False


@njit(**JIT)
def _step_row(s, a, max_steps):
    """Returns (reward, terminated, truncated, illegal)."""
    if s["over"] != 0:
        return 0.0, False, False, False
    if not _legal(s, a):
        s["over"] = 1
        return ILLEGAL_PENALTY, True, False, True
    s["steps"] += 1
    if a == ROLL:
        s["pos"] += rng_die(s["rng"])
    elif a == STEP_1:
        s["pos"] += 1
    else:
        s["pos"] += 2
    s["last_roll"] = rng_die(s["rng"])
    if s["pos"] == GOAL:
        s["over"] = 1
        s["won"] = 1
        return STEP_REWARD + WIN_REWARD, True, False, False
    if s["steps"] >= max_steps:
        s["over"] = 1
        return STEP_REWARD, False, True, False
    return STEP_REWARD, False, False, False


@njit(**JIT)
def _mask_row(s, m):
    for a in range(NUM_ACTIONS):
        m[a] = 1 if _legal(s, a) else 0


@njit(**JIT)
def _observe_row(s, o, max_steps):
    o[0] = s["pos"] / GOAL
    o[1] = s["steps"] / max_steps
    o[2] = s["last_roll"] / 6.0
    o[3] = 1.0 if s["last_roll"] % 2 == 0 else 0.0


@njit(**JIT)
def _reset_k(states, seeds):
    for i in range(states.shape[0]):
        _reset_row(states[i], seeds[i], np.uint64(0))


@njit(**JIT)
def _step_k(states, actions, rewards, terminated, truncated, illegal, max_steps):
    for i in range(states.shape[0]):
        r, te, tr, il = _step_row(states[i], actions[i], max_steps)
        rewards[i, 0] = r
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il


@njit(**JIT)
def _mask_k(states, masks):
    for i in range(states.shape[0]):
        _mask_row(states[i], masks[i])


@njit(**JIT)
def _observe_k(states, obs, max_steps):
    for i in range(states.shape[0]):
        _observe_row(states[i], obs[i], max_steps)


@njit(**JIT)
def _step_autoreset_k(states, actions, obs, masks, rewards, terminated, truncated,
                      illegal, final_obs, final_states, max_steps):
    for i in range(states.shape[0]):
        s = states[i]
        r, te, tr, il = _step_row(s, actions[i], max_steps)
        rewards[i, 0] = r
        terminated[i] = te
        truncated[i] = tr
        illegal[i] = il
        if te or tr:
            _observe_row(s, final_obs[i], max_steps)
            final_states[i] = s
            _reset_row(s, s["seed"], s["episode"] + np.uint64(1))
        _observe_row(s, obs[i], max_steps)
        _mask_row(s, masks[i])


class RaceCore(GameCore):
    """The fixture's rules for one ``max_steps`` setting."""

    state_dtype = STATE_DTYPE
    num_players = 1

    def __init__(self, max_steps: int = MAX_STEPS):
        if not 1 <= max_steps <= MAX_STEPS:
            raise ValueError(f"max_steps must be in [1, {MAX_STEPS}]")
        self.spec = SPEC
        self.max_steps = int(max_steps)

    def reset(self, states, seeds):
        _reset_k(states, seeds)

    def step(self, states, actions, rewards, terminated, truncated, illegal):
        _step_k(states, actions, rewards, terminated, truncated, illegal, self.max_steps)

    def legal_mask(self, states, masks):
        _mask_k(states, masks)

    def observe(self, states, players, obs):
        _observe_k(states, obs, self.max_steps)

    def to_play(self, states):
        return np.where(states["over"] != 0, -1, 0).astype(np.int64)

    def step_autoreset(self, states, actions, obs, masks, rewards, terminated,
                       truncated, illegal, final_obs, final_states):
        _step_autoreset_k(states, actions, obs, masks, rewards, terminated, truncated,
                          illegal, final_obs, final_states, self.max_steps)

    def is_over(self, state) -> bool:
        return bool(state["over"])

    def phase_name(self, state) -> str:
        return "finished" if state["over"] else "moving"

    def render_ansi(self, state) -> str:
        track = "".join("@" if i == state["pos"] else "." for i in range(GOAL + 1))
        return (f"[{track}] pos {int(state['pos'])}/{GOAL} step {int(state['steps'])}"
                f"/{self.max_steps} last roll {int(state['last_roll'])}")

    def episode_info(self, state) -> dict:
        return {"won": bool(state["won"]), "final_pos": int(state["pos"])}

    def check_state(self, state) -> None:
        pos, steps, roll = int(state["pos"]), int(state["steps"]), int(state["last_roll"])
        if not 0 <= pos <= GOAL:
            raise CorruptStateError(f"pos {pos} outside [0, {GOAL}]")
        if not 0 <= steps <= self.max_steps:
            raise CorruptStateError(f"steps {steps} outside [0, {self.max_steps}]")
        if not 1 <= roll <= 6:
            raise CorruptStateError(f"last_roll {roll} outside [1, 6]")
        if state["over"] not in (0, 1) or state["won"] not in (0, 1):
            raise CorruptStateError("over/won flags must be 0 or 1")
        if state["won"] and (pos != GOAL or not state["over"]):
            raise CorruptStateError("won but not finished on the goal square")


def make_core(**kwargs) -> RaceCore:
    return RaceCore(**kwargs)


SPEC = GameSpec(
    name="race",
    env_id="dungeonrl-test/Race-v0",
    version=0,
    min_players=1,
    max_players=1,
    num_actions=NUM_ACTIONS,
    action_names=("roll", "step_1", "step_2"),
    obs_size=OBS_SIZE,
    feature_names=("pos", "steps_frac", "last_roll", "roll_even"),
    max_episode_steps=MAX_STEPS,
    reward_range=(ILLEGAL_PENALTY, STEP_REWARD + WIN_REWARD),
    illegal_penalty=ILLEGAL_PENALTY,
    layout_version=LAYOUT_VERSION,
    render_modes=("ansi",),
    make_core=make_core,
)
