"""Validation of everything that comes in from outside the step loop:
state records (``set_state``), snapshot headers, constructor arguments and
seeds. Nothing here runs per step.

State records
-------------
Every field of a game's state record has a declared valid range or set. The
fields of the shared engine header (:mod:`.header`) are declared ONCE here,
in :data:`HEADER_RULES`; each game declares only its own fields, as a data
table in ``envs/<game>/validate.py`` (``FIELD_RULES``), plus cross-field rules
as small functions (``CROSS_RULES``: pile counts match pile contents, every
card in exactly one zone, ids within the content tables...). A rule is one
of:

* :func:`R` ``(lo, hi)``: every element in ``[lo, hi]``; a bound may be a
  callable ``f(ctx)`` of the record and the content tables (see :class:`Ctx`);
* :func:`OneOf` ``(*values)``: every element one of the values;
* :func:`Prefix` ``(count_field, lo, hi, fill)``: a pile: the first
  ``record[count_field]`` elements in ``[lo, hi]``, the rest equal ``fill``
  (or, with ``fill=(a, b)``, anywhere in ``[a, b]``: slots never read);
* :data:`ANY`: every value of the field's dtype is one the rules can reach
  (generator words, seeds).

:func:`check_record` applies the field rules first (so a cross rule may
index tables with any field), then the cross rules, and raises
:class:`~.errors.CorruptStateError` naming the field and the value. A game's
``check_state`` ends with the legal-mask recompute, which runs a kernel and so
only ever sees a record that passed every rule. :func:`uncovered` lists the
fields of a dtype that no rule covers (a test keeps it empty, so a new field
cannot be added without a rule).

Arguments and seeds
-------------------
:func:`check_seed`, :func:`check_seed_list`, :func:`check_num_envs`,
:func:`check_max_steps` and :func:`check_flag` accept what Gymnasium documents
(an ``int`` or numpy integer seed in ``[0, 2**64)``, or ``None``; a bool
for a flag) and raise a ``TypeError`` / ``ValueError`` naming the argument
for anything else (bools, floats, strings, numpy Generators, negative or
too large values). Every adapter (the Gymnasium env and vector envs, the
AEC env, the single-seat self-play views, Carl's campaign wrapper) checks
its arguments through these, so the messages are the same everywhere.

Snapshot headers
----------------
:func:`snapshot_fields` checks the adapter bookkeeping of a
:class:`~.snapshot.Snapshot` (step count, return, done flag) strictly and
returns it parsed, so ``set_state`` validates everything before it changes
anything.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np

from .errors import CorruptStateError, SnapshotError
from .kernel.header import FORCED_CAP, O_PLAYING

__all__ = [
    "R",
    "OneOf",
    "Prefix",
    "ANY",
    "Rule",
    "Ctx",
    "HEADER_RULES",
    "check_record",
    "uncovered",
    "check_seed",
    "check_seed_list",
    "check_num_envs",
    "check_num_threads",
    "check_max_steps",
    "check_flag",
    "snapshot_fields",
    "INT32_MAX",
    "UINT64_SPAN",
    "MAX_NUM_ENVS",
    "MAX_NUM_THREADS",
]

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
UINT64_SPAN = 2**64
#: the most envs one batch may hold (more is certainly a mistake, and would
#: otherwise fail as an opaque MemoryError inside numpy)
MAX_NUM_ENVS = 2**24


# --- rules -----------------------------------------------------------------------------
class Rule:
    """One field's valid values (see the module doc)."""

    __slots__ = ("kind", "lo", "hi", "values", "count", "fill")

    def __init__(self, kind, lo=None, hi=None, values=None, count=None, fill=None):
        self.kind, self.lo, self.hi = kind, lo, hi
        self.values, self.count, self.fill = values, count, fill

    def __repr__(self):
        if self.kind == "any":
            return "ANY"
        if self.kind == "set":
            return f"OneOf{tuple(sorted(self.values))}"
        b = f"[{_show(self.lo)}, {_show(self.hi)}]"
        return b if self.kind == "range" else f"Prefix({self.count!r}, {b}, fill={self.fill})"


def _show(b):
    return getattr(b, "__doc__", None) or getattr(b, "__name__", "f") if callable(b) else str(b)


def R(lo, hi) -> Rule:
    """Every element in ``[lo, hi]`` (bounds: ints or ``f(ctx)``)."""
    return Rule("range", lo, hi)


def OneOf(*values) -> Rule:
    """Every element one of ``values``."""
    return Rule("set", values=frozenset(int(v) for v in values))


def Prefix(count: str, lo, hi, fill=-1) -> Rule:
    """A pile: ``[:record[count]]`` in ``[lo, hi]``, the rest ``fill``."""
    return Rule("prefix", lo, hi, count=count, fill=fill)


ANY = Rule("any")
FLAG = OneOf(0, 1)


class Ctx:
    """What a rule bound or a cross rule sees: the record ``s``, the content
    tables ``T`` (the core's namedtuple), the game's ``params`` dict and the
    game's display name; :meth:`fail` raises :class:`CorruptStateError`."""

    def __init__(self, state, tables, params, game):
        self.s, self.T, self.params, self.game = state, tables, params, game

    def i(self, field) -> int:
        """A scalar field as a Python int."""
        return int(self.s[field])

    def a(self, field) -> np.ndarray:
        """An array field as int64."""
        return np.asarray(self.s[field]).astype(np.int64)

    def fail(self, field, value, why) -> None:
        raise CorruptStateError(
            f"corrupt {self.game} state: field '{field}' = {_fmt(value)}: {why}"
        )

    def each_in_one_place(self, field, places, what: str, where: str) -> None:
        """Every ``what`` (card, item...) lies in exactly one place:
        ``places[k]`` counts where ``what`` ``k`` lies (one of ``where``,
        in words), or :meth:`fail` names the first that is not in one."""
        if (places != 1).any():
            k = int(np.flatnonzero(places != 1)[0])
            self.fail(
                field,
                places[k],
                f"{what} {k} is in {places[k]} places (every {what} in exactly one of {where})",
            )

    def seats_left_empty(self, empty: dict, n: int) -> None:
        """Seats ``n`` and up are not at the table: each per-seat field of
        ``empty`` (a field name -> the value an empty seat holds; the
        field's first axis is the seat) must hold its value there, or
        :meth:`fail` names the first field that does not."""
        for f, v in empty.items():
            rest = self.a(f)[n:]
            if (rest != v).any():
                last = n + len(rest) - 1
                self.fail(f, rest, f"seats {n}..{last} are not at the table and must be {v}")


def _fmt(v):
    a = np.asarray(v)
    if a.ndim == 0:
        return str(a.item())
    flat = a.reshape(-1).tolist()
    return str(flat[:12])[:-1] + (", ...]" if len(flat) > 12 else "]")


def _bound(b, ctx):
    """An int, or an int64 array (per-element bounds, broadcast to the field)."""
    v = b(ctx) if callable(b) else b
    return int(v) if np.ndim(v) == 0 else np.asarray(v, np.int64)


def _apply(ctx, name, rule):
    if rule.kind == "any":
        return
    raw = ctx.s[name]
    if rule.kind != "prefix" and not isinstance(raw, np.ndarray):  # scalar: plain ints
        x = int(raw)
        if rule.kind == "set":
            if x not in rule.values:
                ctx.fail(name, x, f"must be one of {sorted(rule.values)}")
            return
        lo, hi = _bound(rule.lo, ctx), _bound(rule.hi, ctx)
        if not lo <= x <= hi:
            ctx.fail(name, x, f"must be in [{lo}, {hi}]")
        return
    v = np.asarray(raw).astype(np.int64)
    if rule.kind == "set":
        bad = np.ones(v.shape, np.bool_)
        for x in rule.values:  # small sets: cheaper than np.isin
            bad &= v != x
        if bad.any():
            ctx.fail(
                name,
                v[bad].reshape(-1)[0] if v.ndim else v,
                f"must be one of {sorted(rule.values)}",
            )
        return
    lo, hi = _bound(rule.lo, ctx), _bound(rule.hi, ctx)
    if rule.kind == "range":
        bad = (v < lo) | (v > hi)
        if bad.any():
            if np.ndim(lo) or np.ndim(hi):
                k = tuple(int(x) for x in np.argwhere(bad)[0])
                lo_k = int(np.broadcast_to(lo, v.shape)[k])
                hi_k = int(np.broadcast_to(hi, v.shape)[k])
                ctx.fail(name, v[k], f"element {k} must be in [{lo_k}, {hi_k}]")
            k = tuple(int(x) for x in np.argwhere(bad)[0])
            where = "" if v.ndim == 0 else f" (element {k})"
            ctx.fail(name, v if v.ndim == 0 else v[bad][0], f"must be in [{lo}, {hi}]{where}")
        return
    # prefix (a pile): count checked by its own rule first
    flat = v.reshape(-1)
    n = ctx.i(rule.count)
    if not 0 <= n <= flat.size:
        ctx.fail(rule.count, n, f"pile size must be in [0, {flat.size}] ('{name}')")
    head, tail = flat[:n], flat[n:]
    bad = (head < lo) | (head > hi)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        ctx.fail(name, head[i], f"element {i} of the pile must be in [{lo}, {hi}]")
    if isinstance(rule.fill, tuple):  # unused slots: any value in a range
        tbad = (tail < rule.fill[0]) | (tail > rule.fill[1])
        want = f"in [{rule.fill[0]}, {rule.fill[1]}]"
    else:
        tbad = tail != rule.fill
        want = str(rule.fill)
    if tbad.any():
        i = n + int(np.flatnonzero(tbad)[0])
        ctx.fail(name, flat[i], f"element {i} lies beyond the pile size {n} and must be {want}")


def check_record(
    state, rules: dict, cross_rules=(), *, tables=None, params=None, game="game"
) -> None:
    """Apply ``rules`` (field -> :class:`Rule`; header fields the record has
    are added from :data:`HEADER_RULES`) in dtype order, then the cross rules
    ``f(ctx)``. Raises :class:`CorruptStateError` at the first violation; a
    field with no rule is itself a violation (the table is incomplete)."""
    if isinstance(state, np.ndarray):
        state = state.reshape(-1)[0]
    ctx = Ctx(state, tables, dict(params or {}), game)
    key = (state.dtype, id(rules))
    if key not in _ORDER:
        table = merged_rules(state.dtype, rules)
        for name in state.dtype.names:
            if name not in table:
                raise CorruptStateError(f"{game} state field '{name}' has no validation rule")
        # counts (scalars) first: a Prefix rule reads its count field
        order = sorted(state.dtype.names, key=lambda f: table[f].kind == "prefix")
        _ORDER[key] = [(f, table[f]) for f in order if table[f].kind != "any"]
    for name, rule in _ORDER[key]:
        _apply(ctx, name, rule)
    for rule in HEADER_CROSS + tuple(cross_rules):
        if all(f in state.dtype.names for f in getattr(rule, "needs", ())):
            rule(ctx)


_ORDER: dict[
    tuple[np.dtype, int], list[tuple[str, Rule]]
] = {}  # (dtype, id(rules)) -> the rules in check order (rule tables are constants)


def merged_rules(dtype, rules: dict) -> dict:
    """The header rules for the header fields ``dtype`` has, plus ``rules``.
    A game table may not redeclare a header field."""
    clash = sorted(set(rules) & set(HEADER_RULES))
    if clash:
        raise ValueError(
            f"game rules redeclare header fields {clash}; they are declared once "
            "in envs/core/validate.py"
        )
    out = {k: v for k, v in HEADER_RULES.items() if k in dtype.names}
    out.update(rules)
    return out


def uncovered(dtype, rules: dict) -> list:
    """Fields of ``dtype`` that neither the header nor ``rules`` covers."""
    table = merged_rules(np.dtype(dtype), rules)
    return [f for f in np.dtype(dtype).names if f not in table]


# --- the engine header, declared once ----------------------------------------------------
def _p(key, default):
    """A bound read from the game's ``params``."""

    def f(ctx):
        return ctx.params.get(key, default)

    f.__doc__ = f"params[{key!r}]"
    return f


def _np_minus1(ctx):
    """num_players - 1"""
    return (
        ctx.i("num_players") - 1
        if "num_players" in ctx.s.dtype.names
        else ctx.params.get("max_players", 1) - 1
    )


def _max_steps(ctx):
    """max_steps"""
    return ctx.i("max_steps")


HEADER_RULES = {
    "rng": ANY,  # any (key, counter) pair is a stream position
    "seed": ANY,  # every uint64 is a seed
    "episode": R(0, INT64_MAX),
    # forced chance (see chance.py): results 0..127 (games that use a forced
    # value as the die face itself narrow them with params forced_lo /
    # forced_hi, checked by _forced_results) and forced shuffle orders
    # (negative entries, any of which the shuffle reads as a permutation)
    "forced": Prefix("forced_n", -128, _p("forced_hi", 127), fill=(0, 127)),
    "forced_n": R(0, FORCED_CAP),
    "forced_i": R(0, FORCED_CAP),
    "steps": R(0, _max_steps),
    "max_steps": R(1, INT32_MAX),
    "num_players": R(_p("min_players", 1), _p("max_players", 1)),
    "auto_advance": FLAG,
    "reward_mode": R(0, _p("max_reward_mode", 0)),
    "outcome": R(0, _p("max_outcome", 2)),
    "actor": R(-1, _np_minus1),
    "last_actor": R(-1, _np_minus1),
    "legal": FLAG,
}


def _needs(*fields: str) -> Callable[[Callable], Callable]:
    """Mark a cross rule with the fields it reads (``rule.needs``): it runs
    only on records that have them."""

    def mark(rule):
        rule.needs = fields
        return rule

    return mark


@_needs("forced_i", "forced_n")
def _forced_cursor(ctx):
    if not ctx.i("forced_i") <= ctx.i("forced_n"):
        ctx.fail(
            "forced_i",
            ctx.i("forced_i"),
            f"more forced results used than queued (forced_n = {ctx.i('forced_n')})",
        )


@_needs("forced", "forced_n")
def _forced_results(ctx):
    """Queued results (the non-negative entries) within the game's range."""
    lo, hi = ctx.params.get("forced_lo", 0), ctx.params.get("forced_hi", 127)
    head = ctx.a("forced")[: ctx.i("forced_n")]
    bad = (head >= 0) & ((head < lo) | (head > hi))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        ctx.fail(
            "forced",
            head[k],
            f"element {k}: a forced result must be in [{lo}, {hi}] "
            "(negative entries are forced shuffle orders)",
        )


#: cross rules of the header fields (run for every record that has them)
HEADER_CROSS = (_forced_cursor, _forced_results)


def turn_flow(ctx, phase_names, over_phase: int, noun: str = "game") -> bool:
    """The cross rules every turn-based game shares, for a game's own
    ``flow`` rule: the phase is ``over_phase`` exactly when the outcome is
    not "playing", a seat acts (``actor`` >= 0) exactly while the game runs,
    a running game is below its step cap, and the stored mask is all zero
    exactly when the game is over. Returns whether the game is over."""
    ph, out, actor = ctx.i("phase"), ctx.i("outcome"), ctx.i("actor")
    over = ph == over_phase
    if over != (out != O_PLAYING):
        ctx.fail("outcome", out, f"phase {phase_names[ph]} disagrees on whether the {noun} is over")
    if over != (actor == -1):
        ctx.fail("actor", actor, f"a seat acts exactly while the {noun} runs")
    steps, cap = ctx.i("steps"), ctx.i("max_steps")
    if not over and steps >= cap:
        ctx.fail("steps", steps, f"a running {noun} at its step cap {cap}")
    legal = ctx.a("legal")
    if legal.any() == over:
        ctx.fail(
            "legal", legal, f"the stored mask must be all zero exactly when the {noun} is over"
        )
    return over


# --- arguments and seeds -------------------------------------------------------------------
def _is_int(v) -> bool:
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_seed(seed, name: str = "seed"):
    """``None`` or an int in ``[0, 2**64)`` (Python or numpy integer),
    returned as a Python int; anything else raises naming ``name``."""
    if seed is None:
        return None
    if not _is_int(seed):
        raise TypeError(
            f"{name} must be None or an integer in [0, 2**64), got {type(seed).__name__} {seed!r}"
        )
    s = int(seed)
    if not 0 <= s < UINT64_SPAN:
        raise ValueError(f"{name} must be in [0, 2**64), got {s}")
    return s


def check_seed_list(seeds, n: int, name: str = "seed") -> np.ndarray:
    """``n`` seeds from a sequence (each as for :func:`check_seed`, none
    ``None``) as a uint64 array."""
    if isinstance(seeds, (str, bytes, dict)) or not hasattr(seeds, "__len__"):
        raise TypeError(
            f"{name} must be an integer, a sequence of {n} integers or None, got "
            f"{type(seeds).__name__} {seeds!r}"
        )
    seeds = list(seeds)
    if len(seeds) != n:
        raise ValueError(f"{name}: expected {n} seeds (one per env), got {len(seeds)}")
    out = [check_seed(s, f"{name}[{i}]") for i, s in enumerate(seeds)]
    if any(s is None for s in out):
        raise TypeError(f"{name}: a sequence of seeds may not hold None")
    return np.array(out, dtype=np.uint64)


def _count(n, name: str, most: int) -> int:
    """A positive integer (not bool, float or str), at most ``most``."""
    if not _is_int(n):
        raise TypeError(f"{name} must be a positive integer, got {type(n).__name__} {n!r}"[:200])
    v = int(n)
    if not 1 <= v <= most:
        raise ValueError(f"{name} must be in [1, {most}], got {v}")
    return v


def check_num_envs(n, name: str = "num_envs") -> int:
    """A positive integer (not bool, float or str), at most :data:`MAX_NUM_ENVS`."""
    return _count(n, name, MAX_NUM_ENVS)


#: the most threads a batch splits its rows over
MAX_NUM_THREADS = 256


def check_num_threads(n, name: str = "num_threads") -> int:
    """A positive integer (not bool, float or str), at most :data:`MAX_NUM_THREADS`."""
    return _count(n, name, MAX_NUM_THREADS)


def check_flag(v, name: str) -> bool:
    """A true/false argument (``auto_advance``, ``dict_obs``...): a bool,
    a numpy bool or the integer 0 or 1. Strings (``"False"`` is truthy),
    floats, None and other integers raise a ``TypeError`` naming ``name``."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if _is_int(v) and int(v) in (0, 1):
        return bool(int(v))
    raise TypeError(f"{name} must be True or False, got {type(v).__name__} {v!r}"[:200])


#: the observation dtypes a game can be observed in: the float32 encoding
#: (default) and the compact one, each column rounded to half precision
OBS_DTYPES = ("float32", "float16")


def check_obs_dtype(v, name: str = "obs_dtype") -> np.dtype:
    """``"float32"`` (default observation) or ``"float16"`` (compact), as a
    string, a numpy type or a dtype; anything else raises naming ``name``."""
    try:
        dt = np.dtype(v) if not isinstance(v, (bool, int, float)) else None
    except TypeError:
        dt = None
    if dt is None or dt.name not in OBS_DTYPES:
        raise ValueError(
            f"{name} must be one of {OBS_DTYPES} (the default observation or the "
            f"compact one), got {v!r}"[:200]
        )
    return dt


def check_max_steps(v, name: str = "max_steps") -> int:
    """A step cap that fits the records' int32 field: ``[1, 2**31 - 1]``."""
    if not _is_int(v):
        raise TypeError(f"{name} must be an integer >= 1, got {type(v).__name__} {v!r}")
    s = int(v)
    if not 1 <= s <= INT32_MAX:
        raise ValueError(f"{name} must be in [1, {INT32_MAX}] (it is stored as int32), got {s}")
    return s


# --- snapshot bookkeeping -------------------------------------------------------------------
def snapshot_fields(snapshot) -> tuple:
    """``(step_count, episode_return, done)`` of a snapshot, checked
    strictly: a non-negative int (not bool), a finite real number (not bool
    or str), a real bool (``"false"`` is refused). Raises
    :class:`SnapshotError`."""
    sc, ret, done = snapshot.step_count, snapshot.episode_return, snapshot.done
    if not _is_int(sc) or not 0 <= int(sc) <= INT64_MAX:
        raise SnapshotError(f"snapshot step_count must be a non-negative integer, got {sc!r}")
    if (
        isinstance(ret, (bool, np.bool_))
        or not isinstance(ret, (numbers.Real, np.floating, np.integer))
        or not math.isfinite(float(ret))
    ):
        raise SnapshotError(f"snapshot episode_return must be a finite number, got {ret!r}")
    if not isinstance(done, (bool, np.bool_)):
        raise SnapshotError(f"snapshot done must be true or false, got {done!r}")
    return int(sc), float(ret), bool(done)
