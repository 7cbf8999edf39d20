"""Replays: a played game as a small file that re-simulates exactly.

A replay holds what is needed to play the game again decision by decision,
and nothing of the picture: the env id, the game's spec and layout
versions, the core options, the seed, every decision (the seat that took it
and its action), the agent of each seat (labels only), the game's result
and a SHA-256 digest of the final state record (hidden fields included).
The file is JSON (``.json``), a few kilobytes for a whole game.

Loading re-simulates it and checks it, so a truncated, edited, forged or
foreign file is refused with a :class:`ReplayError` that names the field
and says what is wrong (not JSON, not a replay, a newer format, a field
missing, an unknown or repeated field, an unknown game, another spec or
layout version, options the game refuses, a decision by the wrong seat,
an illegal action, actions after the end, a result, end or final state
that differs from the re-simulation, e.g. ``result.winner: recorded 0,
re-simulated 2``), never a traceback from inside the rules.

What the check proves, field by field (:data:`FIELDS`):

* derived from the game, compared: ``format``, ``format_version``,
  ``env_id``, ``game``, ``spec_version``, ``layout_version``;
* the inputs that define the game, checked but not derivable:
  ``core_kwargs`` (the game must accept them; no option that names a
  file, :data:`LOCAL_OPTIONS`), ``seed`` (0..2**64-1),
  ``actions`` (each one legal when it is played); the state record holds
  the options and the seed's stream, so a forged option or seed gives
  another game, which the recorded seats, legality, end, result or digest
  then no longer match (an option written out at its default value is
  the same game);
* re-simulated, compared exactly: ``actors`` (every decision by the seat
  the game waits on), ``finished``, ``result`` (every key and value of the
  game's episode info, the same JSON type included) and ``digest`` (the
  SHA-256 of the final state record);
* trusted as labels, not checked: ``seats``, the name of each seat's agent
  (one label per seat, or none): a replay proves which decisions were
  played, not which program chose them.

A field missing, a field the format does not define, or one given twice
in the file is refused by name. Rewards are not stored: a viewer takes them
from the re-simulation (:attr:`Trace.rewards`).

    from dungeonrl.agents.replay import record_replay, save_replay, load_replay
    rep = record_replay("dungeon_crawler", ["heuristic", "random"], seed=3)
    save_replay(rep, "dc.json")
    trace = load_replay("dc.json").simulate()  # every state, for a viewer to scrub

Command line: ``dungeonrl record GAME --agent A --replay game.json`` saves the
recorded game as a replay too; ``python -m dungeonrl.agents.replay check
FILE`` re-simulates one.

A replay carries the seed, so anyone holding it can see every hidden card of
the game: share replays of finished games, not of games still being played.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from dataclasses import asdict, dataclass, field

import numpy as np

from ..envs.core.batch import Batch
from ..envs.core.common import seed_batch
from ..envs.core.errors import DungeonRLError
from ..envs.core.spec import GameCore
from ..registry import get_spec, list_games
from .policy import make_agent

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Replay",
    "Trace",
    "ReplayError",
    "record_replay",
    "make_replay",
    "save_replay",
    "load_replay",
    "replay_from_json",
    "replay_name",
    "save_league_replays",
]

FORMAT = "dungeonrl-replay"
FORMAT_VERSION = 1
#: a replay file larger than this is refused before it is parsed
MAX_BYTES = 8 * 2**20
#: decisions a replay may hold
MAX_DECISIONS = 200_000
_SCALARS = (bool, int, float, str)
_HEX64 = re.compile("[0-9a-f]{64}")
#: core options a replay may not hold: they name files or folders of the
#: machine that plays the game (a replay re-simulates on the shipped content)
LOCAL_OPTIONS = ("content",)
#: every field of a replay file and what it holds (all required; no other)
FIELDS: dict[str, str] = {
    "format": f"{FORMAT!r}",
    "format_version": "the file format's version",
    "env_id": "the game's env id (compared with the registry)",
    "game": "the game's registered name",
    "spec_version": "the -vN of env_id (compared with the registry)",
    "layout_version": "the state layout's version (compared with the registry)",
    "core_kwargs": "the game's options (an input: the game must accept them)",
    "seed": "the game's seed (an input)",
    "actors": "the seat that took each decision (re-simulated)",
    "actions": "each decision's action (an input: each must be legal)",
    "seats": "each seat's agent label (trusted as a label, not checked)",
    "finished": "whether the game is over (re-simulated)",
    "result": "the game's episode info once over, else {} (re-simulated)",
    "digest": "SHA-256 of the final state record (re-simulated)",
}


class ReplayError(DungeonRLError, ValueError):
    """A replay that cannot be read or does not re-simulate."""


@dataclass
class Trace:
    """A re-simulated replay: ``states[k]`` is the record before decision
    ``k`` (``states[-1]`` the final one); ``rewards[k]`` the per-seat
    rewards of decision ``k``."""

    states: np.ndarray
    rewards: np.ndarray
    core: GameCore


@dataclass
class Replay:
    """One game (see the module doc). ``actors[k]`` took ``actions[k]``."""

    env_id: str
    game: str
    spec_version: int
    layout_version: str
    core_kwargs: dict
    seed: int
    actors: list
    actions: list
    seats: list = field(default_factory=list)  # the agent label of each seat
    finished: bool = False
    result: dict = field(default_factory=dict)  # the core's episode info
    digest: str = ""

    def core(self):
        """The game's core built with the replay's options (checked)."""
        return _core(self.game, self.core_kwargs)

    def simulate(self, *, check: bool = True) -> Trace:
        """Play the decisions again; with ``check``, refuse (``ReplayError``
        naming the field) a replay whose seats, end, result or final state
        differ from what the rules give. Illegal actions, actions after the
        end and an unknown seat count are refused either way."""
        core = self.core()
        n = len(self.actions)
        P = core.num_players
        if check and len(self.seats) not in (0, P):
            raise ReplayError(
                f"seats: {len(self.seats)} labels for the game's {P} seats (one per seat, or none)"
            )
        buf = Batch(core, 1)
        buf.reset(seed_batch(int(self.seed), 1))
        states = core.alloc(n + 1)
        rewards = np.zeros((n, P), np.float32)
        for k, (who, a) in enumerate(zip(self.actors, self.actions)):
            st = buf.states[0]
            states[k] = st
            if core.is_over(st):
                raise ReplayError(
                    f"actions[{k}]: decision {k} comes after the end: the game was already "
                    f"over ({n} decisions given)"
                )
            actor = int(core.to_play(buf.states)[0])
            if check and actor != int(who):
                raise ReplayError(
                    f"actors[{k}]: recorded seat {who}, re-simulated seat {actor} (at decision "
                    f"{k} the game waits on seat {actor})"
                )
            if not 0 <= int(a) < core.spec.num_actions or not st["legal"][int(a)]:
                raise ReplayError(
                    f"actions[{k}]: at decision {k} action {a} is not legal for seat {actor}"
                )
            buf.actions[0] = int(a)
            core.step(
                buf.states, buf.actions, buf.rewards, buf.terminated, buf.truncated, buf.illegal
            )
            rewards[k] = buf.rewards[0, :P]
        states[n] = buf.states[0]
        if check:
            _check_outcome(self, core, buf.states[0], n)
        return Trace(states=states, rewards=rewards, core=core)

    def to_json(self) -> dict:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, **asdict(self)}


def _outcome(core, final) -> tuple[bool, dict, str]:
    """``(finished, result, digest)`` of a game whose final record is ``final``."""
    over = bool(core.is_over(final))
    return over, (_plain(core.episode_info(final)) if over else {}), _digest(final)


def _check_outcome(rep: Replay, core, final, n: int) -> None:
    """Compare the recorded end, result and digest with the re-simulated
    ones; every difference is named in one :class:`ReplayError`."""
    over, result, digest = _outcome(core, final)
    bad = []
    if over != bool(rep.finished):
        bad.append(
            f"finished: recorded {_show(rep.finished)}, re-simulated {_show(over)} (the replay "
            f"says the game {'ended' if rep.finished else 'went on'}, but after its {n} "
            f"decisions it {'is over' if over else 'goes on'})"
        )
    bad += _differences("result", rep.result, result)
    if rep.digest != digest:
        bad.append(
            f"digest: recorded {rep.digest[:16]}..., re-simulated {digest[:16]}... (the final "
            "state differs from the one recorded: an edited replay, or rules that changed "
            "without a layout change)"
        )
    if bad:
        raise ReplayError("; ".join(bad))


def _show(v) -> str:
    """``v`` as it is written in the file (JSON)."""
    text = json.dumps(v, sort_keys=True, allow_nan=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _differences(name: str, recorded, derived) -> list:
    """Where ``recorded`` differs from ``derived`` (JSON values), each as
    ``'path: recorded X, re-simulated Y'``; equal means the same JSON text,
    so ``1``, ``1.0`` and ``true`` differ."""
    if isinstance(recorded, dict) and isinstance(derived, dict):
        out = []
        for key in derived:
            if key not in recorded:
                out.append(f"{name}.{key}: missing, re-simulated {_show(derived[key])}")
            else:
                out += _differences(f"{name}.{key}", recorded[key], derived[key])
        out += [
            f"{name}.{key}: recorded {_show(recorded[key])}, not in the re-simulated {name}"
            for key in recorded
            if key not in derived
        ]
        return out
    if isinstance(recorded, list) and isinstance(derived, list) and len(recorded) == len(derived):
        out = []
        for i, (r, d) in enumerate(zip(recorded, derived)):
            out += _differences(f"{name}[{i}]", r, d)
        return out
    if json.dumps(recorded, sort_keys=True) == json.dumps(derived, sort_keys=True):
        return []
    return [f"{name}: recorded {_show(recorded)}, re-simulated {_show(derived)}"]


def _digest(state) -> str:
    return hashlib.sha256(np.ascontiguousarray(state).tobytes()).hexdigest()


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, (np.integer, np.floating, np.bool_)):
        return x.item()
    return x


def _refuse_local_options(core_kwargs: dict, prefix: str) -> None:
    local = [k for k in LOCAL_OPTIONS if core_kwargs.get(k) is not None]
    if local:
        raise ReplayError(
            f"{prefix}core_kwargs: {local[0]!r} cannot be in a replay (it names a file or "
            "folder of the machine that plays it; replays re-simulate on the game's shipped "
            "content)"
        )


def _core(game: str, core_kwargs: dict) -> GameCore:
    make_core = get_spec(game).make_core
    if make_core is None:
        raise ReplayError(f"{game} has no make_core factory: it cannot re-simulate a replay")
    try:
        return make_core(**core_kwargs)
    except (ValueError, TypeError, KeyError) as e:
        raise ReplayError(f"{game} refuses the replay's options {core_kwargs}: {e}") from e


def make_replay(game: str, core_kwargs: dict, seed: int, actors, actions, seats=()) -> Replay:
    """The replay of decisions already taken (``actors[k]`` took
    ``actions[k]`` in the game of ``seed``): its result and digest come
    from playing them again. ``seats``: the agent label of each seat (one
    label: the same agent in every seat). Options that name files
    (:data:`LOCAL_OPTIONS`) raise :class:`ReplayError`."""
    spec = get_spec(game)
    _refuse_local_options(core_kwargs, "")
    rep = Replay(
        env_id=spec.env_id,
        game=spec.name,
        spec_version=int(spec.version),
        layout_version=str(spec.layout_version),
        core_kwargs=_plain(dict(core_kwargs)),
        seed=int(seed),
        actors=[int(x) for x in actors],
        actions=[int(x) for x in actions],
        seats=[str(s) for s in seats],
    )
    trace = rep.simulate(check=False)
    if len(rep.seats) == 1:  # one agent for every seat
        rep.seats = rep.seats * trace.core.num_players
    rep.finished, rep.result, rep.digest = _outcome(trace.core, trace.states[-1])
    return rep


def record_replay(
    game: str,
    agents,
    seed: int = 0,
    *,
    max_steps: int | None = None,
    deterministic: bool = True,
    **core_kwargs,
) -> Replay:
    """Play one seeded game and return its replay. ``agents``: one agent for
    every seat, or a list with one per seat (names as ``make_agent`` takes
    them, or agent objects; seat ``i``'s agent is seeded from ``seed + 7919 i``);
    ``core_kwargs``: the game's options (``num_players=4``...)."""
    spec = get_spec(game)
    if spec.make_core is None:
        raise TypeError(f"GameSpec {spec.name!r} has no make_core factory")
    core = spec.make_core(**core_kwargs)
    P = core.num_players
    given = list(agents) if isinstance(agents, (list, tuple)) else [agents] * P
    if len(given) != P:
        raise ValueError(f"{len(given)} agents for {P} seats")
    by_seat = [
        make_agent(a, core, seed=int(seed) + 7919 * i, deterministic=deterministic)
        for i, a in enumerate(given)
    ]
    seats = [
        a if isinstance(a, str) else getattr(b, "name", "agent") for a, b in zip(given, by_seat)
    ]
    buf = Batch(core, 1)
    buf.reset(seed_batch(int(seed), 1))
    rows = np.zeros(1, np.int64)
    actors: list[int] = []
    actions: list[int] = []
    while not core.is_over(buf.states[0]):
        if max_steps is not None and len(actions) >= max_steps:
            break
        actor = int(core.to_play(buf.states)[0])
        buf.players[0] = max(actor, 0)
        buf.refresh()  # the acting seat's observation and mask
        a = int(by_seat[actor].act(buf, rows)[0])
        actors.append(actor)
        actions.append(a)
        buf.actions[0] = a
        core.step(buf.states, buf.actions, buf.rewards, buf.terminated, buf.truncated, buf.illegal)
    return make_replay(game, core_kwargs, seed, actors, actions, seats)


def replay_name(*parts) -> str:
    """A file name from labels: letters, digits and ``_ . -`` only (a
    model path or ``module:attribute`` label cannot make a path)."""
    text = "-".join(str(p) for p in parts)
    text = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._-") or "replay"
    return text[:150] + ".json"


def save_league_replays(game, lineups, games: int, seed: int, folder, core_kwargs) -> list:
    """Replays of a league's games: for each lineup (a list of
    ``(label, agent name)`` per side), ``games`` seeded games (seeds
    ``seed..seed + games - 1``, the sides rotated one seat per game as the
    league does), played again one at a time by agents built from the
    names and written to ``folder`` as JSON. Returns the paths written."""
    os.makedirs(folder, exist_ok=True)
    out = []
    for lineup in lineups:
        for g in range(games):
            r = g % len(lineup)
            order = lineup[r:] + lineup[:r]
            rep = record_replay(game, [name for _, name in order], seed=seed + g, **core_kwargs)
            rep.seats = [label for label, _ in order]
            path = os.path.join(
                folder, replay_name(*(label for label, _ in order), f"seed{seed + g}")
            )
            out.append(save_replay(rep, path))
    return out


def save_replay(replay: Replay, path) -> str:
    """Write ``replay`` as JSON to ``path``; returns the path."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(replay.to_json(), f, separators=(",", ":"))
    return os.fspath(path)


def _need(d: dict, key: str, kind, what: str):
    if key not in d:
        raise ReplayError(f"not a complete replay: no {key!r}")
    v = d[key]
    if not isinstance(v, kind) or (kind is not bool and isinstance(v, bool)):
        raise ReplayError(f"replay field {key!r} must be {what}, got {type(v).__name__}")
    return v


def replay_from_json(d, *, source: str = "replay") -> Replay:
    """A :class:`Replay` from its JSON object, every field checked: all of
    :data:`FIELDS` present, no other, each of its type, and the header the
    same as the registry's (not yet re-simulated: :func:`load_replay` and
    :meth:`Replay.simulate` do that)."""
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ReplayError(f"{source}: not a dungeonrl replay (no {FORMAT!r} header)")
    ver = d.get("format_version")
    if not isinstance(ver, int) or isinstance(ver, bool) or not 1 <= ver <= FORMAT_VERSION:
        raise ReplayError(
            f"{source}: replay format {ver!r} is not one this dungeonrl reads (1..{FORMAT_VERSION})"
        )
    unknown = [str(k) for k in d if k not in FIELDS]
    if unknown:
        raise ReplayError(
            f"{source}: unknown field{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(k[:40]) for k in unknown[:5])} (a replay of format "
            f"{FORMAT_VERSION} holds only {', '.join(FIELDS)})"
        )
    missing = [k for k in FIELDS if k not in d]
    if missing:
        raise ReplayError(
            f"{source}: not a complete replay: no {', '.join(repr(k) for k in missing)}"
        )
    game = _need(d, "game", str, "a game name")
    if game not in list_games():
        raise ReplayError(
            f"{source}: unknown game {game!r} (registered: {', '.join(list_games())})"
        )
    spec = get_spec(game)
    env_id = _need(d, "env_id", str, "an env id")
    layout = _need(d, "layout_version", str, "a string")
    if env_id != spec.env_id or layout != str(spec.layout_version):
        raise ReplayError(
            f"{source}: recorded on {env_id} layout {layout}; this dungeonrl has "
            f"{spec.env_id} layout {spec.layout_version} (replays re-simulate only on the "
            "layout they were recorded on)"
        )
    spec_version = _need(d, "spec_version", int, "an integer")
    if spec_version != int(spec.version):
        raise ReplayError(
            f"{source}: spec_version: recorded {spec_version}, but {spec.env_id} is "
            f"version {spec.version}"
        )
    kw = _need(d, "core_kwargs", dict, "an object")
    if not all(isinstance(k, str) and isinstance(v, _SCALARS) for k, v in kw.items()):
        raise ReplayError(f"{source}: core_kwargs must map names to numbers or strings")
    _refuse_local_options(kw, f"{source}: ")
    seed = _need(d, "seed", int, "an integer")
    if not 0 <= seed < 2**64:
        raise ReplayError(f"{source}: seed {seed} is outside 0..2**64-1")
    actors = _need(d, "actors", list, "a list")
    actions = _need(d, "actions", list, "a list")
    if len(actors) != len(actions):
        raise ReplayError(f"{source}: {len(actors)} actors for {len(actions)} actions")
    if len(actions) > MAX_DECISIONS:
        raise ReplayError(f"{source}: {len(actions)} decisions (at most {MAX_DECISIONS})")
    for name, xs in (("actors", actors), ("actions", actions)):
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in xs):
            raise ReplayError(f"{source}: {name} must be integers")
    seats = d["seats"]
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise ReplayError(f"{source}: seats must be a list of labels")
    result = _need(d, "result", dict, "an object")
    digest = _need(d, "digest", str, "a string")
    if not _HEX64.fullmatch(digest):
        raise ReplayError(f"{source}: digest must be 64 hexadecimal digits (a SHA-256)")
    return Replay(
        env_id=env_id,
        game=game,
        spec_version=spec_version,
        layout_version=layout,
        core_kwargs=dict(kw),
        seed=seed,
        actors=list(actors),
        actions=list(actions),
        seats=list(seats),
        finished=_need(d, "finished", bool, "true or false"),
        result=dict(result),
        digest=digest,
    )


def _no_repeats(pairs):
    """``json`` object hook: a key given twice is refused (another reader
    could keep the other copy than the one checked)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise ReplayError(f"field {k[:40]!r} is given twice")
        out[k] = v
    return out


def load_replay(path, *, check: bool = True) -> Replay:
    """Read a replay file, check every field and (``check``) re-simulate it;
    raises :class:`ReplayError` saying what is wrong."""
    src = os.fspath(path)
    try:
        size = os.path.getsize(src)
    except OSError as e:
        raise ReplayError(f"{src}: cannot read the replay ({e.strerror or e})") from e
    if size > MAX_BYTES:
        raise ReplayError(f"{src}: {size:,} bytes, more than a replay may hold ({MAX_BYTES:,})")
    try:
        with open(src, encoding="utf-8") as f:
            d = json.load(f, object_pairs_hook=_no_repeats)
    except ReplayError as e:
        raise ReplayError(f"{src}: {e}") from e
    except UnicodeDecodeError as e:
        raise ReplayError(f"{src}: not a dungeonrl replay (not UTF-8 text)") from e
    except json.JSONDecodeError as e:
        raise ReplayError(
            f"{src}: not a dungeonrl replay, or a truncated one (invalid JSON at line "
            f"{e.lineno} column {e.colno})"
        ) from e
    rep = replay_from_json(d, source=src)
    if check:
        try:
            rep.simulate(check=True)
        except ReplayError as e:
            raise ReplayError(f"{src}: {e}") from e
    return rep


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.agents.replay",
        description="check a replay file: re-simulate it and compare every recorded field "
        "(exit 0: it matches; 2: the error names the field that does not)",
    )
    p.add_argument("cmd", choices=["check"])
    p.add_argument("file")
    a = p.parse_args(argv)
    try:
        rep = load_replay(a.file)
    except ReplayError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    end = f"over: {rep.result}" if rep.finished else "cut short"
    print(
        f"{a.file}: {rep.env_id}, seed {rep.seed}, {len(rep.actions)} decisions, "
        f"seats {rep.seats}, {end}; re-simulated exactly: the decisions, end, result and "
        "final state match (the seats' agent labels are not checked)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
