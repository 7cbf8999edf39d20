"""``DCCCore``: Dungeon Crawler Carl: Unstoppable over the engine's generated
kernels (``kernels.py``); everything hot is the engine's."""

from __future__ import annotations

from ...encoders import dcc_unstoppable as enc
from ..catalog import entry
from ..core.kernel_core import KernelCore, choice_arg, int_arg
from ..core.options import ConfigResetOptions
from ..core.spec import GameSpec, game_spec, one_team  # one_team: the crawlers' team
from ..core.summary import field_summary
from . import consts as C
from . import kernels, rules, state  # kernels: generated, written on first use
from .config import check_sheet_option, game_options, make_config
from .content import default_content, load_content
from .progression import max_score_reward
from .state import STATE_DTYPE

#: the game's declaration (envs/dcc_unstoppable/game.toml)
GAME = entry("dcc_unstoppable")
MAX_EPISODE_STEPS = dict(GAME.spec)["max_episode_steps"]
#: the modules whose code is the game: a snapshot or saved model refuses any change to them
RULES_SOURCES = (rules, C, state, enc)


def _campaign(value):
    """The spec-level check of the ``campaign`` reset option (any table
    size, the default content); an env's core checks the sheet again for
    its own seats, crawler and content (:meth:`DCCCore.option_config`)
    before its reset changes anything."""
    make_config(campaign=check_sheet_option(value))  # validates every key and value
    return value


def make_spec(content=None, reward="winloss", campaign_check=_campaign) -> GameSpec:
    """The game's spec, from its declaration (``game.toml``, its facts in
    ``[spec]``) and modules (``core.spec.game_spec``) and what only code
    gives here. ``reward_range`` is true for the reward mode: (-1, 1)
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
        reward_range=(-1.0, high),
        make_core=make_core,
        reset_options={"campaign": campaign_check},
        teams=one_team,
    )


class DCCCore(ConfigResetOptions, KernelCore):
    """Dungeon Crawler Carl: Unstoppable for one configuration, batched.

    Arguments: ``num_players`` (1 solo, 2 co-op), ``campaign`` (carry-over:
    see ``config.make_config``), ``reward`` ("winloss", "score"),
    ``auto_advance``, ``max_steps``, ``content``, and the game's options
    (``config.OPTIONS``): ``floor`` (1-3), ``difficulty`` ("normal",
    "hard", "expert", "unbeatable"), ``mode`` ("arcade", "campaign"),
    ``crawler`` (a crawler name), ``race`` / ``klass`` (a name, "draft",
    "preset" or "none"; one value or a pair per seat). The reset option
    ``campaign`` (:attr:`config_options`) restarts the games with the
    carried-over deck list, XP, benefits and achievements (same seeds).
    """

    state_dtype = STATE_DTYPE
    kernels = kernels
    config_options = {"campaign": "campaign sheet"}

    def __init__(
        self,
        num_players=1,
        campaign=None,
        reward="winloss",
        auto_advance=True,
        max_steps=MAX_EPISODE_STEPS,
        content=None,
        **options,
    ):
        self._set_content(default_content() if content is None else load_content(content))
        checks = self.reset_option_checks()
        self.spec = make_spec(self.content, reward, campaign_check=checks["campaign"])
        players = int_arg(num_players, "num_players", 1, C.NPLAYERS_MAX)
        self.options = game_options(**options)
        cfg = make_config(campaign, self.content, players, **self.options)
        self._configure(
            players, max_steps, auto_advance, choice_arg(reward, C.REWARD_MODES, "reward"), cfg=cfg
        )

    def option_config(self, key, value):
        """``campaign``: a sheet checked whole for this core (its seats,
        crawler, options and content); its first reset record is then
        checked by the game's own rules too (``check_state``), so a sheet
        the checks let through by mistake fails loudly."""
        sheet = check_sheet_option(value)
        return make_config(sheet, self.content, self.num_players, **self.options)

    # the summary of a finished game (not hot)
    episode_info, episode_info_batch = field_summary(
        C.OUTCOME_NAMES, floor="cfg_floor", xp="xp", score="score"
    )


def make_core(**kwargs) -> DCCCore:
    return DCCCore(**kwargs)
