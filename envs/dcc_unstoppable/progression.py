"""A solo campaign of Dungeon Crawler Carl: Unstoppable between its games:
what a finished game writes on the campaign sheet, what the next game
starts from, when the campaign ends and what it scores. Plain functions
over the sheet (a dict), and :class:`Campaign`, the sheet of one campaign
and its bookkeeping as the engine's series of games
(:class:`~dungeonrl.envs.core.adapters.series.SeriesEnv`) asks for it; the
Gymnasium wrapper that plays the games is ``campaign.py``.

* **Results** (DCC-236..248): the XP a game earned (``finish`` in the rules:
  achievement XP, also after a defeat, plus boss and quest XP after a win)
  goes to the XP box and to the floor's score over all its attempts (A-20);
  every achievement completed is ticked and never scores again (DCC-239);
  a defeat adds a mark to the floor's defeats (DCC-245) and leaves the XP
  total as the game's own XP made it (DCC-247).
* **Benefits** (DCC-249..253): bought with XP between games, one circle
  each, while the XP box can pay and a circle is free (the solo circles);
  only the XP box pays (DCC-250).
* **Next game** (DCC-254): after a win the next floor, after a defeat the
  same floor again, at most ``max_attempts`` times per floor. Race and class
  stay empty on Floors 1-2 (DCC-080); on Floor 3 the first attempt chooses
  them and retries keep them.
* **What carries over** (DCC-255..259): every game is set up again from the
  sheet (XP box, benefits, achievements, the deck list as given: cards
  eliminated, drafted or upgraded in a game do not change it, A-14).
* **Score** (DCC-260..262): once Floor 3 is won, the floor scores minus
  :data:`DEFEAT_PENALTY` per defeat plus the difficulty bonus.
* :func:`max_score_reward`: the most XP one won game can pay.
"""

from __future__ import annotations

import numpy as np

from ..core.copying import Copyable
from ..core.errors import ResetNeededError
from . import consts as C
from .content import default_content
from .sheet import XP_MAX, check_campaign, check_sheet_option

DEFEAT_PENALTY = 3  # DCC-246
#: benefit purchases between games: the cheapest affordable one, repeatedly; none
BUY_STRATEGIES = ("greedy", "none")
#: outcomes that end a game by the rules (a won or lost floor)
_PLAYED = (C.O_WIN, C.O_LOSS_HEALTH, C.O_LOSS_SKULL)


def check_floor(floor) -> int:
    """The floor a campaign starts or resumes at (1-3)."""
    if (
        isinstance(floor, (bool, np.bool_))
        or not isinstance(floor, (int, np.integer))
        or floor not in (1, 2, 3)
    ):
        raise ValueError(f"reset option 'floor' must be 1, 2 or 3, got {floor!r}")
    return int(floor)


def check_buy(buy):
    """A purchase strategy: one of :data:`BUY_STRATEGIES` or a callable
    ``buy(sheet) -> benefit names or ids``."""
    if not (callable(buy) or buy in BUY_STRATEGIES):
        raise ValueError(f"buy must be one of {list(BUY_STRATEGIES)} or a callable, got {buy!r}")
    return buy


def check_attempts(max_attempts) -> int:
    """Games a floor may take (>= 1)."""
    if (
        isinstance(max_attempts, bool)
        or not isinstance(max_attempts, (int, np.integer))
        or max_attempts < 1
    ):
        raise ValueError(f"max_attempts must be an int >= 1, got {max_attempts!r}")
    return int(max_attempts)


def new_sheet(norm: dict, start: dict, floor: int) -> dict:
    """The sheet of a campaign starting (or resuming) at ``floor``: XP,
    benefits and achievements of the checked sheet ``norm``
    (``sheet.check_campaign``), the deck lists as ``start`` gives them (names
    stay names; they resolve the same way every game)."""
    return {
        "xp": norm["xp"],
        "benefits": norm["benefits"],
        "achievements": norm["achievements"],
        "decks": [list(d) for d in start.get("decks", [])],
        "upgrades": [[tuple(x) for x in u] for u in start.get("upgrades", [])],
        "floor": int(floor),
        "attempt": 1,
        "floor_scores": [0] * C.NFLOOR,
        "defeats": [0] * C.NFLOOR,
        "bought": [],
        "score": None,
        "result": None,
    }


def carry(sheet: dict) -> dict:
    """The ``campaign`` reset option of the next game (DCC-255..259): the
    record's XP box (``camp_xp``) is an int16 field, the sheet's keeps
    counting."""
    return {
        "xp": min(sheet["xp"], XP_MAX),
        "benefits": list(sheet["benefits"]),
        "achievements": [list(r) for r in sheet["achievements"]],
        "decks": [list(d) for d in sheet["decks"]],
        "upgrades": [list(u) for u in sheet["upgrades"]],
    }


def floor_choices(floor: int, race, klass) -> tuple:
    """``(floor, race, klass)`` of the floor's game: no race or class before
    Floor 3 (DCC-080), then the campaign's choice."""
    return (floor, "none", "none") if floor < 3 else (floor, race, klass)


def record_game(sheet: dict, st, truncated: bool, difficulty: int, max_attempts: int) -> tuple:
    """Write the finished game ``st`` (its final record) on ``sheet``;
    returns ``(game, result, kept)``: the game's summary, how the campaign
    ended (``"complete"``, ``"failed"``, ``"truncated"``,
    ``"illegal_action"``) or ``None`` when it goes on, and the Floor 3
    ``(race, class)`` a retry keeps (or ``None``)."""
    f = sheet["floor"] - 1
    outcome = int(st["outcome"])
    game = {"floor": f + 1, "attempt": sheet["attempt"], "outcome": outcome, "xp": int(st["xp"])}
    if truncated or outcome not in _PLAYED:
        sheet["result"] = "truncated" if truncated else "illegal_action"
        return game, sheet["result"], None
    gained = int(st["xp"])  # DCC-241..243, DCC-247
    sheet["xp"] += gained
    sheet["floor_scores"][f] += gained
    for j in range(C.ACH_PER_FLOOR):
        if st["ach"][j]:
            sheet["achievements"][f][j] = 1
    kept = None
    if f == 2 and int(st["race"][0]) >= 0:  # Floor 3: keep race and class
        kept = (int(st["race"][0]), int(st["klass"][0]))
    if outcome == C.O_WIN:
        if f + 1 == C.NFLOOR:
            sheet["result"] = "complete"
            sheet["score"] = campaign_score(sheet, difficulty)
            return game, "complete", kept
        sheet["floor"] += 1
        sheet["attempt"] = 1
        return game, None, kept
    sheet["defeats"][f] += 1  # DCC-245
    if sheet["attempt"] >= max_attempts:
        sheet["result"] = "failed"
        return game, "failed", kept
    sheet["attempt"] += 1
    return game, None, kept


def campaign_score(sheet: dict, difficulty: int) -> int:
    """Floor scores minus :data:`DEFEAT_PENALTY` per defeat plus the
    difficulty bonus (DCC-261, DCC-262)."""
    return (
        sum(sheet["floor_scores"])
        - DEFEAT_PENALTY * sum(sheet["defeats"])
        + C.DIFF_XP[int(difficulty)]
    )


def affordable(sheet: dict, content) -> list:
    """Benefit ids the XP box can pay with a circle left (DCC-251, DCC-253)."""
    T = content.tables
    return [
        b
        for b in range(len(content.benefit_names))
        if int(T.be_xp[b]) <= sheet["xp"] and sheet["benefits"][b] < int(T.be_circles[b, 0])
    ]


def buy_benefit(sheet: dict, content, b) -> None:
    """Buy benefit ``b`` (name or id) now (DCC-249..253); ``ValueError`` if
    it is unknown, too expensive or has no circle left."""
    names = content.benefit_names
    if isinstance(b, str):
        if b not in names:
            raise ValueError(f"unknown benefit {b!r}; choose from {list(names)}")
        b = names.index(b)
    if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not 0 <= b < len(names):
        raise ValueError(f"benefit must be a name or an id in [0, {len(names)}), got {b!r}")
    if b not in affordable(sheet, content):
        raise ValueError(
            f"benefit {names[b]!r} cannot be bought: costs "
            f"{int(content.tables.be_xp[b])} XP (XP box "
            f"{sheet['xp']}) or has no circle left"
        )
    sheet["xp"] -= int(content.tables.be_xp[b])
    sheet["benefits"][b] += 1
    sheet["bought"].append(names[b])


def buy_benefits(sheet: dict, content, buy) -> None:
    """The purchases between two games by the strategy ``buy``
    (:func:`check_buy`); a callable sees :func:`public_sheet`."""
    if buy == "none":
        return
    if callable(buy):
        for b in buy(public_sheet(sheet)) or []:
            buy_benefit(sheet, content, b)
        return
    T = content.tables
    while True:
        can = affordable(sheet, content)
        if not can:
            return
        buy_benefit(sheet, content, min(can, key=lambda b: (int(T.be_xp[b]), b)))


def public_sheet(sheet: dict) -> dict:
    """A copy of the sheet (its lists copied) to hand out."""
    out = {k: (v.copy() if isinstance(v, list) else v) for k, v in sheet.items()}
    out["achievements"] = [list(r) for r in sheet["achievements"]]
    return out


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


class Campaign(Copyable):
    """One solo campaign: its sheet (:attr:`sheet`, from :meth:`begin` on)
    and the rules between its games, for
    :class:`~dungeonrl.envs.core.adapters.series.SeriesEnv`. ``difficulty``
    and ``crawler``: ids (one difficulty for the whole campaign, A-19);
    ``race`` / ``klass``: the Floor 3 choice (a name or id, "draft" or
    "preset"); ``buy``: the purchases between games (:func:`check_buy`);
    ``max_attempts``: games per floor (:func:`check_attempts`)."""

    #: the reset options a campaign starts from
    reset_keys: tuple[str, ...] = ("campaign", "floor")
    # the packaged content (read-only tables): not copied nor pickled, the
    # copy takes the process's own (see ..core.copying)
    _derived = ("content",)

    def __init__(self, difficulty: int, crawler: int, race, klass, buy, max_attempts):
        self.content = default_content()
        self.difficulty, self.crawler = int(difficulty), int(crawler)
        self.race, self.klass = race, klass
        self.buy, self.max_attempts = check_buy(buy), check_attempts(max_attempts)
        self.sheet: dict | None = None
        self.race3, self.klass3 = race, klass  # the Floor 3 choice, kept for retries

    def _after_copy(self) -> None:
        super()._after_copy()
        self.content = default_content()

    def _sheet(self) -> dict:
        """The sheet of the campaign under way; ``ResetNeededError`` before
        the first ``reset()`` (there is no sheet yet)."""
        if self.sheet is None:
            raise ResetNeededError("the campaign has no sheet before reset()")
        return self.sheet

    def begin(self, options: dict) -> None:
        """A campaign from the reset options ``campaign`` (a sheet, checked
        whole before anything changes: one seat, this crawler; a missing
        key: the blank sheet) and ``floor`` (where it starts, default 1)."""
        floor = check_floor(options.get("floor", 1))
        start = check_sheet_option(options["campaign"]) if "campaign" in options else {}
        norm = check_campaign(start, self.content, num_players=1, crawler=self.crawler)
        self.sheet = new_sheet(norm, start, floor)
        self.race3, self.klass3 = self.race, self.klass

    def next_game(self) -> tuple:
        """``((floor, race, klass), reset options)`` of the game to play now."""
        s = self._sheet()
        return floor_choices(s["floor"], self.race3, self.klass3), {"campaign": carry(s)}

    def game_info(self, info: dict) -> dict:
        """A game's info with the floor and attempt being played."""
        s = self._sheet()
        return {**info, "floor": s["floor"], "attempt": s["attempt"]}

    def game_over(self, state, truncated: bool, info: dict) -> dict | None:
        """Record the game that ended (:func:`record_game`): ``info`` gets
        ``game`` (and, when the campaign is over, ``campaign_over`` and
        ``campaign``); ``None`` when it is over, else the keys of the next
        game's first info (after the purchases)."""
        s = self._sheet()
        game, over, kept = record_game(s, state, truncated, self.difficulty, self.max_attempts)
        self.race3, self.klass3 = kept or (self.race3, self.klass3)
        info["game"] = game
        if over:
            info.update(campaign_over=over, campaign=public_sheet(s))
            return None
        buy_benefits(s, self.content, self.buy)
        return {"game": game, "campaign": public_sheet(s)}

    def affordable(self) -> list:
        """Benefit ids the XP box can pay with a circle left (DCC-251, DCC-253)."""
        return affordable(self._sheet(), self.content)

    def buy_benefit(self, b) -> None:
        """Buy benefit ``b`` (name or id) now (:func:`buy_benefit`)."""
        buy_benefit(self._sheet(), self.content, b)
