"""Dungeon Crawler Carl: Unstoppable rules as row kernels (the row contract
of ``envs/README.md``): ``configure_row``, ``reset_row``, ``legal_row``,
``apply_row``. Every function works on ONE state record ``st`` (see
``state.py``) and the content record ``T`` (``content.py``).

Flow of one game (README "Design" has the full story):

* setup: supply, floor, crawlers; arcade race/class choice (PH_RACE,
  PH_CLASS) unless configured; then turn 1 starts.
* turn: Upkeep (automatic) -> Draft (PH_DRAFT: keep one revealed core, then
  in solo order the two others under the deck, ``DEC_BOTTOM``; in co-op 2+2
  with the cross-pick rule) -> Main (PH_MAIN: play cards, use basic
  spells, exhaust allies, buy upgrades, descend; effects needing a choice
  raise a pending decision ``dec``; in co-op the seat with the initiative
  acts, ``A_PASS`` hands it over, ``A_END`` ends that seat's Main Phase) ->
  Threat (automatic) -> Cleanup (automatic, then PH_CLEANUP for the optional
  danger-space effects) -> next turn.

All chance goes through ``dungeonrl.envs.core.kernel.chance`` (shuffles of the core,
threat, upgrade and player decks, random boss and race/class draws).
"""

from __future__ import annotations

import numpy as np

from ..core.kernel import chance
from ..core.kernel.jit import JIT, JIT_INLINE, njit
from ..core.kernel.memops import fill_int
from ..core.kernel.zones import pile_push, pile_remove
from . import consts as C

BOSS0 = C.NTHREAT - C.NBOSS  # first boss threat id


# =============================================================================
# small helpers
# =============================================================================
@njit(**JIT)
def track_f(st):
    return st.cfg_floor - 1


@njit(**JIT)
def danger_level(st, T):
    return np.int64(T.tr_level[st.cfg_floor - 1, st.cfg_mode, st.danger])


@njit(**JIT)
def has_mod(st, T, p, mod):
    """Total ``n`` of class ability ``mod`` for seat p (0 if none)."""
    k = st.klass[p]
    if k < 0:
        return np.int64(0)
    tot = 0
    for j in range(C.MAX_CABIL):
        if T.k_mod[k, j] == mod:
            tot += T.k_n[k, j]
    return np.int64(tot)


@njit(**JIT)
def quest_active_kind(st, T):
    if st.quest < 0:
        return C.QA_NONE
    return np.int64(T.q_active[T.quest_first[st.quest] + st.quest_part])


@njit(**JIT)
def is_stairs(s):
    return s >= C.STAIRS0


@njit(**JIT)
def t_keywords(st, T, s):
    if is_stairs(s):
        return np.int64(0)
    kw = np.int64(T.t_kw[s])
    for c in range(2):
        u = st.sl_up[s, c]
        if u >= 0:
            kw |= T.u_kw[u]
    if st.sl_loom[s] == 0:
        kw &= ~C.KW_LOOMING
    return kw


@njit(**JIT)
def t_attack(st, T, s):
    """Threat-phase damage of sleeve s (DCC-187..189), quest effects included."""
    a = np.int64(T.t_atk[s])
    for c in range(2):
        u = st.sl_up[s, c]
        if u >= 0:
            a += T.u_atk[u]
    if T.t_datk[s]:
        a += danger_level(st, T)
    if quest_active_kind(st, T) == C.QA_THREAT_ATTACK:
        a += 1
    return a


@njit(**JIT)
def t_health(st, T, s):
    """Health = attack + defense (+ upgrades, + danger where marked), DCC-353."""
    h = np.int64(T.t_atk[s]) + T.t_def[s]
    for c in range(2):
        u = st.sl_up[s, c]
        if u >= 0:
            h += T.u_atk[u] + T.u_def[u]
    if T.t_datk[s]:
        h += danger_level(st, T)
    if T.t_ddef[s]:
        h += danger_level(st, T)
    return h


@njit(**JIT)
def card_cost(st, T, s):
    c = np.int64(T.c_cost[st.sl_core[s]])
    for k in range(2):
        u = st.sl_up[s, k]
        if u >= 0:
            c += T.u_ap[u]
    return max(c, 0)


@njit(**JIT)
def is_tough(st, T, p, s):
    if T.c_type[st.sl_core[s]] != C.ALLY:
        return False
    if T.c_tough[st.sl_core[s]] or has_mod(st, T, p, C.CM_ALLIES_TOUGH) > 0:
        return True
    for k in range(2):
        u = st.sl_up[s, k]
        if u >= 0 and T.u_tough[u]:
            return True
    return False


@njit(**JIT)
def ondeck(st, p):
    """The on-deck card of seat p (a sleeve id, possibly the stairs), -1 if none."""
    if st.deck_n[p] == 0:
        return np.int64(-1)
    return np.int64(st.deck[p, st.deck_n[p] - 1])


@njit(**JIT)
def reveal_top(st, p):
    s = ondeck(st, p)
    if s >= 0:
        st.sl_seen[s] = 1


@njit(**JIT)
def active_count(st, T, p, count_fast):
    """Active (non-Looming) threats on seat p's battlefield."""
    n = 0
    for i in range(st.bf_n[p]):
        s = st.bf[p, i]
        if st.sl_loom[s]:
            continue
        if not count_fast and (t_keywords(st, T, s) & C.KW_FAST):
            continue
        n += 1
    return n


@njit(**JIT)
def seat_active(st, p):
    """Seat p still takes part in turns (not down the stairs in an earlier turn)."""
    return p < st.num_players and st.descended[p] != 2


# ---- pile removal --------------------------------------------------------------
@njit(**JIT)
def _rm(row, n, i):
    for j in range(i, n - 1):
        row[j] = row[j + 1]
    row[n - 1] = -1


@njit(**JIT_INLINE)
def _push_or_remove(cards, count, s, add):
    return pile_push(cards, count, s) if add else pile_remove(cards, count, s)


@njit(**JIT_INLINE)
def pile_edit(st, z, p, s, add):
    """Put sleeve s on top of seat p's pile of zone ``z`` (deck, hand,
    discard, battlefield, play) when ``add``, else take it out of that pile;
    nothing for another zone."""
    if z == C.Z_DECK:
        st.deck_n[p] = _push_or_remove(st.deck[p], st.deck_n[p], s, add)
    elif z == C.Z_HAND:
        st.hand_n[p] = _push_or_remove(st.hand[p], st.hand_n[p], s, add)
    elif z == C.Z_DISCARD:
        st.disc_n[p] = _push_or_remove(st.disc[p], st.disc_n[p], s, add)
    elif z == C.Z_BATTLE:
        st.bf_n[p] = _push_or_remove(st.bf[p], st.bf_n[p], s, add)
    elif z == C.Z_PLAY:
        st.play_n[p] = _push_or_remove(st.play[p], st.play_n[p], s, add)


@njit(**JIT)
def empty_piles(cards, counts):
    """Empty every seat's (or level's) pile: no cards, count 0."""
    fill_int(cards, -1)
    fill_int(counts, 0)


@njit(**JIT)
def take(st, s):
    """Remove sleeve s from the pile it lies in (deck, hand, discard,
    battlefield, play)."""
    pile_edit(st, st.sl_zone[s], st.sl_owner[s], s, False)
    st.sl_zone[s] = C.Z_BOX


@njit(**JIT)
def put(st, s, z, p):
    """Put sleeve s on top of seat p's pile ``z``."""
    st.sl_owner[s] = p
    st.sl_zone[s] = z
    pile_edit(st, z, p, s, True)
    if z == C.Z_DECK:
        st.fresh[p] = 1
    elif z == C.Z_PLAY:
        st.sl_exh[s] = 0


@njit(**JIT)
def put_deck_bottom(st, s, p):
    for i in range(st.deck_n[p], 0, -1):
        st.deck[p, i] = st.deck[p, i - 1]
    st.deck[p, 0] = s
    st.deck_n[p] += 1
    st.sl_owner[s] = p
    st.sl_zone[s] = C.Z_DECK
    st.fresh[p] = 1


@njit(**JIT)
def shuffle_deck(st, p):
    chance.shuffle(st, st.deck[p], st.deck_n[p])


@njit(**JIT)
def eliminate(st, s):
    """Remove sleeve s (its core, threat and upgrades) from this game."""
    take(st, s)
    st.sl_zone[s] = C.Z_ELIM
    st.sl_exh[s] = 0


# =============================================================================
# game end
# =============================================================================
@njit(**JIT)
def compute_xp(st, T, won):
    f = st.cfg_floor - 1
    xp = 0
    for j in range(C.ACH_PER_FLOOR):
        if st.ach[j] and not st.camp_ach[f, j]:
            xp += T.ach_xp[f, j]
    if won:
        xp += st.boss_xp + st.quest_xp
        if st.cfg_mode == C.M_ARCADE:
            xp += C.DIFF_XP[st.cfg_difficulty] + spaces_left(st, T)
            for e in range(C.NEXTRA):
                if st.extra[e]:
                    xp += C.EXTRA_XP[e]
    return xp


@njit(**JIT)
def finish(st, T, code, rew):
    """End the game with outcome ``code`` and write the team rewards."""
    if st.outcome != 0:
        return
    won = code == C.O_WIN
    if won:
        end_extras(st, T)
    st.xp = compute_xp(st, T, won)
    st.score = st.xp * 100 if (won and st.cfg_mode == C.M_ARCADE) else 0
    st.outcome = code
    st.phase = C.PH_OVER
    st.dec = C.DEC_NONE
    st.actor = -1
    r = 1.0 if won else -1.0
    if st.reward_mode == C.RM_SCORE and won:
        r = np.float32(st.xp)
    for p in range(st.num_players):
        rew[p] = r


@njit(**JIT)
def lose_health(st, T, p, n, rew):
    st.health[p] = max(0, st.health[p] - n)
    if st.health[p] == 0:
        finish(st, T, C.O_LOSS_HEALTH, rew)


# =============================================================================
# danger track
# =============================================================================
@njit(**JIT)
def skipped(st, T, i):
    b = T.tr_border[st.cfg_floor - 1, st.cfg_mode, i]
    return b != C.B_NONE and b == C.SKIP_BORDER[st.cfg_difficulty]


@njit(**JIT)
def skull(st, T):
    return np.int64(T.tr_len[st.cfg_floor - 1, st.cfg_mode] - 1)


@njit(**JIT)
def spaces_left(st, T):
    """A-18: spaces the marker can still move onto before the skull."""
    n = 0
    for i in range(st.danger + 1, skull(st, T)):
        if not skipped(st, T, i):
            n += 1
    return n


@njit(**JIT)
def advance_danger(st, T, rew):
    """Move the marker to the next space not skipped at this difficulty
    (DCC-213); queue its optional effect; the skull loses (DCC-201)."""
    i = st.danger + 1
    sk = skull(st, T)
    while i < sk and skipped(st, T, i):
        i += 1
    st.danger = i
    if i >= sk:
        finish(st, T, C.O_LOSS_SKULL, rew)
        return
    e = T.tr_effect[st.cfg_floor - 1, st.cfg_mode, i]
    if e == C.SE_ELIMINATE:
        for p in range(st.num_players):
            if seat_active(st, p):
                st.space_queue[p] = 1
    elif e == C.SE_MARKET:
        st.space_queue[2] = 1


# =============================================================================
# market
# =============================================================================
@njit(**JIT)
def refill_market(st):
    for m in range(C.MARKET_SIZE):
        if st.market[m] < 0 and st.udeck_n > 0:
            st.udeck_n -= 1
            u = st.udeck[st.udeck_n]
            st.udeck[st.udeck_n] = -1
            st.market[m] = u
            st.upg_zone[u] = 1


@njit(**JIT)
def market_to_bottom(st, m):
    u = st.market[m]
    for i in range(st.udeck_n, 0, -1):
        st.udeck[i] = st.udeck[i - 1]
    st.udeck[0] = u
    st.udeck_n += 1
    st.upg_zone[u] = 0
    st.market[m] = -1


@njit(**JIT)
def upgrade_price(st, T, p, u, s):
    c = np.int64(T.u_cost[u])
    if T.u_dstat[u] >= 0 and T.c_stat[st.sl_core[s]] == T.u_dstat[u]:
        c -= T.u_disc[u]
    c -= has_mod(st, T, p, C.CM_UPGRADE_DISCOUNT)
    return max(c, 0)


@njit(**JIT)
def can_receive(st, T, p, u, s):
    """Can seat p sleeve upgrade u into its card s (hand or play)?"""
    if is_stairs(s) or st.sl_core[s] < 0:
        return False
    if st.sl_up[s, T.u_cutout[u]] >= 0:
        return False
    req = T.u_req[u]
    typ = T.c_type[st.sl_core[s]]
    if req == 1 and typ != C.TACTIC:
        return False
    if req == 2 and typ != C.ALLY:
        return False
    return st.gold[p] >= upgrade_price(st, T, p, u, s)


# =============================================================================
# levelling up, refilling, quests
# =============================================================================
@njit(**JIT)
def discard_ally(st, T, p, s):
    """Discard ally s from play; Tough keeps an undamaged ally (DCC-363)."""
    if is_tough(st, T, p, s) and st.sl_dmg[s] == 0:
        st.sl_dmg[s] = 1
        return
    take(st, s)
    st.sl_dmg[s] = 0
    st.sl_exh[s] = 0
    put(st, s, C.Z_DISCARD, p)


@njit(**JIT)
def random_boss(st, T, kind):
    n = 0
    for i in range(st.dungeon_n):
        if T.t_boss_kind[st.dungeon[i]] == kind:
            n += 1
    if n == 0:
        return np.int64(-1)
    k = chance.below(st, n)
    for i in range(st.dungeon_n):
        b = st.dungeon[i]
        if T.t_boss_kind[b] == kind:
            if k == 0:
                _rm(st.dungeon, st.dungeon_n, i)
                st.dungeon_n -= 1
                return np.int64(b)
            k -= 1
    return np.int64(-1)


@njit(**JIT)
def enter_boss(st, T, b, p):
    st.sl_core[b] = -1
    st.sl_dmg[b] = 0
    st.sl_loom[b] = 1 if (T.t_kw[b] & C.KW_LOOMING) else 0
    st.sl_seen[b] = 1  # bosses are known cards (the dungeon deck is public)


@njit(**JIT)
def level_up(st, T, p, rew):
    """The 5 level-up steps (D-11, README): (1) allies leave play (Tough);
    (2) both level discs up; (3) the discard pile becomes the new deck;
    (4) floor-track triggers and the UNBEATABLE danger advance; (5) the new
    on-deck card is revealed."""
    i = 0
    while i < st.play_n[p]:
        s = st.play[p, i]
        if T.c_type[st.sl_core[s]] == C.ALLY:
            n0 = st.play_n[p]
            discard_ally(st, T, p, s)
            if st.play_n[p] < n0:
                continue
        i += 1
    st.level[p] = min(st.level[p] + 1, 99)
    st.small[p] = min(st.level[p], C.MAX_LEVEL_DECK)
    heal = has_mod(st, T, p, C.CM_LEVELUP_HEAL)
    if heal > 0:
        st.health[p] = min(C.HEALTH_CAP, st.health[p] + heal)
    if st.descended[p] == 1:
        st.levels_after_stairs[p] = min(100, st.levels_after_stairs[p] + 1)
    # discard pile -> new deck; a stairs card still in the deck (the refill
    # found only the stairs, see ``refill``) goes back under it
    had_stairs = st.sl_zone[C.STAIRS0 + p] == C.Z_DECK
    if had_stairs:
        take(st, C.STAIRS0 + p)
    n = st.disc_n[p]
    for k in range(n):
        s = st.disc[p, k]
        st.disc[p, k] = -1
        put(st, s, C.Z_DECK, p)
    st.disc_n[p] = 0
    shuffle_deck(st, p)
    st.fresh[p] = 1 if st.deck_n[p] > 0 else 0
    f = st.cfg_floor - 1
    m = st.cfg_mode
    lv = st.level[p]
    stairs = False
    for j in range(C.MAX_TRIG):
        if T.tr_trig[f, m, j, 0] != lv:
            continue
        do = T.tr_trig[f, m, j, 1]
        if do == C.TR_BOSS:
            b = random_boss(st, T, T.tr_trig[f, m, j, 2])
            if b >= 0:
                enter_boss(st, T, b, p)
                put(st, b, C.Z_DECK, p)
                shuffle_deck(st, p)
        elif do == C.TR_STAIRS:
            stairs = True
        elif do == C.TR_QUEST:
            start_quest(st, T, p)
    if had_stairs or (stairs and st.sl_zone[C.STAIRS0 + p] == C.Z_BOX):
        put_deck_bottom(st, C.STAIRS0 + p, p)  # after every shuffle
        st.sl_seen[C.STAIRS0 + p] = 1
    reveal_top(st, p)
    if st.cfg_difficulty == C.D_UNBEATABLE and lv >= 3:  # DCC-212, A-43
        advance_danger(st, T, rew)


@njit(**JIT)
def may_level(st, p):
    return st.deck_n[p] == 0 and (st.disc_n[p] > 0 or st.fresh[p] == 1)


@njit(**JIT)
def check_levelups(st, T, rew):
    """Main-phase level up (DCC-227, A-23): empty deck and no active threat."""
    for p in range(st.num_players):
        guard = 0
        while (
            st.outcome == 0 and may_level(st, p) and active_count(st, T, p, True) == 0 and guard < 8
        ):
            level_up(st, T, p, rew)
            guard += 1


@njit(**JIT)
def refill(st, T, p, rew):
    """Cleanup step 3 (DCC-196..199, A-09): add threats until 3 non-Fast
    active threats and an on-deck card; level up on an empty deck."""
    guard = 0
    while st.outcome == 0 and guard < 200:
        guard += 1
        if st.deck_n[p] == 0:
            if may_level(st, p):
                level_up(st, T, p, rew)
                continue
            break
        if active_count(st, T, p, False) >= C.BF_TARGET:
            break
        top = ondeck(st, p)
        if is_stairs(top):
            # the stairs never enter the battlefield. Usable stairs wait on
            # top; otherwise, with only the stairs left while a threat must
            # still be added, the crawler levels up and the stairs go back
            # under the new deck (README)
            if st.disc_n[p] > 0 and st.deck_n[p] == 1 and not stairs_ready(st, T, p):
                level_up(st, T, p, rew)
                continue
            break
        if st.bf_n[p] >= C.BF_CAP:
            break
        take(st, top)
        put(st, top, C.Z_BATTLE, p)
        st.sl_seen[top] = 1
        reveal_top(st, p)


@njit(**JIT)
def start_quest(st, T, p):
    if st.quest >= 0 or st.quest_next >= T.n_quests:
        return
    st.quest = st.quest_order[st.quest_next]
    st.quest_next += 1
    st.quest_part = 0
    st.quest_owner = p
    enter_part(st, T)


@njit(**JIT)
def enter_part(st, T):
    st.quest_prog = 0
    st.quest_boss = -1
    card = T.quest_first[st.quest] + st.quest_part
    if T.q_req[card] == C.QR_BOSS:
        b = BOSS0 + T.q_boss[card]
        p = st.quest_owner
        if not seat_active(st, p) or st.descended[p] != 0:
            p = 1 - p if st.num_players == 2 else p
        enter_boss(st, T, b, p)
        if st.bf_n[p] < C.BF_CAP:
            put(st, b, C.Z_BATTLE, p)
        else:
            put(st, b, C.Z_DECK, p)
        st.quest_boss = b


@njit(**JIT)
def complete_part(st, T):
    card = T.quest_first[st.quest] + st.quest_part
    st.quest_part += 1
    if st.quest_part >= T.quest_nparts[st.quest]:
        st.quests_done += 1
        st.quest_xp += T.q_xp[card]
        st.quest = -1
        st.quest_boss = -1
        return
    enter_part(st, T)


@njit(**JIT)
def allies_in_play(st, T, p):
    """How many allies seat p has in play."""
    k = 0
    for i in range(st.play_n[p]):
        if T.c_type[st.sl_core[st.play[p, i]]] == C.ALLY:
            k += 1
    return k


@njit(**JIT)
def check_quest(st, T):
    guard = 0
    while st.quest >= 0 and guard < 8:
        guard += 1
        card = T.quest_first[st.quest] + st.quest_part
        req = T.q_req[card]
        n = T.q_n[card]
        done = False
        if req == C.QR_DEFEAT or req == C.QR_UPGRADES:
            done = st.quest_prog >= n
        elif req == C.QR_LEVEL:
            for p in range(st.num_players):
                if st.level[p] >= n:
                    done = True
        elif req == C.QR_ALLIES:
            for p in range(st.num_players):
                if allies_in_play(st, T, p) >= n:
                    done = True
        if not done:
            return
        complete_part(st, T)


@njit(**JIT)
def check_achievements(st, T):
    f = st.cfg_floor - 1
    for j in range(C.ACH_PER_FLOOR):
        if st.ach[j]:
            continue
        k = T.ach_kind[f, j]
        n = T.ach_n[f, j]
        ok = False
        if k == C.AC_DEFEATS:
            tot = 0
            for p in range(st.num_players):
                tot += st.defeats[p]
            ok = tot >= n
        elif k == C.AC_UPGRADES:
            ok = st.bought >= n
        elif k == C.AC_BOSSES:
            tot = 0
            for b in range(C.NBK):
                tot += st.bosses[b]
            ok = tot >= n
        else:
            for p in range(st.num_players):
                if k == C.AC_TURN_DEFEATS and st.turn_defeats[p] >= n:
                    ok = True
                elif k == C.AC_LEVEL and st.level[p] >= n:
                    ok = True
                elif k == C.AC_GOLD and st.gold[p] >= n:
                    ok = True
                elif k == C.AC_ALLIES and allies_in_play(st, T, p) >= n:
                    ok = True
        if ok:
            st.ach[j] = 1


@njit(**JIT)
def owned_sleeve(st, s, p):
    z = st.sl_zone[s]
    return (
        st.sl_owner[s] == p
        and st.sl_core[s] >= 0
        and not is_stairs(s)
        and (z == C.Z_DECK or z == C.Z_HAND or z == C.Z_DISCARD or z == C.Z_BATTLE or z == C.Z_PLAY)
    )


@njit(**JIT)
def end_extras(st, T):
    """Arcade extra achievements checked at the end of a won game (A-25):
    met by any crawler."""
    for p in range(st.num_players):
        stats = 0
        worth = 0
        low = False
        for s in range(C.NTHREAT):
            if not owned_sleeve(st, s, p):
                continue
            core = st.sl_core[s]
            stats |= 1 << T.c_stat[core]
            if T.c_level[core] == 1 or T.c_level[core] == 2:
                low = True
            for k in range(2):
                u = st.sl_up[s, k]
                if u >= 0:
                    worth += T.u_cost[u]
        nst = 0
        for b in range(C.NSTAT):
            if stats & (1 << b):
                nst += 1
        if nst >= 6:  # unreachable with 5 stat symbols (A-24, README)
            st.extra[C.EX_STRANGER] = 1
        if worth >= 50:
            st.extra[C.EX_PRENEUR] = 1
        if not low:
            st.extra[C.EX_RODEO] = 1
        if st.levels_after_stairs[p] >= 2:
            st.extra[C.EX_UNSTOPPABLE] = 1


# =============================================================================
# effects
# =============================================================================
@njit(**JIT)
def focus_count(st, T, p, stat):
    n = 0
    for i in range(st.hand_n[p]):
        c = st.sl_core[st.hand[p, i]]
        if c >= 0 and T.c_stat[c] == stat:
            n += 1
    for i in range(st.play_n[p]):
        c = st.sl_core[st.play[p, i]]
        if c >= 0 and T.c_stat[c] == stat:
            n += 1
    return n


@njit(**JIT)
def unite_count(st, T, p):
    bits = 0
    for i in range(st.hand_n[p]):
        c = st.sl_core[st.hand[p, i]]
        if c >= 0:
            bits |= 1 << T.c_stat[c]
    for i in range(st.play_n[p]):
        c = st.sl_core[st.play[p, i]]
        if c >= 0:
            bits |= 1 << T.c_stat[c]
    n = 0
    for b in range(C.NSTAT):
        if bits & (1 << b):
            n += 1
    return n


@njit(**JIT)
def op_amount(st, T, p, op):
    """The op's X after scaling, or 0 if its condition fails (Level X+,
    Focus N+, Unite N+)."""
    cond = op[3]
    arg = op[4]
    if cond == C.CD_LEVEL and st.level[p] < arg:
        return np.int64(0)
    if cond == C.CD_FOCUS and focus_count(st, T, p, op[5]) < arg:
        return np.int64(0)
    if cond == C.CD_UNITE and unite_count(st, T, p) < arg:
        return np.int64(0)
    n = np.int64(op[1])
    sc = op[2]
    if sc == C.SC_FOCUS:
        n *= focus_count(st, T, p, op[5])
    elif sc == C.SC_UNITE:
        n *= unite_count(st, T, p)
    elif sc == C.SC_LEVEL:
        n *= min(st.level[p], C.MAX_LEVEL_DECK)
    return n


@njit(**JIT)
def gain(st, T, p, code, n):
    if code == C.OP_GOLD:
        st.gold[p] = min(30000, st.gold[p] + n)
    elif code == C.OP_AP:
        st.ap[p] = min(C.AP_CAP, st.ap[p] + n)
    elif code == C.OP_HEALTH:
        st.health[p] = min(C.HEALTH_CAP, st.health[p] + n)
    elif code == C.OP_MANA:
        st.mana[p] = min(C.MANA_CAP, st.mana[p] + n)
    elif code == C.OP_TRAIN:
        st.small[p] = min(C.MAX_LEVEL_DECK, st.small[p] + 1)


@njit(**JIT)
def apply_simple(st, T, p, ops):
    """Resolve a list of decision-free ops (bonus, flip, race setup) for p."""
    for i in range(ops.shape[0]):
        code = ops[i, 0]
        if code == C.OP_NONE:
            break
        gain(st, T, p, code, np.int64(ops[i, 1]))


@njit(**JIT)
def taunt_on(st, T, q):
    for i in range(st.bf_n[q]):
        if t_keywords(st, T, st.bf[q, i]) & C.KW_TAUNT:
            return True
    s = ondeck(st, q)
    if s >= 0 and not is_stairs(s) and (t_keywords(st, T, s) & C.KW_TAUNT):
        return True
    return False


@njit(**JIT)
def target_sleeve(st, q, t):
    """Sleeve in target slot t of seat q's battlefield, -1 if none."""
    if q >= st.num_players:
        return np.int64(-1)
    if t == C.ONDECK:
        s = ondeck(st, q)
        if s < 0 or is_stairs(s):
            return np.int64(-1)
        return s
    if t < st.bf_n[q]:
        return np.int64(st.bf[q, t])
    return np.int64(-1)


@njit(**JIT)
def target_ok(st, T, q, t):
    """A legal damage target (A-34; Taunt per battlefield, DCC-285)."""
    s = target_sleeve(st, q, t)
    if s < 0:
        return False
    if taunt_on(st, T, q) and not (t_keywords(st, T, s) & C.KW_TAUNT):
        return False
    return True


@njit(**JIT)
def any_target(st, T):
    for q in range(st.num_players):
        for t in range(C.TSLOTS):
            if target_ok(st, T, q, t):
                return True
    return False


@njit(**JIT_INLINE)
def deal(st, T, a, q, t, n, rew):
    """Seat a deals n damage to the threat in slot t of seat q (DCC-325..328):
    Terror and Retaliate on targeting (A-36), Looming lost, defeat."""
    s = target_sleeve(st, q, t)
    kw = t_keywords(st, T, s)
    if (kw & C.KW_TERROR) and has_mod(st, T, a, C.CM_IGNORE_TERROR) == 0:
        st.ap[a] = max(0, st.ap[a] - 1)
    if (kw & C.KW_RETALIATE) and has_mod(st, T, a, C.CM_IGNORE_RETALIATE) == 0:
        lose_health(st, T, a, 1, rew)
        if st.outcome != 0:
            return
    st.sl_loom[s] = 0
    if T.t_group[s] == 6:
        n += has_mod(st, T, a, C.CM_BOSS_DAMAGE)
    st.sl_dmg[s] = min(100, st.sl_dmg[s] + n)
    if st.sl_dmg[s] >= t_health(st, T, s):
        defeat(st, T, a, q, s, rew)


@njit(**JIT_INLINE)
def defeat(st, T, a, q, s, rew):
    """Threat s of seat q defeated by seat a (DCC-171, DCC-286/287/290)."""
    from_deck = st.sl_zone[s] == C.Z_DECK
    kw = t_keywords(st, T, s)
    take(st, s)
    # Sacrifice is part of the defeat, before the card joins a hand
    if (kw & C.KW_SACRIFICE) and can_sacrifice(st, T, a):
        st.sac_queue[a] = min(100, st.sac_queue[a] + 1)
        st.sac_excl[a] = s
    if from_deck:
        reveal_top(st, q)
    st.defeats[a] = min(32767, st.defeats[a] + 1)
    st.turn_defeats[a] = min(100, st.turn_defeats[a] + 1)
    if st.quest >= 0:
        card = T.quest_first[st.quest] + st.quest_part
        if T.q_req[card] == C.QR_DEFEAT:
            st.quest_prog = min(100, st.quest_prog + 1)
    st.sl_dmg[s] = 0
    st.sl_loom[s] = 0
    if T.t_group[s] == 6:
        # a boss: mandatory flip (DCC-172, DCC-346), then the trophy pile
        apply_simple(st, T, a, T.t_bonus[s])
        st.sl_zone[s] = C.Z_TROPHY
        st.sl_owner[s] = q
        st.bosses[T.t_boss_kind[s]] += 1
        st.boss_xp += T.t_xp[s]
        if s == st.quest_boss:
            st.quest_boss = -1
            complete_part(st, T)
    else:
        apply_simple(st, T, a, T.t_bonus[s])
        g = has_mod(st, T, a, C.CM_DEFEAT_GOLD)
        if g > 0:
            gain(st, T, a, C.OP_GOLD, g)
        put(st, s, C.Z_HAND, q)
    check_levelups(st, T, rew)


@njit(**JIT)
def elim_target(st, p, a):
    """The sleeve picked by action a among p's hand / play / discard slots."""
    if C.A_HAND0 <= a < C.A_HAND0 + C.HAND_SLOTS:
        h = a - C.A_HAND0
        return np.int64(st.hand[p, h]) if h < st.hand_n[p] else np.int64(-1)
    if C.A_PLAY0 <= a < C.A_PLAY0 + C.PLAY_SLOTS:
        k = a - C.A_PLAY0
        return np.int64(st.play[p, k]) if k < st.play_n[p] else np.int64(-1)
    if C.A_DISC0 <= a < C.A_DISC0 + C.DISC_SLOTS:
        d = a - C.A_DISC0
        return np.int64(st.disc[p, st.disc_n[p] - 1 - d]) if d < st.disc_n[p] else np.int64(-1)
    return np.int64(-1)


@njit(**JIT)
def has_elim_target(st, p):
    return st.hand_n[p] > 0 or st.play_n[p] > 0 or st.disc_n[p] > 0


@njit(**JIT)
def can_sacrifice(st, T, p):
    for i in range(st.hand_n[p]):
        if st.hand[p, i] != st.sac_excl[p]:
            return True
    for i in range(st.play_n[p]):
        if T.c_type[st.sl_core[st.play[p, i]]] == C.ALLY:
            return True
    return False


@njit(**JIT)
def refresh_target_ok(st, T, p, k):
    if k >= st.play_n[p]:
        return False
    s = st.play[p, k]
    return T.c_type[st.sl_core[s]] == C.ALLY and st.sl_exh[s] == 1 and s != st.pend_src


@njit(**JIT)
def any_refresh_target(st, T, p):
    """Seat p has an exhausted ally in an addressable play slot to refresh."""
    for k in range(min(st.play_n[p], C.PLAY_SLOTS)):
        if refresh_target_ok(st, T, p, k):
            return True
    return False


@njit(**JIT)
def start_resolution(st, T, p, s, abil):
    """Compose the ops of card s's ability (0 play, 1+j exhaust j) with its
    upgrades' ops and count the repeat (DCC-135)."""
    core = st.sl_core[s]
    fill_int(st.pend, 0)
    n = 0
    for i in range(C.CARD_OPS):
        op = T.c_play[core, i] if abil == 0 else T.c_exh[core, abil - 1, i]
        if op[0] == C.OP_NONE:
            break
        for j in range(st.pend.shape[1]):  # element by element: no shape check to compile
            st.pend[n, j] = op[j]
        n += 1
    add = abil > 0 or T.c_type[core] == C.TACTIC
    if add:
        for k in range(2):
            u = st.sl_up[s, k]
            if u < 0:
                continue
            for i in range(C.UPG_OPS):
                if T.u_ops[u, i, 0] == C.OP_NONE or n >= C.MAXOPS:
                    break
                for j in range(st.pend.shape[1]):
                    st.pend[n, j] = T.u_ops[u, i, j]
                n += 1
    st.pend_n = n
    st.pend_i = 0
    st.pend_src = s
    st.pend_abil = abil
    st.dec_player = p
    st.sl_rep[s, abil] = min(100, st.sl_rep[s, abil] + 1)
    st.pend_elim = 1 if st.sl_rep[s, abil] >= C.REPEAT_LIMIT else 0


@njit(**JIT_INLINE)
def run_pending(st, T, rew):
    """Resolve pending ops up to the next decision (sets ``dec``)."""
    guard = 0
    while st.outcome == 0 and guard < 64:
        guard += 1
        check_quest(st, T)
        for q in range(st.num_players):
            if st.sac_queue[q] > 0:
                if can_sacrifice(st, T, q):
                    st.dec = C.DEC_SACRIFICE
                    st.dec_player = q
                    st.actor = q
                    return
                st.sac_queue[q] = 0
                st.sac_excl[q] = -1
        p = st.dec_player
        if st.pend_i >= st.pend_n:
            if st.pend_elim and st.pend_src >= 0:
                if st.sl_zone[st.pend_src] != C.Z_ELIM:
                    eliminate(st, st.pend_src)
                check_levelups(st, T, rew)
            st.pend_n = 0
            st.pend_i = 0
            st.pend_elim = 0
            st.pend_src = -1
            st.dec = C.DEC_NONE
            check_quest(st, T)
            check_achievements(st, T)
            return
        op = st.pend[st.pend_i]
        code = op[0]
        n = op_amount(st, T, p, op)
        if n <= 0:
            st.pend_i += 1  # a failed Level/Focus/Unite condition, or X = 0
            continue
        spell = op[3] == C.CD_SPELL
        if spell and st.mana[p] < op[4]:
            st.pend_i += 1  # DCC-359: cannot pay, forfeited
            continue
        st.actor = p
        ask = C.DEC_NONE  # the choice this op asks for, if any
        can = True  # something can be chosen (else the op is skipped)
        if code == C.OP_DAMAGE:
            ask, can = C.DEC_TARGET, any_target(st, T)
        elif code == C.OP_REFRESH_ALLY:
            ask, can = C.DEC_REFRESH, any_refresh_target(st, T, p)
        elif code == C.OP_ELIMINATE:
            ask, can = C.DEC_ELIM, has_elim_target(st, p)
        elif code == C.OP_REFRESH_MARKET:
            ask = C.DEC_MARKET
        if not can:
            st.pend_i += 1
            continue
        if ask != C.DEC_NONE:
            st.dec = ask
            return
        if op[6] == C.WHO_CHOOSE and st.num_players > 1:
            st.dec = C.DEC_HEAL
            return
        if spell:
            st.dec = C.DEC_PAY
            return
        # decision-free: resolve now
        st.pend_i += 1
        if op[6] == C.WHO_BOTH:
            for q in range(st.num_players):
                gain(st, T, q, code, n)
        else:
            gain(st, T, p, code, n)


# =============================================================================
# turn structure
# =============================================================================
@njit(**JIT)
def start_turn(st, T, rew):
    st.turn = min(30000, st.turn + 1)
    fill_int(st.sl_rep, 0)
    for p in range(C.NPLAYERS_MAX):
        st.turn_defeats[p] = 0
        st.main_done[p] = 0
        st.levels_after_stairs[p] = 0
        if st.descended[p] == 1:
            st.descended[p] = 2
    st.passes = 0
    qa = quest_active_kind(st, T)
    for p in range(st.num_players):
        if not seat_active(st, p):
            continue
        # Upkeep (DCC-117..122)
        st.mana[p] = min(
            C.MANA_CAP,
            st.mana[p]
            + C.UPKEEP_MANA
            + has_mod(st, T, p, C.CM_UPKEEP_MANA)
            + (1 if qa == C.QA_UPKEEP_MANA else 0),
        )
        st.ap[p] = min(C.AP_CAP, st.ap[p] + C.UPKEEP_AP)
        for i in range(st.play_n[p]):
            st.sl_exh[st.play[p, i]] = 0
        g = has_mod(st, T, p, C.CM_UPKEEP_GOLD) + (1 if qa == C.QA_UPKEEP_GOLD else 0)
        if g > 0:
            gain(st, T, p, C.OP_GOLD, g)
    start_draft(st, T, rew)


@njit(**JIT)
def reveal_core(st, lv):
    """Top card of core deck ``lv`` (1..6), -1 if empty."""
    d = lv - 1
    if st.cdeck_n[d] == 0:
        return np.int64(-1)
    st.cdeck_n[d] -= 1
    c = st.cdeck[d, st.cdeck_n[d]]
    st.cdeck[d, st.cdeck_n[d]] = -1
    st.core_zone[c] = C.CZ_REVEAL
    return np.int64(c)


@njit(**JIT)
def core_to_bottom(st, c, lv):
    d = lv - 1
    for i in range(st.cdeck_n[d], 0, -1):
        st.cdeck[d, i] = st.cdeck[d, i - 1]
    st.cdeck[d, 0] = c
    st.cdeck_n[d] += 1
    st.core_zone[c] = C.CZ_CDECK


@njit(**JIT)
def draft_picks_owed(st, T, p):
    """How many cores seat p keeps this draft (1, or 2 with draft_extra)."""
    return 1 + min(1, has_mod(st, T, p, C.CM_DRAFT_EXTRA))


@njit(**JIT)
def kept(st, p):
    n = 0
    for k in range(2):
        if st.draft_keep[p, k] >= 0:
            n += 1
    return n


@njit(**JIT)
def start_draft(st, T, rew):
    fill_int(st.reveal, -1)
    fill_int(st.reveal_lv, 0)
    fill_int(st.reveal_set, -1)
    fill_int(st.draft_keep, -1)
    st.draft_first = -1
    nact = 0
    for p in range(st.num_players):
        if seat_active(st, p):
            nact += 1
    per = C.DRAFT_SOLO if st.num_players == 1 else C.DRAFT_DUO
    i = 0
    for p in range(st.num_players):
        if not seat_active(st, p):
            continue
        for k in range(per):
            c = reveal_core(st, st.small[p])
            if c >= 0:
                st.reveal[i] = c
                st.reveal_lv[i] = st.small[p]
                st.reveal_set[i] = p
                i += 1
    if i == 0 or st.tdeck_n == 0 or nact == 0:
        end_draft(st, T, rew)  # D-18: nothing to draft
        return
    st.phase = C.PH_DRAFT
    st.draft_seat = 0 if seat_active(st, 0) else 1
    st.actor = st.draft_seat


@njit(**JIT)
def draft_legal(st, T, i):
    if i >= 2 * C.DRAFT_DUO or st.reveal[i] < 0:
        return False
    p = st.draft_seat
    if st.num_players == 1 or not (seat_active(st, 0) and seat_active(st, 1)):
        return True
    # co-op cross-pick (DCC-274): the first pick of each seat comes from
    # different sets; extra picks (DCC-276) from either set
    if kept(st, p) == 0 and st.draft_first >= 0:
        return st.reveal_set[i] != st.draft_first
    return True


@njit(**JIT)
def apply_draft(st, T, i, rew):
    p = st.draft_seat
    k = kept(st, p)
    st.draft_keep[p, k] = st.reveal[i]
    if k == 0 and st.draft_first < 0:
        st.draft_first = st.reveal_set[i]
    st.reveal[i] = -1
    # next picker: first picks of every seat in seat order, then extra picks
    for q in range(st.num_players):
        if seat_active(st, q) and kept(st, q) == 0:
            st.draft_seat = q
            st.actor = q
            if any_draft_choice(st, T):
                return
    for q in range(st.num_players):
        if seat_active(st, q) and kept(st, q) < draft_picks_owed(st, T, q):
            st.draft_seat = q
            st.actor = q
            if any_draft_choice(st, T):
                return
    after_picks(st, T, rew)


@njit(**JIT)
def after_picks(st, T, rew):
    """Every pick made. Solo with two cards not kept: their order under the
    deck is the crawler's choice (DCC-125, ``DEC_BOTTOM``); otherwise the
    draft ends (co-op: each unkept card under the deck it came from,
    DCC-273, which gives no order choice)."""
    if st.num_players == 1:
        n = 0
        for i in range(2 * C.DRAFT_DUO):
            if st.reveal[i] >= 0:
                n += 1
        if n >= 2:
            st.dec = C.DEC_BOTTOM
            st.draft_seat = 0
            st.actor = 0
            return
    end_draft(st, T, rew)


@njit(**JIT)
def apply_bottom(st, T, i, rew):
    """DCC-125: the unkept card in reveal slot ``i`` goes lowest, the other
    one just above it; then the draft ends."""
    for j in range(2 * C.DRAFT_DUO):
        c = st.reveal[j]
        if c >= 0 and j != i:
            core_to_bottom(st, c, st.reveal_lv[j])
            st.reveal[j] = -1
    core_to_bottom(st, st.reveal[i], st.reveal_lv[i])
    st.reveal[i] = -1
    st.dec = C.DEC_NONE
    end_draft(st, T, rew)


@njit(**JIT)
def any_draft_choice(st, T):
    for i in range(2 * C.DRAFT_DUO):
        if draft_legal(st, T, i):
            return True
    return False


@njit(**JIT)
def end_draft(st, T, rew):
    # unkept cores left (co-op, or a skipped draft) to the bottom of their
    # decks in reveal order (DCC-273, D-18); solo orders them first (DCC-125)
    for i in range(2 * C.DRAFT_DUO):
        c = st.reveal[i]
        if c >= 0:
            core_to_bottom(st, c, st.reveal_lv[i])
            st.reveal[i] = -1
    # sleeve kept cores with the top threat, seat 0 first (DCC-126, A-38)
    for p in range(st.num_players):
        for k in range(2):
            c = st.draft_keep[p, k]
            if c < 0:
                continue
            lv = T.c_level[c]
            if st.tdeck_n == 0:
                core_to_bottom(st, c, lv)  # D-18: no threat left
            else:
                st.tdeck_n -= 1
                s = st.tdeck[st.tdeck_n]
                st.tdeck[st.tdeck_n] = -1
                st.sl_core[s] = c
                st.core_zone[c] = C.CZ_SLEEVE
                st.sl_dmg[s] = 0
                st.sl_loom[s] = 0
                st.sl_seen[s] = 0
                put(st, s, C.Z_HAND, p)
            st.draft_keep[p, k] = -1
        if seat_active(st, p):
            st.small[p] = min(st.level[p], C.MAX_LEVEL_DECK)  # DCC-128
    start_main(st, T)


@njit(**JIT)
def start_main(st, T):
    st.phase = C.PH_MAIN
    st.dec = C.DEC_NONE
    st.actor = 0 if seat_active(st, 0) else 1
    st.dec_player = st.actor


@njit(**JIT_INLINE)
def end_main(st, T, rew):
    # D. Threat Phase (DCC-182..193, DCC-280)
    for p in range(st.num_players):
        if st.descended[p] != 0 or st.outcome != 0:
            continue
        for i in range(st.bf_n[p]):
            s = st.bf[p, i]
            if st.sl_loom[s]:
                continue
            hit = t_attack(st, T, s)
            if hit <= 0:
                continue
            lose_health(st, T, p, hit, rew)
            if st.outcome != 0:
                return
            if hit >= C.LAZARUS_HIT:
                st.extra[C.EX_LAZARUS] = 1
    full = True
    for p in range(st.num_players):
        if st.health[p] < C.HEALTH_CAP:
            full = False
    f = st.cfg_floor - 1
    for j in range(C.ACH_PER_FLOOR):
        if T.ach_kind[f, j] == C.AC_FULL_HEALTH and full:
            st.ach[j] = 1
    # E. Cleanup Phase (DCC-194..202)
    for p in range(st.num_players):
        if st.descended[p] == 2:
            continue
        i = 0
        while i < st.play_n[p]:
            s = st.play[p, i]
            if T.c_type[st.sl_core[s]] == C.TACTIC:
                take(st, s)
                put(st, s, C.Z_DISCARD, p)
                continue
            i += 1
        st.ap[p] = 0
        if st.descended[p] == 1:
            # down the stairs this turn: the crawler has left the floor, so
            # no threat has to be added to its battlefield (DCC-196) and no
            # cleanup level up follows (DCC-230); Unstoppable's level ups
            # (DCC-310) come from its own Main Phase play (DCC-227). README
            continue
        refill(st, T, p, rew)
        if st.outcome != 0:
            return
    check_quest(st, T)
    check_achievements(st, T)
    alldown = True
    for p in range(st.num_players):
        if st.descended[p] == 0:
            alldown = False
    if alldown:
        finish(st, T, C.O_WIN, rew)  # DCC-004
        return
    advance_danger(st, T, rew)  # once in total (DCC-282)
    if st.outcome != 0:
        return
    next_space_decision(st, T, rew)


@njit(**JIT)
def next_space_decision(st, T, rew):
    """Offer queued optional danger-space effects, then start the next turn."""
    for p in range(st.num_players):
        if st.space_queue[p]:
            if seat_active(st, p) and st.gold[p] >= 1 and has_elim_target(st, p):
                st.phase = C.PH_CLEANUP
                st.dec = C.DEC_SPACE_ELIM
                st.dec_player = p
                st.actor = p
                return
            st.space_queue[p] = 0
    if st.space_queue[2]:
        st.phase = C.PH_CLEANUP
        st.dec = C.DEC_SPACE_MARKET
        st.dec_player = 0 if seat_active(st, 0) else 1
        st.actor = st.dec_player
        return
    st.dec = C.DEC_NONE  # no optional space effect is pending any more
    start_turn(st, T, rew)


@njit(**JIT)
def stairs_ready(st, T, p):
    """Seat p may descend: its stairs card is its on-deck card and the
    floor's requirement is met by the team (A-27)."""
    if st.descended[p] != 0 or ondeck(st, p) != C.STAIRS0 + p:
        return False
    f = st.cfg_floor - 1
    m = st.cfg_mode
    for k in range(C.NBK):
        if st.bosses[k] < T.tr_need[f, m, k] * st.num_players:
            return False
    return st.quests_done >= T.tr_need[f, m, C.NBK] * st.num_players


# =============================================================================
# setup
# =============================================================================
@njit(**JIT)
def configure_row(st, cfg):
    """Copy the config vector (layout: ``consts.CFG_*``) into the record."""
    st.cfg_floor = cfg[C.CFG_FLOOR]
    st.cfg_difficulty = cfg[C.CFG_DIFFICULTY]
    st.cfg_mode = cfg[C.CFG_MODE]
    st.cfg_crawler = cfg[C.CFG_CRAWLER]
    for p in range(C.NPLAYERS_MAX):
        st.cfg_race[p] = cfg[C.CFG_RACE0 + p]
        st.cfg_class[p] = cfg[C.CFG_CLASS0 + p]
    st.camp_xp = cfg[C.CFG_XP]
    for b in range(C.MAX_BENEFITS):
        st.camp_ben[b] = cfg[C.CFG_BEN0 + b]
    for f in range(C.NFLOOR):
        for j in range(C.ACH_PER_FLOOR):
            st.camp_ach[f, j] = cfg[C.CFG_ACH0 + f * C.ACH_PER_FLOOR + j]
    for p in range(C.NPLAYERS_MAX):
        for k in range(C.CAMP_DECK):
            st.camp_deck[p, k] = cfg[C.CFG_DECK0 + p * C.CAMP_DECK + k]
            for u in range(2):
                st.camp_upg[p, k, u] = cfg[C.CFG_UPG0 + (p * C.CAMP_DECK + k) * 2 + u]


@njit(**JIT)
def _clear(st):
    st.phase = C.PH_MAIN
    st.dec = C.DEC_NONE
    st.dec_player = 0
    st.turn = 0
    fill_int(st.main_done, 0)
    st.passes = 0
    st.setup_seat = 0
    fill_int(st.race_offer, -1)
    fill_int(st.class_offer, -1)
    fill_int(st.space_queue, 0)
    fill_int(st.pend, 0)
    st.pend_n = 0
    st.pend_i = 0
    st.pend_src = -1
    st.pend_abil = 0
    st.pend_elim = 0
    st.pend_upg = -1
    fill_int(st.sac_queue, 0)
    fill_int(st.sac_excl, -1)
    fill_int(st.health, 0)
    fill_int(st.mana, 0)
    fill_int(st.gold, 0)
    fill_int(st.ap, 0)
    fill_int(st.level, 0)
    fill_int(st.small, 0)
    fill_int(st.race, -1)
    fill_int(st.klass, -1)
    fill_int(st.crawler, -1)
    fill_int(st.descended, 0)
    fill_int(st.levels_after_stairs, 0)
    fill_int(st.fresh, 0)
    empty_piles(st.deck, st.deck_n)
    empty_piles(st.hand, st.hand_n)
    empty_piles(st.disc, st.disc_n)
    empty_piles(st.bf, st.bf_n)
    empty_piles(st.play, st.play_n)
    fill_int(st.sl_core, -1)
    fill_int(st.sl_up, -1)
    fill_int(st.sl_dmg, 0)
    fill_int(st.sl_loom, 0)
    fill_int(st.sl_exh, 0)
    fill_int(st.sl_owner, -1)
    fill_int(st.sl_zone, C.Z_BOX)
    fill_int(st.sl_seen, 0)
    fill_int(st.sl_rep, 0)
    fill_int(st.core_zone, C.CZ_BOX)
    empty_piles(st.cdeck, st.cdeck_n)
    fill_int(st.reveal, -1)
    fill_int(st.reveal_lv, 0)
    fill_int(st.reveal_set, -1)
    st.draft_seat = 0
    st.draft_first = -1
    fill_int(st.draft_keep, -1)
    fill_int(st.tdeck, -1)
    st.tdeck_n = 0
    fill_int(st.udeck, -1)
    st.udeck_n = 0
    fill_int(st.market, -1)
    fill_int(st.upg_zone, 0)
    fill_int(st.dungeon, -1)
    st.dungeon_n = 0
    st.danger = 0
    fill_int(st.quest_order, -1)
    st.quest_next = 0
    st.quest = -1
    st.quest_part = 0
    st.quest_prog = 0
    st.quest_owner = 0
    st.quest_boss = -1
    st.quests_done = 0
    st.quest_xp = 0
    fill_int(st.defeats, 0)
    fill_int(st.turn_defeats, 0)
    fill_int(st.bosses, 0)
    st.boss_xp = 0
    st.bought = 0
    fill_int(st.ach, 0)
    fill_int(st.extra, 0)
    st.xp = 0
    st.score = 0


@njit(**JIT)
def on_deck_list(st, c):
    """Is core ``c`` on the campaign deck list of a seat at the table?"""
    for p in range(st.num_players):
        for k in range(C.CAMP_DECK):
            if st.camp_deck[p, k] == c:
                return True
    return False


@njit(**JIT)
def reset_row(st, T):
    """Supply (A), floor (B) and crawler (C) setup; the arcade race/class
    choice becomes decisions when configured as ``RC_DRAFT``."""
    _clear(st)
    f = st.cfg_floor - 1
    # A. supply: core decks by level, shuffled (DCC-088..090); a levelled core
    # on a campaign deck list is that crawler's card, not the supply's (DCC-257/258)
    for c in range(C.NCORE_LEVELED):
        if on_deck_list(st, c):
            continue
        d = T.c_level[c] - 1
        st.cdeck[d, st.cdeck_n[d]] = c
        st.cdeck_n[d] += 1
        st.core_zone[c] = C.CZ_CDECK
    for d in range(C.MAX_LEVEL_DECK):
        chance.shuffle(st, st.cdeck[d], st.cdeck_n[d])
    # upgrade deck (minus campaign upgrades) and market (DCC-091/092)
    for u in range(C.NUPGRADE):
        used = False
        for p in range(st.num_players):
            for k in range(C.CAMP_DECK):
                if st.camp_deck[p, k] >= 0 and (
                    st.camp_upg[p, k, 0] == u or st.camp_upg[p, k, 1] == u
                ):
                    used = True
        if used:
            st.upg_zone[u] = 2
        else:
            st.udeck[st.udeck_n] = u
            st.udeck_n += 1
    chance.shuffle(st, st.udeck, st.udeck_n)
    refill_market(st)
    # B. floor: threat deck = floor threats shuffled over the extra ones (DCC-096)
    for g in (5, 2 + f):
        n0 = st.tdeck_n
        for t in range(C.NSTART_THREAT, BOSS0):
            if T.t_group[t] == g:
                st.tdeck[st.tdeck_n] = t
                st.tdeck_n += 1
                st.sl_zone[t] = C.Z_TDECK
        chance.shuffle(st, st.tdeck[n0:], st.tdeck_n - n0)
    # dungeon deck: this floor's bosses (quest bosses come with their quest)
    for b in range(BOSS0, C.NTHREAT):
        k = T.t_boss_kind[b]
        if (f == 0 and (k == C.BK_NEIGHBORHOOD or k == C.BK_BOROUGH)) or (
            f == 1 and k == C.BK_FLOOR2
        ):
            st.dungeon[st.dungeon_n] = b
            st.dungeon_n += 1
            st.sl_zone[b] = C.Z_DUNGEON
    if f == 2:
        for q in range(T.n_quests):
            st.quest_order[q] = q
        chance.shuffle(st, st.quest_order, T.n_quests)
    # crawlers
    for p in range(st.num_players):
        st.crawler[p] = st.cfg_crawler if st.num_players == 1 else p
    st.setup_seat = 0
    next_setup_choice(st, T)


@njit(**JIT)
def next_setup_choice(st, T):
    """Ask the next arcade race/class choice, or finish setup."""
    while st.setup_seat < st.num_players:
        p = st.setup_seat
        if setup_pick(st, p, st.race, st.cfg_race, T.cr_race, st.race_offer, C.NRACE, C.PH_RACE):
            return
        if setup_pick(
            st, p, st.klass, st.cfg_class, T.cr_class, st.class_offer, C.NCLASS, C.PH_CLASS
        ):
            return
        st.setup_seat += 1
    for p in range(st.num_players):
        crawler_setup(st, T, p)
    dummy = np.zeros(C.NPLAYERS_MAX, np.float32)
    start_turn(st, T, dummy)


@njit(**JIT)
def setup_pick(st, p, picked, cfg, preset, offer, n, phase):
    """Seat p's race (or class) ``picked[p]`` at setup, as configured in
    ``cfg[p]``: a draft of ``n`` asks it in ``phase`` (True); a preset takes
    the crawler's (``preset``), any other setting is the pick itself."""
    if picked[p] < 0 and cfg[p] == C.RC_DRAFT:
        if offer[p, 0] < 0:
            draw_offer(st, offer, p, n)
        st.phase = phase
        st.actor = p
        return True
    if picked[p] < 0:
        r = cfg[p]
        if r == C.RC_PRESET:
            r = preset[st.crawler[p]]
        picked[p] = r if r >= 0 else -1
    return False


@njit(**JIT)
def draw_offer(st, offer, p, n):
    """Draw 3 of the n cards not offered to the other seat (DCC-293/294)."""
    pool = np.empty(n, np.int64)
    k = 0
    for i in range(n):
        taken = False
        for q in range(C.NPLAYERS_MAX):
            if q != p:
                for j in range(3):
                    if offer[q, j] == i:
                        taken = True
        if not taken:
            pool[k] = i
            k += 1
    chance.shuffle(st, pool, k)
    for j in range(3):
        offer[p, j] = pool[j] if j < k else -1


@njit(**JIT_INLINE)
def crawler_setup(st, T, p):
    """C. crawler setup (DCC-104..115) with race values and benefits."""
    cr = st.crawler[p]
    r = st.race[p]
    st.health[p] = C.START_HEALTH if r < 0 else T.r_health[r]
    st.mana[p] = C.START_MANA if r < 0 else T.r_mana[r]
    st.gold[p] = C.START_GOLD if r < 0 else T.r_gold[r]
    st.ap[p] = 0
    st.level[p] = 1
    st.small[p] = 1
    drop = 0
    for b in range(T.n_benefits):
        n = st.camp_ben[b] * T.be_n[b]
        if n <= 0:
            continue
        k = T.be_kind[b]
        if k == C.BE_HEALTH:
            st.health[p] = min(C.HEALTH_CAP, st.health[p] + n)
        elif k == C.BE_MANA:
            st.mana[p] = min(C.MANA_CAP, st.mana[p] + n)
        elif k == C.BE_GOLD:
            st.gold[p] += n
        elif k == C.BE_DROP_STRIKE:
            drop += n
        elif k == C.BE_TRAIN:
            st.small[p] = min(C.MAX_LEVEL_DECK, st.small[p] + n)
    if r >= 0:
        apply_simple(st, T, p, T.r_setup[r])
    # deck list: campaign list, or the 11 starting cards
    cores = np.full(C.CAMP_DECK, -1, np.int64)
    ups = np.full((C.CAMP_DECK, 2), -1, np.int64)
    n = 0
    for k in range(C.CAMP_DECK):
        if st.camp_deck[p, k] >= 0:
            cores[n] = st.camp_deck[p, k]
            ups[n, 0] = st.camp_upg[p, k, 0]
            ups[n, 1] = st.camp_upg[p, k, 1]
            n += 1
    if n == 0:
        for k in range(11):
            c = T.start_core[cr, k]
            if drop > 0 and T.c_strike[c]:
                drop -= 1
                continue
            cores[n] = c
            n += 1
    thr = np.empty(11, np.int64)
    for k in range(11):
        thr[k] = T.start_threat[cr, k]
    chance.shuffle(st, thr, 11)
    ti = 0
    for k in range(n):
        c = cores[k]
        if ti < 11:
            s = thr[ti]
            ti += 1
        elif st.tdeck_n > 0:
            st.tdeck_n -= 1
            s = st.tdeck[st.tdeck_n]
            st.tdeck[st.tdeck_n] = -1
        else:
            continue
        st.sl_core[s] = c
        st.core_zone[c] = C.CZ_SLEEVE
        st.sl_up[s, 0] = ups[k, 0]
        st.sl_up[s, 1] = ups[k, 1]
        put(st, s, C.Z_DECK, p)
    shuffle_deck(st, p)
    for k in range(C.HAND_START):
        s = ondeck(st, p)
        if s < 0:
            break
        take(st, s)
        put(st, s, C.Z_HAND, p)
    dummy = np.zeros(C.NPLAYERS_MAX, np.float32)
    refill(st, T, p, dummy)
    reveal_top(st, p)


# =============================================================================
# legality
# =============================================================================
@njit(**JIT)
def main_can_act(st, T, p, a):
    """Is action a legal for seat p in the Main Phase with no pending decision?"""
    if C.A_HAND0 <= a < C.A_HAND0 + C.HAND_SLOTS:
        h = a - C.A_HAND0
        if h >= st.hand_n[p] or st.descended[p] == 2:
            return False
        return card_cost(st, T, st.hand[p, h]) <= st.ap[p]
    if C.A_EXH0 <= a < C.A_EXH0 + C.PLAY_SLOTS * C.NEXH:
        k = (a - C.A_EXH0) // C.NEXH
        j = (a - C.A_EXH0) % C.NEXH
        if k >= st.play_n[p]:
            return False
        s = st.play[p, k]
        core = st.sl_core[s]
        return T.c_type[core] == C.ALLY and st.sl_exh[s] == 0 and j < T.c_nexh[core]
    if C.A_BUY0 <= a < C.A_BUY0 + C.MARKET_SIZE:
        u = st.market[a - C.A_BUY0]
        if u < 0:
            return False
        for i in range(min(st.hand_n[p], C.HAND_SLOTS)):
            if can_receive(st, T, p, u, st.hand[p, i]):
                return True
        for i in range(min(st.play_n[p], C.PLAY_SLOTS)):
            if can_receive(st, T, p, u, st.play[p, i]):
                return True
        return False
    if a == C.A_SPELL_DMG:
        cost = max(0, C.SPELL_DMG_COST - has_mod(st, T, p, C.CM_SPELL_DMG_DISCOUNT))
        return st.mana[p] >= cost and any_target(st, T)
    if a == C.A_SPELL_HEAL:
        cost = max(0, C.SPELL_HEAL_COST - has_mod(st, T, p, C.CM_SPELL_HEAL_DISCOUNT))
        return st.mana[p] >= cost and quest_active_kind(st, T) != C.QA_NO_HEAL_SPELL
    if a == C.A_DESCEND:
        return stairs_ready(st, T, p)
    if a == C.A_PASS:
        q = 1 - p
        return (
            st.num_players == 2
            and seat_active(st, q)
            and st.main_done[q] == 0
            and st.passes < C.PASS_CAP
        )
    if a == C.A_END:
        return True
    return False


@njit(**JIT)
def market_legal(st, T, p, mask):
    """Set ``mask[A_BUY0 + m]`` for every market slot that seat p can buy
    for one of its addressable hand / play cards: the same answer as
    ``main_can_act`` (``can_receive`` over every card), in one pass over
    the cards. A card that can take upgrade u is one with u's cutout free
    and u's card type; its price is lower on a card of u's discount stat.
    Bit ``cut * 2 + type`` of ``free`` notes such cards, bit
    ``(cut * 2 + type) * NSTAT + stat`` of ``free_stat`` the ones of each
    stat (no allocation)."""
    g = st.gold[p]
    cdisc = has_mod(st, T, p, C.CM_UPGRADE_DISCOUNT)
    # quick reject: no slot is affordable even at its best discount
    any_slot = False
    for m in range(C.MARKET_SIZE):
        u = st.market[m]
        if u >= 0 and g >= T.u_cost[u] - T.u_disc[u] - cdisc:
            any_slot = True
    if not any_slot:
        return
    free = np.int64(0)
    free_stat = np.int64(0)
    for k in range(2):
        n = min(st.hand_n[p], C.HAND_SLOTS) if k == 0 else min(st.play_n[p], C.PLAY_SLOTS)
        for i in range(n):
            s = st.hand[p, i] if k == 0 else st.play[p, i]
            c = st.sl_core[s]
            if is_stairs(s) or c < 0:
                continue
            typ = T.c_type[c]
            for cut in range(2):
                if st.sl_up[s, cut] < 0:
                    b = cut * 2 + typ
                    free |= np.int64(1) << b
                    free_stat |= np.int64(1) << (b * C.NSTAT + T.c_stat[c])
    for m in range(C.MARKET_SIZE):
        u = st.market[m]
        if u < 0:
            continue
        cut = T.u_cutout[u]
        req = T.u_req[u]
        base = max(np.int64(T.u_cost[u]) - cdisc, 0)
        ds = T.u_dstat[u]
        cheap = max(np.int64(T.u_cost[u]) - T.u_disc[u] - cdisc, 0) if ds >= 0 else base
        ok = False
        for typ in range(2):
            if (req == 1 and typ != C.TACTIC) or (req == 2 and typ != C.ALLY):
                continue
            b = cut * 2 + typ
            if ((free >> b) & 1) != 0 and g >= base:
                ok = True
            elif ds >= 0 and ((free_stat >> (b * C.NSTAT + ds)) & 1) != 0 and g >= cheap:
                ok = True
        if ok:
            mask[C.A_BUY0 + m] = 1


@njit(**JIT)
def legal_row(st, T, mask):
    """Write the legal mask of ``st.actor``; return the number of legal actions."""
    mask[:] = 0
    if st.outcome != 0 or st.actor < 0:
        return 0
    p = st.actor
    ph = st.phase
    if ph == C.PH_RACE:
        for i in range(3):
            if st.race_offer[p, i] >= 0:
                mask[C.A_RACE0 + i] = 1
        mask[C.A_PRESET] = 1
    elif ph == C.PH_CLASS:
        for i in range(3):
            if st.class_offer[p, i] >= 0:
                mask[C.A_CLASS0 + i] = 1
    elif ph == C.PH_DRAFT:
        bottom = st.dec == C.DEC_BOTTOM
        for i in range(2 * C.DRAFT_DUO):
            if (st.reveal[i] >= 0) if bottom else draft_legal(st, T, i):
                mask[C.A_DRAFT0 + i] = 1
    elif ph == C.PH_MAIN or ph == C.PH_CLEANUP:
        d = st.dec
        if d == C.DEC_NONE:
            # a card is played only into a free play-area slot (PLAY_CAP, README)
            room = st.play_n[p] < C.PLAY_CAP
            for h in range(min(st.hand_n[p], C.HAND_SLOTS)):
                if room and card_cost(st, T, st.hand[p, h]) <= st.ap[p]:
                    mask[C.A_HAND0 + h] = 1
            for k in range(min(st.play_n[p], C.PLAY_SLOTS)):
                s = st.play[p, k]
                core = st.sl_core[s]
                if T.c_type[core] == C.ALLY and st.sl_exh[s] == 0:
                    for j in range(T.c_nexh[core]):
                        mask[C.A_EXH0 + k * C.NEXH + j] = 1
            market_legal(st, T, p, mask)
            for a in range(C.A_SPELL_DMG, C.A_END + 1):
                if (
                    a != C.A_PLAYER0
                    and a != C.A_PLAYER0 + 1
                    and a != C.A_YES
                    and a != C.A_SKIP
                    and main_can_act(st, T, p, a)
                ):
                    mask[a] = 1
        elif d == C.DEC_TARGET:
            for q in range(st.num_players):
                for t in range(C.TSLOTS):
                    if target_ok(st, T, q, t):
                        mask[C.A_TGT0 + q * C.TSLOTS + t] = 1
            if st.pend_src >= 0:
                mask[C.A_SKIP] = 1  # a basic spell, once cast, is not taken back
        elif d == C.DEC_PAY:
            mask[C.A_YES] = 1
            mask[C.A_SKIP] = 1
        elif d == C.DEC_HEAL:
            for q in range(st.num_players):
                mask[C.A_PLAYER0 + q] = 1
            if st.pend_src >= 0:
                mask[C.A_SKIP] = 1
        elif d == C.DEC_REFRESH:
            for k in range(min(st.play_n[p], C.PLAY_SLOTS)):
                if refresh_target_ok(st, T, p, k):
                    mask[C.A_PLAY0 + k] = 1
            mask[C.A_SKIP] = 1
        elif d == C.DEC_ELIM or d == C.DEC_SPACE_ELIM:
            for h in range(min(st.hand_n[p], C.HAND_SLOTS)):
                mask[C.A_HAND0 + h] = 1
            for k in range(min(st.play_n[p], C.PLAY_SLOTS)):
                mask[C.A_PLAY0 + k] = 1
            for k in range(min(st.disc_n[p], C.DISC_SLOTS)):
                mask[C.A_DISC0 + k] = 1
            mask[C.A_SKIP] = 1
        elif d == C.DEC_SACRIFICE:
            for h in range(min(st.hand_n[p], C.HAND_SLOTS)):
                if st.hand[p, h] != st.sac_excl[p]:
                    mask[C.A_HAND0 + h] = 1
            for k in range(min(st.play_n[p], C.PLAY_SLOTS)):
                if T.c_type[st.sl_core[st.play[p, k]]] == C.ALLY:
                    mask[C.A_PLAY0 + k] = 1
            if mask.sum() == 0:
                mask[C.A_SKIP] = 1  # every card is beyond the addressable slots
        elif d == C.DEC_UPGRADE:
            u = st.market[st.pend_upg]
            for h in range(min(st.hand_n[p], C.HAND_SLOTS)):
                if can_receive(st, T, p, u, st.hand[p, h]):
                    mask[C.A_HAND0 + h] = 1
            for k in range(min(st.play_n[p], C.PLAY_SLOTS)):
                if can_receive(st, T, p, u, st.play[p, k]):
                    mask[C.A_PLAY0 + k] = 1
        elif d == C.DEC_MARKET or d == C.DEC_SPACE_MARKET:
            for m in range(C.MARKET_SIZE):
                if st.market[m] >= 0:
                    mask[C.A_BUY0 + m] = 1
            mask[C.A_SKIP] = 1
    n = 0
    for a in range(C.NUM_ACTIONS):
        n += mask[a]
    return n


# =============================================================================
# applying an action
# =============================================================================
@njit(**JIT)
def after_main_action(st, T, rew):
    """Automatic rules after a Main Phase action or a resolved decision."""
    if st.outcome != 0:
        return
    check_levelups(st, T, rew)
    run_pending(st, T, rew)
    if st.outcome != 0 or st.dec != C.DEC_NONE:
        return
    st.actor = st.dec_player


@njit(**JIT)
def apply_row(st, T, a, rew):
    """Apply the legal action ``a`` of ``st.actor`` and run the automatic
    rules up to the next decision."""
    p = st.actor
    ph = st.phase
    if ph == C.PH_RACE:
        if a == C.A_PRESET:
            st.race[p] = T.cr_race[st.crawler[p]]
            st.klass[p] = T.cr_class[st.crawler[p]]
        else:
            st.race[p] = st.race_offer[p, a - C.A_RACE0]
        next_setup_choice(st, T)
        return
    if ph == C.PH_CLASS:
        st.klass[p] = st.class_offer[p, a - C.A_CLASS0]
        next_setup_choice(st, T)
        return
    if ph == C.PH_DRAFT:
        if st.dec == C.DEC_BOTTOM:
            apply_bottom(st, T, a - C.A_DRAFT0, rew)
        else:
            apply_draft(st, T, a - C.A_DRAFT0, rew)
        return
    d = st.dec
    if d == C.DEC_SPACE_ELIM:
        if a != C.A_SKIP:
            s = elim_target(st, p, a)
            st.gold[p] -= 1
            eliminate(st, s)
        st.space_queue[p] = 0
        next_space_decision(st, T, rew)
        return
    if d == C.DEC_SPACE_MARKET:
        if a == C.A_SKIP:
            refill_market(st)
            st.space_queue[2] = 0
            next_space_decision(st, T, rew)
        else:
            market_to_bottom(st, a - C.A_BUY0)
        return
    if d == C.DEC_NONE:
        main_action(st, T, p, a, rew)
        return
    # a pending decision of the resolution in progress
    op = st.pend[min(st.pend_i, C.MAXOPS - 1)]
    spell = op[3] == C.CD_SPELL
    if d == C.DEC_TARGET:
        if a == C.A_SKIP:
            st.pend_i += 1
        else:
            if spell:
                st.mana[p] -= op[4]
            n = op_amount(st, T, p, op)
            st.pend_i += 1
            q = (a - C.A_TGT0) // C.TSLOTS
            t = (a - C.A_TGT0) % C.TSLOTS
            deal(st, T, p, q, t, n, rew)
    elif d == C.DEC_PAY:
        if a == C.A_YES:
            st.mana[p] -= op[4]
            n = op_amount(st, T, p, op)
            if op[6] == C.WHO_BOTH:
                for q in range(st.num_players):
                    gain(st, T, q, op[0], n)
            else:
                gain(st, T, p, op[0], n)
        st.pend_i += 1
    elif d == C.DEC_HEAL:
        if a != C.A_SKIP:
            if spell:
                st.mana[p] -= op[4]
            gain(st, T, a - C.A_PLAYER0, op[0], op_amount(st, T, p, op))
        st.pend_i += 1
    elif d == C.DEC_REFRESH:
        if a != C.A_SKIP:
            st.sl_exh[st.play[p, a - C.A_PLAY0]] = 0
        st.pend_i += 1
    elif d == C.DEC_ELIM:
        if a != C.A_SKIP:
            eliminate(st, elim_target(st, p, a))
        st.pend_i += 1
    elif d == C.DEC_MARKET:
        if a == C.A_SKIP:
            refill_market(st)
            st.pend_i += 1
        else:
            market_to_bottom(st, a - C.A_BUY0)
            return  # keep choosing
    elif d == C.DEC_SACRIFICE:
        if a != C.A_SKIP:
            s = elim_target(st, p, a)
            if st.sl_zone[s] == C.Z_PLAY:
                discard_ally(st, T, p, s)
            else:
                take(st, s)
                put(st, s, C.Z_DISCARD, p)
        st.sac_queue[p] -= 1
        if st.sac_queue[p] == 0:
            st.sac_excl[p] = -1
    elif d == C.DEC_UPGRADE:
        s = elim_target(st, p, a)
        m = st.pend_upg
        u = st.market[m]
        st.gold[p] -= upgrade_price(st, T, p, u, s)
        st.sl_up[s, T.u_cutout[u]] = u
        st.upg_zone[u] = 2
        st.market[m] = -1
        refill_market(st)  # DCC-165
        st.bought = min(100, st.bought + 1)
        if st.quest >= 0 and T.q_req[T.quest_first[st.quest] + st.quest_part] == C.QR_UPGRADES:
            st.quest_prog = min(100, st.quest_prog + 1)
        st.pend_upg = -1
        st.dec = C.DEC_NONE
    st.dec = C.DEC_NONE
    after_main_action(st, T, rew)


@njit(**JIT_INLINE)
def main_action(st, T, p, a, rew):
    st.dec_player = p
    if C.A_HAND0 <= a < C.A_HAND0 + C.HAND_SLOTS:
        s = st.hand[p, a - C.A_HAND0]
        st.ap[p] -= card_cost(st, T, s)
        take(st, s)
        put(st, s, C.Z_PLAY, p)
        start_resolution(st, T, p, s, 0)
        after_main_action(st, T, rew)
    elif C.A_EXH0 <= a < C.A_EXH0 + C.PLAY_SLOTS * C.NEXH:
        k = (a - C.A_EXH0) // C.NEXH
        j = (a - C.A_EXH0) % C.NEXH
        s = st.play[p, k]
        st.sl_exh[s] = 1
        start_resolution(st, T, p, s, 1 + j)
        after_main_action(st, T, rew)
    elif C.A_BUY0 <= a < C.A_BUY0 + C.MARKET_SIZE:
        st.pend_upg = a - C.A_BUY0
        st.dec = C.DEC_UPGRADE
    elif a == C.A_SPELL_DMG or a == C.A_SPELL_HEAL:
        fill_int(st.pend, 0)
        if a == C.A_SPELL_DMG:
            cost = max(0, C.SPELL_DMG_COST - has_mod(st, T, p, C.CM_SPELL_DMG_DISCOUNT))
            st.pend[0, 0] = C.OP_DAMAGE
            st.pend[0, 6] = C.WHO_SELF
        else:
            cost = max(0, C.SPELL_HEAL_COST - has_mod(st, T, p, C.CM_SPELL_HEAL_DISCOUNT))
            st.pend[0, 0] = C.OP_HEALTH
            st.pend[0, 6] = C.WHO_CHOOSE
        st.pend[0, 1] = 1
        st.pend[0, 3] = C.CD_SPELL
        st.pend[0, 4] = cost
        st.pend_n = 1
        st.pend_i = 0
        st.pend_src = -1
        st.pend_elim = 0
        if a == C.A_SPELL_HEAL and st.num_players == 1:
            st.mana[p] -= cost  # solo: the only player heals at once
            gain(st, T, p, C.OP_HEALTH, 1)
            st.pend_n = 0
        after_main_action(st, T, rew)
    elif a == C.A_DESCEND:
        s = C.STAIRS0 + p
        take(st, s)
        st.sl_zone[s] = C.Z_DESCENDED
        st.descended[p] = 1
        reveal_top(st, p)
        after_main_action(st, T, rew)
    elif a == C.A_PASS:
        st.passes += 1
        st.actor = 1 - p
        st.dec_player = st.actor
    elif a == C.A_END:
        st.main_done[p] = 1
        q = 1 - p
        if st.num_players == 2 and seat_active(st, q) and st.main_done[q] == 0:
            st.actor = q
            st.dec_player = q
        else:
            end_main(st, T, rew)


@njit(**JIT)
def finish_row(st, T):
    """The engine ended the game (an illegal action or the decision cap)."""
    st.phase = C.PH_OVER
