"""The strength ladder: random, heuristic, the shipped agent and two tree
searches on the same seeded games of every game that ships an agent.

    python -m dungeonrl.benchmarks.ladder --game unbroken --players 1
    python -m dungeonrl.benchmarks.ladder --game dungeon_kart --players 2 --rows shipped
    python -m dungeonrl.benchmarks.ladder --game dcc_unstoppable --players 1 --hardest
    python -m dungeonrl.benchmarks.ladder --write-docs       # docs/evaluation.md and README.md
    python -m dungeonrl.benchmarks.ladder --smoke            # 2 games a row, sims=2, a temp folder
    python -m dungeonrl.benchmarks.ladder --list             # the tables and their budgets

Tables
------
One table per game and seat count with a shipped agent
(``agents/pretrained_models``, :data:`TABLES`), plus Carl's solo table on
the hardest setting its solo agent accepts. Every table has five rows
(:data:`ROWS`):

====================  ========================================================
row                   agent
====================  ========================================================
``random``            uniform random legal play
``heuristic``         the game's scripted player
``shipped``           the shipped agent, greedy (``pretrained:NAME``)
``search-heuristic``  ``search?sims=S&rollouts=R&rollout=heuristic``: the
                      search agent (:mod:`dungeonrl.agents.algos.search`) without
                      a network: its own prior, heuristic rollouts and
                      heuristic players for the other seats
``search-prior``      ``search:pretrained:NAME?sims=S&rollouts=R&rollout=heuristic``
                      (or ``search:pretrained:NAME?sims=S&rollout=value``):
                      the same search with the shipped agent's policy as
                      its prior and (by default) its greedy play for the
                      other seats, which in these tables *is* how they play;
                      where the table says so, its leaves valued by the
                      network's value head instead of rollouts
====================  ========================================================

What a row measures depends on the table:

* solo: the win rate (:func:`dungeonrl.agents.commands.evaluate.evaluate`);
* Carl co-op (2 seats, one team): the row's agent in seat ``i % 2`` as the
  lead beside ``pretrained:dcc_unstoppable-coop``, the team's win rate
  (:func:`dungeonrl.agents.algos.selfplay.play_team`); the shipped row is the
  trained pair (``dcc_unstoppable-coop-lead`` beside the co-op agent).
  The prior's search models the partner as what it is
  (``opp=pretrained:dcc_unstoppable-coop``);
* 2 seats: head to head against the shipped agent, seats alternated (the
  row's agent in seat ``i % 2``): the share of games it wins;
* 4 and 8 seats: the row's agent in seat ``i % P``, the shipped agent in
  every other seat: the share of first places (fair share ``1/P``).

Every row of a table plays the same games (game ``i`` from seed ``i``) on
one setting: the options stored with the shipped agent
(:func:`dungeonrl.agents.commands.evaluate.common_setting`, ``reward`` aside, so
Unbroken is played on ``character=random difficulty=normal`` and the
search backs up the win/loss reward), plus the table's own options
(Carl's hardest setting). Games are played in chunks of :data:`CHUNK`
(a multiple of every seat count, so game ``i`` keeps seat ``i % P``);
the scripted seats of a chunk draw from streams seeded by the chunk's
first game and the game's seed (``play_match`` ties its policy seed to
its first game), and the search draws from its seed and what it sees, so
a row's games do not depend on ``--jobs``.

Figures: wins over games with a 95 % Wilson interval; ``by_game`` keeps
each game's result (``W`` won / first place, ``L`` lost, ``-`` no result:
a tie or a truncated game), so two rows can be compared game by game.
``cpu_seconds`` is the CPU time spent playing, summed over the chunks
(one core per job: torch and numba are held to one thread each), what a
row costs on one core of an idle machine; ``seconds`` the elapsed time
summed over the chunks and ``wall_seconds`` the row's elapsed time with
its ``--jobs`` (both grow with the machine's load).

Budgets
-------
:data:`BUDGETS` states the search's decision budget per game and seat
count: simulations per decision and rollouts per leaf, chosen so that
the slower of the two search rows (usually the one with the prior, whose
network also plays the other seats inside the tree) plays a row of 200
games (100 at 8 seats) in about 20 minutes on one core of the 2-core
reference machine. A decision at 8 seats costs several times one at 2
(more seats to play between the searcher's turns, longer rollouts), so
each seat count has its own budget. :data:`PRIOR_BUDGETS` gives the
search-with-prior row its own budget where its leaves are valued by the
network's value head (cheaper than rollouts, so more simulations fit the
same time; the search without a network keeps its rollouts). Both live in
``benchmarks/data/ladder.toml`` with the tables and the notes.
``--sims`` / ``--rollouts`` / ``--rollout`` override them for a run; the
row records the budget string it played.

Targets
-------
:func:`verdict` reads the search-with-prior row against the others
(point estimates; the intervals are shown beside them):

* solo: a win rate at least 10 points above the shipped agent's on the
  same seeds; where the shipped agent is already above 85 %, above it on
  this setting and the 10 points on the hardest setting (its own table);
* Carl co-op: a team win rate above the shipped trained pair's on the
  same seeds;
* 2 seats: at least 60 % of the games against the shipped agent;
* 4 and 8 seats: at least 1.5 times the fair share of first places.

Results and docs
----------------
``benchmarks/results/ladder/<game>-<P>p.json`` (``-hardest`` for the
hardest setting) holds a table's setting and rows; each row is written as
soon as it finishes, under a lock of the folder, so rows can run in
separate processes or sessions. A row already there with the same agent,
opponent or partner, games, seed and setting is skipped (``--force``
plays it again). ``--write-docs`` regenerates the ladder section of
``docs/evaluation.md`` (between ``<!-- ladder:begin -->`` and
``<!-- ladder:end -->``) and one README row per game (between
``<!-- readme-ladder:begin -->`` and ``<!-- readme-ladder:end -->``) from
the result files; a row not run yet says so, and a missed target shows
what was tried (:data:`NOTES`).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import fcntl
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import cmdline

__all__ = [
    "BUDGETS",
    "Budget",
    "DATA",
    "NOTES",
    "PRIOR_BUDGETS",
    "ROWS",
    "TABLES",
    "Table",
    "docs_section",
    "find_table",
    "load_data",
    "load_results",
    "main",
    "play_chunk",
    "play_row",
    "readme_section",
    "row_agents",
    "run_table",
    "same_row",
    "save_row",
    "summarize_row",
    "table_markdown",
    "table_setting",
    "verdict",
    "write_docs",
]

HERE = os.path.dirname(os.path.abspath(__file__))
#: the repository root (benchmarks/ is one of its folders)
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results", "ladder")
PROG = "python -m dungeonrl.benchmarks.ladder"

#: the rows of every table, bottom rung first
ROWS = ("random", "heuristic", "shipped", "search-heuristic", "search-prior")
#: the row the targets are about
TARGET_ROW = "search-prior"
#: row name -> what the docs call it
ROW_WORDS = {
    "random": "random",
    "heuristic": "heuristic",
    "shipped": "shipped agent",
    "search-heuristic": "search, heuristic rollouts",
    "search-prior": "search, shipped agent's prior",
}
#: games per row by default (100 at 8 seats)
GAMES = 200
GAMES_8 = 100
#: games per chunk of a row: a multiple of every seat count (1, 2, 4, 8)
CHUNK = 8
#: solo: points above the shipped agent; where it is above ``SOLO_CEILING``
#: already, the points apply on the hardest setting
SOLO_POINTS = 0.10
SOLO_CEILING = 0.85
#: 2 seats: head-to-head share of games against the shipped agent
H2H_GOAL = 0.60
#: 4 and 8 seats: times the fair share of first places
TABLE_FACTOR = 1.5
#: a result letter per game: won (first place), lost, no result
WON, LOST, NONE = "W", "L", "-"


@dataclass(frozen=True)
class Budget:
    """The search's budget per decision: ``sims`` simulations, each new
    leaf valued by ``rollouts`` heuristic rollouts, or (``rollout="value"``)
    by the prior network's value head, which needs no rollout."""

    sims: int
    rollouts: int = 0
    rollout: str = "heuristic"

    def __post_init__(self) -> None:
        if self.rollout not in ("heuristic", "value"):
            raise ValueError(f"rollout must be heuristic or value, got {self.rollout!r}")
        if self.sims < 1 or (self.rollout == "heuristic" and self.rollouts < 1):
            raise ValueError(f"a budget needs sims >= 1 and rollouts >= 1: {self}")

    @property
    def query(self) -> str:
        """The budget as the keys of a search agent string."""
        if self.rollout == "value":
            return f"sims={self.sims}&rollout=value"
        return f"sims={self.sims}&rollouts={self.rollouts}&rollout=heuristic"

    def words(self) -> str:
        """The budget in the docs' words."""
        if self.rollout == "value":
            return f"{self.sims} simulations a decision, leaves valued by the network's value head"
        return f"{self.sims} simulations a decision, {self.rollouts} heuristic rollouts a leaf"

    def replace(
        self, sims: int | None = None, rollouts: int | None = None, rollout: str | None = None
    ) -> Budget:
        """This budget with the given parts overridden (``None`` keeps one)."""
        return Budget(sims or self.sims, rollouts or self.rollouts, rollout or self.rollout)


@dataclass(frozen=True)
class Table:
    """One ladder table: a game at a seat count, its shipped agent (and,
    in co-op, the partner beside every row), and options played on top of
    the agent's own (the hardest setting)."""

    game: str
    players: int
    shipped: str
    partner: str | None = None
    options: tuple = ()  #: ``(key, value)`` pairs given on top of the card's setting
    hardest: bool = False
    about: str = ""  #: a sentence for the docs: why this setting

    @property
    def key(self) -> str:
        return f"{self.game}-{self.players}p" + ("-hardest" if self.hardest else "")

    @property
    def kind(self) -> str:
        """``solo``, ``coop``, ``h2h`` (2 seats) or ``table`` (4 and 8 seats)."""
        if self.players == 1:
            return "solo"
        if self.partner is not None:
            return "coop"
        return "h2h" if self.players == 2 else "table"

    @property
    def games(self) -> int:
        return GAMES_8 if self.players >= 8 else GAMES

    @property
    def budget(self) -> Budget:
        """The search rows' budget (:data:`BUDGETS`)."""
        return BUDGETS[self.game][self.players]

    @property
    def prior_budget(self) -> Budget:
        """The search-with-prior row's budget (:data:`PRIOR_BUDGETS`, else
        :attr:`budget`)."""
        return PRIOR_BUDGETS.get(self.game, {}).get(self.players, self.budget)

    def row_budget(self, row: str) -> Budget:
        """The budget a search row plays at."""
        return self.prior_budget if row == TARGET_ROW else self.budget

    def title(self) -> str:
        seats = {
            "solo": "solo",
            "coop": f"{self.players}-player co-op",
            "h2h": "2 seats",
            "table": f"{self.players} seats",
        }[self.kind]
        return f"{TITLES.get(self.game, self.game)}, {seats}" + (
            ", hardest setting" if self.hardest else ""
        )

    def command(self) -> str:
        """The command that plays (or resumes) every row of the table."""
        cmd = f"{PROG} --game {self.game} --players {self.players}"
        return cmd + (" --hardest" if self.hardest else "")


#: the ladder's data (budgets, tables, what was tried): see the file's header
DATA = os.path.join(HERE, "data", "ladder.toml")


def _budget(spec: dict) -> Budget:
    return Budget(int(spec["sims"]), int(spec.get("rollouts", 0)), spec.get("rollout", "heuristic"))


def load_data(path: str = DATA) -> tuple:
    """``(TITLES, BUDGETS, PRIOR_BUDGETS, TABLES, NOTES)`` from the ladder's
    data file (``benchmarks/data/ladder.toml``); a table without a budget
    for its seat count, or a note for no table, is a ``ValueError``."""
    import tomllib

    with open(path, "rb") as f:
        data = tomllib.load(f)
    games = data.get("games", {})
    titles = {g: str(v.get("title", g)) for g, v in games.items()}

    def budgets(kind: str) -> dict[str, dict[int, Budget]]:
        return {
            g: {int(p): _budget(b) for p, b in v.get(kind, {}).items()}
            for g, v in games.items()
            if v.get(kind)
        }

    main_budgets, prior_budgets = budgets("budgets"), budgets("prior_budgets")
    tables = tuple(
        Table(
            t["game"],
            int(t["players"]),
            t["shipped"],
            partner=t.get("partner"),
            options=tuple(t.get("options", {}).items()),
            hardest=bool(t.get("hardest", False)),
            about=t.get("about", ""),
        )
        for t in data.get("tables", [])
    )
    for t in tables:
        if t.players not in main_budgets.get(t.game, {}):
            raise ValueError(f"{path}: table {t.key} has no budget for {t.players} seats")
    notes = {str(k): str(v) for k, v in data.get("notes", {}).items()}
    unknown = set(notes) - {t.key for t in tables}
    if unknown:
        raise ValueError(f"{path}: notes for no table: {sorted(unknown)}")
    return titles, main_budgets, prior_budgets, tables, notes


#: game -> its title in the docs; the search rows' budget per game and seat
#: count; the search-with-prior row's where it differs; every (game, seats)
#: with a shipped agent (the tests check that each shipped card has its
#: table) plus Carl's hardest setting; what was tried where a target is
#: missed (table key -> text, shown under the table when its verdict is
#: "missed"). All from :data:`DATA`.
TITLES, BUDGETS, PRIOR_BUDGETS, TABLES, NOTES = load_data()


def find_table(game: str, players: int, hardest: bool = False) -> Table:
    for t in TABLES:
        if (t.game, t.players, t.hardest) == (game, players, hardest):
            return t
    known = ", ".join(t.key for t in TABLES)
    raise ValueError(
        f"no ladder table {game} at {players} seats (hardest={hardest}); known: {known}"
    )


def row_agents(table: Table, row: str, budget: Budget | None = None) -> tuple[str, str | None]:
    """The agent string a row plays and the one beside or against it (the
    co-op partner, or the shipped agent in every other seat; ``None``
    solo)."""
    if row not in ROWS:
        raise ValueError(f"unknown row {row!r}; rows: {', '.join(ROWS)}")
    if row in ("random", "heuristic"):
        agent = row
    elif row == "shipped":
        agent = table.shipped
    elif row == "search-heuristic":
        agent = f"search?{(budget or table.budget).query}"
    else:
        agent = f"search:{table.shipped}?{(budget or table.prior_budget).query}"
        if table.partner is not None:  # the partner inside the tree: the real one
            agent += f"&opp={table.partner}"
    other = None if table.kind == "solo" else (table.partner or table.shipped)
    return agent, other


# --- the setting ----------------------------------------------------------------------------
def table_setting(table: Table):
    """The one setting every row of ``table`` plays
    (:func:`~dungeonrl.agents.commands.evaluate.common_setting` of the shipped agent
    and the partner, plus the table's options)."""
    from ..agents.commands.evaluate import common_setting
    from ..envs.core.hooks import hooks_for

    hooks = hooks_for(table.game)
    names = [table.shipped] + ([table.partner] if table.partner else [])
    setting = common_setting(table.game, hooks, names, dict(table.options))
    if setting.core.num_players != table.players:
        raise ValueError(
            f"{table.key}: the shipped agent's setting has {setting.core.num_players} seats"
        )
    return setting


def hardest_accepted(table: Table) -> bool:
    """Whether the shipped agent loads (its model check passes) on the
    table's setting."""
    from ..agents.policy import make_agent

    try:
        make_agent(table.shipped, table_setting(table).core)
    except (ValueError, OSError):
        return False
    return True


# --- playing a row ----------------------------------------------------------------------------
_BUILT: dict = {}


def one_core() -> None:
    """Hold torch and numba to one thread each: a job is one core."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - torch is needed by the shipped agents
        pass
    try:
        import numba

        numba.set_num_threads(1)
    except (ImportError, ValueError):  # pragma: no cover
        pass


def _build(game: str, core_kwargs: dict, agent: str, other: str | None):
    from ..agents.policy import make_agent
    from ..envs.core.common import resolve_core

    key = (game, repr(sorted(core_kwargs.items())), agent, other)
    if key not in _BUILT:
        core = resolve_core(game, dict(core_kwargs))
        a = make_agent(agent, core, seed=0)
        b = None if other is None else (a if other == agent else make_agent(other, core, seed=1))
        _BUILT[key] = (core, a, b)
    return _BUILT[key]


_COUNTERS = (
    "decisions",
    "simulations",
    "search_seconds",
    "rollout_seconds",
    "inference_seconds",
    "opp_seconds",
)


def play_chunk(job: tuple) -> dict:
    """Games ``lo .. lo+n-1`` of one row: ``job = (game, core_kwargs, kind,
    agent, other, lo, n)``. Returns ``lo``, ``by_game`` (a letter per game),
    ``seconds``, ``decisions`` (all seats, summed), ``illegal`` and the
    search agent's counters over the chunk."""
    from ..agents.algos.selfplay import play_match, play_team
    from ..agents.commands.evaluate import evaluate

    game, core_kwargs, kind, agent, other, lo, n = job
    core, a, b = _build(game, core_kwargs, agent, other)
    before = {k: getattr(a, k, 0) for k in _COUNTERS}
    t0, c0 = time.perf_counter(), time.process_time()
    if kind == "solo":
        res = evaluate(a, core, n, seed=lo, policy_seed=0)
        result = [1 if w else -1 for w in res.stats["win"]]
        length, illegal = res.stats["length"], res.illegal
    else:
        if kind == "coop":
            r = play_team(core, a, b, n, seed=lo)
        else:
            r = play_match(core, a, b, n, seed=lo)
        result, length, illegal = list(r["result"]), r["length"], int(r["illegal"])
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    letters = "".join(WON if x > 0 else (LOST if x < 0 else NONE) for x in result)
    out = {
        "lo": lo,
        "by_game": letters,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "decisions": int(sum(int(x) for x in length)),
        "illegal": int(illegal),
    }
    if hasattr(a, "simulations"):
        out["search"] = {k: getattr(a, k) - before[k] for k in _COUNTERS}
    return out


def _chunks(games: int) -> list[tuple[int, int]]:
    return [(lo, min(CHUNK, games - lo)) for lo in range(0, games, CHUNK)]


def _run_jobs(jobs: list, workers: int, progress: Callable | None) -> list[dict]:
    """Every chunk, in-process (``workers == 1``) or in a pool of spawned
    processes of one core each; the chunks' results in game order."""
    done: list[dict] = []
    if workers <= 1:
        for job in jobs:
            done.append(play_chunk(job))
            if progress:
                progress(done)
        return done
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=one_core) as ex:
        futures = [ex.submit(play_chunk, job) for job in jobs]
        for f in as_completed(futures):
            done.append(f.result())
            if progress:
                progress(done)
    return sorted(done, key=lambda c: c["lo"])


def summarize_row(by_game: str) -> dict:
    """``wins``, ``losses``, ``draws``, ``figure`` and ``ci95`` of a row's
    per-game letters."""
    from ..agents.metrics import wilson

    n = len(by_game)
    k = by_game.count(WON)
    lo, hi = wilson(k, n)
    return {
        "games": n,
        "wins": k,
        "losses": by_game.count(LOST),
        "draws": by_game.count(NONE),
        "figure": k / n if n else float("nan"),
        "ci95": [lo, hi],
    }


def play_row(
    table: Table,
    row: str,
    games: int,
    *,
    budget: Budget | None = None,
    jobs: int = 1,
    setting=None,
    progress: Callable | None = None,
) -> dict:
    """Play one row of ``table`` (games ``0 .. games-1``) and return its
    record (see the module doc)."""
    setting = setting or table_setting(table)
    budget = budget or table.row_budget(row)
    agent, other = row_agents(table, row, budget)
    kw = dict(setting.core_kwargs)
    todo = [(table.game, kw, table.kind, agent, other, lo, n) for lo, n in _chunks(games)]
    t0 = time.perf_counter()
    chunks = _run_jobs(todo, jobs, progress)
    wall = time.perf_counter() - t0
    by_game = "".join(c["by_game"] for c in chunks)
    rec: dict = {
        "row": row,
        "agent": agent,
        "other": other,
        "budget": budget.query if row.startswith("search") else None,
        "seed": 0,
        "core_kwargs": kw,
        **summarize_row(by_game),
        "seconds": round(sum(c["seconds"] for c in chunks), 2),
        "cpu_seconds": round(sum(c["cpu_seconds"] for c in chunks), 2),
        "wall_seconds": round(wall, 2),
        "jobs": jobs,
        "mean_decisions": sum(c["decisions"] for c in chunks) / max(games, 1),
        "illegal_actions": sum(c["illegal"] for c in chunks),
        "by_game": by_game,
    }
    if any("search" in c for c in chunks):
        tot = {k: sum(c["search"][k] for c in chunks) for k in _COUNTERS}
        rec["search"] = {k: (round(v, 2) if isinstance(v, float) else v) for k, v in tot.items()}
    return rec


# --- the result files ----------------------------------------------------------------------
def result_path(table: Table, out: str = RESULTS) -> str:
    return os.path.join(out, f"{table.key}.json")


@contextlib.contextmanager
def _locked(folder: str):
    """An exclusive lock on ``folder`` (no lock file is left behind)."""
    os.makedirs(folder, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def load_results(path: str) -> dict:
    """A table's result file (``{}`` when there is none)."""
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def same_row(old: dict | None, new: dict) -> bool:
    """Whether a stored row played what ``new`` (a row's ``agent``,
    ``other``, ``games``, ``seed`` and ``core_kwargs``) would play."""
    if not old:
        return False
    keys = ("agent", "other", "games", "seed")
    return all(old.get(k) == new.get(k) for k in keys) and dict(old.get("core_kwargs", {})) == dict(
        new.get("core_kwargs", {})
    )


def table_header(table: Table, setting) -> dict:
    """The fields a result file holds beside its rows."""
    return {
        "table": table.key,
        "game": table.game,
        "players": table.players,
        "hardest": table.hardest,
        "kind": table.kind,
        "figure": FIGURE_WORDS[table.kind],
        "shipped": table.shipped,
        "partner": table.partner,
        "setting": setting.words,
        "core_kwargs": dict(setting.core_kwargs),
        "setting_source": setting.source,
        "budget": {"sims": table.budget.sims, "rollouts": table.budget.rollouts},
        "prior_budget": table.prior_budget.query,
        "command": table.command(),
    }


def save_row(path: str, header: dict, rec: dict) -> dict:
    """Write ``rec`` into the result file at ``path`` (read again under
    the folder's lock, so rows written meanwhile by another process are
    kept), with the table's verdict; returns the file's content."""
    folder = os.path.dirname(os.path.abspath(path))
    with _locked(folder):
        doc = load_results(path)
        rows = dict(doc.get("rows", {}))
        rows[rec["row"]] = rec
        doc = {**header, "rows": {r: rows[r] for r in ROWS if r in rows}}
        doc["verdict"] = verdict(header["kind"], header["players"], doc["rows"], header["hardest"])
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    return doc


def _commit() -> str | None:
    """The checkout's commit, ``+dirty`` when the code a row runs
    (agents, envs, encoders) differs from it; ``None`` outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
        )
        dirty = subprocess.run(
            ["git", "diff", "--quiet", "HEAD", "--", "agents", "envs", "encoders"],
            cwd=ROOT,
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = head.stdout.strip()
    if not commit:
        return None
    return commit + ("+dirty" if dirty.returncode == 1 else "")


def run_table(
    table: Table,
    rows: Iterable[str] = ROWS,
    *,
    games: int | None = None,
    sims: int | None = None,
    rollouts: int | None = None,
    rollout: str | None = None,
    jobs: int = 1,
    out: str = RESULTS,
    force: bool = False,
    command: str | None = None,
    log: Callable[[str], None] = print,
) -> dict:
    """Play the ``rows`` of ``table`` not already in its result file (all
    of them with ``force``), writing each as it finishes; returns the
    file's content."""
    from ..machine import cpu_model, loadavg

    games = games or table.games
    setting = table_setting(table)
    header = table_header(table, setting)
    path = result_path(table, out)
    doc = load_results(path)
    for row in rows:
        # a leaf evaluation override is the prior row's (the other has no network)
        budget = table.row_budget(row).replace(
            sims, rollouts, rollout if row == TARGET_ROW else None
        )
        agent, other = row_agents(table, row, budget)
        want = {
            "agent": agent,
            "other": other,
            "games": games,
            "seed": 0,
            "core_kwargs": dict(setting.core_kwargs),
        }
        old = doc.get("rows", {}).get(row)
        if not force and same_row(old, want):
            log(f"{table.key} {row}: already in {path} (--force plays it again)")
            continue
        if old:
            log(f"{table.key} {row}: the stored row played something else; playing it again")
        log(
            f"{table.key} {row}: {agent}" + (f" with {other}" if other else "") + f", {games} games"
        )
        t0 = time.perf_counter()

        def progress(done: list, row: str = row, t0: float = t0) -> None:
            played = sum(len(c["by_game"]) for c in done)
            won = sum(c["by_game"].count(WON) for c in done)
            log(
                f"  {table.key} {row}: {played}/{games} games, {won} won, "
                f"{time.perf_counter() - t0:.0f} s"
            )

        rec = play_row(
            table, row, games, budget=budget, jobs=jobs, setting=setting, progress=progress
        )
        rec.update(
            {
                "date": datetime.date.today().isoformat(),
                "commit": _commit(),
                "cpu": cpu_model(),
                "cores": os.cpu_count(),
                "loadavg": loadavg(),
                "command": command or f"{table.command()} --rows {row}",
            }
        )
        doc = save_row(path, header, rec)
        lo, hi = rec["ci95"]
        log(
            f"{table.key} {row}: {rec['figure']:.1%} ({lo:.1%}-{hi:.1%}) over {rec['games']} "
            f"games, {rec['cpu_seconds'] / 60:.1f} CPU min of play"
        )
    return doc


# --- calibration ------------------------------------------------------------------------------
#: a row's time the budgets aim at, in CPU seconds on one core
ROW_SECONDS = 20 * 60


def calibrate(
    table: Table,
    games: int = CHUNK,
    *,
    sims: int | None = None,
    rollouts: int | None = None,
    log: Callable[[str], None] = print,
) -> dict:
    """Time ``games`` games of both search rows of ``table`` at its budget
    (or ``sims`` / ``rollouts``): CPU seconds per game, the minutes a full
    row would take, and the simulations that would fit a row into
    :data:`ROW_SECONDS` (the time of a decision grows about linearly
    with its simulations)."""
    budget = table.budget.replace(sims, rollouts)
    setting = table_setting(table)
    out: dict = {"sims": budget.sims, "rollouts": budget.rollouts, "games": games, "rows": {}}
    for row in ("search-heuristic", "search-prior"):
        row_budget = table.row_budget(row).replace(sims, rollouts)
        rec = play_row(table, row, games, budget=row_budget, setting=setting)
        per_game = rec["cpu_seconds"] / games
        row_s = per_game * table.games
        out["rows"][row] = {
            "cpu_seconds_per_game": round(per_game, 3),
            "row_minutes": round(row_s / 60, 1),
            "mean_decisions": rec["mean_decisions"],
            "budget": row_budget.query,
            "search": rec.get("search"),
            "by_game": rec["by_game"],
        }
        log(
            f"{table.key} {row} at {row_budget.query}: "
            f"{per_game:.2f} CPU s a game, a row of {table.games} in {row_s / 60:.1f} min"
        )
        fit = max(1, int(row_budget.sims * ROW_SECONDS / max(row_s, 1e-9)))
        out["rows"][row]["fitting_sims"] = fit
        log(f"{table.key} {row}: about {fit} simulations fit a row into {ROW_SECONDS // 60} min")
    # the shared budget's: the slower row's, where both rows play it
    same = table.prior_budget == table.budget
    rows = out["rows"].values() if same else [out["rows"]["search-heuristic"]]
    out["fitting_sims"] = min(r["fitting_sims"] for r in rows)
    return out


def save_calibration(out: str, table: Table, result: dict) -> None:
    """Merge one table's calibration into ``out/calibration.json``."""
    from ..machine import cpu_model, loadavg

    path = os.path.join(out, "calibration.json")
    with _locked(out):
        doc = load_results(path)
        b = f"--sims {result['sims']} --rollouts {result['rollouts']} --games {result['games']}"
        result = {
            **result,
            "command": f"{table.command()} --calibrate {b}",
            "date": datetime.date.today().isoformat(),
            "commit": _commit(),
            "cpu": cpu_model(),
            "loadavg": loadavg(),
        }
        doc[table.key] = result
        doc = {t.key: doc[t.key] for t in TABLES if t.key in doc}
        fd, tmp = tempfile.mkstemp(dir=out, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)


# --- targets ----------------------------------------------------------------------------------
FIGURE_WORDS = {
    "solo": "win rate",
    "coop": "team win rate",
    "h2h": "share of games won against the shipped agent",
    "table": "first places with the shipped agent in every other seat",
}
_PENDING = "not run yet"
#: a figure this close to its goal meets it (float rounding of k / n)
_EPS = 1e-9


def verdict(kind: str, players: int, rows: dict, hardest: bool = False) -> dict:
    """The target of a table (see the module doc) read from its rows, a
    pure function of the figures: ``{"target", "measured", "goal",
    "status"}``; ``status`` is ``met``, ``missed``, ``not run yet`` (a row
    it needs is missing) or ``not comparable`` (the rows played other
    games or seeds). ``rows`` maps a row name to a record with at least
    ``wins``, ``games`` and ``seed``."""
    sp = rows.get(TARGET_ROW)
    shipped = rows.get("shipped")
    need = [sp] + ([shipped] if kind in ("solo", "coop") else [])
    out: dict = {"target": "", "measured": None, "goal": None, "op": ">=", "status": _PENDING}
    ceiling = False
    if kind == "solo":
        ceiling = (
            shipped is not None
            and not hardest
            and shipped["wins"] > SOLO_CEILING * shipped["games"]
        )
        if ceiling:
            out["target"] = (
                f"above the shipped agent's win rate (it is above {SOLO_CEILING:.0%} here: "
                f"the {SOLO_POINTS * 100:.0f} points apply on the hardest setting)"
            )
        else:
            out["target"] = (
                f"a win rate at least {SOLO_POINTS * 100:.0f} points above the shipped agent's "
                "on the same seeds"
            )
    elif kind == "coop":
        out["target"] = "a team win rate above the shipped trained pair's on the same seeds"
    elif kind == "h2h":
        out["target"] = f"at least {H2H_GOAL:.0%} of the games against the shipped agent"
    elif kind == "table":
        out["target"] = (
            f"at least {TABLE_FACTOR}x the fair share of first places "
            f"({TABLE_FACTOR / players:.1%} at {players} seats)"
        )
    else:
        raise ValueError(f"unknown table kind {kind!r}")
    if sp is None or any(r is None for r in need):
        return out
    n, k = int(sp["games"]), int(sp["wins"])
    x = out["measured"] = k / n
    if shipped is not None and kind in ("solo", "coop"):
        if (shipped["games"], shipped.get("seed")) != (n, sp.get("seed")):
            out["status"] = "not comparable"
            return out
        base = int(shipped["wins"]) / n
        if kind == "solo" and not ceiling:
            out["goal"] = base + SOLO_POINTS
            met = x >= out["goal"] - _EPS
        else:
            out["goal"], out["op"] = base, ">"
            met = k > int(shipped["wins"])
    elif kind == "h2h":
        out["goal"] = H2H_GOAL
        met = x >= H2H_GOAL - _EPS
    else:
        out["goal"] = TABLE_FACTOR / players
        met = x >= out["goal"] - _EPS
    out["status"] = "met" if met else "missed"
    return out


# --- the docs ---------------------------------------------------------------------------------
DOC_BEGIN, DOC_END = "<!-- ladder:begin -->", "<!-- ladder:end -->"
README_BEGIN, README_END = "<!-- readme-ladder:begin -->", "<!-- readme-ladder:end -->"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _figure(rec: dict) -> str:
    lo, hi = rec["ci95"]
    return f"{_pct(rec['figure'])} ({_pct(lo)}-{_pct(hi)})"


def _agent_cell(table: Table, rec: dict | None, row: str) -> str:
    agent, other = (rec["agent"], rec["other"]) if rec else row_agents(table, row)
    if table.kind == "solo":
        return f"`{agent}`"
    if table.kind == "coop":
        return f"`{agent}` + `{other}`"
    if table.kind == "h2h":
        return f"`{agent}` vs `{other}`"
    return f"`{agent}` + {table.players - 1} x `{other}`"


def _status_words(v: dict) -> str:
    s = v["status"]
    if s == "met":
        return "**met**"
    if s == "missed":
        return "**missed**"
    return s


def table_markdown(table: Table, doc: dict) -> str:
    """The docs' section of one table from its result file (``{}``: not
    run yet)."""
    rows = doc.get("rows", {})
    b, pb = table.budget, table.prior_budget
    budget = b.words() if pb == b else f"{b.words()}; with the prior, {pb.words()}"
    lines = [f"### {table.title()}", ""]
    setting = doc.get("setting")
    if setting is None:
        try:
            setting = table_setting(table).words
        except (ValueError, OSError) as e:  # pragma: no cover - a card that no longer loads
            setting = f"(setting unavailable: {e})"
    src = f" ({doc['setting_source']})" if doc.get("setting_source") else ""
    if table.about:
        lines += [table.about, ""]
    lines.append(
        f"Setting: {setting}{src}. Figure: {FIGURE_WORDS[table.kind]}, games 0..{table.games - 1}"
        f" (seed i for game i). Search budget: {budget}. Played by `{table.command()}`."
    )
    lines += [
        "",
        "| row | agent | figure (95% CI) | games | CPU minutes | played at |",
        "|---|---|---|---|---|---|",
    ]
    for row in ROWS:
        rec = rows.get(row)
        agent = _agent_cell(table, rec, row)
        if rec is None:
            lines.append(f"| {ROW_WORDS[row]} | {agent} | not run yet | | | |")
            continue
        lines.append(
            f"| {ROW_WORDS[row]} | {agent} | {_figure(rec)} | {rec['games']} | "
            f"{rec['cpu_seconds'] / 60:.1f} | {_commit_cell(rec.get('commit'))} |"
        )
    v = verdict(table.kind, table.players, rows, table.hardest)
    target = f"Target (search with the prior): {v['target']}"
    if v["measured"] is not None and v["goal"] is not None:
        target += f": {_pct(v['measured'])}, goal {v['op']} {_pct(v['goal'])}"
    lines += ["", f"{target}: {_status_words(v)}."]
    if v["status"] == "missed" and NOTES.get(table.key):
        lines += ["", f"What was tried: {NOTES[table.key]}"]
    return "\n".join(lines)


def _commit_cell(commit) -> str:
    """A row's commit, short (``+dirty``: played from an uncommitted tree)."""
    if not commit:
        return "unknown"
    head, plus, rest = str(commit).partition("+")
    return f"`{head[:8]}`" + (f" ({rest})" if plus else "")


def docs_section(out: str = RESULTS) -> str:
    """The generated body of the ladder section of docs/evaluation.md."""
    parts = [
        "Every game and seat count with a shipped agent, five rows on the same "
        "seeded games and one setting: random play, the heuristic, the shipped "
        "agent, the search agent with heuristic rollouts and no network anywhere, and the "
        "same search with the shipped agent's policy as its prior (and its greedy "
        "play for the other seats), its leaves valued by heuristic rollouts or, where "
        "a table's budget says so, by the network's value head. Solo: win rate; "
        "Carl co-op: the row's agent as lead beside the shipped co-op partner; "
        "2 seats: head to head "
        "against the shipped agent, seats alternated; 4 and 8 seats: first places "
        "with the shipped agent in every other seat. 95% Wilson intervals; "
        "minutes of play on one core of the 2-core reference machine; the commit "
        "each row was played at, where it replays exactly (`git checkout` it and "
        "run the table's command with `--rows ROW --force`); a search row played "
        "before commit 56bf9db (the search agent's rollout streams made independent "
        "of earlier decisions, its root prior drawn lazily: CHANGELOG) plays other "
        "games of the same agent at a later commit. The "
        "module doc of `dungeonrl.benchmarks.ladder` has the details; "
        f"`{PROG} --write-docs` regenerates this section from "
        "`benchmarks/results/ladder/`."
    ]
    for table in TABLES:
        parts.append(table_markdown(table, load_results(result_path(table, out))))
    return "\n\n".join(parts)


def readme_section(out: str = RESULTS) -> str:
    """One README row per game: the search with the prior against its
    target in each of the game's tables."""
    lines = [
        "| game | search with the shipped agent's prior, per table | targets met |",
        "|---|---|---|",
    ]
    for game in dict.fromkeys(t.game for t in TABLES):
        cells, met, total, pending = [], 0, 0, 0
        for table in (t for t in TABLES if t.game == game):
            doc = load_results(result_path(table, out))
            v = verdict(table.kind, table.players, doc.get("rows", {}), table.hardest)
            total += 1
            met += v["status"] == "met"
            pending += v["status"] == _PENDING
            label = table.title().split(", ", 1)[1]
            if v["measured"] is None:
                cells.append(f"{label}: not run yet")
            elif v["goal"] is None:
                cells.append(f"{label}: {_pct(v['measured'])} ({v['status']})")
            else:
                cells.append(
                    f"{label}: {_pct(v['measured'])}, goal {v['op']} {_pct(v['goal'])}: "
                    f"{v['status']}"
                )
        score = f"{met} of {total}" + (f" ({pending} not run yet)" if pending else "")
        lines.append(f"| {TITLES.get(game, game)} | {'<br>'.join(cells)} | {score} |")
    return "\n".join(lines)


def replace_between(text: str, begin: str, end: str, body: str) -> str:
    """``text`` with everything between the ``begin`` and ``end`` marker
    lines replaced by ``body``; ``ValueError`` when a marker is missing."""
    pat = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)
    if not pat.search(text):
        raise ValueError(f"the page has no {begin} ... {end} markers")
    return pat.sub(lambda m: f"{begin}\n{body}\n{end}", text, count=1)


def write_docs(root: str = ROOT, out: str = RESULTS) -> list[str]:
    """Regenerate the ladder section of docs/evaluation.md and the README
    rows; returns the paths written (those that changed)."""
    written = []
    for rel, begin, end, body in (
        (os.path.join("docs", "evaluation.md"), DOC_BEGIN, DOC_END, docs_section(out)),
        ("README.md", README_BEGIN, README_END, readme_section(out)),
    ):
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = replace_between(text, begin, end, body)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            written.append(path)
    return written


# --- the command --------------------------------------------------------------------------------
def _parse_rows(text: str) -> list[str]:
    rows = [r.strip() for r in text.split(",") if r.strip()]
    bad = [r for r in rows if r not in ROWS]
    if bad or not rows:
        raise argparse.ArgumentTypeError(f"unknown rows {bad}; rows: {','.join(ROWS)}")
    return rows


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default=None, help="one game (default: every game with a table)")
    p.add_argument("--players", type=int, default=None, help="one seat count (default: all)")
    p.add_argument(
        "--hardest", action="store_true", help="the table on the hardest setting (ladder.toml)"
    )
    p.add_argument(
        "--rows",
        type=_parse_rows,
        default=None,
        help=f"comma-separated rows (default all: {','.join(ROWS)})",
    )
    p.add_argument("--games", type=int, default=None, help="games per row (default 200; 100 at 8)")
    p.add_argument("--sims", type=int, default=None, help="override the budget's simulations")
    p.add_argument("--rollouts", type=int, default=None, help="override the budget's rollouts")
    p.add_argument(
        "--rollout",
        choices=("heuristic", "value"),
        default=None,
        help="override the leaf evaluation of the search-prior row (value: the network's "
        "value head; the search-heuristic row has no network and keeps its rollouts)",
    )
    p.add_argument("--jobs", type=int, default=1, help="processes of one core each (default 1)")
    p.add_argument("--out", default=None, help=f"result folder (default {RESULTS})")
    p.add_argument("--root", default=ROOT, help="the repository (README.md and docs/)")
    cmdline.add_flags(
        p,
        {
            "--force": "play rows already in the result file",
            "--smoke": "a quick check: 2 games a row, sims=2, rollouts=2, into a temporary "
            "folder (unless --out), one table (the first game of the ladder unless --game)",
            "--write-docs": "regenerate the ladder section of docs/evaluation.md and the "
            "README rows (alone: plays nothing)",
            "--list": "list the tables and budgets, play nothing",
            "--calibrate": "time the search rows on --games games (default 8) at the budget "
            "(or --sims, --rollouts) and record it in calibration.json of the result folder",
        },
    )
    return p


def selected_tables(game: str | None, players: int | None, hardest: bool) -> list[Table]:
    out = [
        t
        for t in TABLES
        if (game is None or t.game == game)
        and (players is None or t.players == players)
        and (t.hardest == hardest or (not hardest and game is None and players is None))
    ]
    if not out:
        raise ValueError(
            f"no ladder table for game={game} players={players} hardest={hardest}; "
            f"tables: {', '.join(t.key for t in TABLES)}"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = build_parser()
    a = p.parse_args(argv)
    if a.list:
        for t in TABLES:
            print(f"{t.key:28s} {t.kind:5s} {t.games:4d} games  {t.budget.query}", end="")
            print("" if t.prior_budget == t.budget else f"  prior: {t.prior_budget.query}")
        return 0
    for name in ("games", "sims", "rollouts", "jobs"):
        v = getattr(a, name)
        if v is not None and v < 1:
            p.error(f"--{name} must be >= 1, got {v}")
    play = a.smoke or any(x is not None for x in (a.game, a.players, a.rows)) or a.hardest
    if a.write_docs and not play:
        for path in write_docs(a.root, a.out or RESULTS):
            print(f"wrote {path}")
        return 0
    out = a.out
    if a.calibrate:
        out = out or RESULTS
        try:
            tables = selected_tables(a.game, a.players, a.hardest)
        except ValueError as e:
            p.error(str(e))
        one_core()
        for table in tables:
            res = calibrate(table, a.games or CHUNK, sims=a.sims, rollouts=a.rollouts)
            save_calibration(out, table, res)
        return 0
    if a.smoke:
        out = out or tempfile.mkdtemp(prefix="ladder-smoke-")
        tables = selected_tables(a.game or TABLES[0].game, a.players, a.hardest)[:1]
        games, sims, rollouts = a.games or 2, a.sims or 2, a.rollouts or 2
    else:
        out = out or RESULTS
        try:
            tables = selected_tables(a.game, a.players, a.hardest)
        except ValueError as e:
            p.error(str(e))
        games, sims, rollouts = a.games, a.sims, a.rollouts
    one_core()
    command = f"{PROG} " + " ".join(shlex.quote(x) for x in argv)
    for table in tables:
        run_table(
            table,
            a.rows or ROWS,
            games=games,
            sims=sims,
            rollouts=rollouts,
            rollout=a.rollout,
            jobs=a.jobs,
            out=out,
            force=a.force,
            command=command,
        )
    if a.smoke:
        print(f"smoke results in {out}")
    if a.write_docs:
        for path in write_docs(a.root, out):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
