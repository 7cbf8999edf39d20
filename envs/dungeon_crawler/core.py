"""``DungeonCrawlerCore``: the batched GameCore of Dungeon Crawler (see
``core.spec``). A core is built for one table size (``num_players``);
the batch kernels themselves accept a different size per row."""
from __future__ import annotations


import numpy as np

from ..core.spec import GameCore, GameSpec, layout_version as shared_layout_version
from ...encoders import dungeon_crawler as enc
from . import batch, consts as C
from .content import load_content
from .state import STATE_DTYPE

MAX_EPISODE_STEPS = 5000
VERSION = 0


def action_names(content):
    names = [f"assign:{s}" for s in C.STAT_NAMES]
    for k in range(12):
        a = k // 3
        j = k % 3
        b = j if j < a else j + 1
        names.append(f"shift:{C.STAT_NAMES[a]}>{C.STAT_NAMES[b]}")
    names.append("rebalance_done")
    names += [f"draft_{k}" for k in range(C.DRAFT_N)]
    names += [f"forward_{k}" for k in range(1, C.MAX_MOVE + 1)]
    names += [f"back_{k}" for k in range(1, C.MAX_MOVE + 1)]
    for c in range(C.MAX_CARDS):
        names.append(f"play:{content.card_names[c]}" if c < len(content.card_names)
                     else f"play:unused_{c}")
    names += [f"target_seat_{t}" for t in range(C.MAX_P)]
    names += [f"slot:{s}" for s in C.SLOT_NAMES]
    names += [f"buy_{k}" for k in range(C.OFFER_MAX)]
    names += ["leave", "equip", "decline", "fight"]
    names += [f"loot_take:{s}" for s in C.SLOT_NAMES]
    names += [f"loot_discard:{s}" for s in C.SLOT_NAMES]
    names.append("end_turn")
    assert len(names) == C.NUM_ACTIONS
    return tuple(names)


def layout_version(content):
    return shared_layout_version(STATE_DTYPE, content.digest, VERSION)


def make_spec(content=None):
    content = content or load_content()
    return GameSpec(
        name="dungeon_crawler", env_id=f"dungeonrl/DungeonCrawler-v{VERSION}", version=VERSION,
        min_players=C.MIN_P, max_players=C.MAX_P, num_actions=C.NUM_ACTIONS,
        action_names=action_names(content), obs_size=enc.OBS_SIZE,
        feature_names=enc.feature_names(), max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, 1.0), illegal_penalty=-1.0,
        layout_version=layout_version(content), render_modes=("ansi", "rgb_array"),
        multi_agent=True, make_core=make_core)


def _int_arg(value, what, lo, hi=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo \
            or (hi is not None and value > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{what} must be an integer {rng}, got {value!r}")
    return int(value)


class DungeonCrawlerCore(GameCore):
    """Dungeon Crawler rules for one configuration, batched.

    Arguments: ``num_players`` (2..8), ``reward`` ("zero_sum": +1 to the
    winner and -1/(N-1) to every other seat; "winner_only": +1 to the
    winner, 0 to the rest), ``auto_advance`` (take decisions with a single
    legal action automatically), ``max_steps`` (truncation cap on agent
    decisions), ``content`` (a content folder, default the shipped data).
    """

    state_dtype = STATE_DTYPE

    def __init__(self, num_players=4, reward="zero_sum", auto_advance=True,
                 max_steps=MAX_EPISODE_STEPS, content=None):
        self.content = load_content(content)
        self.T = self.content.tables
        self.TR = self.content.record
        self.spec = make_spec(self.content)
        self.num_players = _int_arg(num_players, "num_players", C.MIN_P, C.MAX_P)
        if reward not in C.REWARD_MODES:
            raise ValueError(f"unknown reward {reward!r}: expected one of {list(C.REWARD_MODES)}")
        self.reward_mode = C.REWARD_MODES.index(reward)
        self.auto_advance = 1 if auto_advance else 0
        self.max_steps = _int_arg(max_steps, "max_steps", 1, 2**31 - 1)  # int32 field

    # -- batched kernels ---------------------------------------------------------
    def reset(self, states, seeds, num_players=None):
        seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
        if num_players is None:
            num_players = np.full(len(states), self.num_players, np.int8)
        batch.reset_batch(states, self.TR, seeds, np.ascontiguousarray(num_players, np.int8),
                          self.reward_mode, self.auto_advance, self.max_steps)

    def step(self, states, actions, rewards, terminated, truncated, illegal):
        batch.step_batch(states, self.TR, np.ascontiguousarray(actions, dtype=np.int64),
                         rewards, terminated, truncated, illegal)

    def legal_mask(self, states, masks):
        batch.mask_batch(states, self.TR, masks)

    def observe(self, states, players, obs):
        batch.observe_batch(states, self.TR, np.ascontiguousarray(players, np.int64), obs)

    def step_rows(self, states, rows, actions, rewards, terminated, truncated, illegal):
        batch.step_rows(states, self.TR, np.ascontiguousarray(rows, np.int64),
                        np.ascontiguousarray(actions, dtype=np.int64), rewards, terminated,
                        truncated, illegal)

    def observe_rows(self, states, rows, players, obs, masks):
        batch.observe_rows(states, self.TR, np.ascontiguousarray(rows, np.int64),
                           np.ascontiguousarray(players, np.int64), obs, masks)

    def to_play(self, states):
        return np.where(states["phase"] == C.PH_OVER, -1, states["actor"]).astype(np.int64)

    def step_autoreset(self, states, actions, obs, masks, rewards, terminated,
                       truncated, illegal, final_obs, final_states, players=None):
        if players is None:
            players = np.zeros(len(states), np.int64)
        batch.step_autoreset_ma(states, self.TR, np.ascontiguousarray(actions, dtype=np.int64),
                                players, obs, masks, rewards, terminated, truncated, illegal,
                                final_obs, final_states)
        return players

    def random_rollout(self, states, n_steps, policy_seed, obs, masks, stats):
        """Benchmark kernel (see ``GameCore.random_rollout``): uniform random
        legal play inside numba, acting seat's obs and mask every step."""
        batch.random_rollout(states, self.TR, int(n_steps), np.uint64(policy_seed), obs,
                             masks, stats)

    def recompute_mask(self, states):
        out = np.zeros((len(states), C.NUM_ACTIONS), np.uint8)
        batch.refresh_batch(states, self.TR, out)
        return out

    def refresh(self, states):
        """Store recomputed masks in ``states["legal"]`` (after editing a record)."""
        states["legal"] = self.recompute_mask(states)

    # -- helpers -----------------------------------------------------------------
    def is_over(self, state):
        return int(state["phase"]) == C.PH_OVER

    def phase_name(self, state):
        return C.PHASE_NAMES[int(state["phase"])]

    def render_ansi(self, state):
        from .render import render_text
        return render_text(self, state)

    def render_rgb(self, state):
        from .render import render_rgb
        return render_rgb(self, state)

    def action_label(self, state, a):
        from .render import describe_action
        return describe_action(self, state, a)

    def episode_info(self, state):
        n = int(state["num_players"])
        info = {"outcome": C.OUTCOME_NAMES[int(state["outcome"])],
                "winner": int(state["winner"]), "rounds": int(state["round"]),
                "final_boss": self.content.final_names[int(state["final_boss"])],
                "deaths": state["deaths"][:n].tolist(), "kills": state["kills"][:n].tolist()}
        return info

    def check_state(self, state):
        """Raise ``CorruptStateError`` unless the record is one the rules can reach
        (every field's declared range, the zones, the stored mask): see ``validate``."""
        from .validate import check_state
        check_state(self, state)


def make_core(**kwargs):
    return DungeonCrawlerCore(**kwargs)
