"""What several adapters share beyond :mod:`..common`: the seeds of a reset
(:func:`game_seeds`), and the set-up and ``render`` of the one-game adapters
(:class:`GameAdapter`: ``DungeonEnv``, ``DungeonAECEnv`` and the self-play
env)."""

from __future__ import annotations

import numpy as np
from gymnasium import logger

from ..common import (
    check_policy,
    check_render_mode,
    draw_seeds,
    require_single_agent,
    resolve_core,
    seed_batch,
)
from ..errors import ResetNeededError
from ..spec import GameSpec, check_unknown_reset_options

__all__ = ["game_seeds", "GameAdapter"]


def game_seeds(seed, rng: np.random.Generator, n: int) -> np.ndarray:
    """The ``n`` game seeds of a reset: :func:`~..common.seed_batch` of
    ``seed``, or drawn from ``rng`` (:func:`~..common.draw_seeds`) when
    ``seed`` is None."""
    return draw_seeds(rng, n) if seed is None else seed_batch(seed, n)


class GameAdapter:
    """The one-game adapters' shared part: the set-up (the reset-options
    policy, the core and spec, the render mode and the illegal-action
    policy, each checked) and ``render``."""

    #: the warning of ``render()`` without a render mode
    _no_render_mode = "render() called without a render_mode"
    _started: bool  # reset was called at least once

    def _setup(
        self,
        game,
        core_kwargs: dict,
        render_mode,
        illegal_action: str,
        unknown_reset_options: str,
        single_agent: bool = False,
        resolve=resolve_core,
    ) -> GameSpec:
        """Check and set ``unknown_reset_options``, ``core`` (``resolve(game,
        core_kwargs)``; with ``single_agent`` it must be a 1-player core),
        ``game_spec``, ``render_mode`` (one of :meth:`_render_modes`) and
        ``illegal_action``, in that order; return the spec."""
        self.unknown_reset_options = check_unknown_reset_options(unknown_reset_options)
        self._warned_reset_keys: set = set()  # unknown reset options warned about
        self.core = resolve(game, core_kwargs)
        if single_agent:
            require_single_agent(self.core, type(self).__name__)
        spec = self.game_spec = self.core.spec
        self.render_mode = check_render_mode(spec, render_mode, self._render_modes(spec))
        self.illegal_action = check_policy(illegal_action)
        return spec

    def _render_modes(self, spec: GameSpec) -> list:
        """The render modes this adapter accepts: the game's."""
        return list(spec.render_modes)

    def render(self):
        """The shown game (:meth:`_shown_state`) in ``render_mode``:
        ``"rgb_array"`` an image, else the ``ansi`` text; ``None`` with a
        warning without a render mode."""
        if self.render_mode is None:
            logger.warn(self._no_render_mode)
            return None
        if not self._started:
            raise ResetNeededError("render() called before reset()")
        state = self._shown_state()
        if self.render_mode == "rgb_array":
            return self.core.render_rgb(state)
        return self.core.render_ansi(state)

    def _shown_state(self):
        """The game record :meth:`render` draws."""
        raise NotImplementedError
