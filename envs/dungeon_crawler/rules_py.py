"""Plain-Python readers of a state record (for rendering, the CLI, tests
and the invariant checker): the same formulas as the kernels, in Python."""
from __future__ import annotations

from . import consts as C


def gear_sum(T, s, h, what):
    tot = 0
    for sl in range(C.NSLOT):
        it = int(s["equip"][h, sl])
        if it >= 0:
            tot += int(getattr(T, "item_" + what)[it])
    return tot


def hero_view(core, s, h):
    T = core.T
    base = [int(x) for x in s["base"][h]]
    mh = base[C.ST_HP] + gear_sum(T, s, h, "hp")
    atk = max(0, base[0] + gear_sum(T, s, h, "atk") + int(s["enchant"][h]) - int(s["curse"][h])
              + int(s["cb_atk"][h]))
    dfn = max(0, base[1] + gear_sum(T, s, h, "def") + int(s["cb_def"][h]))
    return {
        "floor": int(s["floor"][h]), "pos": int(s["pos"][h]), "hp": int(s["hp"][h]),
        "max_hp": mh, "atk": atk, "def": dfn, "spd": base[3] + gear_sum(T, s, h, "spd"),
        "gold": int(s["gold"][h]), "hand_n": int(s["hand_n"][h]),
        "tiers": [int(T.item_tier[int(i)]) if int(i) >= 0 else -1 for i in s["equip"][h]],
        "vault": int(s["vault"][h]), "poison": int(s["poison"][h]), "weak": int(s["weak"][h]),
        "curse": int(s["curse"][h]), "enchant": int(s["enchant"][h]),
    }
