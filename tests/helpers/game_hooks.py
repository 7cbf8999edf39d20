"""Per-game hooks of the conformance suite (``tests/conformance/test_*.py``,
set-up in ``tests/helpers/conformance_common.py``).

The suite runs every check on every game of ``dungeonrl.registry.GAMES``;
what it cannot know generically, each game provides as a :class:`GameHooks`
object in :data:`HOOKS` (game name -> hooks), from its own module
``tests/helpers/hooks_<game>.py`` exporting ``HOOKS`` (found automatically), or
from the module its declaration names (``GAME.test_hooks`` in
``envs/<game>/game.toml``, for a game whose hooks ship with it). A new game
joins the suite by declaring itself and adding its hooks;
``test_every_suite_game_has_hooks`` fails, naming the game, for a
registered game without hooks (its other conformance tests skip with a
pointer there). Hook writers can reuse :class:`Violations`,
:func:`pile_counts`, :func:`as_batch` and :func:`as_row`.

What a hooks object provides (``state`` arguments are one record: a
``numpy.void`` row or a 1-row array; ``*_state`` results are fresh 1-row
arrays of ``core.state_dtype``):

* ``configs``: the core kwargs to cover (every difficulty, player count...);
* ``soak_games``: random games per configuration in the soak (default 1000);
* ``sample_every``: decisions between the states sampled for the mask,
  hidden-information and snapshot tests (default 2);
* ``default_config``: kwargs of the default env (checkers, adapters);
* ``truncate_config``: kwargs of a core with a tiny step cap (the step cap
  must be reached before the rules can end a random game);
* ``short_config``: kwargs of short games for the interpreter run;
* ``check_invariants(core, state)``: an *independent* checker written from
  the rules (it never calls the kernels); raises ``AssertionError`` naming
  every violated invariant;
* ``check_transition(core, before, after)``: invariants between a record and
  the record after one decision (monotone counters, constant set-up);
* ``resample_hidden(core, state, rng, player=0)``: a copy with everything
  the player cannot see resampled (deck orders, unrevealed cards, the
  generator). The default is the product's own sampler,
  ``core.resample_from_infostate(state, player, rng)`` (declared by the
  game: ``GameEntry.infostate``, :mod:`dungeonrl.envs.core.infostate`), so
  the hidden-information tests check what search and best responses use; a
  game's hooks override it only for a game that declares no sampler;
* ``hidden_parts``: the record fields the sampler redraws (each must vary
  across the samples of the suite's states: ``test_each_hidden_part_varies``);
* ``change_visible(core, state)``: a copy with something the player can see
  changed (positive control of the hidden-information test);
* ``chance_fields``: the record fields that change when chance is consumed;
* ``corruptions(core, state)``: ``(label, record)`` pairs that break an
  invariant the kernels rely on (``set_state`` must raise
  ``CorruptStateError``);
* ``batch_kernels()``: the numba dispatchers behind the core (each must be
  compiled exactly once by the adapters);
* ``prepare_interpreted(core, wrap)``: make the core's content tables usable
  with ``NUMBA_DISABLE_JIT=1`` (``wrap`` turns a structured array into the
  field-first record view of the interpreter harness);
* ``jump_start(core, states, rng)`` (optional): edit freshly reset records
  into starts deep in the game (later Levels, more resources), so a
  random-play soak also covers the late game; returns the rows edited;
* ``known_bugs``: substrings of invariant messages of reported bugs (see
  the attribute's comment).

Multi-agent games: ``resample_hidden`` and ``change_visible`` take
``player=`` (the seat whose view must not change / must change).
"""

from __future__ import annotations

import numpy as np


def as_record(state):
    """One record (``numpy.void``) from a record or a 1-row array."""
    if isinstance(state, np.ndarray):
        return state.reshape(-1)[0]
    return state


def as_row(state):
    """A fresh 1-row array holding a copy of ``state``."""
    if isinstance(state, np.ndarray):
        return state.reshape(-1)[:1].copy()
    return np.array([state], dtype=state.dtype)


def as_batch(state):
    """A 1-D structured array from a record, a 1-row array or a batch."""
    if isinstance(state, np.ndarray):
        return state.reshape(-1)
    return np.array([state], dtype=state.dtype)


class InvariantError(AssertionError):
    """Raised by ``check_invariants`` / ``check_transition``; ``violations``
    lists ``(message, rows)`` pairs (rows: indices into the batch checked)."""

    def __init__(self, text, violations):
        super().__init__(text)
        self.violations = violations


class Violations:
    """Collects vectorised checks over a batch; raises one InvariantError
    naming each broken invariant, how many rows break it and an example."""

    def __init__(self, what):
        self.what = what
        self.bad = []

    def need(self, ok, msg, show=None):
        ok = np.asarray(ok, bool)
        if ok.all():
            return
        rows = np.flatnonzero(~ok)
        i = int(rows[0])
        ex = ""
        if show is not None:
            val = np.asarray(show)
            val = val[i] if val.ndim else val
            ex = f" (row {i}: {np.asarray(val).tolist()})"
        self.bad.append((i, f"{msg}: {len(rows)} row(s){ex}", rows))

    def raise_if_any(self, S):
        if self.bad:
            i = self.bad[0][0]
            where = ""
            if "phase" in S.dtype.names:
                where = (
                    f" [first bad row {i}: phase {int(S['phase'][i])}, level "
                    f"{int(S['level'][i]) if 'level' in S.dtype.names else '?'}]"
                )
            raise InvariantError(
                f"{len(self.bad)} {self.what} invariant(s) broken{where}: "
                + "; ".join(m for _, m, _ in self.bad),
                [(m, r) for _, m, r in self.bad],
            )


def pile_counts(v, cards, cap, counts, nvals, what):
    """Per-row count of each value in ``cards[:, :counts]`` (shape
    ``(n, nvals)``); records size, id-range and empty-slot (-1) violations."""
    cards = np.asarray(cards)[:, :cap].astype(np.int64)
    n = cards.shape[0]
    ok_n = (counts >= 0) & (counts <= cap)
    v.need(ok_n, f"{what} size outside [0, {cap}]", counts)
    cnt = np.clip(counts, 0, cap)
    inside = np.arange(cap)[None, :] < cnt[:, None]
    v.need(((cards == -1) | inside).all(axis=1), f"{what} slot beyond its count is not -1", cards)
    ok_id = (cards >= 0) & (cards < nvals)
    v.need((ok_id | ~inside).all(axis=1), f"{what} holds an id outside [0, {nvals})", cards)
    rows, cols = np.nonzero(inside & ok_id)
    flat = rows * nvals + cards[rows, cols]
    return np.bincount(flat, minlength=n * nvals).reshape(n, nvals)


class GameHooks:
    """Base class: every hook a game must provide (see module doc)."""

    name: str = ""
    configs: list = []
    default_config: dict = {}
    truncate_config: dict = {}
    short_config: dict = {}
    chance_fields: tuple = ()
    #: record fields ``resample_from_infostate`` redraws (see the module doc)
    hidden_parts: tuple = ("rng", "seed")
    #: random games played per configuration by the soak (CI: >= 1,000 per
    #: game; long games may cap their episodes with a ``max_steps``-like
    #: option in ``configs`` to keep the soak fast)
    soak_games: int = 1000
    #: decisions between two samples of ``conformance_common.sampled_states``
    #: (two live states each time, 20 per configuration and start kind)
    sample_every: int = 2

    def check_invariants(self, core, state) -> None:
        raise NotImplementedError

    def check_transition(self, core, before, after) -> None:
        pass

    def resample_hidden(self, core, state, rng, player=0):
        """The game's declared sampler (``core.resample_from_infostate``): a
        fresh 1-row array (``state``: one record or a 1-row array)."""
        return core.resample_from_infostate(as_row(state), player, rng)

    def change_visible(self, core, state):
        raise NotImplementedError

    def corruptions(self, core, state) -> list:
        raise NotImplementedError

    def batch_kernels(self) -> list:
        raise NotImplementedError

    def prepare_interpreted(self, core, wrap) -> None:
        pass

    jump_start = None

    #: invariant messages (substrings) of bugs already reported: the soak
    #: counts rows that break only these, stops checking those rows, and
    #: marks itself xfail; a dedicated strict-xfail test pins each bug.
    known_bugs: dict = {}


#: game name -> hooks, filled from the tests/helpers/hooks_<game>.py modules
HOOKS: dict[str, GameHooks] = {}


def _discover() -> None:
    """Add the hooks of every ``tests/helpers/hooks_<game>.py`` module (each exports
    ``HOOKS``, a :class:`GameHooks` instance), then those a game's
    declaration names (``GAME.test_hooks``), so a game's author can add its
    hooks without editing this file. Import errors propagate."""
    import importlib
    import os

    from dungeonrl.envs import catalog

    here = os.path.dirname(os.path.abspath(__file__))
    targets = [
        (fn, f"helpers.{fn[:-3]}", "HOOKS")
        for fn in sorted(os.listdir(here))
        if fn.startswith("hooks_") and fn.endswith(".py")
    ]
    targets += [
        (f"{g.name}: GAME.test_hooks", *g.test_hooks.split(":"))
        for g in catalog.ENTRIES.values()
        if g.test_hooks
    ]
    for where, module, attr in targets:
        h = getattr(importlib.import_module(module), attr)
        if not isinstance(h, GameHooks):
            raise TypeError(f"{where}: HOOKS must be a GameHooks instance")
        HOOKS[h.name] = h


_discover()


def get_hooks(name: str) -> GameHooks:
    if name not in HOOKS:
        raise LookupError(
            f"game {name!r} is registered but has no conformance hooks: add a GameHooks "
            f"subclass (configs, invariant checker, hidden-information resampler...) as "
            f"HOOKS in tests/helpers/hooks_{name}.py"
        )
    return HOOKS[name]
