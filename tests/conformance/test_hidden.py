"""Conformance suite: hidden information: resampling what a player cannot see
leaves its observation and mask unchanged (TESTING.md 6).

Shared set-up: ``tests/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import numpy as np
import pytest
from conformance_common import (
    GAMES,
    MASK_DTYPE,
    _figures,
    get_core,
    hooks,
    rbytes,
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
