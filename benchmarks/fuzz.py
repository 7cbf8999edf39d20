"""Fuzzing of everything that comes in from outside the step loop, for every
registered game: snapshots, content files, constructor arguments and seeds.

The tests (``tests/fuzz/test_*.py``) drive these functions with Hypothesis;
this module is also a command for longer runs that prints what it did::

    python -m dungeonrl.benchmarks.fuzz --cases 5000            # every game
    python -m dungeonrl.benchmarks.fuzz --cases 2000 --game unbroken --kind snapshot
    NUMBA_BOUNDSCHECK=1 python -m dungeonrl.benchmarks.fuzz --cases 500 --kind snapshot

Numba's on-disk cache does not key on ``NUMBA_BOUNDSCHECK``: a run with bounds
checks would silently load the unchecked kernels. With ``NUMBA_BOUNDSCHECK=1``
and no ``NUMBA_CACHE_DIR`` the command therefore restarts itself with a cache
of its own (:data:`BOUNDSCHECK_CACHE`; the first run compiles every kernel,
minutes) and prints whether bounds checks are really on.

What one case checks:

* ``snapshot``: a record reached by random play is mutated (random bytes,
  or one field element set to an edge value) and loaded with ``set_state``.
  It must either be refused (``CorruptStateError`` / ``SnapshotError``,
  the env left exactly as it was) or be a record on which ``step``,
  observation and ``render`` work for a few random legal moves, the
  observation stays in its space and every record reached still passes the
  game's ``check_state``. A malformed snapshot *header* (JSON values of the
  wrong type, junk bytes) must be a ``SnapshotError`` with the env unchanged.
* ``content``: one value of a shipped content file is replaced (a wrong
  type, an out-of-range number, a deleted, misspelled or added key, a duplicated
  entry) and the folder loaded: a ``ContentError`` naming the file, or a
  content on which a few random games play with valid records.
* ``args``: random constructor arguments and seeds: accepted values work,
  everything else is a ``TypeError`` / ``ValueError`` naming the argument.

Games join through :data:`HOOKS`, built from each game of
:mod:`dungeonrl.envs.catalog` (``FUZZ_CONFIGS`` in its ``validate.py``, its
content folder, each with a default when the game has no such module).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover
    import tomli as _toml

from ..envs.core.errors import ContentError, CorruptStateError, SnapshotError
from ..envs.core.snapshot import Snapshot

if TYPE_CHECKING:
    from ..envs.core.adapters.aec import DungeonAECEnv
    from ..envs.core.adapters.gym_env import DungeonEnv

REFUSED = (CorruptStateError, SnapshotError)
#: numba cache of bounds-checked kernels (kept apart from the normal cache)
BOUNDSCHECK_CACHE = os.path.join(tempfile.gettempdir(), "dungeonrl-numba-boundscheck")


def boundscheck_env() -> dict:
    """``os.environ`` plus what a bounds-checked run needs."""
    return dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=BOUNDSCHECK_CACHE)


def bounds_checks_active() -> bool:
    """Whether kernels compiled now check their indices (an uncached probe)."""
    from numba import njit

    @njit(cache=False)
    def probe(a, i):
        return a[i]

    try:
        probe(np.zeros(1), 3)
    except IndexError:
        return True
    return False


@dataclass
class FuzzHooks:
    """What the fuzzers need to know about one game."""

    configs: list  # core kwargs whose records are fuzzed
    data_dir: str | None  # the shipped content folder (None: no content)
    content_files: tuple  # its files (without .toml)
    play_steps: int = 20  # random decisions after a successful restore
    extra_args: dict = field(default_factory=dict)  # kwargs every env of the game needs


def _submodule(pkg: str, name: str):
    """``pkg.name`` if the game has that module, else ``None``."""
    import importlib

    try:
        return importlib.import_module(f"{pkg}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{pkg}.{name}":
            raise
        return None


def game_hooks(name: str) -> FuzzHooks:
    """A game's fuzz hooks, from its package (:mod:`dungeonrl.envs.catalog`):
    ``validate.FUZZ_CONFIGS`` and ``content.DATA_DIR`` / ``FILES``; a
    multi-seat game's constructors get its smallest player count. A game
    without a ``validate`` module is fuzzed in its default configuration, one
    without a ``content`` module has no content files to fuzz; a ``validate``
    module without ``FUZZ_CONFIGS`` is an error naming the file."""
    from ..envs import catalog
    from ..registry import get_spec

    pkg = catalog.package(name)
    content = _submodule(pkg, "content")
    validate = _submodule(pkg, "validate")
    configs = [{}] if validate is None else getattr(validate, "FUZZ_CONFIGS", None)
    if not configs:
        raise LookupError(f"game {name!r} has no FUZZ_CONFIGS in envs/{name}/validate.py")
    spec = get_spec(name)
    extra = {"num_players": spec.min_players} if spec.min_players > 1 else {}
    return FuzzHooks(
        configs=[dict(c) for c in configs],
        data_dir=None if content is None else content.DATA_DIR,
        content_files=() if content is None else tuple(content.FILES),
        extra_args=extra,
    )


def _hooks() -> dict:
    import dungeonrl  # noqa: F401  (registers the games)

    from ..envs import catalog

    return {name: game_hooks(name) for name in catalog.GAMES}


HOOKS = _hooks()


def hooks_for(name: str) -> FuzzHooks:
    if name not in HOOKS:
        raise KeyError(
            f"game {name!r} has no fuzz hooks: it is not in dungeonrl.envs.catalog "
            "(or has no FUZZ_CONFIGS in envs/<game>/validate.py)"
        )
    return HOOKS[name]


def games() -> list:
    """The suite's registered games (``registry.GAMES``; test fixtures that
    other test modules register are not games of the suite)."""
    from .. import registry

    registry.register_all()
    return [g for g in registry.list_games() if registry.game_module(g) in registry.GAMES]


# --- environments -----------------------------------------------------------------------
class GameEnv:
    """One env of a game through its public adapter (Gymnasium for 1-player
    games, PettingZoo AEC otherwise), with the few verbs the fuzzers need."""

    def __init__(self, name: str, config: dict):
        from ..registry import get_spec

        self.spec = spec = get_spec(name)
        self.name = name
        mode = "ansi" if "ansi" in spec.render_modes else None
        seats = config.get("num_players", 1)
        self.env: DungeonAECEnv | DungeonEnv
        if spec.multi_agent or (isinstance(seats, int) and seats > 1):  # Carl's co-op: AEC
            from ..envs.core.adapters.aec import DungeonAECEnv

            self.env = DungeonAECEnv(spec, render_mode=mode, **config)
        else:
            from ..envs.core.adapters.gym_env import DungeonEnv

            self.env = DungeonEnv(spec, render_mode=mode, **config)
        self.core = self.env.core
        self.multi = spec.multi_agent or (isinstance(seats, int) and seats > 1)

    def reset(self, seed):
        self.env.reset(seed=seed)

    def snapshot(self) -> Snapshot:
        return self.env.get_state()

    def restore(self, snap):
        self.env.set_state(snap)

    def record(self):
        return np.frombuffer(self.env.get_state().state, dtype=self.core.state_dtype)[0]

    def play(self, rng, steps: int, check: bool = True) -> int:
        """Up to ``steps`` random legal decisions; with ``check``, checks every
        record, observation and render on the way. Returns the decisions taken."""
        from ..envs.core.adapters.aec import DungeonAECEnv

        env = self.env
        taken = 0
        for _ in range(steps):
            if isinstance(env, DungeonAECEnv):  # a multi-seat game (self.multi)
                if not env.agents:
                    break
                agent = env.agent_selection
                assert agent is not None  # a seat is selected while seats remain
                if env.terminations[agent] or env.truncations[agent]:
                    env.step(None)
                    continue
                obs = env.observe(agent)
                assert not check or env.observation_space(agent).contains(obs), (
                    "observation outside its space"
                )
                legal = np.flatnonzero(obs["action_mask"])
                assert len(legal), "a running game with no legal action"
                env.step(int(rng.choice(legal)))
            else:
                # the Gymnasium env; mypy cannot rule out the AEC class (untyped PettingZoo base)
                genv = cast("DungeonEnv", env)
                if genv._needs_reset:
                    break
                legal = np.flatnonzero(genv.action_masks())
                assert len(legal), "a running game with no legal action"
                obs, *_ = genv.step(int(rng.choice(legal)))
                assert not check or genv.observation_space.contains(obs), (
                    "observation outside its space"
                )
            taken += 1
            if check:
                self.core.check_state(self.record())  # every reached record stays valid
                if env.render_mode is not None:
                    assert isinstance(env.render(), str)
        return taken


def reached_snapshots(name: str, config: dict, n: int, seed: int) -> list:
    """``n`` snapshots of records reached by random play (spread over a few
    games and over each game's course)."""
    env = GameEnv(name, config)
    rng = np.random.default_rng(seed)
    out: list[Snapshot] = []
    game_seed = seed
    while len(out) < n:
        env.reset(game_seed)
        game_seed += 1
        env.play(rng, int(rng.integers(0, 120)), check=False)
        out.append(env.snapshot())
    return out


# --- snapshot mutations ------------------------------------------------------------------
def _edge_values(dtype) -> list:
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    vals = [-1, 0, 1, 2, 3, 7, 16, 17, 40, 100, 127]
    if info is not None:
        vals += [int(info.min), int(info.max), int(info.min) + 1, int(info.max) - 1]
    return vals


def mutate_record(record_bytes: bytes, dtype, choice) -> tuple:
    """One mutation of a record, driven by ``choice`` (a callable
    ``choice(kind, options)`` returning one option: Hypothesis' ``draw`` or a
    numpy generator). Returns ``(description, new bytes)``."""
    rec = np.frombuffer(record_bytes, dtype=dtype).copy()
    how = choice("how", ("field", "field", "field", "bytes"))
    if how == "bytes":
        raw = bytearray(rec.tobytes())
        k = choice("nbytes", (1, 1, 2, 4))
        desc = []
        for _ in range(k):
            i = choice("offset", range(len(raw)))
            v = choice("byte", range(256))
            raw[i] = v
            desc.append(f"byte {i}={v}")
        return "; ".join(desc), bytes(raw)
    name = choice("field", dtype.names)
    fdt, shape = dtype.fields[name][0].base, dtype.fields[name][0].shape
    if shape:
        flat = rec[0][name].reshape(-1)
        idx = choice("element", range(flat.size))
        old = int(flat[idx])
    else:
        idx = None
        old = int(rec[0][name])
    mode = choice("mode", ("edge", "step"))
    if mode == "step":
        new = old + choice("delta", (-2, -1, 1, 2))
    else:
        new = choice("value", _edge_values(fdt))
    info = np.iinfo(fdt)
    new = int(np.clip(new, info.min, info.max))
    if shape:
        arr = rec[0][name].copy()
        arr.reshape(-1)[idx] = new
        rec[0][name] = arr
    else:
        rec[0][name] = new
    where = f"{name}[{np.unravel_index(idx, shape)}]" if shape else name
    return f"{where}: {old} -> {new}", rec.tobytes()


def snapshot_case(env: GameEnv, base: Snapshot, choice, rng) -> str:
    """Load a mutated ``base`` into ``env``; returns ``"refused"`` or
    ``"played"``; raises AssertionError (or anything unexpected) on a
    failure."""
    desc, data = mutate_record(base.state, env.core.state_dtype, choice)
    before = env.snapshot()
    snap = Snapshot(
        game=base.game,
        layout_version=base.layout_version,
        state=data,
        step_count=base.step_count,
        episode_return=base.episode_return,
        done=base.done,
    )
    try:
        env.restore(snap)
    except REFUSED as e:
        after = env.snapshot()
        assert after == before, f"refused snapshot changed the env ({desc}): {e}"
        return "refused"
    try:
        env.core.check_state(env.record())
        if env.env.render_mode is not None:
            assert isinstance(env.env.render(), str)
        env.play(rng, hooks_for(env.name).play_steps)
    except Exception as e:
        raise AssertionError(
            f"{env.name}: accepted record ({desc}) broke: {type(e).__name__}: {e}"
        ) from e
    return "played"


_JUNK = [
    None,
    True,
    False,
    "abc",
    "false",
    "",
    -1,
    2**70,
    1.5,
    float("nan"),
    [],
    {},
    [1],
    {"a": 1},
    "1e309",
]


def header_case(env: GameEnv, base: Snapshot, choice) -> str:
    """A snapshot whose JSON header has one value replaced (or is not an
    object, or carries junk): ``SnapshotError`` and the env unchanged, or a
    snapshot equal to a valid one."""
    raw = base.to_bytes()
    n = int.from_bytes(raw[8:12], "little")
    header = json.loads(raw[12 : 12 + n])
    how = choice("header", ("value", "value", "drop", "extra", "not_object", "cut"))
    if how == "value":
        k = choice("key", sorted(header))
        header[k] = choice("junk", _JUNK)
    elif how == "drop":
        header.pop(choice("key", sorted(header)))
    elif how == "extra":
        header["bogus"] = 1
    elif how == "not_object":
        header = choice("junk", _JUNK)
    if how == "cut":
        data = raw[: choice("cut_at", range(len(raw)))]
    else:
        body = json.dumps(header).encode()
        data = raw[:8] + len(body).to_bytes(4, "little") + body + raw[12 + n :]
    before = env.snapshot()
    try:
        env.restore(data)
    except SnapshotError:
        assert env.snapshot() == before, "a refused header changed the env"
        return "refused"
    except CorruptStateError:
        assert env.snapshot() == before, "a refused record changed the env"
        return "refused"
    return "played"


# --- content mutations --------------------------------------------------------------------
def _toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def to_toml(d: dict) -> str:
    """A minimal TOML writer (top-level keys with inline values), enough to
    write back a parsed content file after a mutation."""

    def val(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return (
                repr(v)
                if not (isinstance(v, float) and not np.isfinite(v))
                else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
            )
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{_toml_key(k)} = {val(x)}" for k, x in v.items()) + " }"
        raise TypeError(type(v))

    return "".join(f"{_toml_key(k)} = {val(v)}\n" for k, v in d.items())


def _paths(node, prefix=()):
    """Every (path, value) in a parsed TOML tree."""
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


_CONTENT_JUNK = [
    -1,
    0,
    1,
    -1000,
    1000,
    2**40,
    -(2**40),
    1.5,
    True,
    "x",
    "",
    [],
    {},
    [1, 2],
    {"bogus": 1},
]


def mutate_content(doc: dict, choice) -> str:
    """Mutate one parsed content file in place; returns a description."""
    paths = [p for p, _ in _paths(doc) if p]
    path = choice("path", paths)
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    how = choice("content_how", ("value", "value", "value", "drop", "misspell", "duplicate", "add"))
    if how == "drop":
        parent.pop(key) if isinstance(parent, dict) else parent.pop(key)
        return f"{path}: removed"
    if how == "add":  # an unknown key next to the value, or at the top
        target = parent if isinstance(parent, dict) else doc
        target["bogus_key"] = 1
        return f"{path}: unknown key added"
    if how == "misspell" and isinstance(parent, dict):
        parent[str(key) + "x"] = parent.pop(key)
        return f"{path}: key misspelled"
    if how == "duplicate" and isinstance(parent, list):
        parent.append(parent[key])
        return f"{path}: entry duplicated"
    old = parent[key]
    new = choice(
        "content_value",
        _CONTENT_JUNK
        + ([old + 1, old - 1, -old] if isinstance(old, int) and not isinstance(old, bool) else []),
    )
    parent[key] = new
    return f"{path}: {old!r} -> {new!r}"[:200]


def content_case(name: str, choice, rng, workdir: str) -> str:
    """Copy the game's content folder, mutate one file, build a core on it:
    ``ContentError`` naming the file, or a content that plays ("no content"
    for a game without content files)."""
    from ..registry import get_spec

    h = hooks_for(name)
    if h.data_dir is None or not h.content_files:
        return "no content"
    folder = os.path.join(workdir, "content")
    if os.path.exists(folder):
        shutil.rmtree(folder)
    shutil.copytree(h.data_dir, folder)
    fname = choice("file", h.content_files)
    path = os.path.join(folder, fname + ".toml")
    with open(path, "rb") as f:
        doc = _toml.load(f)
    desc = mutate_content(doc, choice)
    with open(path, "w") as f:
        f.write(to_toml(doc))
    spec = get_spec(name)
    if spec.make_core is None:
        raise TypeError(f"GameSpec {spec.name!r} has no make_core factory")
    try:
        core = spec.make_core(content=folder, **h.extra_args)
    except ContentError as e:
        assert f"{fname}.toml" in str(e), f"ContentError does not name {fname}.toml: {e}"
        return "refused"
    except Exception as e:
        raise AssertionError(
            f"{name}: content mutation {fname}.toml {desc} raised {type(e).__name__}: {e}"
        ) from e
    # accepted: a few random games must play with valid records
    try:
        n = 4
        st = core.alloc(n)
        core.reset(st, np.arange(n, dtype=np.uint64) + int(rng.integers(1 << 30)))
        masks = np.zeros((n, spec.num_actions), np.int8)
        rew = np.zeros((n, core.num_players), np.float32)
        te, tr, il = (np.zeros(n, bool) for _ in range(3))
        for _ in range(60):
            core.legal_mask(st, masks)
            live = masks.any(axis=1)
            if not live.any():
                break
            acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            sub = st[live]
            k = int(live.sum())
            core.step(sub, acts[live], rew[:k], te[:k], tr[:k], il[:k])
            st[live] = sub
            for r in st:
                core.check_state(r)
    except Exception as e:
        raise AssertionError(
            f"{name}: accepted content ({fname}.toml {desc}) broke: {type(e).__name__}: {e}"
        ) from e
    return "played"


# --- arguments and seeds -------------------------------------------------------------------
def _np_gen():
    return np.random.default_rng(0)


SEED_VALUES = [
    None,
    0,
    1,
    2**63,
    2**64 - 1,
    np.uint64(2**64 - 1),
    np.int64(5),
    np.uint32(7),
    -1,
    2**64,
    2**80,
    True,
    False,
    np.bool_(True),
    1.5,
    2.0,
    float("nan"),
    "3",
    b"3",
    [1],
    _np_gen,
    object(),
]


def seed_ok(v) -> bool:
    """Whether ``v`` is a seed every adapter must accept."""
    if v is None:
        return True
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        return False
    return 0 <= int(v) < 2**64


def seed_case(env: GameEnv, v) -> str:
    v = v() if callable(v) else v
    try:
        env.reset(v)
    except (TypeError, ValueError) as e:
        assert not seed_ok(v), f"valid seed {v!r} refused: {e}"
        assert "seed" in str(e), f"seed error does not name the argument: {e}"
        return "refused"
    assert seed_ok(v), f"invalid seed {v!r} ({type(v).__name__}) accepted"
    return "played"


# --- the command ----------------------------------------------------------------------------
class _RngChoice:
    def __init__(self, rng):
        self.rng = rng

    def __call__(self, kind, options):
        options = list(options)
        return options[int(self.rng.integers(len(options)))]


def run(game: str, kind: str, cases: int, seed: int, workdir: str) -> dict:
    rng = np.random.default_rng(seed)
    choice = _RngChoice(rng)
    h = hooks_for(game)
    res: dict[str, Any] = {"cases": 0, "refused": 0, "played": 0, "failures": []}

    def tally(outcome):
        res["cases"] += 1
        res[outcome] += 1

    if kind in ("snapshot", "header"):
        per = max(1, cases // len(h.configs))
        for ci, cfg in enumerate(h.configs):
            env = GameEnv(game, cfg)
            bases = reached_snapshots(game, cfg, min(per, 40), seed + 1000 * ci)
            env.reset(seed)
            for i in range(per):
                base = bases[i % len(bases)]
                env.restore(base)
                try:
                    tally(
                        snapshot_case(env, base, choice, rng)
                        if kind == "snapshot"
                        else header_case(env, base, choice)
                    )
                except AssertionError as e:
                    res["cases"] += 1
                    res["failures"].append(str(e))
    elif kind == "content":
        for _ in range(cases):
            try:
                tally(content_case(game, choice, rng, workdir))
            except AssertionError as e:
                res["cases"] += 1
                res["failures"].append(str(e))
    elif kind == "args":
        env = GameEnv(game, h.configs[0])
        for i in range(cases):
            try:
                tally(seed_case(env, SEED_VALUES[i % len(SEED_VALUES)]))
            except AssertionError as e:
                res["cases"] += 1
                res["failures"].append(str(e))
    else:
        raise ValueError(f"unknown fuzz kind {kind!r}")
    return res


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.benchmarks.fuzz", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--cases", type=int, default=1000, help="cases per game and kind")
    p.add_argument("--game", action="append", help="game name (default: every registered)")
    p.add_argument(
        "--kind",
        action="append",
        choices=("snapshot", "header", "content", "args"),
        help="what to fuzz (default: all)",
    )
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    if os.environ.get("NUMBA_BOUNDSCHECK") == "1" and "NUMBA_CACHE_DIR" not in os.environ:
        args = list(sys.argv[1:] if argv is None else argv)
        os.execve(
            sys.executable,
            [sys.executable, "-m", "dungeonrl.benchmarks.fuzz", *args],
            boundscheck_env(),
        )
    names = a.game or games()
    kinds = a.kind or ["snapshot", "header", "content", "args"]
    for g in names:
        hooks_for(g)
    bc = "on" if bounds_checks_active() else "off"
    print(
        f"fuzz: games {names}, kinds {kinds}, {a.cases} cases each, seed {a.seed}, "
        f"numba bounds checks {bc}",
        flush=True,
    )
    bad = 0
    with tempfile.TemporaryDirectory() as wd:
        for g in names:
            for k in kinds:
                t0 = time.time()
                r = run(g, k, a.cases, a.seed, wd)
                bad += len(r["failures"])
                print(
                    f"{g:16s} {k:9s} cases {r['cases']:6d}  refused {r['refused']:6d}  "
                    f"accepted+played {r['played']:6d}  failures {len(r['failures'])}  "
                    f"({time.time() - t0:.0f} s)",
                    flush=True,
                )
                for f in r["failures"][:5]:
                    print("   FAIL:", f)
    print("result:", "0 failures" if not bad else f"{bad} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
