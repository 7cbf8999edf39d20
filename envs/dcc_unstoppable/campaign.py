"""Campaign mode of Dungeon Crawler Carl: Unstoppable as one Gymnasium
episode: :class:`DCCCampaignEnv`.

A solo campaign plays Floors 1, 2 and 3 in order (DCC-087, DCC-254). Each
floor is one game of the engine's env in ``mode="campaign"``; between games
the wrapper keeps the campaign sheet and hands it to the next game through
the ``campaign`` reset option (``config.make_config``). The rules between
games are ``progression.py`` (:class:`~.progression.Campaign`: what a game
writes on the sheet, benefits, next floor or retry, the campaign score) and
``sheet.py`` (what a sheet may hold); the series of games is the engine's
:class:`~dungeonrl.envs.core.adapters.series.SeriesEnv`. The sheet:

* **XP box** (``xp``): after every game the XP that game earned is added
  (``finish`` writes it: achievement XP, also after a defeat, plus boss and
  quest XP after a win; DCC-241..243, DCC-248); benefits bought are paid
  from it (DCC-250).
* **Floor scores and defeats**: the XP each floor earned over all its
  attempts (A-20) and the defeat marks per floor (DCC-245).
* **Achievements** (``achievements``, 3 x 4 flags): every achievement
  completed in a game is ticked; a ticked one never scores again (DCC-239).
* **Benefits** (``benefits``, circles filled per benefit): bought with XP
  after each game (DCC-249..253) by the ``buy`` strategy; the rules apply
  them at every later setup.
* **Deck list** (``decks`` / ``upgrades``): the starting deck. Cards
  eliminated, drafted or upgraded during a game do not change it (A-14,
  reset steps DCC-255..258); it changes only through benefits (applied by
  the rules at setup), so the wrapper carries the list it was given
  (``reset(options={"campaign": ...})``, default: the 11-card deck).
* **Race and class** stay empty on Floors 1-2 (DCC-080); on Floor 3 they are
  chosen at the first attempt (``race`` / ``klass``: "draft" by default) and
  kept for retries.

After a win the next floor is played; after a defeat the same floor again
(DCC-254), at most ``max_attempts`` times per floor. Completion rewards of
the floors are not given by the rulebook (D-13) and are not modelled.

Episode: terminates when Floor 3 is won (``info["campaign_over"] ==
"complete"``), when a floor is lost ``max_attempts`` times ("failed") or on
an illegal action under the ``"penalize"`` policy; truncates when one game
reaches its step cap (``max_steps`` decisions per game). Rewards: each
floor game's reward as it ends (+1 win, -1 defeat), 0 otherwise. The final
``info`` holds the sheet and the campaign score: floor scores minus 3 per
defeat plus the difficulty bonus (DCC-261, DCC-262), counted when the
campaign is complete.

Observations and actions are the single game's (``dungeonrl/DCCUnstoppable-v1``);
the observation shows the floor being played.

Version history
---------------
* v1 (``dungeonrl/DCCUnstoppableCampaign-v1``): plays the v1 game
  (``dungeonrl/DCCUnstoppable-v1``: the solo Draft's bottom order, no
  Cleanup refill after the stairs); a campaign sheet's deck list names
  distinct physical cards (drafted cores leave the supply) and is checked
  whole before the reset.
* v0: initial release.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.adapters.series import SeriesEnv, register_series, series_vector_env
from . import consts as C
from .config import make_config
from .core import MAX_EPISODE_STEPS, DCCCore
from .progression import BUY_STRATEGIES, DEFEAT_PENALTY, Campaign, floor_choices

__all__ = ["DCCCampaignEnv", "CAMPAIGN_ENV_ID", "DEFEAT_PENALTY", "BUY_STRATEGIES"]
CAMPAIGN_ENV_ID = "dungeonrl/DCCUnstoppableCampaign-v1"


class DCCCampaignEnv(SeriesEnv):
    """A solo campaign (Floors 1-3) as one episode; see the module doc.

    Arguments: ``difficulty`` (one for the whole campaign, A-19),
    ``crawler``, ``race`` / ``klass`` (Floor 3 choice: a name, "draft" or
    "preset"), ``buy`` ("greedy": after each game buy the cheapest
    affordable benefit with a free circle, repeatedly; "none"; or a callable
    ``buy(sheet) -> list of benefit names or ids`` bought in order),
    ``max_attempts`` (games per floor, >= 1), ``max_steps`` (decisions per
    game), ``render_mode``, ``illegal_action``, ``dict_obs``,
    ``unknown_reset_options`` (``"warn"``: a reset option other than
    ``campaign`` / ``floor`` is ignored with one warning per env and key;
    ``"raise"``: ``ValueError``).

    ``reset(options={"campaign": sheet})`` starts from a campaign sheet (the
    keys of the ``campaign`` reset option: xp, benefits, achievements,
    decks, upgrades; checked as every entry point checks it, so a sheet
    this wrapper takes the solo, vector, SB3 and co-op envs take too, and
    a non-dict, ``None`` included, is the same ``ValueError``);
    ``options={"floor": f}`` resumes a campaign at Floor ``f`` (default 1).
    ``series``: the :class:`~.progression.Campaign` under way (its
    ``sheet``, from the first ``reset()`` on, is :attr:`sheet`);
    :meth:`affordable` and :meth:`buy_benefit` are its own.
    """

    env_id = CAMPAIGN_ENV_ID
    series: Campaign

    def __init__(
        self,
        difficulty="normal",
        crawler="Carl",
        race="draft",
        klass="draft",
        buy: str | Callable = "greedy",
        max_attempts: int = 3,
        max_steps: int = MAX_EPISODE_STEPS,
        render_mode=None,
        illegal_action: str = "penalize",
        dict_obs: bool = False,
        unknown_reset_options: str = "warn",
    ):
        env_kwargs = dict(render_mode=render_mode, illegal_action=illegal_action, dict_obs=dict_obs)
        super().__init__(unknown_reset_options, **env_kwargs)
        cfg = make_config(  # validates
            floor=3, difficulty=difficulty, mode="campaign", crawler=crawler, race=race, klass=klass
        )
        ids = int(cfg[C.CFG_DIFFICULTY]), int(cfg[C.CFG_CRAWLER])
        self.series = Campaign(*ids, race, klass, buy, max_attempts)
        self._core_kwargs = dict(difficulty=difficulty, crawler=crawler, max_steps=max_steps)
        self._open(floor_choices(1, race, klass))  # validates the env arguments too

    def _make_core(self, key) -> DCCCore:
        floor, race, klass = key
        kw = dict(floor=floor, race=race, klass=klass, mode="campaign", **self._core_kwargs)
        return DCCCore(num_players=1, **kw)

    @property
    def sheet(self) -> dict | None:
        """The campaign sheet (``None`` before the first ``reset()``)."""
        return self.series.sheet

    def affordable(self) -> list:
        """Benefit ids the XP box can pay with a circle left (DCC-251, DCC-253)."""
        return self.series.affordable()

    def buy_benefit(self, b) -> None:
        """Buy benefit ``b`` (name or id) now; ``ValueError`` if it is
        unknown, too expensive or has no circle left."""
        self.series.buy_benefit(b)


def make_campaign_vector_env(num_envs: int = 1, **kwargs):
    """Gymnasium vector entry point of :data:`CAMPAIGN_ENV_ID`: ``num_envs``
    campaigns in a ``SyncVectorEnv``."""
    return series_vector_env(DCCCampaignEnv, num_envs, **kwargs)


def register_campaign() -> str:
    """Register :data:`CAMPAIGN_ENV_ID` with Gymnasium (idempotent); returns the id."""
    entry, vector = f"{__name__}:DCCCampaignEnv", f"{__name__}:make_campaign_vector_env"
    return register_series(CAMPAIGN_ENV_ID, entry, vector)
