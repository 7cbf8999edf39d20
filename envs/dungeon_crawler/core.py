"""``DungeonCrawlerCore``: the batched GameCore of Dungeon Crawler (see
``core.spec``). A core is built for one table size (``num_players``);
the batch kernels themselves accept a different size per row."""

from __future__ import annotations

from ...encoders import dungeon_crawler as enc
from ..catalog import entry
from ..core.kernel_core import KernelCore, int_arg
from ..core.spec import game_spec
from . import consts as C
from . import kernels, rules, state  # kernels: generated, written on first use
from .content import load_content
from .state import STATE_DTYPE

#: the game's declaration (envs/dungeon_crawler/game.toml)
GAME = entry("dungeon_crawler")
MAX_EPISODE_STEPS = dict(GAME.spec)["max_episode_steps"]
#: the modules whose code is the game: a snapshot or saved model refuses any change to them
RULES_SOURCES = (rules, C, state, enc)


def make_spec(content=None):
    """The game's spec, from its declaration (``game.toml``, its facts in
    ``[spec]``) and modules (``core.spec.game_spec``). One winner (the boss's killer),
    every other seat loses; rivals act out of turn (combat replies, the
    killer's loot pick); hidden hands (the defaults: no ties, explicit
    chance, imperfect information)."""
    return game_spec(
        GAME,
        content or load_content(),
        RULES_SOURCES,
        make_core=make_core,
    )


class DungeonCrawlerCore(KernelCore):
    """Dungeon Crawler rules for one configuration, batched.

    Arguments: ``num_players`` (2..8), ``reward`` ("zero_sum": +1 to the
    winner and -1/(N-1) to every other seat; "winner_only": +1 to the
    winner, 0 to the rest), ``auto_advance`` (take decisions with a single
    legal action automatically), ``max_steps`` (truncation cap on agent
    decisions), ``content`` (a content folder, default the shipped data).
    The batch kernels accept a different table size per row
    (``reset(states, seeds, num_players=...)``).
    """

    state_dtype = STATE_DTYPE
    kernels = kernels

    def __init__(
        self,
        num_players=4,
        reward="zero_sum",
        auto_advance=True,
        max_steps=MAX_EPISODE_STEPS,
        content=None,
    ):
        self._set_content(load_content(content))
        self.spec = make_spec(self.content)
        players = int_arg(num_players, "num_players", C.MIN_P, C.MAX_P)
        if reward not in C.REWARD_MODES:
            raise ValueError(f"unknown reward {reward!r}: expected one of {list(C.REWARD_MODES)}")
        self._configure(players, max_steps, auto_advance, C.REWARD_MODES.index(reward))

    # -- helpers -----------------------------------------------------------------
    def render_ansi(self, state):
        from .render import render_text

        return render_text(self, state)

    def render_rgb(self, state):
        from .render import render_rgb

        return render_rgb(self, state)

    def action_label(self, state, a):
        from .render import describe_action

        return describe_action(self, state, a)

    def episode_info(self, state):
        n = int(state["num_players"])
        info = {
            "outcome": C.OUTCOME_NAMES[int(state["outcome"])],
            "winner": int(state["winner"]),
            "rounds": int(state["round"]),
            "final_boss": self.content.final_names[int(state["final_boss"])],
            "deaths": state["deaths"][:n].tolist(),
            "kills": state["kills"][:n].tolist(),
        }
        return info


def make_core(**kwargs):
    return DungeonCrawlerCore(**kwargs)
