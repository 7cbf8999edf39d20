"""Hypothesis fuzz of the inputs issue 25 found unchecked: Dungeon Kart's
custom board texts, the reset options of every game, ``gymnasium.make_vec``
arguments of every registered id, the constructor arguments of the
single-seat (self-play) views and of Carl's campaign wrapper. Each case is
either refused with a ``TypeError`` / ``ValueError`` naming the argument (a
``ContentError`` naming the board), or accepted and then plays cleanly.
Profiles: ``tests/helpers/fuzz_profiles.py`` (``HYPOTHESIS_PROFILE=long`` for more)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from helpers import fuzz_profiles  # noqa: F401  (Hypothesis profiles)
from hypothesis import given
from hypothesis import strategies as st

from dungeonrl.benchmarks.fuzz import HOOKS
from dungeonrl.benchmarks.fuzz import games as list_games
from dungeonrl.envs.core.errors import ContentError
from dungeonrl.envs.core.validate import MAX_NUM_ENVS
from dungeonrl.registry import get_spec

JUNK = st.one_of(
    st.integers(-(2**70), 2**70),
    st.booleans(),
    st.floats(),
    st.text(max_size=4),
    st.none(),
    st.integers(-3, 9).map(np.int64),
    st.just([1]),
    st.just({}),
    st.sampled_from(
        ["False", "True", "penalize", "raise", "ansi", "rotate", "heuristic", "random", "pick"]
    ),
)
SMALL_N = st.one_of(JUNK, st.integers(1, 3), st.integers(1, 3).map(np.int64))


def _int_ok(v, lo, hi):
    return (
        isinstance(v, (int, np.integer))
        and not isinstance(v, (bool, np.bool_))
        and lo <= int(v) <= hi
    )


def _play_core(core, seed, max_decisions=4000):
    """One full random game of ``core`` (1 row), every record checked."""
    s = core.alloc(1)
    core.reset(s, np.array([seed], np.uint64))
    A = core.spec.num_actions
    m = np.zeros((1, A), np.int8)
    rew = np.zeros((1, core.num_players), np.float32)
    te, tr, il = (np.zeros(1, bool) for _ in range(3))
    rng = np.random.default_rng(seed)
    for _ in range(max_decisions):
        core.legal_mask(s, m)
        legal = np.flatnonzero(m[0])
        assert len(legal), "a running game with no legal action"
        core.step(s, np.array([rng.choice(legal)], np.int64), rew, te, tr, il)
        core.check_state(s[0])
        if te[0] or tr[0]:
            return
    raise AssertionError("the game did not end")


# --- Kart boards ---------------------------------------------------------------------------
BOARDS = (
    "name: Fz\ndir: E\n1 2 . . m . . . .",
    "name: Fz\ndir: E\n1 . . g . . $ . .\n 2 . . w . S . .\n  3 . . . ! . . .",
    "dir: SE\n1 . .\n 2 . .\n  . . .\n   . . .",
)
BOARD_CHARS = ".dgmwLPX#$S!12345678 \nz:"


@given(data=st.data())
def test_fuzz_kart_board_text(data):
    from dungeonrl.envs.dungeon_kart.core import DungeonKartCore

    text = list(data.draw(st.sampled_from(BOARDS), label="base"))
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        how = data.draw(st.sampled_from(["set", "insert", "delete", "header"]), label="how")
        i = data.draw(st.integers(0, max(0, len(text) - 1)), label="at")
        if how == "header":
            line = data.draw(
                st.sampled_from(
                    [
                        "name: Beginner Track",
                        "dir: Q",
                        "dir: W",
                        "name: " + "x" * 300,
                        "name:",
                        "dir: NE",
                    ]
                )
            )
            text = list(line + "\n") + text
        elif how == "delete" and text:
            text.pop(i)
        else:
            ch = data.draw(st.sampled_from(BOARD_CHARS), label="char")
            if how == "set" and text:
                text[i] = ch
            else:
                text.insert(i, ch)
    board = "".join(text)
    if "\n" not in board:
        board += "\n"
    try:
        core = DungeonKartCore(num_players=2, track=board, draft="random", max_rounds=4)
    except ContentError as e:
        assert "board" in str(e) or "track" in str(e), str(e)
        return
    except ValueError as e:  # a board with fewer start hexes than players
        assert "start hexes" in str(e) or "num_players" in str(e), str(e)
        return
    _play_core(core, seed=data.draw(st.integers(0, 2**32), label="seed"))


# --- reset options ---------------------------------------------------------------------------
OPTIONS = st.one_of(
    st.none(),
    st.just({}),
    JUNK,
    st.dictionaries(
        st.sampled_from(["campaign", "floor", "bogus", "seed"]),
        st.one_of(JUNK, st.just({"xp": 3}), st.just({"xp": -1}), st.just({"bogus": 1})),
        max_size=2,
    ),
)
_ENVS = {}


def _gym(name):
    if name not in _ENVS:
        spec = get_spec(name)
        _ENVS[name] = gym.make(spec.env_id, **HOOKS[name].extra_args).unwrapped
    return _ENVS[name]


@pytest.mark.parametrize("name", list_games())
@given(options=OPTIONS)
def test_fuzz_reset_options(name, options):
    env = _gym(name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # unknown keys may only warn
            env.reset(seed=1, options=options)
    except (TypeError, ValueError) as e:
        assert "option" in str(e) or "campaign" in str(e), str(e)
        return
    for _ in range(10):
        mask = env.action_masks()
        if not mask.any():
            break
        *_, te, tr, _ = env.step(int(np.flatnonzero(mask)[0]))
        if te or tr:
            break


# --- make_vec of every registered id -----------------------------------------------------------
def _ids():
    from dungeonrl.envs.dcc_unstoppable.campaign import register_campaign

    register_campaign()
    return sorted(k for k in gym.registry if k.startswith("dungeonrl/"))


VEC_ARGS = (
    "num_players",
    "max_steps",
    "auto_advance",
    "dict_obs",
    "illegal_action",
    "render_mode",
    "seed",
    "seat",
)


@pytest.mark.parametrize("env_id", _ids())
@given(n=SMALL_N, key=st.sampled_from(VEC_ARGS + (None,)), v=JUNK)
def test_fuzz_make_vec(env_id, n, key, v):
    kw = {} if key is None else {key: v}
    if _int_ok(n, 5, MAX_NUM_ENVS):
        return  # valid, but no large batches in a test
    try:
        env = gym.make_vec(env_id, num_envs=n, **kw)
    except (TypeError, ValueError) as e:
        msg = str(e)
        named = (
            "num_envs" in msg
            or (key is not None and key in msg)
            or (key == "num_players" and "player" in msg)
            or "unexpected keyword" in msg
        )
        assert named, f"make_vec({env_id}, num_envs={n!r}, {kw}) refused without naming: {msg}"
        assert not _int_ok(n, 1, MAX_NUM_ENVS) or key is not None, msg
        return
    assert _int_ok(n, 1, MAX_NUM_ENVS), f"num_envs={n!r} accepted"
    assert env.num_envs == int(n)
    env.reset(seed=0)
    env.close()


# --- the single-seat views ----------------------------------------------------------------------
MULTI = [g for g in list_games() if get_spec(g).max_players > 1]
VIEW_ARGS = ("num_envs", "seats", "seed", "snapshot_slots", "snapshot_weight")
_CORES = {}


@pytest.mark.parametrize("name", MULTI)
@given(key=st.sampled_from(VIEW_ARGS), v=JUNK)
def test_fuzz_selfplay_view_arguments(name, key, v):
    from dungeonrl.agents.selfplay_env import opponent_pool
    from dungeonrl.envs.core.adapters.selfplay import SelfPlayView

    if name not in _CORES:
        core = get_spec(name).make_core(num_players=2)
        _CORES[name] = (core, *opponent_pool(core, "random"))
    core, pool, advance = _CORES[name]
    kw = {"num_envs": 2, "seats": "rotate", "seed": 0}
    kw[key] = v
    if key == "num_envs" and _int_ok(v, 65, MAX_NUM_ENVS):
        return  # valid, but no large batches in a test
    try:
        view = SelfPlayView(core, kw.pop("num_envs"), pool, advance=advance, **kw)
    except (TypeError, ValueError) as e:
        assert key.rstrip("s") in str(e) or "snapshot" in str(e), str(e)
        return
    view.reset(np.arange(view.n, dtype=np.uint64))
    for _ in range(5):
        view.actions[:] = [np.flatnonzero(m)[0] for m in view.masks]
        view.step_autoreset()


ENV_ARGS = (
    "seat",
    "dict_obs",
    "illegal_action",
    "render_mode",
    "num_players",
    "max_steps",
    "auto_advance",
    "opponents",
)


@pytest.mark.parametrize("name", MULTI)
@given(key=st.sampled_from(ENV_ARGS), v=JUNK, seed=st.one_of(st.none(), JUNK))
def test_fuzz_selfplay_env_arguments(name, key, v, seed):
    from dungeonrl.agents.selfplay_env import SelfPlayEnv

    if key == "opponents" and isinstance(v, str) and v not in ("heuristic", "random"):
        return  # a string names a model file: not fuzzed here
    kw = {"num_players": 2, key: v}
    try:
        env = SelfPlayEnv(name, **kw)
    except (TypeError, ValueError) as e:
        assert (
            key in str(e) or "opponent" in str(e) or (key == "num_players" and "player" in str(e))
        ), str(e)
        return
    try:
        env.reset(seed=seed)
    except (TypeError, ValueError) as e:
        assert "seed" in str(e), str(e)
        return
    mask = env.action_masks()
    env.step(int(np.flatnonzero(mask)[0]))


# --- Carl's campaign wrapper ------------------------------------------------------------------
CAMPAIGN_ARGS = (
    "difficulty",
    "crawler",
    "race",
    "klass",
    "buy",
    "max_attempts",
    "max_steps",
    "render_mode",
    "illegal_action",
    "dict_obs",
)


@given(key=st.sampled_from(CAMPAIGN_ARGS), v=JUNK, seed=st.one_of(st.none(), JUNK))
def test_fuzz_campaign_arguments(key, v, seed):
    from dungeonrl.envs.dcc_unstoppable.campaign import DCCCampaignEnv

    try:
        env = DCCCampaignEnv(**{key: v})
    except (TypeError, ValueError) as e:
        words = {"klass": "class", "max_attempts": "max_attempts"}.get(key, key)
        assert key in str(e) or words in str(e), str(e)
        return
    try:
        env.reset(seed=seed)
    except (TypeError, ValueError) as e:
        assert "seed" in str(e), str(e)
        return
    for _ in range(5):
        mask = env.action_masks()
        if not mask.any():
            break
        *_, te, tr, _ = env.step(int(np.flatnonzero(mask)[0]))
        if te or tr:
            break
