"""Compile the Dungeon Kart content files (TOML) into numpy tables.

``load_content(folder=None, boards=())`` reads ``tiles.toml``,
``tracks.toml``, ``dashboards.toml``, ``racers.toml``, ``spells.toml`` and
``chance.toml``, validates every field, builds every track (and every custom
text board in ``boards``) and returns a :class:`KartContent` whose ``record``
is ONE structured numpy record: kernels receive ``T = record[0]``.

Malformed content raises :class:`~dungeonrl.envs.core.errors.ContentError`
naming the file, the entry and the field; a track that does not fit together
names the tile and the edge (dead end, unmatched road opening, overlap).

Text maps (tile faces and custom boards): hex ``(q, r)`` is line ``r``,
column ``2 q + r`` (see :mod:`.hexgeo`), one character per hex:

====  ==========================  ====  ===============================
char  hex                         char  hex
====  ==========================  ====  ===============================
``.``  road (1 pip)               ``L``  lava (deadly, lose 1 coin)
``d``  dirt (1 pip)               ``P``  pit (deadly)
``g``  grass (2 pips)             ``X``  obstacle (impassable)
``m``  mud (3 pips)               ``#``  pip-less cut-off hex
``w``  water (3 pips)             ``$``  road with 1 coin
``S``  road with a spellbook      ``!``  road, hazard hex
``1``-``8``  road, start hex      (tile 1 / the first tile only)
====  ==========================  ====  ===============================

A custom board is a few lines of text (:func:`parse_board`)::

    name: Mud Straight
    dir: E
    1 2 . . m . . . .

It is a point-to-point track of one tile whose karts start facing ``dir``
and whose finish line is every edge that leaves the map straight ahead
(or ahead-left) of the ``dir``.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict, deque, namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.authoring.content import (
    CompiledContent,
    Ctx,
    check_fields,
    check_folder,
    folder_digest,
    read_files,
    read_int,
    read_list,
    read_named,
    read_str,
)
from ..core.errors import ContentError
from . import consts as C
from . import hexgeo as H

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
FILES = ("tiles", "tracks", "dashboards", "racers", "spells", "chance", "heroes")
NFACES = 30
_FACE_RE = re.compile(r"^(\d+)([AB])$")

TABLE_FIELDS = (
    # tracks (NT x NCELL)
    "n_tracks",
    "tr_kind",
    "tr_ntiles",
    "tr_nstart",
    "tr_start_dir",
    "tr_terr",
    "tr_coins",
    "tr_spell",
    "tr_haz",
    "tr_start",
    "tr_tile",
    "tr_dist",
    "tr_walls",
    "tr_finish",
    # the encoder's static patch features per (track, cell), float32 (NT x NCELL x HEXF)
    "hex_static",
    # dashboards
    "dash_mp",
    "dash_pen",
    "dash_abil",
    # racers
    "pw_effect",
    "pw_cost",
    "pw_amount",
    # spells
    "n_spell_kinds",
    "sp_effect",
    "sp_timing",
    "sp_target",
    "sp_amount",
    "n_cards",
    "card_kind",
    "card_deck",
    "deck_size",
    # chance
    "smash_eff",
    "smash_amt",
    "boost_face",
    "bag",
    "bag_size",
    # placement
    "place_deck",
    "coin_from",
    # Epic Heroes
    "epic_hit",
    "epic_amt",
    "epic_remove",
    "epic_round",
    "epic_setup",
)
if TYPE_CHECKING:
    # mypy reads only literal field lists, and this one is built from the names
    # above: to it a table set is Any (its numpy arrays are read by name)
    Tables = Any
else:
    Tables = namedtuple("Tables", TABLE_FIELDS)


#: a hex (q, r) in face or board coordinates
Hex = tuple[int, int]


@dataclass
class Face:
    face: str
    name: str
    cells: dict[Hex, str]  # (q, r) -> map char
    in_lanes: list[Hex]
    in_dir: int
    out_lanes: list[Hex]
    out_dir: int
    coins: dict[Hex, int] = field(default_factory=dict)  # (q, r) -> coin count override
    walls: list[tuple[int, int, int]] = field(default_factory=list)  # (q, r, d)
    file: str = "tiles"


@dataclass
class Track:
    name: str
    kind: int
    tiles: tuple  # faces in race order
    cells: dict  # (q, r) board coords -> (route tile index, char, coins)
    walls: set  # (q, r, d) walls (both sides)
    finish: set  # (q, r, d) finish-line edges
    start_dir: int
    dist: dict  # (q, r) -> hex steps to cross its tile's exit edge
    rotations: tuple
    offset: tuple = (0, 0)  # added to (q, r) to get the board cell (set when compiled)


@dataclass
class KartContent(CompiledContent):
    faces: dict
    tracks: tuple
    track_names: tuple
    dashboard_names: tuple
    dashboard_text: tuple
    racer_names: tuple
    power_text: tuple  # (upper, lower) per racer
    spell_names: tuple
    spell_text: tuple
    hero_names: tuple = ()
    hero_text: tuple = ()

    def track_index(self, name_or_index) -> int:
        if isinstance(name_or_index, (bool, np.bool_)) or not isinstance(
            name_or_index, (str, int, np.integer)
        ):
            raise TypeError(
                f"track must be a track name, a track index or the text of a "
                f"custom board, got {type(name_or_index).__name__} "
                f"{name_or_index!r}"[:200]
            )
        if isinstance(name_or_index, (int, np.integer)):
            if not 0 <= int(name_or_index) < len(self.track_names):
                raise ContentError(
                    f"track index {name_or_index} out of range 0..{len(self.track_names) - 1}"
                )
            return int(name_or_index)
        if name_or_index not in self.track_names:
            raise ContentError(f"unknown track {name_or_index!r} (known: {list(self.track_names)})")
        return self.track_names.index(name_or_index)

    def check_players(self, track, n: int) -> None:
        """Raise ContentError if ``track`` cannot seat ``n`` players."""
        t = self.track_index(track)
        if not C.MIN_P <= n <= C.MAX_P:
            raise ContentError(f"num_players must be {C.MIN_P}..{C.MAX_P}, got {n}")
        ns = int(self.tables.tr_nstart[t])
        if ns < n:
            raise ContentError(
                f"track {self.track_names[t]!r} has {ns} start hexes, {n} players need {n}"
            )


# --------------------------------------------------------------------------- maps
def parse_map(ctx, text, fld="map", starts_ok=True):
    """Text map -> {(q, r): char}. Errors name the line and column."""
    if not isinstance(text, str) or not text.strip():
        ctx.err(fld, "must be a non-empty text map")
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    cells = {}
    for r, line in enumerate(lines):
        for c, ch in enumerate(line.rstrip()):
            if ch == " ":
                continue
            if ch not in C.MAP_CHARS and not ("1" <= ch <= "8"):
                ctx.err(fld, f"unknown hex character {ch!r} at line {r + 1}, column {c + 1}")
            if (c - r) % 2:
                ctx.err(
                    fld,
                    f"hex {ch!r} at line {r + 1}, column {c + 1} is off the "
                    "honeycomb (line r holds hexes at columns r, r+2, ...)",
                )
            if "1" <= ch <= "8" and not starts_ok:
                ctx.err(fld, f"start hex {ch!r} only allowed on the first tile")
            cells[((c - r) // 2, r)] = ch
    starts = [ch for ch in cells.values() if "1" <= ch <= "8"]
    if len(starts) != len(set(starts)):
        ctx.err(fld, "a start position number appears twice")
    return cells


def _dir(ctx, d, key):
    v = read_str(ctx, d, key, H.DIR_NAMES)
    return H.DIR_NAMES.index(v)


def _cells_list(ctx, d, key, cells, width=None):
    lst = read_list(ctx, d, key)
    out = []
    for i, v in enumerate(lst):
        if (
            not isinstance(v, list)
            or len(v) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in v)
        ):
            ctx.err(key, f"entry {i + 1} must be [q, r], got {v!r}")
        p = (v[0], v[1])
        if p not in cells:
            ctx.err(key, f"hex {list(p)} is not on the map")
        if C.TERRAIN_PIPS[C.MAP_CHARS.get(cells[p], C.T_ROAD)] == 0:
            ctx.err(key, f"road opening hex {list(p)} is not drivable")
        out.append(p)
    if not out:
        ctx.err(key, "needs at least one lane")
    return out


def _face(ctx, d, file="tiles"):
    check_fields(
        ctx, d, ("face", "name", "in", "in_dir", "out", "out_dir", "map", "coins", "walls")
    )
    face = read_str(ctx, d, "face")
    ctx.entry = f"tile {face}"
    name = read_str(ctx, d, "name", default=face)
    cells = parse_map(ctx, d.get("map"))
    f = Face(
        face,
        name,
        cells,
        _cells_list(ctx, d, "in", cells),
        _dir(ctx, d, "in_dir"),
        _cells_list(ctx, d, "out", cells),
        _dir(ctx, d, "out_dir"),
        file=file,
    )
    for i, v in enumerate(d.get("coins", [])):
        if (
            not isinstance(v, list)
            or len(v) != 3
            or (v[0], v[1]) not in cells
            or not isinstance(v[2], int)
            or not 1 <= v[2] <= 9
        ):
            ctx.err("coins", f"entry {i + 1} must be [q, r, 1..9] on the map, got {v!r}")
        f.coins[(v[0], v[1])] = v[2]
    for i, v in enumerate(d.get("walls", [])):
        if (
            not isinstance(v, list)
            or len(v) != 3
            or (v[0], v[1]) not in cells
            or v[2] not in H.DIR_NAMES
        ):
            ctx.err("walls", f"entry {i + 1} must be [q, r, side] on the map, got {v!r}")
        f.walls.append((v[0], v[1], H.DIR_NAMES.index(v[2])))
    return f


def _tiles(raw):
    ctx = Ctx("tiles")
    check_fields(ctx, raw, ("tile",))
    lst = read_list(ctx, raw, "tile")
    faces = {}
    for i, d in enumerate(lst):
        ctx.entry = f"tile #{i + 1}"
        if not isinstance(d, dict):
            ctx.err("tile", "must be a table")
        f = _face(ctx, d)
        m = _FACE_RE.match(f.face)
        if not m or not 1 <= int(m.group(1)) <= NFACES // 2:
            ctx.err("face", f"must be 1A..{NFACES // 2}B, got {f.face!r}")
        if f.face in faces:
            ctx.err("face", "duplicate face")
        starts = sorted(ch for ch in f.cells.values() if "1" <= ch <= "8")
        if m.group(1) == "1" and starts != [str(k) for k in range(1, 9)]:
            ctx.err("map", "the Starting Line tile needs start hexes 1..8")
        if m.group(1) != "1" and starts:
            ctx.err("map", "start hexes belong on tile 1 only")
        check_face(ctx, f)
        faces[f.face] = f
    ctx.entry = None
    if len(faces) != NFACES:
        ctx.err("tile", f"need all {NFACES} faces (1A..15B), got {len(faces)}")
    return faces


def check_face(ctx, f):
    """Every drivable hex of a face must reach its exit edge (no dead-end
    pockets), whether or not a track uses the face."""
    cells = {p: (0, ch, 0) for p, ch in f.cells.items()}
    walls = set()
    for q, r in cells:
        for d in range(6):
            if H.neighbour(q, r, d) not in cells:
                walls.add((q, r, d))
    for q, r, d in f.walls:
        walls.add((q, r, d))
        n = H.neighbour(q, r, d)
        walls.add((n[0], n[1], H.opposite(d)))
    dist = _tile_dist(cells, walls, 0, f.out_lanes)
    for p, ch in sorted(f.cells.items(), key=lambda x: (x[0][1], x[0][0])):
        if _drivable(ch) and p not in dist:
            ctx.err("map", f"dead end: hex {list(p)} cannot reach the exit edge")


# --------------------------------------------------------------------------- builder
def _place(k: int, t: Hex) -> Callable[[Hex], Hex]:
    """Map from face coords to board coords: rotation k, then translation t."""

    def tr(p: Hex) -> Hex:
        q, r = H.rotate(p[0], p[1], k)
        return q + t[0], r + t[1]

    return tr


def _check_track_tiles(ctx: Ctx, faces: Mapping[str, Face], face_ids: Sequence[str]) -> Face:
    """The tile list of a track names known faces, starts on a Starting Line
    tile and lays each physical tile once; returns the first tile's face."""
    if not face_ids:
        ctx.err("tiles", "needs at least one tile")
    for fid in face_ids:
        if fid not in faces:
            ctx.err("tiles", f"unknown tile face {fid!r}")
    first = faces[face_ids[0]]
    if not any("1" <= ch <= "8" for ch in first.cells.values()):
        ctx.err(
            "tiles", f"the first tile ({face_ids[0]}) must be a Starting Line tile with start hexes"
        )
    used: dict[str, str] = {}  # physical tile -> the face of it in the track
    for fid in face_ids:
        m = _FACE_RE.match(fid)
        key = m.group(1) if m else fid
        if key in used:
            ctx.err(
                "tiles",
                f"tile {fid} is used twice (already as {used[key]}): "
                "each physical tile has one face up",
            )
        used[key] = fid
    return first


def _join_roads(joins: set, out_lanes, out_place, in_lanes, in_place) -> list:
    """Add to ``joins`` both sides of every edge where an exit lane of one
    tile (its hexes placed by ``out_place``) meets an entry lane of the
    next (placed by ``in_place``); returns the exit side of each, ``(hex,
    d)``."""
    found = []
    for a in out_lanes:
        for b in in_lanes:
            d = H.dir_between(out_place(a), in_place(b))
            if d is not None:
                joins.add((out_place(a), d))
                joins.add((in_place(b), H.opposite(d)))
                found.append((out_place(a), d))
    return found


def build_track(
    name: str,
    kind: int,
    faces: Mapping[str, Face],
    face_ids: Sequence[str],
    rots: Sequence[int | None] | None = None,
    file: str = "tracks",
) -> Track:
    """Assemble tiles into a :class:`Track` (see module doc); raises
    ContentError naming the tile and the edge on a bad fit."""
    ctx = Ctx(file)
    # a content track is assembled from the faces of tiles.toml: a bad fit may
    # come from either file, so the message names both
    ctx.entry = f"track '{name}'" + (" (tile faces of tiles.toml)" if file == "tracks" else "")
    first = _check_track_tiles(ctx, faces, face_ids)
    cells: dict[Hex, tuple[int, str, int]] = {}  # board hex -> (route tile, char, coins)
    walls: set[tuple[int, int, int]] = set()  # (q, r, d)
    joins: set[tuple[Hex, int]] = set()  # (hex, d): edges that join two tiles' roads
    rotations: list[int] = []
    exits: list[list[Hex]] = []  # per route tile its exit lanes on the board
    prev: tuple[Face, Callable[[Hex], Hex], int] | None = None  # (face, placement, k)
    for i, fid in enumerate(face_ids):
        f = faces[fid]
        if prev is None:
            k, t = 0, (0, 0)
        else:
            pf, ptr, pk = prev
            pdir = (pf.out_dir + pk) % 6
            k = (pdir - f.in_dir) % 6
            if len(f.in_lanes) != len(pf.out_lanes):
                ctx.err(
                    "tiles",
                    f"unmatched road opening: tile {fid}'s entry edge has "
                    f"{len(f.in_lanes)} lanes but tile {pf.face}'s exit edge "
                    f"has {len(pf.out_lanes)}",
                )
            want = H.neighbour(*ptr(pf.out_lanes[0]), pdir)
            q0, r0 = H.rotate(*f.in_lanes[0], k)
            t = (want[0] - q0, want[1] - r0)
        if rots is not None and rots[i] is not None and rots[i] != k:
            ctx.err(
                "rot",
                f"tile {fid} must be turned {k} sixths to join its "
                f"neighbour, the track says {rots[i]}",
            )
        tr = _place(k, t)
        if prev is not None:
            pf, ptr, pk = prev
            pdir = (pf.out_dir + pk) % 6
            for j, (a, b) in enumerate(zip(pf.out_lanes, f.in_lanes)):
                if H.neighbour(*ptr(a), pdir) != tr(b):
                    ctx.err(
                        "tiles",
                        f"unmatched road opening: lane {j + 1} of tile {fid}'s "
                        f"entry edge ({H.DIR_NAMES[(f.in_dir + k) % 6]} side "
                        f"of hex {list(b)}) does not meet tile {pf.face}'s "
                        f"exit edge",
                    )
            _join_roads(joins, pf.out_lanes, ptr, f.in_lanes, tr)
        for p, ch in f.cells.items():
            g = tr(p)
            if g in cells:
                ctx.err(
                    "tiles",
                    f"overlap: tile {fid} hex {list(p)} lands on tile "
                    f"{face_ids[cells[g][0]]} at board hex {list(g)}",
                )
            cells[g] = (i, ch, f.coins.get(p, 1 if ch == "$" else 0))
        for q, r, d in f.walls:
            g = tr((q, r))
            dd = (d + k) % 6
            walls.add((g[0], g[1], dd))
            n = H.neighbour(g[0], g[1], dd)
            walls.add((n[0], n[1], H.opposite(dd)))
        rotations.append(k)
        exits.append([tr(a) for a in f.out_lanes])
        prev = (f, tr, k)
    assert prev is not None  # face_ids is not empty (checked above)
    lf, ltr, lk = prev
    ldir = (lf.out_dir + lk) % 6
    finish = set()
    if kind == C.TR_CIRCUIT:
        f0 = faces[face_ids[0]]
        tr0 = _place(0, (0, 0))
        if len(lf.out_lanes) != len(f0.in_lanes) or any(
            H.neighbour(*ltr(a), ldir) != tr0(b) for a, b in zip(lf.out_lanes, f0.in_lanes)
        ):
            ctx.err(
                "tiles",
                f"dead end: the exit edge of the last tile {lf.face} "
                f"({H.DIR_NAMES[ldir]}) does not join back onto tile "
                f"{f0.face}'s entry edge, so the circuit is not closed",
            )
        for (q, r), d in _join_roads(joins, lf.out_lanes, ltr, f0.in_lanes, tr0):
            finish.add((q, r, d))
    else:
        for a in lf.out_lanes:
            for d in (ldir, H.left(ldir)):
                n = H.neighbour(*ltr(a), d)
                if n in cells:
                    if d == ldir:
                        ctx.err(
                            "tiles",
                            f"dead end: the finish edge of the last tile "
                            f"{lf.face} runs into board hex {list(n)}",
                        )
                    continue
                finish.add((ltr(a)[0], ltr(a)[1], d))
    # walls: every edge to a non-track hex, or between tiles away from a join
    for (q, r), (ti, _ch, _) in cells.items():
        for d in range(6):
            n = H.neighbour(q, r, d)
            if (q, r, d) in finish:
                continue
            if n not in cells:
                walls.add((q, r, d))
            elif cells[n][0] != ti and ((q, r), d) not in joins:
                walls.add((q, r, d))
    # every drivable hex must reach its tile's exit (no dead-end pockets)
    dist = {}
    for i, fid in enumerate(face_ids):
        di = _tile_dist(cells, walls, i, exits[i])
        for g, (ti, ch, _) in cells.items():
            if ti == i and _drivable(ch) and g not in di:
                ctx.err(
                    "tiles",
                    f"dead end: tile {fid} has a hex (board {list(g)}) from "
                    "which its exit edge cannot be reached",
                )
        dist.update(di)
    return Track(
        name, kind, tuple(face_ids), cells, walls, finish, first.in_dir % 6, dist, tuple(rotations)
    )


def _drivable(ch):
    return C.TERRAIN_PIPS[C.MAP_CHARS.get(ch, C.T_ROAD)] > 0


def _tile_dist(cells, walls, i, exits):
    """Hex steps from each drivable hex of route tile i to cross its exit edge."""
    dist: dict[Hex, int] = {}
    dq: deque[Hex] = deque()
    for g in exits:
        dist[g] = 1
        dq.append(g)
    while dq:
        g = dq.popleft()
        for d in range(6):
            if (g[0], g[1], d) in walls:
                continue
            n = H.neighbour(g[0], g[1], d)
            if n in cells and cells[n][0] == i and n not in dist and _drivable(cells[n][1]):
                dist[n] = dist[g] + 1
                dq.append(n)
    return dist


def parse_board(text, name=None, file="board"):
    """A custom one-tile sprint board from a few lines of text: optional
    ``key: value`` header lines (``name``, ``dir`` = the start facing, E by
    default) then the text map. Returns the :class:`Face` and track name."""
    ctx = Ctx(file)
    ctx.entry = "board"
    hdr: dict[str, str] = {"dir": "E"}
    body: list[str] = []
    for line in text.split("\n"):
        m = re.match(r"^\s*(name|dir)\s*:\s*(.+?)\s*$", line)
        if m and not body:
            hdr[m.group(1)] = m.group(2)
        elif line.strip() or body:
            body.append(line)
    if hdr["dir"] not in H.DIR_NAMES:
        ctx.err("dir", f"must be one of {list(H.DIR_NAMES)}, got {hdr['dir']!r}")
    d = H.DIR_NAMES.index(hdr["dir"])
    tname = name or hdr.get("name") or "Custom Board"
    ctx.entry = f"board '{tname}'"
    cells = parse_map(ctx, "\n".join(body))
    if not any("1" <= ch <= "8" for ch in cells.values()):
        ctx.err("map", "needs start hexes 1, 2, ... (one per player)")
    starts = sorted(int(ch) for ch in cells.values() if "1" <= ch <= "8")
    if starts != list(range(1, len(starts) + 1)):
        ctx.err("map", f"start hexes must be numbered 1..n without gaps, got {starts}")
    # exit lanes: drivable hexes whose neighbour straight ahead is off the map
    out = sorted(
        (p for p, ch in cells.items() if _drivable(ch) and H.neighbour(p[0], p[1], d) not in cells),
        key=lambda p: (p[1], p[0]),
    )
    if not out:
        ctx.err("map", f"no hex has an open edge facing {hdr['dir']} for the finish line")
    first = min(cells, key=lambda p: (p[1], p[0]))
    f = Face(tname, tname, cells, [first], d, out, d, file=file)
    return f, tname


def _tracks(raw, faces, boards):
    ctx = Ctx("tracks")
    check_fields(ctx, raw, ("track",))
    lst = read_list(ctx, raw, "track")
    tracks: list[Track] = []
    for i, d in enumerate(lst):
        name = read_named(ctx, d, i, "track", ("name", "kind", "tiles", "rot"))
        kind = C.TRACK_KINDS.index(read_str(ctx, d, "kind", C.TRACK_KINDS))
        ids = read_list(ctx, d, "tiles")
        if not 1 <= len(ids) <= C.MAX_TILES or not all(isinstance(x, str) for x in ids):
            ctx.err("tiles", f"must list 1..{C.MAX_TILES} tile faces")
        rots = d.get("rot")
        if rots is not None and (not isinstance(rots, list) or len(rots) != len(ids)):
            ctx.err("rot", "must give one rotation (0-5) per tile")
        if any(t.name == name for t in tracks):
            ctx.err("name", "duplicate track name")
        tracks.append(build_track(name, kind, faces, ids, rots))
    if not tracks or tracks[0].name != "Beginner Track":
        ctx.entry = None
        ctx.err("track", "the first track must be the 'Beginner Track'")
    kinds = {t.kind for t in tracks}
    if kinds != {C.TR_CIRCUIT, C.TR_SPRINT}:
        ctx.entry = None
        ctx.err("kind", "ship at least one circuit and one sprint track")
    for text in boards:
        f, tname = parse_board(text)
        if any(t.name == tname for t in tracks):
            bctx = Ctx("board")
            bctx.entry = f"board '{tname}'"
            bctx.err(
                "name",
                f"{tname!r} is already the name of a track of the content: give "
                "the board its own name (a 'name: ...' line)",
            )
        tracks.append(build_track(tname, C.TR_SPRINT, {tname: f}, [tname], file="board"))
    if len(tracks) > C.MAX_TRACKS:
        raise ContentError(f"at most {C.MAX_TRACKS} tracks, got {len(tracks)}")
    return tracks


def _compile_tracks(tracks, t):
    NT, N = C.MAX_TRACKS, H.NCELL
    for k, dt in (
        ("tr_terr", np.int8),
        ("tr_coins", np.int8),
        ("tr_spell", np.int8),
        ("tr_haz", np.int8),
        ("tr_start", np.int8),
        ("tr_walls", np.uint8),
        ("tr_finish", np.uint8),
    ):
        t[k] = np.zeros((NT, N), dt)
    t["tr_tile"] = np.full((NT, N), -1, np.int8)
    t["tr_dist"] = np.zeros((NT, N), np.int16)
    for k in ("tr_kind", "tr_ntiles", "tr_nstart", "tr_start_dir"):
        t[k] = np.zeros(NT, np.int8)
    t["n_tracks"] = len(tracks)
    for ti, tr in enumerate(tracks):
        qs = [q for q, r in tr.cells]
        rs = [r for q, r in tr.cells]
        oq, orr = 1 - min(qs), 1 - min(rs)
        if max(qs) + oq >= H.BOARD_W - 1 or max(rs) + orr >= H.BOARD_H - 1:
            raise ContentError(
                f"track '{tr.name}': {max(qs) - min(qs) + 1} x "
                f"{max(rs) - min(rs) + 1} hexes do not fit the "
                f"{H.BOARD_W - 2} x {H.BOARD_H - 2} board"
            )
        tr.offset = (oq, orr)

        def cell(q, r, oq=oq, orr=orr):
            return (r + orr) * H.BOARD_W + (q + oq)

        for (q, r), (rt, ch, coins) in tr.cells.items():
            c = cell(q, r)
            t["tr_terr"][ti, c] = C.MAP_CHARS.get(ch, C.T_ROAD)
            t["tr_coins"][ti, c] = coins
            t["tr_spell"][ti, c] = ch == "S"
            t["tr_haz"][ti, c] = ch == "!"
            t["tr_start"][ti, c] = int(ch) if "1" <= ch <= "8" else 0
            t["tr_tile"][ti, c] = rt
            t["tr_dist"][ti, c] = tr.dist.get((q, r), 999)
        for q, r, d in tr.walls:
            if (q, r) in tr.cells:
                t["tr_walls"][ti, cell(q, r)] |= 1 << d
        for q, r, d in tr.finish:
            t["tr_finish"][ti, cell(q, r)] |= 1 << d
        t["tr_kind"][ti] = tr.kind
        t["tr_ntiles"][ti] = len(tr.tiles)
        t["tr_nstart"][ti] = int((t["tr_start"][ti] > 0).sum())
        t["tr_start_dir"][ti] = tr.start_dir
    from ...encoders.dungeon_kart import static_hex_table  # the encoder imports this package

    t["hex_static"] = static_hex_table(
        t["tr_terr"],
        t["tr_walls"],
        t["tr_coins"],
        t["tr_spell"],
        t["tr_haz"],
        t["tr_finish"],
        t["tr_tile"],
        t["tr_dist"],
        t["tr_ntiles"],
    )


def _dashboards(raw, t, names, texts):
    ctx = Ctx("dashboards")
    check_fields(ctx, raw, ("dashboard",))
    lst = read_list(ctx, raw, "dashboard", C.NDASH)
    t["dash_mp"] = np.zeros((C.NDASH, C.NSET), np.int8)
    t["dash_pen"] = np.zeros((C.NDASH, C.NTERR), np.int8)
    t["dash_abil"] = np.zeros(C.NDASH, np.int8)
    for i, d in enumerate(lst):
        name = read_named(ctx, d, i, "dashboard", ("name", "mp", "penalty", "abilities"), names)
        mp = read_list(ctx, d, "mp", C.NSET)
        for v in mp:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 20:
                ctx.err("mp", f"entries must be integers 1..20, got {v!r}")
        if any(b < a for a, b in zip(mp, mp[1:])):
            ctx.err("mp", "MP must not fall from setting 1 to setting 6")
        ab = read_list(ctx, d, "abilities", 2)
        for a in ab:
            if a not in C.ABILITY_NAMES:
                ctx.err("abilities", f"unknown ability {a!r} (known: {list(C.ABILITY_NAMES)})")
        if ab[0] == ab[1]:
            ctx.err("abilities", "the two abilities must differ")
        bits = sum(1 << C.ABILITY_NAMES.index(a) for a in ab)
        pen = d.get("penalty")
        if not isinstance(pen, dict):
            ctx.err("penalty", "must be a table")
        check_fields(ctx, pen, C.PENALTY_TERRAINS)
        pv = {k: read_int(ctx, pen, k, lo=0, hi=C.NSET) for k in C.PENALTY_TERRAINS}
        off = "off_road" in ab
        if pv["grass"] != (4 if off else 3):
            ctx.err(
                "penalty",
                f"grass marker must be at setting {4 if off else 3} "
                f"({'with' if off else 'without'} Off-Road)",
            )
        if off != (pv["dirt"] == 0):
            ctx.err("penalty", "only an Off-Road kart has no dirt marker")
        if (
            not 1 <= pv["mud"] <= pv["grass"]
            or not 1 <= pv["water"] <= pv["grass"]
            or (pv["dirt"] and pv["dirt"] < pv["grass"])
        ):
            ctx.err("penalty", "markers must order mud/water <= grass <= dirt")
        t["dash_mp"][i] = mp
        for k, v in pv.items():
            t["dash_pen"][i, C.TERRAIN_NAMES.index(k)] = v
        t["dash_abil"][i] = bits
        names.append(name)
        texts.append(f"{name}: MP {mp}, {', '.join(ab)}")
    ctx.entry = None
    mp, ab = t["dash_mp"], t["dash_abil"]
    acc = [(ab[i] >> C.AB_ACCEL) & 1 for i in range(C.NDASH)]
    top = [(ab[i] >> C.AB_TOP) & 1 for i in range(C.NDASH)]
    for cols, flags, nm in (((1, 2), acc, "acceleration"), ((3, 4, 5), top, "top_speed")):
        hi = [i for i in range(C.NDASH) if flags[i]]
        lo = [i for i in range(C.NDASH) if not flags[i]]
        for c in cols:
            if hi and lo and min(mp[i, c] for i in hi) <= max(mp[i, c] for i in lo):
                ctx.err(
                    "mp",
                    f"every {nm} kart needs more MP at setting {c + 1} than every kart without it",
                )
    for a in range(6):
        if not any((ab[i] >> a) & 1 for i in range(C.NDASH)):
            ctx.err("abilities", f"no dashboard has {C.ABILITY_NAMES[a]}")


def _racers(raw, t, names, texts):
    ctx = Ctx("racers")
    check_fields(ctx, raw, ("racer",))
    lst = read_list(ctx, raw, "racer", C.NRACER)
    t["pw_effect"] = np.zeros((C.NRACER, 2), np.int8)
    t["pw_cost"] = np.zeros((C.NRACER, 2), np.int8)
    t["pw_amount"] = np.zeros((C.NRACER, 2), np.int8)
    for i, d in enumerate(lst):
        name = read_named(ctx, d, i, "racer", ("name", "upper", "lower"), names)
        tx = []
        for w, key in enumerate(("upper", "lower")):
            p = d.get(key)
            if not isinstance(p, dict):
                ctx.err(key, "must be a table")
            check_fields(ctx, p, ("effect", "cost", "amount", "text"))
            eff = C.POWER_NAMES.index(read_str(ctx, p, "effect", C.POWER_NAMES))
            cost = read_int(ctx, p, "cost", lo=1, hi=9)
            std = 2 + w
            if name == "Klonos":
                if cost <= std:
                    ctx.err(key, f"Klonos pays more than {std} coins")
            elif cost != std:
                ctx.err(key, f"the {key} power costs {std} coins, got {cost}")
            need_amt = eff in (C.PW_GAIN_MP, C.PW_SPIN_NEAR, C.PW_STEAL)
            amt = read_int(ctx, p, "amount", default=None if need_amt else 0, lo=0, hi=9)
            if need_amt and amt < 1:
                ctx.err("amount", "must be >= 1")
            tx.append(read_str(ctx, p, "text"))
            t["pw_effect"][i, w], t["pw_cost"][i, w], t["pw_amount"][i, w] = eff, cost, amt
        names.append(name)
        texts.append(tuple(tx))
    ctx.entry = None
    for need in ("King Croak", "Belladonna", "Porkus", "Gorgona", "Klonos"):
        if need not in names:
            ctx.err("racer", f"the rulebook's racer {need!r} is missing")
    effs = set(t["pw_effect"].ravel().tolist())
    for e in (C.PW_EXTRA_TURN, C.PW_EXTRA_DRIFT, C.PW_SPEED_UP):
        if e not in effs:
            ctx.err("effect", f"some racer must have the {C.POWER_NAMES[e]} power")
    croak = names.index("King Croak")
    if t["pw_effect"][croak, 1] != C.PW_SPEED_UP:
        ctx.err("lower", "King Croak's lower power raises his speed a second time")


def _spells(raw, t, names, texts):
    ctx = Ctx("spells")
    check_fields(ctx, raw, ("spell",))
    lst = read_list(ctx, raw, "spell")
    if not 1 <= len(lst) <= C.MAX_SPELL_KINDS:
        ctx.err("spell", f"need 1..{C.MAX_SPELL_KINDS} spells")
    S = C.MAX_SPELL_KINDS
    for k in ("sp_effect", "sp_timing", "sp_target", "sp_amount"):
        t[k] = np.zeros(S, np.int8)
    t["card_kind"] = np.full(C.MAX_CARDS, -1, np.int8)
    t["card_deck"] = np.full(C.MAX_CARDS, -1, np.int8)
    t["deck_size"] = np.zeros(C.NDECK, np.int8)
    n = 0
    fields = ("name", "effect", "amount", "timing", "target", "text", "copies")
    for i, d in enumerate(lst):
        name = read_named(ctx, d, i, "spell", fields, names)
        eff = read_str(ctx, d, "effect", C.SPELL_EFFECTS)
        e = C.SPELL_EFFECTS.index(eff)
        amt = read_int(ctx, d, "amount", default=None if eff in C.SPELL_AMOUNT else 0, lo=0, hi=9)
        timing = C.TIMING_NAMES.index(read_str(ctx, d, "timing", C.TIMING_NAMES))
        target = read_str(ctx, d, "target", ("opponent", "none"))
        if (e == C.SP_FREEZE) != (timing == C.TM_ROUND):
            ctx.err("timing", "Freeze, and only Freeze, is cast at the start of the round")
        if (e == C.SP_TAILWIND) != (timing == C.TM_TURN):
            ctx.err("timing", "tailwind spells, and only they, are cast at the start of the turn")
        wants = e in (C.SP_FREEZE, C.SP_FIREBALL, C.SP_ZOMBIE, C.SP_GRASS)
        if wants != (target == "opponent"):
            ctx.err("target", f"effect '{eff}' needs target = {'opponent' if wants else 'none'}")
        cp = d.get("copies")
        if not isinstance(cp, dict) or not cp:
            ctx.err("copies", "must be a table like { A = 2 }")
        check_fields(ctx, cp, C.DECK_NAMES)
        for dk, letter in enumerate(C.DECK_NAMES):
            c = read_int(ctx, cp, letter, default=0, lo=0, hi=C.DECK_MAX)
            for _ in range(c):
                if n >= C.MAX_CARDS:
                    ctx.err("copies", f"at most {C.MAX_CARDS} spell cards in all")
                t["card_kind"][n], t["card_deck"][n] = i, dk
                t["deck_size"][dk] += 1
                n += 1
        t["sp_effect"][i], t["sp_timing"][i] = e, timing
        t["sp_target"][i], t["sp_amount"][i] = target == "opponent", amt
        names.append(name)
        texts.append(read_str(ctx, d, "text"))
    ctx.entry = None
    for dk in range(C.NDECK):
        if not 1 <= t["deck_size"][dk] <= C.DECK_MAX:
            ctx.err("copies", f"deck {C.DECK_NAMES[dk]} needs 1..{C.DECK_MAX} cards")
    for need in ("Freeze", "Fireball", "Zombie Attack"):
        if need not in names:
            ctx.err("spell", f"the rulebook's spell {need!r} is missing")
    t["n_spell_kinds"] = len(lst)
    t["n_cards"] = n


def _chance(raw, t):
    ctx = Ctx("chance")
    check_fields(ctx, raw, ("smash", "boost", "bag", "placement", "setup"))
    sm = read_list(ctx, raw, "smash", 6)
    t["smash_eff"] = np.zeros(6, np.int8)
    t["smash_amt"] = np.zeros(6, np.int8)
    kinds = set()
    for i, f in enumerate(sm):
        ctx.entry = f"smash face {i + 1}"
        if not isinstance(f, dict):
            ctx.err("smash", "must be a table")
        check_fields(ctx, f, ("effect", "amount"))
        e = C.SMASH_EFFECTS.index(read_str(ctx, f, "effect", C.SMASH_EFFECTS))
        need = e in (C.SM_COINS, C.SM_MP)
        a = read_int(ctx, f, "amount", default=None if need else 0, lo=-5, hi=9)
        t["smash_eff"][i], t["smash_amt"][i] = e, a
        kinds.add("good" if (need and a > 0) else "bad")
    ctx.entry = None
    if kinds != {"good", "bad"}:
        ctx.err("smash", "the Smash die needs both rewards and punishments")
    bo = read_list(ctx, raw, "boost", 6)
    for v in bo:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 4:
            ctx.err("boost", f"faces must be integers 1..4, got {v!r}")
    t["boost_face"] = np.array(bo, np.int8)
    bag = raw.get("bag")
    if not isinstance(bag, dict):
        ctx.err("bag", "must be a table")
    ctx.entry = "bag"
    check_fields(ctx, bag, C.BAG_TOKENS)
    toks = []
    for name in C.BAG_TOKENS:
        toks += [C.TOKEN_NAMES.index(name)] * read_int(ctx, bag, name, lo=0, hi=20)
    if not 1 <= len(toks) <= C.BAG_MAX:
        ctx.err("bag", f"the bag holds 1..{C.BAG_MAX} tokens, got {len(toks)}")
    t["bag"] = np.zeros(C.BAG_MAX, np.int8)
    t["bag"][: len(toks)] = toks
    t["bag_size"] = len(toks)
    ctx.entry = None
    pl = read_list(ctx, raw, "placement")
    t["place_deck"] = np.full((C.MAX_P + 1, C.MAX_P), -1, np.int8)
    for i, b in enumerate(pl):
        ctx.entry = f"placement board #{i + 1}"
        check_fields(ctx, b, ("players", "decks"))
        decks = read_list(ctx, b, "decks")
        if any(x not in C.DECK_NAMES for x in decks):
            ctx.err("decks", f"letters must be A, B or C, got {decks}")
        idx = [C.DECK_NAMES.index(x) for x in decks]
        if idx != sorted(idx):
            ctx.err("decks", "letters may not fall from spot 1 backwards (leaders get A)")
        for n in read_list(ctx, b, "players"):
            if not isinstance(n, int) or not C.MIN_P <= n <= C.MAX_P:
                ctx.err("players", f"player counts are {C.MIN_P}..{C.MAX_P}, got {n!r}")
            if n > len(decks):
                ctx.err("decks", f"{n} players need {n} spots")
            if t["place_deck"][n, 0] >= 0:
                ctx.err("players", f"{n} players already have a board")
            t["place_deck"][n, :n] = idx[:n]
    ctx.entry = None
    for n in range(C.MIN_P, C.MAX_P + 1):
        if t["place_deck"][n, 0] < 0:
            ctx.err("placement", f"no placement board for {n} players")
    su = raw.get("setup", {})
    ctx.entry = "setup"
    check_fields(ctx, su, ("coin_from_position",))
    t["coin_from"] = read_int(ctx, su, "coin_from_position", lo=1, hi=9)


def _heroes(raw, t, names, texts):
    ctx = Ctx("heroes")
    check_fields(ctx, raw, ("hero",))
    lst = read_list(ctx, raw, "hero", C.NEPIC)
    for k in ("epic_hit", "epic_amt", "epic_remove", "epic_round", "epic_setup"):
        t[k] = np.zeros(C.NEPIC, np.int8)
    fields = ("name", "hit", "amount", "remove", "round_end", "setup", "text")
    for i, d in enumerate(lst):
        name = read_named(ctx, d, i, "hero", fields, names)
        hit = C.EPIC_HIT.index(read_str(ctx, d, "hit", C.EPIC_HIT))
        need = hit in (C.EH_ROB, C.EH_GIFT)
        t["epic_amt"][i] = read_int(ctx, d, "amount", default=None if need else 0, lo=0, hi=5)
        if need and t["epic_amt"][i] < 1:
            ctx.err("amount", "must be >= 1")
        rm = d.get("remove")
        if not isinstance(rm, bool):
            ctx.err("remove", f"must be true or false, got {rm!r}")
        t["epic_hit"][i], t["epic_remove"][i] = hit, rm
        t["epic_round"][i] = C.EPIC_ROUND.index(
            read_str(ctx, d, "round_end", C.EPIC_ROUND, default="none")
        )
        t["epic_setup"][i] = C.EPIC_SETUP.index(
            read_str(ctx, d, "setup", C.EPIC_SETUP, default="none")
        )
        names.append(name)
        texts.append(read_str(ctx, d, "text"))
    # every Epic Hero token goes into the hazard bag (DK-027)
    n = int(t["bag_size"])
    if n + C.NEPIC > C.BAG_MAX:
        raise ContentError(
            f"chance.toml, bag: {n} tokens plus {C.NEPIC} Epic Heroes exceed {C.BAG_MAX}"
        )
    t["bag"][n : n + C.NEPIC] = np.arange(C.K_EPIC0, C.K_EPIC0 + C.NEPIC)
    t["bag_size"] = n + C.NEPIC


def compile_content(raw, boards=()):
    t: dict[str, Any] = {}  # table name -> numpy array (or a size)
    faces = _tiles(raw["tiles"])
    tracks = _tracks(raw["tracks"], faces, boards)
    _compile_tracks(tracks, t)
    # names and texts of the dashboards, racers, spells and heroes, by KartContent field
    out: dict[str, list[str]] = {
        k: []
        for k in (
            "dashboard_names",
            "dashboard_text",
            "racer_names",
            "power_text",
            "spell_names",
            "spell_text",
            "hero_names",
            "hero_text",
        )
    }
    _dashboards(raw["dashboards"], t, out["dashboard_names"], out["dashboard_text"])
    _racers(raw["racers"], t, out["racer_names"], out["power_text"])
    _spells(raw["spells"], t, out["spell_names"], out["spell_text"])
    _chance(raw["chance"], t)
    _heroes(raw["heroes"], t, out["hero_names"], out["hero_text"])
    hz = max(int(t["tr_haz"][i].sum()) for i in range(len(tracks)))
    if hz > t["bag_size"]:
        raise ContentError(
            f"chance.toml, bag: {t['bag_size']} tokens cannot fill the "
            f"{hz} hazard hexes of the largest track"
        )
    return Tables(**t), faces, tracks, out


#: how many compiled contents (a folder plus its custom boards) stay cached;
#: each holds every track's tables (about 4 MB), so a program that builds
#: envs over many distinct custom boards keeps at most this many alive
#: beyond the ones its envs still hold (least recently used dropped first)
CACHE_SIZE = 8
_CACHE: OrderedDict = OrderedDict()


def load_content(folder=None, boards=()) -> KartContent:
    """Load and compile a content folder (default: the shipped data) plus
    custom text boards (strings, see :func:`parse_board`), appended as the
    last tracks. Compiled content is cached (the :data:`CACHE_SIZE` most
    recently used), keyed by the files' bytes and the board texts."""
    folder = os.path.abspath(check_folder(folder, DATA_DIR))
    if isinstance(boards, str) or not all(isinstance(b, str) for b in boards):
        raise TypeError(f"boards must be a sequence of board texts (str), got {boards!r}"[:200])
    # keyed by the files' bytes too: an edited folder is validated again
    key = (folder, tuple(boards), folder_digest(folder, FILES))
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    tables, faces, tracks, o = compile_content(read_files(folder, FILES), tuple(boards))
    content = KartContent.compiled(
        tables,
        folder,
        faces=faces,
        tracks=tuple(tracks),
        track_names=tuple(t.name for t in tracks),
        **{k: tuple(v) for k, v in o.items()},
    )
    _CACHE[key] = content
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return content
