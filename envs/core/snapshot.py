"""Saved state of one environment: the game record plus the adapter's
episode bookkeeping.

A :class:`Snapshot` is what :meth:`DungeonEnv.get_state` returns and
:meth:`DungeonEnv.set_state` accepts. It holds the raw bytes of the game's
state record (the whole game, per-env RNG included, see :mod:`.spec`), the
game name and ``layout_version`` it was taken from (a restore into another
game or another record layout raises :class:`SnapshotError`), and the
adapter's episode counters, so a restore continues exactly where the
snapshot was taken.

``to_bytes`` / ``from_bytes`` give a self-describing serialisation: a magic
tag, a length-prefixed JSON header and the record bytes.

Every field is checked when a snapshot is built (directly or by
``from_bytes``): ``game`` and ``layout_version`` non-empty strings, ``state``
bytes, ``step_count`` a non-negative int, ``episode_return`` a finite number,
``done`` a real bool (the string ``"false"`` is refused, not read as true).
Anything else raises :class:`SnapshotError`, so ``set_state`` never meets a
malformed header after it has started changing the env.
"""

from __future__ import annotations

import json
import struct
from dataclasses import asdict, dataclass

import numpy as np

from .errors import ResetNeededError, SnapshotError
from .validate import snapshot_fields

_MAGIC = b"DRLSNAP1"
_LEN = struct.Struct("<I")


@dataclass(frozen=True)
class Snapshot:
    """Everything needed to restore one environment exactly."""

    game: str  #: ``GameSpec.name`` of the game the state belongs to
    layout_version: str  #: ``GameSpec.layout_version`` when the snapshot was taken
    state: bytes  #: ``states[i].tobytes()`` of the game record
    step_count: int = 0  #: steps taken in the current episode
    episode_return: float = 0.0  #: sum of the agent's rewards in the current episode
    done: bool = False  #: the episode had ended (a ``reset`` is needed)

    def __post_init__(self):
        from .validate import snapshot_fields

        for f in ("game", "layout_version"):
            v = getattr(self, f)
            if not isinstance(v, str) or not v:
                raise SnapshotError(f"snapshot {f} must be a non-empty string, got {v!r}")
        if not isinstance(self.state, (bytes, bytearray, memoryview)):
            raise SnapshotError(f"snapshot state must be bytes, got {type(self.state).__name__}")
        sc, ret, done = snapshot_fields(self)
        object.__setattr__(self, "state", bytes(self.state))
        object.__setattr__(self, "step_count", sc)
        object.__setattr__(self, "episode_return", ret)
        object.__setattr__(self, "done", done)

    def to_bytes(self) -> bytes:
        """Serialise to bytes (magic, JSON header, record bytes)."""
        header = asdict(self)
        del header["state"]
        header["state_size"] = len(self.state)
        raw = json.dumps(header, sort_keys=True).encode()
        return _MAGIC + _LEN.pack(len(raw)) + raw + self.state

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview) -> Snapshot:
        """Inverse of :meth:`to_bytes`; raises :class:`SnapshotError` on
        anything that is not a complete snapshot."""
        data = bytes(data)
        start = len(_MAGIC) + _LEN.size
        if len(data) < start or not data.startswith(_MAGIC):
            raise SnapshotError("not a dungeonrl snapshot (bad magic tag)")
        (n,) = _LEN.unpack_from(data, len(_MAGIC))
        if start + n > len(data):
            raise SnapshotError(
                f"snapshot truncated: header of {n} bytes, {len(data) - start} present"
            )
        try:
            header = json.loads(data[start : start + n].decode())
            if not isinstance(header, dict):
                raise SnapshotError(
                    f"malformed snapshot header: a JSON object is needed, got "
                    f"{type(header).__name__}"
                )
            known = {"game", "layout_version", "step_count", "episode_return", "done", "state_size"}
            extra = sorted(set(header) - known)
            missing = sorted(known - set(header))
            if extra or missing:
                raise SnapshotError(
                    f"malformed snapshot header: unknown keys {extra}, missing keys {missing}"
                )
            size = header.pop("state_size")
            if isinstance(size, bool) or not isinstance(size, int):
                raise SnapshotError(f"malformed snapshot header: state_size {size!r}")
            state = data[start + n :]
            if len(state) != size:
                raise SnapshotError(
                    f"snapshot truncated: header says {size} state bytes, found {len(state)}"
                )
            return cls(state=state, **header)
        except SnapshotError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
            raise SnapshotError(f"malformed snapshot header: {e}") from e


def take_snapshot(
    spec, states, started: bool, step_count: int, episode_return: float, done: bool
) -> Snapshot:
    """What an adapter's ``get_state`` returns, written once: the
    :class:`Snapshot` of row 0 of ``states`` (the env's record) for the game
    of ``spec``, with the adapter's episode counters. Raises
    :class:`ResetNeededError` while the env is not ``started`` (no
    ``reset`` yet)."""
    if not started:
        raise ResetNeededError("get_state() called before reset()")
    return Snapshot(
        game=spec.name,
        layout_version=spec.layout_version,
        state=states[:1].tobytes(),
        step_count=step_count,
        episode_return=episode_return,
        done=done,
    )


def restore_record(snapshot, core, seats: int, env: str = "this env") -> tuple:
    """Everything an adapter's ``set_state`` checks before it changes
    anything, written once: ``snapshot`` (a :class:`Snapshot` or its bytes)
    must be of ``core``'s game and record layout, hold one whole record of
    ``seats`` seats (``env`` names the env in that message), carry valid
    counters and a record that passes ``core.check_state``. Returns
    ``(record, step_count, episode_return, done)``: a 1-row copy of the
    record, and ``done`` true also when the record's game is over. Raises
    :class:`SnapshotError` (or the core's ``CorruptStateError``)."""
    if isinstance(snapshot, (bytes, bytearray, memoryview)):
        snapshot = Snapshot.from_bytes(snapshot)
    if not isinstance(snapshot, Snapshot):
        raise SnapshotError(f"expected a Snapshot, got {type(snapshot).__name__}")
    spec = core.spec
    if snapshot.game != spec.name:
        raise SnapshotError(
            f"snapshot of game {snapshot.game!r} cannot be loaded into {spec.name!r}"
        )
    if snapshot.layout_version != spec.layout_version:
        raise SnapshotError(
            f"snapshot layout {snapshot.layout_version!r} does not match "
            f"{spec.name} layout {spec.layout_version!r}"
        )
    dtype = core.state_dtype
    if len(snapshot.state) != dtype.itemsize:
        raise SnapshotError(
            f"snapshot state has {len(snapshot.state)} bytes, "
            f"{spec.name} records have {dtype.itemsize}"
        )
    step_count, episode_return, done = snapshot_fields(snapshot)
    record = np.frombuffer(snapshot.state, dtype=dtype).copy()
    if "num_players" in (dtype.names or ()) and int(record[0]["num_players"]) != seats:
        raise SnapshotError(f"snapshot has {int(record[0]['num_players'])} seats, {env} {seats}")
    core.check_state(record[0])  # raises CorruptStateError; nothing changed yet
    return record, step_count, episode_return, done or bool(core.is_over(record[0]))
