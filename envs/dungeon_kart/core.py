"""``DungeonKartCore``: the Dungeon Kart configuration over the engine's
generated kernels (``kernels.py``); everything hot is the engine's."""

from __future__ import annotations

import numpy as np

from ...encoders import dungeon_kart as enc
from ..catalog import entry
from ..core.errors import ContentError
from ..core.kernel.header import O_ILLEGAL, O_PLAYING, O_TRUNCATED
from ..core.kernel_core import KernelCore, choice_arg, int_arg
from ..core.spec import GameSpec, game_spec
from . import consts as C
from . import kernels, rules, state  # kernels: generated, written on first use
from .content import load_content
from .state import STATE_DTYPE

DRAFTS = ("pick", "random")
OUTCOME_NAMES = {
    O_PLAYING: "playing",
    O_TRUNCATED: "truncated",
    O_ILLEGAL: "illegal_action",
    C.O_RACE_OVER: "finished",
}

#: the game's declaration (envs/dungeon_kart/game.toml)
GAME = entry("dungeon_kart")
MAX_EPISODE_STEPS = dict(GAME.spec)["max_episode_steps"]
#: the modules whose code is the game: a snapshot or saved model refuses any change to them
RULES_SOURCES = (rules, C, state, enc)


def make_spec(content=None) -> GameSpec:
    """The game's spec, from its declaration (``game.toml``, its facts in
    ``[spec]``) and modules (``core.spec.game_spec``). Racers are ranked and can share
    a place (the defaults: fixed turns, explicit chance, imperfect
    information)."""
    return game_spec(
        GAME,
        content or load_content(),
        RULES_SOURCES,
        make_core=make_core,
    )


class DungeonKartCore(KernelCore):
    """Dungeon Kart for one configuration, batched.

    Arguments: ``num_players`` (2..8), ``track`` (a track name or index of the
    content, or the text of a custom board, see the game's README),
    ``draft`` ("pick": racers and dashboards drafted by decisions; "random":
    dealt), ``max_rounds`` (the round cap, truncation; default 60),
    ``auto_advance``, ``max_steps`` (decision cap, truncation), ``content``
    (a content folder, default the shipped data).
    """

    state_dtype = STATE_DTYPE
    kernels = kernels

    def __init__(
        self,
        num_players=4,
        track="Beginner Track",
        draft="pick",
        max_rounds=60,
        reward="rank",
        auto_advance=True,
        max_steps=MAX_EPISODE_STEPS,
        content=None,
    ):
        boards: tuple[str, ...] = ()
        if isinstance(track, str) and "\n" in track:
            boards = (track,)
        elif isinstance(track, (bool, np.bool_)) or not isinstance(track, (str, int, np.integer)):
            raise TypeError(
                f"track must be a track name, a track index or the text of a "
                f"custom board (several lines), got {type(track).__name__} "
                f"{track!r}"[:200]
            )
        self._set_content(load_content(content, boards=boards))
        self.spec = make_spec(self.content)
        players = int_arg(num_players, "num_players", C.MIN_P, C.MAX_P)
        self.track = (
            len(self.content.track_names) - 1 if boards else self.content.track_index(track)
        )
        try:
            self.content.check_players(self.track, players)
        except ContentError as e:
            raise ValueError(str(e)) from None
        self.draft = choice_arg(draft, DRAFTS, "draft")
        rounds = int_arg(max_rounds, "max_rounds", 1, 10_000)
        reward_mode = choice_arg(reward, C.REWARD_MODES, "reward")
        self._configure(
            players, max_steps, auto_advance, reward_mode, cfg=(self.track, self.draft, rounds)
        )

    # -- helpers (not hot) ------------------------------------------------------
    def action_label(self, state, a) -> str:
        from .render import describe_action

        return describe_action(state, self.content, a)

    def episode_info(self, state) -> dict:
        """The race's summary; once the final round was played out also
        ``placements`` (0 = best, ties share) for leagues rated from
        placements: ``rules.final_ranks``, the ranking the reward pays
        (finishers by MP left at the line then coins, the rest by Placement
        then coins)."""
        n = int(state["num_players"])
        info = {
            "outcome": OUTCOME_NAMES.get(int(state["outcome"]), "?"),
            "rounds": int(state["round"]),
            "track": self.content.track_names[int(state["track"])],
            "place": state["place"][:n].tolist(),
            "finished": state["finished"][:n].astype(bool).tolist(),
            "coins": state["coins"][:n].tolist(),
        }
        if int(state["outcome"]) == C.O_RACE_OVER:
            ranks = np.zeros(C.MAX_P, np.int64)
            rules.final_ranks(state, ranks)  # the rewards' own ranking
            info["placements"] = ranks[:n].tolist()
        return info


def make_core(**kwargs) -> DungeonKartCore:
    return DungeonKartCore(**kwargs)
