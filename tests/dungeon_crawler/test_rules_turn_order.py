"""Dungeon Crawler: heroes take their turns one at a time in seat order
(DC-047), and a round is over when the last seat's turn ends.

Random legal play at 3 and 5 seats; every time the turn passes, it must
pass to the next seat (the last seat's turn hands over to seat 0 and
starts a new round), whatever happened during the turn (a fight, a death,
a shop). The rule ids each test checks are listed in the coverage table of
``envs/dungeon_crawler/README.md``.
"""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.envs.dungeon_crawler import consts as C
from dungeonrl.envs.dungeon_crawler import make_core


@pytest.mark.parametrize("n", [3, 5])
def test_turns_pass_to_the_next_seat_in_order(n):
    """DC-047: the next hero acts when a hero ends their turn, in seat
    order; after the last seat, seat 0 again and the round counter moves."""
    core = make_core(num_players=n, auto_advance=False)  # every decision, one step each
    st = core.alloc(1)
    core.reset(st, np.array([7], np.uint64))
    rew = np.zeros((1, n), np.float32)
    flags = [np.zeros(1, bool) for _ in range(3)]
    prng = np.random.default_rng(7)
    passes = []
    turn = rnd = None
    for _ in range(3000):
        s = st[0]
        if int(s["phase"]) == C.PH_OVER:
            break
        if int(s["turn"]) >= 0:
            if turn is not None and int(s["turn"]) != turn:
                passes.append((turn, int(s["turn"]), rnd, int(s["round"])))
            turn, rnd = int(s["turn"]), int(s["round"])
        a = int(prng.choice(np.flatnonzero(s["legal"])))
        core.step(st, np.array([a]), rew, *flags)
    assert len(passes) >= 2 * n, passes  # at least two full rounds
    assert passes[0][0] == 0  # seat 0 opens the game
    for before, after, r0, r1 in passes:
        assert after == (before + 1) % n, f"turn passed {before} -> {after}"
        assert r1 == r0 + (1 if after == 0 else 0), (before, after, r0, r1)
