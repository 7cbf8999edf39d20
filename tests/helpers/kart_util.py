"""Row-level helpers for the Dungeon Kart tests (no engine needed): build a
record, step it, a greedy racing driver, and an independent invariant
checker written from the rules (not from rules.py)."""

import numpy as np

from dungeonrl.envs.core.kernel import chance, rng
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart import hexgeo as H
from dungeonrl.envs.dungeon_kart import rules as R
from dungeonrl.envs.dungeon_kart.content import load_content
from dungeonrl.envs.dungeon_kart.state import STATE_DTYPE


def content(boards=()):
    return load_content(boards=tuple(boards))


def new_state(n, seed=0, track=0, draft=C.DRAFT_RANDOM, max_rounds=60, ct=None, forced=()):
    ct = ct or content()
    s = np.zeros(1, STATE_DTYPE)
    rng.rng_seed(s[0]["rng"], seed, 0)
    s[0]["num_players"] = n
    s[0]["max_steps"] = 100000
    s[0]["auto_advance"] = 0
    if forced:
        chance.force(s[0], forced)
    R.configure_row(s[0], np.array([track, draft, max_rounds], np.int64))
    R.reset_row(s[0], ct.record[0])
    return s


def legal(s, ct=None):
    ct = ct or content()
    m = np.zeros(C.NUM_ACTIONS, np.uint8)
    k = R.legal_row(s[0], ct.record[0], m)
    assert k == int(m.sum())
    return m


def step(s, a, ct=None):
    ct = ct or content()
    m = legal(s, ct)
    assert m[a], f"action {C.ACTIONS.names()[a]} not legal in phase {C.PHASE_NAMES[s[0]['phase']]}"
    rew = np.zeros(int(s[0]["num_players"]), np.float32)
    R.apply_row(s[0], ct.record[0], a, rew)
    return rew


def progress(st, ct, p):
    T = ct.tables
    if st["finished"][p]:
        return 10**7 + int(st["finish_mp"][p]) * 100
    c = int(st["pos"][p])
    return int(T.tr_tile[st["track"], c]) * 4096 - int(T.tr_dist[st["track"], c])


def greedy(s, ct, prng):
    """1-ply driver: try every legal action on a copy and keep the one that
    leaves the actor furthest along without crashing (random tie-break)."""
    st = s[0]
    p = int(st["actor"])
    m = legal(s, ct)
    acts = np.flatnonzero(m)
    best, best_a = None, []
    for a in acts:
        c = s.copy()
        c[0]["forced_n"] = 0
        R.apply_row(c[0], ct.record[0], int(a), np.zeros(int(st["num_players"]), np.float32))
        v = progress(c[0], ct, p) if c[0]["pos"][p] >= 0 or c[0]["finished"][p] else 0
        v -= 50 * int(c[0]["crashed"][p] and not st["crashed"][p])
        v += 3 * int(c[0]["speed"][p])
        if best is None or v > best:
            best, best_a = v, [a]
        elif v == best:
            best_a.append(a)
    return int(prng.choice(best_a))


def check_invariants(st, ct):
    """Independent checks (TESTING.md): every kart on a legal hex, no two
    karts stopped on one hex between turns, coins >= 0, every spell card in
    exactly one place, speeds and facings in range."""
    T = ct.tables
    n = int(st["num_players"])
    tk = int(st["track"])
    if st["phase"] in (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH):
        return
    for p in range(n):
        assert st["coins"][p] >= 0, f"seat {p} coins {st['coins'][p]}"
        assert 1 <= st["speed"][p] <= 6, f"seat {p} speed {st['speed'][p]}"
        assert 0 <= st["facing"][p] < 6
        if st["finished"][p]:
            assert st["pos"][p] == -1
            continue
        c = int(st["pos"][p])
        assert 0 <= c < H.NCELL, f"seat {p} off the board"
        t = int(T.tr_terr[tk, c])
        assert C.TERRAIN_PIPS[t] > 0, f"seat {p} on undrivable {C.TERRAIN_NAMES[t]} hex {c}"
        assert st["tok"][c] != C.K_GRAVE
        assert not (st["marker"][p] and st["spell"][p] >= 0), "marker and spell together"
    seen = {}
    for d in range(C.NDECK):
        for i in range(int(st["deck_n"][d])):
            seen.setdefault(int(st["deck"][d, i]), []).append(f"deck{d}")
        for i in range(int(st["disc_n"][d])):
            seen.setdefault(int(st["disc"][d, i]), []).append(f"disc{d}")
    for p in range(n):
        if st["spell"][p] >= 0:
            seen.setdefault(int(st["spell"][p]), []).append(f"hand{p}")
    assert sorted(seen) == list(range(T.n_cards)), "a spell card is missing"
    for k, v in seen.items():
        assert len(v) == 1, f"card {k} in {v}"
    assert sum(int(x) for x in st["marker"][:n]) <= 8


def stopped_apart(st, p):
    """Seat ``p``'s kart does not share its hex with another kart (checked
    when ``p`` chose to stop)."""
    n = int(st["num_players"])
    return not any(
        o != p and not st["finished"][o] and st["pos"][o] == st["pos"][p] for o in range(n)
    )
