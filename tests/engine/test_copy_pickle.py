"""``copy.deepcopy``, ``pickle`` and ``clone()`` of every adapter on every
game (``envs/core/copying.py``).

For each adapter x game x way of copying: play a few random legal decisions
(chance consumed), copy, then

* the copy pickles to the same bytes as the original (the same game: same
  records, hidden information, generators and bookkeeping);
* the copy plays on alone (random legal actions, resets included) and the
  original stays byte-identical; the original then replays the copy's
  actions and gives the same observations, masks, rewards, terminations and
  infos (value, dtype and type); the other way round too.

Also: a copy of a fresh env (before reset) and of a finished one, a vector
env copied while its rows are in their second episode (autoreset done), a
copy's buffers and views are its own, and a copy loaded in another process.

"Byte-identical" is checked on a walk of the env's whole object graph
(:func:`fingerprint`): every array's bytes (records, buffers), every counter
and generator state.
"""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import types

import gymnasium as gym
import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.envs.core.adapters.aec import CheckedAECEnv
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.multi import BatchedMultiAgentEnv
from dungeonrl.envs.core.adapters.parallel import DungeonParallelEnv
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv
from dungeonrl.envs.core.copying import Copyable
from dungeonrl.envs.core.errors import ResetNeededError
from dungeonrl.envs.core.spec import GameCore, GameSpec
from dungeonrl.registry import get_spec

RESET = "reset"  # an action-list entry: reset() (no seed) a finished single env
PRE_STEPS = 6  # decisions before the copy (chance consumed)
RUN_STEPS = 14  # decisions of each side after the copy


# --- how to drive each adapter ------------------------------------------------------
def _pick(rng, mask) -> int:
    legal = np.flatnonzero(np.asarray(mask))
    assert len(legal), "no legal action in a live game"
    return int(rng.choice(legal))


class Driver:
    def scratch(self, env) -> list:
        """Output buffers that hold no state."""
        return []

    def fingerprint(self, env) -> list:
        return fingerprint(env, self.scratch(env))


class SingleDriver(Driver):
    """Gymnasium single env (raw, through ``gym.make`` wrappers, the
    single-seat self-play env, the campaign wrapper)."""

    def start(self, env, seed):
        return env.reset(seed=seed)

    def needs_reset(self, env) -> bool:
        return not env.unwrapped.action_masks().any()

    def choose(self, env, rng):
        return RESET if self.needs_reset(env) else _pick(rng, env.unwrapped.action_masks())

    def apply(self, env, action):
        if action == RESET:
            return env.reset()
        return env.step(action)

    def records(self, env):
        u = env.unwrapped
        inner = getattr(u, "_env", u)  # the campaign wrapper's game
        if hasattr(inner, "_buf"):
            return inner._buf.states
        return inner._view.states  # SelfPlayEnv


class VectorDriver(Driver):
    """Gymnasium native vector env (same-step autoreset)."""

    def scratch(self, env) -> list:
        # the array the next step's observations are written into: a fresh
        # one from the pool once the last one was handed out (never read)
        return [env._run.buf.obs]

    def start(self, env, seed):
        return env.reset(seed=seed)

    def choose(self, env, rng):
        return np.array([_pick(rng, m) for m in env.action_masks()], np.int64)

    def apply(self, env, actions):
        return env.step(actions)

    def records(self, env):
        return env._run.buf.states


class SB3Driver(VectorDriver):
    """Stable-Baselines3 VecEnv."""

    def start(self, env, seed):
        env.seed(seed)
        return env.reset(), env.reset_infos

    def apply(self, env, actions):
        obs, rewards, dones, infos = env.step(actions)
        for info in infos:  # the wall-clock time of SB3's Monitor format
            info.get("episode", {}).pop("t", None)
        return obs, rewards, dones, infos

    def records(self, env):
        return env._run.buf.states


class AECDriver(Driver):
    """PettingZoo AEC (the checked env of ``<game>_v0.env()``); a finished
    agent steps ``None`` (PettingZoo's dead steps)."""

    def start(self, env, seed):
        env.reset(seed=seed)
        return self._out(env)

    def choose(self, env, rng):
        if not env.agents:
            return RESET
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return None
        return _pick(rng, env.observe(agent)["action_mask"])

    def apply(self, env, action):
        if action == RESET:
            env.reset()
        else:
            env.step(action)
        return self._out(env)

    @staticmethod
    def _out(env):
        obs = {a: env.observe(a) for a in env.agents}
        return (
            list(env.agents),
            env.agent_selection,
            obs,
            dict(env.rewards),
            dict(env._cumulative_rewards),
            dict(env.terminations),
            dict(env.truncations),
            copy.deepcopy(env.infos),
            env.state() if env.agents else None,
        )

    def records(self, env):
        return env._states


class ParallelDriver(Driver):
    """PettingZoo Parallel."""

    def start(self, env, seed):
        return env.reset(seed=seed)

    def choose(self, env, rng):
        if not env.agents:
            return RESET
        actor = env._aec.agent_selection
        return {
            a: (_pick(rng, env._aec.observe(a)["action_mask"]) if a == actor else None)
            for a in env.agents
        }

    def apply(self, env, actions):
        if actions == RESET:
            return env.reset()
        return env.step(actions)

    def records(self, env):
        return env._aec._states


class MultiDriver(VectorDriver):
    """The batched multi-agent API (same-step autoreset)."""

    def scratch(self, env) -> list:
        return []

    def apply(self, env, actions):
        out = env.step(actions)
        return out + (env.state(),)

    def records(self, env):
        return env.states


# --- the adapters x games --------------------------------------------------------
def _spec_id(game: str) -> str:
    return get_spec(game).env_id


def _selfplay_view(game, n, opponents="heuristic", **kw):
    from dungeonrl.agents.selfplay_env import _core, opponent_pool
    from dungeonrl.envs.core.adapters.selfplay import SelfPlayView

    core = _core(game, kw)
    pool, advance = opponent_pool(core, opponents, seed=3)
    return SelfPlayView(core, n, pool, advance=advance, seed=5)


def _torch_view(game, n, **kw):
    """A view whose pool holds a sampling network (played through ``act``,
    its torch generator in the state) beside the scripted heuristic."""
    import torch

    from dungeonrl.agents.algos.ppo import ActorCritic
    from dungeonrl.agents.policy import TorchAgent
    from dungeonrl.agents.selfplay_env import _core
    from dungeonrl.envs.core.adapters.selfplay import SelfPlayView
    from dungeonrl.envs.core.scripted import HeuristicAgent, scripted_advance

    core = _core(game, kw)
    torch.manual_seed(0)
    net = ActorCritic(core.spec.obs_size, core.spec.num_actions, hidden=(8,))
    pool = [TorchAgent(net, deterministic=False, seed=1, name="net"), HeuristicAgent(core)]
    return SelfPlayView(core, n, pool, advance=scripted_advance(core), seed=6)


def _sb3(game, n=3, **kw):
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv

    return DungeonSB3VecEnv(game, num_envs=n, **kw)


def _campaign():
    from dungeonrl.envs.dcc_unstoppable.campaign import DCCCampaignEnv

    return DCCCampaignEnv()


# small step caps: episodes end, and resets / autoresets happen, within the
# few decisions each test plays (a single-seat view needs a cap its
# opponents cannot use up before the learner's first decision: its start
# redraws such games)
CASES = {
    # Gymnasium single env, through gym.make's wrappers
    "gym-unbroken": (
        SingleDriver,
        lambda: gym.make(_spec_id("unbroken"), max_steps=8, character="random"),
    ),
    "gym-dcc_solo": (SingleDriver, lambda: gym.make(_spec_id("dcc_unstoppable"), max_steps=8)),
    "gym-dungeon_crawler": (
        SingleDriver,
        lambda: gym.make(_spec_id("dungeon_crawler"), max_steps=8),
    ),
    "gym-dungeon_kart": (SingleDriver, lambda: gym.make(_spec_id("dungeon_kart"), max_steps=8)),
    # single-seat views: random opponents, and the co-op game with a scripted partner
    "seat-dungeon_crawler-random": (
        SingleDriver,
        lambda: gym.make(_spec_id("dungeon_crawler"), opponents="random", max_steps=20),
    ),
    "seat-dcc_coop": (
        SingleDriver,
        lambda: __import__("dungeonrl.agents.selfplay_env", fromlist=["SelfPlayEnv"]).SelfPlayEnv(
            "dcc_unstoppable", num_players=2, max_steps=8
        ),
    ),
    "campaign": (SingleDriver, _campaign),
    # native vector env (single-seat views for the multi-seat games)
    "vec-unbroken": (
        VectorDriver,
        lambda: DungeonVectorEnv("unbroken", 3, max_steps=8, character="random"),
    ),
    "vec-dcc_solo": (VectorDriver, lambda: DungeonVectorEnv("dcc_unstoppable", 3, max_steps=8)),
    "vec-dungeon_crawler": (
        VectorDriver,
        lambda: gym.make_vec(_spec_id("dungeon_crawler"), num_envs=3, max_steps=8),
    ),
    "vec-dungeon_kart": (
        VectorDriver,
        lambda: gym.make_vec(_spec_id("dungeon_kart"), num_envs=3, max_steps=8),
    ),
    "vec-dcc_coop": (
        VectorDriver,
        lambda: DungeonVectorEnv(_selfplay_view("dcc_unstoppable", 3, num_players=2, max_steps=8)),
    ),
    "vec-dungeon_crawler-torch": (
        VectorDriver,
        lambda: DungeonVectorEnv(_torch_view("dungeon_crawler", 3, max_steps=20)),
    ),
    # Stable-Baselines3 VecEnv
    "sb3-unbroken": (SB3Driver, lambda: _sb3("unbroken", max_steps=8)),
    "sb3-dcc_solo": (SB3Driver, lambda: _sb3("dcc_unstoppable", max_steps=8)),
    "sb3-dungeon_crawler": (
        SB3Driver,
        lambda: _sb3(_selfplay_view("dungeon_crawler", 3, max_steps=8)),
    ),
    "sb3-dungeon_kart": (
        SB3Driver,
        lambda: _sb3(_selfplay_view("dungeon_kart", 3, "heuristic:1,random:1", max_steps=8)),
    ),
    # PettingZoo AEC / Parallel, batched multi-agent
    **{
        f"aec-{g}": (AECDriver, (lambda g=g, kw=kw: CheckedAECEnv(g, max_steps=8, **kw)))
        for g, kw in (
            ("dungeon_crawler", {"num_players": 3}),
            ("dungeon_kart", {"num_players": 3}),
            ("dcc_unstoppable", {"num_players": 2}),
        )
    },
    **{
        f"par-{g}": (ParallelDriver, (lambda g=g, kw=kw: DungeonParallelEnv(g, max_steps=8, **kw)))
        for g, kw in (
            ("dungeon_crawler", {"num_players": 3}),
            ("dungeon_kart", {"num_players": 3}),
            ("dcc_unstoppable", {"num_players": 2}),
        )
    },
    **{
        f"multi-{g}": (
            MultiDriver,
            (lambda g=g, kw=kw: BatchedMultiAgentEnv(g, 3, max_steps=8, **kw)),
        )
        for g, kw in (
            ("dungeon_crawler", {"num_players": 3}),
            ("dungeon_kart", {"num_players": 3}),
            ("dcc_unstoppable", {"num_players": 2}),
        )
    },
}

COPIERS = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env, protocol=pickle.HIGHEST_PROTOCOL)),
    "clone": lambda env: env.clone(),
}


def _field_bytes(a: np.ndarray) -> bytes:
    """The bytes of every field of a record array, without the padding
    between fields (numpy's own record copies leave it uninitialised)."""
    if a.dtype.names is None:
        return a.tobytes()
    return b"".join(_field_bytes(a[name]) for name in a.dtype.names)


def _is_torch(x, name: str) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, getattr(torch, name))


def fingerprint(env, scratch=()) -> list:
    """Every value of the env's state, walked through its object graph: each
    array's dtype, shape and bytes, each generator's state, each counter,
    dict and list (see the module doc). The immutable core and spec are
    named, not walked (a copy shares them or, pickled, stores them by value);
    the ``_derived`` attributes (views, bound kernels) are checked apart.
    ``scratch``: output buffers whose contents are not state (named only)."""
    out: list = []
    skip = {id(a) for a in scratch}

    def walk(x, path: tuple) -> None:
        if id(x) in path:
            out.append("<cycle>")
            return
        path = path + (id(x),)
        if x is None or isinstance(
            x, (bool, int, float, complex, str, bytes, np.generic, np.dtype)
        ):
            out.append((type(x).__name__, repr(x)))
        elif isinstance(x, (GameCore, GameSpec)):
            out.append((type(x).__name__, getattr(x, "name", None)))
        elif isinstance(x, np.ndarray):
            out.append(("ndarray", x.dtype.descr, x.shape, x.flags.writeable))
            if id(x) in skip:
                return
            if x.dtype.hasobject:
                for v in x.reshape(-1):
                    walk(v, path)
            else:
                out.append(_field_bytes(x))
        elif isinstance(x, np.random.Generator):
            out.append(("Generator", repr(x.bit_generator.state)))
        elif _is_torch(x, "Tensor"):
            out.append(("Tensor", x.detach().cpu().numpy().tobytes()))
        elif _is_torch(x, "Generator"):
            out.append(("torch.Generator", x.get_state().numpy().tobytes()))
        elif isinstance(x, dict):
            out.append(("dict", len(x)))
            for k, v in x.items():
                out.append(repr(k))
                walk(v, path)
        elif isinstance(x, (list, tuple)):
            out.append((type(x).__name__, len(x)))
            for v in x:
                walk(v, path)
        elif isinstance(
            x, (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType)
        ) or type(x).__name__ in ("CPUDispatcher", "WideningDispatcher"):
            out.append(("ref", getattr(x, "__qualname__", getattr(x, "__name__", repr(x)))))
        else:
            out.append(("object", type(x).__qualname__))
            if isinstance(x, Copyable):
                state = x.__getstate__()
            elif hasattr(x, "__dict__"):
                state = dict(vars(x))
            else:
                state = {}
            for slot in getattr(type(x), "__slots__", ()):
                if hasattr(x, slot):
                    state[slot] = getattr(x, slot)
            walk(dict(sorted(state.items())), path)  # attributes: order is no state

    walk(env, ())
    return out


def assert_same(a, b, where="out"):
    """Equal values of the same types, arrays of the same dtype and shape,
    recursively (dicts, lists, tuples, object arrays)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, (
            f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        )
        if a.dtype == object:
            for i, (x, y) in enumerate(zip(a.reshape(-1), b.reshape(-1))):
                assert_same(x, y, f"{where}[{i}]")
        else:
            assert a.tobytes() == b.tobytes(), f"{where}: arrays differ"
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    else:
        assert a == b or (a != a and b != b), f"{where}: {a!r} != {b!r}"


def play(driver, env, rng, n: int) -> tuple:
    """``n`` random legal decisions; returns the actions and the outputs."""
    actions, outs = [], []
    for _ in range(n):
        a = driver.choose(env, rng)
        actions.append(a)
        outs.append(driver.apply(env, a))
    return actions, outs


def replay(driver, env, actions) -> list:
    return [driver.apply(env, a) for a in actions]


def check_independent_lockstep(driver, a, b, seed: int) -> None:
    """``b`` plays alone (``a`` unchanged), ``a`` replays ``b``'s actions with
    the same outputs; then the other way round."""
    for first, second, s in ((b, a, seed), (a, b, seed + 1)):
        before = driver.fingerprint(second)
        actions, outs = play(driver, first, np.random.default_rng(s), RUN_STEPS)
        assert driver.fingerprint(second) == before, "stepping one env changed the other"
        assert_same(replay(driver, second, actions), outs)
        assert driver.fingerprint(second) == driver.fingerprint(first)


def _make(case):
    driver_cls, make = CASES[case]
    return driver_cls(), make()


@pytest.mark.parametrize("how", sorted(COPIERS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_copy_mid_episode(case, how):
    driver, env = _make(case)
    if how == "clone" and not hasattr(env, "clone"):
        env = env.unwrapped  # gym.make's wrappers: clone the env inside them
    driver.start(env, seed=11)
    rng_at_reset = driver.records(env)["rng"].copy()
    rng = np.random.default_rng(0)
    play(driver, env, rng, PRE_STEPS)
    for _ in range(60):  # on until chance was consumed: a game generator moved
        if (driver.records(env)["rng"] != rng_at_reset).any():
            break
        play(driver, env, rng, 1)
    else:
        pytest.fail("no chance consumed in 60 decisions")
    before = driver.fingerprint(env)
    cp = COPIERS[how](env)
    assert cp is not env and type(cp) is type(env)
    assert driver.fingerprint(cp) == before, "the copy is not the same game"
    assert driver.fingerprint(env) == before, "copying changed the original"
    assert driver.records(cp) is not driver.records(env)
    assert not np.shares_memory(driver.records(cp), driver.records(env))
    check_independent_lockstep(driver, env, cp, seed=21)


@pytest.mark.parametrize("how", sorted(COPIERS))
@pytest.mark.parametrize(
    "case",
    [
        "gym-unbroken",
        "aec-dungeon_crawler",
        "vec-dungeon_kart",
        "multi-dcc_unstoppable",
        "campaign",
        "par-dungeon_kart",
    ],
)
def test_copy_of_fresh_env(case, how):
    """Copied before any reset: both reset with the same seed play the same."""
    driver, env = _make(case)
    env = env if hasattr(env, "clone") or how != "clone" else env.unwrapped
    cp = COPIERS[how](env)
    assert_same(driver.start(cp, seed=4), driver.start(env, seed=4))
    check_independent_lockstep(driver, env, cp, seed=31)


@pytest.mark.parametrize("how", sorted(COPIERS))
@pytest.mark.parametrize(
    "case",
    [
        "gym-unbroken",
        "gym-dcc_solo",
        "gym-dungeon_crawler",
        "aec-dungeon_kart",
        "par-dcc_unstoppable",
    ],
)
def test_copy_of_finished_env(case, how):
    """Copied once the episode is over: the copy refuses to step as the
    original does, and its unseeded reset draws the original's next game
    (the generator of unseeded resets travels with it)."""
    driver, env = _make(case)
    env = env if hasattr(env, "clone") or how != "clone" else env.unwrapped
    driver.start(env, seed=9)
    rng = np.random.default_rng(2)
    for _ in range(200):
        a = driver.choose(env, rng)
        if a == RESET:
            break
        driver.apply(env, a)
    else:
        pytest.fail("the episode did not end under its step cap")
    cp = COPIERS[how](env)
    assert driver.fingerprint(cp) == driver.fingerprint(env)
    if isinstance(driver, SingleDriver):
        for e in (env, cp):
            with pytest.raises(ResetNeededError):
                e.step(0)
    assert driver.choose(cp, rng) == RESET
    check_independent_lockstep(driver, env, cp, seed=41)


@pytest.mark.parametrize("how", sorted(COPIERS))
@pytest.mark.parametrize(
    "case", ["vec-unbroken", "vec-dungeon_crawler", "sb3-dcc_solo", "multi-dungeon_kart"]
)
def test_copy_vector_env_after_autoreset(case, how):
    """Copied while rows are in their second episode (the step cap of 8 was
    reached, the rows autoreset): episode counters, final infos and the
    next autoresets match."""
    driver, env = _make(case)
    driver.start(env, seed=13)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(11):
        out = driver.apply(env, driver.choose(env, rng))
        dones = out[2] | out[3] if not isinstance(driver, SB3Driver) else out[2]
        ended += int(np.sum(dones))
    assert ended > 0, "no row ended: the test would not cover autoreset"
    cp = COPIERS[how](env)
    assert driver.fingerprint(cp) == driver.fingerprint(env)
    check_independent_lockstep(driver, env, cp, seed=51)


def test_copy_has_its_own_buffers_and_views():
    """The row views and bound kernel of a copied single env point at the
    copy's own buffers (the bug: they pointed at the original's, so the copy
    returned stale observations and masks and played illegal actions)."""
    env = DungeonEnv("unbroken")
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # binds the kernel
    assert not env.core.TR.flags.writeable
    copies = {
        "deepcopy": copy.deepcopy(env),
        "pickle": pickle.loads(pickle.dumps(env)),
        "clone": env.clone(),
    }
    for how, cp in copies.items():
        assert np.shares_memory(cp._obs_row, cp._buf.obs), how
        assert np.shares_memory(cp._mask_row, cp._buf.masks), how
        for mine in (cp._buf.obs, cp._buf.masks, cp._buf.states):
            for theirs in (env._buf.obs, env._buf.masks, env._buf.states):
                assert not np.shares_memory(mine, theirs), how
        # the content tables stay read-only (the kernels are typed for them)
        assert not cp.core.TR.flags.writeable, how
        a = int(np.flatnonzero(cp.action_masks())[0])
        obs, *_, info = cp.step(a)
        assert_same(obs, cp._buf.obs[0])
        assert_same(info["action_mask"], cp._buf.masks[0])
    # the immutable rules and tables are shared by deep copies, stored by pickle
    assert copies["deepcopy"].core is env.core and copies["clone"].core is env.core
    assert copies["pickle"].core is not env.core
    # a clone (for search) shares the spaces too; a deep copy has its own
    assert copies["clone"].action_space is env.action_space
    assert copies["deepcopy"].action_space is not env.action_space


def test_pickled_env_plays_on_in_another_process(tmp_path):
    """A pickled env loaded in a fresh process (its kernels bound again by
    name, from the numba cache) plays the same decisions as the original."""
    env = gym.make(_spec_id("unbroken"))
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    driver = SingleDriver()
    play(driver, env, rng, 4)
    path = tmp_path / "env.pkl"
    path.write_bytes(pickle.dumps(env))
    actions, outs = play(driver, env, np.random.default_rng(5), RUN_STEPS)
    code = (
        "import pickle, sys, numpy as np\n"
        "import dungeonrl\n"
        "env = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "actions = pickle.loads(open(sys.argv[2], 'rb').read())\n"
        "outs = [env.reset() if a == 'reset' else env.step(a) for a in actions]\n"
        "open(sys.argv[3], 'wb').write(pickle.dumps(outs))\n"
    )
    (tmp_path / "actions.pkl").write_bytes(pickle.dumps(actions))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            str(path),
            str(tmp_path / "actions.pkl"),
            str(tmp_path / "outs.pkl"),
        ],
        check=True,
        cwd=root,
        timeout=600,
    )
    assert_same(pickle.loads((tmp_path / "outs.pkl").read_bytes()), outs)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_rllib_envs_copy(how):
    """The RLlib single and vector envs hold the game's hooks: they copy and
    pickle too, and the copy plays the same games. Hooks of a game without
    its own (``GENERIC``) pickle as well (their default ``describe`` was a
    lambda)."""
    from dungeonrl.agents.algos.rllib import RLlibSingleEnv, RLlibVectorEnv
    from dungeonrl.envs.core.hooks import GENERIC

    assert COPIERS[how](GENERIC) == GENERIC
    single = RLlibSingleEnv("unbroken", max_steps=8, character="random")
    vec = RLlibVectorEnv("unbroken", 2, max_steps=8, character="random")
    for env in (single, vec):
        env.reset(seed=2)
        cp = COPIERS[how](env)
        rng = np.random.default_rng(0)
        for _ in range(20):
            if env is single:
                mask = env.env.action_masks()
                if not mask.any():
                    assert_same(cp.reset(), env.reset())
                    continue
                action = _pick(rng, mask)
            else:
                action = np.array([_pick(rng, m) if m.any() else 0 for m in env.buf.masks])
            assert_same(cp.step(action), env.step(action))
