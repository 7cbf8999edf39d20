"""The PettingZoo Parallel form of a turn-based game, written once for every
multi-agent game.

Why a parallel form of a turn-based game, and what it means
-----------------------------------------------------------
PettingZoo's own ``aec_to_parallel`` needs ``is_parallelizable`` games in
which every agent acts once per cycle, in a fixed order. Our games are
strictly turn-based and the seat to act is the rules' choice: a seat may
take a whole turn of several decisions in a row, or answer out of turn (a
defender's response in a fight started on someone else's turn). So
:class:`DungeonParallelEnv` uses the known turn-based pattern instead
(PettingZoo's ``turn_based_aec_to_parallel`` does the same with its
``active_agent`` info):

* every live agent receives an observation on every step; only the seat to
  act has a non-zero ``action_mask`` (the same ``{"observation",
  "action_mask"}`` dicts as the AEC env);
* ``step(actions)`` applies the acting seat's action; the others may send
  any action of their space or ``None`` and are ignored (each is still
  checked: a malformed action or an unknown agent raises
  :class:`~dungeonrl.envs.core.errors.InvalidActionError`); leaving out the
  acting seat raises too;
* one parallel step is one decision of the game, so the trajectory is
  exactly the AEC env's (same seed, same actions); ``rewards`` are every
  seat's reward for that decision (the zero-sum payout reaches every seat
  on the step that ends the game);
* the game ends for all seats at once: ``terminations`` / ``truncations``
  are ``True`` for everyone, ``infos`` hold the core's ``episode_info`` and
  ``illegal_action``, and ``agents`` becomes empty;
* ``state()`` / ``state_space`` are the global view (every seat's
  observation concatenated; see :mod:`.multi`); ``infos[agent]["to_play"]``
  names the agent to act next (also readable from the masks).

Illegal actions follow the AEC env's policy (``"penalize"``: the game ends
with ``spec.illegal_penalty`` for the acting seat; ``"raise"``:
:class:`~dungeonrl.envs.core.errors.IllegalActionError`). For many games in
one call, see :class:`~dungeonrl.envs.core.adapters.multi.BatchedMultiAgentEnv`.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import ParallelEnv

from ..common import action_index
from ..copying import Copyable
from ..errors import InvalidActionError, ResetNeededError
from .aec import DungeonAECEnv

__all__ = ["DungeonParallelEnv", "make_parallel_env"]


class DungeonParallelEnv(Copyable, ParallelEnv):
    """A dungeonrl multi-agent game as a PettingZoo ``ParallelEnv`` (see the
    module doc). Arguments as for
    :class:`~dungeonrl.envs.core.adapters.aec.DungeonAECEnv`: ``game``,
    ``render_mode``, ``illegal_action``, ``unknown_reset_options``
    (``"warn"``: an unknown reset option is ignored with one warning;
    ``"raise"``: ``ValueError``), ``obs_dtype`` (``"float32"`` or
    ``"float16"``, the compact observation), ``**core_kwargs``."""

    def __init__(self, game, **kwargs):
        self._aec = DungeonAECEnv(game, **kwargs)
        self.unknown_reset_options = self._aec.unknown_reset_options
        self.core = self._aec.core
        self.game_spec = self._aec.game_spec
        self.metadata = dict(self._aec.metadata)
        self.render_mode = self._aec.render_mode
        self.possible_agents = self._aec.possible_agents[:]
        self.observation_spaces = self._aec.observation_spaces
        self.action_spaces = self._aec.action_spaces
        self.state_space = self._aec.state_space
        self.agents: list[str] = []

    def observation_space(self, agent):
        return self._aec.observation_space(agent)

    def action_space(self, agent):
        return self._aec.action_space(agent)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self._aec.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        obs = {a: self._aec.observe(a) for a in self.agents}
        to_play = self._aec.agent_selection
        return obs, {a: {"to_play": to_play} for a in self.agents}

    def step(self, actions: dict):
        aec = self._aec
        if not aec._started:
            raise ResetNeededError("step() called before reset()")
        if not self.agents:
            raise ResetNeededError("step() called after the game ended; call reset()")
        if not isinstance(actions, dict):
            raise InvalidActionError(
                f"actions must be a dict agent -> action, got {type(actions).__name__}"
            )
        actor = aec.agent_selection
        n = self.game_spec.num_actions
        for agent, a in actions.items():
            if agent not in self.agents:
                raise InvalidActionError(
                    f"unknown or finished agent {agent!r}; live agents: {self.agents}"
                )
            if a is not None:
                action_index(a, n)
        if actions.get(actor) is None:
            raise InvalidActionError(
                f"{actor} is to act and must send an action "
                "(the other agents may send anything or None)"
            )
        aec.step(actions[actor])
        live = self.agents
        rewards = {a: float(aec.rewards[a]) for a in live}
        terms = {a: bool(aec.terminations[a]) for a in live}
        truncs = {a: bool(aec.truncations[a]) for a in live}
        obs = {a: aec.observe(a) for a in live}
        over = any(terms.values()) or any(truncs.values())
        to_play = None if over else aec.agent_selection
        infos = {a: dict(aec.infos[a], to_play=to_play) for a in live}
        if over:
            while aec.agents:  # PettingZoo's dead steps, done for the user
                aec.step(None)
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def state(self):
        return self._aec.state()

    def render(self):
        return self._aec.render()

    def close(self):
        self._aec.close()

    # snapshots: the AEC env's (one decision = one step in both forms)
    def get_state(self):
        return self._aec.get_state()

    def set_state(self, snapshot) -> None:
        self._aec.set_state(snapshot)
        self.agents = [] if self._aec._done else self.possible_agents[:]

    def __repr__(self) -> str:
        return f"<DungeonParallelEnv {self.game_spec.env_id} players={self._aec.num_seats}>"


def make_parallel_env(game, **kwargs) -> DungeonParallelEnv:
    """Build the parallel env of ``game`` (a registered name, id, spec or core)."""
    return DungeonParallelEnv(game, **kwargs)
