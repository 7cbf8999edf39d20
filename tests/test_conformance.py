"""The conformance suite: what every game of dungeonrl must pass
(``/work/shared/TESTING.md``, "Must have"), run on every game of
``dungeonrl.registry.GAMES``.

Generic code lives here; what only a game knows (its configurations, an
invariant checker written from its rules, what its player cannot see...)
comes from ``tests/game_hooks.py``. A game joins by registering itself and
adding its hooks there.

Sections (numbers as in TESTING.md):

1. random-play soak with the independent invariant checker;
2. mask soundness (legal actions accepted, illegal ones handled by policy);
3. determinism (processes, batch sizes and order, numba threads, seeds);
4. snapshot / restore through ``DungeonEnv.get_state`` / ``set_state``;
5. no hidden global state (numba's and numpy's global RNGs disturbed);
6. hidden information (resampling what the player cannot see);
7. observation aliasing;
8. batched == sequential;
9. bad input and compile-once;
10. terminated vs truncated;
12. JIT vs interpreter (``NUMBA_DISABLE_JIT=1``);
plus Gymnasium's and SB3's env checkers and ``gymnasium.make_vec``.

Multi-agent games run the core-level checks as they are and the env-level
ones (mask soundness, snapshots, bad input, compile-once, terminated vs
truncated, aliasing) through their PettingZoo AEC env (``make_env``); the
single-agent adapters' checks (vector env, Gymnasium/SB3 checkers,
``make_vec``) skip them.

Each test prints one line of figures (``pytest -s`` or ``-rP`` shows them).
Helpers below are also run in subprocesses (``python -c "import
test_conformance ..."``), so this module must import without pytest
collecting it.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
import game_hooks
from dungeonrl import registry
from dungeonrl.envs.core.errors import (
    CorruptStateError,
    IllegalActionError,
    InvalidActionError,
    ResetNeededError,
    SnapshotError,
)
from dungeonrl.envs.core.gym_env import DungeonEnv
from dungeonrl.envs.core.snapshot import Snapshot
from dungeonrl.envs.core.vector import DungeonVectorEnv

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS_DIR)
MASK_DTYPE = np.int8


# =====================================================================================
# games and cores
# =====================================================================================
#: test fixtures that must pass the whole suite too (modules under tests/,
#: registered here, never by ``registry.GAMES``): the team fixture covers
#: teams, ties and a turn order decided by the state
FIXTURE_GAMES = ["fixture_team"]


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
        pytest.skip(f"{name} is multi-agent: the single-agent adapters (DungeonEnv, "
                    "vector envs, SB3) do not apply; the PettingZoo suite covers it")


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
    the PettingZoo AEC env (both have ``get_state`` / ``set_state``)."""
    if _multi_agent(name) or int(kw.get("num_players", 1)) > 1:    # (_aec_config)
        from dungeonrl.envs.core.aec import DungeonAECEnv
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
    obs = tuple((o["observation"].tobytes(), o["action_mask"].tobytes())
                for o in (env.observe(a) for a in env.possible_agents))
    return (env.agent_selection, obs, dict(env.rewards), dict(env._cumulative_rewards),
            dict(env.terminations), dict(env.truncations),
            {a: i.get("illegal_action") for a, i in env.infos.items()},
            rbytes(env._states))


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
        pytest.skip(f"{name} has no conformance hooks yet (see "
                    "test_every_suite_game_has_hooks)")
    return game_hooks.HOOKS[name]


def spec_of(name):
    return registry.get_spec(name)


@functools.lru_cache(maxsize=None)
def _core_cached(name, key):
    return spec_of(name).make_core(**dict(key))


def get_core(name, cfg=None):
    """A core of ``name`` built with ``cfg`` (cached: cores are stateless)."""
    return _core_cached(name, tuple(sorted((cfg or {}).items())))


class Batch:
    """A batch of ``n`` games of one core with every buffer the kernels
    take (the same dtypes as the adapters' ``BatchBuffers``)."""

    def __init__(self, core, n, wrap=None):
        spec = core.spec
        self.core, self.n = core, n
        self.states = core.alloc(n)
        self.final_states = core.alloc(n)
        if wrap is not None:                  # interpreter harness (NUMBA_DISABLE_JIT=1)
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
        self.core.step(self.states, self.actions, self.rewards, self.terminated,
                       self.truncated, self.illegal)

    def step_autoreset(self, actions):
        self.actions[:] = actions
        self.core.step_autoreset(self.states, self.actions, self.obs, self.masks, self.rewards,
                                 self.terminated, self.truncated, self.illegal, self.final_obs,
                                 self.final_states)


@functools.lru_cache(maxsize=None)
def _covered(dtype) -> np.ndarray:
    """Byte offsets of ``dtype`` that hold fields (not alignment padding)."""
    cov = np.zeros(dtype.itemsize, bool)

    def mark(dt, base):
        if dt.names is None:
            cov[base:base + dt.itemsize] = True
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
        h = _mix(np.asarray(seeds, np.uint64) * np.uint64(0x9E3779B97F4A7C15)
                 + np.uint64(t + 1))
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
    for fn, args in ((h.check_invariants, (states[rows],)),
                     (h.check_transition, (before[rows], states[rows]) if before is not None
                      else None)):
        if args is None:
            continue
        try:
            fn(core, *args)
        except AssertionError as e:
            bad, msgs = known_bug_rows(h, e)
            tainted[rows[bad]] = True
            known_hits.extend(msgs)


def play_random(name, cfg, n, seed, jump=False, sample_every=0, max_samples=0,
                until_sampled=False):
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
        assert np.array_equal(b.masks.any(axis=1), ~done), \
            "legal mask all-zero iff game over broken (adapter view)"
        assert np.isfinite(b.obs).all(), "non-finite observation"
        if sample_every and t % sample_every == 0 and len(samples) < max_samples:
            pool = np.flatnonzero(~done & ~tainted)      # two live games at random
            for i in rng.choice(pool, size=min(2, len(pool), max_samples - len(samples)),
                                replace=False):
                samples.append(b.states[i:i + 1].copy())
            if until_sampled and len(samples) >= max_samples:
                return b, None, samples
        actions = random_legal(rng, b.masks)
        before = b.states.copy()
        b.step(actions)
        assert not b.illegal.any(), "a legal action was flagged illegal"
        ended = b.terminated | b.truncated
        assert not (b.terminated & b.truncated).any(), "terminated and truncated together"
        assert not ended[done].any() and not b.rewards[done].any(), \
            "a finished game was stepped (flags or reward set)"
        assert rbytes(before[done]) == rbytes(b.states[done]), "a finished game changed"
        assert ((b.rewards >= lo) & (b.rewards <= hi)).all(), \
            f"reward outside spec.reward_range {spec.reward_range}"
        decisions[~done] += 1
        checked(h, core, b.states, ~done, tainted, known, before=before)
        done |= ended
    assert done.all(), f"{int((~done).sum())} games still running after max_episode_steps"
    assert (decisions <= spec.max_episode_steps).all()
    assert (core.to_play(b.states) == -1).all(), "to_play of a finished game is not -1"
    stats = {"games": n, "decisions": int(decisions.sum()), "known": known,
             "tainted": int(tainted.sum()), "tainted_rows": tainted,
             "max_len": int(decisions.max())}
    return b, stats, samples


@functools.lru_cache(maxsize=None)
def sampled_states(name, per_config=40):
    """(config index, 1-row state) pairs sampled from random play (normal and,
    when the game has one, jump starts) across every configuration."""
    h = hooks(name)
    out = []
    for ci, cfg in enumerate(h.configs):
        kinds = [False] + ([True] if h.jump_start is not None else [])
        for jump in kinds:
            _, _, samples = play_random(name, cfg, 24, seed=500 + ci, jump=jump,
                                        sample_every=getattr(h, "sample_every", 2),
                                        max_samples=per_config // len(kinds),
                                        until_sampled=True)
            out += [(ci, s) for s in samples]
    return out


def _figures(label, **kw):
    print(f"[conformance] {label}: " + ", ".join(f"{k}={v}" for k, v in kw.items()))


def test_every_suite_game_has_hooks():
    assert GAMES, "no game registered"
    for g in GAMES:
        h = game_hooks.get_hooks(g)   # raises naming the missing game
        assert h.configs, f"{g}: hooks list no configuration"


# =====================================================================================
# 1. random-play soak
# =====================================================================================
@pytest.mark.parametrize("start", ["reset", "jump"])
@pytest.mark.parametrize("name", GAMES)
def test_random_play_soak(name, start):
    """``hooks.soak_games`` (default 1,000) random legal games per
    configuration (>= 1,000 per game), every state of every
    game checked by the game's independent invariant checker (and every
    transition by its transition checker); every game ends within
    ``spec.max_episode_steps``. ``jump`` starts are records edited into the
    late game by the game's hooks (random play rarely gets there)."""
    h = hooks(name)
    if start == "jump" and h.jump_start is None:
        pytest.skip(f"{name} has no jump_start hook")
    games = decisions = tainted = 0
    known = []
    outcomes = {}
    for ci, cfg in enumerate(h.configs):
        b, st, _ = play_random(name, cfg, h.soak_games, seed=1 + ci + 50 * (start == "jump"),
                               jump=start == "jump")
        games += st["games"]
        decisions += st["decisions"]
        tainted += st["tainted"]
        known += st["known"]
        for i in range(0, b.n, 7):     # the core's own validator accepts real states
            if not st["tainted_rows"][i]:
                b.core.check_state(b.states[i])
        for i in range(b.n):
            o = b.core.episode_info(b.states[i]).get("outcome", "?")
            outcomes[o] = outcomes.get(o, 0) + 1
    _figures(f"soak {name} ({start} starts)", configs=len(h.configs), games=games,
             decisions=decisions, invariant_violations=0, known_bug_games=tainted,
             outcomes=outcomes)
    assert games >= 1000
    if known:
        pytest.xfail(f"{tainted} of {games} games hit known bug(s): "
                     + "; ".join(sorted({k for k in h.known_bugs if any(k in m for m in known)})))


# =====================================================================================
# 2. mask soundness
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_mask_soundness(name):
    """At sampled states every legal action is accepted (no illegal flag,
    invariants and transition invariants hold); every illegal in-range
    action raises IllegalActionError (naming the action and the phase) in
    strict mode with the state left byte-identical, and under the default
    policy ends the game with ``spec.illegal_penalty`` (for the acting seat
    of a multi-agent game, through its AEC env)."""
    h = hooks(name)
    spec = spec_of(name)
    states = sampled_states(name)
    strict = {}
    penal = {}
    n_legal = n_illegal = n_env_penal = 0
    known = []
    rng = np.random.default_rng(7)
    for ci, row in states:
        cfg = h.configs[ci]
        core = get_core(name, cfg)
        aec = _aec_config(name, cfg)
        mask = np.zeros((1, spec.num_actions), MASK_DTYPE)
        core.legal_mask(row, mask)
        legal = np.flatnonzero(mask[0])
        illegal = np.flatnonzero(mask[0] == 0)
        assert len(legal), "sampled a finished state"
        seat = int(core.to_play(row)[0])
        # every legal action, one row each, in one batch
        b = Batch(core, len(legal))
        b.states[:] = row[0]
        b.step(legal)
        assert not b.illegal.any(), f"legal action(s) {legal[b.illegal].tolist()} flagged illegal"
        checked(h, core, b.states, np.ones(len(legal), bool), np.zeros(len(legal), bool),
                known, before=np.repeat(row, len(legal)))
        n_legal += len(legal)
        # every illegal action through the core: penalty, terminated, flagged
        b = Batch(core, len(illegal))
        b.states[:] = row[0]
        b.step(illegal)
        assert b.illegal.all() and b.terminated.all() and not b.truncated.any()
        assert (b.rewards[:, seat] == spec.illegal_penalty).all()
        h.check_invariants(core, b.states)
        # strict env: IllegalActionError, state byte-identical
        if ci not in strict:
            strict[ci] = make_env(name, illegal_action="raise", **cfg)
            penal[ci] = make_env(name, **cfg)
        env = strict[ci]
        snap = Snapshot(game=spec.name, layout_version=spec.layout_version,
                        state=row.tobytes(), step_count=3)
        env.set_state(snap)
        phase = core.phase_name(row[0])
        for a in illegal:
            with pytest.raises(IllegalActionError) as exc:
                env.step(int(a))
            msg = str(exc.value)
            assert str(int(a)) in msg and spec.action_names[a] in msg and phase in msg, msg
            n_illegal += 1
        after = env.get_state()
        dt = core.state_dtype
        assert rbytes(np.frombuffer(after.state, dt)) == rbytes(np.frombuffer(snap.state, dt))
        assert after.step_count == 3 and not after.done
        if aec:
            assert env.agent_selection == env.possible_agents[seat]
            assert np.array_equal(env.action_mask(), mask[0])
        else:
            assert np.array_equal(env.action_masks(), mask[0].astype(bool))
        # default policy through the env, a few illegal actions per state
        for a in rng.choice(illegal, size=min(3, len(illegal)), replace=False):
            e = penal[ci]
            e.set_state(snap)
            if aec:
                agent = e.agent_selection
                e.step(int(a))
                assert e.rewards[agent] == spec.illegal_penalty
                assert all(e.terminations.values()) and not any(e.truncations.values())
                assert e.infos[agent]["illegal_action"] is True
                assert not e.observe(agent)["action_mask"].any()
                with pytest.raises(InvalidActionError):     # finished agents step None only
                    e.step(int(legal[0]))
                aec_finish(e)
                with pytest.raises(ResetNeededError):
                    e.step(int(legal[0]))
                n_env_penal += 1
                continue
            _, r, term, trunc, info = e.step(int(a))
            assert r == spec.illegal_penalty and term is True and trunc is False
            assert info["illegal_action"] is True and not info["action_mask"].any()
            with pytest.raises(ResetNeededError):
                e.step(int(legal[0]))
            n_env_penal += 1
    _figures(f"mask soundness {name}", states=len(states), legal_actions_accepted=n_legal,
             illegal_strict_raised=n_illegal, illegal_penalized_env=n_env_penal,
             known_bug_hits=len(known))


# =====================================================================================
# 3. determinism
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
        chunk = order[k:k + size]
        b = Batch(core, len(chunk), wrap=wrap)
        b.reset(chunk)
        hs = [hashlib.sha256() for _ in chunk]
        raw = b.states.view(core.state_dtype)              # plain records, same memory
        raw_final = b.final_states.view(core.state_dtype)
        u8 = lambda a: np.ascontiguousarray(a).view(np.uint8).reshape(len(chunk), -1)  # noqa
        for i, hh in enumerate(hs):
            hh.update(np.concatenate([record_rows(raw), u8(b.obs), u8(b.masks)], axis=1)[i])
        for t in range(steps):
            b.step_autoreset(seeded_actions(chunk, t, b.masks))
            ended = b.terminated | b.truncated
            mat = np.concatenate([record_rows(raw), u8(b.obs), u8(b.masks), u8(b.rewards),
                                  u8(np.stack([b.terminated, b.truncated, b.illegal], 1))],
                                 axis=1)
            fin = (np.concatenate([record_rows(raw_final), u8(b.final_obs)], axis=1)
                   if ended.any() else None)
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
    code = ("import sys, json; sys.path.insert(0, %r); import test_conformance as t; "
            "t._main(json.loads(sys.argv[1]))" % TESTS_DIR)
    return subprocess.Popen([sys.executable, "-c", code, json.dumps(args)], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


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
            warnings.filterwarnings("ignore", message="overflow encountered",
                                    category=RuntimeWarning)
        res = {}
        cov = None
        for k, job in enumerate(args["jobs"]):
            if k == 0 and interp and args.get("coverage"):   # traced: ~4x slower
                cov = _LineCoverage(args["coverage"])
                cov.start()
            res[job["key"]] = trajectory_hashes(args["name"], job["cfg"], job["seeds"],
                                                job["steps"], interp=interp)
            if cov is not None:
                cov.stop()
        import numba
        print(json.dumps({"hashes": res, "threads": numba.config.NUMBA_NUM_THREADS,
                          "jit_disabled": bool(numba.config.DISABLE_JIT),
                          "coverage": cov.report() if cov else None}))
    elif what == "signatures" and _multi_agent(args["name"]):
        # the AEC env (both policies, snapshots, dead steps) and the batch
        # buffers' fused autoreset step (self-play's path), two table sizes
        from dungeonrl.envs.core._batch import BatchBuffers
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
            e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
                   if policy == "penalize" else aec_action(e, rng))
            b = BatchBuffers(get_core(name, kw), 3)
            b.reset(np.arange(3, dtype=np.uint64))
            for _ in range(8):
                b.actions[:] = random_legal(rng, b.masks)
                b.step_autoreset()
        print(json.dumps({getattr(k, "__name__", repr(k)): [str(s) for s in k.signatures]
                          for k in h.batch_kernels()}))
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
                _, _, _, _, info = v.step(random_legal(np.random.default_rng(0),
                                                       info["action_mask"]))
        e2 = DungeonEnv(name, illegal_action="raise", **h.truncate_config)
        _, info = e2.reset(seed=1)
        for _ in range(8):
            _, _, term, trunc, info = e2.step(int(np.flatnonzero(info["action_mask"])[0]))
            if term or trunc:
                break
        print(json.dumps({getattr(k, "__name__", repr(k)): [str(s) for s in k.signatures]
                          for k in h.batch_kernels()}))


@pytest.mark.parametrize("name", GAMES)
def test_determinism_batch_size_and_order(name):
    """Row i's trajectory hash is the same whether its game runs in a batch
    of 64, in batches of 7, alone, or with the rows reversed; different
    seeds give different trajectories."""
    h = hooks(name)
    n_seeds = 0
    for ci, cfg in enumerate(h.configs):
        seeds = list(range(1000 * ci + 11, 1000 * ci + 11 + 64))
        ref = trajectory_hashes(name, cfg, seeds, 100)
        for kw, sub in (({"batch": 7}, seeds), ({"batch": 1}, seeds[:16]),
                        ({"reverse": True}, seeds), ({"batch": 7, "reverse": True}, seeds)):
            got = trajectory_hashes(name, cfg, sub, 100, **kw)
            diff = [s for s in sub if got[s] != ref[s]]
            assert not diff, f"{_config_id(cfg)} {kw}: seeds {diff[:8]} differ from batch 64"
        assert len(set(ref.values())) == len(seeds), "two seeds gave identical trajectories"
        n_seeds += len(seeds)
    _figures(f"determinism {name}", seeds=n_seeds, steps_each=100,
             layouts="64/7/1/reversed", divergences=0)


@pytest.mark.parametrize("name", GAMES)
def test_determinism_across_processes_and_threads(name):
    """The same hashes in this process and in two fresh processes run with
    NUMBA_NUM_THREADS=1 and NUMBA_NUM_THREADS=2."""
    h = hooks(name)
    jobs = [{"key": str(ci), "cfg": cfg, "seeds": list(range(40 + ci, 56 + ci)), "steps": 100}
            for ci, cfg in enumerate(h.configs)]
    procs = {th: _subprocess({"what": "hashes", "name": name, "jobs": jobs},
                             {"NUMBA_NUM_THREADS": str(th)}) for th in (1, 2)}
    ref = {j["key"]: {str(k): v for k, v in trajectory_hashes(name, j["cfg"], j["seeds"],
                                                               j["steps"]).items()}
           for j in jobs}
    for th, p in procs.items():
        got = _collect(p)
        assert got["threads"] == th and not got["jit_disabled"]
        assert got["hashes"] == ref, f"NUMBA_NUM_THREADS={th}: trajectories differ"
    _figures(f"determinism across processes {name}",
             seeds=sum(len(j["seeds"]) for j in jobs), processes=3, thread_counts="1,2",
             divergences=0)


def _strip(states, fields):
    """Copy of ``states`` with ``fields`` zeroed (to compare the rest)."""
    s = states.copy()
    for f in fields:
        s[f] = 0
    return s


@pytest.mark.parametrize("name", GAMES)
def test_different_seeds_differ_in_later_chance(name):
    """Chance after the deal comes from each game's own generator: a game
    whose generator is swapped for another seed's continues differently
    (same deal, same actions), and successive episodes of one seed stream
    get different deals."""
    h = hooks(name)
    assert h.chance_fields, "hooks must name the generator fields"
    cfg = h.configs[0]
    core = get_core(name, cfg)
    n = 48
    a = Batch(core, n)
    a.reset(np.arange(n) + 300)
    other = Batch(core, n)
    other.reset(np.arange(n) + 900)
    b = Batch(core, n)
    b.states[:] = a.states
    for f in h.chance_fields:
        b.states[f] = other.states[f]
    b.refresh()
    a.refresh()
    fields = tuple(h.chance_fields)
    diverged = np.zeros(n, bool)
    rng = np.random.default_rng(3)
    for t in range(200):
        acts = random_legal(rng, a.masks)
        same_mask = (a.masks == b.masks).all(axis=1)
        diverged |= ~same_mask
        acts_b = np.where(same_mask, acts, random_legal(rng, b.masks))
        a.step(acts)
        b.step(acts_b)
        a.refresh()
        b.refresh()
        sa, sb = _strip(a.states, fields), _strip(b.states, fields)
        diverged |= (record_rows(sa) != record_rows(sb)).any(axis=1)
        if (~a.masks.any(1) & ~b.masks.any(1)).all():
            break
    assert diverged.mean() >= 0.9, \
        f"only {int(diverged.sum())}/{n} games diverged after swapping the generator"
    # successive episodes of one seed stream get different deals
    b1 = Batch(core, 4)
    b1.reset([5, 5, 6, 6])
    starts = [rbytes(_strip(b1.states[:1], fields + ("episode",)))]
    rng = np.random.default_rng(4)
    episodes = 0
    for _ in range(4000):
        acts = random_legal(rng, b1.masks)
        acts[1], acts[3] = acts[0], acts[2]       # rows 0, 1 (and 2, 3) share a seed
        b1.step_autoreset(acts)
        ended = b1.terminated | b1.truncated
        if ended[0]:
            starts.append(rbytes(_strip(b1.states[:1], fields + ("episode",))))
            episodes += 1
        if episodes >= 12:
            break
    assert len(set(starts)) == len(starts), "two episodes of one seed stream started alike"
    rows = record_rows(b1.states)
    assert (rows[0] == rows[1]).all(), "one seed, two different streams"
    assert (rows[0] != rows[2]).any(), "two seeds, one stream"
    _figures(f"later chance {name}", games=n, diverged=int(diverged.sum()),
             episode_starts_distinct=len(starts))


# =====================================================================================
# 4. snapshot / restore
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_snapshot_restore_replays_identically(name):
    """Snapshot after chance was consumed, run k steps, restore (from the
    object, from bytes, into a fresh env), replay the same actions:
    identical observations, rewards, flags and masks every time. Multi-agent
    games: through the AEC env, every seat's observation and mask compared."""
    h = hooks(name)
    if _multi_agent(name):
        return _snapshot_restore_aec(name, h)
    if any(_aec_config(name, cfg) for cfg in h.configs):
        _snapshot_restore_aec(name, h)        # the configurations with more seats
    restores = 0
    configs = [cfg for cfg in h.configs if not _aec_config(name, cfg)]
    for ci, cfg in enumerate(configs):
        env = DungeonEnv(name, **cfg)
        fresh = DungeonEnv(name, **cfg)
        for seed in range(12):
            rng = np.random.default_rng(seed)
            obs, info = env.reset(seed=seed)
            chance0 = {f: env._buf.states[0][f].copy() for f in h.chance_fields}
            done = False
            consumed = False
            for _ in range(200):
                a = int(random_legal(rng, info["action_mask"][None])[0])
                obs, r, term, trunc, info = env.step(a)
                done = term or trunc
                consumed = any(not np.array_equal(env._buf.states[0][f], chance0[f])
                               for f in h.chance_fields)
                if done or (consumed and rng.random() < 0.3):
                    break
            if done or not consumed:
                continue
            snap = env.get_state()
            assert Snapshot.from_bytes(snap.to_bytes()) == snap, "snapshot bytes round-trip"
            actions, ref = [], []
            for _ in range(int(rng.integers(3, 12))):
                a = int(random_legal(rng, info["action_mask"][None])[0])
                actions.append(a)
                obs, r, term, trunc, info = env.step(a)
                ref.append((obs.copy(), r, term, trunc, info["action_mask"].copy(),
                            info["illegal_action"], rbytes(env._buf.states)))
                if term or trunc:
                    break
            for target, src in ((env, snap), (env, snap.to_bytes()), (fresh, snap)):
                target.set_state(src)
                assert target.get_state() == snap
                for a, (o, r, te, tr, m, il, raw) in zip(actions, ref):
                    o2, r2, te2, tr2, info2 = target.step(a)
                    assert np.array_equal(o, o2) and r == r2 and te == te2 and tr == tr2
                    assert np.array_equal(m, info2["action_mask"])
                    assert il == info2["illegal_action"]
                    assert raw == rbytes(target._buf.states), "restored record diverged"
                restores += 1
    assert restores >= 3 * len(configs)
    _figures(f"snapshot/restore {name}", restores=restores, divergences=0)


def _snapshot_restore_aec(name, h):
    """test_snapshot_restore_replays_identically through the AEC env (the
    configurations played through it: ``_aec_config``)."""
    restores = 0
    configs = [cfg for cfg in h.configs if _aec_config(name, cfg)]
    for ci, cfg in enumerate(configs):
        env = make_env(name, **cfg)
        fresh = make_env(name, **cfg)
        for seed in range(8):
            rng = np.random.default_rng(seed)
            env.reset(seed=seed)
            chance0 = {f: env._states[0][f].copy() for f in h.chance_fields}
            depth = int(rng.integers(1, cfg.get("max_steps", 200)))   # creation or dungeon
            done = consumed = False
            for t in range(depth):
                env.step(aec_action(env, rng))
                done = aec_done(env)
                consumed = any(not np.array_equal(env._states[0][f], chance0[f])
                               for f in h.chance_fields)
                if done:
                    break
            if done or not consumed:
                continue
            snap = env.get_state()
            assert Snapshot.from_bytes(snap.to_bytes()) == snap, "snapshot bytes round-trip"
            actions, ref = [], []
            for _ in range(int(rng.integers(3, 12))):
                a = aec_action(env, rng)
                actions.append(a)
                env.step(a)
                ref.append(aec_view(env))
                if aec_done(env):
                    break
            for target, src in ((env, snap), (env, snap.to_bytes()), (fresh, snap)):
                target.set_state(src)
                assert target.get_state() == snap
                for a, r in zip(actions, ref):
                    target.step(a)
                    assert aec_view(target) == r, "restored env diverged"
                restores += 1
    assert restores >= 3 * len(configs)
    _figures(f"snapshot/restore {name} (AEC)", restores=restores, divergences=0)


@pytest.mark.parametrize("name", GAMES)
def test_snapshot_rejects_other_game_layout_and_corruption(name):
    h = hooks(name)
    spec = spec_of(name)
    env = make_env(name, **h.default_config)
    env.reset(seed=3)
    snap = env.get_state()
    for bad in (dataclasses.replace(snap, game=spec.name + "_other"),
                dataclasses.replace(snap, layout_version="0" * 16),
                dataclasses.replace(snap, state=snap.state[:-1])):
        with pytest.raises(SnapshotError):
            env.set_state(bad)
        with pytest.raises(SnapshotError):
            env.set_state(bad.to_bytes())
    for junk in (b"", b"not a snapshot", snap.to_bytes()[:-5], snap.to_bytes()[:20]):
        with pytest.raises(SnapshotError):
            env.set_state(junk)
    with pytest.raises(SnapshotError):
        env.set_state({"state": snap.state})
    # another registered game's snapshot (when there is one) is rejected too
    for other in GAMES:
        if other != name:
            oe = make_env(other)
            oe.reset(seed=0)
            with pytest.raises(SnapshotError):
                env.set_state(oe.get_state())
    envs = {}
    if spec.max_players > 1:      # a snapshot of another table size is another game
        for cfg in h.configs:
            e = make_env(name, **cfg)
            e.reset(seed=4)
            seats = getattr(e, "num_seats", 1)       # (DungeonEnv: one seat)
            if seats != getattr(env, "num_seats", 1):
                with pytest.raises(SnapshotError):
                    env.set_state(e.get_state())
            envs.setdefault(seats, e)
    n = 0
    for ci, row in sampled_states(name)[::5]:
        if envs:              # each env takes records of its own table size
            env = envs[get_core(name, h.configs[ci]).num_players]
        for label, rec in h.corruptions(get_core(name, h.default_config), row):
            before = env.get_state()
            with pytest.raises(CorruptStateError):
                env.set_state(dataclasses.replace(snap, state=rec.tobytes()))
            assert env.get_state() == before, f"{label}: a failed restore changed the env"
            n += 1
    _figures(f"snapshot rejection {name}", corrupted_records_rejected=n)


# =====================================================================================
# 5. no hidden global state
# =====================================================================================
def _disturb_impl(seed):
    np.random.seed(seed)
    s = 0.0
    for _ in range(17):
        s += np.random.random()
    return s


@functools.lru_cache(maxsize=None)
def _disturber():
    from numba import njit
    return njit(_disturb_impl)


def disturb(seed):
    """Reseed and draw from numba's global RNG, numpy's and Python's."""
    _disturber()(seed)
    np.random.seed(seed % (2**32))
    np.random.random(5)
    random.seed(seed)
    random.random()


@pytest.mark.parametrize("name", GAMES)
def test_no_hidden_global_state(name):
    """Stepping a batch and its copy with numba's (and numpy's, Python's)
    global RNG reseeded in between gives identical records and outputs, for
    reset, step and step_autoreset."""
    h = hooks(name)
    steps = 0
    for ci, cfg in enumerate(h.configs):
        core = get_core(name, cfg)
        a, b = Batch(core, 32), Batch(core, 32)
        seeds = np.arange(32) + 77 * ci
        disturb(1)
        a.reset(seeds)
        disturb(2)
        b.reset(seeds)
        assert rbytes(a.states) == rbytes(b.states)
        rng = np.random.default_rng(ci)
        for t in range(200):          # fused kernel: many episodes per row
            acts = random_legal(rng, a.masks)
            disturb(10 + t)
            a.step_autoreset(acts)
            disturb(100_000 + t)
            b.step_autoreset(acts)
            assert rbytes(a.states) == rbytes(b.states), f"step {t}: records differ"
            for x in ("obs", "masks", "rewards", "terminated", "truncated", "illegal",
                      "final_obs"):
                assert np.array_equal(getattr(a, x), getattr(b, x)), f"step {t}: {x} differ"
            steps += 32
        a.reset(seeds + 1)
        b.reset(seeds + 1)
        for t in range(200):          # plain step + observe + mask, to the end of each game
            if not a.masks.any():
                break
            acts = random_legal(rng, a.masks)
            disturb(20 + t)
            a.step(acts)
            a.refresh()
            disturb(200_000 + t)
            b.step(acts)
            disturb(3)
            b.refresh()
            assert rbytes(a.states) == rbytes(b.states), f"step {t}: records differ"
            for x in ("obs", "masks", "rewards", "terminated", "truncated", "illegal"):
                assert np.array_equal(getattr(a, x), getattr(b, x)), f"step {t}: {x} differ"
            steps += 32
    _figures(f"global state {name}", row_steps=steps, divergences=0)


# =====================================================================================
# 6. hidden information
# =====================================================================================
def _recompute_mask(core, states, seat=None):
    fn = getattr(core, "recompute_mask", None)
    if fn is not None:
        m = np.asarray(fn(states))
    else:
        m = np.zeros((len(states), core.spec.num_actions), MASK_DTYPE)
        core.legal_mask(states, m)
    if seat is not None:      # the mask seat ``seat`` sees
        m = m * (core.to_play(states) == seat)[:, None]
    return m


@pytest.mark.parametrize("name", GAMES)
def test_hidden_information(name):
    """Resampling what the player cannot see (deck orders, an unrevealed
    monster, the generator) leaves the observation and the legal mask
    (recomputed from the record's fields) exactly equal; changing something
    visible changes the observation (positive control). Multi-agent games:
    from every seat (their hooks take ``player=``); a seat's mask is the
    recomputed one when it is to act, all zero otherwise."""
    h = hooks(name)
    spec = spec_of(name)
    rng = np.random.default_rng(11)
    n = {"states": 0, "resamples": 0, "changed": 0, "players": 1}

    def check_seat(core, row, seat):
        kw = {} if seat is None else {"player": seat}
        players = np.array([seat or 0], np.int64)
        obs0 = np.zeros((1, spec.obs_size), np.float32)
        core.observe(row, players, obs0)
        mask0 = _recompute_mask(core, row, seat)
        for _ in range(4):
            alt = h.resample_hidden(core, row, rng, **kw)
            assert alt.dtype == row.dtype and alt.shape == (1,)
            n["changed"] += rbytes(alt) != rbytes(row)
            obs1 = np.zeros_like(obs0)
            core.observe(alt, players, obs1)
            diff = np.flatnonzero(obs0[0] != obs1[0])
            assert not len(diff), ("resampling hidden information changed observation "
                                   f"columns {[spec.feature_names[i] for i in diff[:8]]}")
            mask1 = _recompute_mask(core, alt, seat)
            assert np.array_equal(mask0, mask1), (
                "resampling hidden information changed the mask: "
                f"{np.flatnonzero(mask0[0] != mask1[0]).tolist()}")
            n["resamples"] += 1
        vis = h.change_visible(core, row, **kw)
        obs2 = np.zeros_like(obs0)
        core.observe(vis, players, obs2)
        assert not np.array_equal(obs0, obs2), "positive control: a visible change went unseen"

    for ci, row in sampled_states(name):
        core = get_core(name, h.configs[ci])
        seats = (list(range(core.num_players)) if spec.multi_agent or core.num_players > 1
                 else [None])
        n["players"] = len(seats)
        for seat in seats:
            check_seat(core, row, seat)
        n["states"] += 1
    assert n["changed"] == n["resamples"], "resample_hidden returned an unchanged record"
    _figures(f"hidden information {name}", states=n["states"], players=n["players"],
             resamples=n["resamples"], observation_differences=0, mask_differences=0)


@pytest.mark.parametrize("name", GAMES)
def test_invariant_checker_has_teeth(name):
    """Negative controls: the invariant checker rejects the hooks' corrupted
    records (except a corrupted stored mask, which only the core's own
    validator can see: the independent checker never runs the rules)."""
    h = hooks(name)
    core = get_core(name, h.default_config)
    caught = 0
    for _, row in sampled_states(name)[::10]:
        h.check_invariants(core, row)
        for label, rec in h.corruptions(core, row):
            if "mask" in label:
                continue
            with pytest.raises(AssertionError):
                h.check_invariants(core, rec)
            caught += 1
    assert caught
    _figures(f"checker teeth {name}", corruptions_caught=caught)


# =====================================================================================
# 7. observation aliasing
# =====================================================================================
def _buffers(obj):
    return [v for v in vars(obj).values() if isinstance(v, np.ndarray)]


def _arrays(x):
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return [a for v in x if v is not None for a in _arrays(v)]
        return [x]
    if isinstance(x, dict):
        return [a for v in x.values() for a in _arrays(v)]
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in _arrays(v)]
    return []


def _assert_fresh(returned, bufs, what):
    for arr in _arrays(returned):
        for b in bufs:
            assert not np.shares_memory(arr, b), f"{what} shares memory with an internal buffer"


@pytest.mark.parametrize("dict_obs", [False, True])
@pytest.mark.parametrize("name", GAMES)
def test_observation_aliasing(name, dict_obs):
    """Arrays returned by reset/step (single env, vector env, SB3 VecEnv)
    share no memory with internal buffers, and obs_t is unchanged after
    step t+1. Multi-agent games: the AEC env's ``observe`` / ``last`` (dict
    observations only)."""
    h = hooks(name)
    if _multi_agent(name):
        if not dict_obs:
            pytest.skip("AEC observations are always dicts (checked with dict_obs=True)")
        return _aliasing_aec(name, h)
    rng = np.random.default_rng(0)
    env = DungeonEnv(name, dict_obs=dict_obs, **h.truncate_config)
    bufs = _buffers(env._buf)
    kept = []
    for ep in range(3):
        out = env.reset(seed=ep)
        _assert_fresh(out, bufs, "DungeonEnv.reset")
        kept.append((out, [a.copy() for a in _arrays(out)]))
        done = False
        while not done:
            a = int(random_legal(rng, out[-1]["action_mask"][None])[0])
            out = env.step(a)
            _assert_fresh(out, bufs, "DungeonEnv.step")
            kept.append((out, [a.copy() for a in _arrays(out)]))
            done = out[2] or out[3]
    for out, copies in kept:
        for a, c in zip(_arrays(out), copies):
            assert np.array_equal(a, c), "a returned array changed after later steps"
    # (the vector envs hand out the array the kernels just wrote and give their
    # buffers a new one: compare with the buffers as they are after each call)
    venv = DungeonVectorEnv(name, num_envs=4, dict_obs=dict_obs, **h.truncate_config)
    kept = []
    out = venv.reset(seed=0)
    _assert_fresh(out, _buffers(venv._run.buf), "DungeonVectorEnv.reset")
    kept.append((out, [a.copy() for a in _arrays(out)]))
    for _ in range(15):
        out = venv.step(random_legal(rng, out[-1]["action_mask"]))
        _assert_fresh(out, _buffers(venv._run.buf), "DungeonVectorEnv.step")
        kept.append((out, [a.copy() for a in _arrays(out)]))
    assert any("final_obs" in o[-1] for o, _ in kept), "no episode ended: autoreset untested"
    for out, copies in kept:
        for a, c in zip(_arrays(out), copies):
            assert np.array_equal(a, c), "a returned vector array changed after later steps"
    sb3 = dungeonrl.DungeonSB3VecEnv(name, num_envs=3, seed=0, dict_obs=dict_obs,
                                     **h.truncate_config)
    kept = []
    obs = sb3.reset()
    _assert_fresh(obs, _buffers(sb3._run.buf), "DungeonSB3VecEnv.reset")
    kept.append((obs, [a.copy() for a in _arrays(obs)]))
    for _ in range(15):
        out = sb3.step(random_legal(rng, sb3.action_masks()))
        _assert_fresh(out, _buffers(sb3._run.buf), "DungeonSB3VecEnv.step")
        kept.append((out, [a.copy() for a in _arrays(out)]))
    for out, copies in kept:
        for a, c in zip(_arrays(out), copies):
            assert np.array_equal(a, c), "a returned SB3 array changed after later steps"


def _aliasing_aec(name, h):
    rng = np.random.default_rng(0)
    env = make_env(name, **h.truncate_config)
    bufs = _buffers(env)
    assert bufs, "no internal buffers found"
    kept = []
    for ep in range(3):
        env.reset(seed=ep)
        while env.agents:
            for out in [env.observe(a) for a in env.agents] + [env.last()]:
                _assert_fresh(out, bufs, "DungeonAECEnv.observe / last")
                kept.append((out, [a.copy() for a in _arrays(out)]))
            env.step(None if aec_done(env) else aec_action(env, rng))
    for out, copies in kept:
        for a, c in zip(_arrays(out), copies):
            assert np.array_equal(a, c), "a returned array changed after later steps"


# =====================================================================================
# 8. batched == sequential
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_batched_equals_sequential_core(name):
    """N games stepped in one step_autoreset call equal the same N games
    stepped one per call (over many episodes); changing one row's action
    never changes another row's result."""
    h = hooks(name)
    compared = 0
    for ci, cfg in enumerate(h.configs):
        core = get_core(name, cfg)
        n = 12
        seeds = np.arange(n) + 40 * ci
        big = Batch(core, n)
        big.reset(seeds)
        singles = [Batch(core, 1) for _ in range(n)]
        for i, s in enumerate(singles):
            s.reset(seeds[i:i + 1])
        rng = np.random.default_rng(ci)
        for t in range(150):
            acts = random_legal(rng, big.masks)
            big.step_autoreset(acts)
            for i, s in enumerate(singles):
                s.step_autoreset(acts[i:i + 1])
                assert rbytes(big.states[i:i + 1]) == rbytes(s.states), \
                    f"{_config_id(cfg)} step {t} row {i}: records differ"
                for x in ("obs", "masks", "rewards", "terminated", "truncated", "illegal"):
                    assert getattr(big, x)[i:i + 1].tobytes() == getattr(s, x).tobytes(), \
                        f"{_config_id(cfg)} step {t} row {i}: {x} differ"
                if s.terminated[0] or s.truncated[0]:
                    assert big.final_obs[i].tobytes() == s.final_obs[0].tobytes()
                    assert rbytes(big.final_states[i:i + 1]) == rbytes(s.final_states)
                compared += 1
        # one row's action never changes another row's result
        for t in range(20):
            base = big.states.copy()
            acts = random_legal(rng, big.masks)
            j = int(rng.integers(n))
            alt_legal = np.flatnonzero(big.masks[j])
            ref = Batch(core, n)
            ref.states[:] = base
            ref.step_autoreset(acts)
            alt = Batch(core, n)
            alt.states[:] = base
            acts2 = acts.copy()
            acts2[j] = alt_legal[(np.searchsorted(alt_legal, acts[j]) + 1) % len(alt_legal)]
            alt.step_autoreset(acts2)
            others = np.arange(n) != j
            assert rbytes(ref.states[others]) == rbytes(alt.states[others]), \
                f"changing row {j}'s action changed other rows' records"
            for x in ("obs", "masks", "rewards", "terminated", "truncated"):
                assert getattr(ref, x)[others].tobytes() == getattr(alt, x)[others].tobytes(), \
                    f"changing row {j}'s action changed other rows' {x}"
            big.step_autoreset(acts)
    _figures(f"batched==sequential {name}", row_steps=compared, divergences=0)


@pytest.mark.parametrize("name", GAMES)
def test_vector_env_equals_single_envs(name):
    """DungeonVectorEnv(num_envs=N).reset(seed=s) steps exactly like N
    DungeonEnv reset with seeds s+i, up to each row's first episode end
    (final observation included)."""
    _single_agent(name)
    h = hooks(name)
    n = 6
    for cfg in h.configs:
        if _aec_config(name, cfg):
            continue          # (a multi-seat configuration: the AEC env's)
        venv = DungeonVectorEnv(name, num_envs=n, **cfg)
        singles = [DungeonEnv(name, **cfg) for _ in range(n)]
        vobs, vinfo = venv.reset(seed=123)
        live = np.ones(n, bool)
        sobs = []
        for i, e in enumerate(singles):
            o, info = e.reset(seed=123 + i)
            assert np.array_equal(o, vobs[i]) and np.array_equal(info["action_mask"],
                                                                 vinfo["action_mask"][i])
            sobs.append(o)
        rng = np.random.default_rng(0)
        for _ in range(400):
            if not live.any():
                break
            acts = random_legal(rng, vinfo["action_mask"])
            vobs, vr, vte, vtr, vinfo = venv.step(acts)
            for i in np.flatnonzero(live):
                o, r, te, tr, info = singles[i].step(int(acts[i]))
                assert (r, te, tr) == (float(vr[i]), bool(vte[i]), bool(vtr[i]))
                if te or tr:
                    assert np.array_equal(o, vinfo["final_obs"][i])
                    live[i] = False
                else:
                    assert np.array_equal(o, vobs[i])
                    assert np.array_equal(info["action_mask"], vinfo["action_mask"][i])
        assert not live.any(), "some game did not end"


# =====================================================================================
# 9. bad input, compile-once
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_bad_input(name):
    """Malformed actions raise InvalidActionError (whatever the policy),
    stepping before reset / after the end raises ResetNeededError, a
    corrupted record raises CorruptStateError; nothing crashes.
    Multi-agent games: through the AEC env (after the end, a finished agent
    takes only ``None``; once every agent is done, ResetNeededError)."""
    h = hooks(name)
    if _multi_agent(name):
        return _bad_input_aec(name, h)
    spec = spec_of(name)
    A = spec.num_actions
    count = 0
    for policy in ("penalize", "raise"):
        env = DungeonEnv(name, illegal_action=policy, **h.default_config)
        with pytest.raises(ResetNeededError):
            env.step(0)
        count += 1
        _, info = env.reset(seed=0)
        legal = int(np.flatnonzero(info["action_mask"])[0])
        before = env.get_state()
        for bad in (-1, A, A + 100, 2**63 - 1, -(2**63), 1.0, 0.5, np.float32(1), "0", None,
                    True, np.bool_(False), [0], (0,), np.array([0, 1]), np.array([[0]]),
                    np.array(0.0), np.array([legal], np.float64), {"a": 0}, 1 + 0j):
            with pytest.raises(InvalidActionError):
                env.step(bad)
            count += 1
        assert env.get_state() == before, "a rejected action changed the env"
        for ok in (legal, np.int64(legal), np.uint8(legal), np.array(legal), np.array([legal])):
            env.set_state(before)
            env.step(ok)
        # run to the end, then step again
        rng = np.random.default_rng(1)
        env.reset(seed=1)
        env2 = DungeonEnv(name, illegal_action=policy, **h.truncate_config)
        _, info = env2.reset(seed=2)
        done = False
        while not done:
            _, _, te, tr, info = env2.step(int(random_legal(rng, info["action_mask"][None])[0]))
            done = te or tr
        with pytest.raises(ResetNeededError):
            env2.step(0)
        count += 1
    venv = DungeonVectorEnv(name, num_envs=3, **h.default_config)
    with pytest.raises(ResetNeededError):
        venv.step(np.zeros(3, np.int64))
    venv.reset(seed=0)
    for bad in (np.zeros(2, np.int64), np.zeros(4, np.int64), np.zeros((3, 1), np.int64),
                np.zeros(3, np.float32), np.array([0, -1, 0]), np.array([0, A, 0]),
                [0.5, 0, 0], np.array(["a", "b", "c"]), 0, None):
        with pytest.raises(InvalidActionError):
            venv.step(bad)
        count += 1
    env = DungeonEnv(name, **h.default_config)
    env.reset(seed=0)
    snap = env.get_state()
    for label, rec in h.corruptions(get_core(name, h.default_config),
                                    np.frombuffer(snap.state, get_core(name).state_dtype)):
        with pytest.raises(CorruptStateError):
            env.set_state(dataclasses.replace(snap, state=rec.tobytes()))
        count += 1
    _figures(f"bad input {name}", bad_inputs=count, crashes=0)


BAD_ACTIONS = lambda A, legal: (  # noqa: E731
    -1, A, A + 100, 2**63 - 1, -(2**63), 1.0, 0.5, np.float32(1), "0", None, True,
    np.bool_(False), [0], (0,), np.array([0, 1]), np.array([[0]]), np.array(0.0),
    np.array([legal], np.float64), {"a": 0}, 1 + 0j)


def _bad_input_aec(name, h):
    """test_bad_input through the AEC env of a multi-agent game."""
    spec = spec_of(name)
    A = spec.num_actions
    count = 0
    for policy in ("penalize", "raise"):
        env = make_env(name, illegal_action=policy, **h.default_config)
        for call in (lambda: env.step(0), lambda: env.observe(env.possible_agents[0]),
                     env.get_state):
            with pytest.raises(ResetNeededError):
                call()
            count += 1
        env.reset(seed=0)
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        before = env.get_state()
        for bad in BAD_ACTIONS(A, legal):
            with pytest.raises(InvalidActionError):
                env.step(bad)
            count += 1
        assert env.get_state() == before, "a rejected action changed the env"
        for ok in (legal, np.int64(legal), np.uint8(legal), np.array(legal), np.array([legal])):
            env.set_state(before)
            env.step(ok)
        # run to the end: finished agents take None only, then ResetNeededError
        rng = np.random.default_rng(1)
        env2 = make_env(name, illegal_action=policy, **h.truncate_config)
        env2.reset(seed=2)
        while not aec_done(env2):
            env2.step(aec_action(env2, rng))
        for bad in (0, legal, np.int64(0)):
            with pytest.raises(InvalidActionError):
                env2.step(bad)
            count += 1
        aec_finish(env2)
        with pytest.raises(ResetNeededError):
            env2.step(0)
        with pytest.raises(ResetNeededError):
            env2.step(None)
        count += 2
    for kw in ({"num_players": spec.min_players - 1}, {"num_players": spec.max_players + 1},
               {"num_players": 2.5}, {"illegal_action": "ignore"}, {"render_mode": "video"}):
        with pytest.raises(ValueError):
            make_env(name, **kw)
        count += 1
    env = make_env(name, **h.default_config)
    env.reset(seed=0)
    snap = env.get_state()
    for label, rec in h.corruptions(get_core(name, h.default_config),
                                    np.frombuffer(snap.state, get_core(name).state_dtype)):
        with pytest.raises(CorruptStateError):
            env.set_state(dataclasses.replace(snap, state=rec.tobytes()))
        count += 1
    _figures(f"bad input {name} (AEC)", bad_inputs=count, crashes=0)


@pytest.mark.parametrize("name", GAMES)
def test_kernels_compiled_once(name):
    """After the single envs (both policies, snapshots) and vector envs
    (through autoresets) ran in a fresh process (so other tests' calls do
    not count), each batch kernel has exactly one compiled signature. (The
    SB3 VecEnv drives the same buffers as the vector env; importing torch
    here would only slow the test down.) Multi-agent games: the AEC env and
    the batch buffers' fused step."""
    hooks(name)
    got = _collect(_subprocess({"what": "signatures", "name": name}, {}))
    assert got, "hooks.batch_kernels() is empty"
    for k, sigs in got.items():
        assert len(sigs) == 1, f"{k} compiled {len(sigs)} times: {sigs}"


# =====================================================================================
# 10. terminated vs truncated
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_terminated_vs_truncated(name):
    """A core with a tiny step cap truncates (truncated True, terminated
    False, SB3 ``TimeLimit.truncated``); a game the rules finish terminates
    (terminated True, truncated False). Multi-agent games: through the AEC
    env (every agent flagged alike)."""
    h = hooks(name)
    if _multi_agent(name):
        return _terminated_vs_truncated_aec(name, h)
    spec = spec_of(name)
    rng = np.random.default_rng(0)
    truncs = terms = 0
    env = DungeonEnv(name, **h.truncate_config)
    for seed in range(20):
        _, info = env.reset(seed=seed)
        n = 0
        while True:
            _, r, te, tr, info = env.step(int(random_legal(rng, info["action_mask"][None])[0]))
            n += 1
            assert not (te and tr)
            if te or tr:
                break
        if tr:
            truncs += 1
            assert info.get("outcome", "truncated") == "truncated" and r == 0.0
        else:
            terms += 1
    assert truncs >= 10, "the tiny step cap never truncated"
    env = DungeonEnv(name, **h.default_config)
    for seed in range(10):
        _, info = env.reset(seed=seed)
        for _ in range(spec.max_episode_steps):
            _, r, te, tr, info = env.step(int(random_legal(rng, info["action_mask"][None])[0]))
            if te or tr:
                break
        assert te and not tr, "a random game did not terminate by the rules"
        assert not info["illegal_action"] and not info["action_mask"].any()
        assert spec.reward_range[0] <= r <= spec.reward_range[1]
    venv = DungeonVectorEnv(name, num_envs=4, **h.truncate_config)
    _, info = venv.reset(seed=0)
    seen_tr = False
    for _ in range(30):
        _, _, te, tr, info = venv.step(random_legal(rng, info["action_mask"]))
        assert not (te & tr).any()
        seen_tr |= bool(tr.any())
    assert seen_tr
    sb3 = dungeonrl.DungeonSB3VecEnv(name, num_envs=4, seed=0, **h.truncate_config)
    sb3.reset()
    flags = []
    for _ in range(30):
        _, _, dones, infos = sb3.step(random_legal(rng, sb3.action_masks()))
        flags += [i["TimeLimit.truncated"] for d, i in zip(dones, infos) if d]
    assert any(flags), "SB3 infos never flagged TimeLimit.truncated"
    _figures(f"terminated/truncated {name}", truncated=truncs, terminated_under_cap=terms)


def _terminated_vs_truncated_aec(name, h):
    """test_terminated_vs_truncated through the AEC env. Random multi-agent
    games can be long, so the games the rules end are played in the core
    (from the hooks' late-game starts when there are some) and their last
    decisions replayed through the AEC env from a snapshot."""
    spec = spec_of(name)
    rng = np.random.default_rng(0)
    truncs = terms = 0
    env = make_env(name, **h.truncate_config)
    for seed in range(20):
        env.reset(seed=seed)
        steps = 0
        while not aec_done(env):
            env.step(aec_action(env, rng))
            steps += 1
        te, tr = list(env.terminations.values()), list(env.truncations.values())
        assert len(set(te)) == 1 and len(set(tr)) == 1, "agents flagged differently"
        assert not (te[0] and tr[0])
        if tr[0]:
            truncs += 1
            assert steps == h.truncate_config["max_steps"]
            assert all(i.get("outcome", "truncated") == "truncated" for i in env.infos.values())
            assert not any(env.rewards.values()), "a truncation paid a reward"
        else:
            terms += 1
        aec_finish(env)
    assert truncs >= 10, "the tiny step cap never truncated"
    core = get_core(name, h.default_config)
    n, keep = 48, 6
    b = Batch(core, n)
    b.reset(np.arange(n) + 7)
    if h.jump_start is not None:
        h.jump_start(core, b.states, np.random.default_rng(1))
        b.refresh()
    hist, ends = [], []
    live = np.ones(n, bool)
    for _ in range(spec.max_episode_steps):
        if not live.any() or len(ends) >= 6:
            break
        acts = random_legal(rng, b.masks)
        hist = (hist + [(b.states.copy(), acts)])[-keep:]
        b.step(acts)
        b.refresh()
        for i in np.flatnonzero(live & b.terminated & ~b.illegal):
            ends.append((hist[0][0][i:i + 1].copy(), [int(a[i]) for _, a in hist]))
        live &= ~(b.terminated | b.truncated)
    assert len(ends) >= 3, "random games (from late-game starts) never ended by the rules"
    env = make_env(name, **h.default_config)
    for rec, acts in ends:
        env.set_state(Snapshot(game=spec.name, layout_version=spec.layout_version,
                               state=rec.tobytes()))
        for a in acts:
            assert not aec_done(env)
            agent = env.agent_selection
            env.step(a)
        assert all(env.terminations.values()) and not any(env.truncations.values()), \
            "a game the rules ended was not terminated for every agent"
        assert env.infos[agent]["illegal_action"] is False
        assert all(i.get("outcome") != "truncated" for i in env.infos.values())
        assert not env.observe(agent)["action_mask"].any()
        lo, hi = spec.reward_range
        assert all(lo <= r <= hi for r in env.rewards.values())
        aec_finish(env)
    _figures(f"terminated/truncated {name} (AEC)", truncated=truncs, terminated_under_cap=terms,
             terminated_by_rules=len(ends))


# =====================================================================================
# 11. JIT vs interpreter
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


@pytest.mark.parametrize("name", GAMES)
def test_jit_matches_interpreter(name):
    """Short seeded games give the same trajectory hashes compiled and
    under NUMBA_DISABLE_JIT=1 (states wrapped by the field-first record
    harness); the interpreted run also reports line coverage of the game."""
    h = hooks(name)
    jobs = []
    for ci, cfg in enumerate(h.configs[:2]):
        c = dict(cfg, **h.short_config)
        jobs.append({"key": str(ci), "cfg": c, "seeds": [3 + ci, 17, 101], "steps": 70})
    # (the first job runs traced, for the line-coverage figure)
    import importlib
    pkg = os.path.dirname(importlib.import_module(registry.game_module(name)).__file__)
    enc = os.path.join(ROOT, "encoders")
    p = _subprocess({"what": "hashes", "name": name, "jobs": jobs, "coverage": [pkg, enc]},
                    {"NUMBA_DISABLE_JIT": "1"})
    ref = {j["key"]: {str(k): v for k, v in trajectory_hashes(name, j["cfg"], j["seeds"],
                                                               j["steps"]).items()}
           for j in jobs}
    got = _collect(p, timeout=600)
    assert got["jit_disabled"], "the subprocess did not run with the JIT disabled"
    assert got["hashes"] == ref, "compiled and interpreted trajectories differ"
    cov = {k: f"{a}/{b}" for k, (a, b) in sorted((got["coverage"] or {}).items())
           if "rules" in os.path.basename(k) or k.startswith("encoders")}
    _figures(f"jit==interpreter {name}", seeds=sum(len(j["seeds"]) for j in jobs),
             steps_each=70, line_coverage=cov)


# =====================================================================================
# 12. ecosystem checkers
# =====================================================================================
@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_and_sb3_check_env(name):
    _single_agent(name)
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check
    spec = spec_of(name)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")
        for dict_obs in (False, True):
            e = gym.make(spec.env_id, dict_obs=dict_obs, disable_env_checker=True)
            gym_check(e.unwrapped)
            e.close()
            sb3_check(DungeonEnv(name, dict_obs=dict_obs), warn=True)


@pytest.mark.parametrize("name", GAMES)
def test_make_vec(name):
    _single_agent(name)
    import gymnasium as gym
    from dungeonrl.envs.core.checker import check_vector_env
    spec = spec_of(name)
    v = gym.make_vec(spec.env_id, num_envs=3)
    assert isinstance(v, DungeonVectorEnv) and v.num_envs == 3
    obs, info = v.reset(seed=0)
    assert obs.shape == (3, spec.obs_size) and info["action_mask"].shape == (3, spec.num_actions)
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs, r, te, tr, info = v.step(random_legal(rng, info["action_mask"]))
        assert obs in v.observation_space and r.shape == (3,)
    v.close()
    res = check_vector_env(gym.make_vec(spec.env_id, num_envs=3, **hooks(name).truncate_config),
                           steps=40)
    assert res["episodes_ended"] > 0


# =====================================================================================
# bugs found by this suite (game-specific regressions; while a bug is open its
# test is marked xfail(strict=True) and its invariant message is listed in the
# game's ``known_bugs`` hook)
# =====================================================================================
@pytest.mark.skipif("unbroken" not in GAMES, reason="Unbroken not registered")
def test_unbroken_craft_while_sheet_set_aside():
    """Regression (found by the soak; fixed in rules.py by ``sheet_in_deck``):
    Craft was legal in the Battle Step while a monster's temporary downgrade
    had set the equipped sheet aside, and could craft that very sheet again;
    ``restore_weapons`` then stacked the set-aside sheet back, so one weapon
    sheet was in two places (stack [0, 2] with [2] set aside -> [0, 2, 2]).
    First seen in random play: seed 1839, difficulty easy, character random."""
    from dungeonrl.envs.unbroken import consts as C
    h = hooks("unbroken")
    core = get_core("unbroken", {"difficulty": "easy", "character": "random"})
    T = core.T
    # a natural Battle Step, then its weapon set aside by a temporary downgrade
    b = Batch(core, 64)
    b.reset(np.arange(64) + 1839)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if (b.states["phase"] == C.PH_TURN).any():
            break
        b.step_autoreset(random_legal(rng, b.masks))
    rows = np.flatnonzero(b.states["phase"] == C.PH_TURN)
    assert len(rows), "set-up failed: no Battle Step reached"
    row = b.states[rows[0]:rows[0] + 1].copy()
    j = 1
    up = int(T.w_upg_to[0, j])
    s = row[0]
    s["wstack"][:] = -1
    s["wstack"][0] = 0
    s["wstack_n"] = 1
    s["waside"][:] = -1
    s["waside"][0] = up
    s["waside_n"] = 1
    s["waside_rounds"] = 2
    s["res"][:] = T.bars
    core.refresh(row)
    h.check_invariants(core, row)   # a legal position: Bare Hands equipped, one sheet aside
    assert not row[0]["legal"][C.A_CRAFT0 + j], "the set-aside sheet can be crafted again"
    one = Batch(core, 1)
    one.states[:] = row
    for a in np.flatnonzero(row[0]["legal"]):     # no legal action duplicates a sheet
        one.states[:] = row
        one.step([a])
        h.check_invariants(core, one.states)
