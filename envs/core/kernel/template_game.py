"""The placeholder game of the kernel template (:mod:`.template`).

The template imports every game-specific name from here, so it is an
ordinary module that a linter or a type checker reads; the code generator
(:mod:`.codegen`) replaces that import block with the game's own imports
and its :class:`~.facts.KernelFacts` values. Nothing here is compiled or
run: the functions state the row contract (envs/README.md, "The row
contract") and raise if called.
"""

from __future__ import annotations

from typing import NoReturn

# the game's KernelFacts, written as constants into its kernels
NUM_ACTIONS = 1
MAX_SEATS = 1
ILLEGAL_PENALTY = -1.0
WIN_OUTCOME = 0
AUTO_LIMIT = 1
AUTO_COUNTS_STEPS = True
STREAM_OBS = False

# the encoder's observation size
OBS_SIZE = 1


def _placeholder(name: str) -> NoReturn:
    raise NotImplementedError(
        f"{name} of the kernel template's placeholder game: the "
        "generated kernels import the game's own"
    )


def configure_row(st, cfg):
    """Copy the game's config vector ``cfg`` into the record."""
    _placeholder("configure_row")


def reset_row(st, T):
    """Set up a new game (the engine has set the header); sets ``st.actor``."""
    _placeholder("reset_row")


def legal_row(st, T, mask) -> int:
    """Write the legal mask of ``st.actor`` into ``mask``; the legal count."""
    _placeholder("legal_row")


def apply_row(st, T, a, rew):
    """Apply the legal action ``a`` of ``st.actor`` up to the next decision."""
    _placeholder("apply_row")


def finish_row(st, T):
    """The engine ended the game: the record's terminal layout (optional)."""
    _placeholder("finish_row")


def encode_row(st, T, seat, out):
    """The observation of ``seat`` into ``out`` (float32[OBS_SIZE])."""
    _placeholder("encode_row")


def policy_row(st, T, prng) -> int:
    """The scripted policy's action for ``st.actor`` (optional)."""
    _placeholder("policy_row")
