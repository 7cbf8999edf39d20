"""``DCCCore``: Dungeon Crawler Carl: Unstoppable over the engine's generated
kernels (``kernels.py``); everything hot is the engine's."""
from __future__ import annotations

import numpy as np

from ..core.header import O_ILLEGAL, O_PLAYING, O_TRUNCATED
from ..core.kernel_core import KernelCore, choice_arg, int_arg
from ..core.spec import GameSpec, layout_version as shared_layout_version, source_digest
from ...encoders import dcc_unstoppable as enc
from . import consts as C, kernels, rules, state
from .config import make_config
from .content import default_content, load_content
from .state import STATE_DTYPE

MAX_EPISODE_STEPS = 3000
VERSION = 0
OUTCOME_NAMES = {O_PLAYING: "playing", O_TRUNCATED: "truncated", O_ILLEGAL: "illegal_action",
                 C.O_WIN: "win", C.O_LOSS_HEALTH: "loss_health", C.O_LOSS_SKULL: "loss_skull"}


def _campaign(value):
    if not isinstance(value, dict):
        raise ValueError("reset option 'campaign' must be a dict (xp, benefits, "
                         f"achievements, decks, upgrades), got {type(value).__name__}")
    make_config(campaign=value)          # validates every key and value
    return value


def max_score_reward(content) -> float:
    """An upper bound of the XP a won game can pay with ``reward="score"``
    (``rules.compute_xp``): every floor's achievements (the best floor),
    every boss and quest of the box, the top difficulty bonus, every space
    of the longest track left, every end extra."""
    T = content.tables
    ach = int(np.asarray(T.ach_xp, np.int64).sum(axis=1).max())
    bosses = int(np.asarray(T.t_xp, np.int64).sum())
    quests = int(np.asarray(T.q_xp, np.int64).sum())
    spaces = int(np.asarray(T.tr_len, np.int64).max())
    return float(ach + bosses + quests + max(C.DIFF_XP) + spaces + sum(C.EXTRA_XP))


def make_spec(content=None, reward="winloss") -> GameSpec:
    """The game's spec. ``reward_range`` is true for the reward mode: (-1, 1)
    for ``"winloss"``, (-1, :func:`max_score_reward`) for ``"score"`` (a won
    game pays its XP, which can exceed 1)."""
    content = content or default_content()
    mode = choice_arg(reward, C.REWARD_MODES, "reward")
    high = 1.0 if mode == C.RM_WINLOSS else max(1.0, max_score_reward(content))
    return GameSpec(
        name="dcc_unstoppable", env_id=f"dungeonrl/DCCUnstoppable-v{VERSION}", version=VERSION,
        min_players=1, max_players=C.NPLAYERS_MAX, num_actions=C.NUM_ACTIONS,
        action_names=tuple(C.action_names()), obs_size=enc.OBS_SIZE,
        feature_names=tuple(enc.feature_names()), max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, high), illegal_penalty=C.ILLEGAL_PENALTY,
        layout_version=shared_layout_version(STATE_DTYPE, content.digest, VERSION,
                                             source_digest(rules, C, state, enc)),
        render_modes=("ansi", "rgb_array"), multi_agent=False, make_core=make_core,
        reset_options={"campaign": _campaign},
        utility="team", teams=lambda n: (tuple(range(n)),), ties=False, turn_order="state",
        chance="explicit", information="imperfect")


class DCCCore(KernelCore):
    """Dungeon Crawler Carl: Unstoppable for one configuration, batched.

    Arguments: ``num_players`` (1 solo, 2 co-op), ``floor`` (1-3),
    ``difficulty`` ("easy", "normal", "hard"), ``mode`` ("arcade",
    "campaign"), ``crawler`` (a crawler name), ``race`` / ``klass`` (a name,
    "draft", "preset" or "none"; one value or a pair per seat), ``campaign``
    (carry-over: see ``config.make_config``), ``reward`` ("winloss",
    "score"), ``auto_advance``, ``max_steps``, ``content``.
    """

    state_dtype = STATE_DTYPE
    kernels = kernels

    def __init__(self, num_players=1, floor=1, difficulty="normal", mode="arcade",
                 crawler="Carl", race=None, klass=None, campaign=None, reward="winloss",
                 auto_advance=True, max_steps=MAX_EPISODE_STEPS, content=None):
        self.content = default_content() if content is None else load_content(content)
        self.T = self.content.tables
        self.TR = self.content.record
        self.spec = make_spec(self.content, reward)
        players = int_arg(num_players, "num_players", 1, C.NPLAYERS_MAX)
        self.options = dict(floor=floor, difficulty=difficulty, mode=mode, crawler=crawler,
                            race=race, klass=klass)
        cfg = make_config(campaign=campaign, content=self.content, **self.options)
        self._configure(players, max_steps, auto_advance,
                        choice_arg(reward, C.REWARD_MODES, "reward"), cfg=cfg)

    def apply_reset_options(self, states, options) -> None:
        """``campaign``: restart these games with the carried-over deck list,
        XP, benefits and achievements (same seeds)."""
        if "campaign" not in options:
            return
        cfg = make_config(campaign=options["campaign"], content=self.content, **self.options)
        self.kernels.reset_batch(states, self.TR, np.ascontiguousarray(states["seed"]),
                                 np.ascontiguousarray(states["num_players"]), self.max_steps,
                                 self.auto_advance, self.reward_mode, cfg)

    # -- helpers (not hot) ------------------------------------------------------
    def phase_name(self, state) -> str:
        return C.PHASE_NAMES[int(state["phase"])]

    def render_ansi(self, state) -> str:
        from .render import render_ansi
        return render_ansi(state, self.content)

    def render_rgb(self, state):
        from .render import render_rgb
        return render_rgb(state, self.content)

    def action_label(self, state, a) -> str:
        from .render import describe_action
        return describe_action(state, a, self.content)

    def episode_info(self, state) -> dict:
        return {"outcome": OUTCOME_NAMES.get(int(state["outcome"]), "?"),
                "floor": int(state["cfg_floor"]), "xp": int(state["xp"]),
                "score": int(state["score"])}

    def check_state(self, state) -> None:
        """Raise ``CorruptStateError`` unless the record is one the rules can reach
        (every field's declared range, the zones, the stored mask): see ``validate``."""
        from .validate import check_state
        check_state(self, state)


def make_core(**kwargs) -> DCCCore:
    return DCCCore(**kwargs)
