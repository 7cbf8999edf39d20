"""A scripted Dungeon Kart heuristic, ``policy_row(st, T, prng) -> action``
for ``st.actor`` (the optional row function of the engine contract).

It races the line: every legal action gets a score (route progress of the
hex it leads to, minus terrain, hazard and Crash risks, plus coins, Boosts
and finishing), spells and powers are used when they help (Fireball / Freeze
/ Zombie / Overgrowth on the best-placed rival, MP and coin spells at once,
MP powers when affordable), rivals are bumped into walls or hazards when
that is cheap, and the speed is set to what the straight road ahead can
take. Ties are broken with ``prng`` (a uint64[2] generator).
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.jit import JIT, njit
from ..core.kernel.rng import rng_below
from . import consts as C
from .hexgeo import neighbour_cell
from .rules import PIPS, blocked, crossing, has_ability, kart_at, legal_row, rel_seat, terrain

NEG = -1.0e9
BAD_TOKENS = (C.K_HERO, C.K_FANGROOT, C.K_BOMB, C.K_LAVAPUDDLE, C.K_ZOMBIE, C.K_GRAVE)


@njit(**JIT)
def route_value(st, T, p, c):
    """Progress of cell ``c`` for seat ``p`` (as Placement counts it)."""
    t = T.tr_tile[st.track, c]
    if t < 0 or PIPS[terrain(st, T, c)] == 0:
        return NEG
    contig = 0
    while contig < T.tr_ntiles[st.track] and (st.visited[p] >> contig) & 1:
        contig += 1
    if t > contig:
        return NEG / 2
    return float(t) * 4096.0 - float(T.tr_dist[st.track, c])


@njit(**JIT)
def enter_score(st, T, p, d):
    """Score of entering across side ``d`` of seat ``p``'s hex."""
    c = st.pos[p]
    if crossing(st, T, p, c, d):
        return 1.0e6
    if (T.tr_walls[st.track, c] >> d) & 1:
        return -900.0
    n = neighbour_cell(c, d)
    if blocked(st, T, n, p):
        return -900.0
    t = terrain(st, T, n)
    if PIPS[t] == 0:
        return -950.0
    v = route_value(st, T, p, n) - route_value(st, T, p, c)
    if v < -100.0:
        v = -100.0
    v -= 0.4 * (PIPS[t] - 1)
    pen = T.dash_pen[st.dash[p], t]
    if pen > 0 and pen < st.speed[p]:
        v -= 0.5 * (st.speed[p] - pen)
    k = st.tok[n]
    for b in BAD_TOKENS:
        if k == b:
            v -= 300.0
    if k >= C.K_EPIC0:
        v -= 250.0
    if k == C.K_TAR:
        v -= 60.0
    elif k == C.K_SMASH:
        v -= 5.0
    elif k == C.K_BOOST:
        v += 3.0
    v += 1.5 * T.tr_coins[st.track, n]
    if T.tr_spell[st.track, n] and st.spell[p] < 0 and st.marker[p] == 0:
        v += 1.5
    return v


@njit(**JIT)
def runway(st, T, p, f):
    """MP needed to drive straight ahead until something blocks (<= 14)."""
    c = st.pos[p]
    need = 0
    for _ in range(8):
        if crossing(st, T, p, c, f):
            return 99
        if (T.tr_walls[st.track, c] >> f) & 1:
            break
        n = neighbour_cell(c, f)
        if blocked(st, T, n, p) or PIPS[terrain(st, T, n)] == 0:
            break
        need += PIPS[terrain(st, T, n)]
        c = n
    return need


@njit(**JIT)
def best_rival(st, p):
    """Relative index (1..n-1) of the best-placed rival still racing, 0 none."""
    best = 0
    bp = 99
    for k in range(1, st.num_players):
        s = rel_seat(st, p, k)
        if st.finished[s] == 0 and st.place[s] < bp:
            bp = st.place[s]
            best = k
    return best


@njit(**JIT)
def policy_row(st, T, prng):
    mask = np.zeros(C.NUM_ACTIONS, np.uint8)
    if legal_row(st, T, mask) == 0:
        return -1
    p = st.actor
    score = np.full(C.NUM_ACTIONS, NEG)
    ph = st.phase
    f = st.facing[p]
    for a in range(C.NUM_ACTIONS):
        if mask[a] == 0:
            continue
        v = 0.0
        if ph == C.PH_DRAFT_RACER or ph == C.PH_DRAFT_DASH:
            v = 0.0 if a == C.A_PICK else -1.0
        elif ph == C.PH_FREEZE:
            v = 1.0 if a == C.A_SPELL + best_rival(st, p) else 0.0
        elif ph == C.PH_FACING:
            d = a - C.A_FACE
            old = st.facing[p]
            st.facing[p] = d
            v = enter_score(st, T, p, d) + 0.1 * runway(st, T, p, d)
            st.facing[p] = old
        elif ph == C.PH_SPEED:
            if a >= C.A_SPELL and a < C.A_SPELL + C.N_SPELL:
                if T.sp_timing[T.card_kind[st.spell[p]]] == C.TM_TURN:
                    v = 100.0  # start-of-turn MP spells
                else:
                    v = NEG / 2  # any-time spells: cast them while moving
            else:
                sp = st.speed[p] + a - C.A_SPEED - 1
                mp = T.dash_mp[st.dash[p], sp - 1]
                room = runway(st, T, p, f) + 4
                v = float(mp) if mp <= room else float(room) - 2.0 * (mp - room)
        else:
            if a == C.A_MOVE:
                v = enter_score(st, T, p, f)
            elif a == C.A_DRIFT_L or a == C.A_DRIFT_R:
                d = (f + 5) % 6 if a == C.A_DRIFT_L else (f + 1) % 6
                v = enter_score(st, T, p, d) - 0.3
            elif a == C.A_TURN_L or a == C.A_TURN_R:
                d = (f + 5) % 6 if a == C.A_TURN_L else (f + 1) % 6
                ahead = enter_score(st, T, p, f)
                v = min(enter_score(st, T, p, d), 1.5) - 0.6
                if ahead < -100.0:
                    v += 5.0  # facing trouble: turn away
                elif ahead > 0.0:
                    v -= 2.0
            elif a >= C.A_BUMP and a < C.A_BUMP + C.N_BUMP:
                k = (a - C.A_BUMP) // 3 + 1
                side = (a - C.A_BUMP) % 3
                o = rel_seat(st, p, k)
                d = (f + side + 5) % 6
                c = st.pos[p]
                n = neighbour_cell(c, d)
                hurt = (
                    (T.tr_walls[st.track, c] >> d) & 1
                    or n < 0
                    or blocked(st, T, n, o)
                    or PIPS[terrain(st, T, n)] == 0
                )
                v = 2.0 if hurt else -0.5
                if not hurt:
                    for b in BAD_TOKENS:
                        if st.tok[n] == b:
                            v = 3.0
                    if st.tok[n] >= C.K_EPIC0:
                        v = 3.0
                    if side == 1:
                        v -= 1.0  # do not push rivals forward
                if st.mp <= 1 and not has_ability(st, T, p, C.AB_HEAVY):
                    v -= 1.0
                v += 0.2 * (2 if kart_at(st, c, p) >= 0 else 0)
            elif a == C.A_BRAKE:
                v = -3.0
                if st.mp == 1 and enter_score(st, T, p, f) < -100.0:
                    v = 1.0  # burn the last MP safely
            elif a >= C.A_SPELL and a < C.A_SPELL + C.N_SPELL:
                k = a - C.A_SPELL
                v = 4.0 if (k == 0 or k == best_rival(st, p)) else 1.0
            elif a >= C.A_POWER and a < C.A_POWER + C.N_POWER:
                w = (a - C.A_POWER) // C.MAX_P
                e = T.pw_effect[st.racer[p], w]
                v = -1.0
                if e == C.PW_GAIN_MP or e == C.PW_SPEED_UP or e == C.PW_MARKER:
                    v = 3.5
                elif e == C.PW_SPIN_NEAR or e == C.PW_STEAL:
                    v = 2.5
            elif a == C.A_END:
                v = -1000.0 if st.mp > 0 else 0.5
        score[a] = v
    best = NEG
    for a in range(C.NUM_ACTIONS):
        if mask[a] and score[a] > best:
            best = score[a]
    n_best = 0
    for a in range(C.NUM_ACTIONS):
        if mask[a] and score[a] == best:
            n_best += 1
    k = rng_below(prng, n_best)
    for a in range(C.NUM_ACTIONS):
        if mask[a] and score[a] == best:
            if k == 0:
                return a
            k -= 1
    return -1
