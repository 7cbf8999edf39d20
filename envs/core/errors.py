"""Exceptions shared by every game and adapter."""

#: the errors a user of the package catches, re-exported by ``dungeonrl`` and
#: ``dungeonrl.envs.core`` (a game's authoring errors stay here)
__all__ = [
    "CorruptStateError",
    "DungeonRLError",
    "IllegalActionError",
    "InvalidActionError",
    "ResetNeededError",
    "SnapshotError",
    "UnknownGameError",
]


class DungeonRLError(Exception):
    """Base class of every error raised by dungeonrl."""


class IllegalActionError(DungeonRLError, ValueError):
    """An in-range action that the rules do not allow now (strict mode)."""


class InvalidActionError(DungeonRLError, ValueError):
    """An action that is not an integer in ``[0, num_actions)`` or has the
    wrong shape; always raised, whatever the illegal-action policy."""


class ResetNeededError(DungeonRLError, RuntimeError):
    """``step`` called before ``reset`` or after the episode ended."""


class SnapshotError(DungeonRLError, ValueError):
    """A snapshot of another game, layout version or size was loaded."""


class CorruptStateError(DungeonRLError, ValueError):
    """A state record breaks an invariant of the rules."""


class ContentError(DungeonRLError, ValueError):
    """Malformed content data; the message names the file, card and field."""


class UnknownGameError(DungeonRLError, KeyError):
    """A game name or env id that no registered game has."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class RenderModeError(DungeonRLError, ValueError, TypeError):
    """A ``render_mode`` the game does not support. Also a ``TypeError``, the
    error an env constructor gives for an argument it does not take: tools
    that ask for a render mode on the user's behalf and retry without it on
    ``TypeError`` (Stable-Baselines3's ``make_vec_env`` asks for
    ``"rgb_array"``) then build the env without rendering."""
