"""``DCCCore``: Dungeon Crawler Carl: Unstoppable over the engine's generated
kernels (``kernels.py``); everything hot is the engine's."""

from __future__ import annotations

import numpy as np

from ...encoders import dcc_unstoppable as enc
from ..core.batch import core_batch
from ..core.errors import CorruptStateError, SnapshotError
from ..core.kernel.header import O_ILLEGAL, O_PLAYING, O_TRUNCATED
from ..core.kernel_core import KernelCore, choice_arg, int_arg
from ..core.spec import GameSpec, game_spec
from . import consts as C
from . import kernels, rules, state
from .config import check_sheet_option, make_config
from .content import default_content, load_content
from .game import GAME
from .state import STATE_DTYPE

MAX_EPISODE_STEPS = 3000
VERSION = GAME.version  # declared once, in game.py
#: the modules whose code is the game: a snapshot or saved model refuses any change to them
RULES_SOURCES = (rules, C, state, enc)
OUTCOME_NAMES = {
    O_PLAYING: "playing",
    O_TRUNCATED: "truncated",
    O_ILLEGAL: "illegal_action",
    C.O_WIN: "win",
    C.O_LOSS_HEALTH: "loss_health",
    C.O_LOSS_SKULL: "loss_skull",
}
_OUTCOME_LUT = np.array(
    [OUTCOME_NAMES.get(k, "?") for k in range(max(OUTCOME_NAMES) + 1)], dtype=object
)


def _campaign(value):
    """The spec-level check of the ``campaign`` reset option (any table
    size, the default content); an env's core checks the sheet again for
    its own seats, crawler and content (:meth:`DCCCore.check_campaign_option`)
    before its reset changes anything."""
    make_config(campaign=check_sheet_option(value))  # validates every key and value
    return value


class CampaignOption:
    """A campaign sheet checked by a core (``owner``): the config vector its
    reset uses."""

    __slots__ = ("cfg", "owner")

    def __init__(self, cfg, owner=None):
        self.cfg = cfg
        self.owner = owner


#: record fields that hold the configuration, with the names of their values
_CONFIG_NAMES = {
    "cfg_difficulty": C.DIFFICULTIES,
    "cfg_mode": C.MODES,
    "reward_mode": C.REWARD_MODES,
}


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


def make_spec(content=None, reward="winloss", campaign_check=_campaign) -> GameSpec:
    """The game's spec. ``reward_range`` is true for the reward mode: (-1, 1)
    for ``"winloss"``, (-1, :func:`max_score_reward`) for ``"score"`` (a won
    game pays its XP, which can exceed 1). ``campaign_check``: the validator
    of the ``campaign`` reset option (a core passes its own)."""
    content = content or default_content()
    mode = choice_arg(reward, C.REWARD_MODES, "reward")
    high = 1.0 if mode == C.RM_WINLOSS else max(1.0, max_score_reward(content))
    return game_spec(
        name=GAME.name,
        title="DCCUnstoppable",
        version=VERSION,
        consts=C,
        encoder=enc,
        state_dtype=STATE_DTYPE,
        content=content,
        sources=RULES_SOURCES,
        action_names=C.ACTIONS.names(),
        min_players=1,
        max_players=C.NPLAYERS_MAX,
        max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, high),
        multi_agent=False,
        make_core=make_core,
        reset_options={"campaign": campaign_check},
        utility="team",
        teams=one_team,
        ties=False,
        turn_order="state",
        chance="explicit",
        information="imperfect",
    )


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

    def __init__(
        self,
        num_players=1,
        floor=1,
        difficulty="normal",
        mode="arcade",
        crawler="Carl",
        race=None,
        klass=None,
        campaign=None,
        reward="winloss",
        auto_advance=True,
        max_steps=MAX_EPISODE_STEPS,
        content=None,
    ):
        self.content = default_content() if content is None else load_content(content)
        self.T = self.content.tables
        self.TR = self.content.record
        self.spec = make_spec(self.content, reward, campaign_check=self.check_campaign_option)
        players = int_arg(num_players, "num_players", 1, C.NPLAYERS_MAX)
        self.options = dict(
            floor=floor, difficulty=difficulty, mode=mode, crawler=crawler, race=race, klass=klass
        )
        cfg = make_config(
            campaign=campaign, content=self.content, num_players=players, **self.options
        )
        self._configure(
            players, max_steps, auto_advance, choice_arg(reward, C.REWARD_MODES, "reward"), cfg=cfg
        )

    def check_campaign_option(self, value) -> CampaignOption:
        """The ``campaign`` reset option checked whole for this core (its
        seats, crawler and content) before the adapters reset anything:
        ``ValueError`` naming the field, or the config its reset uses. A
        sheet this core checked already (its own :class:`CampaignOption`)
        is returned as it is: an adapter that hands validated options on
        to another never sees its own output refused."""
        if isinstance(value, CampaignOption) and value.owner is self:
            return value
        return CampaignOption(
            make_config(
                campaign=check_sheet_option(value),
                content=self.content,
                num_players=self.num_players,
                **self.options,
            ),
            owner=self,
        )

    def apply_reset_options(self, states, options) -> None:
        """``campaign``: restart these games with the carried-over deck list,
        XP, benefits and achievements (same seeds). The sheet was checked
        whole before (:meth:`check_campaign_option`); the first reset record
        is then checked by the game's own rules as well (``check_state``), so
        a sheet the checks let through by mistake fails here, loudly."""
        if "campaign" not in options:
            return
        opt = options["campaign"]
        if not isinstance(opt, CampaignOption):
            opt = self.check_campaign_option(opt)
        core_batch(self).reset_states(states, states["seed"], states["num_players"], cfg=opt.cfg)
        if len(states):
            try:
                self.check_state(states[0])
            except CorruptStateError as e:
                raise CorruptStateError(
                    f"the campaign sheet was accepted, but the game it "
                    f"set up breaks the rules (a bug): {e}"
                ) from e

    def check_state(self, state) -> None:
        """The game's rules (``validate.py``, see ``KernelCore.check_state``),
        then the configuration: a record made under another floor,
        difficulty, mode, crawler, race / class setting, reward mode, step
        cap or auto-advance setting than this core's raises
        ``SnapshotError`` naming the field and both values."""
        super().check_state(state)
        s = state.reshape(-1)[0] if isinstance(state, np.ndarray) else state
        want = {
            "cfg_floor": self.cfg[C.CFG_FLOOR],
            "cfg_difficulty": self.cfg[C.CFG_DIFFICULTY],
            "cfg_mode": self.cfg[C.CFG_MODE],
            "cfg_crawler": self.cfg[C.CFG_CRAWLER],
            "reward_mode": self.reward_mode,
            "max_steps": self.max_steps,
            "auto_advance": self.auto_advance,
        }
        for p in range(C.NPLAYERS_MAX):
            want[f"cfg_race[{p}]"] = self.cfg[C.CFG_RACE0 + p]
            want[f"cfg_class[{p}]"] = self.cfg[C.CFG_CLASS0 + p]
        for key, env_value in want.items():
            field, _, idx = key.partition("[")
            got = s[field][int(idx[:-1])] if idx else s[field]
            if int(got) != int(env_value):
                raise SnapshotError(
                    f"snapshot made under another configuration: {key} is "
                    f"{self._config_word(field, int(got))} in the record, "
                    f"{self._config_word(field, int(env_value))} in this env"
                )

    def _config_word(self, field, v) -> str:
        names = _CONFIG_NAMES.get(field)
        if field == "cfg_crawler":
            names = self.content.crawler_names
        elif field in ("cfg_race", "cfg_class"):
            rc = {C.RC_DRAFT: "draft", C.RC_PRESET: "preset", C.RC_NONE: "none"}
            if v in rc:
                return f"{v} ({rc[v]})"
            names = self.content.race_names if field == "cfg_race" else self.content.class_names
        if names is not None and 0 <= v < len(names):
            return f"{v} ({names[v]})"
        return str(v)

    # -- helpers (not hot) ------------------------------------------------------
    def episode_info(self, state) -> dict:
        return {
            "outcome": OUTCOME_NAMES.get(int(state["outcome"]), "?"),
            "floor": int(state["cfg_floor"]),
            "xp": int(state["xp"]),
            "score": int(state["score"]),
        }

    def episode_info_batch(self, states, rows):
        """:meth:`episode_info` of the rows ``rows`` of ``states`` at once (the
        vector env's finished rows), as ``{key: (values, None)}`` columns in
        the same key order; reads single fields, never copies whole records."""
        out = states["outcome"][rows].astype(np.int64)
        known = (out >= 0) & (out < len(_OUTCOME_LUT))
        names = np.where(known, _OUTCOME_LUT[np.where(known, out, 0)], "?").astype(object)
        return {
            "outcome": (names, None),
            "floor": (states["cfg_floor"][rows].astype(np.int64), None),
            "xp": (states["xp"][rows].astype(np.int64), None),
            "score": (states["score"][rows].astype(np.int64), None),
        }


def make_core(**kwargs) -> DCCCore:
    return DCCCore(**kwargs)
