"""Conformance hooks of Dungeon Kart (2-8 player hex kart race, PettingZoo
AEC): found by ``tests/helpers/game_hooks.py`` (see its module doc for each hook).

The invariant checker is written from the rules (``envs/dungeon_kart/
README.md``, the state's documented fields in ``state.py``) over the content
tables ``core.T``; it never calls a kernel. It is vectorised over a batch of
records and robust to corrupted records (indices are clipped before table
lookups, so a broken record raises ``AssertionError``, never ``IndexError``).

Hidden information, from one seat's point of view (``player=``): the spell
cards other seats hold (the card, not whether they hold one: swapped with
cards of the same deck's draw pile), the draw piles' order, the hazard bag's
order, the generator and the stream seed.

Soak size: random play is slow to end a race (karts wander and Crash), so
the configurations cap a game at ``max_rounds`` rounds (truncation); 2, 3, 5
and 8 seats, 250 games each (1,000 in all, the suite's minimum per game).
"""

from __future__ import annotations

import numpy as np
from helpers.game_hooks import GameHooks, Violations, as_batch, as_row

#: message of the stacked-karts invariant (checked with zero tolerance)
STACKED = "two karts stopped on one hex"


def _C():
    from dungeonrl.envs.dungeon_kart import consts

    return consts


def _NCELL():
    from dungeonrl.envs.dungeon_kart.hexgeo import NCELL

    return NCELL


#: drivable terrains (a kart may stop there): pips > 0
def _drivable(C):
    return np.array([p > 0 for p in C.TERRAIN_PIPS], bool)


class DungeonKartHooks(GameHooks):
    name = "dungeon_kart"
    # 2, 3, 5 and 8 seats; round caps keep random races short (truncation);
    # the 3-seat games draft randomly, the 5-seat ones take single-legal
    # decisions themselves (auto_advance=False)
    configs = [
        {"num_players": 2, "max_rounds": 8},
        {"num_players": 3, "max_rounds": 6, "draft": "random"},
        {"num_players": 5, "max_rounds": 4, "auto_advance": False},
        {"num_players": 8, "max_rounds": 3},
    ]
    default_config = {"num_players": 4}
    truncate_config = {"num_players": 3, "max_steps": 5}  # inside the draft
    short_config = {"max_rounds": 3}
    chance_fields = ("rng",)
    hidden_parts = ("spell", "deck", "bag", "rng", "seed")
    soak_games = 250
    #: (the stacked-karts bug once listed here, DK-078, is fixed: the mask's
    #: look-ahead ``rules.can_clear`` and the DK-A47 fix for forced results)
    known_bugs = {}
    sample_every = 7

    # -- invariants ------------------------------------------------------------------------
    def check_invariants(self, core, state) -> None:
        from dungeonrl.envs.core.kernel.header import O_ILLEGAL, O_PLAYING, O_TRUNCATED

        C = _C()
        NCELL = _NCELL()
        S = as_batch(state)
        T = core.T
        N = len(S)
        P = C.MAX_P
        rows = np.arange(N)
        v = Violations("Dungeon Kart")
        i64 = lambda f: S[f].astype(np.int64)  # noqa: E731

        n = i64("num_players")
        v.need((n >= C.MIN_P) & (n <= C.MAX_P), "num_players outside 2..8", n)
        nc = np.clip(n, C.MIN_P, C.MAX_P)
        seat = np.arange(P)[None, :] < nc[:, None]  # (N, P) seats in play
        phase, outcome = i64("phase"), i64("outcome")
        v.need((phase >= 0) & (phase < len(C.PHASE_NAMES)), "phase out of range", phase)
        over = phase == C.PH_OVER
        v.need(
            np.isin(outcome, (O_PLAYING, O_TRUNCATED, O_ILLEGAL, C.O_RACE_OVER)),
            "outcome out of range",
            outcome,
        )
        v.need(
            over == (outcome != O_PLAYING),
            "phase and outcome disagree on the race being over",
            np.stack([phase, outcome], 1),
        )
        live = outcome == O_PLAYING
        actor = i64("actor")
        v.need(~live | ((actor >= 0) & (actor < nc)), "acting seat outside the table", actor)
        v.need(live | (actor == -1), "a seat to act after the race ended", actor)
        steps, cap = i64("steps"), i64("max_steps")
        v.need((steps >= 0) & (steps <= cap), "steps outside [0, max_steps]", steps)
        v.need(cap <= core.spec.max_episode_steps, "max_steps above the spec's cap", cap)
        tk = i64("track")
        v.need((tk >= 0) & (tk < int(T.n_tracks)), "track out of range", tk)
        tkc = np.clip(tk, 0, int(T.n_tracks) - 1)
        rnd, mr = i64("round"), i64("max_rounds")
        v.need((rnd >= 0) & (rnd <= mr), "round outside [0, max_rounds]", np.stack([rnd, mr], 1))
        v.need((outcome != C.O_RACE_OVER) | (S["final_round"] == 1), "race over without a finisher")
        first = i64("first")
        v.need((first >= 0) & (first < nc), "first player outside the table", first)

        # stored legal mask: 0/1, all zero iff the race is over
        legal = S["legal"]
        v.need(((legal == 0) | (legal == 1)).all(axis=1), "legal mask holds values other than 0/1")
        v.need(
            legal.any(axis=1) == live,
            "stored legal mask all-zero iff race over is broken",
            legal.sum(axis=1),
        )

        drafting = np.isin(phase, (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH))
        placed = (((S["racer"] >= 0) & (S["dash"] >= 0)) | ~seat).all(axis=1)
        raced = ~drafting & (~over | placed)  # karts on the board
        # flags
        for f in ("marker", "crashed", "frozen", "finished"):
            a = i64(f)
            v.need(((a == 0) | (a == 1)).all(axis=1), f"flag {f} not 0/1", a)
            v.need(((a == 0) | seat).all(axis=1), f"flag {f} set for an empty seat", a)
        pw = i64("pw_used")
        v.need(((pw == 0) | (pw == 1)).all(axis=(1, 2)), "power-used flag not 0/1", pw)
        for f in (
            "turn_used",
            "drift_used",
            "brake_used",
            "final_round",
            "move_over",
            "ended_ok",
            "acted",
            "no_cast",
        ):
            v.need((S[f] == 0) | (S[f] == 1), f"flag {f} not 0/1", S[f])

        # racers and dashboards: distinct ids of the content, one per seat
        for f, cnt in (("racer", C.NRACER), ("dash", C.NDASH)):
            a = i64(f)
            ok = ((a >= 0) & (a < cnt)) | (a == -1)
            v.need(ok.all(axis=1), f"{f} id out of range", a)
            v.need(((a == -1) | seat).all(axis=1), f"{f} given to an empty seat", a)
            srt = np.sort(np.where((a >= 0) & seat, a, -10 - np.arange(P)[None, :]), axis=1)
            v.need((np.diff(srt, axis=1) != 0).all(axis=1), f"two seats hold one {f}", a)
            v.need(~raced | ((a >= 0) | ~seat).all(axis=1), f"a racing seat without a {f}", a)

        # karts: on the board on a drivable hex, or off it once finished
        pos, fin = i64("pos"), S["finished"].astype(bool)
        rc = raced[:, None] & seat
        onb = rc & ~fin
        v.need(
            ((pos == -1) | ~(fin | ~rc)).all(axis=1), "a finished / unplaced kart on the board", pos
        )
        v.need((~onb | ((pos >= 0) & (pos < NCELL))).all(axis=1), "a kart off the board", pos)
        pc = np.clip(pos, 0, NCELL - 1)
        terr = np.asarray(T.tr_terr, np.int64)[tkc[:, None], pc]
        drv = _drivable(C)[terr]
        v.need((~onb | drv).all(axis=1), "a kart on a hex that cannot be driven on", terr)
        v.need(
            (~onb | (np.asarray(T.tr_tile, np.int64)[tkc[:, None], pc] >= 0)).all(axis=1),
            "a kart on a hex of no route tile",
            pos,
        )
        # no two karts stopped on one hex: only the kart moving on its own
        # turn may pass over another one (it cannot end its movement there)
        cur = i64("cur")
        # (a race the engine stopped, by an illegal action or the decision
        # cap, may stop the mover mid-turn)
        moving = (phase == C.PH_MOVE) | np.isin(outcome, (O_TRUNCATED, O_ILLEGAL))
        mover = np.zeros((N, P), bool)
        mover[rows, np.clip(cur, 0, P - 1)] = moving
        # (forced results included: Boost travel halts in front of a kart and
        # a return to an occupied hex stays in the hazard's hex, DK-A47 fix)
        stopped = onb & ~mover
        key = np.where(stopped, pos, -100 - np.arange(P)[None, :])
        srt = np.sort(key, axis=1)
        v.need((np.diff(srt, axis=1) != 0).all(axis=1), STACKED, pos)
        fac, spd = i64("facing"), i64("speed")
        v.need((~rc | ((fac >= 0) & (fac < 6))).all(axis=1), "facing outside 0..5", fac)
        v.need(
            (~rc | ((spd >= 1) & (spd <= C.NSET))).all(axis=1), "speed setting outside 1..6", spd
        )
        prev = i64("prev")
        v.need(
            (~onb | ((prev >= 0) & (prev < NCELL))).all(axis=1), "previous hex off the board", prev
        )
        coins = i64("coins")
        v.need((coins >= 0).all(axis=1), "negative coins", coins)
        v.need(((coins == 0) | seat).all(axis=1), "coins on an empty seat", coins)
        vis = S["visited"].astype(np.int64)
        full = (np.int64(1) << np.asarray(T.tr_ntiles, np.int64)[tkc]) - 1
        v.need(((vis & ~full[:, None]) == 0).all(axis=1), "visited a tile beyond the route", vis)
        v.need((~rc | ((vis & 1) == 1)).all(axis=1), "a racing kart never was on tile 1", vis)
        v.need(
            (~(fin & rc) | (vis == full[:, None])).all(axis=1),
            "finished without travelling every tile",
            vis,
        )

        # finishing order: finishers numbered 1..finish_seq, once each
        fno, seq = i64("finish_no"), i64("finish_seq")
        v.need((seq >= 0) & (seq <= nc), "finish_seq out of range", seq)
        v.need((fin.sum(axis=1) == seq), "finish_seq differs from the finishers", seq)
        v.need(((fno > 0) == fin).all(axis=1), "finish_no set iff finished", fno)
        expect = np.arange(1, P + 1)[None, :] <= seq[:, None]
        got = np.zeros((N, P + 1), bool)
        got[rows[:, None].repeat(P, 1)[fin], np.clip(fno, 0, P)[fin]] = True
        v.need((got[:, 1:] == expect).all(axis=1), "finishing numbers not 1..finish_seq", fno)
        v.need((S["final_round"] == 1) == (seq > 0), "final round iff someone finished", seq)
        v.need((i64("finish_mp") >= 0).all(axis=1), "negative MP at the finish", i64("finish_mp"))

        # placement: spots 1..n, ties share a spot and leave the next spots empty
        place = i64("place")
        v.need(
            (~rc | ((place >= 1) & (place <= nc[:, None]))).all(axis=1),
            "placement outside 1..n",
            place,
        )
        better = (place[:, None, :] < place[:, :, None]) & rc[:, None, :]
        v.need(
            (~rc | (place == better.sum(axis=2) + 1)).all(axis=1),
            "placement not 1 + the racers placed ahead (ties)",
            place,
        )
        pf = np.where(rc & fin, place, 0)
        pn = np.where(rc & ~fin, place, 99)
        v.need(
            ~(over & (outcome == C.O_RACE_OVER)) | (pf.max(axis=1) < pn.min(axis=1)),
            "a racer still on the track placed ahead of a finisher",
            place,
        )

        # spell cards: every card id in exactly one of draw pile, discard, a hand
        ncard = int(T.n_cards)
        cdeck = np.asarray(T.card_deck, np.int64)[:ncard]
        cnt = np.zeros((N, ncard), np.int64)
        for d in range(C.NDECK):
            for what, f, fn in (("draw pile", "deck", "deck_n"), ("discard", "disc", "disc_n")):
                cards = S[f][:, d].astype(np.int64)
                k = S[fn][:, d].astype(np.int64)
                v.need((k >= 0) & (k <= C.DECK_MAX), f"{what} {d} size out of range", k)
                inside = np.arange(C.DECK_MAX)[None, :] < np.clip(k, 0, C.DECK_MAX)[:, None]
                v.need(
                    ((cards == -1) | inside).all(axis=1),
                    f"{what} {d} slot beyond its count is not -1",
                    cards,
                )
                ok = (cards >= 0) & (cards < ncard)
                v.need(
                    (ok | ~inside).all(axis=1), f"{what} {d} holds a card id out of range", cards
                )
                deck_ok = cdeck[np.clip(cards, 0, ncard - 1)] == d
                v.need(
                    (deck_ok | ~inside | ~ok).all(axis=1),
                    f"{what} {d} holds a card of another deck",
                    cards,
                )
                r, c = np.nonzero(inside & ok)
                np.add.at(cnt, (r, cards[r, c]), 1)
        sp = i64("spell")
        v.need(((sp >= -1) & (sp < ncard)).all(axis=1), "held spell id out of range", sp)
        v.need(((sp == -1) | seat).all(axis=1), "a spell held by an empty seat", sp)
        r, c = np.nonzero(sp >= 0)
        np.add.at(cnt, (r, np.clip(sp[r, c], 0, ncard - 1)), 1)
        v.need(
            (cnt == 1).all(axis=1),
            "spell cards not each in exactly one place (copies per card id shown)",
            cnt,
        )
        v.need(
            ((sp < 0) | (S["marker"] == 0)).all(axis=1),
            "a racer holds a spell card and a spell marker",
            sp,
        )

        # hazard bag: only bag tokens, never more than the content's bag
        bn = i64("bag_n")
        v.need((bn >= 0) & (bn <= int(T.bag_size)), "bag size out of range", bn)
        bag = S["bag"].astype(np.int64)
        inside = np.arange(C.BAG_MAX)[None, :] < np.clip(bn, 0, C.BAG_MAX)[:, None]
        v.need(((bag == 0) | inside).all(axis=1), "bag slot beyond its count is not empty", bag)
        tb = np.asarray(T.bag, np.int64)[: int(T.bag_size)]
        want = np.bincount(tb, minlength=C.NTOK)
        have = np.zeros((N, C.NTOK), np.int64)
        r, c = np.nonzero(inside)
        np.add.at(have, (r, np.clip(bag[r, c], 0, C.NTOK - 1)), 1)
        v.need(((bag >= 0) & (bag < C.NTOK) | ~inside).all(axis=1), "bag token out of range", bag)
        v.need((have <= want[None, :]).all(axis=1), "the bag holds tokens it never had", have)
        tok = i64("tok")
        v.need(((tok >= 0) & (tok < C.NTOK)).all(axis=1), "board token out of range")
        on_track = np.asarray(T.tr_tile, np.int64)[tkc] >= 0
        v.need(((tok == 0) | on_track).all(axis=1), "a token off the track")

        # the current turn
        mp = i64("mp")
        v.need(mp >= 0, "negative MP", mp)
        v.need(
            (phase != C.PH_MOVE) | ~live | ((cur >= 0) & (cur < nc) & (actor == cur)),
            "the moving seat is not the actor",
            np.stack([cur, actor], 1),
        )
        cc = np.clip(cur, 0, P - 1)
        v.need((phase != C.PH_MOVE) | ~live | ~fin[rows, cc], "a finished kart takes a turn")
        v.need(
            ~np.isin(phase, (C.PH_SPEED, C.PH_FACING)) | (mp == 0), "MP before the speed change", mp
        )
        v.need(i64("turn_k") <= nc, "turn counter beyond the table", i64("turn_k"))
        v.need(
            ~drafting | ((i64("offer_n") >= 1) & (i64("offer_n") <= P + 1)),
            "draft without an offer",
            i64("offer_n"),
        )
        v.raise_if_any(S)

    def check_transition(self, core, before, after) -> None:
        """``after`` is ``before`` plus one decision (auto-advanced decisions
        may follow); rows of races already over in ``before`` are skipped."""
        C = _C()
        B, A = as_batch(before), as_batch(after)
        live = B["phase"] != C.PH_OVER
        B, A = B[live], A[live]
        v = Violations("Dungeon Kart transition")
        for f in (
            "seed",
            "episode",
            "num_players",
            "reward_mode",
            "auto_advance",
            "max_steps",
            "track",
            "max_rounds",
            "draft_mode",
        ):
            v.need(A[f] == B[f], f"{f} changed", np.stack([B[f], A[f]], 1))
        v.need(
            A["steps"].astype(np.int64) >= B["steps"].astype(np.int64) + 1,
            "the decision counter did not go up",
            np.stack([B["steps"], A["steps"]], 1),
        )
        v.need(
            (A["rng"][:, 0] == B["rng"][:, 0]) & (A["rng"][:, 1] >= B["rng"][:, 1]),
            "generator key changed or its counter went back",
        )
        v.need(A["round"] >= B["round"], "the round went back")
        v.need(A["finish_seq"] >= B["finish_seq"], "a finish was undone")
        v.need((A["finished"] >= B["finished"]).all(axis=1), "a finished racer unfinished")
        v.need(
            ((B["finish_no"] == 0) | (A["finish_no"] == B["finish_no"])).all(axis=1),
            "a finishing number changed",
        )
        fin = B["finished"] == 1
        v.need((~fin | (A["finish_mp"] == B["finish_mp"])).all(axis=1), "a finisher's MP changed")
        for f in ("racer", "dash"):
            v.need((~(B[f] >= 0) | (A[f] == B[f])).all(axis=1), f"a drafted {f} changed")
        vb, va = B["visited"].astype(np.int64), A["visited"].astype(np.int64)
        v.need(((va & vb) == vb).all(axis=1), "a visited tile was forgotten")
        v.need(A["final_round"] >= B["final_round"], "the final round was called off")
        v.raise_if_any(B)

    # -- hidden information --------------------------------------------------------------
    # (resample_hidden: the game's own sampler, envs/dungeon_kart/infostate.py,
    # through GameHooks.resample_hidden)
    def change_visible(self, core, state, player=0):
        out = as_row(state)
        s = out[0]
        c = int(s["coins"][player])
        s["coins"][player] = c + 1 if c < 9 else c - 1
        return out

    # -- snapshots, kernels, interpreter -----------------------------------------------------
    def corruptions(self, core, state) -> list:
        C = _C()
        NCELL = _NCELL()
        out = []
        s0 = as_row(state)[0]
        n = int(s0["num_players"])
        on_board = int(s0["pos"][0]) >= 0 and int(s0["finished"][0]) == 0

        def edit(label, fn):
            r = as_row(state)
            fn(r[0])
            out.append((label, r))

        edit("phase out of range", lambda s: s.__setitem__("phase", 99))
        edit("acting seat beyond the table", lambda s: s.__setitem__("actor", n))
        edit("negative coins", lambda s: s["coins"].__setitem__(1, -2))
        edit("held spell id out of range", lambda s: s["spell"].__setitem__(0, 120))
        edit("draw pile size out of range", lambda s: s["deck_n"].__setitem__(0, 40))
        edit("track out of range", lambda s: s.__setitem__("track", 99))
        edit("bag size out of range", lambda s: s.__setitem__("bag_n", 100))

        def dup_card(s):  # a card held and still in its draw pile
            for d in range(C.NDECK):
                if int(s["deck_n"][d]) > 0:
                    s["spell"][0] = s["deck"][d, 0]
                    s["marker"][0] = 0
                    return

        edit("spell card in two places", dup_card)
        if on_board:
            edit("kart off the board", lambda s: s["pos"].__setitem__(0, NCELL + 3))
            tk = int(s0["track"])
            off = np.flatnonzero(np.asarray(core.T.tr_terr)[tk] == C.T_OFF)
            edit("kart on a hex off the track", lambda s: s["pos"].__setitem__(0, int(off[0])))
            edit("speed setting out of range", lambda s: s["speed"].__setitem__(0, 9))
            edit("facing out of range", lambda s: s["facing"].__setitem__(0, 6))

            edit("racer id out of range", lambda s: s["racer"].__setitem__(0, 50))
            edit("placement out of range", lambda s: s["place"].__setitem__(0, 12))
        edit(
            "stored mask does not match",
            lambda s: s["legal"].__setitem__(slice(None), 1 - np.asarray(s["legal"])),
        )
        return out

    def batch_kernels(self) -> list:
        from dungeonrl.envs.dungeon_kart import kernels

        return [
            kernels.reset_batch,
            kernels.mask_batch,
            kernels.observe_batch,
            kernels.step_autoreset,
            kernels.refresh_batch,
        ]

    def prepare_interpreted(self, core, wrap) -> None:
        # the content record goes through the same field-first view as the
        # states (the state field ``round`` shadows np.record.round there)
        core.TR = wrap(core.TR)


def _jump_start(self, core, states, rng):
    """Turn freshly reset records into the last hexes of the race: the
    draft is played out by random picks, then every kart is moved onto a
    distinct free drivable hex of the route's last tile at most 4 hexes
    from its exit, facing the start direction, having travelled every tile
    (all tied in Placement, so every invariant holds); masks recomputed.
    Returns the rows edited."""
    from dungeonrl.envs.dungeon_kart.hexgeo import NCELL

    C = _C()
    T = core.T
    n = len(states)
    masks = np.zeros((n, C.NUM_ACTIONS), np.uint8)
    z = np.zeros(n, bool)
    rew = np.zeros((n, core.num_players), np.float32)
    for _ in range(40):
        core.legal_mask(states, masks)
        draft = np.isin(states["phase"], (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH))
        if not draft.any():
            break
        u = rng.random(masks.shape)
        u[masks == 0] = -1
        acts = u.argmax(axis=1)
        core.step_rows(states, np.flatnonzero(draft), acts, rew, z.copy(), z.copy(), z.copy())
    done = []
    pips = np.asarray(C.TERRAIN_PIPS)
    for i in range(n):
        s = states[i]
        if s["outcome"] != 0 or s["phase"] in (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH):
            continue
        k = int(s["num_players"])
        tk = int(s["track"])
        last = int(T.tr_ntiles[tk]) - 1
        cells = [
            c
            for c in range(NCELL)
            if int(T.tr_tile[tk, c]) == last
            and pips[int(T.tr_terr[tk, c])] > 0
            and int(T.tr_dist[tk, c]) <= 4
            and int(s["tok"][c]) == 0
        ]
        if len(cells) < k:
            continue
        pick = rng.choice(len(cells), size=k, replace=False)
        for q in range(k):
            s["pos"][q] = cells[int(pick[q])]
            s["prev"][q] = cells[int(pick[q])]
            s["visited"][q] = (1 << (last + 1)) - 1
            s["place"][q] = 1
        done.append(i)
    core.refresh(states)
    return np.asarray(done, np.int64)


DungeonKartHooks.jump_start = _jump_start


HOOKS = DungeonKartHooks()
