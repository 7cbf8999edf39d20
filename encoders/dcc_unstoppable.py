"""Dungeon Crawler Carl: Unstoppable observation encoder.

``encode_row(st, T, seat, out)`` writes the observation of seat ``seat`` into
``out`` (float32[OBS_SIZE]). It is an *observation* (what that crawler sees
at the table), seat-relative: the "own" blocks are the observer's, the
"mate" blocks the teammate's (zeros and ``mate.present`` = 0 in solo).

Encoded: own hand (core sides; a card's threat side only once it was
revealed publicly, A-22), play area, battlefield (active, looming) and the
on-deck card of both seats, resources, levels, pile sizes, the market, the
top card of each core deck (public, A-21), the draft reveal, race/class
offers, the pending decision, the danger track (position, level, the next
spaces ahead at this difficulty, spaces left), quest, bosses, achievements.
The teammate's hand is encoded too: in co-op hands are open information
between teammates (A-40; README "Hidden information").

Never read: the order of any deck below its public top card (``deck``,
``tdeck``, ``udeck``, ``cdeck``, ``dungeon``, ``quest_order``), threat sides
of unrevealed sleeves, and the header's rng/seed/forced queue.

``OBSERVATION`` declares the blocks (name, shape, meaning, value range);
``FEATURES`` lists ``(name, offset, size)`` of each, ``feature_names()`` one
name per column; ``OBS_SIZE`` is the total.

Speed (issue #14): what depends on the content alone is computed once, at
content compile time, by this module's own per-card functions
(:func:`feature_tables` -> ``T.c_feat``, ``T.u_feat``, ``T.tr_feat``), so a
core or upgrade slot and the danger blocks are one ``memcpy`` each
(``envs/core/kernel/memops.py``); a sleeve with an upgrade slid in still goes
through :func:`core_feats`. The row is cleared by one ``memset`` and only
filled slots are visited. The observation is bit-identical to the per-call
encoder (``tests/dcc_unstoppable/test_encoder_speed.py``).
"""

from __future__ import annotations


import numpy as np

from ..envs.core.kernel.jit import JIT, JIT_INLINE, njit
from ..envs.core.kernel.memops import copy_f32, zero_f32
from ..envs.core.layout import ObsLayout, block
from ..envs.dcc_unstoppable import consts as C

# per-card feature sizes (the column names below follow core_feats,
# _threat_slot and upg_feats)
CORE_F = 20  # core side
THREAT_F = 16  # threat side
UPG_F = 26
AHEAD = 8  # danger spaces shown ahead of the marker
TRACK_F = 3 + 4 * AHEAD  # danger_pos, danger_level, spaces_left, ahead_*

#: the columns :func:`_ops_summary` adds to, but its last (other effects)
OPS_NAMES = ["damage", "gold", "health", "mana", "ap", "spell"]
CORE_NAMES = [
    "present",
    "level",
    "cost",
    "tactic",
    "ally",
    "tough",
    "nexh",
    *OPS_NAMES,
    "train_or_other",
    "up_top",
    "up_bottom",
] + [f"stat_{s}" for s in C.STAT_NAMES[:4]]
# (stat cha is the all-zero case of the 4 stat flags plus present)
THREAT_NAMES = [
    "known",
    "attack",
    "health",
    "damage",
    "remaining",
    "looming",
    "boss",
    "stairs",
    "danger_atk",
    "danger_def",
] + [f"kw_{k}" for k in C.KEYWORD_NAMES]
UPG_NAMES = (
    ["present", "cost", "top", "bottom", "req_any", "req_tactic", "req_ally"]
    + [f"discount_{s}" for s in C.STAT_NAMES]
    + [
        "discount",
        "atk",
        "def",
        "ap_cost",
        "tough",
        *OPS_NAMES,
        "other",
        "kw_fast",
        "kw_other",
    ]
)

INF = float("inf")
#: hand slots: the core side's columns, then the threat side's
HAND_NAMES = tuple(f"core_{n}" for n in CORE_NAMES) + tuple(f"threat_{n}" for n in THREAT_NAMES)
#: play-area slots: the core side, then exhausted and damage
PLAY_NAMES = tuple(CORE_NAMES) + ("exhausted", "ally_damage")
#: draft reveal slots: the core side, then "mine" and "second pick"
DRAFT_NAMES = tuple(CORE_NAMES) + ("mine", "second_pick")
_RACES = ("none",) + tuple(f"race{k}" for k in range(C.NRACE))
_CLASSES = ("none",) + tuple(f"class{k}" for k in range(C.NCLASS))


def _seat(who: str, whose: str) -> list:
    """The blocks of one seat (``own`` the observer, ``mate`` the teammate)."""
    return [
        block(f"{who}.present", 1, f"1 when {whose} seat is in the game"),
        block(f"{who}.crawler", 2, f"{whose} crawler (one-hot)"),
        block(f"{who}.race", C.NRACE + 1, f"{whose} race (one-hot; none first)", labels=_RACES),
        block(
            f"{who}.class", C.NCLASS + 1, f"{whose} class (one-hot; none first)", labels=_CLASSES
        ),
        block(f"{who}.health", 1, "health / 10"),
        block(f"{who}.mana", 1, "mana / 10"),
        block(f"{who}.gold", 1, "gold (at most 40) / 20", high=2.0),
        block(f"{who}.ap", 1, "action points / 6"),
        block(f"{who}.level", 1, "level (at most 12) / 6", high=2.0),
        block(f"{who}.small", 1, "small level disc / 6"),
        block(f"{who}.descended", 2, "descended the stairs (one-hot: 1st, 2nd)"),
        block(f"{who}.main_done", 1, "1 when the Main Phase is done"),
        block(f"{who}.deck_n", 1, "cards in the deck / 40", high=C.PILE_CAP / 40),
        block(f"{who}.hand_n", 1, "cards in the hand / 20", high=C.PILE_CAP / 20),
        block(f"{who}.disc_n", 1, "cards in the discard pile / 40", high=C.PILE_CAP / 40),
        block(f"{who}.play_n", 1, "cards in the play area / 12", high=C.PLAY_CAP / 12),
        block(f"{who}.bf_n", 1, "threats on the battlefield / 6", high=C.BF_CAP / 6),
        block(f"{who}.sacrifice_owed", 1, "Sacrifices owed", high=INF),
        block(f"{who}.stairs_in_deck", 1, "1 while the stairs card is in the deck"),
        block(f"{who}.defeats", 1, "threats defeated (at most 100) / 40", high=2.5),
        block(f"{who}.turn_defeats", 1, "threats defeated this turn / 5", high=INF),
        block(f"{who}.is_actor", 1, "1 when this seat acts"),
        block(
            f"{who}.hand",
            (C.HAND_SLOTS, CORE_F + THREAT_F),
            "each hand card: core side (level, cost, type, effects / 5), threat side once revealed",
            high=INF,
            labels=([f"h{h}" for h in range(C.HAND_SLOTS)], HAND_NAMES),
        ),
        block(
            f"{who}.play",
            (C.PLAY_SLOTS, CORE_F + 2),
            "each play-area card: core side, exhausted, damage",
            high=INF,
            labels=([f"k{k}" for k in range(C.PLAY_SLOTS)], PLAY_NAMES),
        ),
        block(
            f"{who}.battlefield",
            (C.BF_CAP, THREAT_F),
            "each battlefield threat: attack / 5, health / 10, damage, keywords",
            high=INF,
            labels=([f"t{t}" for t in range(C.BF_CAP)], THREAT_NAMES),
        ),
        block(
            f"{who}.ondeck",
            THREAT_F,
            "the threat on top of the deck, once revealed",
            high=INF,
            labels=THREAT_NAMES,
        ),
    ]


OBSERVATION = ObsLayout(
    "dcc_unstoppable",
    _seat("own", "the observer's")
    + _seat("mate", "the teammate's (zeros in solo)")
    + [
        block("phase", C.NPHASE, "the phase (one-hot)", labels=C.PHASE_NAMES),
        block(
            "decision",
            C.NDEC,
            "the pending decision (one-hot; Main Phase, Cleanup spaces, solo Draft order)",
            labels=C.DEC_NAMES,
        ),
        block("i_decide", 1, "1 when this seat acts"),
        block(
            "pending_op", len(C.OP_NAMES), "the pending effect's op (one-hot)", labels=C.OP_NAMES
        ),
        block("pending_n", 1, "its amount / 5", high=INF),
        block("pending_spell", 1, "its spell amount / 5", high=INF),
        block("pending_left", 1, "pending effects left / 6", high=INF),
        block(
            "draft",
            (2 * C.DRAFT_DUO, CORE_F + 2),
            "each revealed core card: core side, mine, second pick",
            high=INF,
            labels=([f"r{i}" for i in range(2 * C.DRAFT_DUO)], DRAFT_NAMES),
        ),
        block("race_offer", (3, C.NRACE), "the three race offers (one-hot each)"),
        block("class_offer", (3, C.NCLASS), "the three class offers (one-hot each)"),
        block(
            "market",
            (C.MARKET_SIZE, UPG_F),
            "each market upgrade: cost / 6, cut-out, "
            "requirement, discounts, stats, AP cost (-2..2), effects",
            low=-2.0,
            high=INF,
            labels=([f"m{m}" for m in range(C.MARKET_SIZE)], UPG_NAMES),
        ),
        block(
            "core_deck_top",
            (C.MAX_LEVEL_DECK, CORE_F),
            "the top card of each core deck",
            high=INF,
            labels=([f"level{d + 1}" for d in range(C.MAX_LEVEL_DECK)], CORE_NAMES),
        ),
        block(
            "core_deck_n", C.MAX_LEVEL_DECK, "cards in each core deck / 20", high=C.CDECK_CAP / 20
        ),
        block("floor", C.NFLOOR, "the floor (one-hot)"),
        block("mode", 2, "arcade or campaign (one-hot)", labels=C.MODES),
        block("difficulty", 4, "the difficulty (one-hot)", labels=C.DIFFICULTIES),
        block("danger_pos", 1, "the danger marker's space / 30", high=INF),
        block("danger_level", 1, "its danger level / 5", high=INF),
        block("spaces_left", 1, "spaces left to the skull / 30", high=INF),
        block("ahead_level", AHEAD, "danger level of the next spaces / 5", high=INF),
        block("ahead_effect", (AHEAD, 2), "effect of the next spaces (one-hot)"),
        block("ahead_skull", AHEAD, "1 on the skull space"),
        block(
            "space_queue", 3, "space effects waiting to resolve (each seat, then the shared one)"
        ),
        block("quest_active", 1, "1 while a quest is active"),
        block("quest_part", 1, "the quest part / 4"),
        block(
            "quest_progress",
            1,
            "its progress / its need (progress counts on past the need)",
            high=INF,
        ),
        block("quest_req", len(C.QREQ_NAMES), "its requirement (one-hot)", labels=C.QREQ_NAMES),
        block(
            "quest_effect",
            len(C.QACTIVE_NAMES),
            "its active effect (one-hot)",
            labels=C.QACTIVE_NAMES,
        ),
        block("quests_done", 1, "quests done / 3", high=INF),
        block(
            "bosses", C.NBK, "bosses of each kind defeated / 2", high=INF, labels=C.BOSS_KIND_NAMES
        ),
        block("stairs_need", C.NBK + 1, "bosses needed for the stairs x players / 2", high=INF),
        block("turn", 1, "turn / 40", high=INF),
        block("threat_deck_n", 1, "cards in the threat deck / 60", high=INF),
        block("upgrade_deck_n", 1, "cards in the upgrade deck / 36", high=INF),
        block("dungeon_n", 1, "cards in the dungeon / 6", high=INF),
        block("achievements", C.ACH_PER_FLOOR, "this floor's achievements reached"),
        block("extras", C.NEXTRA, "extra achievements reached"),
        block("passes", 1, "initiative passes this Main Phase / 8"),
    ],
)
FEATURES = OBSERVATION.features  # (name, offset, size) of every block
OBS_SIZE = OBSERVATION.size
assert (len(CORE_NAMES), len(THREAT_NAMES), len(UPG_NAMES)) == (CORE_F, THREAT_F, UPG_F)
#: the columns of one seat (the ``own.*`` blocks; ``mate.*`` follows at this offset)
SEAT_SIZE = OBSERVATION.offset("mate.present")


def feature_names():
    """One name per observation column (``OBSERVATION.names()``)."""
    return OBSERVATION.names()


@njit(**JIT)
def _ops_summary(ops, out, o):
    """Add damage / gold / health / mana / ap / spell / other of an op list
    into out[o:o+7]."""
    for i in range(ops.shape[0]):
        code = ops[i, 0]
        if code == C.OP_NONE:
            break
        n = ops[i, 1] / 5.0
        if code == C.OP_DAMAGE:
            out[o] += n
        elif code == C.OP_GOLD:
            out[o + 1] += n
        elif code == C.OP_HEALTH:
            out[o + 2] += n
        elif code == C.OP_MANA:
            out[o + 3] += n
        elif code == C.OP_AP:
            out[o + 4] += n
        else:
            out[o + 6] += 0.5
        if ops[i, 3] == C.CD_SPELL:
            out[o + 5] += ops[i, 4] / 5.0


@njit(**JIT_INLINE)
def _core_side(T, c, ups, out, o):
    """Core side c with the upgrades ``ups`` (top, bottom; -1: none) slid
    in, into out[o:o+CORE_F]. The upgrades' effects are summed before the
    card's own (the float32 sums depend on the order)."""
    out[o] = 1.0
    out[o + 1] = T.c_level[c] / 6.0
    cost = T.c_cost[c]
    for k in range(2):
        u = ups[k]
        if u >= 0:
            cost += T.u_ap[u]
            _ops_summary(T.u_ops[u], out, o + 7)
            out[o + 14 + k] = 1.0
    out[o + 2] = max(cost, 0) / 3.0
    out[o + 3 + T.c_type[c]] = 1.0
    out[o + 5] = T.c_tough[c]
    out[o + 6] = T.c_nexh[c] / 2.0
    _ops_summary(T.c_play[c], out, o + 7)
    for j in range(T.c_nexh[c]):
        _ops_summary(T.c_exh[c, j], out, o + 7)
    st_ = T.c_stat[c]
    if st_ < 4:
        out[o + 16 + st_] = 1.0


@njit(**JIT)
def core_feats(st, T, s, out, o):
    """Core side of sleeve s (or nothing if s < 0) into out[o:o+CORE_F]."""
    if s < 0 or st.sl_core[s] < 0:
        return
    _core_side(T, st.sl_core[s], st.sl_up[s], out, o)


#: the upgrades of an unsleeved core side: none
_NO_UPGRADES = np.full(2, -1, np.int8)


@njit(**JIT)
def core_id_feats(T, c, out, o):
    """An unsleeved core side (draft reveal, core deck top): costs are
    never negative, so the cost column is ``c_cost / 3`` as it is."""
    if c < 0:
        return
    _core_side(T, c, _NO_UPGRADES, out, o)


@njit(**JIT)
def upg_feats(T, u, out, o):
    if u < 0:
        return
    out[o] = 1.0
    out[o + 1] = T.u_cost[u] / 6.0
    out[o + 2 + T.u_cutout[u]] = 1.0
    out[o + 4 + T.u_req[u]] = 1.0
    if T.u_dstat[u] >= 0:
        out[o + 7 + T.u_dstat[u]] = 1.0
    out[o + 12] = T.u_disc[u] / 3.0
    out[o + 13] = T.u_atk[u] / 3.0
    out[o + 14] = T.u_def[u] / 3.0
    out[o + 15] = T.u_ap[u]
    out[o + 16] = T.u_tough[u]
    _ops_summary(T.u_ops[u], out, o + 17)  # damage..ap, spell (o+22), other (o+23)
    out[o + 24] = 1.0 if T.u_kw[u] & C.KW_FAST else 0.0
    out[o + 25] = (
        1.0 if T.u_kw[u] & (C.KW_RETALIATE | C.KW_SACRIFICE | C.KW_TAUNT | C.KW_TERROR) else 0.0
    )


@njit(**JIT)
def track_feats(T, f, m, difficulty, danger, out, o):
    """The danger blocks (``danger_pos`` .. ``ahead_skull``, TRACK_F columns)
    of floor f, mode m, a difficulty and the marker's space into out[o:]."""
    ln = T.tr_len[f, m]
    out[o] = danger / 30.0
    out[o + 1] = T.tr_level[f, m, danger] / 5.0
    skip_b = C.SKIP_BORDER[difficulty]
    left = 0
    for i in range(danger + 1, ln - 1):
        b = T.tr_border[f, m, i]
        if not (b != C.B_NONE and b == skip_b):
            left += 1
    out[o + 2] = left / 30.0
    o += 3
    i = danger + 1
    k = 0
    while i < ln and k < AHEAD:
        b = T.tr_border[f, m, i]
        if b != C.B_NONE and b == skip_b and i < ln - 1:
            i += 1
            continue
        out[o + k] = T.tr_level[f, m, i] / 5.0
        e = T.tr_effect[f, m, i]
        if e > 0:
            out[o + AHEAD + 2 * k + e - 1] = 1.0
        if i == ln - 1:
            out[o + 3 * AHEAD + k] = 1.0
        k += 1
        i += 1


@njit(**JIT)
def feature_tables(T, c_feat, u_feat, tr_feat):
    """Fill the content's derived tables (``content.DERIVED_FIELDS``): row c
    of ``c_feat`` is :func:`core_id_feats` of core c (also :func:`core_feats`
    of a sleeve holding c with no upgrade: costs are never negative), row u
    of ``u_feat`` is :func:`upg_feats` of upgrade u, ``tr_feat[f, m, d, x]``
    is :func:`track_feats` of floor f, mode m, difficulty d, marker on space
    x. The encoder copies these rows, so every observation stays
    bit-identical to the per-call path."""
    for c in range(c_feat.shape[0]):
        c_feat[c, :] = 0.0
        core_id_feats(T, c, c_feat[c], 0)
    for u in range(u_feat.shape[0]):
        u_feat[u, :] = 0.0
        upg_feats(T, u, u_feat[u], 0)
    for f in range(tr_feat.shape[0]):
        for m in range(tr_feat.shape[1]):
            for d in range(tr_feat.shape[2]):
                for x in range(tr_feat.shape[3]):
                    tr_feat[f, m, d, x, :] = 0.0
                    track_feats(T, f, m, d, x, tr_feat[f, m, d, x], 0)


@njit(**JIT)
def _copy_row(src, out, o):
    """out[o:o+len(src)] = src (one memcpy)."""
    copy_f32(out, o, src, 0, src.shape[0])


@njit(**JIT)
def _core_slot(st, T, s, out, o):
    """Core side of sleeve s >= 0: the precomputed row of its card, or
    :func:`core_feats` when an upgrade is slid in."""
    c = st.sl_core[s]
    if c < 0:
        return
    if st.sl_up[s, 0] < 0 and st.sl_up[s, 1] < 0:
        _copy_row(T.c_feat[c], out, o)
    else:
        core_feats(st, T, s, out, o)


# The hot functions below scale integers with ``x * (1.0 / d)`` instead of
# ``x / d``: the same float32 once stored, for every integer |x| < 2**20 and
# every d used here (checked exhaustively by tests/dcc_unstoppable/test_encoder_speed.py),
# and a multiply costs a fraction of a divide.
@njit(**JIT)
def _threat_slot(st, T, s, lvl, out, o):
    """Threat side of sleeve s into out[o:o+THREAT_F], only if publicly
    revealed; ``lvl`` is the danger level (looked up once per observation)."""
    if s < 0 or st.sl_seen[s] == 0:
        return
    out[o] = 1.0
    if s >= C.STAIRS0:
        out[o + 7] = 1.0
        return
    a = T.t_atk[s]
    h = T.t_atk[s] + T.t_def[s]
    kw = T.t_kw[s]
    for k in range(2):
        u = st.sl_up[s, k]
        if u >= 0:
            a += T.u_atk[u]
            h += T.u_atk[u] + T.u_def[u]
            kw |= T.u_kw[u]
    datk = T.t_datk[s]
    ddef = T.t_ddef[s]
    if datk:
        a += lvl
        h += lvl
    if ddef:
        h += lvl
    loom = st.sl_loom[s]
    if loom == 0:
        kw &= ~C.KW_LOOMING
    dmg = st.sl_dmg[s]
    out[o + 1] = a * (1.0 / 5.0)
    out[o + 2] = h * (1.0 / 10.0)
    out[o + 3] = dmg * (1.0 / 10.0)
    out[o + 4] = max(h - dmg, 0) * (1.0 / 10.0)
    out[o + 5] = loom
    out[o + 6] = 1.0 if T.t_group[s] == 6 else 0.0
    out[o + 8] = datk
    out[o + 9] = ddef
    if kw != 0:
        for b in range(6):
            if kw & (1 << b):
                out[o + 10 + b] = 1.0


@njit(**JIT)
def seat_block(st, T, p, lvl, out, o):
    """The blocks of seat p from offset o (nothing when p is not seated);
    ``out[o:o+SEAT_SIZE]`` must be zero."""
    if p >= st.num_players:
        return
    out[o] = 1.0
    o += 1
    if st.crawler[p] >= 0:
        out[o + st.crawler[p]] = 1.0
    o += 2
    out[o + (st.race[p] + 1)] = 1.0
    o += C.NRACE + 1
    out[o + (st.klass[p] + 1)] = 1.0
    o += C.NCLASS + 1
    out[o] = st.health[p] * (1.0 / 10.0)
    out[o + 1] = st.mana[p] * (1.0 / 10.0)
    out[o + 2] = min(st.gold[p], 40) * (1.0 / 20.0)
    out[o + 3] = st.ap[p] * (1.0 / 6.0)
    out[o + 4] = min(st.level[p], 12) * (1.0 / 6.0)
    out[o + 5] = st.small[p] * (1.0 / 6.0)
    o += 6
    if st.descended[p] > 0:
        out[o + st.descended[p] - 1] = 1.0
    o += 2
    hand_n = st.hand_n[p]
    play_n = st.play_n[p]
    bf_n = st.bf_n[p]
    deck_n = st.deck_n[p]
    out[o] = st.main_done[p]
    out[o + 1] = deck_n * (1.0 / 40.0)
    out[o + 2] = hand_n * (1.0 / 20.0)
    out[o + 3] = st.disc_n[p] * (1.0 / 40.0)
    out[o + 4] = play_n * (1.0 / 12.0)
    out[o + 5] = bf_n * (1.0 / 6.0)
    out[o + 6] = st.sac_queue[p]
    out[o + 7] = 1.0 if st.sl_zone[C.STAIRS0 + p] == C.Z_DECK else 0.0
    out[o + 8] = min(st.defeats[p], 100) * (1.0 / 40.0)
    out[o + 9] = st.turn_defeats[p] * (1.0 / 5.0)
    out[o + 10] = 1.0 if st.actor == p else 0.0
    o += 11
    for h in range(min(hand_n, C.HAND_SLOTS)):
        s = st.hand[p, h]
        if s >= 0:
            q = o + h * (CORE_F + THREAT_F)
            _core_slot(st, T, s, out, q)
            _threat_slot(st, T, s, lvl, out, q + CORE_F)
    o += C.HAND_SLOTS * (CORE_F + THREAT_F)
    for k in range(min(play_n, C.PLAY_SLOTS)):
        s = st.play[p, k]
        if s >= 0:
            q = o + k * (CORE_F + 2)
            _core_slot(st, T, s, out, q)
            out[q + CORE_F] = st.sl_exh[s]
            out[q + CORE_F + 1] = st.sl_dmg[s]
    o += C.PLAY_SLOTS * (CORE_F + 2)
    for i in range(min(bf_n, C.BF_CAP)):
        _threat_slot(st, T, st.bf[p, i], lvl, out, o + i * THREAT_F)
    o += C.BF_CAP * THREAT_F
    if deck_n > 0:
        _threat_slot(st, T, st.deck[p, deck_n - 1], lvl, out, o)


@njit(**JIT)
def encode_row(st, T, seat, out):
    zero_f32(out)
    f = st.cfg_floor - 1
    m = st.cfg_mode
    lvl = T.tr_level[f, m, st.danger]
    seat_block(st, T, seat, lvl, out, 0)
    if st.num_players == 2:
        seat_block(st, T, 1 - seat, lvl, out, SEAT_SIZE)
    o = 2 * SEAT_SIZE
    out[o + st.phase] = 1.0
    o += C.NPHASE
    out[o + st.dec] = 1.0
    o += C.NDEC
    out[o] = 1.0 if st.actor == seat else 0.0
    o += 1
    if st.pend_i < st.pend_n:
        op = st.pend[st.pend_i]
        out[o + op[0]] = 1.0
        out[o + len(C.OP_NAMES)] = op[1] * (1.0 / 5.0)
        out[o + len(C.OP_NAMES) + 1] = op[4] * (1.0 / 5.0) if op[3] == C.CD_SPELL else 0.0
        out[o + len(C.OP_NAMES) + 2] = (st.pend_n - st.pend_i) * (1.0 / 6.0)
    o += len(C.OP_NAMES) + 3
    second = st.phase == C.PH_DRAFT and st.draft_first >= 0
    for i in range(2 * C.DRAFT_DUO):
        c = st.reveal[i]
        if c >= 0:
            _copy_row(T.c_feat[c], out, o)
            out[o + CORE_F] = 1.0 if st.reveal_set[i] == seat else 0.0
            out[o + CORE_F + 1] = 1.0 if (second and st.reveal_set[i] != st.draft_first) else 0.0
        o += CORE_F + 2
    for j in range(3):
        r = st.race_offer[seat, j] if seat < C.NPLAYERS_MAX else -1
        if r >= 0:
            out[o + j * C.NRACE + r] = 1.0
    o += 3 * C.NRACE
    for j in range(3):
        k = st.class_offer[seat, j]
        if k >= 0:
            out[o + j * C.NCLASS + k] = 1.0
    o += 3 * C.NCLASS
    for mk in range(C.MARKET_SIZE):
        u = st.market[mk]
        if u >= 0:
            _copy_row(T.u_feat[u], out, o)
        o += UPG_F
    for d in range(C.MAX_LEVEL_DECK):
        n = st.cdeck_n[d]
        if n > 0:
            c = st.cdeck[d, n - 1]
            if c >= 0:
                _copy_row(T.c_feat[c], out, o)
        o += CORE_F
    for d in range(C.MAX_LEVEL_DECK):
        out[o + d] = st.cdeck_n[d] * (1.0 / 20.0)
    o += C.MAX_LEVEL_DECK
    out[o + f] = 1.0
    o += C.NFLOOR
    out[o + m] = 1.0
    o += 2
    out[o + st.cfg_difficulty] = 1.0
    o += 4
    _copy_row(T.tr_feat[f, m, st.cfg_difficulty, st.danger], out, o)
    o += TRACK_F
    for j in range(3):
        out[o + j] = st.space_queue[j]
    o += 3
    if st.quest >= 0:
        card = T.quest_first[st.quest] + st.quest_part
        out[o] = 1.0
        out[o + 1] = st.quest_part * (1.0 / 4.0)
        out[o + 2] = st.quest_prog / max(1, T.q_n[card])
        out[o + 3 + T.q_req[card]] = 1.0
        out[o + 3 + len(C.QREQ_NAMES) + T.q_active[card]] = 1.0
    o += 3 + len(C.QREQ_NAMES) + len(C.QACTIVE_NAMES)
    out[o] = st.quests_done * (1.0 / 3.0)
    o += 1
    for b in range(C.NBK):
        out[o + b] = st.bosses[b] * (1.0 / 2.0)
    o += C.NBK
    for b in range(C.NBK + 1):
        out[o + b] = T.tr_need[f, m, b] * st.num_players * (1.0 / 2.0)
    o += C.NBK + 1
    out[o] = st.turn * (1.0 / 40.0)
    out[o + 1] = st.tdeck_n * (1.0 / 60.0)
    out[o + 2] = st.udeck_n * (1.0 / 36.0)
    out[o + 3] = st.dungeon_n * (1.0 / 6.0)
    o += 4
    for j in range(C.ACH_PER_FLOOR):
        out[o + j] = st.ach[j]
    o += C.ACH_PER_FLOOR
    for j in range(C.NEXTRA):
        out[o + j] = st.extra[j]
    o += C.NEXTRA
    out[o] = st.passes / C.PASS_CAP
