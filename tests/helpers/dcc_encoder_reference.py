"""The Dungeon Crawler Carl: Unstoppable encoder as it was before the
speed work of issue #14 (every card slot computed from the content tables on
every call): the reference that ``tests/dcc_unstoppable/test_encoder_speed.py`` holds
the fast ``encoders/dcc_unstoppable.encode_row`` to, bit for bit. Not used
by the package."""

from dungeonrl.encoders.dcc_unstoppable import AHEAD, CORE_F, SEAT_SIZE, THREAT_F, UPG_F
from dungeonrl.envs.core.kernel.jit import JIT, njit
from dungeonrl.envs.dcc_unstoppable import consts as C


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


@njit(**JIT)
def core_feats(st, T, s, out, o):
    """Core side of sleeve s (or nothing if s < 0) into out[o:o+CORE_F]."""
    if s < 0 or st.sl_core[s] < 0:
        return
    c = st.sl_core[s]
    out[o] = 1.0
    out[o + 1] = T.c_level[c] / 6.0
    cost = T.c_cost[c]
    for k in range(2):
        u = st.sl_up[s, k]
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
def core_id_feats(T, c, out, o):
    """An unsleeved core side (draft reveal, core deck top)."""
    if c < 0:
        return
    out[o] = 1.0
    out[o + 1] = T.c_level[c] / 6.0
    out[o + 2] = T.c_cost[c] / 3.0
    out[o + 3 + T.c_type[c]] = 1.0
    out[o + 5] = T.c_tough[c]
    out[o + 6] = T.c_nexh[c] / 2.0
    _ops_summary(T.c_play[c], out, o + 7)
    for j in range(T.c_nexh[c]):
        _ops_summary(T.c_exh[c, j], out, o + 7)
    if T.c_stat[c] < 4:
        out[o + 16 + T.c_stat[c]] = 1.0


@njit(**JIT)
def threat_feats(st, T, s, out, o):
    """Threat side of sleeve s, only if publicly revealed."""
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
    lvl = T.tr_level[st.cfg_floor - 1, st.cfg_mode, st.danger]
    if T.t_datk[s]:
        a += lvl
        h += lvl
    if T.t_ddef[s]:
        h += lvl
    if st.sl_loom[s] == 0:
        kw &= ~C.KW_LOOMING
    out[o + 1] = a / 5.0
    out[o + 2] = h / 10.0
    out[o + 3] = st.sl_dmg[s] / 10.0
    out[o + 4] = max(h - st.sl_dmg[s], 0) / 10.0
    out[o + 5] = st.sl_loom[s]
    out[o + 6] = 1.0 if T.t_group[s] == 6 else 0.0
    out[o + 8] = T.t_datk[s]
    out[o + 9] = T.t_ddef[s]
    for b in range(6):
        if kw & (1 << b):
            out[o + 10 + b] = 1.0


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
def seat_block(st, T, p, out, o):
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
    out[o] = st.health[p] / 10.0
    out[o + 1] = st.mana[p] / 10.0
    out[o + 2] = min(st.gold[p], 40) / 20.0
    out[o + 3] = st.ap[p] / 6.0
    out[o + 4] = min(st.level[p], 12) / 6.0
    out[o + 5] = st.small[p] / 6.0
    o += 6
    if st.descended[p] > 0:
        out[o + st.descended[p] - 1] = 1.0
    o += 2
    out[o] = st.main_done[p]
    out[o + 1] = st.deck_n[p] / 40.0
    out[o + 2] = st.hand_n[p] / 20.0
    out[o + 3] = st.disc_n[p] / 40.0
    out[o + 4] = st.play_n[p] / 12.0
    out[o + 5] = st.bf_n[p] / 6.0
    out[o + 6] = st.sac_queue[p]
    out[o + 7] = 1.0 if st.sl_zone[C.STAIRS0 + p] == C.Z_DECK else 0.0
    out[o + 8] = min(st.defeats[p], 100) / 40.0
    out[o + 9] = st.turn_defeats[p] / 5.0
    out[o + 10] = 1.0 if st.actor == p else 0.0
    o += 11
    for h in range(C.HAND_SLOTS):
        s = st.hand[p, h] if h < st.hand_n[p] else -1
        core_feats(st, T, s, out, o)
        threat_feats(st, T, s, out, o + CORE_F)
        o += CORE_F + THREAT_F
    for k in range(C.PLAY_SLOTS):
        s = st.play[p, k] if k < st.play_n[p] else -1
        core_feats(st, T, s, out, o)
        if s >= 0:
            out[o + CORE_F] = st.sl_exh[s]
            out[o + CORE_F + 1] = st.sl_dmg[s]
        o += CORE_F + 2
    for i in range(C.BF_CAP):
        if i < st.bf_n[p]:
            threat_feats(st, T, st.bf[p, i], out, o)
        o += THREAT_F
    if st.deck_n[p] > 0:
        threat_feats(st, T, st.deck[p, st.deck_n[p] - 1], out, o)


@njit(**JIT)
def encode_row(st, T, seat, out):
    out[:] = 0.0
    seat_block(st, T, seat, out, 0)
    if st.num_players == 2:
        seat_block(st, T, 1 - seat, out, SEAT_SIZE)
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
        out[o + len(C.OP_NAMES)] = op[1] / 5.0
        out[o + len(C.OP_NAMES) + 1] = op[4] / 5.0 if op[3] == C.CD_SPELL else 0.0
        out[o + len(C.OP_NAMES) + 2] = (st.pend_n - st.pend_i) / 6.0
    o += len(C.OP_NAMES) + 3
    for i in range(2 * C.DRAFT_DUO):
        c = st.reveal[i]
        core_id_feats(T, c, out, o)
        if c >= 0:
            out[o + CORE_F] = 1.0 if st.reveal_set[i] == seat else 0.0
            out[o + CORE_F + 1] = (
                1.0
                if (
                    st.phase == C.PH_DRAFT
                    and st.reveal_set[i] != st.draft_first
                    and st.draft_first >= 0
                )
                else 0.0
            )
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
    for m in range(C.MARKET_SIZE):
        upg_feats(T, st.market[m], out, o)
        o += UPG_F
    for d in range(C.MAX_LEVEL_DECK):
        if st.cdeck_n[d] > 0:
            core_id_feats(T, st.cdeck[d, st.cdeck_n[d] - 1], out, o)
        o += CORE_F
    for d in range(C.MAX_LEVEL_DECK):
        out[o + d] = st.cdeck_n[d] / 20.0
    o += C.MAX_LEVEL_DECK
    f = st.cfg_floor - 1
    m = st.cfg_mode
    out[o + f] = 1.0
    o += C.NFLOOR
    out[o + m] = 1.0
    o += 2
    out[o + st.cfg_difficulty] = 1.0
    o += 4
    ln = T.tr_len[f, m]
    out[o] = st.danger / 30.0
    out[o + 1] = T.tr_level[f, m, st.danger] / 5.0
    skip_b = C.SKIP_BORDER[st.cfg_difficulty]
    left = 0
    for i in range(st.danger + 1, ln - 1):
        b = T.tr_border[f, m, i]
        if not (b != C.B_NONE and b == skip_b):
            left += 1
    out[o + 2] = left / 30.0
    o += 3
    i = st.danger + 1
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
    o += 4 * AHEAD
    for j in range(3):
        out[o + j] = st.space_queue[j]
    o += 3
    if st.quest >= 0:
        card = T.quest_first[st.quest] + st.quest_part
        out[o] = 1.0
        out[o + 1] = st.quest_part / 4.0
        out[o + 2] = st.quest_prog / max(1, T.q_n[card])
        out[o + 3 + T.q_req[card]] = 1.0
        out[o + 3 + len(C.QREQ_NAMES) + T.q_active[card]] = 1.0
    o += 3 + len(C.QREQ_NAMES) + len(C.QACTIVE_NAMES)
    out[o] = st.quests_done / 3.0
    o += 1
    for b in range(C.NBK):
        out[o + b] = st.bosses[b] / 2.0
    o += C.NBK
    for b in range(C.NBK + 1):
        out[o + b] = T.tr_need[f, m, b] * st.num_players / 2.0
    o += C.NBK + 1
    out[o] = st.turn / 40.0
    out[o + 1] = st.tdeck_n / 60.0
    out[o + 2] = st.udeck_n / 36.0
    out[o + 3] = st.dungeon_n / 6.0
    o += 4
    for j in range(C.ACH_PER_FLOOR):
        out[o + j] = st.ach[j]
    o += C.ACH_PER_FLOOR
    for j in range(C.NEXTRA):
        out[o + j] = st.extra[j]
    o += C.NEXTRA
    out[o] = st.passes / C.PASS_CAP
