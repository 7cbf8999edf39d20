"""Conformance hooks of the team fixture "Relay" (``tests/helpers/fixture_team.py``).

The fixture is registered for the suite by ``test_conformance.FIXTURE_GAMES``
(never by ``dungeonrl.registry.GAMES``). Invariants are written from the
fixture's rules (its module doc), not by calling its kernels.
"""

from __future__ import annotations

import numpy as np
from helpers.game_hooks import GameHooks, Violations, as_batch, as_row


def _F():
    from helpers import fixture_team

    return fixture_team


class RelayHooks(GameHooks):
    name = "relay"
    # (max_steps given: the AEC snapshot test picks its depth below it)
    configs = [{"max_steps": 16}, {"max_steps": 16, "auto_advance": False}]
    soak_games = 1000
    sample_every = 2
    default_config = {}
    truncate_config = {"max_steps": 5}
    short_config = {}
    chance_fields = ("rng",)
    known_bugs = {}

    def check_invariants(self, core, state) -> None:
        F = _F()
        S = as_batch(state)
        v = Violations("Relay")
        i64 = lambda f: S[f].astype(np.int64)  # noqa: E731
        pos, moves, init, bonus = i64("pos"), i64("moves"), i64("init"), i64("bonus")
        out, actor, steps = i64("outcome"), i64("actor"), i64("steps")
        playing = out == 0
        v.need(S["num_players"] == F.SEATS, "not four seats", S["num_players"])
        v.need(((pos >= 0) & (pos <= F.GOAL)).all(axis=1), "runner off the track", pos)
        v.need(((moves >= 0) & (moves <= F.MOVES)).all(axis=1), "moves outside 0..MOVES", moves)
        v.need(((init >= 1) & (init <= 6)).all(axis=1), "initiative not a d6", init)
        v.need(((bonus >= 0) & (bonus <= F.MAX_HANDICAP)).all(axis=1), "bonus out of range", bonus)
        v.need(bonus[:, 0] == 0, "team 0 has a bonus (only team 1 may be handicapped)", bonus)
        v.need(
            (pos <= 3 * moves).all(axis=1),
            "a runner is further than 3 squares per move",
            np.concatenate([pos, moves], 1),
        )
        v.need(
            (pos >= np.minimum(moves, F.GOAL)).all(axis=1),
            "a runner moved less than 1 square per move",
            np.concatenate([pos, moves], 1),
        )
        v.need((out >= 0) & (out < len(F.OUTCOME_NAMES)), "outcome out of range", out)
        v.need((steps >= 0) & (steps <= S["max_steps"]), "steps outside [0, max_steps]", steps)
        # every decision is a move, but the illegal one that ended the game
        v.need(
            steps == moves.sum(axis=1) + (out == 2),
            "steps differ from the moves made",
            np.stack([steps, moves.sum(axis=1)], 1),
        )
        # who moves: furthest behind among seats with moves left, then fewer
        # moves, then higher initiative, then lower seat
        left = moves < F.MOVES
        key = np.where(left, pos * 10_000 + moves * 100 + (6 - init) * 10 + np.arange(4), 10**9)
        want = np.where(left.any(axis=1), key.argmin(axis=1), -1)
        v.need(
            ~playing | (actor == want),
            "the seat to act is not the one the rules pick",
            np.stack([actor, want], 1),
        )
        v.need(playing | (actor == -1), "a finished game has a seat to act", actor)
        # the end: every move made, team scores decide
        all_moved = (moves == F.MOVES).all(axis=1)
        s0 = pos[:, 0] + pos[:, 2] + bonus[:, 0]
        s1 = pos[:, 1] + pos[:, 3] + bonus[:, 1]
        ruled = (out == F.O_TEAM0) | (out == F.O_TEAM1) | (out == F.O_TIE)
        v.need(~ruled | all_moved, "a result before every seat moved", moves)
        v.need(~all_moved | ~playing, "every seat moved but the game goes on", moves)
        v.need(
            (out != F.O_TEAM0) | (s0 > s1),
            "team 0 won without the higher score",
            np.stack([s0, s1], 1),
        )
        v.need(
            (out != F.O_TEAM1) | (s1 > s0),
            "team 1 won without the higher score",
            np.stack([s0, s1], 1),
        )
        v.need((out != F.O_TIE) | (s0 == s1), "a tie with different scores", np.stack([s0, s1], 1))
        legal = S["legal"].astype(np.int64)
        v.need(legal.any(axis=1) == playing, "stored mask all-zero iff game over is broken", legal)
        a = np.clip(actor, 0, 3)
        rows = np.arange(len(S))
        behind = pos[rows, (a + 2) % 4] > pos[rows, a]
        v.need(
            ~playing | ((legal[:, 0] == 1) & (legal[:, 1] == 1)), "roll or step not legal", legal
        )
        v.need(~playing | (legal[:, 2] == behind), "draft legal iff the teammate is ahead", legal)
        v.raise_if_any(S)

    def check_transition(self, core, before, after) -> None:
        B, A = as_batch(before), as_batch(after)
        live = B["outcome"] == 0
        B, A = B[live], A[live]
        v = Violations("Relay transition")
        for f in ("seed", "episode", "init", "bonus", "max_steps", "auto_advance"):
            same = A[f] == B[f]
            v.need(same.all(axis=1) if same.ndim > 1 else same, f"{f} changed")
        v.need(
            A["steps"].astype(np.int64) == B["steps"].astype(np.int64) + 1,
            "the decision counter did not go up by one",
        )
        v.need(A["last_actor"] == B["actor"], "last_actor is not the seat that decided")
        dpos = A["pos"].astype(np.int64) - B["pos"]
        dmov = A["moves"].astype(np.int64) - B["moves"]
        rows = np.arange(len(B))
        a = B["actor"].astype(np.int64)
        ill = A["outcome"] == 2
        moved = np.zeros_like(dmov, bool)
        moved[rows, a] = True
        v.need(ill | (dmov[rows, a] == 1), "the actor's move count did not go up by one")
        v.need(
            ((dmov == 0) | moved).all(axis=1) & ((dpos == 0) | moved).all(axis=1),
            "a seat that did not act moved",
        )
        v.need((dpos >= 0).all(axis=1) & (dpos <= 3).all(axis=1), "a runner moved back or > 3")
        v.need(
            (A["rng"][:, 0] == B["rng"][:, 0]) & (A["rng"][:, 1] >= B["rng"][:, 1]),
            "generator key changed or its counter went back",
        )
        v.raise_if_any(B)

    # everything but the generator is public (resample_hidden: the fixture's
    # declared sampler, tests/helpers/fixture_team_infostate.py, through
    # GameHooks.resample_hidden)
    def change_visible(self, core, state, player=0):
        out = as_row(state)
        s = out[0]
        rival = (int(player) + 1) % 4
        s["init"][rival] = 1 + int(s["init"][rival]) % 6
        return out

    def corruptions(self, core, state) -> list:
        F = _F()
        out = []

        def edit(label, fn):
            r = as_row(state)
            fn(r[0])
            out.append((label, r))

        edit("runner beyond the goal", lambda s: s["pos"].__setitem__(1, F.GOAL + 1))
        edit("negative moves", lambda s: s["moves"].__setitem__(2, -1))
        edit("initiative 0", lambda s: s["init"].__setitem__(0, 0))
        edit("outcome out of range", lambda s: s.__setitem__("outcome", 40))
        edit("bonus out of range", lambda s: s["bonus"].__setitem__(1, 9))
        edit(
            "stored mask does not match",
            lambda s: s["legal"].__setitem__(slice(None), 1 - np.asarray(s["legal"])),
        )
        return out

    def batch_kernels(self) -> list:
        from dungeonrl.envs.core.kernel.freshness import load_kernels

        k = load_kernels("helpers.fixture_team:KERNEL_FACTS")

        return [k.reset_batch, k.mask_batch, k.observe_batch, k.step_autoreset, k.refresh_batch]

    def prepare_interpreted(self, core, wrap) -> None:
        core.TR = wrap(core.TR)


HOOKS = RelayHooks()
