"""The Dungeon Kart encoder as it was before the precomputed hex table
(commit 011f2cb): a straightforward per-hex reference that the fast
``encoders.dungeon_kart.encode_row`` must match bit for bit
(``tests/dungeon_kart/test_encoder_identity.py``). Test-only code."""

from __future__ import annotations

import numpy as np
from numba import njit

from dungeonrl.encoders.dungeon_kart import (
    CENTRE,
    H_FINISH,
    H_KARTS,
    H_KFACE,
    H_KSPEED,
    H_ME,
    H_TDIST,
    H_TOK,
    H_TPROG,
    HEXF,
    IDX,
    NPATCH,
    O_ABIL,
    O_COINS,
    O_DMP,
    O_DPEN,
    O_FACING,
    O_FINAL,
    O_MARKER,
    O_MP,
    O_NP,
    O_OFFER,
    O_PATCH,
    O_PHASE,
    O_PLACE,
    O_POWERS,
    O_PROG,
    O_RACER,
    O_RIV,
    O_ROUND,
    O_SPEED,
    O_SPELL,
    O_TKIND,
    O_TOACT,
    O_TURN,
    PEN_T,
    RADIUS,
    RIVF,
    ROT_Q,
    ROT_R,
)
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart import hexgeo as H
from dungeonrl.envs.dungeon_kart.rules import PIPS

JIT = dict(cache=True)


@njit(**JIT)
def _progress(st, T, c):
    """(tile rank / tiles, hexes to the tile's exit / 16) of cell ``c``."""
    nt = T.tr_ntiles[st.track]
    return (
        np.float32(T.tr_tile[st.track, c] / nt),
        np.float32(min(T.tr_dist[st.track, c], 64) / 16.0),
    )


@njit(**JIT)
def encode_row_ref(st, T, seat, out):
    out[:] = 0.0
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
        out[O_RACER + r] = 1.0
        for w in range(2):
            out[O_POWERS + w] = 1.0 - st.pw_used[p, w]
            out[O_POWERS + 2 + w] = 1.0 if st.coins[p] >= T.pw_cost[r, w] else 0.0
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
    # ---- egocentric patch
    if c0 >= 0:
        f = st.facing[p]
        q0 = c0 % H.BOARD_W
        r0 = c0 // H.BOARD_W
        inv_nt = 1.0 / nt
        for i in range(NPATCH):
            q = q0 + ROT_Q[f, i]
            rr = r0 + ROT_R[f, i]
            if q < 0 or q >= H.BOARD_W or rr < 0 or rr >= H.BOARD_H:
                continue
            c = rr * H.BOARD_W + q
            t = T.tr_terr[tk, c]
            if t == C.T_OFF:
                continue
            o = O_PATCH + i * HEXF
            out[o] = 1.0
            te = t
            if st.grass[c] != 0 and PIPS[t] > 0:
                te = C.T_GRASS
            out[o + 1] = PIPS[te] * (1.0 / 3.0)
            if te >= C.T_ROAD and te <= C.T_PIT:
                out[o + 2 + te - C.T_ROAD] = 1.0
            k = st.tok[c]
            if t == C.T_OBST or t == C.T_CUT or k == C.K_GRAVE:
                out[o + 9] = 1.0
            w = np.int64(T.tr_walls[tk, c])
            if w != 0:
                w = ((w >> f) | (w << (6 - f))) & 63  # sides relative to the kart
                for dr in range(6):
                    out[o + 10 + dr] = (w >> dr) & 1
            out[o + 16] = T.tr_coins[tk, c] * (1.0 / 3.0)
            out[o + 17] = T.tr_spell[tk, c]
            out[o + 18] = T.tr_haz[tk, c]
            if k > 0:
                out[o + H_TOK + k - 1] = 1.0
            if st.grass[c]:
                out[o + H_TOK + C.K_GRASS - 1] = 1.0
            if T.tr_finish[tk, c] != 0:
                out[o + H_FINISH] = 1.0
            out[o + H_TPROG] = T.tr_tile[tk, c] * inv_nt
            out[o + H_TDIST] = min(T.tr_dist[tk, c], 64) * (1.0 / 16.0)
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
    # ---- rivals, in seat order after the seat
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


@njit(**JIT)
def observe_batch_ref(states, tabs, players, obs):
    T = tabs[0]
    for i in range(states.shape[0]):
        encode_row_ref(states[i], T, players[i], obs[i])
