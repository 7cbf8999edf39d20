"""``UnbrokenCore``: the batched GameCore of Unbroken (see ``core.spec``)."""
from __future__ import annotations


import numpy as np

from ..core.errors import ContentError
from ..core.validate import check_max_steps
from ..core.spec import GameCore, GameSpec, layout_version as shared_layout_version
from ...encoders import unbroken as enc
from . import batch, consts as C
from .content import load_content
from .state import NAB_MAX, STATE_DTYPE

CHARACTERS = ("sneak", "sage", "hunter", "brawler")
REWARDS = ("win_loss", "score")
MAX_EPISODE_STEPS = 3000
VERSION = 0


def action_names(content):
    names = ["focus", "inspiration", "plan"]
    names += [f"craft_{j}" for j in range(C.MAX_UPGRADES)]
    names += ["downgrade", "orienteer", "scout", "fight", "explore"]
    names += [f"resolve_{i}" for i in range(C.MAX_REVEAL)]
    names += [f"rest_{i}" for i in range(C.MAX_REVEAL)]
    names += ["trick", "battle"]
    names += [f"attack_{k}" for k in range(C.MAX_ATTACKS)]
    names += ["skip", "pass"]
    for i in range(C.MAX_SKILLS):
        s = content.skill_names[i] if i < len(content.skill_names) else f"unused_{i}"
        names.append(f"skill:{s}")
    names += [f"character_{j}" for j in range(C.MAX_CHAR_AB)]
    names += [f"monster_{j}" for j in range(C.MAX_MON_OPT)]
    names += ["keep_0", "keep_1"]
    names += [f"eat_{k}" for k in range(C.MAX_EAT + 1)]
    assert len(names) == C.NUM_ACTIONS
    return tuple(names)


def layout_version(content):
    return shared_layout_version(STATE_DTYPE, content.digest, VERSION)


def make_spec(content=None):
    content = content or load_content()
    return GameSpec(
        name="unbroken", env_id=f"dungeonrl/Unbroken-v{VERSION}", version=VERSION,
        min_players=1, max_players=1, num_actions=C.NUM_ACTIONS,
        action_names=action_names(content), obs_size=enc.OBS_SIZE,
        feature_names=enc.feature_names(), max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, 2.0), illegal_penalty=-1.0,
        layout_version=layout_version(content), render_modes=("ansi",),
        obs_low=enc.OBS_LOW, obs_high=enc.OBS_HIGH,
        multi_agent=False, make_core=make_core)


def _parse_choice(value, choices, what, allow_random=False):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if 0 <= int(value) < len(choices):
            return int(value)
        raise ValueError(f"{what} index {value} out of range 0..{len(choices) - 1}")
    if isinstance(value, str):
        v = value.lower()
        if allow_random and v == "random":
            return -1
        if v in choices:
            return choices.index(v)
    extra = " or 'random'" if allow_random else ""
    raise ValueError(f"unknown {what} {value!r}: expected one of {list(choices)}{extra}")


class UnbrokenCore(GameCore):
    """Unbroken rules for one configuration, batched.

    Arguments: ``character`` ("sneak", "sage", "hunter", "brawler" or
    "random": a new one each episode), ``difficulty`` ("easy", "normal",
    "hard"), ``reward`` ("win_loss" or "score"), ``auto_advance`` (take
    decisions with one legal action automatically), ``max_steps`` (the
    truncation cap on decisions),
    ``content`` (a content folder, default the shipped data).
    """

    state_dtype = STATE_DTYPE
    num_players = 1

    def __init__(self, character="sneak", difficulty="normal", reward="win_loss",
                 auto_advance=True, max_steps=MAX_EPISODE_STEPS, content=None):
        self.content = load_content(content)
        if len(self.content.ability_names) > NAB_MAX:
            raise ContentError(f"content defines {len(self.content.ability_names)} "
                               f"abilities; at most {NAB_MAX} are supported")
        self.T = self.content.tables
        self.TR = self.content.record
        self.spec = make_spec(self.content)
        self.character = _parse_choice(character, CHARACTERS, "character", allow_random=True)
        self.difficulty = _parse_choice(difficulty, C.DIFFICULTIES, "difficulty")
        self.reward_mode = _parse_choice(reward, REWARDS, "reward")
        self.auto_advance = 1 if auto_advance else 0
        self.max_steps = check_max_steps(max_steps)   # [1, 2**31 - 1]: an int32 field

    # -- batched kernels ---------------------------------------------------------
    def reset(self, states, seeds):
        seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
        batch.reset_batch(states, self.TR, seeds, self.character, self.difficulty,
                          self.reward_mode, self.auto_advance, self.max_steps)

    def step(self, states, actions, rewards, terminated, truncated, illegal):
        batch.step_batch(states, self.TR, np.ascontiguousarray(actions, dtype=np.int64),
                         rewards, terminated, truncated, illegal)

    def step_observe(self, states, actions, players, obs, masks, rewards, terminated,
                     truncated, illegal):
        batch.step_observe(states, self.TR, np.ascontiguousarray(actions, dtype=np.int64),
                           obs, masks, rewards, terminated, truncated, illegal)

    def legal_mask(self, states, masks):
        batch.mask_batch(states, self.TR, masks)

    def observe(self, states, players, obs):
        batch.observe_batch(states, self.TR, obs)

    def to_play(self, states):
        return np.where(states["phase"] == C.PH_OVER, -1, 0).astype(np.int64)

    def step_autoreset(self, states, actions, obs, masks, rewards, terminated,
                       truncated, illegal, final_obs, final_states):
        batch.step_autoreset(states, self.TR, np.ascontiguousarray(actions, dtype=np.int64),
                             obs, masks, rewards, terminated, truncated, illegal, final_obs,
                             final_states)

    def random_rollout(self, states, n_steps, policy_seed, obs, masks, stats):
        batch.random_rollout(states, self.TR, int(n_steps), np.uint64(policy_seed), obs, masks,
                             stats)

    def recompute_mask(self, states):
        """Legal masks recomputed from the other fields (uint8, (n, A))."""
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

    def action_label(self, state, a):
        """A readable description of action ``a`` in this state (for play)."""
        from .render import describe_action
        return describe_action(self, state, a)

    def render_ansi(self, state):
        from .render import render_text
        return render_text(self, state)

    def episode_info(self, state):
        out = int(state["outcome"])
        info = {"outcome": C.OUTCOME_NAMES[out], "level": int(state["level"]),
                "character": CHARACTERS[int(state["character"])]}
        if out == C.O_WIN:
            info["score"] = int(state["score"])
            info["title"] = self.content.title_names[int(state["title"])]
        return info

    def check_state(self, state):
        """Raise ``CorruptStateError`` unless the record is one the rules can reach
        (every field's declared range, the zones, the stored mask): see ``validate``."""
        from .validate import check_state
        check_state(self, state)


def make_core(**kwargs):
    return UnbrokenCore(**kwargs)
