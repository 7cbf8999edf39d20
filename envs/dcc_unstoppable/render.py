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

from ..core.authoring.draw import Palette
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
#: background, panel fill, panel edge, ink, dim ink
PAL = Palette((30, 34, 32), (44, 50, 47), (86, 96, 90), (236, 234, 226), (160, 166, 160))
GOLD = (244, 208, 120)
#: danger-track cell colour by border (none, green, yellow, red)
TRACK = {0: (190, 190, 190), 1: (96, 186, 96), 2: (228, 204, 80), 3: (212, 84, 70)}
THREAT = (226, 150, 140)
LOOM = (196, 150, 214)
BOSS_EDGE = (250, 70, 60)
TACTIC = (200, 228, 188)
ALLY_C = (176, 214, 236)
UPGRADE = (172, 200, 236)
CARD_W, GAP = 92, 4


def _panel(cv, x0, y0, x1, y1, title=None):
    cv.panel(x0, y0, x1, y1, PAL, title, size=12, title_dy=5)


def _card(cv, x, y, h, fill, title, lines, edge=(20, 20, 20), width=2, reserve=0):
    """A card: a coloured box, its name wrapped on up to two lines, then
    ``lines`` (each cut to the card's width) above the bottom ``reserve``
    pixels."""
    cv.box(x, y, x + CARD_W, y + h, fill=fill, outline=edge, radius=5, width=width)
    n = cv.wrap((x + 4, y + 3), title, 12, CARD_W - 8, 2, fill=(15, 15, 15), line_h=13)
    yy = y + 5 + 13 * n
    for ln in lines:
        if yy + 12 > y + h - reserve:
            break
        cv.text((x + 4, yy), ln, 11, (30, 30, 30), CARD_W - 8)
        yy += 13


def _threat_card(cv, st, cc, s, x, y, h):
    T = cc.tables
    if s >= C.STAIRS0:
        _card(cv, x, y, h, (238, 238, 238), "STAIRS", ["down to the", "next floor"])
        return
    if not st["sl_seen"][s]:
        _card(cv, x, y, h, (120, 120, 120), "face down", ["not yet seen"])
        return
    lvl = _danger_level(st, T)
    atk = int(T.t_atk[s]) + (lvl if T.t_datk[s] else 0)
    hp = int(T.t_atk[s]) + int(T.t_def[s]) + (lvl if T.t_datk[s] else 0)
    hp += lvl if T.t_ddef[s] else 0
    for k in range(2):
        u = st["sl_up"][s][k]
        if u >= 0:
            atk += int(T.u_atk[u])
            hp += int(T.u_atk[u]) + int(T.u_def[u])
    left = hp - int(st["sl_dmg"][s])
    boss = T.t_group[s] == 6
    fill = LOOM if st["sl_loom"][s] else THREAT
    edge, width = (BOSS_EDGE, 3) if boss else ((20, 20, 20), 2)
    kws = " ".join(_kw(st, T, s))
    title = ("BOSS " if boss else "") + cc.threat_names[s]
    _card(cv, x, y, h, fill, title, [f"attack {atk}", kws], edge, width, reserve=16)
    cv.bar(
        x + 4, y + h - 15, CARD_W - 8, 11, left, hp, (200, 40, 40), label=f"HP {left}/{hp}", size=10
    )


def _core_card(st, cc, s):
    T = cc.tables
    c = st["sl_core"][s]
    cost = max(0, int(T.c_cost[c]) + sum(int(T.u_ap[u]) for u in st["sl_up"][s] if u >= 0))
    ally = T.c_type[c] == C.ALLY
    ups = "+".join(cc.upgrade_names[u] for u in st["sl_up"][s] if u >= 0)
    lines = [
        f"{cost} AP  L{T.c_level[c]} {C.STAT_NAMES[T.c_stat[c]]}",
        C.SUBTYPE_NAMES[T.c_type[c]],
    ]
    if ally and st["sl_exh"][s]:
        lines[1] += ", exhausted"
    if ups:
        lines.append(ups)
    return cc.core_names[c], lines, ALLY_C if ally else TACTIC


def _row(cv, x0, y, h, label, slots, draw, right=1084):
    """``label`` then one card per slot (``draw(slot, x)``), as many as fit
    before ``right``."""
    cv.text((x0, y + h // 2 - 7), label, 11, PAL.dim)
    x = x0 + 62
    shown = slots[: (right - x) // (CARD_W + GAP)]
    for s in shown:
        draw(s, x)
        x += CARD_W + GAP
    if len(slots) > len(shown):
        cv.text((1084, y + h - 14), f"+{len(slots) - len(shown)} more", 11, PAL.dim, anchor="ra")
    if not len(slots):
        cv.text((x0 + 62, y + h // 2 - 7), "(none)", 11, PAL.dim)


def _seat(cv, st, cc, p, y0, y1):
    cr = st["crawler"][p]
    race = cc.race_names[st["race"][p]] if st["race"][p] >= 0 else "race to choose"
    kl = cc.class_names[st["klass"][p]] if st["klass"][p] >= 0 else "class to choose"
    turn = " (to act)" if st["actor"] == p else ""
    _panel(cv, 12, y0, 1088, y1)
    w = cv.text((22, y0 + 6), f"{cc.crawler_names[cr] if cr >= 0 else '?'}{turn}", 16, GOLD)
    cv.text((34 + w, y0 + 9), f"{race} / {kl}", 13, PAL.ink, 420 - w)
    hp = int(st["health"][p])
    cv.bar(460, y0 + 8, 150, 14, hp, max(hp, 10), (200, 50, 50), label=f"health {hp}", size=11)
    stats = (
        f"mana {st['mana'][p]}   gold {st['gold'][p]}   AP {st['ap'][p]}   level "
        f"{st['level'][p]}   deck {st['deck_n'][p]}   discard {st['disc_n'][p]}"
        + ("   DOWN THE STAIRS" if st["descended"][p] else "")
    )
    cv.text((622, y0 + 9), stats, 12, PAL.ink, 460)
    room = y1 - y0 - 30
    h_bf = max(58, min(84, room * 2 // 5))
    h_card = max(44, min(70, (room - h_bf - 8) // 2))
    y = y0 + 28
    ondeck = 1084 - CARD_W
    bf = [int(x) for x in st["bf"][p][: st["bf_n"][p]]]

    def threat(s, x, y=y):
        _threat_card(cv, st, cc, s, x, y, h_bf)

    _row(cv, 22, y, h_bf, "battlefield", bf, threat, right=ondeck - 56)
    cv.text((ondeck - 8, y + h_bf // 2 - 7), "on deck", 11, PAL.dim, anchor="ra")
    if st["deck_n"][p]:
        threat(int(st["deck"][p][st["deck_n"][p] - 1]), ondeck)
    else:
        cv.text((ondeck + 4, y + h_bf // 2 - 7), "(empty)", 11, PAL.dim)
    for label, zone, n in (("play area", "play", "play_n"), ("hand", "hand", "hand_n")):
        y += (h_bf if label == "play area" else h_card) + 4
        slots = [int(x) for x in st[zone][p][: st[n][p]]]

        def card(s, x, y=y):
            _card(cv, x, y, h_card, *_core_args(st, cc, s))

        _row(cv, 22, y, h_card, label, slots, card)


def _core_args(st, cc, s):
    name, lines, fill = _core_card(st, cc, s)
    return fill, name, lines


def _footer(cv, st, cc, y0):
    _panel(cv, 12, y0, 1088, _H - 6)
    if st["outcome"] != 0:
        msg = f"Game over: {C.OUTCOME_NAMES[st['outcome']]}"
        if st["outcome"] == C.O_WIN:
            msg += f"  (score {int(st['score'])})"
        cv.text((24, y0 + 10), msg, 16, GOLD, 1050)
        return
    p = int(st["actor"])
    what = C.PHASE_NAMES[st["phase"]] + (f" / {C.DEC_NAMES[st['dec']]}" if st["dec"] else "")
    who = cc.crawler_names[st["crawler"][p]] if p >= 0 and st["crawler"][p] >= 0 else f"seat {p}"
    cv.text((24, y0 + 5), f"{who} to act: {what.replace('_', ' ')}", 13, GOLD, 1050)
    labels = [describe_action(st, int(a), cc) for a in np.flatnonzero(st["legal"])]
    cv.chip_rows(labels, (24, y0 + 24), (1076, _H - 22), PAL, 11, (72, 92, 110), 340, 18, 5)


def render_rgb(st, content=None):
    """The table as a picture (``uint8`` ``(720, 1100, 3)``): the danger
    track with its marker, the market, decks, quest and draft on offer, then
    every seat's crawler (race, class, health, mana, gold, AP, level), its
    threats with their attack and health left, its play area and hand, and
    a footer naming the decision and the choices on offer. Only what the
    players see: a face-down threat stays face down."""
    from ..core.authoring.draw import Canvas

    cc = _c(content)
    T = cc.tables
    cv = Canvas(_W, _H, PAL.bg)
    cv.box(0, 0, _W, 36, fill=(40, 58, 50))
    cv.text((14, 7), "DUNGEON CRAWLER CARL: UNSTOPPABLE", 17, GOLD)
    cv.text(
        (400, 10),
        f"floor {st['cfg_floor']}  |  {C.MODES[st['cfg_mode']]}  |  "
        f"{C.DIFFICULTIES[st['cfg_difficulty']]}  |  turn {st['turn']}",
        14,
        PAL.ink,
        480,
    )
    cv.text((_W - 14, 10), f"step {int(st['steps'])}", 13, PAL.dim, anchor="ra")
    # the danger track
    f, m = st["cfg_floor"] - 1, st["cfg_mode"]
    n = int(T.tr_len[f, m])
    _panel(cv, 12, 42, 1088, 94, f"DANGER  level {_danger_level(st, T)}")
    cw = min(34, (1060 - 100) // max(n, 1))
    for i in range(n):
        x = 110 + i * cw
        last = i == n - 1
        fill = (30, 30, 30) if last else TRACK[int(T.tr_border[f, m, i])]
        cv.box(x, 52, x + cw - 4, 84, fill=fill, outline=(10, 10, 10), radius=4)
        tok = "skull" if last else str(int(T.tr_level[f, m, i]))
        cv.text((x + (cw - 4) // 2, 60), tok, 11, PAL.ink if last else (20, 20, 20), anchor="ma")
        if i == st["danger"]:
            cv.box(x - 2, 50, x + cw - 2, 86, outline=(190, 60, 230), radius=5, width=3)
    # the market
    _panel(cv, 12, 100, 700, 204, "MARKET (upgrades)")
    for k, u in enumerate(st["market"]):
        x = 22 + k * (CARD_W + 20)
        if u >= 0:
            side = "top" if T.u_cutout[u] == 0 else "bottom"
            _card(cv, x, 120, 78, UPGRADE, cc.upgrade_names[u], [f"{T.u_cost[u]} gold, {side}"])
        else:
            cv.text((x + 4, 150), "(empty)", 11, PAL.dim)
    # decks, quest, draft
    _panel(cv, 708, 100, 1088, 204, "DECKS AND QUEST")
    decks = "  ".join(f"L{d + 1}: {st['cdeck_n'][d]}" for d in range(C.MAX_LEVEL_DECK))
    cv.text((718, 120), f"core decks  {decks}", 12, PAL.ink, 360)
    beaten = ", ".join(
        f"{C.BOSS_KIND_NAMES[k]} {st['bosses'][k]}" for k in range(C.NBK) if st["bosses"][k]
    )
    line = f"threat deck {st['tdeck_n']}   bosses defeated: {beaten or 'none'}"
    cv.text((718, 136), line, 12, PAL.ink, 360)
    if st["quest"] >= 0:
        card = T.quest_first[st["quest"]] + st["quest_part"]
        q = (
            f"quest: {cc.quest_names[card]} ({C.QREQ_NAMES[T.q_req[card]]} "
            f"{st['quest_prog']}/{T.q_n[card]})"
        )
        cv.wrap((718, 154), q, 12, 360, 2, fill=GOLD)
    if st["phase"] == C.PH_DRAFT:
        offer = ", ".join(cc.core_names[c] for c in st["reveal"] if c >= 0)
        cv.wrap((718, 172), "draft on offer: " + offer, 12, 360, 2, fill=PAL.ink)
    # the seats
    P = int(st["num_players"])
    top, bottom = 210, 640
    h = (bottom - top) // max(P, 1)
    for p in range(P):
        _seat(cv, st, cc, p, top + p * h, top + (p + 1) * h - 6)
    _footer(cv, st, cc, 640)
    return cv.array()
