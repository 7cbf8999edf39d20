"""Conformance hooks of Unbroken (solo survival card game, Gymnasium): found
by ``tests/helpers/game_hooks.py`` (see its module doc for each hook).

The invariant checker is written from the rulebook and the record's
documented fields (``envs/unbroken/state.py``), over the content tables
``core.T``; it never calls a kernel."""

from __future__ import annotations

import numpy as np
from helpers.game_hooks import GameHooks, Violations, as_batch, as_row, pile_counts


class UnbrokenHooks(GameHooks):
    """Unbroken (one player). Invariants from the rulebook and the record's
    documented fields (``envs/unbroken/state.py``); table sizes from
    ``core.T``."""

    name = "unbroken"
    configs = [{"difficulty": d, "character": "random"} for d in ("easy", "normal", "hard")] + [
        {"difficulty": "normal", "character": "random", "auto_advance": False}
    ]
    default_config = {}
    truncate_config = {"max_steps": 5, "character": "random"}
    short_config = {"max_steps": 60, "character": "random"}
    chance_fields = ("rng",)
    hidden_parts = ("enc_deck", "skill_deck", "rng", "seed")
    known_bugs = {}  # (the weapon-sheet duplication it once listed is fixed)

    # -- invariants ------------------------------------------------------------------------
    def check_invariants(self, core, state) -> None:
        """Vectorised: ``state`` may also be a whole batch of records."""
        from dungeonrl.envs.unbroken import consts as C

        S = as_batch(state)
        T = core.T
        v = Violations("Unbroken")
        i64 = lambda f: S[f].astype(np.int64)  # noqa: E731

        phase, outcome, level = i64("phase"), i64("outcome"), i64("level")
        over = phase == C.PH_OVER
        v.need((phase >= 0) & (phase < C.NPHASE), "phase out of range", phase)
        v.need(
            (i64("stage") >= 0) & (i64("stage") <= C.S_MANDATORY),
            "stage out of range",
            i64("stage"),
        )
        v.need((outcome >= 0) & (outcome < len(C.OUTCOME_NAMES)), "outcome out of range", outcome)
        v.need(
            over == (outcome != C.O_PLAYING),
            "phase and outcome disagree on whether the game is over",
            outcome,
        )
        steps, cap = i64("steps"), i64("max_steps")
        v.need((steps >= 0) & (steps <= cap), "steps outside [0, max_steps]", steps)
        v.need(cap <= core.spec.max_episode_steps, "max_steps above the spec's cap", cap)
        ch = i64("character")
        v.need((ch >= 0) & (ch < C.NCHAR), "character out of range", ch)
        v.need(
            (i64("cfg_character") == -1) | (i64("cfg_character") == ch),
            "character differs from the configured one",
            ch,
        )
        v.need(
            (i64("difficulty") >= 0) & (i64("difficulty") < len(C.DIFFICULTIES)),
            "difficulty out of range",
            i64("difficulty"),
        )
        v.need((level >= 1) & (level <= C.NLEVEL), "level outside 1..4", level)
        for f in (
            "combat",
            "in_battle",
            "dead",
            "commit",
            "commit_now",
            "defend",
            "ambushed",
            "tricked",
            "first_done",
            "lose_turn",
            "extra_attack",
            "m_revealed",
        ):
            v.need((S[f] == 0) | (S[f] == 1), f"flag {f} not 0/1", S[f])
        v.need((S["dead"] == 0) | (outcome == C.O_LOSS), "dead but the game was not lost")
        v.need((outcome != C.O_WIN) | (level == C.NLEVEL), "won before Level 4", level)
        v.need((S["in_battle"] == 0) | (S["combat"] == 1), "in battle outside combat")

        # stored legal mask: 0/1, all zero iff the game is over
        legal = S["legal"]
        v.need(((legal == 0) | (legal == 1)).all(axis=1), "legal mask holds values other than 0/1")
        v.need(
            legal.any(axis=1) != over,
            "stored legal mask all-zero iff game over is broken",
            legal.sum(axis=1),
        )

        # resources within their bars, Time within its track
        res = i64("res")
        bars = np.asarray(T.bars, np.int64)
        v.need((res >= 0).all(axis=1), "negative resource", res)
        v.need((res <= bars).all(axis=1), f"resource above its bar {bars.tolist()}", res)
        t = i64("time")
        v.need((t >= 0) & (t <= int(T.time_track)), f"time outside [0, {int(T.time_track)}]", t)
        v.need(
            ~((level == C.NLEVEL) & (S["combat"] == 1)) | (t == 0),
            "Time left on Level 4 after the Time Tracker is gone",
            t,
        )
        v.need((S["uses"] >= 0) & (S["uses"] <= 4), "ability uses outside 0..4", S["uses"])

        # encounter cards: every card of the deck composition in exactly one zone
        ne = int(T.n_enc_types)
        want = np.bincount(np.asarray(T.deck_cards, np.int64), minlength=ne)
        have = (
            pile_counts(
                v, S["enc_deck"], S["enc_deck"].shape[1], i64("enc_deck_n"), ne, "encounter deck"
            )
            + pile_counts(
                v, S["enc_disc"], S["enc_disc"].shape[1], i64("enc_disc_n"), ne, "encounter discard"
            )
            + pile_counts(v, S["revealed"], C.MAX_REVEAL, i64("revealed_n"), ne, "revealed cards")
        )
        v.need(
            (have == want).all(axis=1),
            "encounter cards not each in exactly one zone (deck + discard + revealed != "
            "deck composition; shown: copies minus expected)",
            have - want,
        )
        rn = i64("revealed_n")
        v.need(
            (rn == 0) | (phase == C.PH_EXPLORE) | over,
            "revealed cards outside the Exploration Step",
            rn,
        )
        v.need((phase != C.PH_EXPLORE) | (rn >= 1), "Exploration Step with no revealed card")
        v.need(
            (S["reveal_bonus"] >= -8) & (S["reveal_bonus"] <= 8),
            "reveal bonus out of range",
            S["reveal_bonus"],
        )

        # skills: every skill in exactly one place (deck, discard, offer, owned)
        ns = int(T.n_skills)
        owned = S["skill_owned"]
        v.need(((owned == 0) | (owned == 1)).all(axis=1), "skill_owned holds values other than 0/1")
        v.need(~owned[:, ns:].astype(bool).any(axis=1), "a skill id beyond the content is owned")
        places = (
            pile_counts(v, S["skill_deck"], C.MAX_SKILLS, i64("skill_deck_n"), ns, "skill deck")
            + pile_counts(
                v, S["skill_disc"], C.MAX_SKILLS, i64("skill_disc_n"), ns, "skill discard"
            )
            + pile_counts(v, S["skill_offer"], 2, i64("skill_offer_n"), ns, "skill offer")
            + (owned[:, :ns] == 1)
        )
        v.need(
            (places == 1).all(axis=1),
            "skills not each in exactly one place (count per skill id shown)",
            places,
        )
        ko = i64("skill_offer_n")
        v.need(
            (ko == 0) | (phase == C.PH_SKILLPICK) | over, "skills offered outside the choice", ko
        )
        v.need((phase != C.PH_SKILLPICK) | (ko >= 1), "skill choice with no skill offered")
        v.need(S["skill_pending"] >= 0, "negative skill_pending", S["skill_pending"])

        # weapons: a stack on Bare Hands; every weapon sheet in at most one place
        wn, an = i64("wstack_n"), i64("waside_n")
        v.need((wn >= 1) & (wn + an <= C.WSTACK), "weapon stack / set-aside sizes", wn)
        v.need(
            S["wstack"][:, 0] == 0, "weapon stack does not start with Bare Hands", S["wstack"][:, 0]
        )
        sheets = pile_counts(v, S["wstack"], C.WSTACK, wn, C.NWEAPON, "weapon stack") + pile_counts(
            v, S["waside"], C.WSTACK, an, C.NWEAPON, "set-aside weapons"
        )
        v.need(
            (sheets <= 1).all(axis=1),
            "a weapon sheet is in two places (stack then set-aside sheets shown)",
            np.concatenate([S["wstack"], S["waside"]], axis=1),
        )
        v.need((an > 0) | (S["waside_rounds"] == 0), "waside_rounds without set-aside sheets")

        # conditions: 0 in the deck, 1 active, 2 waiting, 3 both
        cond, tok, rnd = i64("cond"), i64("cond_tokens"), i64("cond_rounds")
        v.need(((cond >= 0) & (cond <= 3)).all(axis=1), "condition value outside 0..3", cond)
        v.need(((tok >= 0) & (tok <= 100)).all(axis=1), "condition tokens outside 0..100", tok)
        v.need(((rnd >= 0) & (rnd <= 100)).all(axis=1), "condition rounds outside 0..100", rnd)
        v.need(
            ((cond != 0) | ((tok == 0) & (rnd == 0))).all(axis=1),
            "tokens or rounds on a condition not in play",
            np.concatenate([cond, tok, rnd], 1),
        )

        # monster: trackers within [0, max], max within the tracker caps
        m, rev = i64("monster"), S["m_revealed"] == 1
        v.need((m >= -1) & (m < C.NMONSTER), "monster id out of range", m)
        mlev = np.asarray(T.m_level, np.int64)[np.clip(m, 0, C.NMONSTER - 1)]
        v.need((m < 0) | (mlev == level), "monster of another Level", m)
        a, amax, h, hmax = i64("m_armor"), i64("m_armor_max"), i64("m_health"), i64("m_health_max")
        trk = np.stack([a, amax, h, hmax], 1)
        v.need(~rev | (m >= 0), "revealed monster missing")
        v.need(
            ~rev | ((a >= 0) & (a <= amax) & (amax <= int(T.armor_cap))),
            f"monster armor outside [0, max <= {int(T.armor_cap)}]",
            trk,
        )
        v.need(
            ~rev | ((h >= 0) & (h <= hmax) & (hmax <= int(T.health_cap))),
            f"monster health outside [0, max <= {int(T.health_cap)}]",
            trk,
        )
        v.need(
            rev | ((a == 0) & (amax == 0) & (h == 0) & (hmax == 0)),
            "unrevealed monster with non-zero trackers",
            trk,
        )
        v.need(rev | (S["combat"] == 0), "combat with an unrevealed monster")
        v.need((S["roll"] >= 0) & (S["roll"] <= 6), "monster roll outside 0..6", S["roll"])
        v.need(
            (S["pend_atk"] >= -1) & (S["pend_atk"] < C.MAX_ATTACKS),
            "pending attack index",
            S["pend_atk"],
        )
        v.need(S["round"] >= 0, "negative round", S["round"])
        wu = S["win_used"]
        v.need(((wu == 0) | (wu == 1)).all(axis=1), "win_used holds values other than 0/1")
        v.need(
            (phase != C.PH_HUNGER) | (S["hunger_req"] >= 0),
            "negative hunger requirement",
            S["hunger_req"],
        )
        won = outcome == C.O_WIN
        score = (res * np.asarray(T.score_pts, np.int64)).sum(axis=1)
        v.need(
            ~won | (i64("score") == score),
            "score differs from the resource points",
            np.stack([i64("score"), score], 1),
        )
        v.need(
            ~won | ((S["title"] >= 0) & (S["title"] < len(T.title_min))),
            "title out of range",
            S["title"],
        )
        v.need(
            (S["forced_i"] >= 0) & (S["forced_i"] <= S["forced_n"]) & (S["forced_n"] <= 16),
            "forced dice counters",
        )
        v.raise_if_any(S)

    def check_transition(self, core, before, after) -> None:
        """``after`` is ``before`` plus one decision (no autoreset); rows of
        games already over in ``before`` are skipped. Batches allowed."""
        from dungeonrl.envs.unbroken import consts as C

        B, A = as_batch(before), as_batch(after)
        live = B["phase"] != C.PH_OVER
        B, A = B[live], A[live]
        v = Violations("Unbroken transition")
        for f in (
            "seed",
            "episode",
            "difficulty",
            "character",
            "cfg_character",
            "reward_mode",
            "auto_advance",
            "max_steps",
        ):
            v.need(A[f] == B[f], f"{f} changed", np.stack([B[f], A[f]], 1))
        v.need(
            A["steps"].astype(np.int64) >= B["steps"].astype(np.int64) + 1,
            "decision counter did not increase",
            np.stack([B["steps"], A["steps"]], 1),
        )
        lb, la = B["level"].astype(np.int64), A["level"].astype(np.int64)
        v.need((la >= lb) & (la <= lb + 1), "level went back or skipped", np.stack([lb, la], 1))
        v.need(
            ~((B["skill_owned"] == 1) & (A["skill_owned"] == 0)).any(axis=1),
            "an owned skill was lost",
        )
        v.need(
            (A["rng"][:, 0] == B["rng"][:, 0]) & (A["rng"][:, 1] >= B["rng"][:, 1]),
            "generator key changed or its counter went back",
        )
        v.raise_if_any(B)

    # -- hidden information --------------------------------------------------------------
    # (resample_hidden: the game's own sampler, envs/unbroken/infostate.py, through
    # GameHooks.resample_hidden)
    def change_visible(self, core, state):
        from dungeonrl.envs.unbroken import consts as C

        out = as_row(state)
        s = out[0]
        bar = int(core.T.bars[C.R_S])
        s["res"][C.R_S] += 1 if int(s["res"][C.R_S]) < bar else -1
        return out

    # -- snapshots, kernels, interpreter -----------------------------------------------------
    def corruptions(self, core, state) -> list:
        from dungeonrl.envs.unbroken import consts as C

        out = []

        def edit(label, fn):
            r = as_row(state)
            fn(r[0])
            out.append((label, r))

        edit("phase out of range", lambda s: s.__setitem__("phase", 99))
        edit("level 0", lambda s: s.__setitem__("level", 0))
        edit("negative resource", lambda s: s["res"].__setitem__(C.R_S, -1))
        edit(
            "resource above its bar",
            lambda s: s["res"].__setitem__(C.R_FOOD, int(core.T.bars[C.R_FOOD]) + 1),
        )
        edit("empty weapon stack", lambda s: s.__setitem__("wstack_n", 0))
        edit("weapon id out of range", lambda s: s["wstack"].__setitem__(0, 99))
        edit("monster id out of range", lambda s: s.__setitem__("monster", 100))
        edit("time beyond the track", lambda s: s.__setitem__("time", int(core.T.time_track) + 1))

        def bad_card(s):
            pile = "enc_deck" if int(s["enc_deck_n"]) > 0 else "enc_disc"
            s[pile][0] = 999
            if int(s[pile + "_n"]) == 0:
                s[pile + "_n"] = 1

        edit("encounter card id out of range", bad_card)
        edit(
            "stored mask does not match",
            lambda s: s["legal"].__setitem__(slice(None), 1 - np.asarray(s["legal"])),
        )
        return out

    def batch_kernels(self) -> list:
        from dungeonrl.envs.unbroken import kernels

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

    # -- late-game starts --------------------------------------------------------------------
    def jump_start(self, core, states, rng):
        """Turn freshly reset records (Level 1, Preparation Step or the
        starting Skill choice) into the start of Level 2, 3 or 4 with random
        resources (at least half of each bar), a random weapon path, a few
        Skills and the Level's Time. The edit keeps every invariant of
        :meth:`check_invariants`; the stored masks are recomputed with
        ``core.refresh``."""
        from dungeonrl.envs.unbroken import consts as C

        T = core.T
        rows = np.flatnonzero(
            np.isin(states["phase"], (C.PH_PREP, C.PH_SKILLPICK)) & (states["level"] == 1)
        )
        for i in rows:
            s = states[i]
            level = int(rng.integers(2, 5))
            s["level"] = level
            s["uses"] = level
            s["time"] = int(T.time_start[level - 1])
            bars = np.asarray(T.bars).astype(np.int64)
            s["res"][:] = rng.integers(bars // 2, bars + 1)
            w = 0
            for _ in range(int(rng.integers(0, 3))):
                nxt = [int(x) for x in T.w_upg_to[w] if x >= 0]
                if not nxt:
                    break
                w = nxt[int(rng.integers(len(nxt)))]
                s["wstack"][int(s["wstack_n"])] = w
                s["wstack_n"] += 1
            for _ in range(int(rng.integers(0, 4))):
                kd = int(s["skill_deck_n"])
                if kd == 0:
                    break
                k = int(rng.integers(kd))
                skill = int(s["skill_deck"][k])
                rest = [int(x) for j, x in enumerate(s["skill_deck"][:kd]) if j != k]
                s["skill_deck"][:] = -1
                s["skill_deck"][: kd - 1] = rest
                s["skill_deck_n"] = kd - 1
                s["skill_owned"][skill] = 1
        core.refresh(states)
        return rows


HOOKS = UnbrokenHooks()
