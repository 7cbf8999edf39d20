"""Dungeon Kart's state check refuses, up front, a draft-phase record whose
race fields are not the reset's (issue 47): a fuzzed snapshot in the draft
with ``final_round[0] = 1`` was accepted by ``set_state`` and reported
corrupt only after the draft ("the final round starts with the first
finish"). Every field the draft leaves alone is checked while the race has
not started, also in a game that ended during the draft; a move decision's
extra turns and drifts are checked against the powers used this round.
Random play of every configuration reaches no record these rules refuse
(``test_reached_draft_records_pass`` here, and
``test_hardening.py::test_reached_records_pass``)."""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.envs.core.errors import CorruptStateError
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart.validate import DRAFT_GLOBALS
from dungeonrl.registry import get_spec

SPEC = get_spec("dungeon_kart")


def _core(**kw):
    kw.setdefault("num_players", 3)
    return SPEC.make_core(**kw)


def _step(core, st, rng):
    masks = np.zeros((1, SPEC.num_actions), np.int8)
    core.legal_mask(st, masks)
    a = np.array([rng.choice(np.flatnonzero(masks[0]))], np.int64)
    flags = [np.zeros(1, np.bool_) for _ in range(3)]
    core.step(st, a, np.zeros((1, core.num_players), np.float32), *flags)


def _draft_records():
    """Records of both draft phases (after 0 and some picks), seeds 0-2."""
    core = _core()
    rng = np.random.default_rng(0)
    out = []
    for seed in range(3):
        st = core.alloc(1)
        core.reset(st, np.array([seed], np.uint64))
        while int(st[0]["phase"]) in (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH):
            out.append(st.copy())
            _step(core, st, rng)
    return core, out


def _set(rec, field, value, index=None):
    bad = rec.copy()
    if index is None:
        bad[0][field] = value
    else:
        arr = bad[0][field].copy()
        arr.reshape(-1)[index] = value
        bad[0][field] = arr
    return bad


def test_reached_draft_records_pass():
    core, recs = _draft_records()
    phases = {int(r[0]["phase"]) for r in recs}
    assert phases == {C.PH_DRAFT_RACER, C.PH_DRAFT_DASH}
    for r in recs:
        core.check_state(r[0])


def test_final_round_in_the_draft_is_refused_up_front():
    """The report's record: the draft, final_round set."""
    core, recs = _draft_records()
    for r in recs:
        bad = _set(r, "final_round", 1)
        core.refresh(bad)  # the mask stays the rules' own: only the field is wrong
        with pytest.raises(CorruptStateError, match="'final_round' = 1.*before the race starts"):
            core.check_state(bad[0])


@pytest.mark.parametrize("field,value", [(f, 1 if v == 0 else v + 1) for f, v in DRAFT_GLOBALS])
def test_every_race_field_is_the_resets_during_the_draft(field, value):
    core, recs = _draft_records()
    for r in recs[:: max(1, len(recs) // 4)]:
        bad = _set(r, field, value)
        core.refresh(bad)
        with pytest.raises(CorruptStateError, match=f"'{field}'"):
            core.check_state(bad[0])


@pytest.mark.parametrize("field", ["grass", "disc_n"])
def test_no_overgrowth_or_discard_during_the_draft(field):
    core, recs = _draft_records()
    r = recs[0]
    index = int(np.flatnonzero(np.asarray(r[0]["tok"]) == 0)[0]) if field == "grass" else 0
    bad = _set(r, field, 1, index)
    core.refresh(bad)
    with pytest.raises(CorruptStateError, match=f"'{field}'"):
        core.check_state(bad[0])


def test_a_game_that_ended_in_the_draft_is_checked_alike():
    """The step cap ends a game during the draft: that record passes, and
    the same record with final_round set does not."""
    core = _core(max_steps=1)
    rng = np.random.default_rng(1)
    st = core.alloc(1)
    core.reset(st, np.array([4], np.uint64))
    _step(core, st, rng)
    assert int(st[0]["phase"]) == C.PH_OVER and (st[0]["dash"][:3] < 0).any()
    core.check_state(st[0])
    bad = _set(st, "final_round", 1)
    with pytest.raises(CorruptStateError, match="'final_round'"):
        core.check_state(bad[0])


@pytest.mark.parametrize("field", ["extra_turns", "extra_drifts"])
def test_extras_no_power_granted_are_refused(field):
    """A move decision holding an extra turn or drift that no power used
    this round granted (found by the same fuzzing: it failed only when the
    next power pushed the count past its range)."""
    core = _core(num_players=4)
    rng = np.random.default_rng(2)
    st = core.alloc(1)
    core.reset(st, np.array([5], np.uint64))
    found = 0
    while not core.is_over(st[0]) and found < 5:
        s = st[0]
        if int(s["phase"]) == C.PH_MOVE and not s["pw_used"][int(s["cur"])].any():
            bad = _set(st, field, 1)
            core.refresh(bad)
            with pytest.raises(CorruptStateError, match=f"'{field}' = 1: more than the 0"):
                core.check_state(bad[0])
            found += 1
        _step(core, st, rng)
    assert found == 5
