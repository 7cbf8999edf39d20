"""Per-game hooks of the conformance suite (``tests/test_conformance_*.py``,
set-up in ``tests/conformance_common.py``).

The suite runs every check on every game of ``dungeonrl.registry.GAMES``;
what it cannot know generically, each game provides as a :class:`GameHooks`
object in :data:`HOOKS` (game name -> hooks): defined here (Unbroken) or in
its own module ``tests/hooks_<game>.py`` exporting ``HOOKS`` (found
automatically). A new game joins the suite by registering itself and adding
its hooks; ``test_every_suite_game_has_hooks`` fails, naming the game, for a
registered game without hooks (its other conformance tests skip with a
pointer there). Hook writers can reuse :class:`Violations`,
:func:`pile_counts`, :func:`as_batch` and :func:`as_row`.

What a hooks object provides (``state`` arguments are one record: a
``numpy.void`` row or a 1-row array; ``*_state`` results are fresh 1-row
arrays of ``core.state_dtype``):

* ``configs``: the core kwargs to cover (every difficulty, player count...);
* ``soak_games``: random games per configuration in the soak (default 1000);
* ``sample_every``: decisions between the states sampled for the mask,
  hidden-information and snapshot tests (default 2);
* ``default_config``: kwargs of the default env (checkers, adapters);
* ``truncate_config``: kwargs of a core with a tiny step cap (the step cap
  must be reached before the rules can end a random game);
* ``short_config``: kwargs of short games for the interpreter run;
* ``check_invariants(core, state)``: an *independent* checker written from
  the rules (it never calls the kernels); raises ``AssertionError`` naming
  every violated invariant;
* ``check_transition(core, before, after)``: invariants between a record and
  the record after one decision (monotone counters, constant set-up);
* ``resample_hidden(core, state, rng)``: a copy with everything the player
  cannot see resampled (deck orders, unrevealed cards, the generator);
* ``change_visible(core, state)``: a copy with something the player can see
  changed (positive control of the hidden-information test);
* ``chance_fields``: the record fields that change when chance is consumed;
* ``corruptions(core, state)``: ``(label, record)`` pairs that break an
  invariant the kernels rely on (``set_state`` must raise
  ``CorruptStateError``);
* ``batch_kernels()``: the numba dispatchers behind the core (each must be
  compiled exactly once by the adapters);
* ``prepare_interpreted(core, wrap)``: make the core's content tables usable
  with ``NUMBA_DISABLE_JIT=1`` (``wrap`` turns a structured array into the
  field-first record view of the interpreter harness);
* ``jump_start(core, states, rng)`` (optional): edit freshly reset records
  into starts deep in the game (later Levels, more resources), so a
  random-play soak also covers the late game; returns the rows edited;
* ``known_bugs``: substrings of invariant messages of reported bugs (see
  the attribute's comment).

Multi-agent games: ``resample_hidden`` and ``change_visible`` also take
``player=`` (the seat whose view must not change / must change).
"""
from __future__ import annotations

import numpy as np


def as_record(state):
    """One record (``numpy.void``) from a record or a 1-row array."""
    if isinstance(state, np.ndarray):
        return state.reshape(-1)[0]
    return state


def as_row(state):
    """A fresh 1-row array holding a copy of ``state``."""
    if isinstance(state, np.ndarray):
        return state.reshape(-1)[:1].copy()
    return np.array([state], dtype=state.dtype)


def as_batch(state):
    """A 1-D structured array from a record, a 1-row array or a batch."""
    if isinstance(state, np.ndarray):
        return state.reshape(-1)
    return np.array([state], dtype=state.dtype)


class InvariantError(AssertionError):
    """Raised by ``check_invariants`` / ``check_transition``; ``violations``
    lists ``(message, rows)`` pairs (rows: indices into the batch checked)."""

    def __init__(self, text, violations):
        super().__init__(text)
        self.violations = violations


class Violations:
    """Collects vectorised checks over a batch; raises one InvariantError
    naming each broken invariant, how many rows break it and an example."""

    def __init__(self, what):
        self.what = what
        self.bad = []

    def need(self, ok, msg, show=None):
        ok = np.asarray(ok, bool)
        if ok.all():
            return
        rows = np.flatnonzero(~ok)
        i = int(rows[0])
        ex = ""
        if show is not None:
            val = np.asarray(show)
            val = val[i] if val.ndim else val
            ex = f" (row {i}: {np.asarray(val).tolist()})"
        self.bad.append((i, f"{msg}: {len(rows)} row(s){ex}", rows))

    def raise_if_any(self, S):
        if self.bad:
            i = self.bad[0][0]
            where = ""
            if "phase" in S.dtype.names:
                where = f" [first bad row {i}: phase {int(S['phase'][i])}, level " \
                        f"{int(S['level'][i]) if 'level' in S.dtype.names else '?'}]"
            raise InvariantError(f"{len(self.bad)} {self.what} invariant(s) broken{where}: "
                                 + "; ".join(m for _, m, _ in self.bad),
                                 [(m, r) for _, m, r in self.bad])


def pile_counts(v, cards, cap, counts, nvals, what):
    """Per-row count of each value in ``cards[:, :counts]`` (shape
    ``(n, nvals)``); records size, id-range and empty-slot (-1) violations."""
    cards = np.asarray(cards)[:, :cap].astype(np.int64)
    n = cards.shape[0]
    ok_n = (counts >= 0) & (counts <= cap)
    v.need(ok_n, f"{what} size outside [0, {cap}]", counts)
    cnt = np.clip(counts, 0, cap)
    inside = np.arange(cap)[None, :] < cnt[:, None]
    v.need(((cards == -1) | inside).all(axis=1), f"{what} slot beyond its count is not -1", cards)
    ok_id = (cards >= 0) & (cards < nvals)
    v.need((ok_id | ~inside).all(axis=1), f"{what} holds an id outside [0, {nvals})", cards)
    rows, cols = np.nonzero(inside & ok_id)
    flat = rows * nvals + cards[rows, cols]
    return np.bincount(flat, minlength=n * nvals).reshape(n, nvals)


class GameHooks:
    """Base class: every hook a game must provide (see module doc)."""

    name: str = ""
    configs: list = []
    default_config: dict = {}
    truncate_config: dict = {}
    short_config: dict = {}
    chance_fields: tuple = ()
    #: random games played per configuration by the soak (CI: >= 1,000 per
    #: game; long games may cap their episodes with a ``max_steps``-like
    #: option in ``configs`` to keep the soak fast)
    soak_games: int = 1000
    #: decisions between two samples of ``conformance_common.sampled_states``
    #: (two live states each time, 20 per configuration and start kind)
    sample_every: int = 2

    def check_invariants(self, core, state) -> None:
        raise NotImplementedError

    def check_transition(self, core, before, after) -> None:
        pass

    def resample_hidden(self, core, state, rng):
        raise NotImplementedError

    def change_visible(self, core, state):
        raise NotImplementedError

    def corruptions(self, core, state) -> list:
        raise NotImplementedError

    def batch_kernels(self) -> list:
        raise NotImplementedError

    def prepare_interpreted(self, core, wrap) -> None:
        pass

    jump_start = None

    #: invariant messages (substrings) of bugs already reported: the soak
    #: counts rows that break only these, stops checking those rows, and
    #: marks itself xfail; a dedicated strict-xfail test pins each bug.
    known_bugs: dict = {}


# ---------------------------------------------------------------------------------------
# Unbroken
# ---------------------------------------------------------------------------------------
class UnbrokenHooks(GameHooks):
    """Unbroken (one player). Invariants from the rulebook and the record's
    documented fields (``envs/unbroken/state.py``); table sizes from
    ``core.T``."""

    name = "unbroken"
    configs = ([{"difficulty": d, "character": "random"} for d in ("easy", "normal", "hard")]
               + [{"difficulty": "normal", "character": "random", "auto_advance": False}])
    default_config = {}
    truncate_config = {"max_steps": 5, "character": "random"}
    short_config = {"max_steps": 60, "character": "random"}
    chance_fields = ("rng",)
    known_bugs = {}   # (the weapon-sheet duplication it once listed is fixed)

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
        v.need((i64("stage") >= 0) & (i64("stage") <= C.S_MANDATORY), "stage out of range",
               i64("stage"))
        v.need((outcome >= 0) & (outcome < len(C.OUTCOME_NAMES)), "outcome out of range", outcome)
        v.need(over == (outcome != C.O_PLAYING),
               "phase and outcome disagree on whether the game is over", outcome)
        steps, cap = i64("steps"), i64("max_steps")
        v.need((steps >= 0) & (steps <= cap), "steps outside [0, max_steps]", steps)
        v.need(cap <= core.spec.max_episode_steps, "max_steps above the spec's cap", cap)
        ch = i64("character")
        v.need((ch >= 0) & (ch < C.NCHAR), "character out of range", ch)
        v.need((i64("cfg_character") == -1) | (i64("cfg_character") == ch),
               "character differs from the configured one", ch)
        v.need((i64("difficulty") >= 0) & (i64("difficulty") < len(C.DIFFICULTIES)),
               "difficulty out of range", i64("difficulty"))
        v.need((level >= 1) & (level <= C.NLEVEL), "level outside 1..4", level)
        for f in ("combat", "in_battle", "dead", "commit", "commit_now", "defend", "ambushed",
                  "tricked", "first_done", "lose_turn", "extra_attack", "m_revealed"):
            v.need((S[f] == 0) | (S[f] == 1), f"flag {f} not 0/1", S[f])
        v.need((S["dead"] == 0) | (outcome == C.O_LOSS), "dead but the game was not lost")
        v.need((outcome != C.O_WIN) | (level == C.NLEVEL), "won before Level 4", level)
        v.need((S["in_battle"] == 0) | (S["combat"] == 1), "in battle outside combat")

        # stored legal mask: 0/1, all zero iff the game is over
        legal = S["legal"]
        v.need(((legal == 0) | (legal == 1)).all(axis=1), "legal mask holds values other than 0/1")
        v.need(legal.any(axis=1) != over, "stored legal mask all-zero iff game over is broken",
               legal.sum(axis=1))

        # resources within their bars, Time within its track
        res = i64("res")
        bars = np.asarray(T.bars, np.int64)
        v.need((res >= 0).all(axis=1), "negative resource", res)
        v.need((res <= bars).all(axis=1), f"resource above its bar {bars.tolist()}", res)
        t = i64("time")
        v.need((t >= 0) & (t <= int(T.time_track)), f"time outside [0, {int(T.time_track)}]", t)
        v.need(~((level == C.NLEVEL) & (S["combat"] == 1)) | (t == 0),
               "Time left on Level 4 after the Time Tracker is gone", t)
        v.need((S["uses"] >= 0) & (S["uses"] <= 4), "ability uses outside 0..4", S["uses"])

        # encounter cards: every card of the deck composition in exactly one zone
        ne = int(T.n_enc_types)
        want = np.bincount(np.asarray(T.deck_cards, np.int64), minlength=ne)
        have = (pile_counts(v, S["enc_deck"], S["enc_deck"].shape[1], i64("enc_deck_n"), ne,
                             "encounter deck")
                + pile_counts(v, S["enc_disc"], S["enc_disc"].shape[1], i64("enc_disc_n"), ne,
                               "encounter discard")
                + pile_counts(v, S["revealed"], C.MAX_REVEAL, i64("revealed_n"), ne,
                               "revealed cards"))
        v.need((have == want).all(axis=1),
               "encounter cards not each in exactly one zone (deck + discard + revealed != "
               "deck composition; shown: copies minus expected)", have - want)
        rn = i64("revealed_n")
        v.need((rn == 0) | (phase == C.PH_EXPLORE) | over,
               "revealed cards outside the Exploration Step", rn)
        v.need((phase != C.PH_EXPLORE) | (rn >= 1), "Exploration Step with no revealed card")
        v.need((S["reveal_bonus"] >= -8) & (S["reveal_bonus"] <= 8), "reveal bonus out of range",
               S["reveal_bonus"])

        # skills: every skill in exactly one place (deck, discard, offer, owned)
        ns = int(T.n_skills)
        owned = S["skill_owned"]
        v.need(((owned == 0) | (owned == 1)).all(axis=1), "skill_owned holds values other than 0/1")
        v.need(~owned[:, ns:].astype(bool).any(axis=1), "a skill id beyond the content is owned")
        places = (pile_counts(v, S["skill_deck"], C.MAX_SKILLS, i64("skill_deck_n"), ns, "skill deck")
                  + pile_counts(v, S["skill_disc"], C.MAX_SKILLS, i64("skill_disc_n"), ns,
                                 "skill discard")
                  + pile_counts(v, S["skill_offer"], 2, i64("skill_offer_n"), ns, "skill offer")
                  + (owned[:, :ns] == 1))
        v.need((places == 1).all(axis=1),
               "skills not each in exactly one place (count per skill id shown)", places)
        ko = i64("skill_offer_n")
        v.need((ko == 0) | (phase == C.PH_SKILLPICK) | over, "skills offered outside the choice",
               ko)
        v.need((phase != C.PH_SKILLPICK) | (ko >= 1), "skill choice with no skill offered")
        v.need(S["skill_pending"] >= 0, "negative skill_pending", S["skill_pending"])

        # weapons: a stack on Bare Hands; every weapon sheet in at most one place
        wn, an = i64("wstack_n"), i64("waside_n")
        v.need((wn >= 1) & (wn + an <= C.WSTACK), "weapon stack / set-aside sizes", wn)
        v.need(S["wstack"][:, 0] == 0, "weapon stack does not start with Bare Hands",
               S["wstack"][:, 0])
        sheets = (pile_counts(v, S["wstack"], C.WSTACK, wn, C.NWEAPON, "weapon stack")
                  + pile_counts(v, S["waside"], C.WSTACK, an, C.NWEAPON, "set-aside weapons"))
        v.need((sheets <= 1).all(axis=1),
               "a weapon sheet is in two places (stack then set-aside sheets shown)",
               np.concatenate([S["wstack"], S["waside"]], axis=1))
        v.need((an > 0) | (S["waside_rounds"] == 0), "waside_rounds without set-aside sheets")

        # conditions: 0 in the deck, 1 active, 2 waiting, 3 both
        cond, tok, rnd = i64("cond"), i64("cond_tokens"), i64("cond_rounds")
        v.need(((cond >= 0) & (cond <= 3)).all(axis=1), "condition value outside 0..3", cond)
        v.need(((tok >= 0) & (tok <= 100)).all(axis=1), "condition tokens outside 0..100", tok)
        v.need(((rnd >= 0) & (rnd <= 100)).all(axis=1), "condition rounds outside 0..100", rnd)
        v.need(((cond != 0) | ((tok == 0) & (rnd == 0))).all(axis=1),
               "tokens or rounds on a condition not in play", np.concatenate([cond, tok, rnd], 1))

        # monster: trackers within [0, max], max within the tracker caps
        m, rev = i64("monster"), S["m_revealed"] == 1
        v.need((m >= -1) & (m < C.NMONSTER), "monster id out of range", m)
        mlev = np.asarray(T.m_level, np.int64)[np.clip(m, 0, C.NMONSTER - 1)]
        v.need((m < 0) | (mlev == level), "monster of another Level", m)
        a, amax, h, hmax = i64("m_armor"), i64("m_armor_max"), i64("m_health"), i64("m_health_max")
        trk = np.stack([a, amax, h, hmax], 1)
        v.need(~rev | (m >= 0), "revealed monster missing")
        v.need(~rev | ((a >= 0) & (a <= amax) & (amax <= int(T.armor_cap))),
               f"monster armor outside [0, max <= {int(T.armor_cap)}]", trk)
        v.need(~rev | ((h >= 0) & (h <= hmax) & (hmax <= int(T.health_cap))),
               f"monster health outside [0, max <= {int(T.health_cap)}]", trk)
        v.need(rev | ((a == 0) & (amax == 0) & (h == 0) & (hmax == 0)),
               "unrevealed monster with non-zero trackers", trk)
        v.need(rev | (S["combat"] == 0), "combat with an unrevealed monster")
        v.need((S["roll"] >= 0) & (S["roll"] <= 6), "monster roll outside 0..6", S["roll"])
        v.need((S["pend_atk"] >= -1) & (S["pend_atk"] < C.MAX_ATTACKS), "pending attack index",
               S["pend_atk"])
        v.need(S["round"] >= 0, "negative round", S["round"])
        wu = S["win_used"]
        v.need(((wu == 0) | (wu == 1)).all(axis=1), "win_used holds values other than 0/1")
        v.need((phase != C.PH_HUNGER) | (S["hunger_req"] >= 0), "negative hunger requirement",
               S["hunger_req"])
        won = outcome == C.O_WIN
        score = (res * np.asarray(T.score_pts, np.int64)).sum(axis=1)
        v.need(~won | (i64("score") == score), "score differs from the resource points",
               np.stack([i64("score"), score], 1))
        v.need(~won | ((S["title"] >= 0) & (S["title"] < len(T.title_min))), "title out of range",
               S["title"])
        v.need((S["forced_i"] >= 0) & (S["forced_i"] <= S["forced_n"]) & (S["forced_n"] <= 16),
               "forced dice counters")
        v.raise_if_any(S)

    def check_transition(self, core, before, after) -> None:
        """``after`` is ``before`` plus one decision (no autoreset); rows of
        games already over in ``before`` are skipped. Batches allowed."""
        from dungeonrl.envs.unbroken import consts as C
        B, A = as_batch(before), as_batch(after)
        live = B["phase"] != C.PH_OVER
        B, A = B[live], A[live]
        v = Violations("Unbroken transition")
        for f in ("seed", "episode", "difficulty", "character", "cfg_character", "reward_mode",
                  "auto_advance", "max_steps"):
            v.need(A[f] == B[f], f"{f} changed", np.stack([B[f], A[f]], 1))
        v.need(A["steps"].astype(np.int64) >= B["steps"].astype(np.int64) + 1,
               "decision counter did not increase", np.stack([B["steps"], A["steps"]], 1))
        lb, la = B["level"].astype(np.int64), A["level"].astype(np.int64)
        v.need((la >= lb) & (la <= lb + 1), "level went back or skipped", np.stack([lb, la], 1))
        v.need(~((B["skill_owned"] == 1) & (A["skill_owned"] == 0)).any(axis=1),
               "an owned skill was lost")
        v.need((A["rng"][:, 0] == B["rng"][:, 0]) & (A["rng"][:, 1] >= B["rng"][:, 1]),
               "generator key changed or its counter went back")
        v.raise_if_any(B)

    # -- hidden information --------------------------------------------------------------
    def resample_hidden(self, core, state, rng):
        out = as_row(state)
        s = out[0]
        dn = int(s["enc_deck_n"])
        s["enc_deck"][:dn] = rng.permutation(np.asarray(s["enc_deck"][:dn]))
        kd = int(s["skill_deck_n"])
        s["skill_deck"][:kd] = rng.permutation(np.asarray(s["skill_deck"][:kd]))
        s["rng"][:] = rng.integers(0, 2**64 - 1, size=2, dtype=np.uint64, endpoint=True)
        s["seed"] = rng.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True)
        if int(s["m_revealed"]) == 0:
            level = int(s["level"])
            choices = [int(x) for x in core.T.m_by_level[level - 1]] + [-1]
            choices = [c for c in choices if c != int(s["monster"])]
            s["monster"] = choices[int(rng.integers(len(choices)))]
        return out

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
        edit("resource above its bar",
             lambda s: s["res"].__setitem__(C.R_FOOD, int(core.T.bars[C.R_FOOD]) + 1))
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
        edit("stored mask does not match",
             lambda s: s["legal"].__setitem__(slice(None), 1 - np.asarray(s["legal"])))
        return out

    def batch_kernels(self) -> list:
        from dungeonrl.envs.unbroken import kernels
        return [kernels.reset_batch, kernels.step_observe, kernels.mask_batch,
                kernels.observe_batch, kernels.step_autoreset, kernels.refresh_batch]

    def prepare_interpreted(self, core, wrap) -> None:
        core.TR = wrap(core.TR)

    # -- late-game starts --------------------------------------------------------------------
    def jump_start(self, core, states, rng):
        """Turn freshly reset records (Level 1, Preparation Step or the
        starting Skill choice) into the start of Level 2, 3 or 4 with random resources (at least half of each
        bar), a random weapon path, a few Skills and the Level's Time. The
        edit keeps every invariant of :meth:`check_invariants`; the stored
        masks are recomputed with ``core.refresh``."""
        from dungeonrl.envs.unbroken import consts as C
        T = core.T
        rows = np.flatnonzero(np.isin(states["phase"], (C.PH_PREP, C.PH_SKILLPICK))
                              & (states["level"] == 1))
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


HOOKS: dict[str, GameHooks] = {h.name: h for h in (UnbrokenHooks(),)}


def _discover() -> None:
    """Add the hooks of every ``tests/hooks_<game>.py`` module (each exports
    ``HOOKS``, a :class:`GameHooks` instance), so a game's author can add its
    hooks without editing this file. Import errors propagate."""
    import importlib
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    for fn in sorted(os.listdir(here)):
        if fn.startswith("hooks_") and fn.endswith(".py"):
            h = importlib.import_module(fn[:-3]).HOOKS
            if not isinstance(h, GameHooks):
                raise TypeError(f"{fn}: HOOKS must be a GameHooks instance")
            HOOKS[h.name] = h


_discover()


def get_hooks(name: str) -> GameHooks:
    if name not in HOOKS:
        raise LookupError(
            f"game {name!r} is registered but has no conformance hooks: add a GameHooks "
            f"subclass (configs, invariant checker, hidden-information resampler...) as "
            f"HOOKS in tests/hooks_{name}.py (or to HOOKS in tests/game_hooks.py)")
    return HOOKS[name]
