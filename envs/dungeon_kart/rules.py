"""Dungeon Kart rules as row functions (the engine contract of
``envs/README.md``): ``configure_row``, ``reset_row``, ``legal_row`` and
``apply_row`` work on ONE state record ``st`` and the content record ``T``.

A turn is a chain of small decisions (see ``consts`` for the action layout):
free facing after a Crash -> speed change (start-of-turn spells and spells
with no timing may be cast first) -> Move / Turn / Drift / Bump / Brake /
spell / power ... -> End. The
automatic rules between decisions (hazards, dice, Bumps' effects, the end of
the turn and of the round, Placement, spell hand-out, the final round) run
inside ``apply_row``. All chance goes through ``envs/core/chance``.

Rule ids (DK-...) in comments refer to ``shared/rules/inventory/dungeon-kart.md``;
readings and deviations are listed in ``envs/dungeon_kart/README.md``.
"""

from __future__ import annotations

import numpy as np

from ..core.kernel import chance
from ..core.kernel.header import O_PLAYING, O_TRUNCATED
from ..core.kernel.jit import JIT, JIT_INLINE, njit
from ..core.kernel.memops import fill_int
from . import consts as C
from .hexgeo import NCELL, cell_distance, neighbour_cell

PIPS = np.array(C.TERRAIN_PIPS, np.int64)

# step results
R_OK, R_STOP, R_BLOCK, R_FINISH, R_BOOST = 0, 1, 2, 3, 4
# how a kart enters a hex
M_DRIVE, M_BUMP, M_BOOST = 0, 1, 2


# ----------------------------------------------------------------------------- helpers
@njit(**JIT)
def terrain(st, T, c):
    """Terrain of cell ``c`` (an Overgrowth token turns a drivable hex to grass)."""
    t = T.tr_terr[st.track, c]
    if st.grass[c] != 0 and PIPS[t] > 0:
        return C.T_GRASS
    return t


@njit(**JIT)
def pips(st, T, c):
    return PIPS[terrain(st, T, c)]


@njit(**JIT)
def has_ability(st, T, p, ab):
    return (T.dash_abil[st.dash[p]] >> ab) & 1


@njit(**JIT)
def kart_at(st, c, skip):
    """First seat other than ``skip`` whose kart is on cell ``c``; -1 none."""
    for s in range(st.num_players):
        if s != skip and st.pos[s] == c and st.finished[s] == 0:
            return s
    return -1


@njit(**JIT)
def blocked(st, T, c, p):
    """Cell ``c`` can never be entered by ``p`` (a kart trying Crashes in
    place): off the track, obstacle, cut-off hex, Gravestone, or a hex where
    another Racer sits on a hazard (DK-154, DK-172, DK-184, DK-186)."""
    if c < 0:
        return True
    t = T.tr_terr[st.track, c]
    if t == C.T_OFF or t == C.T_OBST or t == C.T_CUT:
        return True
    k = st.tok[c]
    if k == C.K_GRAVE:
        return True
    if k != C.K_NONE and kart_at(st, c, p) >= 0:
        return True
    return False


@njit(**JIT)
def all_tiles(st, T):
    return np.uint32((1 << T.tr_ntiles[st.track]) - 1)


@njit(**JIT)
def crossing(st, T, p, c, d):
    """Does leaving cell ``c`` across side ``d`` cross the finish line for a
    finish that counts (every tile travelled, DK-226, DK-A43)?"""
    if (T.tr_finish[st.track, c] >> d) & 1 == 0:
        return False
    return st.visited[p] == all_tiles(st, T)


@njit(**JIT)
def crash(st, p):
    """Crash (DK-125..128): speed to setting 1, free facing next turn; on the
    Racer's own turn its movement ends and it may not cast or use powers."""
    st.speed[p] = 1
    st.crashed[p] = 1
    end_own_move(st, p)


@njit(**JIT)
def spin_out(st, p):
    """Spin Out (DK-122..124): speed to setting 2 but never raised (DK-A17)."""
    if st.speed[p] > 2:
        st.speed[p] = 2
    end_own_move(st, p)


@njit(**JIT)
def end_own_move(st, p):
    """A Crash or Spin Out on the Racer's own movement ends it: no more
    movement, no spell or power this turn."""
    if p == st.cur and st.phase == C.PH_MOVE:
        st.move_over = 1
        st.no_cast = 1
        st.ended_ok = 0


@njit(**JIT)
def lose_coin(st, p):
    if st.coins[p] > 0:
        st.coins[p] -= 1


@njit(**JIT)
def explode(st, b):
    """A Bomb on cell ``b`` goes off (DK-174..178, DK-A28): Racers in the six
    neighbouring hexes Crash, tokens there are destroyed, the Bomb is gone."""
    st.tok[b] = C.K_NONE
    for d in range(6):
        n = neighbour_cell(b, d)
        if n < 0:
            continue
        st.tok[n] = C.K_NONE
        for s in range(st.num_players):
            if st.pos[s] == n and st.finished[s] == 0:
                crash(st, s)


@njit(**JIT)
def finish(st, p):
    """Racer ``p`` crosses the finish line (DK-226, DK-231)."""
    st.finished[p] = 1
    st.finish_seq += 1
    st.finish_no[p] = st.finish_seq
    st.finish_mp[p] = st.mp if (p == st.cur and st.phase == C.PH_MOVE) else 0
    st.pos[p] = -1
    st.final_round = 1
    if p == st.cur and st.phase == C.PH_MOVE:
        st.move_over = 1
        st.ended_ok = 0


@njit(**JIT)
def penalty(st, T, p, t, immediate):
    pen = T.dash_pen[st.dash[p], t]
    if pen <= 0:
        return
    if immediate:
        if st.speed[p] > pen:  # DK-112
            st.speed[p] = pen
    elif pen < st.pen_worst:  # DK-134
        st.pen_worst = pen


@njit(**JIT)
def smash(st, T, p):
    """Roll the Smash die (DK-163)."""
    f = chance.roll(st, 6)
    st.last_smash = f
    e = T.smash_eff[f - 1]
    a = T.smash_amt[f - 1]
    if e == C.SM_COINS:
        st.coins[p] = max(0, st.coins[p] + a)
        return R_OK
    if e == C.SM_MP:
        if p == st.cur and st.phase == C.PH_MOVE:
            st.mp += a
        return R_OK
    if e == C.SM_SPIN:
        spin_out(st, p)
        return R_STOP
    crash(st, p)
    return R_STOP


@njit(**JIT)
def step_into(st, T, p, d, mode):
    """Kart ``p`` tries to enter the hex across side ``d`` of its hex (MP, if
    any, already paid). Applies walls, deadly terrain, coins, spellbooks,
    terrain penalties and hazards. Returns an R_* code."""
    c = st.pos[p]
    own = p == st.cur and st.phase == C.PH_MOVE
    if crossing(st, T, p, c, d):
        finish(st, p)
        return R_FINISH
    if (T.tr_walls[st.track, c] >> d) & 1:
        crash(st, p)  # DK-183
        return R_BLOCK
    n = neighbour_cell(c, d)
    if blocked(st, T, n, p):
        crash(st, p)  # DK-173, DK-185, DK-186
        return R_BLOCK
    t = terrain(st, T, n)
    if PIPS[t] == 0:  # lava / pit: Crash, back to this hex
        crash(st, p)  # DK-142, DK-143
        if t == C.T_LAVA:
            lose_coin(st, p)  # DK-144
        return R_BLOCK
    st.prev[p] = c
    st.pos[p] = n
    st.visited[p] |= np.uint32(1 << T.tr_tile[st.track, n])
    st.coins[p] += T.tr_coins[st.track, n]  # DK-145..147
    if T.tr_spell[st.track, n] and st.spell[p] < 0 and st.marker[p] == 0:
        st.marker[p] = 1  # DK-188..190
    penalty(st, T, p, t, mode == M_BUMP or not own)
    k = st.tok[n]
    if k == C.K_HERO:
        crash(st, p)
        st.tok[n] = C.K_NONE
        return R_STOP
    if k == C.K_FANGROOT:
        crash(st, p)
        return R_STOP
    if k == C.K_TAR:
        if st.speed[p] > 1:
            st.speed[p] -= 1
        if own:
            st.move_over = 1
            st.ended_ok = 1
        return R_STOP
    if k == C.K_SMASH:
        return smash(st, T, p)
    if k == C.K_BOOST:
        return R_BOOST
    if k == C.K_LAVAPUDDLE:
        crash(st, p)
        lose_coin(st, p)
        if kart_at(st, c, p) < 0:  # DK-170; an occupied hex of origin keeps
            st.pos[p] = c  # the kart in the puddle's hex (DK-A47)
        return R_STOP
    if k == C.K_BOMB:
        crash(st, p)
        explode(st, n)
        return R_STOP
    if k == C.K_ZOMBIE:
        spin_out(st, p)
        st.tok[n] = C.K_NONE
        return R_STOP
    if k >= C.K_EPIC0:
        return epic_hit(st, T, p, k - C.K_EPIC0, n, c)
    return R_OK


@njit(**JIT)
def epic_hit(st, T, p, e, n, c):
    """Racer ``p`` runs into Epic Hero ``e`` on cell ``n``, coming from ``c``
    (DK-033, DK-G16; the heroes are in data/heroes.toml)."""
    h = T.epic_hit[e]
    a = T.epic_amt[e]
    if T.epic_remove[e]:
        st.tok[n] = C.K_NONE
    if h == C.EH_CRASH:
        crash(st, p)
    elif h == C.EH_SPIN:
        spin_out(st, p)
    elif h == C.EH_ROB:
        crash(st, p)
        st.coins[p] = max(0, st.coins[p] - a)
    elif h == C.EH_GIFT:
        spin_out(st, p)
        st.coins[p] += a
    elif h == C.EH_BOUNCE:
        crash(st, p)
        if kart_at(st, c, p) < 0:  # not back onto another kart (DK-A47)
            st.pos[p] = c
    elif h == C.EH_SCROLL:
        spin_out(st, p)
        if st.spell[p] < 0 and st.marker[p] == 0:
            st.marker[p] = 1
    return R_STOP


@njit(**JIT)
def free_neighbour(st, T, c):
    """First neighbour of ``c`` (clockwise from east) across an open side
    that is drivable, token-free and kart-free; -1 none."""
    for d in range(6):
        if (T.tr_walls[st.track, c] >> d) & 1:
            continue
        n = neighbour_cell(c, d)
        if n < 0 or T.tr_terr[st.track, n] == C.T_OFF or PIPS[terrain(st, T, n)] == 0:
            continue
        if st.tok[n] == C.K_NONE and kart_at(st, n, -1) < 0:
            return n
    return -1


@njit(**JIT)
def epic_round_end(st, T):
    """End-of-round step 1 for Epic Heroes (DK-211)."""
    n = st.num_players
    for c in range(NCELL):
        k = st.tok[c]
        if k < C.K_EPIC0:
            continue
        r = T.epic_round[k - C.K_EPIC0]
        if r == C.ER_QUAKE or r == C.ER_TAX:
            for s in range(n):
                if st.finished[s] or st.pos[s] < 0:
                    continue
                dist = cell_distance(st.pos[s], c)
                if r == C.ER_QUAKE and dist == 1:
                    spin_out(st, s)
                elif r == C.ER_TAX and dist <= 2:
                    lose_coin(st, s)
        elif r == C.ER_SUMMON or r == C.ER_FUSE:
            f = free_neighbour(st, T, c)
            if f >= 0:
                st.tok[f] = C.K_ZOMBIE if r == C.ER_SUMMON else C.K_BOMB


@njit(**JIT)
def drive(st, T, p, d, mode):
    """One hex entry plus any Boost travel it triggers (DK-165..167, DK-A27)."""
    code = step_into(st, T, p, d, mode)
    rem = 0
    guard = 0
    while True:
        if code == R_BOOST:
            f = chance.roll(st, 6)
            st.last_boost = f
            rem += T.boost_face[f - 1]
            guard += 1
            code = R_OK
            if guard > 16:
                break
        elif code != R_OK:
            break
        if rem <= 0:
            break
        rem -= 1
        c = st.pos[p]
        f = st.facing[p]
        if not crossing(st, T, p, c, f) and (T.tr_walls[st.track, c] >> f) & 1 == 0:
            n = neighbour_cell(c, f)
            if n >= 0 and kart_at(st, n, p) >= 0:
                break  # Boost travel halts in front of a kart (DK-A47)
        code = step_into(st, T, p, f, M_BOOST)
    if code == R_BOOST:
        code = R_OK
    return code


@njit(**JIT)
def entry_cost(st, T, p, d):
    """MP a Move / Drift across side ``d`` is charged (0 when it cannot enter).
    Crossing the finish line costs nothing on every track kind: the kart's
    movement stops as it crosses, so it enters no hex beyond the line and
    only entered hexes are paid for (DK-084, DK-A41, README "Finish")."""
    c = st.pos[p]
    if crossing(st, T, p, c, d):
        return 0
    if (T.tr_walls[st.track, c] >> d) & 1:
        return 0
    n = neighbour_cell(c, d)
    if blocked(st, T, n, p):
        return 0
    return pips(st, T, n)


@njit(**JIT)
def drift_ok(st, T, p, d):
    """A Drift across side ``d`` is offered only into a passable hex (DK-099,
    DK-A23)."""
    c = st.pos[p]
    if crossing(st, T, p, c, d):
        return True
    if (T.tr_walls[st.track, c] >> d) & 1:
        return False
    n = neighbour_cell(c, d)
    if blocked(st, T, n, p):
        return False
    return pips(st, T, n) > 0


@njit(**JIT)
def drift_cost(st, T, p, d):
    if crossing(st, T, p, st.pos[p], d):
        return 0  # free like any crossing (DK-A41)
    if st.drift_used == 0 and has_ability(st, T, p, C.AB_TRACTION):
        return 1  # DK-061 (dashboard Drift only, DK-062)
    return entry_cost(st, T, p, d)


@njit(**JIT)
def can_drift(st):
    return st.drift_used == 0 or st.extra_drifts > 0


# ----------------------------------------------------------------------------- look-ahead
# DK-077..079: karts may pass through each other's hexes but a Racer may not end
# its movement on another kart. The mask only offers an action after which the
# mover can still finish its movement legally; ``can_clear`` answers that by a
# small depth-first search over (hex, facing, MP, once-per-turn flags, Bumps
# made). Stopped karts never share a hex, so a hex holds at most one other kart
# and the search is tiny; it runs (and allocates its small stack) only when the
# kart is on another kart's hex (a Bump is tried by moving the bumped kart in
# the record and moving it back).

# what an entry across a side does to the mover, seen by the look-ahead
E_STAY, E_FREE, E_ON = 0, 1, 2


@njit(**JIT)
def entry_kind(st, T, p, c, d):
    """(kind, n) of the mover ``p`` entering across side ``d`` of cell ``c``:
    E_STAY: it Crashes in ``c`` (wall, obstacle, kart on a hazard, lava, pit);
    E_FREE: its movement ends off ``c`` on a hex free of karts, or it finishes
    (a token hex is never shared with a kart, and a return from it to an
    occupied ``c`` keeps it there, DK-A47); E_ON: it drives on into ``n``."""
    if crossing(st, T, p, c, d):
        return E_FREE, -1
    if (T.tr_walls[st.track, c] >> d) & 1:
        return E_STAY, -1
    n = neighbour_cell(c, d)
    if blocked(st, T, n, p) or pips(st, T, n) == 0:
        return E_STAY, -1
    if st.tok[n] != C.K_NONE:
        return E_FREE, n
    return E_ON, n


@njit(**JIT)
def bump_to(st, T, p, c, f, o, side):
    """``bump_dest`` for a mover standing on ``c`` facing ``f``: (legal,
    blocked, destination cell)."""
    d = (f + side + 5) % 6
    if (T.tr_finish[st.track, c] >> d) & 1:
        return False, False, -1  # never bumped across the line (README)
    if (T.tr_walls[st.track, c] >> d) & 1:
        return True, True, -1
    n = neighbour_cell(c, d)
    if n < 0 or T.tr_terr[st.track, n] == C.T_OFF:
        return True, True, -1
    if kart_at(st, n, -1) >= 0:
        return False, False, -1  # DK-114 (and DK-A24)
    if blocked(st, T, n, o) or pips(st, T, n) == 0:
        return True, True, -1
    return True, False, n


# look-ahead stack: one frame per decision on the searched path
LA_DEPTH = 40
(F_C, F_F, F_MP, F_TU, F_XT, F_DU, F_XD, F_BU, F_BUMPED, F_OPT, F_MO, F_MFROM) = range(12)
LA_FIELDS = 12
#: options tried from a frame: 0 Move, 1-2 Drift L/R, 3-4 Turn L/R, 5 Brake,
#: 6 + 3 * seat + side: Bump that seat to that side
LA_BUMP0 = 6
LA_NOPT = LA_BUMP0 + 3 * C.MAX_P


@njit(**JIT)
def _unwind(st, stk, sp):
    """Put back every kart the searched path bumped away."""
    for i in range(sp - 1, -1, -1):
        if stk[i, F_MO] >= 0:
            st.pos[stk[i, F_MO]] = stk[i, F_MFROM]


@njit(**JIT)
def can_clear(st, T, p, c, f, mp, tu, xt, du, xd, bu, bumped):
    """Can mover ``p`` on cell ``c`` facing ``f`` with ``mp`` MP and the
    turn flags (Turn used, extra Turns, Drift used, extra Drifts, Brake used,
    seats bumped as a bit set) still end its movement off every other kart
    (DK-078)? See ``_search``."""
    if kart_at(st, c, p) < 0:
        return True  # End here (a Crash if MP is left) is fine
    i = np.int64
    return _search(st, T, i(p), i(c), i(f), i(mp), i(tu), i(xt), i(du), i(xd), i(bu), i(bumped))


@njit(**JIT)
def _search(st, T, p, c, f, mp, tu, xt, du, xd, bu, bumped):
    """The look-ahead of ``can_clear`` (int64 arguments, ``c`` shared): a
    depth-first search (an explicit stack of ``LA_DEPTH`` frames; longer
    paths count as failures) through the actions ``legal_row`` offers:
    Move, Turn, Drift, Brake and Bumps to hexes without a Boost or a Bomb.
    Spells and powers are left out, so the answer errs on the safe side."""
    heavy = has_ability(st, T, p, C.AB_HEAVY)
    handling = has_ability(st, T, p, C.AB_HANDLING)
    traction = has_ability(st, T, p, C.AB_TRACTION)
    bc = 0 if heavy else 1
    stk = np.empty((LA_DEPTH, LA_FIELDS), np.int64)
    stk[0, F_C] = c
    stk[0, F_F] = f
    stk[0, F_MP] = mp
    stk[0, F_TU] = tu
    stk[0, F_XT] = xt
    stk[0, F_DU] = du
    stk[0, F_XD] = xd
    stk[0, F_BU] = bu
    stk[0, F_BUMPED] = bumped
    stk[0, F_OPT] = 0
    stk[0, F_MO] = -1
    stk[0, F_MFROM] = -1
    sp = 1
    while sp > 0:
        fr = sp - 1
        opt = stk[fr, F_OPT]
        if opt >= LA_NOPT:  # every option tried: back up
            if stk[fr, F_MO] >= 0:
                st.pos[stk[fr, F_MO]] = stk[fr, F_MFROM]
            sp -= 1
            continue
        stk[fr, F_OPT] = opt + 1
        c = stk[fr, F_C]
        f = stk[fr, F_F]
        mp = stk[fr, F_MP]
        tu = stk[fr, F_TU]
        xt = stk[fr, F_XT]
        du = stk[fr, F_DU]
        xd = stk[fr, F_XD]
        bu = stk[fr, F_BU]
        bumped = stk[fr, F_BUMPED]
        # the child frame's fields (the same unless the option changes them)
        nc, nf, nmp, ntu, nxt, ndu, nxd, nbu, nbumped = c, f, mp, tu, xt, du, xd, bu, bumped
        mo = -1
        if opt <= 2:  # Move (0) or Drift (1, 2) into the next hex
            if mp < 1:
                stk[fr, F_OPT] = 3 if opt == 0 else opt + 1
                continue
            if opt == 0:
                d = f
            else:
                if du != 0 and xd <= 0:
                    continue
                d = (f + 5) % 6 if opt == 1 else (f + 1) % 6
            k, n = entry_kind(st, T, p, c, d)
            if k == E_FREE:
                _unwind(st, stk, sp)
                return True
            if k == E_STAY:
                continue  # a Crash in this (shared) hex
            cost = pips(st, T, n)
            if opt > 0:
                if du == 0:
                    if traction:
                        cost = 1
                    ndu = 1
                else:
                    nxd = xd - 1
            if cost > mp:  # last-hex allowance ends the movement in n
                if kart_at(st, n, p) < 0:
                    _unwind(st, stk, sp)
                    return True
                continue
            nc = n
            nmp = mp - cost
        elif opt <= 4:  # Turn left (3) / right (4)
            if tu == 0:
                tc = 0 if handling else 1
                ntu = 1
            elif xt > 0:
                tc = 1
                nxt = xt - 1
            else:
                stk[fr, F_OPT] = 5
                continue
            if tc > mp:
                stk[fr, F_OPT] = 5
                continue
            nf = (f + 5) % 6 if opt == 3 else (f + 1) % 6
            nmp = mp - tc
        elif opt == 5:  # Brake
            if bu != 0 or mp < 1:
                continue
            nbu = 1
            nmp = mp - 1
        else:  # Bump seat o to side
            o = (opt - LA_BUMP0) // 3
            side = (opt - LA_BUMP0) % 3
            if (
                bc > mp
                or o == p
                or o >= st.num_players
                or st.pos[o] != c
                or st.finished[o]
                or (bumped >> o) & 1
            ):
                stk[fr, F_OPT] = LA_BUMP0 + 3 * (o + 1)
                continue
            ok, blk, n = bump_to(st, T, p, c, f, o, side)
            if not ok or blk or st.tok[n] == C.K_BOOST or st.tok[n] == C.K_BOMB:
                continue
            mo = o
            st.pos[o] = n
            nmp = mp - bc
            nbumped = bumped | (np.int64(1) << o)
        if kart_at(st, nc, p) < 0:  # the child's hex is free: done
            if mo >= 0:
                st.pos[mo] = c
            _unwind(st, stk, sp)
            return True
        if sp >= LA_DEPTH:  # too deep: count it as a failure
            if mo >= 0:
                st.pos[mo] = c
            continue
        stk[sp, F_C] = nc
        stk[sp, F_F] = nf
        stk[sp, F_MP] = nmp
        stk[sp, F_TU] = ntu
        stk[sp, F_XT] = nxt
        stk[sp, F_DU] = ndu
        stk[sp, F_XD] = nxd
        stk[sp, F_BU] = nbu
        stk[sp, F_BUMPED] = nbumped
        stk[sp, F_OPT] = 0
        stk[sp, F_MO] = mo
        stk[sp, F_MFROM] = c
        sp += 1
    return False


@njit(**JIT)
def clear_after(st, T, p, c, f, mp, extra_turns, extra_drifts, bumped):
    """``can_clear`` from the current turn flags with a changed MP / extra
    Turns / extra Drifts / Bumps made (a spell or power about to be used)."""
    return can_clear(
        st,
        T,
        p,
        c,
        f,
        mp,
        st.turn_used,
        extra_turns,
        st.drift_used,
        extra_drifts,
        st.brake_used,
        bumped,
    )


@njit(**JIT)
def enter_ok(st, T, p, d, cost, drift):
    """After a Move (``drift`` False) or Drift across side ``d`` for
    ``cost`` MP, can the mover still end its movement legally?"""
    c = st.pos[p]
    k, n = entry_kind(st, T, p, c, d)
    if k == E_FREE:
        return True
    if k == E_STAY:
        return kart_at(st, c, p) < 0  # a Crash in place
    if cost > st.mp:
        return kart_at(st, n, p) < 0  # last-hex allowance
    du = st.drift_used
    xd = st.extra_drifts
    if drift:
        if du == 0:
            du = 1
        else:
            xd -= 1
    return can_clear(
        st,
        T,
        p,
        n,
        st.facing[p],
        st.mp - cost,
        st.turn_used,
        st.extra_turns,
        du,
        xd,
        st.brake_used,
        st.bumped,
    )


@njit(**JIT)
def spell_clear(st, T, p, k):
    """Look-ahead after casting the held spell on relative target ``k``
    while sharing a hex (Overgrowth is tried on the record and undone)."""
    kind = T.card_kind[st.spell[p]]
    e = T.sp_effect[kind]
    c = st.pos[p]
    f = st.facing[p]
    mp = st.mp
    if e == C.SP_NITRO:
        mp += T.sp_amount[kind]
    if e == C.SP_GRASS:
        g = ahead_free(st, T, rel_seat(st, p, k), st.facing[rel_seat(st, p, k)])
        old = st.grass[g]
        st.grass[g] = 1
        r = clear_after(st, T, p, c, f, mp, st.extra_turns, st.extra_drifts, st.bumped)
        st.grass[g] = old
        return r
    return clear_after(st, T, p, c, f, mp, st.extra_turns, st.extra_drifts, st.bumped)


@njit(**JIT)
def power_clear(st, T, p, w):
    """Look-ahead after using power ``w`` while sharing a hex."""
    r = st.racer[p]
    e = T.pw_effect[r, w]
    mp = st.mp
    xt = st.extra_turns
    xd = st.extra_drifts
    bumped = st.bumped
    if e == C.PW_EXTRA_TURN:
        xt += 1
    elif e == C.PW_EXTRA_DRIFT:
        xd += 1
    elif e == C.PW_SPEED_UP:
        mp += T.dash_mp[st.dash[p], st.speed[p]] - T.dash_mp[st.dash[p], st.speed[p] - 1]
    elif e == C.PW_GAIN_MP:
        mp += T.pw_amount[r, w]
    elif e == C.PW_REBUMP:
        bumped = 0
    return clear_after(st, T, p, st.pos[p], st.facing[p], mp, xt, xd, bumped)


#: the cost of what cannot be done: above any Movement Points a kart can hold
NO_COST = 1 << 40


@njit(**JIT)
def exit_cost(st, T, p):
    """Cheapest full cost of a Move or Drift out of the kart's hex (for the
    Bump-into-a-wall check, DK-111, DK-A13); ``NO_COST`` if none. A free
    crossing of the finish line counts 1: a Move needs 1 MP held (DK-090)."""
    best = NO_COST
    f = st.facing[p]
    c = st.pos[p]
    if (T.tr_walls[st.track, c] >> f) & 1 == 0 or crossing(st, T, p, c, f):
        n = neighbour_cell(c, f)
        if crossing(st, T, p, c, f) or (not blocked(st, T, n, p) and pips(st, T, n) > 0):
            best = min(best, max(1, entry_cost(st, T, p, f)))
    if can_drift(st):
        for d in ((f + 5) % 6, (f + 1) % 6):
            if drift_ok(st, T, p, d):
                best = min(best, max(1, drift_cost(st, T, p, d)))
    return best


@njit(**JIT)
def bump_dest(st, T, p, o, side):
    """(legal, blocked) for Racer ``p`` bumping seat ``o`` to ``side``
    (0 forward-left, 1 ahead, 2 forward-right of the bumper, DK-104, DK-A11)."""
    ok, blk, n = bump_to(st, T, p, st.pos[p], st.facing[p], o, side)
    return ok, blk


@njit(**JIT)
def rel_seat(st, p, k):
    return (p + k) % st.num_players


@njit(**JIT)
def racing_target(st, p, k):
    """The seat ``k`` places after ``p`` (``k`` from 1 to players - 1) when it
    is still racing, else -1: who a targeted spell or power may name."""
    if k < 1 or k >= st.num_players:
        return -1
    t = rel_seat(st, p, k)
    return -1 if st.finished[t] else t


@njit(**JIT)
def ahead_free(st, T, s, d):
    """The hex across side ``d`` of seat ``s``'s hex can take a new token."""
    c = st.pos[s]
    if c < 0 or (T.tr_walls[st.track, c] >> d) & 1:
        return -1
    n = neighbour_cell(c, d)
    if n < 0 or pips(st, T, n) == 0 or T.tr_terr[st.track, n] == C.T_OFF:
        return -1
    if st.tok[n] != C.K_NONE or kart_at(st, n, -1) >= 0:
        return -1
    return n


@njit(**JIT)
def spell_ok(st, T, p, k, timing):
    """Can seat ``p`` cast its spell now on relative target ``k``?"""
    card = st.spell[p]
    if card < 0 or st.no_cast:
        return False
    kind = T.card_kind[card]
    if T.sp_timing[kind] != timing:
        return False
    e = T.sp_effect[kind]
    if T.sp_target[kind]:
        t = racing_target(st, p, k)
        if t < 0:
            return False
        if e == C.SP_ZOMBIE:
            return ahead_free(st, T, t, st.facing[t]) >= 0
        if e == C.SP_GRASS:
            n = ahead_free(st, T, t, st.facing[t])
            return n >= 0 and st.grass[n] == 0
        return True
    if k != 0:
        return False
    if e == C.SP_BOMB:
        return ahead_free(st, T, p, (st.facing[p] + 3) % 6) >= 0
    if e == C.SP_SMOKE:
        for s in range(st.num_players):
            if s != p and st.finished[s] == 0 and cell_distance(st.pos[s], st.pos[p]) <= 1:
                return True
        return False
    return True


@njit(**JIT)
def cast(st, T, p, k):
    card = st.spell[p]
    kind = T.card_kind[card]
    e = T.sp_effect[kind]
    a = T.sp_amount[kind]
    t = rel_seat(st, p, k)
    if e == C.SP_FREEZE:
        st.frozen[t] = 1
    elif e == C.SP_FIREBALL:
        crash(st, t)
    elif e == C.SP_ZOMBIE:
        st.tok[ahead_free(st, T, t, st.facing[t])] = C.K_ZOMBIE
    elif e == C.SP_BOMB:
        st.tok[ahead_free(st, T, p, (st.facing[p] + 3) % 6)] = C.K_BOMB
    elif e == C.SP_NITRO:
        if st.phase == C.PH_SPEED:  # cast before the speed change: added at it
            st.tail_mp += a
        else:
            st.mp += a
    elif e == C.SP_TAILWIND:
        st.tail_mp += a
    elif e == C.SP_GRASS:
        st.grass[ahead_free(st, T, t, st.facing[t])] = 1
    elif e == C.SP_SMOKE:
        for s in range(st.num_players):
            if s != p and st.finished[s] == 0 and cell_distance(st.pos[s], st.pos[p]) <= 1:
                spin_out(st, s)
    elif e == C.SP_CRYSTAL:
        st.coins[p] += a
    dk = T.card_deck[card]
    st.disc[dk, st.disc_n[dk]] = card
    st.disc_n[dk] += 1
    st.spell[p] = -1  # DK-200


@njit(**JIT)
def power_ok(st, T, p, w, k):
    if st.no_cast or st.pw_used[p, w] or st.coins[p] < T.pw_cost[st.racer[p], w]:
        return False
    e = T.pw_effect[st.racer[p], w]
    a = T.pw_amount[st.racer[p], w]
    if e == C.PW_SPIN_NEAR or e == C.PW_STEAL:
        t = racing_target(st, p, k)
        if t < 0:
            return False
        if e == C.PW_SPIN_NEAR:
            return cell_distance(st.pos[t], st.pos[p]) <= a
        return cell_distance(st.pos[t], st.pos[p]) <= 1 and st.coins[t] > 0
    if k != 0:
        return False
    if e == C.PW_SPEED_UP:
        return st.acted == 0 and st.speed[p] < C.NSET and st.frozen[p] == 0
    if e == C.PW_MARKER:
        return st.spell[p] < 0 and st.marker[p] == 0
    if e == C.PW_REBUMP:
        return st.bumped != 0
    return True


@njit(**JIT)
def use_power(st, T, p, w, k):
    r = st.racer[p]
    e = T.pw_effect[r, w]
    a = T.pw_amount[r, w]
    st.coins[p] -= T.pw_cost[r, w]  # DK-201, DK-208
    st.pw_used[p, w] = 1  # DK-203
    t = rel_seat(st, p, k)
    if e == C.PW_EXTRA_TURN:
        st.extra_turns += 1
    elif e == C.PW_EXTRA_DRIFT:
        st.extra_drifts += 1
    elif e == C.PW_SPEED_UP:
        old = T.dash_mp[st.dash[p], st.speed[p] - 1]
        st.speed[p] += 1
        st.mp += T.dash_mp[st.dash[p], st.speed[p] - 1] - old
    elif e == C.PW_GAIN_MP:
        st.mp += a
    elif e == C.PW_SPIN_NEAR:
        spin_out(st, t)
    elif e == C.PW_STEAL:
        g = min(a, st.coins[t])
        st.coins[t] -= g
        st.coins[p] += g
    elif e == C.PW_MARKER:
        st.marker[p] = 1
    elif e == C.PW_REBUMP:
        st.bumped = 0


# ----------------------------------------------------------------------------- setup
@njit(**JIT)
def configure_row(st, cfg):
    st.track = cfg[C.CFG_TRACK]
    st.draft_mode = cfg[C.CFG_DRAFT]
    st.max_rounds = cfg[C.CFG_MAX_ROUNDS]


@njit(**JIT)
def _lay_out(st, n_avail, k):
    ids = np.arange(n_avail).astype(np.int8)
    chance.shuffle(st, ids, n_avail)
    fill_int(st.offer, -1)
    for i in range(k):
        st.offer[i] = ids[i]
    st.offer_n = k
    st.draft_k = 0


@njit(**JIT)
def _draft_picker(st):
    n = st.num_players
    if st.phase == C.PH_DRAFT_RACER:
        return (st.first + st.draft_k) % n  # DK-017
    return (st.first + n - 1 - st.draft_k) % n  # DK-019


@njit(**JIT)
def _offer_k(st, j):
    """The j-th remaining offer slot."""
    for i in range(st.offer_n):
        if st.offer[i] >= 0:
            if j == 0:
                return i
            j -= 1
    return -1


@njit(**JIT)
def _place_karts(st, T):
    n = st.num_players
    tk = st.track
    for s in range(n):
        posn = (s - st.first) % n + 1  # DK-034
        for c in range(NCELL):
            if T.tr_start[tk, c] == posn:
                st.pos[s] = c
                st.prev[s] = c
        st.facing[s] = T.tr_start_dir[tk]  # DK-A04
        st.speed[s] = 1  # DK-G09
        st.place[s] = posn  # DK-040
        st.coins[s] = 1 if posn >= T.coin_from else 0  # DK-035
        st.visited[s] = np.uint32(1)


@njit(**JIT)
def reset_row(st, T):
    n = st.num_players
    tk = st.track
    st.phase = C.PH_DRAFT_RACER
    st.round = 0
    st.turn_k = 0
    st.freeze_k = 0
    st.final_round = 0
    st.finish_seq = 0
    if st.max_rounds <= 0:
        st.max_rounds = 60
    for s in range(C.MAX_P):
        st.racer[s] = -1
        st.dash[s] = -1
        st.pos[s] = -1
        st.prev[s] = -1
        st.spell[s] = -1
        st.marker[s] = 0
        st.crashed[s] = 0
        st.frozen[s] = 0
        st.finished[s] = 0
        st.finish_mp[s] = 0
        st.finish_no[s] = 0
        st.coins[s] = 0
        st.place[s] = 0
        st.visited[s] = np.uint32(0)
        st.pw_used[s, 0] = 0
        st.pw_used[s, 1] = 0
        st.facing[s] = 0
        st.speed[s] = 0
    fill_int(st.tok, 0)
    fill_int(st.grass, 0)
    st.last_smash = 0
    st.last_boost = 0
    _clear_turn(st)
    st.first = chance.below(st, n)  # DK-015
    # hazards: shuffle the bag, one token per hazard hex (DK-030)
    for j in range(st.bag.shape[0]):  # element by element: no shape check to compile
        st.bag[j] = T.bag[j]
    st.bag_n = T.bag_size
    chance.shuffle(st, st.bag, st.bag_n)
    epic_tile = np.zeros(32, np.int8)
    for c in range(NCELL):
        if T.tr_haz[tk, c] and st.bag_n > 0:
            tile = T.tr_tile[tk, c]
            tries = 0
            # a second Epic Hero for a tile goes back into the bag and
            # another token is drawn (DK-031, DK-A31)
            while st.bag[st.bag_n - 1] >= C.K_EPIC0 and epic_tile[tile] and tries < st.bag_n:
                j = chance.below(st, st.bag_n)
                t = st.bag[j]
                st.bag[j] = st.bag[st.bag_n - 1]
                st.bag[st.bag_n - 1] = t
                tries += 1
            if st.bag[st.bag_n - 1] >= C.K_EPIC0 and epic_tile[tile]:
                continue  # only Epic Heroes left: hex stays empty
            st.bag_n -= 1
            st.tok[c] = st.bag[st.bag_n]
            st.bag[st.bag_n] = 0
            if st.tok[c] >= C.K_EPIC0:
                epic_tile[tile] = 1
    for c in range(NCELL):  # Epic Heroes' setup steps (DK-033)
        k = st.tok[c]
        if k >= C.K_EPIC0 and T.epic_setup[k - C.K_EPIC0] == C.ES_GUARD:
            f = free_neighbour(st, T, c)
            if f >= 0 and T.tr_start[tk, f] == 0:
                st.tok[f] = C.K_ZOMBIE
    # spell decks, each shuffled on its own (DK-037)
    for d in range(C.NDECK):
        st.deck_n[d] = 0
        st.disc_n[d] = 0
        st.deck[d, :] = -1
        st.disc[d, :] = -1
    for card in range(T.n_cards):
        d = T.card_deck[card]
        st.deck[d, st.deck_n[d]] = card
        st.deck_n[d] += 1
    for d in range(C.NDECK):
        chance.shuffle(st, st.deck[d], st.deck_n[d])
    # racers: players + 1 laid out (DK-016)
    _lay_out(st, C.NRACER, n + 1)
    if st.draft_mode == C.DRAFT_RANDOM:
        for i in range(n):
            st.racer[(st.first + i) % n] = st.offer[i]
        _lay_out(st, C.NDASH, min(n + 1, C.NDASH))  # DK-018, DK-A02
        for i in range(n):
            st.dash[(st.first + n - 1 - i) % n] = st.offer[i]
        fill_int(st.offer, -1)
        st.offer_n = 0
        _place_karts(st, T)
        _advance(st, T, np.zeros(n, np.float32))
    else:
        st.cur = _draft_picker(st)
        st.actor = st.cur


@njit(**JIT)
def _clear_turn(st):
    st.mp = 0
    st.turn_used = 0
    st.drift_used = 0
    st.brake_used = 0
    st.extra_turns = 0
    st.extra_drifts = 0
    st.bumped = 0
    st.acted = 0
    st.no_cast = 0
    st.pen_worst = C.NO_PENALTY
    st.tail_mp = 0
    st.move_over = 0
    st.ended_ok = 0


# ----------------------------------------------------------------------------- rounds
@njit(**JIT)
def compute_places(st, T):
    """Placement (DK-217..225): finished Racers first (in crossing order),
    then by route tile, then by hexes left to the tile's exit; equal standing
    shares a spot and the next spots stay empty."""
    n = st.num_players
    key = np.zeros(C.MAX_P, np.int64)
    for s in range(n):
        if st.finished[s]:
            key[s] = (np.int64(1) << 40) - st.finish_no[s]
        else:
            c = st.pos[s]
            t = T.tr_tile[st.track, c]
            contig = 0  # tiles reached in route order
            while contig < T.tr_ntiles[st.track] and (st.visited[s] >> contig) & 1:
                contig += 1
            if t < contig:
                key[s] = np.int64(t) * 4096 + 4095 - T.tr_dist[st.track, c]
            else:  # reached this tile the wrong way round (e.g. backwards over the line)
                key[s] = np.int64(contig - 1) * 4096
    for s in range(n):
        better = 0
        for o in range(n):
            if key[o] > key[s]:
                better += 1
        st.place[s] = better + 1


@njit(**JIT)
def _draw(st, d):
    if st.deck_n[d] == 0 and st.disc_n[d] > 0:  # reshuffle the discards (DK-G11)
        for i in range(st.disc_n[d]):
            st.deck[d, i] = st.disc[d, i]
            st.disc[d, i] = -1
        st.deck_n[d] = st.disc_n[d]
        st.disc_n[d] = 0
        chance.shuffle(st, st.deck[d], st.deck_n[d])
    if st.deck_n[d] == 0:
        return -1
    st.deck_n[d] -= 1
    card = st.deck[d, st.deck_n[d]]
    st.deck[d, st.deck_n[d]] = -1
    return card


@njit(**JIT)
def final_ranks(st, out):
    """The final ranking (DK-231..234, DK-G22), the one both the rewards and
    ``episode_info["placements"]`` read: ``out[s]`` = how many Racers rank
    strictly ahead of seat ``s`` (0 = best; tied Racers share a value).
    Finishers first, by MP left at the line then coins; then the rest by
    Placement then coins."""
    n = st.num_players
    key = np.zeros(C.MAX_P, np.int64)
    for s in range(n):
        if st.finished[s]:
            key[s] = (np.int64(1) << 40) + np.int64(st.finish_mp[s]) * 65536 + st.coins[s]
        else:
            key[s] = np.int64(100 - st.place[s]) * 65536 + st.coins[s]
    for s in range(n):
        better = 0
        for o in range(n):
            if key[o] > key[s]:
                better += 1
        out[s] = better


@njit(**JIT)
def rank_rewards(st, T, rew):
    """Final ranking (``final_ranks``) -> zero-sum score: tied Racers share
    the mean score of the places they span. Place k (0-based) of n is worth
    1 - 2k / (n - 1)."""
    n = st.num_players
    better = np.zeros(C.MAX_P, np.int64)
    final_ranks(st, better)
    for s in range(n):
        equal = 0
        for o in range(n):
            if better[o] == better[s]:
                equal += 1
        tot = 0.0
        for k in range(better[s], better[s] + equal):
            tot += 1.0 - 2.0 * k / (n - 1)
        rew[s] += np.float32(tot / equal)


@njit(**JIT_INLINE)
def _end_round(st, T, rew):
    n = st.num_players
    for c in range(NCELL):  # DK-178, DK-211
        if st.tok[c] == C.K_BOMB:
            explode(st, c)
    epic_round_end(st, T)  # DK-211 (after the Bombs)
    compute_places(st, T)  # DK-212
    for spot in range(1, n + 1):  # DK-213, DK-214
        for i in range(n):
            s = (st.first + i) % n
            if st.place[s] == spot and st.marker[s]:
                card = _draw(st, T.place_deck[n, spot - 1])
                if card >= 0:
                    st.spell[s] = card
                    st.marker[s] = 0
    st.round += 1
    if st.final_round:  # DK-230
        st.phase = C.PH_OVER
        st.outcome = C.O_RACE_OVER
        st.actor = -1
        rank_rewards(st, T, rew)
        return
    if st.round >= st.max_rounds:  # DK-G23
        st.phase = C.PH_OVER
        st.outcome = O_TRUNCATED
        st.actor = -1
        return
    st.first = (st.first + 1) % n  # DK-215
    st.turn_k = 0
    st.freeze_k = 0
    for s in range(n):
        st.frozen[s] = 0
        st.pw_used[s, 0] = 0
        st.pw_used[s, 1] = 0


@njit(**JIT)
def _freeze_holder(st, T, s):
    if st.finished[s] or st.spell[s] < 0:
        return False
    return T.sp_timing[T.card_kind[st.spell[s]]] == C.TM_ROUND


@njit(**JIT)
def _advance(st, T, rew):
    """Run the automatic rules to the next decision (round start Freeze
    scan, next turn, end of round, end of game)."""
    n = st.num_players
    while True:
        if st.turn_k >= n:
            _end_round(st, T, rew)
            if st.outcome != O_PLAYING:
                return
            continue
        if st.freeze_k < n:  # DK-247
            s = (st.first + st.freeze_k) % n
            if _freeze_holder(st, T, s):
                st.phase = C.PH_FREEZE
                st.cur = s
                st.actor = s
                return
            st.freeze_k += 1
            continue
        s = (st.first + st.turn_k) % n  # DK-065, DK-248
        if st.finished[s]:
            st.turn_k += 1
            continue
        st.cur = s
        _clear_turn(st)
        st.actor = s
        st.phase = C.PH_FACING if st.crashed[s] else C.PH_SPEED  # DK-127
        return


@njit(**JIT_INLINE)
def _end_turn(st, T, rew):
    p = st.cur
    if st.finished[p] == 0:
        if st.ended_ok:  # DK-157, DK-A26
            c = st.pos[p]
            for d in range(6):
                n = neighbour_cell(c, d)
                if n >= 0 and st.tok[n] == C.K_FANGROOT:
                    if st.speed[p] > 2:
                        st.speed[p] = 2
                    break
        if st.speed[p] > st.pen_worst:  # DK-134..136, DK-254
            st.speed[p] = st.pen_worst
    _clear_turn(st)
    st.turn_k += 1
    _advance(st, T, rew)


# ----------------------------------------------------------------------------- mask
@njit(**JIT)
def legal_row(st, T, mask):
    mask[:] = 0
    if st.outcome != O_PLAYING or st.phase == C.PH_OVER:
        return 0
    p = st.actor
    n = st.num_players
    cnt = 0
    ph = st.phase
    if ph == C.PH_DRAFT_RACER or ph == C.PH_DRAFT_DASH:
        j = 0
        for i in range(st.offer_n):
            if st.offer[i] >= 0:
                mask[C.A_PICK + j] = 1
                j += 1
        return j
    if ph == C.PH_FREEZE:
        for k in range(1, n):
            if spell_ok(st, T, p, k, C.TM_ROUND):
                mask[C.A_SPELL + k] = 1
                cnt += 1
        mask[C.A_PASS] = 1
        return cnt + 1
    if ph == C.PH_FACING:
        for d in range(6):
            mask[C.A_FACE + d] = 1
        return 6
    if ph == C.PH_SPEED:
        sp = st.speed[p]
        if st.frozen[p]:  # DK-070
            mask[C.A_SPEED + 1] = 1
            cnt += 1
        else:
            if sp > 1:
                mask[C.A_SPEED] = 1  # DK-067
                cnt += 1
            if sp == 1 or sp == C.NSET:
                mask[C.A_SPEED + 1] = 1  # DK-068, DK-069
                cnt += 1
            if sp < C.NSET:
                mask[C.A_SPEED + 2] = 1
                cnt += 1
        if st.spell[p] >= 0:
            tm = T.sp_timing[T.card_kind[st.spell[p]]]
            if tm == C.TM_TURN or tm == C.TM_ANY:  # DK-197; DK-198: at any point
                for k in range(n):
                    if spell_ok(st, T, p, k, tm):
                        mask[C.A_SPELL + k] = 1
                        cnt += 1
        return cnt
    # PH_MOVE. Every action is offered only if the mover can still end its
    # movement off the other karts afterwards (DK-077..079, ``can_clear``);
    # on a hex of its own only a Move / Drift needs the look-ahead.
    mp = st.mp
    f = st.facing[p]
    c = st.pos[p]
    shared = kart_at(st, c, p) >= 0
    if mp >= 1:  # DK-080..090
        if enter_ok(st, T, p, f, entry_cost(st, T, p, f), False):
            mask[C.A_MOVE] = 1
            cnt += 1
    tcost = NO_COST  # no Turn left this movement
    ntu, nxt = 1, st.extra_turns
    if st.turn_used == 0:
        tcost = 0 if has_ability(st, T, p, C.AB_HANDLING) else 1  # DK-058, DK-095
    elif st.extra_turns > 0:
        tcost = 1  # DK-059
        nxt -= 1
    if tcost <= mp:
        for side in range(2):
            if not shared or can_clear(
                st,
                T,
                p,
                c,
                (f + 5) % 6 if side == 0 else (f + 1) % 6,
                mp - tcost,
                ntu,
                nxt,
                st.drift_used,
                st.extra_drifts,
                st.brake_used,
                st.bumped,
            ):
                mask[C.A_TURN_L + side] = 1
                cnt += 1
    if can_drift(st) and mp >= 1:  # DK-097..100
        for side in range(2):
            d = (f + 5) % 6 if side == 0 else (f + 1) % 6
            if drift_ok(st, T, p, d) and enter_ok(st, T, p, d, drift_cost(st, T, p, d), True):
                mask[C.A_DRIFT_L + side] = 1
                cnt += 1
    bcost = 0 if has_ability(st, T, p, C.AB_HEAVY) else 1  # DK-060, DK-103
    if bcost <= mp:
        others = 0
        for s in range(n):
            if s != p and st.pos[s] == c and st.finished[s] == 0:
                others += 1
        for k in range(1, n):
            o = rel_seat(st, p, k)
            if st.finished[o] or st.pos[o] != c or (st.bumped >> o) & 1:
                continue  # DK-102, DK-108
            for side in range(3):
                ok, blk, nb = bump_to(st, T, p, c, f, o, side)
                if ok and blk:
                    ok = mp - bcost >= exit_cost(st, T, p)  # DK-111
                if ok:
                    bumped = st.bumped | (1 << o)
                    if not blk and (st.tok[nb] == C.K_BOOST or st.tok[nb] == C.K_BOMB):
                        ok = others == 1  # o may travel on / the blast ends the turn
                    else:  # o stays (blocked: leave the hex after) or is pushed to nb
                        if not blk:
                            st.pos[o] = nb
                        ok = clear_after(
                            st, T, p, c, f, mp - bcost, st.extra_turns, st.extra_drifts, bumped
                        )
                        st.pos[o] = c
                if ok:
                    mask[C.A_BUMP + 3 * (k - 1) + side] = 1
                    cnt += 1
    if st.brake_used == 0 and mp >= 1:  # DK-117
        if not shared or can_clear(
            st,
            T,
            p,
            c,
            f,
            mp - 1,
            st.turn_used,
            st.extra_turns,
            st.drift_used,
            st.extra_drifts,
            1,
            st.bumped,
        ):
            mask[C.A_BRAKE] = 1
            cnt += 1
    for k in range(n):
        if spell_ok(st, T, p, k, C.TM_ANY):  # DK-198
            if not shared or spell_clear(st, T, p, k):
                mask[C.A_SPELL + k] = 1
                cnt += 1
    for w in range(2):
        for k in range(n):
            if power_ok(st, T, p, w, k):  # DK-201..206
                if not shared or power_clear(st, T, p, w):
                    mask[C.A_POWER + C.MAX_P * w + k] = 1
                    cnt += 1
    # End (a Crash if MP is left): never on another kart's hex (DK-078); the
    # look-ahead keeps a way out open, End stays only as the last resort
    if cnt == 0 or not shared:
        mask[C.A_END] = 1
        cnt += 1
    return cnt


# ----------------------------------------------------------------------------- apply
@njit(**JIT)
def apply_row(st, T, a, rew):
    p = st.actor
    n = st.num_players
    ph = st.phase
    if ph == C.PH_DRAFT_RACER or ph == C.PH_DRAFT_DASH:
        i = _offer_k(st, a - C.A_PICK)
        if ph == C.PH_DRAFT_RACER:
            st.racer[p] = st.offer[i]
        else:
            st.dash[p] = st.offer[i]
        st.offer[i] = -1
        st.draft_k += 1
        if st.draft_k < n:
            st.cur = _draft_picker(st)
            st.actor = st.cur
            return
        if ph == C.PH_DRAFT_RACER:  # DK-018..020
            st.phase = C.PH_DRAFT_DASH
            _lay_out(st, C.NDASH, min(n + 1, C.NDASH))
            st.cur = _draft_picker(st)
            st.actor = st.cur
            return
        fill_int(st.offer, -1)
        st.offer_n = 0
        _place_karts(st, T)
        _advance(st, T, rew)
        return
    if ph == C.PH_FREEZE:
        if a != C.A_PASS:
            cast(st, T, p, a - C.A_SPELL)  # DK-196, DK-247
        st.freeze_k += 1
        _advance(st, T, rew)
        return
    if ph == C.PH_FACING:
        st.facing[p] = a - C.A_FACE  # DK-127, DK-A19
        st.crashed[p] = 0
        st.phase = C.PH_SPEED
        return
    if ph == C.PH_SPEED:
        if a >= C.A_SPELL and a < C.A_SPELL + C.N_SPELL:
            cast(st, T, p, a - C.A_SPELL)
            return
        st.speed[p] += a - C.A_SPEED - 1  # DK-067
        st.mp = T.dash_mp[st.dash[p], st.speed[p] - 1] + st.tail_mp  # DK-071
        st.phase = C.PH_MOVE
        st.crashed[p] = 0
        return
    # PH_MOVE
    f = st.facing[p]
    if a == C.A_MOVE or a == C.A_DRIFT_L or a == C.A_DRIFT_R:
        if a == C.A_MOVE:
            d = f
            cost = entry_cost(st, T, p, d)
        else:
            d = (f + 5) % 6 if a == C.A_DRIFT_L else (f + 1) % 6
            cost = drift_cost(st, T, p, d)
            if st.drift_used == 0:
                st.drift_used = 1  # DK-098
            else:
                st.extra_drifts -= 1
        last = cost > st.mp  # DK-085
        st.mp -= min(cost, st.mp)
        drive(st, T, p, d, M_DRIVE)
        if last and st.move_over == 0:  # DK-086..089
            st.move_over = 1
            st.ended_ok = 1
    elif a == C.A_TURN_L or a == C.A_TURN_R:
        if st.turn_used == 0:
            st.turn_used = 1
            if not has_ability(st, T, p, C.AB_HANDLING):
                st.mp -= 1
        else:
            st.extra_turns -= 1
            st.mp -= 1
        st.facing[p] = (f + (5 if a == C.A_TURN_L else 1)) % 6  # DK-092, DK-093
    elif a >= C.A_BUMP and a < C.A_BUMP + C.N_BUMP:
        k = (a - C.A_BUMP) // 3 + 1
        side = (a - C.A_BUMP) % 3
        o = rel_seat(st, p, k)
        ok, blk = bump_dest(st, T, p, o, side)
        if not has_ability(st, T, p, C.AB_HEAVY):
            st.mp -= 1
        st.bumped |= np.uint8(1 << o)
        d = (f + side + 5) % 6
        if blk:  # DK-110, DK-A15
            crash(st, o)
            nb = neighbour_cell(st.pos[p], d)
            if (
                nb >= 0
                and (T.tr_walls[st.track, st.pos[p]] >> d) & 1 == 0
                and T.tr_terr[st.track, nb] == C.T_LAVA
                and st.grass[nb] == 0
            ):
                lose_coin(st, o)
        else:
            drive(st, T, o, d, M_BUMP)  # DK-112, DK-113, DK-115
    elif a == C.A_BRAKE:
        st.brake_used = 1
        st.mp -= 1
        st.speed[p] = max(1, st.speed[p] - 2)  # DK-117, DK-A22, DK-A46
    elif a >= C.A_SPELL and a < C.A_SPELL + C.N_SPELL:
        cast(st, T, p, a - C.A_SPELL)
    elif a >= C.A_POWER and a < C.A_POWER + C.N_POWER:
        w = (a - C.A_POWER) // C.MAX_P
        use_power(st, T, p, w, (a - C.A_POWER) % C.MAX_P)
    elif a == C.A_END:
        if st.mp > 0:
            crash(st, p)  # DK-075, DK-A08
        else:
            st.move_over = 1
            st.ended_ok = 1
    st.acted = 1
    if st.move_over:
        _end_turn(st, T, rew)


@njit(**JIT)
def finish_row(st, T):
    """The engine ended the race (an illegal action or the decision cap)."""
    st.phase = C.PH_OVER
