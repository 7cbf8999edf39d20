"""Valid values of every Unbroken state field (``state.py``), as data, and the
cross-field rules; ``KernelCore.check_state`` proves a record is one the rules could
reach, or raises :class:`~dungeonrl.envs.core.errors.CorruptStateError`
naming the field and the value.

The engine header's fields (``rng``, ``seed``, ``forced*``, ``steps``,
``max_steps``, ``auto_advance``, ``reward_mode``, ``outcome``, ``legal``...)
are declared once in :mod:`dungeonrl.envs.core.validate`; this module only
gives the game's parameters for them (:data:`PARAMS`). Used at ``set_state``
time only, never per step.
"""

from __future__ import annotations

import numpy as np

from ..core.validate import ANY, FLAG, OneOf, Prefix, R  # noqa: F401
from . import consts as C

INT16_MAX = 2**15 - 1

#: the game's name in error messages
GAME = "Unbroken"

#: configurations whose records the fuzzers corrupt and restore
#: (``dungeonrl.benchmarks.fuzz``, ``tests/untrusted/test_hardening.py``)
FUZZ_CONFIGS = (
    {"character": "random"},
    {"difficulty": "hard", "character": "random", "auto_advance": False},
)

#: the game's values for the shared header rules
PARAMS = {
    "forced_lo": 1,
    "forced_hi": 6,  # forced results are Slashes Die faces
    "max_reward_mode": 1,  # win_loss, score
    "max_outcome": len(C.OUTCOME_NAMES) - 1,
}


# bounds that depend on the content tables (``ctx.T``)
def _bars(ctx):
    """bars"""
    return np.asarray(ctx.T.bars, np.int64)


def _track(ctx):
    """time_track"""
    return int(ctx.T.time_track)


def _armor_cap(ctx):
    """armor_cap"""
    return int(ctx.T.armor_cap)


def _health_cap(ctx):
    """health_cap"""
    return int(ctx.T.health_cap)


def _last_enc(ctx):
    """n_enc_types - 1"""
    return int(ctx.T.n_enc_types) - 1


def _last_skill(ctx):
    """n_skills - 1"""
    return int(ctx.T.n_skills) - 1


def _n_skills(ctx):
    """n_skills"""
    return int(ctx.T.n_skills)


def _last_title(ctx):
    """len(title_min) - 1"""
    return len(ctx.T.title_min) - 1


def _max_score(ctx):
    """sum(bars * score_pts)"""
    return int((np.asarray(ctx.T.bars, np.int64) * np.asarray(ctx.T.score_pts, np.int64)).sum())


#: field -> rule, for every field of ``STATE_DTYPE`` that is not a header field
FIELD_RULES = {
    "character": R(0, C.NCHAR - 1),
    "difficulty": R(0, len(C.DIFFICULTIES) - 1),
    "cfg_character": R(-1, C.NCHAR - 1),
    "score": R(0, _max_score),
    "title": R(-1, _last_title),
    # flow
    "phase": R(0, C.NPHASE - 1),
    "stage": R(0, C.S_MANDATORY),
    "level": R(1, C.NLEVEL),
    "combat": FLAG,
    "in_battle": FLAG,
    "dead": FLAG,
    # resources
    "res": R(0, _bars),
    "time": R(0, _track),
    "uses": R(0, 4),
    # weapons
    "wstack": Prefix("wstack_n", 0, C.NWEAPON - 1, fill=-1),
    "wstack_n": R(1, C.WSTACK),
    "waside": Prefix("waside_n", 0, C.NWEAPON - 1, fill=-1),
    "waside_n": R(0, C.WSTACK - 1),
    "waside_rounds": R(0, 20),  # content: downgrade rounds <= 20
    # encounter piles
    "enc_deck": Prefix("enc_deck_n", 0, _last_enc, fill=-1),
    "enc_deck_n": R(0, C.DECK_CAP),
    "enc_disc": Prefix("enc_disc_n", 0, _last_enc, fill=-1),
    "enc_disc_n": R(0, C.DECK_CAP),
    "revealed": Prefix("revealed_n", 0, _last_enc, fill=-1),
    "revealed_n": R(0, C.MAX_REVEAL),
    "reveal_bonus": R(-8, 8),
    "commit": FLAG,
    "commit_now": FLAG,
    # skills
    "skill_deck": Prefix("skill_deck_n", 0, _last_skill, fill=-1),
    "skill_deck_n": R(0, _n_skills),
    "skill_disc": Prefix("skill_disc_n", 0, _last_skill, fill=-1),
    "skill_disc_n": R(0, _n_skills),
    "skill_owned": FLAG,
    "skill_offer": Prefix("skill_offer_n", 0, _last_skill, fill=-1),
    "skill_offer_n": R(0, 2),
    "skill_pending": R(0, C.MAX_SKILLS),
    "skill_after": R(0, C.S_MANDATORY),
    # conditions
    "cond": R(0, 3),
    "cond_tokens": R(0, 100),
    "cond_rounds": R(0, 100),
    "evade": R(0, 2**C.NCOND - 1),
    # monster
    "monster": R(-1, C.NMONSTER - 1),
    "m_revealed": FLAG,
    "m_armor": R(0, _armor_cap),
    "m_armor_max": R(0, _armor_cap),
    "m_health": R(0, _health_cap),
    "m_health_max": R(0, _health_cap),
    "defend": FLAG,
    "ambushed": FLAG,
    "tricked": FLAG,
    # battle
    # the kernel counts rounds up to INT16_MAX and stops there (no wrap)
    "round": R(0, INT16_MAX),
    "first_done": FLAG,
    "lose_turn": FLAG,
    "extra_attack": FLAG,
    "pend_atk": R(-1, C.MAX_ATTACKS - 1),
    "pend_power": R(-999, 999),  # weapon power + content bonuses (<= 99 each)
    "pend_armor0": R(0, _armor_cap),
    "roll": R(0, 6),
    "rerolls": R(0, 12),
    # response window
    "win_trigger": R(0, C.NTRIG - 1),
    "win_resume": R(0, C.S_MANDATORY),
    "win_used": FLAG,
    "hunger_req": R(0, C.MAX_EAT),
    "scratch": R(-999, 999),  # always written before it is read
}


# --- cross-field rules --------------------------------------------------------------------
def flow(ctx):
    over = ctx.i("phase") == C.PH_OVER
    out = ctx.i("outcome")
    if over != (out != C.O_PLAYING):
        ctx.fail(
            "outcome",
            out,
            f"phase {C.PHASE_NAMES[ctx.i('phase')]} disagrees on whether the game is over",
        )
    steps, cap = ctx.i("steps"), ctx.i("max_steps")
    if not over and steps >= cap:
        ctx.fail("steps", steps, f"a running game at its step cap {cap} (it would play past it)")
    if ctx.i("dead") and out != C.O_LOSS:
        ctx.fail("dead", 1, "the hero died but the game was not lost")
    if out == C.O_WIN and ctx.i("level") != C.NLEVEL:
        ctx.fail("level", ctx.i("level"), "a won game ends on Level 4")
    if ctx.i("in_battle") and not ctx.i("combat"):
        ctx.fail("in_battle", 1, "in battle outside combat")
    cfg = ctx.i("cfg_character")
    if cfg not in (-1, ctx.i("character")):
        ctx.fail("cfg_character", cfg, f"differs from character {ctx.i('character')}")
    if ctx.i("level") == C.NLEVEL and ctx.i("combat") and ctx.i("time") != 0:
        ctx.fail("time", ctx.i("time"), "Time left on Level 4 after the tracker is gone")
    legal = ctx.a("legal")
    if legal.any() == over:
        ctx.fail("legal", legal, "the stored mask must be all zero exactly when the game is over")


def score(ctx):
    if ctx.i("outcome") == C.O_WIN:
        want = int((ctx.a("res") * np.asarray(ctx.T.score_pts, np.int64)).sum())
        if ctx.i("score") != want:
            ctx.fail("score", ctx.i("score"), f"a won game scores its resources ({want})")
        mins = np.asarray(ctx.T.title_min, np.int64)
        t = int(np.flatnonzero(mins <= want)[-1])
        if ctx.i("title") != t:
            ctx.fail("title", ctx.i("title"), f"score {want} earns title {t}")
    elif ctx.i("score") != 0 or ctx.i("title") != -1:
        ctx.fail("score", ctx.i("score"), "score and title are set only when the game is won")


def _count(arr, n, nvals):
    return np.bincount(np.asarray(arr[:n], np.int64), minlength=nvals)


def encounter_zones(ctx):
    """Every encounter card of the deck composition in exactly one zone."""
    ne = int(ctx.T.n_enc_types)
    want = np.bincount(np.asarray(ctx.T.deck_cards, np.int64), minlength=ne)
    have = (
        _count(ctx.a("enc_deck"), ctx.i("enc_deck_n"), ne)
        + _count(ctx.a("enc_disc"), ctx.i("enc_disc_n"), ne)
        + _count(ctx.a("revealed"), ctx.i("revealed_n"), ne)
    )
    if not np.array_equal(have, want):
        k = int(np.flatnonzero(have != want)[0])
        ctx.fail(
            "enc_deck",
            have[k],
            f"encounter card {k} is in {have[k]} zone slots, the deck "
            f"has {want[k]} copies (every card in exactly one zone)",
        )
    outside, none = (
        "revealed cards outside the Exploration Step",
        "an Exploration Step with no revealed card",
    )
    _shown_in_phase(ctx, "revealed_n", C.PH_EXPLORE, outside, none)


def _shown_in_phase(ctx, field: str, phase: int, outside: str, none: str) -> None:
    """Cards counted by ``field`` lie on the table in ``phase`` (at least
    one: else ``none``) and only then or once the game is over (else
    ``outside``)."""
    n, ph = ctx.i(field), ctx.i("phase")
    if n and ph not in (phase, C.PH_OVER):
        ctx.fail(field, n, outside)
    if ph == phase and n < 1:
        ctx.fail(field, n, none)


def skill_zones(ctx):
    """Every skill in exactly one place (deck, discard, offer, owned)."""
    ns = int(ctx.T.n_skills)
    owned = ctx.a("skill_owned")
    if owned[ns:].any():
        ctx.fail("skill_owned", owned, f"a skill id beyond the content's {ns} is owned")
    places = (
        _count(ctx.a("skill_deck"), ctx.i("skill_deck_n"), ns)
        + _count(ctx.a("skill_disc"), ctx.i("skill_disc_n"), ns)
        + _count(ctx.a("skill_offer"), ctx.i("skill_offer_n"), ns)
        + owned[:ns]
    )
    ctx.each_in_one_place("skill_deck", places, "skill", "deck, discard, offer, owned")
    outside, none = (
        "skills offered outside the skill choice",
        "a skill choice with no skill offered",
    )
    _shown_in_phase(ctx, "skill_offer_n", C.PH_SKILLPICK, outside, none)


def weapons(ctx):
    wn, an = ctx.i("wstack_n"), ctx.i("waside_n")
    if wn + an > C.WSTACK:
        ctx.fail("waside_n", an, f"stack ({wn}) and set-aside sheets exceed {C.WSTACK}")
    ws = ctx.a("wstack")
    if ws[0] != 0:
        ctx.fail("wstack", ws[0], "the weapon stack starts with Bare Hands (weapon 0)")
    sheets = np.concatenate([ws[:wn], ctx.a("waside")[:an]])
    if len(np.unique(sheets)) != len(sheets):
        ctx.fail("wstack", sheets, "a weapon sheet is in two places")
    if an == 0 and ctx.i("waside_rounds"):
        ctx.fail("waside_rounds", ctx.i("waside_rounds"), "rounds left without set-aside sheets")


def conditions(ctx):
    cond, tok, rnd = ctx.a("cond"), ctx.a("cond_tokens"), ctx.a("cond_rounds")
    idle = (cond == 0) & ((tok != 0) | (rnd != 0))
    if idle.any():
        k = int(np.flatnonzero(idle)[0])
        ctx.fail("cond_tokens", tok[k], f"tokens or rounds on condition {k}, which is not in play")


def monster(ctx):
    m, rev = ctx.i("monster"), ctx.i("m_revealed")
    if m >= 0 and int(ctx.T.m_level[m]) != ctx.i("level"):
        ctx.fail(
            "monster", m, f"a monster of Level {int(ctx.T.m_level[m])} on Level {ctx.i('level')}"
        )
    trk = {f: ctx.i(f) for f in ("m_armor", "m_armor_max", "m_health", "m_health_max")}
    if rev:
        if m < 0:
            ctx.fail("m_revealed", 1, "a revealed monster that was never chosen")
        if trk["m_armor"] > trk["m_armor_max"]:
            ctx.fail("m_armor", trk["m_armor"], f"above its maximum {trk['m_armor_max']}")
        if trk["m_health"] > trk["m_health_max"]:
            ctx.fail("m_health", trk["m_health"], f"above its maximum {trk['m_health_max']}")
    else:
        if any(trk.values()):
            ctx.fail("m_armor", list(trk.values()), "an unrevealed monster has trackers set")
        if ctx.i("combat"):
            ctx.fail("combat", 1, "combat with an unrevealed monster")


#: run in order after the field rules
CROSS_RULES = (flow, score, encounter_zones, skill_zones, weapons, conditions, monster)
