"""Rendering of a Dungeon Crawler game: ``ansi`` (a text map of each floor
with heroes on it, plus one status line per hero) and ``rgb_array`` (a
``FRAME_H x FRAME_W`` RGB picture drawn with Pillow: the three floors
square by square with monsters, chests, shops and hero tokens in seat
colours, a row per hero with HP, stats, gold, cards held and gear by name,
the combat or offer in progress, and a legend). Only public fields are
drawn: hands and offers appear as counts, never the decks' order."""

from __future__ import annotations

from ..core.authoring.draw import Palette
from . import consts as C
from .rules_py import hero_statuses, hero_view


def _mon_name(core, s, f, q):
    ct = core.content
    k = int(core.T.sq_kind[f, q])
    if k == C.SQ_MOB:
        return ct.mob_names[int(s["sq_mob"][f, q])]
    if k == C.SQ_BOSS:
        return ct.boss_names[f]
    if k == C.SQ_LAIR:
        return ct.final_names[int(s["final_boss"])]
    return ""


def _opponent(core, s, hero_hp: bool, article: str) -> str:
    """Whom the combat's hero fights, in words: a rival (with its HP when
    ``hero_hp``), a summoned monster (after ``article``) or the square's
    monster, each monster with its HP."""
    kind = int(s["cb_kind"])
    if kind == C.OPP_HERO:
        b = int(s["cb_b"])
        return f"player_{b} (HP {int(s['hp'][b])})" if hero_hp else f"player_{b}"
    if kind == C.OPP_SUMMON:
        mob = core.content.mob_names[int(s["cb_mob"])]
        return f"{article}summoned {mob} (HP {int(s['cb_mhp'])})"
    f, q = int(s["cb_f"]), int(s["cb_sq"])
    return f"{_mon_name(core, s, f, q)} (HP {int(s['sq_hp'][f, q])})"


def render_text(core, s):
    ct, T = core.content, core.T
    n = int(s["num_players"])
    out = [
        f"== Dungeon Crawler | {n} heroes | round {int(s['round'])} | "
        f"{C.PHASE_NAMES[int(s['phase'])]} | to act: "
        f"{'-' if int(s['actor']) < 0 else 'player_' + str(int(s['actor']))} =="
    ]
    if int(s["outcome"]) != C.O_PLAYING:
        w = int(s["winner"])
        out.append(
            f"game over: {C.OUTCOME_NAMES[int(s['outcome'])]}"
            + (f", winner player_{w}" if w >= 0 else "")
        )
    for f in range(C.NFLOOR):
        L = int(T.floor_len[f])
        row = []
        for q in range(L):
            ch = C.SQ_CHARS[int(T.sq_kind[f, q])]
            k = int(T.sq_kind[f, q])
            if k in (C.SQ_MOB, C.SQ_CHEST, C.SQ_BOSS, C.SQ_LAIR) and not s["sq_alive"][f, q]:
                ch = "." if k != C.SQ_LAIR else "x"
            here = [h for h in range(n) if int(s["floor"][h]) == f and int(s["pos"][h]) == q]
            if here:
                ch = str(here[0]) if len(here) == 1 else "*"
            row.append(ch)
        out.append(f"F{f + 1} {ct.floor_names[f]:<13} |{''.join(row)}|")
    boss_hp = []
    for f in range(C.NFLOOR):
        q = int(T.boss_sq[f]) if f < C.NFLOOR - 1 else int(T.floor_len[f]) - 1
        name = _mon_name(core, s, f, q)
        hp = int(s["sq_hp"][f, q])
        boss_hp.append(f"{name} {hp if s['sq_alive'][f, q] else 'dead'}")
    out.append("bosses: " + "; ".join(boss_hp))
    for h in range(n):
        v = hero_view(core, s, h)
        gear = ",".join(C.TIER_NAMES[t][0].upper() if t >= 0 else "-" for t in v["tiers"])
        flags = "".join(word[0].upper() for word in hero_statuses(v))
        mark = ">" if int(s["actor"]) == h else " "
        out.append(
            f"{mark}player_{h}: F{v['floor'] + 1} sq{v['pos']:>2} HP {v['hp']}/{v['max_hp']} "
            f"ATK {v['atk']} DEF {v['def']} SPD {v['spd']} gold {v['gold']} "
            f"hand {v['hand_n']} gear[{gear}] vault {v['vault']:06b} {flags}"
        )
    if C.PHASE_NAMES[int(s["phase"])] == "assign":
        out.append(f"creation roll to lock into a stat: {int(s['cr_roll'])}")
    if int(s["cb_kind"]) != C.OPP_NONE:
        a = int(s["cb_a"])
        opp = _opponent(core, s, hero_hp=False, article="")
        out.append(f"combat: player_{a} vs {opp}, round {int(s['cb_round'])}")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# rgb_array: the dungeon as a picture
# ---------------------------------------------------------------------------
FRAME_W, FRAME_H = 960, 640
#: background, panel fill, panel edge, ink, dim ink
PAL = Palette((22, 22, 28), (38, 38, 48), (74, 74, 92), (236, 234, 228), (160, 160, 172))
SQ_COLORS = {
    C.SQ_EMPTY: (70, 68, 74),
    C.SQ_START: (84, 140, 84),
    C.SQ_CHEST: (204, 164, 40),
    C.SQ_MOB: (176, 56, 52),
    C.SQ_SHOP: (56, 112, 204),
    C.SQ_ARMORY: (140, 84, 200),
    C.SQ_BOSS: (232, 30, 40),
    C.SQ_STAIRS: (200, 200, 206),
    C.SQ_LAIR: (250, 20, 130),
}
SQ_LABELS = {
    C.SQ_EMPTY: "corridor",
    C.SQ_START: "start",
    C.SQ_CHEST: "chest",
    C.SQ_MOB: "monster",
    C.SQ_SHOP: "card shop",
    C.SQ_ARMORY: "armory",
    C.SQ_BOSS: "floor boss",
    C.SQ_STAIRS: "stairs",
    C.SQ_LAIR: "final lair",
}
SPENT = (48, 46, 52)
#: one colour per seat (player_0 ... player_7), used for tokens and rows
HERO_COLORS = [
    (245, 245, 245),
    (0, 220, 230),
    (255, 225, 40),
    (60, 220, 80),
    (255, 140, 20),
    (240, 70, 240),
    (140, 140, 255),
    (255, 150, 150),
]
TIER_COLORS = [(170, 170, 170), (80, 200, 100), (80, 150, 255), (255, 160, 30)]
CELL_W, CELL_H, CELL_GAP = 36, 36, 2


def _square_live(T, s, f, q):
    k = int(T.sq_kind[f, q])
    return k not in (C.SQ_MOB, C.SQ_CHEST, C.SQ_BOSS, C.SQ_LAIR) or bool(s["sq_alive"][f, q])


def _abbr(cv, name, size, width):
    """The most telling word of a monster name, cut (no ellipsis) to ``width``."""
    parts = name.replace(",", " ").split()
    word = parts[-1] if len(parts) > 1 and len(parts[-1]) >= 3 else parts[0]
    while len(word) > 1 and cv.text_width(word, size) > width:
        word = word[:-1]
    return word


def _draw_floor(cv, core, s, f, y0):
    ct, T = core.content, core.T
    n = int(s["num_players"])
    L = int(T.floor_len[f])
    x0 = 12
    boss_q = int(T.boss_sq[f]) if f < C.NFLOOR - 1 else L - 1
    boss = _mon_name(core, s, f, boss_q)
    bstate = f"HP {int(s['sq_hp'][f, boss_q])}" if s["sq_alive"][f, boss_q] else "slain"
    mobs = ", ".join(ct.mob_names[f * C.MOBS_PER_FLOOR + k] for k in range(C.MOBS_PER_FLOOR))
    cv.text((x0, y0), f"FLOOR {f + 1}  {ct.floor_names[f]}", 14, PAL.ink, 330)
    cv.text(
        (x0 + 330, y0 + 1),
        f"{'final boss' if f == C.NFLOOR - 1 else 'boss'}: {boss} ({bstate})    monsters: {mobs}",
        12,
        PAL.dim,
        FRAME_W - 360,
    )
    top = y0 + 18
    for q in range(L):
        k = int(T.sq_kind[f, q])
        x = x0 + q * (CELL_W + CELL_GAP)
        live = _square_live(T, s, f, q)
        col = SQ_COLORS[k] if live else SPENT
        cv.box(
            x,
            top,
            x + CELL_W,
            top + CELL_H,
            fill=col,
            radius=4,
            outline=(255, 255, 255) if k == C.SQ_LAIR else None,
        )
        fg = (20, 20, 24) if live and k in (C.SQ_CHEST, C.SQ_STAIRS) else PAL.ink
        cv.text((x + 3, top + 1), C.SQ_CHARS[k], 11, fg if live else PAL.dim)
        cv.text((x + CELL_W - 3, top + 1), str(q), 9, fg if live else PAL.dim, anchor="ra")
        if k in (C.SQ_MOB, C.SQ_BOSS, C.SQ_LAIR):
            if live:
                cv.text(
                    (x + CELL_W / 2, top + 13),
                    _abbr(cv, _mon_name(core, s, f, q), 10, CELL_W - 3),
                    10,
                    fg,
                    anchor="ma",
                )
            elif k == C.SQ_MOB:
                back = int(s["sq_back"][f, q]) - int(s["round"])
                cv.text(
                    (x + CELL_W / 2, top + 18),
                    f"back {max(back, 0)}",
                    9,
                    PAL.dim,
                    CELL_W,
                    anchor="ma",
                )
        elif k == C.SQ_CHEST and not live:
            cv.text((x + CELL_W / 2, top + 18), "open", 9, PAL.dim, anchor="ma")
        here = [h for h in range(n) if int(s["floor"][h]) == f and int(s["pos"][h]) == q]
        for j, h in enumerate(here):
            r = 7
            cx = x + 7 + (j % 3) * 11
            cy = top + CELL_H + 10 + (j // 3) * 14
            ring = (255, 60, 60) if int(s["actor"]) == h else (20, 20, 24)
            cv.circle(cx, cy, r, HERO_COLORS[h], outline=ring, width=2)
            cv.text((cx, cy), str(h), 10, (10, 10, 14), anchor="mm")
        if k in (C.SQ_MOB, C.SQ_BOSS, C.SQ_LAIR) and live:
            hp = int(s["sq_hp"][f, q])
            cv.text((x + CELL_W / 2, top + 24), f"HP {hp}", 10, (255, 235, 235), anchor="ma")
    return top + CELL_H + 38


def _draw_heroes(cv, core, s, y0, y1):
    ct, T = core.content, core.T
    n = int(s["num_players"])
    cv.panel(8, y0, FRAME_W - 8, y1, PAL, "HEROES", size=12, title_dy=4)
    cv.text((300, y0 + 4), "HP", 12, PAL.dim)
    cv.text((430, y0 + 4), "ATK DEF SPD", 12, PAL.dim)
    cv.text((540, y0 + 4), "gold  cards", 12, PAL.dim)
    cv.text((640, y0 + 4), "gear (colour = tier)", 12, PAL.dim)
    rh = min(52, (y1 - y0 - 22) // n)
    two = rh >= 40
    for h in range(n):
        v = hero_view(core, s, h)
        y = y0 + 20 + h * rh
        if int(s["actor"]) == h or int(s["turn"]) == h:
            cv.box(
                12,
                y,
                FRAME_W - 12,
                y + rh - 2,
                fill=(58, 54, 44) if int(s["actor"]) == h else (46, 46, 56),
                radius=5,
            )
        cv.circle(26, y + 11, 8, HERO_COLORS[h], outline=(20, 20, 24))
        cv.text((26, y + 11), str(h), 10, (10, 10, 14), anchor="mm")
        tag = "  < to act" if int(s["actor"]) == h else ("  (turn)" if int(s["turn"]) == h else "")
        cv.text((40, y + 3), f"player_{h}{tag}", 14, PAL.ink, 150)
        cv.text((195, y + 4), f"F{v['floor'] + 1} sq {v['pos']}", 12, PAL.dim)
        hp_col = (80, 200, 90) if v["hp"] * 2 > v["max_hp"] else (230, 80, 60)
        cv.bar(
            258,
            y + 3,
            160,
            16,
            v["hp"],
            max(1, v["max_hp"]),
            hp_col,
            label=f"{v['hp']}/{v['max_hp']}",
            size=11,
        )
        cv.text((430, y + 3), f"{v['atk']:>3} {v['def']:>3} {v['spd']:>3}", 14, PAL.ink)
        cv.text((540, y + 3), f"{v['gold']:>3}   {v['hand_n']}", 14, (250, 215, 60))
        flags = [
            (n_, c)
            for n_, on, c in (
                ("poison", v["poison"], (120, 220, 60)),
                ("weak", v["weak"], (200, 160, 80)),
                ("cursed", v["curse"], (180, 80, 220)),
                ("enchanted", v["enchant"], (100, 200, 250)),
            )
            if on
        ]
        gx = 640
        for sl in range(C.NSLOT):
            it = int(s["equip"][h, sl])
            vaulted = (int(s["vault"][h]) >> sl) & 1
            col = TIER_COLORS[int(T.item_tier[it])] if it >= 0 else (60, 60, 68)
            if two:  # a small tier box with the item's name, three slots a line
                slot_w = (FRAME_W - 24 - 640) // 3
                xx = 640 + (sl % 3) * slot_w
                yy = y + 2 + (sl // 3) * 18
                bx, by, bw, bh = xx, yy + 1, 13, 13
            else:  # a wider tier box only, all slots on one line
                bx, by, bw, bh = gx, y + 4, 24, 14
                gx += 28
            outline = (255, 255, 255) if vaulted else None
            cv.box(bx, by, bx + bw, by + bh, fill=col, radius=2, outline=outline)
            letter = C.SLOT_NAMES[sl][0].upper()
            cv.text((bx + (bw + 1) // 2, by + 7), letter, 9, (10, 10, 14), anchor="mm")
            if two:
                name = ct.item_names[it] if it >= 0 else "-"
                cv.text((xx + 17, yy), name, 11, PAL.ink if it >= 0 else PAL.dim, slot_w - 20)
        if two:
            x = 195
            for name, col in flags:
                x += cv.chip(x, y + 22, name, 10, col, max_w=90) + 4
        else:
            x = gx + 6
            for name, col in flags:
                x += cv.chip(x, y + 3, name, 9, col, max_w=70) + 3


def _status_line(core, s):
    ct = core.content
    ph = C.PHASE_NAMES[int(s["phase"])]
    actor = int(s["actor"])
    if int(s["outcome"]) != C.O_PLAYING:
        w = int(s["winner"])
        return f"Game over: {C.OUTCOME_NAMES[int(s['outcome'])]}" + (
            f", player_{w} slew {ct.final_names[int(s['final_boss'])]}" if w >= 0 else ""
        )
    who = f"player_{actor}"
    if int(s["cb_kind"]) != C.OPP_NONE:
        a = int(s["cb_a"])
        opp = _opponent(core, s, hero_hp=True, article="a ")
        return (
            f"Combat, round {int(s['cb_round']) + 1}: player_{a} (HP {int(s['hp'][a])}) "
            f"vs {opp}; {who} decides"
        )
    ok = int(s["offer_kind"])
    if ok != C.OF_NONE:
        seat = int(s["offer_seat"])
        what = {
            C.OF_DRAFT: "drafts a starting item",
            C.OF_SHOP: "browses the card shop",
            C.OF_ARMORY: "browses the armory",
            C.OF_CHEST: "opens a chest",
        }[ok]
        return f"player_{seat} {what} ({int(s['offer_n'])} face down to the others)"
    if ph == "assign":
        return f"Hero creation: {who} places a roll of {int(s['cr_roll'])} into a stat"
    if ph == "rebalance":
        return f"Hero creation: {who} may move stat points between stats, then finish"
    if ph == "move":
        return f"{who} rolled {int(s['roll'])} for movement and chooses where to walk"
    doing = {
        "main": "may play cards, then ends the turn",
        "target": "chooses a target seat",
        "slot": "chooses a gear slot",
        "draft": "drafts a starting item",
        "loot": f"loots player_{int(s['loot_victim'])} ({int(s['loot_left'])} item(s) left)",
    }
    return f"{who} {doing.get(ph, ph.replace('_', ' '))}"


def _draw_legend(cv, y0):
    cv.panel(8, y0, FRAME_W - 8, FRAME_H - 6, PAL)
    x = 18
    for k in range(C.NSQKIND):
        cv.box(x, y0 + 7, x + 16, y0 + 23, fill=SQ_COLORS[k], radius=3)
        fg = (20, 20, 24) if k in (C.SQ_CHEST, C.SQ_STAIRS) else PAL.ink
        cv.text((x + 8, y0 + 15), C.SQ_CHARS[k], 10, fg, anchor="mm")
        x += 20 + cv.text((x + 20, y0 + 8), SQ_LABELS[k], 11, PAL.dim) + 10
    cv.box(x, y0 + 7, x + 16, y0 + 23, fill=SPENT, radius=3)
    cv.text((x + 20, y0 + 8), "slain / opened", 11, PAL.dim)
    y = y0 + 28
    x = 18
    for t in range(C.NTIER):
        cv.box(x, y + 3, x + 10, y + 13, fill=TIER_COLORS[t], radius=2)
        x += 14 + cv.text((x + 14, y), C.TIER_NAMES[t], 11, PAL.dim) + 10
    x += 10
    cv.circle(x + 6, y + 8, 6, HERO_COLORS[0], outline=(255, 60, 60), width=2)
    x += 16 + cv.text((x + 16, y), "hero token (red ring: to act)", 11, PAL.dim) + 12
    cv.text(
        (x, y),
        "gear slots W G H C P B (white edge: vaulted); cells: square no., monster + HP",
        11,
        PAL.dim,
        FRAME_W - 20 - x,
    )


def render_rgb(core, s):
    """The dungeon as an RGB picture (``uint8``, ``(FRAME_H, FRAME_W, 3)``):
    the three floors with their squares, monsters (with HP) and hero tokens
    in seat colours, one row per hero (HP, stats, gold, cards held, gear by
    name and tier, status effects), the current combat or offer, and a
    legend. Offers and hands are shown as counts only (they are private)."""
    from ..core.authoring.draw import Canvas

    n = int(s["num_players"])
    cv = Canvas(FRAME_W, FRAME_H, PAL.bg)
    cv.box(0, 0, FRAME_W, 48, fill=(36, 44, 66))
    cv.text((14, 4), "DUNGEON CRAWLER", 18, (250, 220, 160))
    cv.text(
        (220, 6),
        f"{n} heroes  |  round {int(s['round']) + 1}  |  "
        f"phase: {C.PHASE_NAMES[int(s['phase'])].replace('_', ' ')}  |  decision "
        f"{int(s['steps'])}",
        14,
        PAL.ink,
        560,
    )
    cv.text(
        (FRAME_W - 14, 6),
        f"cards in deck {int(s['card_deck_n'])}  items in deck {int(s['item_deck_n'])}",
        12,
        PAL.dim,
        anchor="ra",
    )
    cv.text((14, 27), _status_line(core, s), 14, (255, 210, 120), FRAME_W - 28)
    y = 54
    for f in range(C.NFLOOR):
        y = _draw_floor(cv, core, s, f, y) + 2
    legend_y = FRAME_H - 52
    _draw_heroes(cv, core, s, y, legend_y - 4)
    _draw_legend(cv, legend_y)
    return cv.array()


def describe_action(core, s, a):
    """Readable label of action ``a`` in state ``s``: the declared meaning of
    its range (``consts.ACTIONS``), with the offered card or item named."""
    rng, k = C.ACTIONS.decode(a)
    label = C.ACTIONS.label(a, core.content)
    if rng == "shift":  # name the two stats
        src, dst = (C.STAT_NAMES[i].upper() for i in C.shift_pair(k))
        return f"rebalance: move one point from {src} to {dst}"
    if rng == "assign":
        return f"creation: lock the current roll into {C.STAT_NAMES[k].upper()}"
    if (rng == "buy" and int(s["offer_kind"]) != C.OF_NONE) or rng == "draft":
        x = int(s["offer"][k])
        if x >= 0:
            shop = rng == "buy" and int(s["offer_kind"]) == C.OF_SHOP
            return f"{label} ({(core.content.card_names if shop else core.content.item_names)[x]})"
    return label
