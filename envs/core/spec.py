"""The contract between a game's rules layer and the generic env adapters.

A game is two objects:

* a :class:`GameSpec`: the facts declared once (id, version, players, action
  count and names, observation size and feature names, episode cap, reward
  range, illegal-action penalty, render modes);
* a :class:`GameCore`: the rules for one configuration (character,
  difficulty, player count, content tables...), exposed as *batched* calls on
  a structured state array. Every method below is a thin Python shim over a
  numba kernel, so the same core drives the single env (a batch of 1), the
  native vector env (a batch of N) and the PettingZoo adapter.

State arrays are 1-D numpy structured arrays of ``core.state_dtype``. Every
record holds the whole game (per-env RNG included) and nothing else, so
``states.copy()`` is a snapshot and ``tobytes()`` a serialisation.

Conventions every core follows
------------------------------
* masks are ``uint8``/``int8`` arrays of shape ``(n, num_actions)``, 1 = legal;
  a finished game has an all-zero mask;
* ``rewards`` is ``float32[n, num_players]``, written (not accumulated) by
  ``step`` for the transition just made;
* ``step`` never raises for an in-range action: an illegal one ends that game
  with ``spec.illegal_penalty`` for the acting seat and sets ``illegal[i]``;
  the Python adapters implement the strict mode by checking the mask first;
* ``terminated`` = the rules ended the game (win, loss, illegal action);
  ``truncated`` = the step cap ``spec.max_episode_steps`` was reached;
* decision points with a single legal action are taken automatically inside
  ``step``/``reset`` when the core was built with ``auto_advance=True``;
* ``step_autoreset`` is the fused hot-loop kernel: step, store the final
  observation of finished games, reset them in place (next episode of the
  same seed stream), observe and mask, in one call.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: what one seat's result is worth to it (:attr:`GameSpec.utility`)
UTILITIES = ("zero_sum_ranking", "team", "general")
TURN_ORDERS = ("fixed", "state")
CHANCE_KINDS = ("explicit", "none")
INFORMATION_KINDS = ("perfect", "imperfect")
#: what an adapter does with an unknown ``reset(options=...)`` key
#: (:func:`check_unknown_reset_options`)
UNKNOWN_RESET_OPTIONS = ("warn", "raise")


def check_unknown_reset_options(value) -> str:
    """The ``unknown_reset_options`` argument every adapter takes: ``"warn"``
    (default: an unknown reset option is ignored with one ``UserWarning`` per
    env and key, as Gymnasium and PettingZoo envs do) or ``"raise"`` (strict:
    ``ValueError`` naming the key and the accepted ones)."""
    if not isinstance(value, str) or value not in UNKNOWN_RESET_OPTIONS:
        raise ValueError(
            f"unknown_reset_options must be one of {list(UNKNOWN_RESET_OPTIONS)}, got {value!r}"
        )
    return value


def _solo_teams(n: int) -> tuple:
    """Every seat its own team (the default of :attr:`GameSpec.teams`)."""
    return tuple((p,) for p in range(n))


def one_team(n: int) -> tuple:
    """Every seat in one team (a co-op game's :attr:`GameSpec.teams`; a
    named function, so a spec, and an env holding it, can be pickled)."""
    return (tuple(range(n)),)


@dataclass(frozen=True)
class GameSpec:
    """Facts about one game, declared once.

    Besides the layout facts, a spec declares what self-play, evaluation and
    the adapters must know about the *kind* of game (all with defaults, so a
    one-seat game declares nothing):

    * ``player_counts`` (derived from ``min_players..max_players``) and
      :meth:`api_for`: Gymnasium for one seat, PettingZoo for more;
    * ``utility``: ``"zero_sum_ranking"`` (seats are ranked, one's gain is
      the others' loss), ``"team"`` (teammates share one result) or
      ``"general"``; ``teams(n)`` lists the seats of each team for ``n``
      players (default: every seat alone) and :meth:`team_of` a seat's team;
    * ``ties``: whether the rules can end in a tie (a shared placement);
    * ``turn_order``: ``"fixed"`` (seats in a fixed rotation) or ``"state"``
      (the rules decide who acts next); ``simultaneous``: some phases are
      simultaneous moves, played in turn without showing the earlier choices;
    * ``chance``: ``"explicit"`` (through :mod:`.chance`) or ``"none"``;
      ``information``: ``"perfect"`` or ``"imperfect"``;
    * ``reset_options``: ``{key: validator}``; ``reset(options=...)`` of the
      adapters applies these keys (:meth:`check_reset_options`), each
      validator returns the value to use or raises ``ValueError``; other
      keys are ignored with a warning (``unknown_reset_options="raise"``:
      refused).
    """

    name: str  #: short name used by the CLI, e.g. "unbroken"
    env_id: str  #: registry id, e.g. "dungeonrl/Unbroken-v0"
    version: int  #: the -vN of env_id; bump when behaviour changes
    min_players: int
    max_players: int
    num_actions: int
    action_names: tuple  #: name of every action index
    obs_size: int
    feature_names: tuple  #: name of every observation column
    max_episode_steps: int  #: step cap (truncation)
    reward_range: tuple  #: (low, high) of one step's reward
    illegal_penalty: float  #: reward of the acting seat for an illegal action
    layout_version: (
        str  #: hash of state dtype + content + rules code; snapshots and models check it
    )
    render_modes: tuple = ("ansi",)
    obs_low: float = -float("inf")  #: bound of every observation column
    obs_high: float = float("inf")
    multi_agent: bool = False
    make_core: Callable | None = field(default=None, repr=False, compare=False)
    # --- the kind of game (see the class doc) --------------------------------------
    utility: str = "general"
    teams: Callable = field(default=_solo_teams, repr=False, compare=False)
    ties: bool = False
    turn_order: str = "fixed"
    simultaneous: bool = False
    chance: str = "explicit"
    information: str = "imperfect"
    reset_options: Mapping[str, Callable] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        for what, value, allowed in (
            ("utility", self.utility, UTILITIES),
            ("turn_order", self.turn_order, TURN_ORDERS),
            ("chance", self.chance, CHANCE_KINDS),
            ("information", self.information, INFORMATION_KINDS),
        ):
            if value not in allowed:
                raise ValueError(f"{self.name}: {what} {value!r} is not one of {list(allowed)}")
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(
                f"{self.name}: player counts {self.min_players}..{self.max_players} are empty"
            )
        for n in self.player_counts:
            seats = sorted(p for team in self.teams(n) for p in team)
            if seats != list(range(n)):
                raise ValueError(
                    f"{self.name}: teams({n}) = {self.teams(n)!r} does not put "
                    f"each of the {n} seats in exactly one team"
                )

    # --- derived facts -------------------------------------------------------------
    @property
    def player_counts(self) -> tuple:
        """Every supported number of seats."""
        return tuple(range(self.min_players, self.max_players + 1))

    def api_for(self, num_players: int) -> str:
        """``"gymnasium"`` for a one-seat game, ``"pettingzoo"`` for more."""
        if num_players not in self.player_counts:
            raise ValueError(
                f"{self.name} is played by {self.min_players}.."
                f"{self.max_players} players, not {num_players!r}"
            )
        return "gymnasium" if num_players == 1 else "pettingzoo"

    def __deepcopy__(self, memo) -> GameSpec:
        """The spec itself (it is frozen): copies of an env share it."""
        return self

    def team_of(self, num_players: int) -> np.ndarray:
        """Team index of every seat (int64, length ``num_players``)."""
        out = np.full(int(num_players), -1, np.int64)
        for t, team in enumerate(self.teams(int(num_players))):
            out[list(team)] = t
        return out

    def check_reset_options(
        self, options, unknown: str = "warn", warned: set | None = None
    ) -> dict:
        """The validated ``reset(options=...)``: ``{}`` for ``None``; a value
        its validator refuses raises ``ValueError`` (a known key with a bad
        value is always an error). An unknown key follows ``unknown`` (see
        :func:`check_unknown_reset_options`): ``"warn"`` (the default, the
        Gymnasium / PettingZoo convention: the key is ignored with a
        ``UserWarning``; PettingZoo's ``api_test`` probes ``reset`` with a
        made-up key) or ``"raise"`` (``ValueError`` naming the key and the
        accepted ones). ``warned``: the adapter's set of keys already warned
        about; a key in it is ignored silently and each warned key is added,
        so an env warns once per key instead of on every reset."""
        unknown = check_unknown_reset_options(unknown)
        if options is None:
            return {}
        if not isinstance(options, Mapping):
            raise ValueError(
                f"{self.name}: reset options must be a dict, got {type(options).__name__}"
            )
        accepted = sorted(self.reset_options)
        out: dict[str, Any] = {}
        for key, value in options.items():
            if key not in self.reset_options:
                msg = (
                    f"{self.name}: unknown reset option {key!r}; accepted: "
                    f"{accepted if accepted else 'none'}"
                )
                if unknown != "warn":
                    raise ValueError(msg)
                if warned is None or key not in warned:
                    import warnings

                    warnings.warn(
                        msg + " (ignored; pass unknown_reset_options='raise' to make it an error)",
                        UserWarning,
                        stacklevel=3,
                    )
                    if warned is not None:
                        warned.add(key)
                continue
            out[key] = self.reset_options[key](value)
        return out


class GameCore:
    """Rules of one game configuration as batched kernels (see module doc):
    the contract every adapter relies on. Its one implementation is
    :class:`~.kernel_core.KernelCore`, whose batched methods run the game's
    generated kernels through :class:`~.batch.Batch`; this class declares
    the methods and their meaning. ``rows`` arguments are int64 arrays of
    batch rows to act on.
    """

    spec: GameSpec
    state_dtype: np.dtype
    num_players: int

    def alloc(self, n: int) -> np.ndarray:
        """Zeroed state array of n games (call ``reset`` before use)."""
        return np.zeros(n, dtype=self.state_dtype)

    def reset(self, states: np.ndarray, seeds: np.ndarray) -> None:
        """Start a new game in every row, row i from ``seeds[i]`` (uint64)."""
        raise NotImplementedError

    def apply_reset_options(self, states, options: dict) -> None:
        """Edit freshly reset ``states`` as the validated reset ``options``
        (keys of ``spec.reset_options``) say; the adapters call it right after
        ``reset`` when options were given, then recompute masks and
        observations (the records' stored ``legal`` masks must be left
        consistent by this method). A game that declares reset options overrides it."""
        if options:
            raise NotImplementedError(
                f"{self.spec.name} declares reset options "
                f"{sorted(options)} but its core does not apply them"
            )

    def step(self, states, actions, rewards, terminated, truncated, illegal) -> None:
        """Apply ``actions[i]`` (int64) to row i. Rows already finished are left
        untouched with zero reward (the adapters never send them)."""
        raise NotImplementedError

    def step_observe(
        self, states, actions, players, obs, masks, rewards, terminated, truncated, illegal
    ) -> None:
        """``step`` (all outputs overwritten) followed by ``legal_mask`` and
        ``observe`` from ``players[i]``: the single env's path, one kernel
        call."""
        raise NotImplementedError

    def legal_mask(self, states, masks) -> None:
        """Write row i's legal actions (the seat to act's) into ``masks[i]``."""
        raise NotImplementedError

    def observe(self, states, players, obs) -> None:
        """Encode row i from seat ``players[i]``'s point of view into obs[i]."""
        raise NotImplementedError

    def to_play(self, states) -> np.ndarray:
        """Seat to act in each row (int64); -1 for a finished game."""
        raise NotImplementedError

    def step_autoreset(
        self,
        states,
        actions,
        obs,
        masks,
        rewards,
        terminated,
        truncated,
        illegal,
        final_obs,
        final_states,
        players=None,
    ) -> np.ndarray:
        """Fused hot-loop step (see module doc). For a game that finished on
        this step, ``final_obs[i]`` receives its last observation and
        ``final_states[i]`` a copy of its final record (for episode info).
        ``players`` (int64, optional) receives the seat to act next in every
        row; returned."""
        raise NotImplementedError

    def random_rollout(self, states, n_steps, policy_seed, obs, masks, stats) -> None:
        """Benchmark kernel: every row plays ``n_steps`` uniformly random
        legal actions inside numba (policy RNG from ``policy_seed`` and the
        row index), writing the acting seat's observation into ``obs[i]``
        and its mask into ``masks[i]`` after every step and resetting
        finished games in place. ``stats`` (int64[4]) accumulates steps,
        finished episodes, wins (any seat) and illegal actions (must stay 0)."""
        raise NotImplementedError

    def random_rollout_rules(self, states, n_steps, policy_seed, masks, stats) -> None:
        """``random_rollout`` with the observation switched off: the same
        games (same seeds, same actions), the rules and the mask alone, so a
        benchmark can tell the rules' cost from the encoder's."""
        raise NotImplementedError

    # --- row subsets (the self-play view and PvP matches) ----------------------
    def step_rows(self, states, rows, actions, rewards, terminated, truncated, illegal) -> None:
        """``step`` applied to the rows ``rows`` (int64) only: row ``r`` takes
        ``actions[r]`` and writes ``rewards[r]``, ``terminated[r]``,
        ``truncated[r]``, ``illegal[r]`` (outputs are full-size arrays; other
        rows are untouched), in place."""
        raise NotImplementedError

    def observe_rows(self, states, rows, players, obs, masks) -> None:
        """``observe`` and ``legal_mask`` for the rows ``rows`` only: ``obs[r]``
        from seat ``players[r]``'s point of view and ``masks[r]`` (the legal
        actions of the seat to act) for every ``r`` in ``rows``."""
        raise NotImplementedError

    # --- helpers used by adapters, tests and the CLI (not hot) ---------------
    def resample_from_infostate(self, state, seat: int, rng) -> np.ndarray:
        """A copy of ``state`` (one record or a 1-D batch) with everything
        ``seat`` cannot see (deck orders, other seats' hands, the generator)
        redrawn consistently with what it sees (OpenSpiel's name; see
        :mod:`.infostate`). ``rng``: a ``numpy.random.Generator`` or an int
        seed."""
        raise NotImplementedError(f"{self.spec.name} has no information-state sampler")

    def is_over(self, state) -> bool:
        raise NotImplementedError

    def phase_name(self, state) -> str:
        raise NotImplementedError

    def render_ansi(self, state) -> str:
        raise NotImplementedError

    def render_rgb(self, state) -> np.ndarray:
        """A picture of the game (uint8 RGB), for ``"rgb_array"`` render modes."""
        raise NotImplementedError

    def episode_info(self, state) -> dict:
        """Summary of a game (outcome, score...) for ``info`` dicts."""
        return {}

    def check_state(self, state) -> None:
        """Raise ``CorruptStateError`` if the record breaks an invariant the
        kernels rely on (used by ``set_state``)."""

    # --- copies (see .copying): a core is never written after construction --------
    def __deepcopy__(self, memo) -> GameCore:
        """The core itself: the copies of an env share its rules and content
        (the read-only tables the compiled kernels were typed for)."""
        return self

    def __getstate__(self) -> dict:
        from .copying import core_state

        return core_state(self)

    def __setstate__(self, state: dict) -> None:
        from .copying import restore_core_state

        restore_core_state(self, state)


def action_name_table(groups: Sequence[tuple]) -> tuple:
    """Build action names from ``(prefix, count_or_names)`` groups in order."""
    names: list[str] = []
    for prefix, what in groups:
        if isinstance(what, int):
            names.extend(f"{prefix}_{i}" if what > 1 else prefix for i in range(what))
        else:
            names.extend(f"{prefix}:{w}" for w in what)
    return tuple(names)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    """Drop the docstring of the module and of every class and function."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
    return tree


def normalised_source(text: str, filename: str = "<source>") -> str:
    """The code of a Python source file without comments, docstrings or
    layout: what :func:`source_digest` hashes. Two files that differ only in
    comments, docstrings, blank lines or white space give the same text."""
    return ast.unparse(_strip_docstrings(ast.parse(text, filename=filename)))


#: on-disk memo of :func:`_file_digest` (one small JSON file per source
#: folder, in its ``__pycache__``): normalising a long rules file takes
#: ~0.1 s, a process start should not pay it for unchanged files
_DIGEST_MEMO = "dungeonrl-source-digests.json"


def _memo_path(path: str) -> str:
    return os.path.join(os.path.dirname(path), "__pycache__", _DIGEST_MEMO)


def _read_memo(path: str) -> dict:
    try:
        with open(_memo_path(path), encoding="utf-8") as f:
            memo = json.load(f)
        return memo if isinstance(memo, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_memo(path: str, memo: dict) -> None:
    target = _memo_path(path)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        tmp = f"{target}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(memo, f)
        os.replace(tmp, target)  # atomic: parallel processes never see half a file
    except OSError:
        pass  # a read-only install: compute every time


@functools.lru_cache(maxsize=64)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as f:
        raw = f.read()
    # the memo is keyed by the exact bytes and the Python version (ast.unparse's output)
    key = (
        f"{os.path.basename(path)}:{sys.version_info[0]}.{sys.version_info[1]}:"
        f"{hashlib.sha256(raw).hexdigest()}"
    )
    memo = _read_memo(path)
    if key in memo:
        return memo[key]
    code = normalised_source(raw.decode("utf-8"), path)
    digest = hashlib.sha256(code.encode()).hexdigest()
    memo = {k: v for k, v in memo.items() if not k.startswith(os.path.basename(path) + ":")}
    memo[key] = digest
    _write_memo(path, memo)
    return digest


def source_digest(*sources) -> str:
    """Digest of the code of some modules or ``.py`` files, normalised with
    :func:`normalised_source` (a comment or docstring edit does not change
    it; a changed rule line does). ``sources``: modules (their ``__file__``)
    or paths, hashed in the given order.

    The normalised text is Python's own ``ast.unparse``; a Python version
    that prints some construct differently would give another digest (a
    saved model is then refused, never silently accepted)."""
    h = hashlib.sha256()
    for src in sources:
        path = getattr(src, "__file__", src)
        if path is None:
            raise ValueError(f"{src!r} has no source file to digest")
        st = os.stat(path)
        h.update(_file_digest(os.fspath(path), st.st_mtime_ns, st.st_size).encode())
    return h.hexdigest()[:16]


def layout_version(state_dtype, content_digest: str, version: int, rules_digest: str = "") -> str:
    """Hash of a game's state record layout, its content tables, its version
    and (``rules_digest``, from :func:`source_digest` over the game's rules,
    constants, state and encoder modules) its rules code: snapshots and saved
    models carry it and are refused when it differs, so a model trained on
    other rules or another observation layout is never loaded silently."""
    h = hashlib.sha256(str(np.dtype(state_dtype).descr).encode())
    h.update(content_digest.encode())
    h.update(str(version).encode())
    if rules_digest:
        h.update(rules_digest.encode())
    return h.hexdigest()[:16]


def game_spec(game, content, sources: Sequence, **facts) -> GameSpec:
    """A game's :class:`GameSpec`: what its declaration and modules already
    say, and ``facts``, what only the game can say (episode cap, reward
    range, players, utility...; every field left out keeps its default).

    ``game``: the game's declaration (its ``GameEntry``, from
    ``envs/<name>/game.toml``); it gives
    the name, the env id and its version, and its kernel facts
    (:func:`~.kernel.facts.declared_facts`) the illegal-action penalty,
    the action count and ``max_seats`` as the default ``max_players``, and
    its ``spec`` pairs (the ``[spec]`` table; ``facts`` given here win; a
    string for a number of players or the episode cap names a constant of
    the game's ``consts``, ``min_players = "MIN_P"``) the plain facts. Its
    package's modules, at the places the code generator reads them too,
    give the rest: ``consts`` (the action names of ``ACTIONS`` for
    ``content``), the encoder the facts name (``OBS_SIZE``,
    ``feature_names()``) and ``state`` (``STATE_DTYPE``).
    The layout version hashes the state dtype, the content's digest, the
    version and the code of ``sources`` (the rules, constants, state and
    encoder modules). ``min_players`` defaults to 1 and ``render_modes`` to
    ``("ansi", "rgb_array")``."""
    from .kernel.facts import declared_facts, named_constants

    kernel = declared_facts(game)
    numbers = ("min_players", "max_players", "max_episode_steps")
    facts = {**named_constants(dict(game.spec), game, numbers), **facts}
    consts = importlib.import_module(f"{game.package}.consts")
    encoder = importlib.import_module(kernel.module("encoder"))
    state_dtype = importlib.import_module(f"{game.package}.state").STATE_DTYPE
    facts.setdefault("action_names", consts.ACTIONS.names(content))
    facts.setdefault("min_players", 1)
    facts.setdefault("max_players", kernel.max_seats)
    facts.setdefault("render_modes", ("ansi", "rgb_array"))
    facts["action_names"] = tuple(facts["action_names"])
    try:
        return GameSpec(
            name=game.name,
            env_id=game.env_id,
            version=game.version,
            num_actions=kernel.num_actions,
            obs_size=encoder.OBS_SIZE,
            feature_names=tuple(encoder.feature_names()),
            illegal_penalty=kernel.illegal_penalty,
            layout_version=layout_version(
                state_dtype, content.digest, game.version, source_digest(*sources)
            ),
            **facts,
        )
    except TypeError as e:  # a [spec] key (or a fact) that is no GameSpec field
        raise TypeError(f"{game.name}: its spec facts ([spec], make_spec): {e}") from None
