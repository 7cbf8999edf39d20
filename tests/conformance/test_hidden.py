"""Conformance suite: hidden information: resampling what a player cannot see
leaves its observation and mask unchanged (TESTING.md 6).

The resampler is the product's own: each game's declared sampler behind
``core.resample_from_infostate(state, seat, rng)``
(:mod:`dungeonrl.envs.core.infostate`, reached through the hooks'
``resample_hidden``). Besides the observation and mask, the suite checks
that every hidden part the game's hooks list (``hidden_parts``) is
redrawn, that samples pass the game's state check and the suite's
invariant checker, that a seed gives one sample, and that bad seats and
generators are refused.

Shared set-up: ``tests/helpers/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from helpers.conformance_common import (
    GAMES,
    MASK_DTYPE,
    _figures,
    get_core,
    hooks,
    rbytes,
    record_rows,
    sampled_states,
    spec_of,
)


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
    if seat is not None:  # the mask seat ``seat`` sees
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
            assert not len(diff), (
                "resampling hidden information changed observation "
                f"columns {[spec.feature_names[i] for i in diff[:8]]}"
            )
            mask1 = _recompute_mask(core, alt, seat)
            assert np.array_equal(mask0, mask1), (
                "resampling hidden information changed the mask: "
                f"{np.flatnonzero(mask0[0] != mask1[0]).tolist()}"
            )
            n["resamples"] += 1
        vis = h.change_visible(core, row, **kw)
        obs2 = np.zeros_like(obs0)
        core.observe(vis, players, obs2)
        assert not np.array_equal(obs0, obs2), "positive control: a visible change went unseen"

    for ci, row in sampled_states(name):
        core = get_core(name, h.configs[ci])
        seats = (
            list(range(core.num_players)) if spec.multi_agent or core.num_players > 1 else [None]
        )
        n["players"] = len(seats)
        for seat in seats:
            check_seat(core, row, seat)
        n["states"] += 1
    assert n["changed"] == n["resamples"], "resample_hidden returned an unchanged record"
    _figures(
        f"hidden information {name}",
        states=n["states"],
        players=n["players"],
        resamples=n["resamples"],
        observation_differences=0,
        mask_differences=0,
    )


# =====================================================================================
# 6b. the product's sampler (core.resample_from_infostate)
# =====================================================================================
@functools.cache
def _states(name):
    """The suite's sampled states of ``name`` (config index, row)."""
    return sampled_states(name)


def _some(name, k=24):
    """About ``k`` of them, spread over every configuration."""
    out = _states(name)
    return out[:: max(1, len(out) // k)]


def _seats(core, name):
    return list(range(core.num_players)) if core.num_players > 1 else [0]


@pytest.mark.parametrize("name", GAMES)
def test_each_hidden_part_varies(name):
    """Every field the game's hooks list as hidden (``hidden_parts``: deck
    orders, rivals' hands, unrevealed cards, the generator) is redrawn by
    the sampler in some sampled state, for some seat; samples never touch a
    record that is not the input's copy."""
    h = hooks(name)
    varied = dict.fromkeys(h.hidden_parts, 0)
    for ci, row in _states(name):
        core = get_core(name, h.configs[ci])
        keep = rbytes(row)
        for seat in _seats(core, name):
            alt = core.resample_from_infostate(np.repeat(row, 4), seat, np.random.default_rng(seat))
            for f in varied:
                varied[f] += int(any(not np.array_equal(a[f], row[0][f]) for a in alt))
        assert rbytes(row) == keep, "the sampler wrote its input"
    never = [f for f, k in varied.items() if not k]
    assert not never, f"{name}: hidden parts the sampler never redrew: {never}"
    _figures(f"hidden parts {name}", **varied)


@pytest.mark.parametrize("name", GAMES)
def test_samples_pass_the_state_check(name):
    """A sample is a record the rules can reach: the game's own state check
    (``core.check_state``: field, cross-field and stored-mask rules) and the
    suite's independent invariant checker both accept it, and it can be
    played on (one step of a legal action)."""
    h = hooks(name)
    n = 0
    for ci, row in _some(name):
        core = get_core(name, h.configs[ci])
        for seat in _seats(core, name):
            alt = core.resample_from_infostate(row, seat, 1000 + n)
            core.check_state(alt[0])
            h.check_invariants(core, alt)
            n += 1
            legal = np.flatnonzero(alt[0]["legal"])
            if len(legal):
                r = np.zeros((1, spec_of(name).max_players), np.float32)
                t, u, ill = np.zeros(1, bool), np.zeros(1, bool), np.zeros(1, bool)
                core.step(alt, np.array([legal[0]], np.int64), r, t, u, ill)
                assert not ill[0], "a legal action of a sample was refused"
                h.check_invariants(core, alt)
    assert n > 0


@pytest.mark.parametrize("name", GAMES)
def test_sampler_is_deterministic_under_a_seed(name):
    """The same int seed (or a Generator in the same state) gives the same
    sample; another seed gives another; row ``i`` of a batch draws from its
    own stream, so a batch of copies gives different samples and its first
    row is the one-row sample."""
    h = hooks(name)
    ci, row = _states(name)[-1]
    core = get_core(name, h.configs[ci])
    seat = core.num_players - 1
    a = core.resample_from_infostate(row, seat, 7)
    b = core.resample_from_infostate(row[0], seat, 7)  # a record (numpy.void) too
    assert a.shape == b.shape == (1,) and a.dtype == core.state_dtype
    assert a.tobytes() == b.tobytes(), "one seed gave two samples"
    assert rbytes(core.resample_from_infostate(row, seat, 8)) != rbytes(a)
    g1 = core.resample_from_infostate(row, seat, np.random.default_rng(3))
    g2 = core.resample_from_infostate(row, seat, np.random.default_rng(3))
    assert rbytes(g1) == rbytes(g2)
    gen = np.random.default_rng(3)
    core.resample_from_infostate(row, seat, gen)
    assert rbytes(core.resample_from_infostate(row, seat, gen)) != rbytes(g1), (
        "a Generator must advance: the next call's sample must differ"
    )
    many = core.resample_from_infostate(np.repeat(row, 3), seat, 7)
    assert many.shape == (3,)
    assert rbytes(many[:1]) == rbytes(a)
    rows = record_rows(many)
    assert len({r.tobytes() for r in rows}) == 3, "batch rows shared one stream"


@pytest.mark.parametrize("name", GAMES)
def test_sampler_refuses_bad_arguments(name):
    """A seat outside the game's seats (or not an integer), a generator that
    is neither a numpy Generator nor a seed in [0, 2**64), and a record of
    another dtype are refused with errors that say what was expected."""
    h = hooks(name)
    ci, row = _states(name)[0]
    core = get_core(name, h.configs[ci])
    n = core.num_players
    for seat in (n, -1, n + 7):
        with pytest.raises(ValueError, match=rf"seat {seat} is out of range.*0\.\.{n - 1}"):
            core.resample_from_infostate(row, seat, 0)
    for seat in (True, 0.0, "0", None):
        with pytest.raises(ValueError, match="seat must be an integer"):
            core.resample_from_infostate(row, seat, 0)
    for rng in (1.5, "7", None, np.random.RandomState(0)):
        with pytest.raises(TypeError, match="rng must be a numpy.random.Generator or an int"):
            core.resample_from_infostate(row, 0, rng)
    for rng in (-1, 2**64):
        with pytest.raises(ValueError, match=r"rng seed must be in \[0, 2\*\*64\)"):
            core.resample_from_infostate(row, 0, rng)
    with pytest.raises(TypeError, match="record dtype"):
        core.resample_from_infostate(np.zeros(1, [("x", np.int8)]), 0, 0)
    with pytest.raises(TypeError, match="one record or a 1-D array"):
        core.resample_from_infostate(np.repeat(row, 2).reshape(1, 2), 0, 0)


def test_a_game_without_a_sampler_says_where_to_declare_one():
    """A core whose game declares no sampler raises NotImplementedError
    naming the declaration (the fixture "Race to 10" declares none)."""
    from helpers import fixture_game

    core = fixture_game.RaceCore()
    st = core.alloc(1)
    core.reset(st, np.zeros(1, np.uint64))
    with pytest.raises(NotImplementedError, match=r"declares no information-state sampler"):
        core.resample_from_infostate(st, 0, 0)
