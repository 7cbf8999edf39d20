"""Shared set-up of the conformance suite: what every game of dungeonrl must
pass (``/work/shared/TESTING.md``, "Must have"), run on every game of
``dungeonrl.registry.GAMES``.

Generic code lives in the suite; what only a game knows (its configurations,
an invariant checker written from its rules, what its player cannot see...)
comes from ``tests/helpers/game_hooks.py``. A game joins by registering itself and
adding its hooks there.

The suite, one file per concern (numbers as in TESTING.md):

* ``conformance/test_soak.py``: 1. random-play soak with the independent
  invariant checker (and the checker's teeth, the regressions it found);
* ``conformance/test_masks.py``: 2. mask soundness (legal actions accepted,
  illegal ones handled by policy);
* ``conformance/test_determinism.py``: 3. determinism (processes, batch
  sizes and order, numba threads, seeds); 5. no hidden global state (numba's
  and numpy's global RNGs disturbed); 12. JIT vs interpreter
  (``NUMBA_DISABLE_JIT=1``);
* ``conformance/test_snapshots.py``: 4. snapshot / restore through
  ``get_state`` / ``set_state``;
* ``conformance/test_hidden.py``: 6. hidden information (resampling what the
  player cannot see);
* ``conformance/test_batch.py``: 7. observation aliasing; 8. batched ==
  sequential;
* ``conformance/test_bad_input.py``: 9. bad input and compile-once; 10.
  terminated vs truncated;
* ``conformance/test_ecosystem.py``: Gymnasium's and SB3's env checkers and
  ``gymnasium.make_vec``.

This module holds what they share: the games and their cores, the batch
driver, random and seeded play, the invariant-checked random games, the
trajectory hashes and the subprocess entry point, the line coverage of the
interpreter run.

Multi-agent games run the core-level checks as they are and the env-level
ones (mask soundness, snapshots, bad input, compile-once, terminated vs
truncated, aliasing) through their PettingZoo AEC env (``make_env``); the
single-agent adapters' checks (vector env, Gymnasium/SB3 checkers,
``make_vec``) skip them.

Each test prints one line of figures (``pytest -s`` or ``-rP`` shows them).
Helpers below are also run in subprocesses (``python -c "from helpers
import conformance_common ..."``), so this module must import without pytest
collecting it (its name does not start with ``test_``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from helpers import game_hooks

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl import registry
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TESTS_DIR)
MASK_DTYPE = np.int8


# =====================================================================================
# games and cores
# =====================================================================================
#: test fixtures that must pass the whole suite too (modules under tests/,
#: registered here, never by ``registry.GAMES``): the team fixture covers
#: teams, ties and a turn order decided by the state
FIXTURE_GAMES = ["helpers.fixture_team"]


def suite_games() -> list[str]:
    """Registered games that belong to the suite (``registry.GAMES`` and
    :data:`FIXTURE_GAMES`); other test fixtures registered by other test
    modules are left out."""
    registry.register_all()
    for module in FIXTURE_GAMES:
        registry.register_module(module)
    members = set(registry.GAMES) | set(FIXTURE_GAMES)
    return [g for g in registry.list_games() if registry.game_module(g) in members]


GAMES = suite_games()


def _single_agent(name):
    if registry.get_spec(name).multi_agent:
        pytest.skip(
            f"{name} is multi-agent: the single-agent adapters (DungeonEnv, "
            "vector envs, SB3) do not apply; the PettingZoo suite covers it"
        )


def _multi_agent(name) -> bool:
    return bool(registry.get_spec(name).multi_agent)


def _aec_config(name, cfg) -> bool:
    """Whether configuration ``cfg`` of ``name`` is played through the AEC
    env: every configuration of a multi-agent game, and the configurations
    with more than one seat of a game whose spec is single-agent but also
    seats more (``spec.api_for``: Gymnasium for one seat, PettingZoo for
    more; e.g. a solo game with a co-op variant)."""
    return _multi_agent(name) or get_core(name, cfg).num_players > 1


def make_env(name, **kw):
    """The game's single-game env: ``DungeonEnv``, or for a multi-agent game
    (or a configuration with more seats) the PettingZoo AEC env (both have
    ``get_state`` / ``set_state``)."""
    if _multi_agent(name) or int(kw.get("num_players", 1)) > 1:
        from dungeonrl.envs.core.adapters.aec import DungeonAECEnv

        return DungeonAECEnv(name, **kw)
    return DungeonEnv(name, **kw)


def aec_action(env, rng) -> int:
    """A random legal action of the AEC env's selected agent."""
    return int(random_legal(rng, env.observe(env.agent_selection)["action_mask"][None])[0])


def aec_done(env) -> bool:
    a = env.agent_selection
    return bool(env.terminations[a] or env.truncations[a])


def aec_view(env):
    """Everything the AEC env shows after a step: the selected agent, each
    agent's observation and mask, rewards, flags and infos, and the record."""
    obs = tuple(
        (o["observation"].tobytes(), o["action_mask"].tobytes())
        for o in (env.observe(a) for a in env.possible_agents)
    )
    return (
        env.agent_selection,
        obs,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        {a: i.get("illegal_action") for a, i in env.infos.items()},
        rbytes(env._states),
    )


def aec_finish(env):
    """Dead-step every finished agent (PettingZoo's protocol) until none is left."""
    for _ in range(len(env.possible_agents)):
        if not env.agents:
            break
        env.step(None)
    assert not env.agents


def _config_id(cfg: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(cfg.items())) or "default"


def hooks(name) -> game_hooks.GameHooks:
    """The game's conformance hooks; a game without hooks is skipped here
    (``test_every_suite_game_has_hooks`` fails for it instead)."""
    if name not in game_hooks.HOOKS:
        pytest.skip(f"{name} has no conformance hooks yet (see test_every_suite_game_has_hooks)")
    return game_hooks.HOOKS[name]


def spec_of(name):
    return registry.get_spec(name)


@functools.cache
def _core_cached(name, key):
    return spec_of(name).make_core(**dict(key))


def get_core(name, cfg=None):
    """A core of ``name`` built with ``cfg`` (cached: cores are stateless)."""
    return _core_cached(name, tuple(sorted((cfg or {}).items())))


class Batch:
    """A batch of ``n`` games of one core with every buffer the kernels
    take (the same dtypes as the adapters' ``Batch``)."""

    def __init__(self, core, n, wrap=None):
        spec = core.spec
        self.core, self.n = core, n
        self.states = core.alloc(n)
        self.final_states = core.alloc(n)
        if wrap is not None:  # interpreter harness (NUMBA_DISABLE_JIT=1)
            self.states, self.final_states = wrap(self.states), wrap(self.final_states)
        self.obs = np.zeros((n, spec.obs_size), np.float32)
        self.final_obs = np.zeros((n, spec.obs_size), np.float32)
        self.masks = np.zeros((n, spec.num_actions), MASK_DTYPE)
        self.rewards = np.zeros((n, core.num_players), np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.illegal = np.zeros(n, np.bool_)
        self.actions = np.zeros(n, np.int64)

    def reset(self, seeds):
        self.core.reset(self.states, np.asarray(seeds, np.uint64))
        self.refresh()

    def players(self):
        return np.maximum(self.core.to_play(self.states), 0).astype(np.int64)

    def refresh(self):
        self.core.legal_mask(self.states, self.masks)
        self.core.observe(self.states, self.players(), self.obs)

    def step(self, actions):
        self.actions[:] = actions
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self.illegal[:] = False
        self.core.step(
            self.states, self.actions, self.rewards, self.terminated, self.truncated, self.illegal
        )

    def step_autoreset(self, actions):
        self.actions[:] = actions
        self.core.step_autoreset(
            self.states,
            self.actions,
            self.obs,
            self.masks,
            self.rewards,
            self.terminated,
            self.truncated,
            self.illegal,
            self.final_obs,
            self.final_states,
        )


@functools.cache
def _covered(dtype) -> np.ndarray:
    """Byte offsets of ``dtype`` that hold fields (not alignment padding)."""
    cov = np.zeros(dtype.itemsize, bool)

    def mark(dt, base):
        if dt.names is None:
            cov[base : base + dt.itemsize] = True
            return
        for name in dt.names:
            sub, off = dt.fields[name][:2]
            if sub.subdtype is not None and sub.subdtype[0].names is not None:
                item, shape = sub.subdtype
                for k in range(int(np.prod(shape))):
                    mark(item, base + off + k * item.itemsize)
            else:
                mark(sub, base + off)

    mark(dtype, 0)
    return np.flatnonzero(cov)


def record_rows(states) -> np.ndarray:
    """``(n, k)`` uint8: the field bytes of each record, padding left out.
    (NumPy does not copy padding bytes on fancy indexing, so raw
    ``tobytes()`` of records is not comparable.)"""
    states = np.ascontiguousarray(np.asarray(states).reshape(-1))
    raw = states.view(np.uint8).reshape(len(states), states.dtype.itemsize)
    return raw[:, _covered(states.dtype)]


def rbytes(states) -> bytes:
    """Field bytes of all records (for equality checks and hashes)."""
    return record_rows(states).tobytes()


def random_legal(rng, masks) -> np.ndarray:
    """A uniformly random legal action per row (0 for rows with none)."""
    u = rng.random(masks.shape)
    u[np.asarray(masks) == 0] = -1.0
    return u.argmax(axis=1).astype(np.int64)


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser over a uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def seeded_actions(seeds, t, masks) -> np.ndarray:
    """Legal actions that depend only on (row seed, step, row mask): the same
    actions whatever the batch size, order, process or interpreter."""
    masks = np.asarray(masks) != 0
    with np.errstate(over="ignore"):
        h = _mix(np.asarray(seeds, np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(t + 1))
    n = masks.sum(axis=1)
    k = (h % np.maximum(n, 1).astype(np.uint64)).astype(np.int64)
    pick = masks & (np.cumsum(masks, axis=1) == (k + 1)[:, None])
    return np.where(n > 0, pick.argmax(axis=1), 0).astype(np.int64)


def known_bug_rows(h, exc) -> tuple[np.ndarray, list]:
    """Split an InvariantError into rows breaking only known bugs (returned)
    and unknown violations (re-raised)."""
    violations = getattr(exc, "violations", None)
    if violations is None:
        raise exc
    unknown = [m for m, _ in violations if not any(k in m for k in h.known_bugs)]
    if unknown:
        raise exc
    rows = np.unique(np.concatenate([r for _, r in violations]))
    return rows, [m for m, _ in violations]


def checked(h, core, states, live, tainted, known_hits, before=None):
    """Check invariants (and transitions from ``before``) on the rows of
    ``live`` not yet tainted by a known bug; new known-bug rows join
    ``tainted``."""
    rows = np.flatnonzero(live & ~tainted)
    if not len(rows):
        return
    for fn, args in (
        (h.check_invariants, (states[rows],)),
        (h.check_transition, (before[rows], states[rows]) if before is not None else None),
    ):
        if args is None:
            continue
        try:
            fn(core, *args)
        except AssertionError as e:
            bad, msgs = known_bug_rows(h, e)
            tainted[rows[bad]] = True
            known_hits.extend(msgs)


def play_random(name, cfg, n, seed, jump=False, sample_every=0, max_samples=0, until_sampled=False):
    """Random legal play of ``n`` games to the end, checking invariants every
    step. Returns (batch, stats, samples) where samples are 1-row copies of
    two random live states every ``sample_every`` steps (at most
    ``max_samples``), none from rows tainted by a known bug.
    ``until_sampled``: stop once ``max_samples`` are taken (stats is None)."""
    h = hooks(name)
    core = get_core(name, cfg)
    spec = core.spec
    rng = np.random.default_rng(seed)
    b = Batch(core, n)
    b.reset(np.arange(n, dtype=np.uint64) + np.uint64(seed * 100_003))
    if jump:
        h.jump_start(core, b.states, rng)
        b.refresh()
    done = np.zeros(n, bool)
    tainted = np.zeros(n, bool)
    known = []
    decisions = np.zeros(n, np.int64)
    samples = []
    checked(h, core, b.states, ~done, tainted, known)
    lo, hi = spec.reward_range
    for t in range(spec.max_episode_steps + 1):
        if done.all():
            break
        b.refresh()
        assert np.array_equal(b.masks.any(axis=1), ~done), (
            "legal mask all-zero iff game over broken (adapter view)"
        )
        assert np.isfinite(b.obs).all(), "non-finite observation"
        if sample_every and t % sample_every == 0 and len(samples) < max_samples:
            pool = np.flatnonzero(~done & ~tainted)  # two live games at random
            for i in rng.choice(
                pool, size=min(2, len(pool), max_samples - len(samples)), replace=False
            ):
                samples.append(b.states[i : i + 1].copy())
            if until_sampled and len(samples) >= max_samples:
                return b, None, samples
        actions = random_legal(rng, b.masks)
        before = b.states.copy()
        b.step(actions)
        assert not b.illegal.any(), "a legal action was flagged illegal"
        ended = b.terminated | b.truncated
        assert not (b.terminated & b.truncated).any(), "terminated and truncated together"
        assert not ended[done].any() and not b.rewards[done].any(), (
            "a finished game was stepped (flags or reward set)"
        )
        assert rbytes(before[done]) == rbytes(b.states[done]), "a finished game changed"
        assert ((b.rewards >= lo) & (b.rewards <= hi)).all(), (
            f"reward outside spec.reward_range {spec.reward_range}"
        )
        decisions[~done] += 1
        checked(h, core, b.states, ~done, tainted, known, before=before)
        done |= ended
    assert done.all(), f"{int((~done).sum())} games still running after max_episode_steps"
    assert (decisions <= spec.max_episode_steps).all()
    assert (core.to_play(b.states) == -1).all(), "to_play of a finished game is not -1"
    stats = {
        "games": n,
        "decisions": int(decisions.sum()),
        "known": known,
        "tainted": int(tainted.sum()),
        "tainted_rows": tainted,
        "max_len": int(decisions.max()),
    }
    return b, stats, samples


@functools.cache
def sampled_states(name, per_config=40):
    """(config index, 1-row state) pairs sampled from random play (normal and,
    when the game has one, jump starts) across every configuration."""
    h = hooks(name)
    out = []
    for ci, cfg in enumerate(h.configs):
        kinds = [False] + ([True] if h.jump_start is not None else [])
        for jump in kinds:
            _, _, samples = play_random(
                name,
                cfg,
                24,
                seed=500 + ci,
                jump=jump,
                sample_every=getattr(h, "sample_every", 2),
                max_samples=per_config // len(kinds),
                until_sampled=True,
            )
            out += [(ci, s) for s in samples]
    return out


def _figures(label, **kw):
    print(f"[conformance] {label}: " + ", ".join(f"{k}={v}" for k, v in kw.items()))


# =====================================================================================
# trajectory hashes and the subprocess entry point (determinism, JIT vs interpreter)
# =====================================================================================
def trajectory_hashes(name, cfg, seeds, steps, batch=None, reverse=False, interp=False):
    """Play ``seeds`` (one game stream each, with autoreset) for ``steps``
    steps with :func:`seeded_actions`; return {seed: sha256 of the row's
    records, observations, masks, rewards, flags and final records}.
    ``batch``: rows per kernel call (default all); ``reverse``: rows in
    reverse order; ``interp``: the ``NUMBA_DISABLE_JIT=1`` harness."""
    core = spec_of(name).make_core(**cfg) if interp else get_core(name, cfg)
    wrap = None
    if interp:
        wrap = field_view
        hooks(name).prepare_interpreted(core, wrap)
    seeds = [int(s) for s in seeds]
    order = seeds[::-1] if reverse else seeds
    size = batch or len(order)
    out = {}
    for k in range(0, len(order), size):
        chunk = order[k : k + size]
        b = Batch(core, len(chunk), wrap=wrap)
        b.reset(chunk)
        hs = [hashlib.sha256() for _ in chunk]
        raw = b.states.view(core.state_dtype)  # plain records, same memory
        raw_final = b.final_states.view(core.state_dtype)
        u8 = lambda a: np.ascontiguousarray(a).view(np.uint8).reshape(len(chunk), -1)  # noqa
        for i, hh in enumerate(hs):
            hh.update(np.concatenate([record_rows(raw), u8(b.obs), u8(b.masks)], axis=1)[i])
        for t in range(steps):
            b.step_autoreset(seeded_actions(chunk, t, b.masks))
            ended = b.terminated | b.truncated
            mat = np.concatenate(
                [
                    record_rows(raw),
                    u8(b.obs),
                    u8(b.masks),
                    u8(b.rewards),
                    u8(np.stack([b.terminated, b.truncated, b.illegal], 1)),
                ],
                axis=1,
            )
            fin = (
                np.concatenate([record_rows(raw_final), u8(b.final_obs)], axis=1)
                if ended.any()
                else None
            )
            for i, hh in enumerate(hs):
                hh.update(mat[i])
                if ended[i]:
                    hh.update(fin[i])
        for s, hh in zip(chunk, hs):
            out[s] = hh.hexdigest()
    return out


def _subprocess(args: dict, env_extra: dict, timeout=300):
    """Start ``python -c`` running :func:`_main` on ``args``; returns the Popen."""
    env = dict(os.environ)
    env.update(env_extra)
    env["PYTHONPATH"] = os.pathsep.join([TESTS_DIR, ROOT, env.get("PYTHONPATH", "")])
    code = (
        f"import sys, json; sys.path.insert(0, {TESTS_DIR!r}); "
        "from helpers import conformance_common as t; t._main(json.loads(sys.argv[1]))"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, json.dumps(args)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _collect(proc, timeout=300):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"subprocess failed ({proc.returncode}):\n{err[-4000:]}"
    return json.loads(out.strip().splitlines()[-1])


def _main(args: dict):
    """Subprocess entry point: ``{"what": "hashes" | "signatures", ...}``;
    prints one JSON line."""
    what = args["what"]
    if what == "hashes":
        interp = os.environ.get("NUMBA_DISABLE_JIT", "0") == "1"
        if interp:  # the generator's uint64 arithmetic wraps on purpose
            warnings.filterwarnings(
                "ignore", message="overflow encountered", category=RuntimeWarning
            )
        res = {}
        cov = None
        for k, job in enumerate(args["jobs"]):
            if k == 0 and interp and args.get("coverage"):  # traced: ~4x slower
                cov = _LineCoverage(args["coverage"])
                cov.start()
            res[job["key"]] = trajectory_hashes(
                args["name"], job["cfg"], job["seeds"], job["steps"], interp=interp
            )
            if cov is not None:
                cov.stop()
        import numba

        print(
            json.dumps(
                {
                    "hashes": res,
                    "threads": numba.config.NUMBA_NUM_THREADS,
                    "jit_disabled": bool(numba.config.DISABLE_JIT),
                    "coverage": cov.report() if cov else None,
                }
            )
        )
    elif what == "signatures" and _multi_agent(args["name"]):
        # the AEC env (both policies, snapshots, dead steps) and the batch
        # buffers' fused autoreset step (self-play's path), two table sizes
        from dungeonrl.envs.core.batch import Batch

        name = args["name"]
        h = hooks(name)
        rng = np.random.default_rng(0)
        for kw, policy in ((h.default_config, "penalize"), (h.truncate_config, "raise")):
            e = make_env(name, illegal_action=policy, **kw)
            e.reset(seed=0)
            for _ in range(12):
                if aec_done(e):
                    e.step(None)
                    break
                e.step(aec_action(e, rng))
            e.set_state(e.get_state())
            e.reset(seed=1)
            e.step(
                int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
                if policy == "penalize"
                else aec_action(e, rng)
            )
            b = Batch(get_core(name, kw), 3)
            b.reset(np.arange(3, dtype=np.uint64))
            for _ in range(8):
                b.actions[:] = random_legal(rng, b.masks)
                b.step_autoreset()
        print(
            json.dumps(
                {
                    getattr(k, "__name__", repr(k)): [str(s) for s in k.signatures]
                    for k in h.batch_kernels()
                }
            )
        )
    elif what == "signatures":
        name = args["name"]
        h = hooks(name)
        cfg = h.default_config
        e = DungeonEnv(name, **cfg)
        _, info = e.reset(seed=0)
        e.step(int(np.flatnonzero(info["action_mask"])[0]))
        e.get_state()
        e.set_state(e.get_state())
        for kw in (cfg, h.truncate_config):
            v = DungeonVectorEnv(name, num_envs=3, **kw)
            _, info = v.reset(seed=0)
            for _ in range(8):
                _, _, _, _, info = v.step(
                    random_legal(np.random.default_rng(0), info["action_mask"])
                )
        e2 = DungeonEnv(name, illegal_action="raise", **h.truncate_config)
        _, info = e2.reset(seed=1)
        for _ in range(8):
            _, _, term, trunc, info = e2.step(int(np.flatnonzero(info["action_mask"])[0]))
            if term or trunc:
                break
        print(
            json.dumps(
                {
                    getattr(k, "__name__", repr(k)): [str(s) for s in k.signatures]
                    for k in h.batch_kernels()
                }
            )
        )


# =====================================================================================
# numba-like records and line coverage for the interpreter run (JIT vs interpreter)
# =====================================================================================
class _FieldRecord(np.record):
    """A record whose attributes are its fields first (``np.record`` lets
    methods like ``round`` shadow fields), with numba-like scalar reads."""

    def __getattribute__(self, attr):
        fields = np.void.__getattribute__(self, "dtype").fields
        if fields is not None and attr in fields:
            return _numba_like(np.void.getfield(self, *fields[attr][:2]))
        return np.record.__getattribute__(self, attr)


class _NumbaLikeArray:
    """An array view whose scalar reads are Python numbers: numba computes
    with integers widened to int64 (NumPy 2 keeps int8 + int in int8 and
    raises on overflow), so the interpreter must not narrow them either.
    Writes go to the underlying array (out-of-range values raise, which
    flags a value numba would silently wrap)."""

    __slots__ = ("a",)

    def __init__(self, a):
        object.__setattr__(self, "a", a)

    def __getitem__(self, k):
        return _numba_like(self.a[k])

    def __setitem__(self, k, v):
        self.a[k] = v

    def __len__(self):
        return len(self.a)

    def __iter__(self):
        return (_numba_like(x) for x in self.a)

    def copy(self):
        return _NumbaLikeArray(self.a.copy())

    def __getattr__(self, name):
        return getattr(self.a, name)

    def __array__(self, dtype=None, copy=None):
        return self.a if dtype is None else self.a.astype(dtype)


def _numba_like(v):
    if isinstance(v, np.ndarray):
        return _NumbaLikeArray(v)
    if isinstance(v, np.generic):
        return v.item()
    return v


def field_view(arr):
    """``arr`` (structured) viewed with :class:`_FieldRecord` rows, so
    kernels run by the interpreter can use ``st.field`` like numba does."""
    return arr.view(np.dtype((_FieldRecord, arr.dtype)))


class _LineCoverage:
    """Lines of a game package executed by the interpreter (sys.settrace)."""

    def __init__(self, folders):
        self.folders = [os.path.abspath(f) for f in folders]
        self.hit = {}

    def _tracer(self, frame, event, arg):
        fn = frame.f_code.co_filename
        if not any(fn.startswith(f) for f in self.folders):
            return None

        def local(frame, event, arg):
            if event == "line":
                self.hit.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
            return local

        return local

    def start(self):
        sys.settrace(self._tracer)

    def stop(self):
        sys.settrace(None)

    def report(self):
        """{file: [lines executed, lines in function bodies]}."""
        import dis

        out = {}
        for fn, hit in self.hit.items():
            with open(fn) as f:
                code = compile(f.read(), fn, "exec")
            body = set()
            stack = list(code.co_consts)
            while stack:
                c = stack.pop()
                if not hasattr(c, "co_code"):
                    continue
                body |= {ln for _, ln in dis.findlinestarts(c) if ln} - {c.co_firstlineno}
                stack += list(c.co_consts)
            out[os.path.relpath(fn, ROOT)] = [len(hit & body), len(body)]
        return out
