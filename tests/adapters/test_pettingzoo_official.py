"""PettingZoo's own test suite on every multi-seat game, as shipped.

Every check here calls PettingZoo's (and SuperSuit's) functions on the
*default* constructors of the game modules (``env()``, ``raw_env()``,
``parallel_env()`` with nothing but the seat count), with no option that
only exists to make a checker pass: at 2 seats and at the game's largest
seat count. ``api_test`` probes ``reset`` with a made-up option key; the
envs ignore it with one warning, the ecosystem's convention, and refuse it
only in the opt-in strict mode (``unknown_reset_options="raise"``).

``max_cycles_test`` does not apply (it needs a ``max_cycles`` argument and a
parallel form whose every step is a cycle in which each agent acts once;
here a step is one decision): the last test pins the clear error instead.
"""

from __future__ import annotations

import importlib
import inspect
import warnings

import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)
from pettingzoo.utils import conversions, wrappers

from dungeonrl import registry
from dungeonrl.envs import catalog, dcc_unstoppable_v1

#: every declared game's PettingZoo module (``GAME.pettingzoo``), in the suite's order
MODULES = [
    importlib.import_module(catalog.pettingzoo_module(g))
    for g in catalog.GAMES
    if catalog.pettingzoo_module(g)
]
CYCLES = 40  # PettingZoo's checks loop on their own; a few dozen cycles each


def _spec(mod):
    return registry.get_spec(mod.ENV_ID)


def _default_players(mod) -> int:
    return inspect.signature(mod.env).parameters["num_players"].default


# 2 seats and the largest seat count of every game (8 for Dungeon Crawler
# and Dungeon Kart, 2 for Carl's co-op)
CASES = [(mod, n) for mod in MODULES for n in sorted({2, _spec(mod).max_players})]
IDS = [f"{mod.__name__.rsplit('.', 1)[-1]}-{n}p" for mod, n in CASES]


def _kw(mod, n) -> dict:
    """Constructor arguments: nothing at the module's default seat count."""
    return {} if n == _default_players(mod) else {"num_players": n}


def _ours(rec) -> list:
    """Our adapters' unknown-reset-option warnings among ``rec``."""
    return [w for w in rec if "unknown reset option" in str(w.message)]


def test_cases_cover_two_seats_and_the_largest_count():
    assert [(m.__name__.rsplit(".", 1)[-1], n) for m, n in CASES] == [
        ("dungeon_crawler_v0", 2),
        ("dungeon_crawler_v0", 8),
        ("dungeon_kart_v1", 2),
        ("dungeon_kart_v1", 8),
        ("dcc_unstoppable_v1", 2),
    ]
    assert _kw(dcc_unstoppable_v1, 2) == {}  # Carl's co-op: the bare env()


# --- PettingZoo's test functions ------------------------------------------------------------
@pytest.mark.parametrize("mod,n", CASES, ids=IDS)
def test_api_test(mod, n):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        api_test(mod.env(**_kw(mod, n)), num_cycles=CYCLES)
    # the made-up key of api_test's reset: ignored, with exactly one warning
    ours = _ours(rec)
    assert len(ours) == 1 and "'options'" in str(ours[0].message)


@pytest.mark.parametrize("mod,n", CASES, ids=IDS)
def test_parallel_api_test(mod, n):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        parallel_api_test(mod.parallel_env(**_kw(mod, n)), num_cycles=CYCLES)
    assert len(_ours(rec)) == 1


@pytest.mark.parametrize("mod,n", CASES, ids=IDS)
def test_seed_tests(mod, n):
    kw = _kw(mod, n)
    seed_test(lambda: mod.env(**kw), num_cycles=CYCLES)
    parallel_seed_test(lambda: mod.parallel_env(**kw), num_cycles=CYCLES)


@pytest.mark.parametrize("mod,n", CASES, ids=IDS)
def test_render_test_and_state_test(mod, n, capsys):
    kw = _kw(mod, n)
    env = mod.env(**kw)
    assert set(_spec(mod).render_modes) <= set(env.metadata["render_modes"])
    assert "human" in env.metadata["render_modes"]
    render_test(lambda render_mode=None: mod.env(render_mode=render_mode, **kw))
    assert capsys.readouterr().out  # "human" printed the text view
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")  # unbounded columns
        state_test(mod.env(**kw), mod.parallel_env(**kw), num_cycles=10)


# --- the wrappers people put on top ---------------------------------------------------------
@pytest.mark.parametrize("mod,n", CASES, ids=IDS)
def test_pettingzoo_wrappers_and_conversions(mod, n, capsys):
    kw = _kw(mod, n)
    # PettingZoo's classic stack around the raw env, and the base wrappers
    api_test(
        wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(mod.raw_env(**kw))),
        num_cycles=CYCLES,
    )
    api_test(
        wrappers.TerminateIllegalWrapper(mod.raw_env(**kw), illegal_reward=-1), num_cycles=CYCLES
    )
    api_test(wrappers.BaseWrapper(mod.env(**kw)), num_cycles=CYCLES)
    parallel_api_test(wrappers.BaseParallelWrapper(mod.parallel_env(**kw)), num_cycles=CYCLES)
    # conversions: parallel -> AEC, and the turn-based AEC -> parallel
    api_test(conversions.parallel_to_aec(mod.parallel_env(**kw)), num_cycles=CYCLES)
    parallel_api_test(conversions.turn_based_aec_to_parallel(mod.env(**kw)), num_cycles=CYCLES)
    # aec_to_parallel needs an env that updates once per cycle of all agents;
    # a turn-based game says it is not (is_parallelizable False) and is refused
    assert mod.env(**kw).metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        conversions.aec_to_parallel(mod.env(**kw))
    # CaptureStdoutWrapper turns the "human" printout into an "ansi" string
    capsys.readouterr()  # (the checks above print their progress)
    cap = wrappers.CaptureStdoutWrapper(mod.raw_env(render_mode="human", **kw))
    cap.reset(seed=0)
    text = cap.render()
    ansi = mod.raw_env(render_mode="ansi", **kw)
    ansi.reset(seed=0)
    assert text.strip() and text == ansi.render() + "\n"
    assert capsys.readouterr().out == ""  # captured, not printed


@pytest.mark.parametrize("mod,n", CASES, ids=IDS)
def test_supersuit_vector_env_and_observation_wrapper(mod, n):
    ss = pytest.importorskip("supersuit")
    kw = _kw(mod, n)
    # every seat as a row of a Gymnasium-style vector env, two games concatenated
    vec = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(mod.parallel_env(**kw)),
        2,
        num_cpus=0,
        base_class="gymnasium",
    )
    assert vec.num_envs == 2 * n
    obs, infos = vec.reset(seed=0)
    assert obs["observation"].shape == (2 * n, _spec(mod).obs_size)
    assert (obs["action_mask"].sum(axis=1) > 0).sum() == 2  # one seat to act per game
    rng = np.random.default_rng(0)
    for _ in range(30):
        acts = np.array(
            [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]]
        )
        obs, rew, term, trunc, infos = vec.step(acts)
        assert rew.shape == (2 * n,) and np.isfinite(rew).all()
        assert (obs["action_mask"].sum(axis=1) > 0).sum() == 2
    vec.close()
    # a simple observation wrapper: the flat observation, the mask dropped
    flat = ss.observation_lambda_v0(
        mod.parallel_env(**kw),
        lambda o, space, agent=None: o["observation"],
        lambda space, agent=None: space["observation"],
    )
    parallel_api_test(flat, num_cycles=CYCLES)
    flat_obs, _ = flat.reset(seed=3)
    ref, _ = mod.parallel_env(**kw).reset(seed=3)
    for agent, o in flat_obs.items():
        np.testing.assert_array_equal(o, ref[agent]["observation"])


# --- unknown reset options: ignored with one warning, or strict ------------------------------
@pytest.mark.parametrize("mod", MODULES, ids=[m.__name__.rsplit(".", 1)[-1] for m in MODULES])
def test_unknown_reset_option_warns_once_and_is_ignored(mod):
    for make, obs_of in (
        (mod.env, lambda e: e.observe(e.agent_selection)),
        (mod.parallel_env, None),
    ):
        env, ref = make(), make()
        assert env.unknown_reset_options == "warn"
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            for _ in range(3):
                out = env.reset(seed=5, options={"bogus": 1})
        ours = _ours(rec)
        assert len(ours) == 1 and issubclass(ours[0].category, UserWarning)
        assert "'bogus'" in str(ours[0].message)
        # ignored: the same game as a reset without options
        base = ref.reset(seed=5)
        if obs_of is not None:
            out, base = obs_of(env), obs_of(ref)
            np.testing.assert_array_equal(out["observation"], base["observation"])
        else:
            for agent in env.agents:
                np.testing.assert_array_equal(
                    out[0][agent]["observation"], base[0][agent]["observation"]
                )


@pytest.mark.parametrize("mod", MODULES, ids=[m.__name__.rsplit(".", 1)[-1] for m in MODULES])
def test_strict_mode_names_the_key_and_the_accepted_ones(mod):
    accepted = sorted(_spec(mod).reset_options)
    expected = str(accepted) if accepted else "none"
    for make in (mod.env, mod.raw_env, mod.parallel_env):
        env = make(unknown_reset_options="raise")
        env.reset(seed=1)
        before = env.state().copy()
        with pytest.raises(ValueError) as e:
            env.reset(seed=2, options={"bogus": 1})
        msg = str(e.value)
        assert "unknown reset option 'bogus'" in msg and f"accepted: {expected}" in msg
        np.testing.assert_array_equal(env.state(), before)  # refused before any change
    with pytest.raises(ValueError, match="unknown_reset_options must be one of"):
        mod.env(unknown_reset_options="ignore")


def test_known_option_with_a_bad_value_is_still_an_error():
    # Carl's co-op declares one reset option; a bad value is refused in both modes
    for mode in ("warn", "raise"):
        env = dcc_unstoppable_v1.env(unknown_reset_options=mode)
        with pytest.raises(ValueError, match="dict"):
            env.reset(seed=0, options={"campaign": 3})
        env.reset(seed=0, options={"campaign": {"xp": 4}})
        assert int(env.unwrapped._states[0]["camp_xp"]) == 4  # a good value applies


# --- max_cycles_test ------------------------------------------------------------------------
@pytest.mark.parametrize("mod", MODULES, ids=[m.__name__.rsplit(".", 1)[-1] for m in MODULES])
def test_max_cycles_test_does_not_apply(mod):
    # PettingZoo's max_cycles counts cycles in which every agent acts once
    # and wants one parallel step per cycle; one step here is one decision of
    # the seat to act, so the games take no max_cycles (their caps count
    # decisions: max_steps) and the test stops at the constructor
    with pytest.raises(TypeError, match="max_cycles"):
        max_cycles_test(mod)
