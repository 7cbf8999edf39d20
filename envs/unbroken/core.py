"""``UnbrokenCore``: the batched GameCore of Unbroken (see ``core.spec``)."""

from __future__ import annotations

import numpy as np

from ...encoders import unbroken as enc
from ..catalog import entry
from ..core.errors import ContentError
from ..core.kernel_core import KernelCore, choice_arg
from ..core.spec import game_spec
from . import consts as C
from . import kernels, rules, state  # kernels: generated, written on first use
from .content import load_content
from .state import NAB_MAX, STATE_DTYPE

CHARACTERS = ("sneak", "sage", "hunter", "brawler")
REWARDS = ("win_loss", "score")
#: the game's declaration (envs/unbroken/game.toml)
GAME = entry("unbroken")
MAX_EPISODE_STEPS = dict(GAME.spec)["max_episode_steps"]
#: the modules whose code is the game: a snapshot or saved model refuses any change to them
RULES_SOURCES = (rules, C, state, enc)


def make_spec(content=None):
    """The game's spec, from its declaration (``game.toml``, its facts in
    ``[spec]``) and modules (``core.spec.game_spec``). One seat against the dungeon;
    undrawn decks and monsters are hidden (the defaults: general utility,
    no ties, fixed turns, explicit chance, imperfect information)."""
    return game_spec(
        GAME,
        content or load_content(),
        RULES_SOURCES,
        obs_low=enc.OBS_LOW,
        obs_high=enc.OBS_HIGH,
        make_core=make_core,
    )


class UnbrokenCore(KernelCore):
    """Unbroken rules for one configuration, batched.

    Arguments: ``character`` ("sneak", "sage", "hunter", "brawler" or
    "random": a new one each episode), ``difficulty`` ("easy", "normal",
    "hard"), ``reward`` ("win_loss" or "score"), ``auto_advance`` (take
    decisions with one legal action automatically), ``max_steps`` (the
    truncation cap on decisions),
    ``content`` (a content folder, default the shipped data).
    """

    state_dtype = STATE_DTYPE
    kernels = kernels

    def __init__(
        self,
        character="sneak",
        difficulty="normal",
        reward="win_loss",
        auto_advance=True,
        max_steps=MAX_EPISODE_STEPS,
        content=None,
    ):
        self._set_content(load_content(content))
        if len(self.content.ability_names) > NAB_MAX:
            raise ContentError(
                f"content defines {len(self.content.ability_names)} "
                f"abilities; at most {NAB_MAX} are supported"
            )
        self.spec = make_spec(self.content)
        self.character = choice_arg(character, CHARACTERS, "character", allow_random=True)
        self.difficulty = choice_arg(difficulty, C.DIFFICULTIES, "difficulty")
        reward_mode = choice_arg(reward, REWARDS, "reward")
        self._configure(
            1, max_steps, auto_advance, reward_mode, cfg=(self.character, self.difficulty)
        )

    # -- helpers -----------------------------------------------------------------
    def action_label(self, state, a):
        """A readable description of action ``a`` in this state (for play)."""
        from .render import describe_action

        return describe_action(self, state, a)

    def render_ansi(self, state):
        from .render import render_text

        return render_text(self, state)

    def render_rgb(self, state):
        from .render import render_rgb

        return render_rgb(self, state)

    def episode_info(self, state):
        out = int(state["outcome"])
        info = {
            "outcome": C.OUTCOME_NAMES[out],
            "level": int(state["level"]),
            "character": CHARACTERS[int(state["character"])],
        }
        if out == C.O_WIN:
            info["score"] = int(state["score"])
            info["title"] = self.content.title_names[int(state["title"])]
        return info

    def episode_info_batch(self, states, rows):
        """:meth:`episode_info` of the rows ``rows`` of ``states`` at once (the
        vector env's finished rows): ``{key: (values, present)}`` in the key
        order of :meth:`episode_info`, one value per row of ``rows``,
        ``present`` a bool array (None: every row) for keys only some rows
        have; keys no row has are left out. Reads single fields, never copies
        whole records."""
        out = states["outcome"][rows].astype(np.int64)
        cols = {
            "outcome": (np.array(C.OUTCOME_NAMES, object)[out], None),
            "level": (states["level"][rows].astype(np.int64), None),
            "character": (np.array(CHARACTERS, object)[states["character"][rows]], None),
        }
        win = out == C.O_WIN
        if win.any():
            cols["score"] = (states["score"][rows].astype(np.int64), win)
            titles = np.array(self.content.title_names, object)
            cols["title"] = (titles[np.where(win, states["title"][rows], 0)], win)
        return cols


def make_core(**kwargs):
    return UnbrokenCore(**kwargs)
