"""Campaign mode of Dungeon Crawler Carl: Unstoppable as one Gymnasium
episode: :class:`DCCCampaignEnv`.

A solo campaign plays Floors 1, 2 and 3 in order (DCC-087, DCC-254). Each
floor is one game of the engine's env in ``mode="campaign"``; between games
the wrapper keeps the campaign sheet and hands it to the next game through
the ``campaign`` reset option (``config.make_config``):

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

import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from ..core.adapters.gym_env import DungeonEnv
from ..core.copying import Copyable
from ..core.errors import ResetNeededError
from ..core.spec import check_unknown_reset_options
from ..core.validate import check_num_envs, check_seed
from . import consts as C
from .config import XP_MAX, check_campaign, check_sheet_option, make_config
from .content import default_content
from .core import MAX_EPISODE_STEPS, DCCCore

DEFEAT_PENALTY = 3  # DCC-246
BUY_STRATEGIES = ("greedy", "none")


def _blank_sheet(n_benefits: int) -> dict:
    return {
        "xp": 0,
        "benefits": [0] * n_benefits,
        "achievements": np.zeros((C.NFLOOR, C.ACH_PER_FLOOR), np.int64).tolist(),
        "decks": [],
        "upgrades": [],
    }


class DCCCampaignEnv(Copyable, gym.Env):
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
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    # the packaged content (read-only tables): not copied nor pickled, the
    # copy takes the process's own (see ..core.copying)
    _derived = ("content",)

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
        self.unknown_reset_options = check_unknown_reset_options(unknown_reset_options)
        self._warned_reset_keys: set = set()  # unknown reset options warned about
        self.content = default_content()
        cfg = make_config(
            floor=3,
            difficulty=difficulty,
            mode="campaign",
            crawler=crawler,
            race=race,
            klass=klass,
            content=self.content,
        )  # validates
        self._crawler_id = int(cfg[C.CFG_CRAWLER])
        if not (callable(buy) or buy in BUY_STRATEGIES):
            raise ValueError(
                f"buy must be one of {list(BUY_STRATEGIES)} or a callable, got {buy!r}"
            )
        if (
            isinstance(max_attempts, bool)
            or not isinstance(max_attempts, (int, np.integer))
            or max_attempts < 1
        ):
            raise ValueError(f"max_attempts must be an int >= 1, got {max_attempts!r}")
        self.difficulty, self.crawler = difficulty, crawler
        self.race, self.klass = race, klass
        self.buy, self.max_attempts = buy, int(max_attempts)
        self._env_kwargs = dict(
            render_mode=render_mode,
            illegal_action=illegal_action,
            dict_obs=dict_obs,
            max_steps=max_steps,
        )
        self.render_mode = render_mode
        self._envs: dict = {}
        self._env = self._floor_env(1)  # validates the env arguments too
        self.action_space = self._env.action_space
        self.observation_space = self._env.observation_space
        self.metadata = dict(self._env.metadata)
        # the campaign sheet, from the first reset() on (see _sheet)
        self.sheet: dict[str, Any] | None = None
        self._started = False

    def _after_copy(self) -> None:
        super()._after_copy()
        self.content = default_content()

    # --- inner games ------------------------------------------------------------------
    def _floor_env(self, floor: int) -> DungeonEnv:
        race, klass = ("none", "none") if floor < 3 else (self._race3, self._klass3)
        key = (floor, race, klass)
        if key not in self._envs:
            core = DCCCore(
                num_players=1,
                floor=floor,
                difficulty=self.difficulty,
                mode="campaign",
                crawler=self.crawler,
                race=race,
                klass=klass,
                max_steps=self._env_kwargs["max_steps"],
            )
            kw = {k: v for k, v in self._env_kwargs.items() if k != "max_steps"}
            self._envs[key] = DungeonEnv(core, **kw)
        return self._envs[key]

    @property
    def state(self):
        """The record of the game being played (a read-only copy)."""
        return self._env._buf.states[0].copy()

    def _sheet(self) -> dict[str, Any]:
        """The sheet of the campaign under way; ``ResetNeededError`` before
        the first ``reset()`` (there is no sheet yet)."""
        if self.sheet is None:
            raise ResetNeededError("the campaign has no sheet before reset()")
        return self.sheet

    def _carry(self) -> dict:
        s = self._sheet()
        # the record's XP box (camp_xp) is an int16 field; the sheet's keeps counting
        return {
            "xp": min(s["xp"], XP_MAX),
            "benefits": list(s["benefits"]),
            "achievements": [list(r) for r in s["achievements"]],
            "decks": [list(d) for d in s["decks"]],
            "upgrades": [list(u) for u in s["upgrades"]],
        }

    def _start_game(self):
        self._env = self._floor_env(self._sheet()["floor"])
        seed = int(self.np_random.integers(0, 2**63 - 1))
        obs, info = self._env.reset(seed=seed, options={"campaign": self._carry()})
        return obs, self._info(info)

    def _info(self, info: dict) -> dict:
        out = dict(info)
        s = self._sheet()
        out["floor"] = s["floor"]
        out["attempt"] = s["attempt"]
        return out

    # --- gymnasium API ----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """``options={"campaign": sheet}`` starts from a campaign sheet (the
        keys of the ``campaign`` reset option: xp, benefits, achievements,
        decks, upgrades; checked as every entry point checks it, so a sheet
        this wrapper takes the solo, vector, SB3 and co-op envs take too, and
        a non-dict, ``None`` included, is the same ``ValueError``);
        ``options={"floor": f}`` resumes a campaign at Floor ``f`` (default
        1); any other key is ignored with one warning
        (``unknown_reset_options="raise"``: ``ValueError``)."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
        seed = check_seed(seed)  # the adapters' check: int / numpy int in [0, 2**64) or None
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = sorted(set(options) - {"campaign", "floor"}, key=repr)
        if unknown and self.unknown_reset_options == "raise":
            raise ValueError(f"unknown reset options {unknown}; accepted: ['campaign', 'floor']")
        for key in unknown:
            if key not in self._warned_reset_keys:
                self._warned_reset_keys.add(key)
                warnings.warn(
                    f"{CAMPAIGN_ENV_ID}: unknown reset option {key!r}; accepted: "
                    "['campaign', 'floor'] (ignored; pass "
                    "unknown_reset_options='raise' to make it an error)",
                    UserWarning,
                    stacklevel=2,
                )
            del options[key]
        floor = options.get("floor", 1)
        if (
            isinstance(floor, (bool, np.bool_))
            or not isinstance(floor, (int, np.integer))
            or floor not in (1, 2, 3)
        ):
            raise ValueError(f"reset option 'floor' must be 1, 2 or 3, got {floor!r}")
        # the check of every entry point (a missing key: the blank sheet)
        start = check_sheet_option(options["campaign"]) if "campaign" in options else {}
        # the whole sheet is checked before anything changes (one seat, this crawler)
        norm = check_campaign(start, self.content, num_players=1, crawler=self._crawler_id)
        sheet = _blank_sheet(len(self.content.benefit_names))
        sheet.update(xp=norm["xp"], benefits=norm["benefits"], achievements=norm["achievements"])
        # deck lists as given (names stay names); they resolve the same way every game
        sheet["decks"] = [list(d) for d in start.get("decks", [])]
        sheet["upgrades"] = [[tuple(x) for x in u] for u in start.get("upgrades", [])]
        sheet.update(
            floor=int(floor),
            attempt=1,
            floor_scores=[0] * C.NFLOOR,
            defeats=[0] * C.NFLOOR,
            bought=[],
            score=None,
            result=None,
        )
        self.sheet = sheet
        self._race3, self._klass3 = self.race, self.klass
        self._started = True
        return self._start_game()

    def step(self, action):
        if not self._started:
            raise ResetNeededError("step() called before reset()")
        obs, reward, terminated, truncated, info = self._env.step(action)
        info = self._info(info)
        if not (terminated or truncated):
            return obs, reward, False, False, info
        st = self._env._buf.states[0]
        s = self._sheet()
        f = s["floor"] - 1
        outcome = int(st["outcome"])
        game = {"floor": f + 1, "attempt": s["attempt"], "outcome": outcome, "xp": int(st["xp"])}
        info["game"] = game
        if truncated or outcome not in (C.O_WIN, C.O_LOSS_HEALTH, C.O_LOSS_SKULL):
            s["result"] = "truncated" if truncated else "illegal_action"
            info["campaign_over"] = s["result"]
            info["campaign"] = self._public_sheet()
            return obs, reward, terminated, truncated, info
        # record the results (DCC-236..248)
        gained = int(st["xp"])
        s["xp"] += gained
        s["floor_scores"][f] += gained
        for j in range(C.ACH_PER_FLOOR):
            if st["ach"][j]:
                s["achievements"][f][j] = 1
        if f == 2 and int(st["race"][0]) >= 0:  # Floor 3: keep race and class
            self._race3, self._klass3 = int(st["race"][0]), int(st["klass"][0])
        if outcome == C.O_WIN:
            if f + 1 == C.NFLOOR:
                s["result"] = "complete"
                s["score"] = (
                    sum(s["floor_scores"])
                    - DEFEAT_PENALTY * sum(s["defeats"])
                    + C.DIFF_XP[
                        C.DIFFICULTIES.index(self.difficulty)
                        if isinstance(self.difficulty, str)
                        else int(self.difficulty)
                    ]
                )
                info["campaign_over"] = "complete"
                info["campaign"] = self._public_sheet()
                return obs, reward, True, False, info
            s["floor"] += 1
            s["attempt"] = 1
        else:
            s["defeats"][f] += 1
            if s["attempt"] >= self.max_attempts:
                s["result"] = "failed"
                info["campaign_over"] = "failed"
                info["campaign"] = self._public_sheet()
                return obs, reward, True, False, info
            s["attempt"] += 1
        self._buy_benefits()
        obs, new_info = self._start_game()
        new_info["game"] = game
        new_info["campaign"] = self._public_sheet()
        return obs, reward, False, False, new_info

    # --- benefits -------------------------------------------------------------------
    def affordable(self) -> list:
        """Benefit ids the XP box can pay with a circle left (DCC-251, DCC-253)."""
        T = self.content.tables
        s = self._sheet()
        return [
            b
            for b in range(len(self.content.benefit_names))
            if int(T.be_xp[b]) <= s["xp"] and s["benefits"][b] < int(T.be_circles[b, 0])
        ]

    def buy_benefit(self, b) -> None:
        """Buy benefit ``b`` (name or id) now; raises ``ValueError`` if it is
        unknown, too expensive or has no circle left."""
        names = self.content.benefit_names
        if isinstance(b, str):
            if b not in names:
                raise ValueError(f"unknown benefit {b!r}; choose from {list(names)}")
            b = names.index(b)
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not 0 <= b < len(names):
            raise ValueError(f"benefit must be a name or an id in [0, {len(names)}), got {b!r}")
        if b not in self.affordable():
            raise ValueError(
                f"benefit {names[b]!r} cannot be bought: costs "
                f"{int(self.content.tables.be_xp[b])} XP (XP box "
                f"{self._sheet()['xp']}) or has no circle left"
            )
        s = self._sheet()
        s["xp"] -= int(self.content.tables.be_xp[b])
        s["benefits"][b] += 1
        s["bought"].append(names[b])

    def _buy_benefits(self) -> None:
        if self.buy == "none":
            return
        if callable(self.buy):
            for b in self.buy(self._public_sheet()) or []:
                self.buy_benefit(b)
            return
        T = self.content.tables
        while True:
            can = self.affordable()
            if not can:
                return
            self.buy_benefit(min(can, key=lambda b: (int(T.be_xp[b]), b)))

    def _public_sheet(self) -> dict:
        s = self._sheet()
        out = {k: (v.copy() if isinstance(v, list) else v) for k, v in s.items()}
        out["achievements"] = [list(r) for r in s["achievements"]]
        return out

    # --- the rest -------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        return self._env.action_masks()

    def render(self):
        return self._env.render()

    def close(self):
        for e in self._envs.values():
            e.close()


CAMPAIGN_ENV_ID = "dungeonrl/DCCUnstoppableCampaign-v1"


def make_campaign_env(**kwargs) -> DCCCampaignEnv:
    """Gymnasium entry point of :data:`CAMPAIGN_ENV_ID`."""
    return DCCCampaignEnv(**kwargs)


def make_campaign_vector_env(num_envs: int = 1, **kwargs):
    """Gymnasium vector entry point of :data:`CAMPAIGN_ENV_ID`: ``num_envs``
    campaigns in a ``SyncVectorEnv``, ``num_envs`` checked as by every adapter."""
    n = check_num_envs(num_envs)
    return gym.vector.SyncVectorEnv([lambda: DCCCampaignEnv(**kwargs) for _ in range(n)])


def register_campaign() -> str:
    """Register :data:`CAMPAIGN_ENV_ID` with Gymnasium (idempotent); returns the id."""
    if CAMPAIGN_ENV_ID not in gym.registry:
        gym.register(
            id=CAMPAIGN_ENV_ID,
            entry_point=f"{__name__}:make_campaign_env",
            vector_entry_point=f"{__name__}:make_campaign_vector_env",
            disable_env_checker=True,
        )
    return CAMPAIGN_ENV_ID
