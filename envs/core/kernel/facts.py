"""Facts a game declares once about its kernels (read by :mod:`.codegen`)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class KernelFacts:
    """What the engine's template needs to know about a game's kernels.

    Declared once per game (``KERNEL_FACTS`` in ``envs/<game>/consts.py``)."""

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
