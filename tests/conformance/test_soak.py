"""Conformance suite: random-play soak with the independent invariant checker
(TESTING.md 1), the checker's own teeth, every suite game has hooks, and the
regressions the soak found.

Shared set-up: ``tests/helpers/conformance_common.py`` (its docstring describes the
whole suite).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import game_hooks
from helpers.conformance_common import (
    GAMES,
    Batch,
    _figures,
    get_core,
    hooks,
    play_random,
    random_legal,
    sampled_states,
)


def test_every_suite_game_has_hooks():
    assert GAMES, "no game registered"
    for g in GAMES:
        h = game_hooks.get_hooks(g)  # raises naming the missing game
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
        b, st, _ = play_random(
            name, cfg, h.soak_games, seed=1 + ci + 50 * (start == "jump"), jump=start == "jump"
        )
        games += st["games"]
        decisions += st["decisions"]
        tainted += st["tainted"]
        known += st["known"]
        for i in range(0, b.n, 7):  # the core's own validator accepts real states
            if not st["tainted_rows"][i]:
                b.core.check_state(b.states[i])
        for i in range(b.n):
            o = b.core.episode_info(b.states[i]).get("outcome", "?")
            outcomes[o] = outcomes.get(o, 0) + 1
    _figures(
        f"soak {name} ({start} starts)",
        configs=len(h.configs),
        games=games,
        decisions=decisions,
        invariant_violations=0,
        known_bug_games=tainted,
        outcomes=outcomes,
    )
    assert games >= 1000
    if known:
        pytest.xfail(
            f"{tainted} of {games} games hit known bug(s): "
            + "; ".join(sorted({k for k in h.known_bugs if any(k in m for m in known)}))
        )


# =====================================================================================
# 6. hidden information
# =====================================================================================
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
    row = b.states[rows[0] : rows[0] + 1].copy()
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
    h.check_invariants(core, row)  # a legal position: Bare Hands equipped, one sheet aside
    assert not row[0]["legal"][C.A_CRAFT0 + j], "the set-aside sheet can be crafted again"
    one = Batch(core, 1)
    one.states[:] = row
    for a in np.flatnonzero(row[0]["legal"]):  # no legal action duplicates a sheet
        one.states[:] = row
        one.step([a])
        h.check_invariants(core, one.states)
