"""Which configurations of a game are measured, and how its cores and
PettingZoo envs are built (through the registry and the GameCore contract
only, so a new game joins with no benchmark code)."""

from __future__ import annotations

from ...registry import aec_factory  # noqa: F401  (re-exported: the suite's AEC envs)
from .settings import MULTI_PLAYERS


def player_counts(spec) -> list[int]:
    if not spec.multi_agent:
        return [1]
    counts = [p for p in MULTI_PLAYERS if spec.min_players <= p <= spec.max_players]
    return counts or [max(2, spec.min_players)]


def core_kwargs(spec, players: int) -> dict:
    return {"num_players": players} if spec.multi_agent else {}


def make_core(spec, players: int):
    from ...envs.core.common import resolve_core

    return resolve_core(spec, core_kwargs(spec, players))


def unknown_game_error(names) -> str | None:
    """The registry's message for the first name of ``names`` that is not a
    registered game, or None when all are."""
    import dungeonrl  # noqa: F401  (registers the games)

    from ...envs.core.errors import UnknownGameError
    from ...registry import get_spec

    for name in names:
        try:
            get_spec(name)
        except UnknownGameError as e:
            return str(e)
    return None
