"""Conformance hooks of Dungeon Crawler Carl: Unstoppable (solo and 2-seat
co-op): found by ``tests/helpers/game_hooks.py`` (see its module doc for each hook).

The invariant checker is written from the rules (``envs/dcc_unstoppable/
README.md``) and the record's documented fields (``state.py``) over the
content tables ``core.T``; it never calls a kernel. It is vectorised over a
batch and robust to corrupted records (indices are clipped before table
lookups, so a broken record raises ``AssertionError``, never ``IndexError``).

Configurations (kept small: the game's part of the suite should stay under
about 3 minutes on 2 cores): solo Floor 1 arcade, co-op Floor 2 campaign
(hard), solo Floor 3 campaign (expert) and co-op Floor 3 arcade without
auto-advance; random games are capped at 150-200 decisions (a random game
rarely ends sooner, so the soak covers set-up, the draft and many turns).

Hidden information (``state.py``): every deck order (a player's deck and
the core decks below their top card, the threat deck, the upgrade deck,
the dungeon, the quests not yet dealt) and the generator, resampled by the
game's own sampler (``core.resample_from_infostate``,
``envs/dcc_unstoppable/infostate.py``). The teammate's hand is open in
co-op, so both seats see the same things.
"""

from __future__ import annotations

import numpy as np
from helpers.game_hooks import GameHooks, InvariantError, Violations, as_batch, as_row

CAP_SOLO, CAP_COOP = 150, 200


def _C():
    from dungeonrl.envs.dcc_unstoppable import consts

    return consts


def _counts(v, cards, counts, nvals, what):
    """(N, nvals) copies of each id in ``cards[:, :counts]`` with size,
    id-range and empty-slot checks (ids beyond the count must be -1)."""
    cards = np.asarray(cards).astype(np.int64)
    cap = cards.shape[1]
    cnt = np.asarray(counts).astype(np.int64)
    N = cards.shape[0]
    v.need((cnt >= 0) & (cnt <= cap), f"{what} size outside [0, {cap}]", cnt)
    inside = np.arange(cap)[None, :] < np.clip(cnt, 0, cap)[:, None]
    v.need(((cards == -1) | inside).all(axis=1), f"{what} slot beyond its count is not -1", cards)
    ok = (cards >= 0) & (cards < nvals)
    v.need((ok | ~inside).all(axis=1), f"{what} holds an id outside [0, {nvals})", cards)
    r, c = np.nonzero(inside & ok)
    return np.bincount(r * nvals + cards[r, c], minlength=N * nvals).reshape(N, nvals)


def _ids(v, arr, nvals, what):
    """(N, nvals) copies of each id in a -1-padded array (any shape per row)."""
    a = np.asarray(arr).astype(np.int64).reshape(len(arr), -1)
    N = a.shape[0]
    v.need(
        ((a == -1) | ((a >= 0) & (a < nvals))).all(axis=1),
        f"{what} holds an id outside [-1, {nvals})",
        a,
    )
    r, c = np.nonzero((a >= 0) & (a < nvals))
    return np.bincount(r * nvals + a[r, c], minlength=N * nvals).reshape(N, nvals)


class _Violations(Violations):
    """``Violations`` naming the phase and pending decision of the first bad
    row (the base class reads a scalar ``level``; here it is per seat)."""

    def raise_if_any(self, S):
        if self.bad:
            i = self.bad[0][0]
            where = (
                f" [first bad row {i}: phase {int(S['phase'][i])}, "
                f"dec {int(S['dec'][i])}, steps {int(S['steps'][i])}]"
            )
            raise InvariantError(
                f"{len(self.bad)} {self.what} invariant(s) broken{where}: "
                + "; ".join(m for _, m, _ in self.bad),
                [(m, r) for _, m, r in self.bad],
            )


class DCCUnstoppableHooks(GameHooks):
    name = "dcc_unstoppable"
    configs = [
        {"num_players": 1, "floor": 1, "max_steps": CAP_SOLO},
        {
            "num_players": 2,
            "floor": 2,
            "mode": "campaign",
            "difficulty": "hard",
            "race": "preset",
            "klass": "preset",
            "max_steps": CAP_COOP,
        },
        {
            "num_players": 1,
            "floor": 3,
            "mode": "campaign",
            "difficulty": "expert",
            "race": "draft",
            "klass": "draft",
            "max_steps": CAP_SOLO,
        },
        {"num_players": 2, "floor": 3, "auto_advance": False, "max_steps": CAP_COOP},
    ]
    soak_games = 250
    sample_every = 5
    default_config = {}
    truncate_config = {"max_steps": 5}
    short_config = {"max_steps": 60}
    chance_fields = ("rng",)
    hidden_parts = ("deck", "cdeck", "tdeck", "udeck", "dungeon", "quest_order", "rng", "seed")
    known_bugs = {}

    # -- invariants ------------------------------------------------------------------------
    def check_invariants(self, core, state) -> None:
        C = _C()
        S = as_batch(state)
        T = core.T
        v = _Violations("DCC Unstoppable")
        i64 = lambda f: S[f].astype(np.int64)  # noqa: E731
        N = len(S)
        P = C.NPLAYERS_MAX
        n = i64("num_players")
        phase, outcome = i64("phase"), i64("outcome")
        over = phase == C.PH_OVER
        seat = np.arange(P)[None, :]
        used = seat < n[:, None]

        # -- flow ----------------------------------------------------------------------
        v.need((n >= 1) & (n <= P), "num_players outside 1..2", n)
        v.need((phase >= 0) & (phase < C.NPHASE), "phase out of range", phase)
        v.need((outcome >= 0) & (outcome < len(C.OUTCOME_NAMES)), "outcome out of range", outcome)
        v.need(
            over == (outcome != 0),
            "phase and outcome disagree on whether the game is over",
            np.stack([phase, outcome], 1),
        )
        steps, cap = i64("steps"), i64("max_steps")
        v.need((steps >= 0) & (steps <= cap), "steps outside [0, max_steps]", steps)
        v.need(cap <= core.spec.max_episode_steps, "max_steps above the spec's cap", cap)
        actor = i64("actor")
        v.need(over | ((actor >= 0) & (actor < n)), "live game without a seat to act", actor)
        v.need(~over | (actor == -1), "finished game with a seat to act", actor)
        dec = i64("dec")
        v.need((dec >= 0) & (dec < C.NDEC), "pending decision out of range", dec)
        # (danger-space effects are asked in the Clean-up too, the solo
        # bottom order in the Draft)
        v.need(
            (dec == C.DEC_NONE)
            | (phase == C.PH_MAIN)
            | (phase == C.PH_CLEANUP)
            | over
            | ((phase == C.PH_DRAFT) & (dec == C.DEC_BOTTOM)),
            "a pending decision outside the Main Phase, Clean-up and Draft order",
            np.stack([phase, dec], 1),
        )
        floor, mode, diff = i64("cfg_floor"), i64("cfg_mode"), i64("cfg_difficulty")
        v.need((floor >= 1) & (floor <= C.NFLOOR), "floor outside 1..3", floor)
        v.need((mode >= 0) & (mode < len(C.MODES)), "mode out of range", mode)
        v.need((diff >= 0) & (diff < len(C.DIFFICULTIES)), "difficulty out of range", diff)
        v.need(S["turn"] >= 0, "negative turn counter", S["turn"])
        v.need(
            (S["passes"] >= 0) & (S["passes"] <= C.PASS_CAP),
            f"initiative passes outside 0..{C.PASS_CAP}",
            S["passes"],
        )
        legal = S["legal"]
        v.need(((legal == 0) | (legal == 1)).all(axis=1), "legal mask holds values other than 0/1")
        v.need(
            legal.any(axis=1) != over,
            "stored legal mask all-zero iff game over is broken",
            legal.sum(axis=1),
        )
        v.need(
            (S["forced_i"] >= 0) & (S["forced_i"] <= S["forced_n"]) & (S["forced_n"] <= 16),
            "forced chance counters",
        )

        # -- resources within their caps (AP 6, health 10, mana 10) ---------------------
        # (the crawlers are set up once race and class are chosen)
        crawling = np.isin(phase, (C.PH_DRAFT, C.PH_MAIN, C.PH_CLEANUP))
        for f, top in (("ap", C.AP_CAP), ("health", C.HEALTH_CAP), ("mana", C.MANA_CAP)):
            x = i64(f)
            v.need(((x >= 0) & (x <= top)).all(axis=1), f"{f} outside [0, {top}]", x)
        v.need((i64("gold") >= 0).all(axis=1), "negative gold", S["gold"])
        small, lvl = i64("small"), i64("level")
        v.need(
            (~crawling[:, None] | ~used | ((small >= 1) & (small <= 6) & (lvl >= 1))).all(axis=1),
            "level discs outside their range",
            np.concatenate([small, lvl], 1),
        )
        alive = (i64("health") > 0) | ~used
        v.need(
            (outcome != C.O_LOSS_HEALTH) | (~alive).any(axis=1),
            "lost on health with every crawler standing",
            S["health"],
        )

        # -- danger marker on the track (the skull is the last space) -------------------
        tl = np.asarray(T.tr_len, np.int64)[
            np.clip(floor - 1, 0, C.NFLOOR - 1), np.clip(mode, 0, len(C.MODES) - 1)
        ]
        dg = i64("danger")
        v.need((dg >= 0) & (dg <= tl - 1), "danger marker off the track", np.stack([dg, tl], 1))
        v.need(
            (outcome != 0) | (dg < tl - 1),
            "danger marker on the skull in a live game",
            np.stack([dg, tl], 1),
        )
        v.need(
            (outcome != C.O_LOSS_SKULL) | (dg == tl - 1),
            "lost on the skull with the marker elsewhere",
            np.stack([dg, tl], 1),
        )

        # -- threat sides (sleeves) each in exactly one place ---------------------------
        NS = C.NSLEEVE
        zone, owner = i64("sl_zone"), i64("sl_owner")
        v.need(
            ((zone >= 0) & (zone < len(C.ZONE_NAMES))).all(axis=1), "sleeve zone out of range", zone
        )
        piles = {
            C.Z_DECK: ("deck", "deck_n"),
            C.Z_HAND: ("hand", "hand_n"),
            C.Z_DISCARD: ("disc", "disc_n"),
            C.Z_BATTLE: ("bf", "bf_n"),
            C.Z_PLAY: ("play", "play_n"),
        }
        total = np.zeros((N, NS), np.int64)
        in_zone = np.zeros((N, NS), np.int64)  # copies in the pile sl_zone names
        in_seat = np.zeros((N, NS), np.int64)  # copies in the piles of sl_owner
        for z, (arr, cnt) in piles.items():
            for p in range(P):
                c = _counts(v, S[arr][:, p], S[cnt][:, p], NS, f"seat {p} {arr}")
                v.need((c.sum(axis=1) == 0) | (p < n), f"unused seat {p} holds cards in {arr}")
                total += c
                in_zone += c * (zone == z)
                in_seat += c * (owner == p)
        for z, arr, cnt in ((C.Z_TDECK, "tdeck", "tdeck_n"), (C.Z_DUNGEON, "dungeon", "dungeon_n")):
            c = _counts(v, S[arr], S[cnt], NS, arr)
            total += c
            in_zone += c * (zone == z)
        off = np.isin(zone, (C.Z_BOX, C.Z_TROPHY, C.Z_ELIM, C.Z_DESCENDED))
        seat_pile = np.isin(zone, list(piles))
        v.need(
            ((total == 0) | ~off).all(axis=1),
            "a boxed / trophy / eliminated / descended sleeve lies in a pile",
            total,
        )
        v.need(
            ((total == 1) | off).all(axis=1),
            "sleeves not each in exactly one place (copies per sleeve shown)",
            total,
        )
        v.need(
            ((in_zone == 1) | off).all(axis=1), "a sleeve is not in the pile its zone names", zone
        )
        v.need(
            ((in_seat == 1) | ~seat_pile).all(axis=1),
            "a sleeve lies in another seat's pile than its owner's",
            owner,
        )
        v.need((S["bf_n"].astype(np.int64) <= C.BF_CAP).all(axis=1), "battlefield over its cap")
        v.need((S["sl_dmg"] >= 0).all(axis=1), "negative damage on a sleeve", S["sl_dmg"])
        for f in ("sl_loom", "sl_exh", "sl_seen"):
            v.need(((S[f] == 0) | (S[f] == 1)).all(axis=1), f"{f} not 0/1", S[f])
        stairs = zone[:, C.STAIRS0 : C.STAIRS0 + P]
        v.need(
            ((stairs != C.Z_TDECK) & (stairs != C.Z_DUNGEON)).all(axis=1),
            "a stairs card in the threat deck or the dungeon",
            stairs,
        )
        v.need(
            (np.asarray(S["sl_core"])[:, C.STAIRS0 :] == -1).all(axis=1),
            "a stairs card carries a core side",
        )

        # -- core sides each in exactly one place --------------------------------------
        NC = C.NCORE
        cz = i64("core_zone")
        v.need(
            ((cz >= 0) & (cz < len(C.CORE_ZONE_NAMES))).all(axis=1), "core zone out of range", cz
        )
        in_cdeck = np.zeros((N, NC), np.int64)
        clv = np.asarray(T.c_level, np.int64)
        for d in range(C.MAX_LEVEL_DECK):
            c = _counts(v, S["cdeck"][:, d], S["cdeck_n"][:, d], NC, f"core deck {d + 1}")
            v.need(
                (c * (clv[None, :NC] != d + 1) == 0).all(axis=1),
                f"a core of another level in core deck {d + 1}",
            )
            in_cdeck += c
        in_rev = _ids(v, S["reveal"], NC, "draft reveal") + _ids(
            v, S["draft_keep"], NC, "draft keep"
        )
        sc = i64("sl_core")
        sleeved = np.where(np.isin(zone, (C.Z_BOX, C.Z_TDECK)), -1, sc)
        in_sl = _ids(v, sleeved, NC, "sleeve core")
        v.need(((sc >= -1) & (sc < NC)).all(axis=1), "sleeve core id out of range", sc)
        for want, have, label in (
            (C.CZ_CDECK, in_cdeck, "core deck"),
            (C.CZ_REVEAL, in_rev, "draft"),
            (C.CZ_SLEEVE, in_sl, "sleeve"),
        ):
            v.need(
                (have == (cz == want)).all(axis=1),
                f"core sides not where core_zone says ({label}: copies shown)",
                have,
            )

        # -- upgrades: in the deck, the market or one sleeve's cutout --------------------
        NU = C.NUPGRADE
        ud = _counts(v, S["udeck"], S["udeck_n"], NU, "upgrade deck")
        mk = _ids(v, S["market"], NU, "market")
        up = i64("sl_up")
        slu = _ids(v, up, NU, "sleeve upgrade")
        v.need(
            (ud + mk + slu == 1).all(axis=1),
            "upgrades not each in exactly one place (copies shown)",
            ud + mk + slu,
        )
        uz = i64("upg_zone")
        v.need(
            ((uz == 0) == (ud == 1)).all(axis=1)
            & ((uz == 1) == (mk == 1)).all(axis=1)
            & ((uz == 2) == (slu == 1)).all(axis=1),
            "upg_zone disagrees with the piles",
            uz,
        )
        cut = np.asarray(T.u_cutout, np.int64)[np.clip(up, 0, NU - 1)]
        v.need(
            ((up == -1) | (cut == np.arange(2)[None, None, :])).all(axis=(1, 2)),
            "an upgrade in the wrong cutout",
        )

        # -- records ---------------------------------------------------------------------
        v.need((i64("defeats") >= 0).all(axis=1), "negative defeat count", S["defeats"])
        v.need((i64("bosses") >= 0).all(axis=1), "negative boss count", S["bosses"])
        for f in ("ach", "extra", "main_done"):
            v.need(((S[f] == 0) | (S[f] == 1)).all(axis=1), f"{f} not 0/1", S[f])
        v.need(
            (i64("quests_done") >= 0) & (i64("quests_done") <= C.MAX_QUESTS),
            "quests done out of range",
            S["quests_done"],
        )
        v.need(S["quest"] >= -1, "quest id below -1", S["quest"])
        v.need(
            (outcome != C.O_WIN) | (i64("score") == 100 * i64("xp")) | (mode != C.M_ARCADE),
            "arcade score is not 100 x XP",
            np.stack([i64("score"), i64("xp")], 1),
        )
        v.raise_if_any(S)

    def check_transition(self, core, before, after) -> None:
        C = _C()
        B, A = as_batch(before), as_batch(after)
        live = B["phase"] != C.PH_OVER
        B, A = B[live], A[live]
        v = _Violations("DCC Unstoppable transition")
        for f in (
            "seed",
            "episode",
            "num_players",
            "max_steps",
            "auto_advance",
            "reward_mode",
            "cfg_floor",
            "cfg_difficulty",
            "cfg_mode",
            "cfg_crawler",
            "cfg_race",
            "cfg_class",
            "camp_xp",
            "camp_ben",
            "camp_ach",
            "camp_deck",
            "camp_upg",
        ):
            same = (A[f] == B[f]).reshape(len(B), -1).all(axis=1)
            v.need(same, f"{f} changed")
        v.need(
            A["steps"].astype(np.int64) >= B["steps"].astype(np.int64) + 1,
            "decision counter did not increase",
            np.stack([B["steps"], A["steps"]], 1),
        )
        for f in ("turn", "defeats", "bosses", "quests_done", "bought"):
            d = (A[f].astype(np.int64) - B[f].astype(np.int64)).reshape(len(B), -1)
            v.need((d >= 0).all(axis=1), f"{f} went down")
        v.need(~((B["ach"] == 1) & (A["ach"] == 0)).any(axis=1), "an achievement was lost")
        gone = np.isin(B["sl_zone"], (C.Z_ELIM, C.Z_TROPHY))
        v.need(
            ~(gone & (A["sl_zone"] != B["sl_zone"])).any(axis=1),
            "an eliminated or trophy sleeve came back",
        )
        v.need(
            A["danger"].astype(np.int64) >= B["danger"],
            "the danger marker moved back",
            np.stack([B["danger"], A["danger"]], 1),
        )
        v.need(
            (A["rng"][:, 0] == B["rng"][:, 0]) & (A["rng"][:, 1] >= B["rng"][:, 1]),
            "generator key changed or its counter went back",
        )
        v.raise_if_any(B)

    # -- late-game starts --------------------------------------------------------------------
    def jump_start(self, core, states, rng):
        """Turn freshly reset records into varied mid-game starts: every row
        is first played forward by the scripted heuristic for a random
        number of decisions (0-400: later Levels, bosses and quests in play,
        bought upgrades; a decision that would end the game is undone and
        that row stops there), then some rows are pushed towards the end:
        low health (1-3 per crawler), the danger marker on one of the last
        two spaces before the skull, a full hand (the discard pile picked
        up), extra gold and mana. Every edit keeps the invariants of
        :meth:`check_invariants` and ``validate.check_state``; the decision
        counter restarts at 0 (an edited start, like a reset) and the
        stored masks are recomputed. Returns the rows edited."""
        C = _C()
        T = core.T
        n = len(states)
        cap = states["max_steps"].copy()
        states["max_steps"] = core.spec.max_episode_steps
        target = rng.integers(0, 401, n)
        prng = np.zeros((n, 2), np.uint64)
        prng[:, 0] = rng.integers(1, 2**63, n, dtype=np.uint64)
        rew = np.zeros((n, C.NPLAYERS_MAX), np.float32)
        z = np.zeros(n, bool)
        acts = np.zeros(n, np.int64)
        for t in range(int(target.max()) + 1):
            rows = np.flatnonzero((states["outcome"] == 0) & (target > t))
            if len(rows) == 0:
                break
            snap = states[rows].copy()
            out = np.zeros(len(rows), np.int64)
            core.policy_rows(states, rows, prng, out)
            acts[rows] = out
            core.step_rows(states, rows, acts, rew, z.copy(), z.copy(), z.copy())
            ended = states["outcome"][rows] != 0
            states[rows[ended]] = snap[ended]
            target[rows[ended]] = t
        states["steps"] = 0
        states["max_steps"] = cap
        done = []
        crawl = (C.PH_DRAFT, C.PH_MAIN, C.PH_CLEANUP)
        for i in range(n):
            s = states[i]
            if s["outcome"] != 0 or int(s["phase"]) not in crawl:
                continue
            k = int(s["num_players"])
            kind = rng.integers(0, 5)
            if kind == 0:  # low health
                for p in range(k):
                    s["health"][p] = min(int(s["health"][p]), int(rng.integers(1, 4)))
            elif kind == 1:  # the marker near the skull
                f, m, d = int(s["cfg_floor"]) - 1, int(s["cfg_mode"]), int(s["cfg_difficulty"])
                sk = int(T.tr_len[f, m]) - 1
                open_ = [
                    j
                    for j in range(sk)
                    if not (
                        int(T.tr_border[f, m, j]) != C.B_NONE
                        and int(T.tr_border[f, m, j]) == C.SKIP_BORDER[d]
                    )
                ]
                j = open_[-1 - int(rng.integers(0, 2))]
                s["danger"] = max(int(s["danger"]), j)
            elif kind == 2:  # a full hand: the discard pile picked up
                for p in range(k):
                    while s["disc_n"][p] > 0 and s["hand_n"][p] < C.HAND_SLOTS:
                        dn = int(s["disc_n"][p]) - 1
                        sl = int(s["disc"][p, dn])
                        s["disc"][p, dn] = -1
                        s["disc_n"][p] = dn
                        s["hand"][p, int(s["hand_n"][p])] = sl
                        s["hand_n"][p] += 1
                        s["sl_zone"][sl] = C.Z_HAND
            elif kind == 3:  # rich: upgrades and spells come into reach
                for p in range(k):
                    s["gold"][p] = int(s["gold"][p]) + int(rng.integers(3, 12))
                    s["mana"][p] = C.MANA_CAP
            else:
                continue
            done.append(i)
        core.refresh(states)
        return np.asarray(done, np.int64)

    # -- hidden information --------------------------------------------------------------
    # (resample_hidden: the game's own sampler, envs/dcc_unstoppable/infostate.py,
    # through GameHooks.resample_hidden)
    def change_visible(self, core, state, player=0):
        C = _C()
        out = as_row(state)
        s = out[0]
        g = int(s["gold"][player])
        s["gold"][player] = g + 1 if g < 100 else g - 1
        h = int(s["health"][player])
        s["health"][player] = h + 1 if h < C.HEALTH_CAP else h - 1
        return out

    # -- snapshots, kernels, interpreter -----------------------------------------------------
    def corruptions(self, core, state) -> list:
        C = _C()
        out = []

        def edit(label, fn):
            r = as_row(state)
            fn(r[0])
            out.append((label, r))

        edit("phase out of range", lambda s: s.__setitem__("phase", 99))
        edit("outcome out of range", lambda s: s.__setitem__("outcome", 40))
        edit(
            "acting seat beyond the table", lambda s: s.__setitem__("actor", int(s["num_players"]))
        )
        edit("health above its cap", lambda s: s["health"].__setitem__(0, C.HEALTH_CAP + 1))
        edit("AP above its cap", lambda s: s["ap"].__setitem__(0, C.AP_CAP + 5))
        edit("negative mana", lambda s: s["mana"].__setitem__(0, -1))
        edit("danger marker off the track", lambda s: s.__setitem__("danger", 90))
        edit("deck size out of range", lambda s: s["deck_n"].__setitem__(0, C.PILE_CAP + 1))
        edit("negative hand size", lambda s: s["hand_n"].__setitem__(0, -1))
        edit("battlefield size out of range", lambda s: s["bf_n"].__setitem__(0, C.BF_CAP + 1))
        edit("threat deck size out of range", lambda s: s.__setitem__("tdeck_n", C.NTHREAT + 1))
        edit("sleeve zone out of range", lambda s: s["sl_zone"].__setitem__(3, 50))
        edit("floor out of range", lambda s: s.__setitem__("cfg_floor", 7))
        edit(
            "stored mask does not match",
            lambda s: s["legal"].__setitem__(slice(None), 1 - np.asarray(s["legal"])),
        )
        return out

    def batch_kernels(self) -> list:
        from dungeonrl.envs.dcc_unstoppable import kernels

        # (the spec is single-agent: the envs step through the fused
        # step_observe, not step_batch; the co-op AEC env is the suite's too)
        return [
            kernels.reset_batch,
            kernels.step_observe,
            kernels.mask_batch,
            kernels.observe_batch,
            kernels.step_autoreset,
            kernels.refresh_batch,
        ]

    def prepare_interpreted(self, core, wrap) -> None:
        core.TR = wrap(core.TR)


HOOKS = DCCUnstoppableHooks()
