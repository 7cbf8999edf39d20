"""Facts a game declares once about its kernels (read by :mod:`.codegen`)."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any


@dataclasses.dataclass(frozen=True)
class KernelFacts:
    """What the engine's template needs to know about a game's kernels.

    Declared once per game, in the ``[kernel]`` table of its declaration
    (``envs/<game>/game.toml``, :func:`declared_facts`); a game outside the
    catalog (the test fixtures) builds its own ``KERNEL_FACTS``."""

    game: str  #: package name under dungeonrl.envs, e.g. "unbroken"
    num_actions: int
    max_seats: int  #: width of a reward row (most seats of the game)
    illegal_penalty: float  #: reward of the acting seat for an illegal action
    win_outcome: int  #: outcome code counted as a win by rollouts
    auto_counts_steps: bool = True  #: auto-advanced decisions count towards max_steps
    auto_limit: int = 1_000_000  #: most automatic decisions in a row (safety bound)
    has_finish: bool = False  #: rules define finish_row (terminal layout on engine end)
    has_policy: bool = False  #: the policy module defines policy_row
    #: the vector-env kernel streams big observation batches to memory
    #: (``core.memops``; declared where a paired measurement found it faster)
    stream_obs: bool = False
    #: where the row functions live (defaults: the game's package in dungeonrl)
    rules_module: str = ""
    encoder_module: str = ""
    policy_module: str = ""
    #: generated file, relative to the repository root ("" = envs/<game>/kernels.py);
    #: written beside the rules module under its file name (codegen.kernel_path)
    kernel_file: str = ""

    def module(self, which: str) -> str:
        given = getattr(self, f"{which}_module")
        if given:
            return given
        return {
            "rules": f"dungeonrl.envs.{self.game}.rules",
            "encoder": f"dungeonrl.encoders.{self.game}",
            "policy": f"dungeonrl.envs.{self.game}.policy",
        }[which]


#: facts a declaration may leave out, and the constant of the game's
#: ``consts`` each is then read from
NAMED_DEFAULTS = {"num_actions": "NUM_ACTIONS", "win_outcome": "O_WIN"}
#: facts whose value may be given as the name of a constant of ``consts``
NUMBERS = ("num_actions", "max_seats", "win_outcome", "auto_limit")


def declared_facts(game: Any) -> KernelFacts:
    """The :class:`KernelFacts` of a catalog game (its
    :class:`~dungeonrl.envs.catalog.GameEntry`): the ``kernel`` pairs of its
    declaration, each number given there as a string read as that constant
    of the game's ``consts`` module (``max_seats = "MAX_P"``); left out,
    ``num_actions`` is ``consts.NUM_ACTIONS`` and ``win_outcome``
    ``consts.O_WIN``."""
    table = named_constants({**NAMED_DEFAULTS, **dict(game.kernel)}, game, NUMBERS)
    try:
        return KernelFacts(game=game.name, **table)
    except TypeError as e:  # a key that is no fact
        raise TypeError(f"{game.name}: the [kernel] table of its declaration: {e}") from None


def named_constants(table: dict, game: Any, keys) -> dict:
    """``table`` (facts of a declaration) with the value of each of ``keys``
    that is a string read as that constant of the game's ``consts``."""
    consts = importlib.import_module(f"{game.package}.consts")
    out = {}
    for k, v in table.items():
        if k in keys and isinstance(v, str):
            if not hasattr(consts, v):
                raise ValueError(f"{game.name}: {k} = {v!r} names no constant of {consts.__name__}")
            v = getattr(consts, v)
        out[k] = v
    return out
