"""Rendering of a Dungeon Kart game.

* :func:`render_ansi` -- the track as a honeycomb text map (the content's
  map characters, tokens in lower case, karts as seat digits) plus one
  status line per Racer;
* :func:`render_rgb` -- a numpy uint8 picture (Pillow): hexes coloured by
  terrain, walls as thick black lines, the finish line chequered, coins,
  spellbooks, hazard hexes and tokens, karts as arrows in player colours,
  and a side panel with placement, speed, MP, coins and spells.

Both take one state record and the :class:`~.content.KartContent`.
"""

from __future__ import annotations

import math

import numpy as np

from . import consts as C
from . import hexgeo as H

TOKEN_CHARS = " hftx>l+ozg" + "E" * C.NEPIC  # by consts.K_* (Epic Heroes: E)
TERRAIN_CHARS = {
    C.T_ROAD: ".",
    C.T_DIRT: "d",
    C.T_GRASS: "g",
    C.T_MUD: "m",
    C.T_WATER: "w",
    C.T_LAVA: "L",
    C.T_PIT: "P",
    C.T_OBST: "X",
    C.T_CUT: "#",
}
ARROWS = "\u2192\u2198\u2199\u2190\u2196\u2197"  # E SE SW W NW NE
COLOURS = [
    (230, 57, 70),
    (29, 111, 230),
    (46, 160, 67),
    (245, 180, 0),
    (155, 89, 182),
    (255, 127, 39),
    (0, 190, 190),
    (240, 98, 200),
]
TERRAIN_RGB = {
    C.T_ROAD: (150, 150, 155),
    C.T_DIRT: (196, 160, 110),
    C.T_GRASS: (120, 190, 90),
    C.T_MUD: (120, 85, 55),
    C.T_WATER: (80, 140, 220),
    C.T_LAVA: (235, 80, 30),
    C.T_PIT: (25, 25, 25),
    C.T_OBST: (70, 70, 70),
    C.T_CUT: (110, 110, 110),
}
TOKEN_RGB = {
    C.K_HERO: (250, 250, 250),
    C.K_FANGROOT: (20, 110, 40),
    C.K_TAR: (10, 10, 10),
    C.K_SMASH: (200, 40, 40),
    C.K_BOOST: (255, 220, 0),
    C.K_LAVAPUDDLE: (255, 110, 0),
    C.K_GRAVE: (90, 90, 110),
    C.K_BOMB: (30, 30, 30),
    C.K_ZOMBIE: (110, 160, 60),
}
TOKEN_RGB.update({C.K_EPIC0 + i: (205, 160, 30) for i in range(C.NEPIC)})


def _cells(T, tk):
    return np.flatnonzero(T.tr_terr[tk] != C.T_OFF)


def _name(ct, kind, i):
    names = ct.racer_names if kind == "racer" else ct.dashboard_names
    return names[i] if 0 <= i < len(names) else "-"


def status_lines(st, ct):
    n = int(st["num_players"])
    out = []
    for p in range(n):
        spell = "spell" if st["spell"][p] >= 0 else ("marker" if st["marker"][p] else "-")
        pos = int(st["pos"][p])
        where = (
            f"finished ({int(st['finish_mp'][p])} MP)"
            if st["finished"][p]
            else f"hex ({pos % H.BOARD_W},{pos // H.BOARD_W}) {ARROWS[int(st['facing'][p])]}"
        )
        flags = "".join(f for f, v in (("C", st["crashed"][p]), ("F", st["frozen"][p])) if v)
        out.append(
            f"{'>' if st['actor'] == p else ' '} player_{p} "
            f"{_name(ct, 'racer', int(st['racer'][p])):<24} "
            f"place {int(st['place'][p])} speed {int(st['speed'][p])} "
            f"coins {int(st['coins'][p])} {spell:<6} {where} {flags}"
        )
    return out


def render_ansi(st, ct) -> str:
    T = ct.tables
    tk = int(st["track"])
    cells = _cells(T, tk)
    qs, rs = cells % H.BOARD_W, cells // H.BOARD_W
    r0, r1 = int(rs.min()), int(rs.max())
    cmin = int((2 * qs + rs).min())
    karts: dict[int, str] = {}
    for p in range(int(st["num_players"])):
        if not st["finished"][p] and st["pos"][p] >= 0:
            karts.setdefault(int(st["pos"][p]), str(p))
    lines = []
    for r in range(r0, r1 + 1):
        row = {}
        for c in cells[rs == r]:
            q = int(c % H.BOARD_W)
            ch = TERRAIN_CHARS[int(T.tr_terr[tk, c])]
            if st["grass"][c] and ch in ".dmw":
                ch = "g"
            if T.tr_coins[tk, c]:
                ch = "$"
            if T.tr_spell[tk, c]:
                ch = "S"
            if st["tok"][c]:
                ch = TOKEN_CHARS[int(st["tok"][c])]
            elif T.tr_haz[tk, c]:
                ch = "!"
            ch = karts.get(int(c), ch)
            row[2 * q + r - cmin] = ch
        w = max(row) + 1 if row else 0
        lines.append("".join(row.get(i, " ") for i in range(w)).rstrip())
    head = (
        f"== Dungeon Kart | {ct.track_names[tk]} | round {int(st['round']) + 1} | "
        f"{C.PHASE_NAMES[int(st['phase'])]} | to act: "
        f"{'-' if st['actor'] < 0 else 'player_' + str(int(st['actor']))}"
        f"{' | MP ' + str(int(st['mp'])) if st['phase'] == C.PH_MOVE else ''} =="
    )
    return "\n".join([head] + lines + status_lines(st, ct))


def render_rgb(st, ct, size: int = 14, panel: int = 300) -> np.ndarray:
    """An RGB picture (H x W x 3 uint8) of the race."""
    from PIL import Image, ImageDraw

    T = ct.tables
    tk = int(st["track"])
    n = int(st["num_players"])
    cells = _cells(T, tk)
    pts = [H.pixel(c % H.BOARD_W, c // H.BOARD_W, size) for c in cells]
    xs = [x for x, _ in pts]
    ys = [y for _, y in pts]
    ox, oy = size * 2 - min(xs), size * 2 - min(ys)
    w = int(max(xs) - min(xs) + 4 * size)
    h = int(max(max(ys) - min(ys) + 4 * size, 40 + 34 * n))
    img = Image.new("RGB", (w + panel, h), (236, 228, 206))
    dr = ImageDraw.Draw(img)

    def centre(c):
        x, y = H.pixel(c % H.BOARD_W, c // H.BOARD_W, size)
        return x + ox, y + oy

    def corner(x, y, i, s=size):
        a = math.radians(60 * i - 30)
        return x + s * math.cos(a), y + s * math.sin(a)

    for c in cells:
        x, y = centre(c)
        t = int(T.tr_terr[tk, c])
        col = TERRAIN_RGB[C.T_GRASS] if (st["grass"][c] and t in (1, 2, 4, 5)) else TERRAIN_RGB[t]
        dr.polygon([corner(x, y, i) for i in range(6)], fill=col, outline=(60, 60, 60))
        if T.tr_haz[tk, c]:
            for i in (0, 2, 4):  # three red corners
                cx, cy = corner(x, y, i, size * 0.78)
                r = size * 0.16
                dr.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(210, 30, 30))
        if T.tr_coins[tk, c]:
            r = size * 0.35
            dr.ellipse([x - r, y - r, x + r, y + r], fill=(250, 210, 40), outline=(120, 90, 0))
            if T.tr_coins[tk, c] > 1:
                dr.text((x - 3, y - 6), str(int(T.tr_coins[tk, c])), fill=(0, 0, 0))
        if T.tr_spell[tk, c]:
            r = size * 0.35
            dr.rectangle(
                [x - r, y - r * 0.8, x + r, y + r * 0.8],
                fill=(140, 60, 200),
                outline=(255, 255, 255),
            )
        k = int(st["tok"][c])
        if k:
            r = size * 0.45
            dr.regular_polygon(
                (x, y, r), 4 if k != C.K_BOMB else 8, fill=TOKEN_RGB[k], outline=(255, 255, 255)
            )
            dr.text((x - 3, y - 6), TOKEN_CHARS[k].upper(), fill=(255, 0, 255))
        if T.tr_start[tk, c]:
            dr.text((x - 3, y - 6), str(int(T.tr_start[tk, c])), fill=(255, 255, 255))
    for c in cells:
        x, y = centre(c)
        for d in range(6):
            a, b = corner(x, y, d), corner(x, y, d + 1)
            if (T.tr_walls[tk, c] >> d) & 1:
                dr.line([a, b], fill=(0, 0, 0), width=3)
            if (T.tr_finish[tk, c] >> d) & 1:
                dr.line([a, b], fill=(255, 255, 255), width=4)
                mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
                dr.line([a, (mx, my)], fill=(0, 0, 0), width=4)
    # karts: arrows in player colours (slightly offset when sharing a hex)
    slot: dict[int, int] = {}  # hex -> karts drawn on it so far
    for p in range(n):
        if st["finished"][p] or st["pos"][p] < 0:
            continue
        c = int(st["pos"][p])
        k = slot.get(c, 0)
        slot[c] = k + 1
        x, y = centre(c)
        x += (k % 2) * size * 0.35 - (k > 0) * size * 0.15
        y += (k // 2) * size * 0.35
        a = math.radians(60 * int(st["facing"][p]))
        L = size * 0.8
        tip = (x + L * math.cos(a), y + L * math.sin(a))
        left = (x + L * 0.6 * math.cos(a + 2.5), y + L * 0.6 * math.sin(a + 2.5))
        right = (x + L * 0.6 * math.cos(a - 2.5), y + L * 0.6 * math.sin(a - 2.5))
        dr.polygon(
            [tip, left, right],
            fill=COLOURS[p],
            outline=(0, 0, 0) if not st["crashed"][p] else (255, 255, 255),
        )
    # side panel
    dr.rectangle([w, 0, w + panel, h], fill=(40, 38, 48))
    px = w + 10
    dr.text((px, 8), f"{ct.track_names[tk]}  round {int(st['round']) + 1}", fill=(255, 255, 255))
    order = sorted(range(n), key=lambda p: (int(st["place"][p]), p))
    for i, p in enumerate(order):
        y = 30 + 34 * i
        dr.rectangle([px, y, px + 14, y + 14], fill=COLOURS[p])
        mark = " <" if st["actor"] == p else ""
        dr.text(
            (px + 20, y),
            f"{int(st['place'][p])}. P{p} {_name(ct, 'racer', int(st['racer'][p]))}{mark}",
            fill=(255, 255, 255),
        )
        info = (
            f"finished, {int(st['finish_mp'][p])} MP left"
            if st["finished"][p]
            else f"speed {int(st['speed'][p])}  coins {int(st['coins'][p])}"
            + ("  spell" if st["spell"][p] >= 0 else "")
            + ("  marker" if st["marker"][p] else "")
            + ("  CRASHED" if st["crashed"][p] else "")
        )
        if st["cur"] == p and st["phase"] == C.PH_MOVE and not st["finished"][p]:
            info += f"  MP {int(st['mp'])}"
        dr.text((px + 20, y + 13), info, fill=(200, 200, 200))
    return np.asarray(img, dtype=np.uint8).copy()


def describe_action(st, ct, a: int) -> str:
    """A short human description of action ``a`` for the actor of ``st``."""
    name = C.ACTIONS.label(int(a))  # the declared meaning (consts.ACTIONS)
    p = int(st["actor"])
    n = max(1, int(st["num_players"]))
    if C.A_BUMP <= a < C.A_BUMP + C.N_BUMP:
        k = (a - C.A_BUMP) // 3 + 1
        side = ("forward-left", "ahead", "forward-right")[(a - C.A_BUMP) % 3]
        return f"bump player_{(p + k) % n} {side}"
    if C.A_SPELL <= a < C.A_SPELL + C.N_SPELL:
        k = a - C.A_SPELL
        card = int(st["spell"][p])
        nm = ct.spell_names[int(ct.tables.card_kind[card])] if card >= 0 else "spell"
        return f"cast {nm}" + (f" on player_{(p + k) % n}" if k else "")
    if C.A_POWER <= a < C.A_POWER + C.N_POWER:
        w, k = divmod(a - C.A_POWER, C.MAX_P)
        return f"{('upper', 'lower')[w]} power" + (f" on player_{(p + k) % n}" if k else "")
    if C.A_PICK <= a < C.A_PICK + C.N_PICK:
        left = [int(x) for x in st["offer"][: int(st["offer_n"])] if x >= 0]
        j = a - C.A_PICK
        if j < len(left):
            if int(st["phase"]) == C.PH_DRAFT_RACER:
                return f"take the Racer {ct.racer_names[left[j]]}"
            if int(st["phase"]) == C.PH_DRAFT_DASH:
                return f"take the dashboard {ct.dashboard_names[left[j]]}"
    if C.A_SPEED <= a < C.A_SPEED + 3:
        return ("speed down", "keep speed", "speed up")[a - C.A_SPEED]
    if C.A_FACE <= a < C.A_FACE + 6:
        return f"face {H.DIR_NAMES[a - C.A_FACE]}"
    return name


def race_picture(path, players=4, track=0, seed=0, decisions=120):
    """Play ``decisions`` heuristic decisions of a seeded race (every seat
    the scripted heuristic, cards dealt) and save the picture to ``path``.
    ``python -m dungeonrl.envs.dungeon_kart.render race.png`` makes the
    README picture."""
    from PIL import Image

    from ..core.kernel.rng import rng_seed
    from . import rules as R
    from .content import load_content
    from .policy import policy_row
    from .state import STATE_DTYPE

    ct = load_content()
    ct.check_players(track, players)
    T = ct.record
    s = np.zeros(1, STATE_DTYPE)
    rng_seed(s[0]["rng"], seed, 0)
    s[0]["num_players"] = players
    s[0]["max_steps"] = 10**6
    R.configure_row(s[0], np.array([ct.track_index(track), C.DRAFT_RANDOM, 60], np.int64))
    R.reset_row(s[0], T[0])
    prng = np.array([seed, 0], np.uint64)
    rew = np.zeros(players, np.float32)
    for _ in range(decisions):
        if s[0]["outcome"]:
            break
        R.apply_row(s[0], T[0], policy_row(s[0], T[0], prng), rew)
    Image.fromarray(render_rgb(s[0], ct)).save(path)
    return s


if __name__ == "__main__":  # pragma: no cover
    import sys

    race_picture(sys.argv[1] if len(sys.argv) > 1 else "race.png")
