"""Text and picture of one Dungeon Crawler Carl: Unstoppable record.

``render_ansi(st, content=None)`` returns a multi-line string (the table as
the players see it: danger track, market, each crawler's mat, battlefield,
on-deck card, hand and play area, the pending decision).
``render_rgb(st, content=None)`` returns an ``(H, W, 3)`` uint8 picture drawn
with Pillow: cards laid out as on the table. ``describe_action(st, a,
content=None)`` names action ``a`` in the current context.

A threat side that was never revealed is drawn face down ("?"), as a player
sees it; the renderer is a human view, not an observation.
"""

from __future__ import annotations

import numpy as np

from . import consts as C
from .content import default_content

_KW_SHORT = ("Fast", "Loom", "Ret", "Sac", "Taunt", "Terr")


def _c(content):
    return default_content() if content is None else content


def _kw(st, T, s):
    kw = int(T.t_kw[s])
    for k in range(2):
        u = st["sl_up"][s][k]
        if u >= 0:
            kw |= int(T.u_kw[u])
    if not st["sl_loom"][s]:
        kw &= ~C.KW_LOOMING
    return [_KW_SHORT[b] for b in range(6) if kw & (1 << b)]


def _danger_level(st, T):
    return int(T.tr_level[st["cfg_floor"] - 1, st["cfg_mode"], st["danger"]])


def threat_text(st, s, content=None):
    cc = _c(content)
    T = cc.tables
    if s >= C.STAIRS0:
        return "[STAIRS]"
    if not st["sl_seen"][s]:
        return "[? face down]"
    lvl = _danger_level(st, T)
    atk = int(T.t_atk[s]) + (lvl if T.t_datk[s] else 0)
    hp = (
        int(T.t_atk[s])
        + int(T.t_def[s])
        + (lvl if T.t_datk[s] else 0)
        + (lvl if T.t_ddef[s] else 0)
    )
    for k in range(2):
        u = st["sl_up"][s][k]
        if u >= 0:
            atk += int(T.u_atk[u])
            hp += int(T.u_atk[u]) + int(T.u_def[u])
    kws = _kw(st, T, s)
    boss = "BOSS " if T.t_group[s] == 6 else ""
    return (
        f"[{boss}{cc.threat_names[s]} atk {atk} hp {hp - st['sl_dmg'][s]}/{hp}"
        + (f" {' '.join(kws)}" if kws else "")
        + "]"
    )


def core_text(st, s, content=None):
    cc = _c(content)
    T = cc.tables
    c = st["sl_core"][s]
    if c < 0:
        return "[-]"
    cost = max(0, int(T.c_cost[c]) + sum(int(T.u_ap[u]) for u in st["sl_up"][s] if u >= 0))
    typ = C.SUBTYPE_NAMES[T.c_type[c]]
    ups = "+".join(cc.upgrade_names[u] for u in st["sl_up"][s] if u >= 0)
    extra = ""
    if T.c_type[c] == C.ALLY:
        extra = (" exhausted" if st["sl_exh"][s] else "") + (
            f" dmg {st['sl_dmg'][s]}" if st["sl_dmg"][s] else ""
        )
    return (
        f"[{cc.core_names[c]} L{T.c_level[c]} {C.STAT_NAMES[T.c_stat[c]]} {typ} {cost}AP"
        + (f" <{ups}>" if ups else "")
        + extra
        + "]"
    )


def describe_action(st, a, content=None):
    cc = _c(content)
    name = C.ACTIONS.names()[a]
    p = st["actor"]
    if p < 0:
        return C.ACTIONS.label(a)
    if C.A_HAND0 <= a < C.A_HAND0 + C.HAND_SLOTS and a - C.A_HAND0 < st["hand_n"][p]:
        return f"{name} {core_text(st, st['hand'][p][a - C.A_HAND0], cc)}"
    if C.A_TGT0 <= a < C.A_TGT0 + C.NPLAYERS_MAX * C.TSLOTS:
        q, t = divmod(a - C.A_TGT0, C.TSLOTS)
        if q < st["num_players"]:
            if t == C.ONDECK and st["deck_n"][q]:
                return f"{name} {threat_text(st, st['deck'][q][st['deck_n'][q] - 1], cc)}"
            if t < st["bf_n"][q]:
                return f"{name} {threat_text(st, st['bf'][q][t], cc)}"
    if C.A_RACE0 <= a < C.A_RACE0 + 3 and st["race_offer"][p][a - C.A_RACE0] >= 0:
        return f"keep the race {cc.race_names[st['race_offer'][p][a - C.A_RACE0]]}"
    if C.A_CLASS0 <= a < C.A_CLASS0 + 3 and st["class_offer"][p][a - C.A_CLASS0] >= 0:
        return f"keep the class {cc.class_names[st['class_offer'][p][a - C.A_CLASS0]]}"
    if a == C.A_PRESET and st["crawler"][p] >= 0:
        T, cr = cc.tables, st["crawler"][p]
        race, klass = cc.race_names[T.cr_race[cr]], cc.class_names[T.cr_class[cr]]
        return f"take the portrait's preset: {race} {klass}"
    if C.A_BUY0 <= a < C.A_BUY0 + C.MARKET_SIZE and st["market"][a - C.A_BUY0] >= 0:
        return f"{name} {cc.upgrade_names[st['market'][a - C.A_BUY0]]}"
    if C.A_DRAFT0 <= a < C.A_DRAFT0 + 4 and st["reveal"][a - C.A_DRAFT0] >= 0:
        lowest = " lowest under the deck" if st["dec"] == C.DEC_BOTTOM else ""
        return f"{name} {cc.core_names[st['reveal'][a - C.A_DRAFT0]]}{lowest}"
    return C.ACTIONS.label(a)  # the declared meaning (consts.ACTIONS)


def _track_line(st, T):
    f, m = st["cfg_floor"] - 1, st["cfg_mode"]
    n = T.tr_len[f, m]
    skip = C.SKIP_BORDER[st["cfg_difficulty"]]
    out = []
    for i in range(n):
        if i == n - 1:
            tok = "SKULL"
        else:
            tok = (
                str(T.tr_level[f, m, i])
                + ".gyr"[T.tr_border[f, m, i]].replace(".", "")
                + ".$m"[T.tr_effect[f, m, i]].replace(".", "")
            )
            if T.tr_border[f, m, i] and T.tr_border[f, m, i] == skip:
                tok = "(" + tok + ")"
        out.append(f">{tok}<" if i == st["danger"] else tok)
    return " ".join(out)


def render_ansi(st, content=None):
    cc = _c(content)
    T = cc.tables
    L = []
    L.append(
        f"Dungeon Crawler Carl: Unstoppable  floor {st['cfg_floor']} "
        f"{C.MODES[st['cfg_mode']]} {C.DIFFICULTIES[st['cfg_difficulty']]}  "
        f"turn {st['turn']}  phase {C.PHASE_NAMES[st['phase']]}"
        + (f" / {C.DEC_NAMES[st['dec']]}" if st["dec"] else "")
        + f"  actor {st['actor']}  outcome {C.OUTCOME_NAMES[st['outcome']]}"
    )
    L.append(f"Danger (level {_danger_level(st, T)}): {_track_line(st, T)}")
    L.append(
        "Market: "
        + "  ".join(
            f"{m}:{cc.upgrade_names[u]}({T.u_cost[u]}g {'top' if T.u_cutout[u] == 0 else 'bot'})"
            if u >= 0
            else f"{m}:-"
            for m, u in enumerate(st["market"])
        )
    )
    L.append(
        "Core decks: "
        + "  ".join(f"L{d + 1}:{st['cdeck_n'][d]}" for d in range(C.MAX_LEVEL_DECK))
        + f"   threat deck {st['tdeck_n']}   bosses defeated "
        + ",".join(
            f"{C.BOSS_KIND_NAMES[k]}={st['bosses'][k]}" for k in range(C.NBK) if st["bosses"][k]
        )
    )
    if st["quest"] >= 0:
        card = T.quest_first[st["quest"]] + st["quest_part"]
        L.append(
            f"Quest: {cc.quest_names[card]} ({C.QREQ_NAMES[T.q_req[card]]} "
            f"{st['quest_prog']}/{T.q_n[card]})"
        )
    if st["phase"] == C.PH_DRAFT:
        L.append(
            "Draft: "
            + "  ".join(
                f"{i}:{cc.core_names[c]}(set {st['reveal_set'][i]})"
                for i, c in enumerate(st["reveal"])
                if c >= 0
            )
        )
    for p in range(st["num_players"]):
        cr = st["crawler"][p]
        race = cc.race_names[st["race"][p]] if st["race"][p] >= 0 else "-"
        kl = cc.class_names[st["klass"][p]] if st["klass"][p] >= 0 else "-"
        L.append("")
        L.append(
            f"== seat {p}: {cc.crawler_names[cr] if cr >= 0 else '?'} ({race} / {kl})"
            f"  HP {st['health'][p]}  mana {st['mana'][p]}  gold {st['gold'][p]}  AP {st['ap'][p]}"
            f"  level {st['level'][p]} (draft L{st['small'][p]})"
            f"  deck {st['deck_n'][p]}  discard {st['disc_n'][p]}"
            + ("  DOWN THE STAIRS" if st["descended"][p] else "")
        )
        L.append(
            "  battlefield: "
            + " ".join(threat_text(st, s, cc) for s in st["bf"][p][: st["bf_n"][p]])
        )
        top = st["deck"][p][st["deck_n"][p] - 1] if st["deck_n"][p] else -1
        L.append("  on deck:     " + (threat_text(st, top, cc) if top >= 0 else "(empty)"))
        L.append(
            "  play:        "
            + " ".join(core_text(st, s, cc) for s in st["play"][p][: st["play_n"][p]])
        )
        L.append(
            "  hand:        "
            + " ".join(core_text(st, s, cc) for s in st["hand"][p][: st["hand_n"][p]])
        )
    return "\n".join(L)


# --- picture ------------------------------------------------------------------
_W, _H = 1100, 720
_CW, _CH = 100, 62


def _box(d, x, y, lines, fill, outline=(20, 20, 20)):
    d.rectangle([x, y, x + _CW, y + _CH], fill=fill, outline=outline)
    for i, t in enumerate(lines[:4]):
        d.text((x + 3, y + 2 + 14 * i), t[:16], fill=(0, 0, 0))


def render_rgb(st, content=None):
    from PIL import Image, ImageDraw

    cc = _c(content)
    T = cc.tables
    img = Image.new("RGB", (_W, _H), (38, 52, 44))
    d = ImageDraw.Draw(img)
    # danger track along the top
    f, m = st["cfg_floor"] - 1, st["cfg_mode"]
    n = T.tr_len[f, m]
    colors = {0: (200, 200, 200), 1: (90, 190, 90), 2: (230, 210, 70), 3: (210, 70, 60)}
    for i in range(n):
        x = 10 + i * 34
        fill = (40, 40, 40) if i == n - 1 else colors[int(T.tr_border[f, m, i])]
        d.rectangle([x, 8, x + 30, 38], fill=fill, outline=(0, 0, 0))
        d.text(
            (x + 10, 16),
            "X" if i == n - 1 else str(T.tr_level[f, m, i]),
            fill=(0, 0, 0) if i < n - 1 else (255, 255, 255),
        )
        if i == st["danger"]:
            d.ellipse([x + 8, 40, x + 22, 54], fill=(160, 40, 200))
    d.text(
        (10, 58),
        f"floor {st['cfg_floor']} {C.MODES[st['cfg_mode']]} "
        f"{C.DIFFICULTIES[st['cfg_difficulty']]}  turn {st['turn']}  "
        f"{C.PHASE_NAMES[st['phase']]} {C.DEC_NAMES[st['dec']]}",
        fill=(255, 255, 255),
    )
    # market
    for k, u in enumerate(st["market"]):
        x = 10 + k * (_CW + 6)
        if u >= 0:
            _box(
                d,
                x,
                78,
                [
                    cc.upgrade_names[u],
                    f"{T.u_cost[u]} gold",
                    "top" if T.u_cutout[u] == 0 else "bottom",
                ],
                (170, 200, 235),
            )
    # seats
    for p in range(st["num_players"]):
        y0 = 160 + p * 280
        d.text(
            (10, y0),
            f"{cc.crawler_names[st['crawler'][p]]}: HP {st['health'][p]}  mana {st['mana'][p]}  "
            f"gold {st['gold'][p]}  AP {st['ap'][p]}  level {st['level'][p]}"
            + ("  (down the stairs)" if st["descended"][p] else ""),
            fill=(255, 255, 255),
        )
        for i, s in enumerate(st["bf"][p][: st["bf_n"][p]]):
            x = 10 + i * (_CW + 6)
            kws = _kw(st, T, s)
            fill = (235, 150, 140) if not st["sl_loom"][s] else (190, 140, 200)
            _box(
                d,
                x,
                y0 + 18,
                [cc.threat_names[s], f"atk {T.t_atk[s]}", f"dmg {st['sl_dmg'][s]}", " ".join(kws)],
                fill,
            )
        if st["deck_n"][p]:
            s = st["deck"][p][st["deck_n"][p] - 1]
            x = 10 + C.BF_CAP * (_CW + 6) - _CW - 6
            if s >= C.STAIRS0:
                _box(d, x, y0 + 18, ["STAIRS"], (240, 240, 240))
            elif st["sl_seen"][s]:
                _box(
                    d,
                    x,
                    y0 + 18,
                    ["on deck", cc.threat_names[s], f"dmg {st['sl_dmg'][s]}"],
                    (240, 190, 120),
                )
            else:
                _box(d, x, y0 + 18, ["on deck", "?"], (120, 120, 120))
        for i, s in enumerate(st["play"][p][: st["play_n"][p]][:10]):
            c = st["sl_core"][s]
            _box(
                d,
                10 + i * (_CW + 6),
                y0 + 90,
                [
                    cc.core_names[c],
                    C.SUBTYPE_NAMES[T.c_type[c]],
                    "exhausted" if st["sl_exh"][s] else "",
                ],
                (200, 230, 190),
            )
        for i, s in enumerate(st["hand"][p][: st["hand_n"][p]][:10]):
            c = st["sl_core"][s]
            _box(
                d,
                10 + i * (_CW + 6),
                y0 + 162,
                [cc.core_names[c], f"{T.c_cost[c]} AP", C.STAT_NAMES[T.c_stat[c]]],
                (250, 245, 220),
            )
    return np.asarray(img, dtype=np.uint8).copy()
