"""Plain-Python readers of a state record (for rendering, the CLI and tests).

The hero stat formulas (max HP, effective ATK / DEF / SPD) exist once, as the
numba functions of :mod:`.rules` that the rules, the encoder and the scripted
policy call; :func:`hero_view` reads them through one small compiled kernel
instead of restating them in Python, so a rule change cannot leave the
rendering or the tests reading other numbers. (The independent invariant
checker in ``tests/helpers/hooks_dungeon_crawler.py`` keeps its own, deliberately
separate, arithmetic.)
"""

from __future__ import annotations

import numpy as np

from ..core.kernel.jit import JIT, njit
from .rules import eff_atk, eff_def, eff_spd, max_hp


@njit(**JIT)
def _hero_stats(states, T, h, out):
    st = states[0]
    out[0] = max_hp(st, T, h)
    out[1] = eff_atk(st, T, h)
    out[2] = eff_def(st, T, h)
    out[3] = eff_spd(st, T, h)


def hero_stats(core, s, h) -> tuple[int, int, int, int]:
    """``(max_hp, atk, def, spd)`` of hero ``h`` in record ``s`` (a record or
    a one-element state array), exactly as the rules compute them."""
    states = s.reshape(1) if isinstance(s, np.ndarray) else np.array([s], dtype=s.dtype)
    out = np.zeros(4, np.int64)
    _hero_stats(states, core.T, np.int64(h), out)
    return int(out[0]), int(out[1]), int(out[2]), int(out[3])


def hero_view(core, s, h):
    """Hero ``h`` of record ``s`` as a dict of plain ints (public facts and
    the effective stats)."""
    T = core.T
    mh, atk, dfn, spd = hero_stats(core, s, h)
    return {
        "floor": int(s["floor"][h]),
        "pos": int(s["pos"][h]),
        "hp": int(s["hp"][h]),
        "max_hp": mh,
        "atk": atk,
        "def": dfn,
        "spd": spd,
        "gold": int(s["gold"][h]),
        "hand_n": int(s["hand_n"][h]),
        "tiers": [int(T.item_tier[int(i)]) if int(i) >= 0 else -1 for i in s["equip"][h]],
        "vault": int(s["vault"][h]),
        "poison": int(s["poison"][h]),
        "weak": int(s["weak"][h]),
        "curse": int(s["curse"][h]),
        "enchant": int(s["enchant"][h]),
    }


#: a hero's statuses: the word for each and the field of :func:`hero_view` holding it
STATUSES = (
    ("poisoned", "poison"),
    ("weakened", "weak"),
    ("cursed", "curse"),
    ("enchanted", "enchant"),
)


def hero_statuses(view) -> list:
    """The statuses a hero bears (a :func:`hero_view`), in words."""
    return [word for word, field in STATUSES if view[field]]
