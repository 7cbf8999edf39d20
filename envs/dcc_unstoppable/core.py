"""``DCCCore``: Dungeon Crawler Carl: Unstoppable over the engine's generated
kernels (``kernels.py``); everything hot is the engine's."""

from __future__ import annotations

from ...encoders import dcc_unstoppable as enc
from ..core.kernel.freshness import load_kernels
from ..core.kernel_core import KernelCore, choice_arg, int_arg
from ..core.options import ConfigOption, config_option, reset_with_config
from ..core.spec import GameSpec, game_spec, one_team  # one_team: the crawlers' team
from ..core.summary import field_summary
from . import consts as C
from . import rules, state
from .config import check_sheet_option, make_config
from .content import default_content, load_content
from .game import GAME
from .progression import max_score_reward
from .state import STATE_DTYPE

#: the engine's loops over this game's rules (generated: written on first use)
kernels = load_kernels(GAME.name)

MAX_EPISODE_STEPS = 3000
#: the modules whose code is the game: a snapshot or saved model refuses any change to them
RULES_SOURCES = (rules, C, state, enc)


def _campaign(value):
    """The spec-level check of the ``campaign`` reset option (any table
    size, the default content); an env's core checks the sheet again for
    its own seats, crawler and content (:meth:`DCCCore.check_campaign_option`)
    before its reset changes anything."""
    make_config(campaign=check_sheet_option(value))  # validates every key and value
    return value


def make_spec(content=None, reward="winloss", campaign_check=_campaign) -> GameSpec:
    """The game's spec. ``reward_range`` is true for the reward mode: (-1, 1)
    for ``"winloss"``, (-1, :func:`max_score_reward`) for ``"score"`` (a won
    game pays its XP, which can exceed 1). ``campaign_check``: the validator
    of the ``campaign`` reset option (a core passes its own)."""
    content = content or default_content()
    mode = choice_arg(reward, C.REWARD_MODES, "reward")
    high = 1.0 if mode == C.RM_WINLOSS else max(1.0, max_score_reward(content))
    return game_spec(
        GAME,
        content,
        RULES_SOURCES,
        max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, high),
        make_core=make_core,
        reset_options={"campaign": campaign_check},
        utility="team",
        teams=one_team,
        turn_order="state",
        # the defaults: not multi-agent, no ties, explicit chance, imperfect information
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
        self._set_content(default_content() if content is None else load_content(content))
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

    def check_campaign_option(self, value) -> ConfigOption:
        """The ``campaign`` reset option checked whole for this core (its
        seats, crawler and content) before the adapters reset anything:
        ``ValueError`` naming the field, or the config its reset uses
        (``core.options.config_option``: a sheet this core checked already
        is returned as it is)."""
        return config_option(self, value, self._campaign_config)

    def _campaign_config(self, value):
        sheet = check_sheet_option(value)
        kw = dict(content=self.content, num_players=self.num_players, **self.options)
        return make_config(campaign=sheet, **kw)

    def apply_reset_options(self, states, options) -> None:
        """``campaign``: restart these games with the carried-over deck list,
        XP, benefits and achievements (same seeds). The sheet was checked
        whole before (:meth:`check_campaign_option`); the first reset record
        is then checked by the game's own rules as well (``check_state``), so
        a sheet the checks let through by mistake fails here, loudly."""
        if "campaign" in options:
            value = options["campaign"]
            reset_with_config(self, states, value, self._campaign_config, "campaign sheet")

    # the summary of a finished game (not hot)
    episode_info, episode_info_batch = field_summary(
        C.OUTCOME_NAMES, floor="cfg_floor", xp="xp", score="score"
    )


def make_core(**kwargs) -> DCCCore:
    return DCCCore(**kwargs)
