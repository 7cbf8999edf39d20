"""Dungeon Kart observation encoder: what one seat can see, as a flat
float32 vector.

* an **egocentric hex patch** of radius ``RADIUS`` around the seat's kart,
  turned so that the kart always faces patch direction 0 (east): per hex the
  terrain, pips, walls (relative sides), coins, spellbook, hazard hex, the
  token on it, finish-line edges, karts with their relative facing and
  speed, and the hex's route progress;
* **global features**: phase, whose decision, round, the seat's own kart
  (speed, MP, coins, spell card kind, marker, powers left and affordable,
  dashboard and Racer, once-per-turn flags, progress, placement) and each
  rival in seat order after the seat (public facts only: position relative
  to the seat, facing, speed, coins, placement, progress, whether it holds
  a spell card or marker, crashed / frozen / finished), plus the draft offer.

It never reads another seat's spell card kind, the deck orders, the hazard
bag, the random generator or the forced-chance queue. ``OBSERVATION``
declares the blocks (name, shape, meaning, value range), ``FEATURES`` lists
``(name, offset, size)`` of each and ``FEATURE_NAMES`` one name per column.
``encode_row(st, T, seat, out)`` is a numba kernel writing ``OBS_SIZE``
floats into a preallocated row.
"""

from __future__ import annotations

import numpy as np

from ..envs.core.kernel.jit import JIT, njit
from ..envs.core.kernel.memops import copy_row_f32
from ..envs.dungeon_kart import consts as C
from ..envs.dungeon_kart import hexgeo as H
from ..envs.dungeon_kart.rules import PIPS

RADIUS = 4
_off = [
    (q, r)
    for r in range(-RADIUS, RADIUS + 1)
    for q in range(-RADIUS, RADIUS + 1)
    if H.distance((0, 0), (q, r)) <= RADIUS
]
NPATCH = len(_off)  # 61 hexes
#: ROT_Q/ROT_R[f, i]: world offset of patch hex i for a kart facing f
ROT_Q = np.zeros((6, NPATCH), np.int64)
ROT_R = np.zeros((6, NPATCH), np.int64)
for _f in range(6):
    for _i, (_q, _r) in enumerate(_off):
        ROT_Q[_f, _i], ROT_R[_f, _i] = H.rotate(_q, _r, _f)

#: IDX[dq + RADIUS, dr + RADIUS]: patch index of the relative offset (dq, dr)
IDX = np.full((2 * RADIUS + 1, 2 * RADIUS + 1), -1, np.int64)
for _i, (_q, _r) in enumerate(_off):
    IDX[_q + RADIUS, _r + RADIUS] = _i
CENTRE = _off.index((0, 0))

HEX_NAMES = (
    ["on_track", "pips"]
    + [f"terrain_{t}" for t in C.TERRAIN_NAMES[1:8]]
    + ["impassable"]
    + [f"wall_{d}" for d in range(6)]
    + ["coins", "spellbook", "hazard_hex"]
    + [f"token_{k}" for k in C.TOKEN_NAMES[1:]]
    + ["finish_edge", "me", "karts"]
    + [f"kart_facing_{d}" for d in range(6)]
    + ["kart_speed", "tile_progress", "tile_dist"]
)
HEXF = len(HEX_NAMES)
H_TOK = HEX_NAMES.index("token_hero")
H_FINISH, H_ME, H_KARTS = (
    HEX_NAMES.index("finish_edge"),
    HEX_NAMES.index("me"),
    HEX_NAMES.index("karts"),
)
H_KFACE, H_KSPEED = HEX_NAMES.index("kart_facing_0"), HEX_NAMES.index("kart_speed")
H_TPROG, H_TDIST = HEX_NAMES.index("tile_progress"), HEX_NAMES.index("tile_dist")
NRIV = C.MAX_P - 1
RIV_NAMES = (
    [
        "present",
        "finished",
        "place",
        "coins",
        "speed",
        "has_spell",
        "marker",
        "crashed",
        "frozen",
        "rel_q",
        "rel_r",
        "distance",
    ]
    + [f"facing_{d}" for d in range(6)]
    + ["progress", "tile_dist", "finish_mp", "bumped_by_me"]
    + [f"racer_{r}" for r in range(C.NRACER)]
    + [f"dash_{d}" for d in range(C.NDASH)]
)
RIVF = len(RIV_NAMES)

INF = float("inf")
#: the seat's own once-per-turn flags and counters (``turn`` block)
TURN_NAMES = (
    "turn_used",
    "drift_used",
    "brake_used",
    "extra_turns",
    "extra_drifts",
    "acted",
    "no_cast",
    "worst_penalty",
    "tailwind_mp",
    "crashed",
    "frozen",
    "finished",
)
#: the seat's race progress (``progress`` block)
PROGRESS_NAMES = ("tiles_visited", "tile_rank", "exit_dist", "finish_mp")
#: relative offset of each patch hex in the kart's frame (``q,r``), patch order
PATCH_LABELS = tuple(f"{q},{r}" for q, r in _off)
#: the largest |offset| / 10 on the 40 x 40 board (a rotated axial offset
#: reaches |dq| + |dr|), the low end of the rivals' relative position
REL_MAX = 2 * (max(H.BOARD_W, H.BOARD_H) - 1) / 10.0

from ..envs.core.layout import ObsLayout, block  # noqa: E402

OBSERVATION = ObsLayout(
    "dungeon_kart",
    [
        block("phase", len(C.PHASE_NAMES), "the phase (one-hot)", labels=C.PHASE_NAMES),
        block("to_act", 1, "1 when this seat must act"),
        block("num_players", 1, "number of racers / 8"),
        block("round", 1, "round / the round cap"),
        block("final_round", 1, "1 in the final round"),
        block("track_kind", 2, "circuit or sprint (one-hot)", labels=C.TRACK_KINDS),
        block("facing", 6, "the kart's facing (one-hot, board directions)", labels=H.DIR_NAMES),
        block(
            "speed",
            C.NSET,
            "the kart's speed setting (one-hot; none before the first)",
            labels=[f"setting{k}" for k in range(1, C.NSET + 1)],
        ),
        block("mp", 1, "movement points left / 20 (own Move step only)", high=INF),
        block("coins", 1, "coins / 10", high=INF),
        block("marker", 1, "1 while holding a spell marker"),
        block("spell", C.MAX_SPELL_KINDS, "the kind of the held spell card (one-hot, own only)"),
        block(
            "powers",
            4,
            "upper / lower power unused this race, upper / lower affordable",
            labels=("upper_unused", "lower_unused", "upper_affordable", "lower_affordable"),
        ),
        block("racer", C.NRACER, "the seat's Racer (one-hot)"),
        block("abilities", 6, "the dashboard's abilities", labels=C.ABILITY_NAMES),
        block(
            "dash_mp",
            C.NSET,
            "the dashboard's MP at each speed setting / 12",
            high=20 / 12,
            labels=[f"setting{k}" for k in range(1, C.NSET + 1)],
        ),
        block(
            "dash_pen",
            4,
            "the dashboard's terrain penalty markers (speed setting / 6)",
            labels=C.PENALTY_TERRAINS,
        ),
        block(
            "turn",
            len(TURN_NAMES),
            "own turn: turn / drift / brake used, extra turns and "
            "drifts, acted, no cast, worst penalty / 7, tailwind MP / 5; crashed, frozen, finished",
            high=INF,
            labels=TURN_NAMES,
        ),
        block(
            "progress",
            4,
            "tiles visited / tiles, tile rank / tiles, hexes to the tile exit / "
            "16 (at most 4), MP left at the finish / 20",
            high=INF,
            labels=PROGRESS_NAMES,
        ),
        block("place", 1, "Placement / 8"),
        block(
            "offer",
            (C.MAX_P + 1, C.NRACER),
            "draft: the Racer or dashboard in each offer slot (one-hot)",
            labels=(
                [f"slot{i}" for i in range(C.MAX_P + 1)],
                [f"item{k}" for k in range(C.NRACER)],
            ),
        ),
        block(
            "patch",
            (NPATCH, HEXF),
            "each hex of the radius-4 patch in the kart's frame: "
            "terrain, walls, tokens, karts (0.5 each), route progress, exit distance / 16",
            high=4.0,
            labels=(PATCH_LABELS, HEX_NAMES),
        ),
        block(
            "rival",
            (NRIV, RIVF),
            "the public facts of each rival, in seat order after this "
            "one (position relative to the kart / 10)",
            low=-REL_MAX,
            high=INF,
            labels=([f"rival{k + 1}" for k in range(NRIV)], RIV_NAMES),
            prefix=False,
        ),
    ],
)
OBS_SIZE = OBSERVATION.size
FEATURES = OBSERVATION.features  # (name, offset, size) of every block
OFF = {name: off for name, off, _ in FEATURES}
FEATURE_NAMES = OBSERVATION.names()


def feature_names():
    """One name per observation column (``OBSERVATION.names()``)."""
    return FEATURE_NAMES


O_PHASE, O_TOACT, O_NP, O_ROUND = OFF["phase"], OFF["to_act"], OFF["num_players"], OFF["round"]
O_FINAL, O_TKIND, O_FACING, O_SPEED = (
    OFF["final_round"],
    OFF["track_kind"],
    OFF["facing"],
    OFF["speed"],
)
O_MP, O_COINS, O_MARKER, O_SPELL = OFF["mp"], OFF["coins"], OFF["marker"], OFF["spell"]
O_POWERS, O_RACER, O_ABIL, O_DMP = OFF["powers"], OFF["racer"], OFF["abilities"], OFF["dash_mp"]
O_DPEN, O_TURN, O_PROG, O_PLACE = OFF["dash_pen"], OFF["turn"], OFF["progress"], OFF["place"]
O_OFFER, O_PATCH, O_RIV = OFF["offer"], OFF["patch"], OFF["rival"]
PEN_T = np.array([C.T_DIRT, C.T_GRASS, C.T_MUD, C.T_WATER], np.int64)
# encode_row zeroes the columns outside the patch only: the patch is one run
# of NPATCH x HEXF columns right before the rivals, which end the vector
assert O_RIV == O_PATCH + NPATCH * HEXF and O_RIV + NRIV * RIVF == OBS_SIZE

#: the features of a patch hex that the race never changes (terrain, pips,
#: impassable terrain, walls in board sides, coins, spellbook, hazard hex,
#: finish edge, route progress) come from the content table ``hex_static``
H_IMPASS, H_WALL, H_GRASS_TOK = (
    HEX_NAMES.index("impassable"),
    HEX_NAMES.index("wall_0"),
    HEX_NAMES.index("token_grass"),
)
H_TERR = HEX_NAMES.index("terrain_road")
H_COINS, H_SPELLBOOK, H_HAZ = (
    HEX_NAMES.index("coins"),
    HEX_NAMES.index("spellbook"),
    HEX_NAMES.index("hazard_hex"),
)
#: WALL_BITS[w, d] = bit d of the 6-bit wall set w, as float32 (a relative wall row)
WALL_BITS = np.array([[(w >> d) & 1 for d in range(6)] for w in range(64)], np.float32)
#: ``hex_static[track, cell]`` holds the static columns only: the run
#: 0 .. hazard_hex (S_RUN columns, copied as one block), then finish_edge,
#: tile_progress and tile_dist, padded to SW floats (96 bytes a cell)
S_RUN = H_HAZ + 1
STATIC_COLS = np.array(list(range(S_RUN)) + [H_FINISH, H_TPROG, H_TDIST], np.int64)
SW = 24


def static_hex_table(
    tr_terr, tr_walls, tr_coins, tr_spell, tr_haz, tr_finish, tr_tile, tr_dist, tr_ntiles
):
    """float32 ``[track, cell, SW]``: the patch features of each board cell
    that stay fixed during a race (the ``STATIC_COLS`` of its patch row), as
    a kart facing direction 0 sees them (walls in board sides), each
    computed with the float64 expression the encoder evaluated per step, so
    the float32 values are the same. Cells off the track are all zero; the
    other columns (grass, tokens, karts, ``me``) are dynamic: zero in a
    patch row until ``encode_patch`` lays them over."""
    n_tr, n_cell = tr_terr.shape
    out = np.zeros((n_tr, n_cell, HEXF), np.float32)
    pips = np.asarray(C.TERRAIN_PIPS, np.int64)
    for tk in range(n_tr):
        nt = int(tr_ntiles[tk])
        for c in range(n_cell):
            t = int(tr_terr[tk, c])
            if t == C.T_OFF:
                continue
            row = out[tk, c]
            row[0] = 1.0
            row[1] = pips[t] * (1.0 / 3.0)
            if C.T_ROAD <= t <= C.T_PIT:
                row[H_TERR + t - C.T_ROAD] = 1.0
            if t == C.T_OBST or t == C.T_CUT:
                row[H_IMPASS] = 1.0
            row[H_WALL : H_WALL + 6] = WALL_BITS[int(tr_walls[tk, c]) & 63]
            row[H_COINS] = int(tr_coins[tk, c]) * (1.0 / 3.0)
            row[H_SPELLBOOK] = int(tr_spell[tk, c])
            row[H_HAZ] = int(tr_haz[tk, c])
            if tr_finish[tk, c] != 0:
                row[H_FINISH] = 1.0
            row[H_TPROG] = int(tr_tile[tk, c]) * (1.0 / nt)
            row[H_TDIST] = min(int(tr_dist[tk, c]), 64) * (1.0 / 16.0)
    compact = np.zeros((n_tr, n_cell, SW), np.float32)
    compact[:, :, : len(STATIC_COLS)] = out[:, :, STATIC_COLS]
    return compact


@njit(**JIT)
def _progress(st, T, c):
    """(tile rank / tiles, hexes to the tile's exit / 16) of cell ``c``."""
    nt = T.tr_ntiles[st.track]
    return (
        np.float32(T.tr_tile[st.track, c] / nt),
        np.float32(min(T.tr_dist[st.track, c], 64) / 16.0),
    )


@njit(**JIT)
def encode_row(st, T, seat, out):
    encode_globals(st, T, seat, out)
    encode_patch(st, T, seat, out)
    encode_rivals(st, T, seat, out)


@njit(**JIT)
def encode_globals(st, T, seat, out):
    """Zero every column outside the patch (``encode_patch`` writes each of
    its own) and write the global blocks before it."""
    for j in range(O_PATCH):
        out[j] = 0.0
    for j in range(O_RIV, OBS_SIZE):
        out[j] = 0.0
    n = st.num_players
    p = seat
    tk = st.track
    out[O_PHASE + st.phase] = 1.0
    out[O_TOACT] = 1.0 if st.actor == p else 0.0
    out[O_NP] = n / 8.0
    out[O_ROUND] = st.round / max(1.0, float(st.max_rounds))
    out[O_FINAL] = st.final_round
    out[O_TKIND + T.tr_kind[tk]] = 1.0
    out[O_FACING + st.facing[p]] = 1.0
    if st.speed[p] >= 1:
        out[O_SPEED + st.speed[p] - 1] = 1.0
    out[O_MP] = st.mp / 20.0 if (st.cur == p and st.phase == C.PH_MOVE) else 0.0
    out[O_COINS] = st.coins[p] / 10.0
    out[O_MARKER] = st.marker[p]
    if st.spell[p] >= 0:  # own card only
        out[O_SPELL + T.card_kind[st.spell[p]]] = 1.0
    r = st.racer[p]
    if r >= 0:
        for w in range(2):
            out[O_POWERS + w] = 1.0 - st.pw_used[p, w]
            out[O_POWERS + 2 + w] = 1.0 if st.coins[p] >= T.pw_cost[r, w] else 0.0
        out[O_RACER + r] = 1.0
    d = st.dash[p]
    if d >= 0:
        for a in range(6):
            out[O_ABIL + a] = (T.dash_abil[d] >> a) & 1
        for k in range(C.NSET):
            out[O_DMP + k] = T.dash_mp[d, k] / 12.0
        for k in range(4):
            out[O_DPEN + k] = T.dash_pen[d, PEN_T[k]] / 6.0
    if st.cur == p:
        out[O_TURN + 0] = st.turn_used
        out[O_TURN + 1] = st.drift_used
        out[O_TURN + 2] = st.brake_used
        out[O_TURN + 3] = st.extra_turns
        out[O_TURN + 4] = st.extra_drifts
        out[O_TURN + 5] = st.acted
        out[O_TURN + 6] = st.no_cast
        out[O_TURN + 7] = st.pen_worst / 7.0
        out[O_TURN + 8] = st.tail_mp / 5.0
    out[O_TURN + 9] = st.crashed[p]
    out[O_TURN + 10] = st.frozen[p]
    out[O_TURN + 11] = st.finished[p]
    nt = T.tr_ntiles[tk]
    vis = 0
    for t in range(nt):
        vis += (st.visited[p] >> t) & 1
    out[O_PROG + 0] = vis / nt
    c0 = st.pos[p]
    if c0 >= 0:
        a, b = _progress(st, T, c0)
        out[O_PROG + 1] = a
        out[O_PROG + 2] = b
    out[O_PROG + 3] = st.finish_mp[p] / 20.0
    out[O_PLACE] = st.place[p] / 8.0
    if st.phase == C.PH_DRAFT_RACER or st.phase == C.PH_DRAFT_DASH:
        for i in range(st.offer_n):
            if st.offer[i] >= 0:
                out[O_OFFER + i * C.NRACER + st.offer[i]] = 1.0


@njit(**JIT)
def encode_patch(st, T, seat, out):
    """Every column of the patch: per hex its static columns from
    ``hex_static`` (the run before the tokens in one copy, then three) and
    zeros elsewhere, then the few dynamic features: walls turned to the
    kart, grass, tokens, and the karts from their own positions."""
    n = st.num_players
    p = seat
    tk = st.track
    c0 = st.pos[p]
    if c0 < 0:
        for j in range(O_PATCH, O_RIV):
            out[j] = 0.0
    else:
        f = st.facing[p]
        q0 = c0 % H.BOARD_W
        r0 = c0 // H.BOARD_W
        stat = T.hex_static[tk]
        terr = T.tr_terr[tk]
        walls = T.tr_walls[tk]
        grass = st.grass
        tok = st.tok
        for i in range(NPATCH):
            o = O_PATCH + i * HEXF
            q = q0 + ROT_Q[f, i]
            rr = r0 + ROT_R[f, i]
            if q < 0 or q >= H.BOARD_W or rr < 0 or rr >= H.BOARD_H:
                for j in range(HEXF):
                    out[o + j] = 0.0
                continue
            c = rr * H.BOARD_W + q
            copy_row_f32(out, o, stat, c, S_RUN)
            for j in range(S_RUN, HEXF):
                out[o + j] = 0.0
            out[o + H_FINISH] = stat[c, S_RUN]
            out[o + H_TPROG] = stat[c, S_RUN + 1]
            out[o + H_TDIST] = stat[c, S_RUN + 2]
            g = grass[c]
            k = tok[c]
            if f != 0:
                w = np.int64(walls[c])
                if w != 0:
                    w = ((w >> f) | (w << (6 - f))) & 63  # sides relative to the kart
                    for dr in range(6):
                        out[o + H_WALL + dr] = WALL_BITS[w, dr]
            if g == 0 and k == 0:
                continue
            t = terr[c]
            if t == C.T_OFF:
                continue
            if g != 0:
                if PIPS[t] > 0:  # grass covers the terrain
                    out[o + 1] = PIPS[C.T_GRASS] * (1.0 / 3.0)
                    if t >= C.T_ROAD and t <= C.T_PIT:
                        out[o + H_TERR + t - C.T_ROAD] = 0.0
                    out[o + H_TERR + C.T_GRASS - C.T_ROAD] = 1.0
                out[o + H_GRASS_TOK] = 1.0
            if k > 0:
                out[o + H_TOK + k - 1] = 1.0
            if k == C.K_GRAVE:
                out[o + H_IMPASS] = 1.0
        out[O_PATCH + CENTRE * HEXF + H_ME] = 1.0
        # karts: place each rival once (patch index from its relative offset)
        for s in range(n):
            cs = st.pos[s]
            if s == p or cs < 0 or st.finished[s]:
                continue
            dq = cs % H.BOARD_W - q0
            dr_ = cs // H.BOARD_W - r0
            if (abs(dq) + abs(dr_) + abs(dq + dr_)) > 2 * RADIUS:
                continue
            for _ in range((6 - f) % 6):
                dq, dr_ = -dr_, dq + dr_
            o = O_PATCH + IDX[dq + RADIUS, dr_ + RADIUS] * HEXF
            if out[o + H_KARTS] == 0.0:
                out[o + H_KFACE + (st.facing[s] - f + 6) % 6] = 1.0
                out[o + H_KSPEED] = st.speed[s] * (1.0 / 6.0)
            out[o + H_KARTS] += 0.5


@njit(**JIT)
def encode_rivals(st, T, seat, out):
    """The rival blocks (their columns are already zero)."""
    n = st.num_players
    p = seat
    c0 = st.pos[p]
    for k in range(1, n):
        s = (p + k) % n
        o = O_RIV + (k - 1) * RIVF
        out[o] = 1.0
        out[o + 1] = st.finished[s]
        out[o + 2] = st.place[s] / 8.0
        out[o + 3] = st.coins[s] / 10.0
        out[o + 4] = st.speed[s] / 6.0
        out[o + 5] = 1.0 if st.spell[s] >= 0 else 0.0  # holding a card is public
        out[o + 6] = st.marker[s]
        out[o + 7] = st.crashed[s]
        out[o + 8] = st.frozen[s]
        cs = st.pos[s]
        if cs >= 0 and c0 >= 0:
            dq = cs % H.BOARD_W - c0 % H.BOARD_W
            dr_ = cs // H.BOARD_W - c0 // H.BOARD_W
            # rotate the world offset back into the seat's frame
            f = st.facing[p]
            for _ in range((6 - f) % 6):
                dq, dr_ = -dr_, dq + dr_
            out[o + 9] = dq / 10.0
            out[o + 10] = dr_ / 10.0
            out[o + 11] = H.cell_distance(cs, c0) / 10.0
            out[o + 12 + (st.facing[s] - f + 6) % 6] = 1.0
        if cs >= 0:
            a, b = _progress(st, T, cs)
            out[o + 18] = a
            out[o + 19] = b
        out[o + 20] = st.finish_mp[s] / 20.0
        if st.cur == p:
            out[o + 21] = (st.bumped >> s) & 1
        if st.racer[s] >= 0:
            out[o + 22 + st.racer[s]] = 1.0
        if st.dash[s] >= 0:
            out[o + 22 + C.NRACER + st.dash[s]] = 1.0
