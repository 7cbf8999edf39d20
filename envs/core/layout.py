"""Action and observation layouts, declared once, as data.

A game writes its flat action space as an ordered list of named ranges and
its observation vector as an ordered list of feature blocks; everything
else is derived from that one declaration:

* the offsets (``A_*`` constants in ``envs/<game>/consts.py``, ``O_*`` in
  ``encoders/<game>.py``: plain module-level ints, which numba folds into
  the kernels as compile-time constants), ``NUM_ACTIONS`` and ``OBS_SIZE``;
* ``GameSpec.action_names`` and ``GameSpec.feature_names`` (one name per
  index / column);
* what an action index means (``decode``), for the play CLI's labels and
  error messages;
* the markdown tables of the game docs (``ActionLayout.markdown``,
  ``ObsLayout.markdown``; ``python -m dungeonrl.envs.core.authoring.layout_doc
  --markdown GAME`` prints them or writes them into a README).

Action names
------------
A range called ``name`` of ``count`` actions names its indices:

* ``name`` alone when it holds one action (``fight``);
* ``name_K`` for numbered actions, K from ``first`` (``resolve_0``,
  ``forward_1``);
* ``name:ITEM`` when the range lists its items (``assign:atk``);
* ``name:CONTENT`` when the items come from the game's content
  (``content="skill_names"``: the K-th name of that content list, or
  ``unused_K`` for a slot the content leaves empty).

Feature names
-------------
A block of one column is called by its name; a block with ``labels`` (one
sequence per axis of its shape) names column ``(i, j, ...)`` by joining the
block name and the labels with ``:`` (``gear:helmet:tier``), or the labels
alone with ``prefix=False`` (``card3:present``); otherwise ``name:K`` for
the K-th flat column.

Example::

    ACTIONS = ActionLayout("mygame", [
        act("roll", 1, "roll the die"),
        act("move", 6, "move K squares", first=1),
        act("play", 8, "play card type K", content="card_names"),
    ])
    A_ROLL, A_MOVE0, A_PLAY0 = ACTIONS.starts()      # one per range, in order
    NUM_ACTIONS = ACTIONS.size
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["ActionRange", "ActionLayout", "FeatureBlock", "ObsLayout", "act", "block"]


def _span(start: int, stop: int) -> str:
    """``"7"`` or ``"10–17"`` (inclusive), the index column of a table."""
    return str(start) if stop - start == 1 else f"{start}–{stop - 1}"


def _check_name(kind: str, name: str) -> None:
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        raise ValueError(f"{kind} name must be a non-empty string without spaces, got {name!r}")


# =====================================================================================
# actions
# =====================================================================================
@dataclass(frozen=True)
class ActionRange:
    """One named range of a flat action space (see the module doc)."""

    MAKER, WHAT = "act", "action range"  # the function that makes one; one, in words

    name: str
    count: int
    doc: str
    items: tuple | None = None  #: item names (``name:ITEM``), one per action
    first: int = 0  #: number of the first action (``name_K``)
    content: str | None = None  #: content attribute listing the item names

    @property
    def width(self) -> int:
        """Actions held (its place in an :class:`ActionLayout`)."""
        return self.count

    def names(self, content=None) -> tuple:
        """The name of every action of the range (``content`` is the game's
        loaded content, needed only by a ``content`` range)."""
        if self.content is not None:
            if content is None:
                raise ValueError(
                    f"action range {self.name!r} takes its names from the "
                    f"content ({self.content}); pass the loaded content"
                )
            given = list(getattr(content, self.content))
            if len(given) > self.count:
                raise ValueError(
                    f"action range {self.name!r} has {self.count} slots but the "
                    f"content lists {len(given)} {self.content}"
                )
            return tuple(
                f"{self.name}:{given[k]}" if k < len(given) else f"{self.name}:unused_{k}"
                for k in range(self.count)
            )
        if self.items is not None:
            return tuple(f"{self.name}:{x}" for x in self.items)
        if self.count == 1:
            return (self.name,)
        return tuple(f"{self.name}_{k + self.first}" for k in range(self.count))

    def pattern(self) -> str:
        """How the range's actions are named, for a doc table."""
        if self.content is not None:
            item = self.content[:-1] if self.content.endswith("s") else self.content
            return f"`{self.name}:<{item}>`"
        if self.items is not None:
            if self.count <= 4:
                return ", ".join(f"`{n}`" for n in self.names())
            return f"`{self.name}:{self.items[0]}` … `{self.name}:{self.items[-1]}`"
        if self.count == 1:
            return f"`{self.name}`"
        return f"`{self.name}_{self.first}` … `{self.name}_{self.first + self.count - 1}`"


def act(
    name: str, size: int | Sequence[str], doc: str, *, first: int = 0, content: str | None = None
) -> ActionRange:
    """An action range: ``size`` is a count or the sequence of item names."""
    _check_name("action range", name)
    if isinstance(size, int):
        count, items = size, None
    else:
        items = tuple(str(x) for x in size)
        count = len(items)
        if len(set(items)) != count:
            raise ValueError(f"action range {name!r} repeats an item name: {items}")
    if not isinstance(count, int) or count < 1:
        raise ValueError(f"action range {name!r} must hold at least one action, got {size!r}")
    if content is not None and items is not None:
        raise ValueError(f"action range {name!r}: give item names or a content list, not both")
    if not doc or "\n" in doc:
        raise ValueError(f"action range {name!r} needs a one-line documentation")
    return ActionRange(name, count, doc, items, int(first), content)


class _EndToEnd:
    """Named parts laid end to end from 0: the shape :class:`ActionLayout`
    (ranges of actions) and :class:`ObsLayout` (blocks of observation
    columns) share. A subclass names its part type (which names its maker
    and itself in words and says its width), the attribute holding the
    parts and the word for one index."""

    PART: type[ActionRange] | type[FeatureBlock]
    PARTS: str  # the parts, in words ("ranges"): also the attribute holding them
    UNIT: str  # one index, in words ("action")

    def __init__(self, game: str, parts: Iterable):
        self.game = game
        self.parts: tuple[ActionRange | FeatureBlock, ...] = tuple(parts)
        setattr(self, self.PARTS, self.parts)
        self._first: dict[str, int] = {}
        off = 0
        for p in self.parts:
            if not isinstance(p, self.PART):
                raise TypeError(
                    f"{game}: expected {self.PART.__name__} entries (use {self.PART.MAKER}()), "
                    f"got {p!r}"
                )
            if p.name in self._first:
                raise ValueError(f"{game}: {self.PART.WHAT} {p.name!r} declared twice")
            self._first[p.name] = off
            off += p.width
        self.size = off
        # the part of each index
        self._owner = [i for i, p in enumerate(self.parts) for _ in range(p.width)]

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        return iter(self.parts)

    def __repr__(self) -> str:
        kind, n = type(self).__name__, len(self.parts)
        return f"{kind}({self.game!r}, {n} {self.PARTS}, {self.size} {self.UNIT}s)"

    def _part(self, name: str):
        if name not in self._first:
            raise KeyError(
                f"{self.game} has no {self.PART.WHAT} {name!r}; {self.PARTS}: "
                f"{[p.name for p in self.parts]}"
            )
        return self.parts[list(self._first).index(name)]

    def _start(self, name: str) -> int:
        self._part(name)
        return self._first[name]

    def range_of(self, name: str) -> range:
        """The indices of part ``name``."""
        return range(self._first[name], self._first[name] + self._part(name).width)

    def decode(self, index: int) -> tuple:
        """``(part name, k)``: the part holding ``index`` and its flat
        position there (from 0)."""
        if isinstance(index, bool) or not 0 <= int(index) < self.size:
            raise IndexError(f"{self.game}: {self.UNIT} {index!r} is outside 0..{self.size - 1}")
        p = self.parts[self._owner[int(index)]]
        return p.name, int(index) - self._first[p.name]


class ActionLayout(_EndToEnd):
    """An ordered list of action ranges laid end to end from index 0."""

    PART, PARTS, UNIT = ActionRange, "ranges", "action"
    ranges: tuple[ActionRange, ...]

    def start(self, name: str) -> int:
        """First index of range ``name`` (a plain int, for an ``A_*`` constant)."""
        return self._start(name)

    def starts(self) -> tuple:
        """First index of every range, in declaration order (to unpack into
        the ``A_*`` constants in one statement)."""
        return tuple(self._first.values())

    def index(self, name: str, k: int = 0) -> int:
        """Index of the ``k``-th action (from 0) of range ``name``."""
        rg = self.range_of(name)
        if not 0 <= k < len(rg):
            raise IndexError(
                f"{self.game}: action range {name!r} holds {len(rg)} actions, not {k + 1}"
            )
        return rg[k]

    def doc(self, index: int) -> str:
        """The documentation line of the range holding ``index``."""
        return self._part(self.decode(index)[0]).doc

    def label(self, index: int, content=None) -> str:
        """A readable line for action ``index``: its range's documentation
        with ``K`` replaced by the action's item (``stat atk``), content name
        (``use Skill Daring``) or number (``walk forward 3 squares``)."""
        name, k = self.decode(index)
        r = self._part(name)
        if r.items is not None:
            what = r.items[k]
        elif r.content is not None and content is not None:
            what = r.names(content)[k].split(":", 1)[1]
        else:
            what = str(k + r.first)
        return re.sub(r"\bK\b", what, r.doc)

    def names(self, content=None) -> tuple:
        """The name of every action index (``content``: see ActionRange.names)."""
        out: list[str] = []
        for r in self.ranges:
            out += r.names(content)
        if len(set(out)) != len(out):
            dup = sorted({n for n in out if out.count(n) > 1})
            raise ValueError(f"{self.game}: action names repeat: {dup}")
        return tuple(out)

    def markdown(self) -> str:
        """The action table of the game's doc (one row per range)."""
        lines = ["| index | actions | meaning |", "|---|---|---|"]
        for r in self.ranges:
            s = self._first[r.name]
            lines.append(f"| {_span(s, s + r.count)} | {r.pattern()} | {r.doc} |")
        return "\n".join(lines)


# =====================================================================================
# observations
# =====================================================================================
@dataclass(frozen=True)
class FeatureBlock:
    """One named block of consecutive observation columns."""

    MAKER, WHAT = "block", "feature block"  # the function that makes one; one, in words

    name: str
    shape: tuple
    doc: str
    low: float = 0.0
    high: float = 1.0
    labels: tuple | None = None  #: one tuple of labels per axis of ``shape``
    prefix: bool = True  #: feature names start with the block name

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def width(self) -> int:
        """Columns held (its place in an :class:`ObsLayout`)."""
        return self.size

    def names(self) -> tuple:
        if self.labels is None:
            if self.size == 1:
                return (self.name,)
            return tuple(f"{self.name}:{k}" for k in range(self.size))
        out = [(self.name,) if self.prefix else ()]
        for axis in self.labels:
            out = [head + (x,) for head in out for x in axis]
        return tuple(":".join(parts) for parts in out)

    def value_range(self) -> str:
        def num(x):
            if math.isinf(x):
                return "∞" if x > 0 else "−∞"
            return f"{x:g}".replace("-", "−")

        return f"[{num(self.low)}, {num(self.high)}]"


def block(
    name: str,
    shape: int | Sequence[int],
    doc: str,
    *,
    low: float = 0.0,
    high: float = 1.0,
    labels=None,
    prefix: bool = True,
) -> FeatureBlock:
    """A feature block. ``shape``: a column count or a tuple of axis sizes;
    ``labels``: for a 1-D block a sequence of column labels, for an N-D block
    a sequence of N label sequences; ``[low, high]``: the values its columns
    take (documented, and checked by the tests on played games)."""
    _check_name("feature block", name)
    shp = (int(shape),) if isinstance(shape, int) else tuple(int(x) for x in shape)
    if not shp or any(x < 1 for x in shp):
        raise ValueError(f"feature block {name!r} has an empty shape {shape!r}")
    if labels is not None:
        axes = (tuple(labels),) if len(shp) == 1 else tuple(tuple(a) for a in labels)
        axes = tuple(tuple(str(x) for x in a) for a in axes)
        if len(axes) != len(shp) or any(len(a) != n for a, n in zip(axes, shp)):
            raise ValueError(
                f"feature block {name!r}: labels of lengths "
                f"{[len(a) for a in axes]} do not fit shape {shp}"
            )
        labels = axes
    elif not prefix:
        raise ValueError(f"feature block {name!r}: prefix=False needs labels")
    if not low <= high:
        raise ValueError(f"feature block {name!r}: low {low} > high {high}")
    if not doc or "\n" in doc:
        raise ValueError(f"feature block {name!r} needs a one-line documentation")
    return FeatureBlock(name, shp, doc, float(low), float(high), labels, bool(prefix))


class ObsLayout(_EndToEnd):
    """An ordered list of feature blocks laid end to end from column 0
    (``decode(column)``: the block holding a column)."""

    PART, PARTS, UNIT = FeatureBlock, "blocks", "column"
    blocks: tuple[FeatureBlock, ...]

    def offset(self, name: str) -> int:
        """First column of block ``name`` (a plain int, for an ``O_*`` constant)."""
        return self._start(name)

    @property
    def features(self) -> tuple:
        """``(name, offset, size)`` of every block."""
        return tuple((b.name, self._first[b.name], b.size) for b in self.blocks)

    @property
    def low(self) -> float:
        """The lowest value any column takes (the ``Box`` bound)."""
        return min(b.low for b in self.blocks)

    @property
    def high(self) -> float:
        return max(b.high for b in self.blocks)

    def bounds(self):
        """Per-column ``(low, high)`` float64 arrays."""
        import numpy as np

        lo = np.concatenate([np.full(b.size, b.low) for b in self.blocks])
        hi = np.concatenate([np.full(b.size, b.high) for b in self.blocks])
        return lo, hi

    def names(self) -> tuple:
        """One name per column."""
        out: list[str] = []
        for b in self.blocks:
            out += b.names()
        if len(set(out)) != len(out):
            dup = sorted({n for n in out if out.count(n) > 1})
            raise ValueError(f"{self.game}: feature names repeat: {dup}")
        return tuple(out)

    def markdown(self) -> str:
        """The observation table of the game's doc (one row per block), and
        what the compact observation is (:data:`COMPACT_NOTE`)."""
        lines = ["| columns | block | shape | range | meaning |", "|---|---|---|---|---|"]
        for b in self.blocks:
            o = self._first[b.name]
            shape = " × ".join(str(x) for x in b.shape)
            lines.append(
                f"| {_span(o, o + b.size)} | `{b.name}` | {shape} | {b.value_range()} | {b.doc} |"
            )
        lines += ["", COMPACT_NOTE.format(size=self.size, half=2 * self.size, full=4 * self.size)]
        return "\n".join(lines)


#: the compact observation, as every game's observation table states it
COMPACT_NOTE = (
    "The {size} columns are float32 ({full:,} bytes). The compact observation "
    '(`obs_dtype="float16"` on every env and on the batch) holds the same columns, '
    "each rounded to half precision by the kernels (to nearest, ties to even; "
    "{half:,} bytes): `obs.astype(np.float32)` gives back every integer value up "
    "to 2,048 exactly (flags, one-hots, counts) and every other value within a "
    "relative 2**-11 (2**-25 absolute below 2**-14)."
)
