"""Hex geometry of Dungeon Kart, in one place (DK-G01).

Hexes are *pointy-top* and addressed by **axial coordinates** ``(q, r)``:
``q`` grows to the east, ``r`` grows to the south-east. The six facings are
numbered **clockwise as seen on the screen** (y grows downwards), starting
east::

                 NW (4)     NE (5)
                     \\     /
                      \\   /
            W (3) ---- (q,r) ---- E (0)
                      /   \\
                     /     \\
                 SW (2)     SE (1)

    facing  name  (dq, dr)
    0       E     (+1,  0)
    1       SE    ( 0, +1)
    2       SW    (-1, +1)
    3       W     (-1,  0)
    4       NW    ( 0, -1)
    5       NE    (+1, -1)

Fixed left and right: a kart facing ``f`` turns **right** to ``(f + 1) % 6``
and **left** to ``(f + 5) % 6`` (60 degrees each, DK-092). Its
*forward-left* neighbour is the one across side ``left(f)`` and its
*forward-right* neighbour the one across side ``right(f)``: that is where a
Drift (DK-097) or a Bump (DK-104) goes.

Edges: the side of hex ``(q, r)`` across facing ``d`` is edge ``d`` of that
hex; the same edge seen from the neighbour is ``opposite(d) = (d + 3) % 6``.
Walls are stored per hex as a 6-bit mask (bit ``d`` = a wall on edge ``d``),
always on both sides.

Text maps (see ``content.parse_map``) draw the hexes as characters: hex
``(q, r)`` is line ``r`` (from 0), column ``c = 2 * q + r``, so every line is
a honeycomb row and a straight road to the east is one line of characters
two columns apart::

    r=0   . . . M . .        q = 0..5 on line 0
    r=1    . . . . . .       q = 0..5 on line 1 (shifted half a hex)

Rotating the whole plane 60 degrees clockwise maps ``(q, r)`` to
``(-r, q + r)`` and facing ``d`` to ``(d + 1) % 6`` (:func:`rotate`); the
track builder uses it to turn tiles.

The board in a state record is a flat array of ``NCELL = W * H`` cells;
cell ``i`` is ``(q, r) = (i % W, i // W)`` after the track was moved to
non-negative coordinates. Kernels use :data:`DQ` / :data:`DR` and
:func:`neighbour_cell`.
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.jit import JIT, njit

NDIR = 6
E, SE, SW, W, NW, NE = range(6)
DIR_NAMES = ("E", "SE", "SW", "W", "NW", "NE")
DIRS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
DQ = np.array([d[0] for d in DIRS], np.int64)
DR = np.array([d[1] for d in DIRS], np.int64)

#: board size (cells) of every compiled track
BOARD_W = 40
BOARD_H = 40
NCELL = BOARD_W * BOARD_H


def left(d: int) -> int:
    return (d + 5) % 6


def right(d: int) -> int:
    return (d + 1) % 6


def opposite(d: int) -> int:
    return (d + 3) % 6


def neighbour(q: int, r: int, d: int):
    return q + DIRS[d][0], r + DIRS[d][1]


def rotate(q: int, r: int, k: int):
    """Rotate ``(q, r)`` by ``k`` * 60 degrees clockwise about the origin."""
    for _ in range(k % 6):
        q, r = -r, q + r
    return q, r


def distance(a, b) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def dir_between(a, b):
    """The facing that leads from hex ``a`` to its neighbour ``b``, or None."""
    d = (b[0] - a[0], b[1] - a[1])
    return DIRS.index(d) if d in DIRS else None


def map_cell(q: int, r: int) -> tuple:
    """Text-map (line, column) of hex ``(q, r)``."""
    return r, 2 * q + r


def pixel(q: float, r: float, size: float):
    """Centre of hex ``(q, r)`` in pixels for pointy-top hexes of radius
    ``size`` (renderer helper)."""
    return size * 3**0.5 * (q + r / 2.0), size * 1.5 * r


@njit(**JIT)
def neighbour_cell(cell, d):
    """Cell across side ``d`` of ``cell``, or -1 off the board."""
    q = cell % BOARD_W + DQ[d]
    r = cell // BOARD_W + DR[d]
    if q < 0 or q >= BOARD_W or r < 0 or r >= BOARD_H:
        return -1
    return r * BOARD_W + q


@njit(**JIT)
def cell_distance(a, b):
    dq = a % BOARD_W - b % BOARD_W
    dr = a // BOARD_W - b // BOARD_W
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2
