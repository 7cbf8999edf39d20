"""Conformance suite: mask soundness: legal actions accepted, illegal ones
handled by the documented policy (TESTING.md 2).

Shared set-up: ``tests/helpers/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.conformance_common import (
    GAMES,
    MASK_DTYPE,
    Batch,
    _aec_config,
    _figures,
    aec_finish,
    checked,
    get_core,
    hooks,
    make_env,
    rbytes,
    sampled_states,
    spec_of,
)

from dungeonrl.envs.core.errors import IllegalActionError, InvalidActionError, ResetNeededError
from dungeonrl.envs.core.snapshot import Snapshot


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
        checked(
            h,
            core,
            b.states,
            np.ones(len(legal), bool),
            np.zeros(len(legal), bool),
            known,
            before=np.repeat(row, len(legal)),
        )
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
        snap = Snapshot(
            game=spec.name, layout_version=spec.layout_version, state=row.tobytes(), step_count=3
        )
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
                with pytest.raises(InvalidActionError):  # finished agents step None only
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
    _figures(
        f"mask soundness {name}",
        states=len(states),
        legal_actions_accepted=n_legal,
        illegal_strict_raised=n_illegal,
        illegal_penalized_env=n_env_penal,
        known_bug_hits=len(known),
    )
