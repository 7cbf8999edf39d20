"""``DCCCore``: Dungeon Crawler Carl: Unstoppable over the engine's generated
kernels (``kernels.py``); everything hot is the engine's."""
from __future__ import annotations

import numpy as np

from ..core.header import O_ILLEGAL, O_PLAYING, O_TRUNCATED
from ..core.kernel_core import KernelCore, choice_arg, int_arg
from ..core.spec import GameSpec, game_spec
from ...encoders import dcc_unstoppable as enc
from . import consts as C, kernels, rules, state
from .config import make_config
from .content import default_content, load_content
from .state import STATE_DTYPE

MAX_EPISODE_STEPS = 3000
VERSION = 0
#: the modules whose code is the game: a snapshot or saved model refuses any change to them
RULES_SOURCES = (rules, C, state, enc)
OUTCOME_NAMES = {O_PLAYING: "playing", O_TRUNCATED: "truncated", O_ILLEGAL: "illegal_action",
                 C.O_WIN: "win", C.O_LOSS_HEALTH: "loss_health", C.O_LOSS_SKULL: "loss_skull"}
_OUTCOME_LUT = np.array([OUTCOME_NAMES.get(k, "?") for k in range(max(OUTCOME_NAMES) + 1)],
                        dtype=object)


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


def one_team(n: int) -> tuple:
    """The crawlers' one team (co-op): every seat plays together (a named
    function, so a spec, and an env holding it, can be pickled)."""
    return (tuple(range(n)),)


def make_spec(content=None, reward="winloss") -> GameSpec:
    """The game's spec. ``reward_range`` is true for the reward mode: (-1, 1)
    for ``"winloss"``, (-1, :func:`max_score_reward`) for ``"score"`` (a won
    game pays its XP, which can exceed 1)."""
    content = content or default_content()
    mode = choice_arg(reward, C.REWARD_MODES, "reward")
    high = 1.0 if mode == C.RM_WINLOSS else max(1.0, max_score_reward(content))
    return game_spec(
        name="dcc_unstoppable", title="DCCUnstoppable", version=VERSION, consts=C, encoder=enc,
        state_dtype=STATE_DTYPE, content=content, sources=RULES_SOURCES,
        action_names=C.ACTIONS.names(),
        min_players=1, max_players=C.NPLAYERS_MAX, max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, high), multi_agent=False, make_core=make_core,
        reset_options={"campaign": _campaign},
        utility="team", teams=one_team, ties=False, turn_order="state",
        chance="explicit", information="imperfect")


class DCCCore(KernelCore):
    """Dungeon Crawler Carl: Unstoppable for one configuration, batched.

    Arguments: ``num_players`` (1 solo, 2 co-op), ``floor`` (1-3),
    ``difficulty`` ("normal", "hard", "expert", "unbeatable"), ``mode``
    ("arcade", "campaign"), ``crawler`` (a crawler name), ``race`` / ``klass`` (a name,
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
    def episode_info(self, state) -> dict:
        return {"outcome": OUTCOME_NAMES.get(int(state["outcome"]), "?"),
                "floor": int(state["cfg_floor"]), "xp": int(state["xp"]),
                "score": int(state["score"])}

    def episode_info_batch(self, states, rows):
        """:meth:`episode_info` of the rows ``rows`` of ``states`` at once (the
        vector env's finished rows), as ``{key: (values, None)}`` columns in
        the same key order; reads single fields, never copies whole records."""
        out = states["outcome"][rows].astype(np.int64)
        known = (out >= 0) & (out < len(_OUTCOME_LUT))
        names = np.where(known, _OUTCOME_LUT[np.where(known, out, 0)], "?").astype(object)
        return {"outcome": (names, None),
                "floor": (states["cfg_floor"][rows].astype(np.int64), None),
                "xp": (states["xp"][rows].astype(np.int64), None),
                "score": (states["score"][rows].astype(np.int64), None)}



def make_core(**kwargs) -> DCCCore:
    return DCCCore(**kwargs)
