"""``dungeonrl eval``: win rate with a 95% Wilson interval over seeded games.

    dungeonrl eval unbroken --agent heuristic --games 1000 --difficulty normal
    dungeonrl eval unbroken --agent runs/unbroken-ppo-s0/model.pt --agent heuristic --agent random
    dungeonrl eval unbroken --agent model.pt --games 2000 --json results.json

Game ``i`` is started from seed ``seed + i`` (``--seed``, default 0), so every
agent meets the same games (the same ones as a game's balance table,
``python -m dungeonrl.benchmarks.balance GAME``, for seed 0), and results are exactly
reproducible. Batched: all games run together, one numba step and one
network call per decision for the unfinished games; ``random`` and
``heuristic`` play whole games inside numba when the game provides that
path (``games.GameHooks.play_whole_games``).

Every agent of one ``eval`` plays the same seeded games on the same
setting (:func:`common_setting`): the options given on the command line
(``--character``, ``--players``...) win; otherwise the options stored with
the saved models among the agents (the setting they were trained on) apply
to every agent, the scripted ones included, when the models agree; models
trained for different settings are refused with the reason (each model and
its setting) unless options choose one. The header names the setting and
where it came from, a ``note:`` line names each model trained for another
setting, and ``--json`` records both. A model whose spec does not match the
game is refused (``--allow-content-change`` accepts one trained on an older
content of the same layout, with a warning). Models play greedily (the most
probable legal action) unless ``--stochastic``.

PvP games (Dungeon Crawler) get a round-robin league instead::

    dungeonrl eval dungeon_crawler --players 2 --agent dc.pt --agent heuristic --agent random
    dungeonrl eval dungeon_crawler --agent a.pt --agent b.pt --games 1000 --plot league.png

Every pair of agents plays ``--games`` seeded games (game ``i`` from seed
``seed + i``, agent A in seat ``i % players``, agent B in every other seat;
the scripted agents run inside numba, see :mod:`dungeonrl.agents.algos.selfplay`).
A single ``--agent`` meets the heuristic and random play. The command
prints each pairing's win rates with 95% Wilson intervals and
the Elo table fitted to all results (:func:`dungeonrl.agents.league.fit_elo`);
``--plot PATH`` also writes a PNG of the ratings (nothing is written
without it).

Co-op games (Dungeon Crawler Carl: Unstoppable with ``--players 2``, or a
model trained co-op) are evaluated as teams instead::

    dungeonrl eval dcc_unstoppable --players 2 --agent runs/carl-coop/model.pt --agent heuristic

Each agent plays ``--games`` seeded games (its seat alternated, game ``i``
from seed ``seed + i``) with the heuristic as teammate and with itself in
both seats; the table gives the team's win rate
(:func:`dungeonrl.agents.algos.selfplay.play_team`).

The game's declared facts choose the rating, not its name
(:func:`dungeonrl.agents.league.rating_kind`): a game of two single-seat
sides keeps the pairwise Elo table above; a game with teams or more than
two sides, given at least as many agents as it has sides, gets a placement
league instead: every lineup of one agent per side (each agent on every
side in turn), ties and shared wins as the rules place them, rated with
openskill's Plackett-Luce model (``mu``, ``sigma``, ``ordinal``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ...envs.core.batch import Batch
from ...envs.core.common import resolve_core
from ...envs.core.hooks import add_core_options, core_kwargs_from, hooks_for
from ...registry import get_spec
from ..algos.selfplay import match_summary, play_match, play_team, table_play
from ..league import League, MatchResult, PlacementLeague, rating_kind
from ..metrics import wilson
from ..modelspec import ModelSpecError, check_model_game
from ..options import writable_file
from ..policy import make_agent, model_core_kwargs, model_file
from ..replay import save_league_replays
from ..words import count

__all__ = ["wilson", "evaluate", "EvalResult", "summarize", "format_table", "main"]


@dataclass
class EvalResult:
    """Per-game arrays of one agent's evaluation and their summary."""

    agent: str
    games: int
    seed: int
    stats: dict  #: per game: "win" (bool), "return", "length", game extras
    seconds: float
    illegal: int = 0
    summary: dict = field(default_factory=dict)


def evaluate(
    agent,
    core,
    games: int = 1000,
    seed: int = 0,
    *,
    policy_seed: int = 0,
    batch: int = 4096,
    fast: bool = True,
) -> EvalResult:
    """Play ``games`` games (game ``i`` from seed ``seed + i``) with a batched
    ``agent`` (see :mod:`..policy`; the names ``"random"``/``"heuristic"`` are
    accepted too). ``fast``: let random/heuristic play whole games in numba
    when the game offers it."""
    if core.num_players != 1:
        raise ValueError(
            f"evaluate() plays single-agent games; {core.spec.name} is built for "
            f"{core.num_players} players (PvP evaluation is a league: agents/league.py)"
        )
    if isinstance(agent, str):
        agent = make_agent(agent, core, seed=policy_seed)
    hooks = hooks_for(core.spec.name)
    t0 = time.perf_counter()
    seeds = np.arange(seed, seed + games, dtype=np.uint64)
    chunks = []
    illegal = 0
    whole = getattr(agent, "whole_game", None)
    for lo in range(0, games, batch):
        s = seeds[lo : lo + batch]
        out = None
        if fast and whole and hooks.play_whole_games is not None:
            out = hooks.play_whole_games(core, whole, s, policy_seed)
        if out is None:
            out, bad = _play_batched(agent, core, s, hooks)
            illegal += bad
        chunks.append(out)
    stats = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
    res = EvalResult(
        agent=getattr(agent, "name", type(agent).__name__),
        games=games,
        seed=seed,
        stats=stats,
        seconds=time.perf_counter() - t0,
        illegal=illegal,
    )
    res.summary = summarize(res, hooks)
    return res


def _play_batched(agent, core, seeds: np.ndarray, hooks):
    """Every game to its end, all rows stepped together (no autoreset)."""
    n = len(seeds)
    buf = Batch(core, n)
    buf.reset(seeds)
    over = np.zeros(n, np.bool_)
    ret = np.zeros(n, np.float64)
    length = np.zeros(n, np.int64)
    last = np.zeros(n, np.float64)
    illegal = 0
    while not over.all():
        rows = np.flatnonzero(~over)
        buf.actions[rows] = agent.act(buf, rows)
        buf.step()  # finished rows are left untouched
        r = buf.rewards[rows, 0]
        ret[rows] += r
        length[rows] += 1
        ended = rows[buf.terminated[rows] | buf.truncated[rows]]
        over[ended] = True
        last[ended] = buf.rewards[ended, 0]
        illegal += int(buf.illegal[rows].sum())
    stats = dict(hooks.episode_stats(core, buf.states, np.arange(n), last))
    stats["win"] = np.asarray(stats["win"], np.bool_)
    stats["return"] = ret
    stats["length"] = length
    return stats, illegal


def summarize(res: EvalResult, hooks=None) -> dict:
    """Win rate, its 95% Wilson interval and the means of the other stats."""
    win = np.asarray(res.stats["win"], np.bool_)
    k, n = int(win.sum()), len(win)
    lo, hi = wilson(k, n)
    out = {
        "agent": res.agent,
        "games": n,
        "seed": res.seed,
        "wins": k,
        "win_rate": k / n if n else float("nan"),
        "ci95": [lo, hi],
        "seconds": round(res.seconds, 3),
        "illegal_actions": res.illegal,
    }
    for key, v in res.stats.items():
        if key != "win":
            out[f"mean_{key}"] = float(np.mean(v)) if len(v) else float("nan")
    return out


def format_table(summaries: list, hooks=None) -> str:
    """A text table of evaluation summaries."""
    extra = list(hooks.stat_columns) if hooks is not None else []
    w = max([28] + [len(str(s["agent"])) for s in summaries])  # names kept whole
    head = f"{'agent':<{w}} {'games':>6} {'win rate':>9}  {'95% CI':>15}"
    for _, label, _ in extra:
        head += f"  {label:>10}"
    head += f"  {'decisions':>9}"
    lines = [head, "-" * len(head)]
    for s in summaries:
        lo, hi = s["ci95"]
        line = (
            f"{str(s['agent']):<{w}} {s['games']:>6} {s['win_rate']:9.1%}  [{lo:5.1%}, {hi:5.1%}]"
        )
        for key, _, fmt in extra:
            v = s.get(f"mean_{key}")
            line += f"  {fmt.format(v) if v is not None else '-':>10}"
        dec = s.get("mean_length")
        line += f"  {dec:9.1f}" if dec is not None else f"  {'-':>9}"
        lines.append(line)
    return "\n".join(lines)


def build_parser(hooks) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dungeonrl eval", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--agent",
        action="append",
        default=None,
        help="random, heuristic, pretrained:NAME (a shipped agent), module:attribute "
        "(your own, see dungeonrl.agents.protocol) or a saved model (.pt / SB3 .zip / "
        "the checkpoint folder of --backend rllib); repeat to compare (default: "
        "heuristic and random)",
    )
    p.add_argument("--games", type=int, default=None, help="games per agent (default 1000)")
    p.add_argument(
        "--stochastic",
        action="store_true",
        help="sample models' actions instead of taking the most probable",
    )
    p.add_argument(
        "--allow-content-change",
        action="store_true",
        help="load a model trained on another content of the same layout (warns)",
    )
    p.add_argument(
        "--json",
        default=None,
        type=writable_file,
        metavar="PATH",
        help="write the summaries to this JSON file (its folder must exist)",
    )
    p.add_argument(
        "--slow",
        action="store_true",
        help="evaluate random/heuristic through the batched loop, not whole games in numba",
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="PATH",
        help="PvP: write a PNG of the league's ratings here (default: no picture)",
    )
    p.add_argument(
        "--replays",
        default=None,
        metavar="DIR",
        help="PvP: also save replay files of each pairing's first games into DIR "
        "(open them with `dungeonrl serve --replay-dir DIR`)",
    )
    p.add_argument(
        "--replay-games",
        type=int,
        default=2,
        metavar="K",
        help="PvP with --replays: games saved per pairing or lineup (default 2)",
    )
    add_core_options(p, hooks)
    return p


def _spec(game):
    return get_spec(game)


@dataclass
class Setting:
    """The one setting every agent of an ``eval`` plays (see
    :func:`common_setting`)."""

    core_kwargs: dict  #: the core options every agent's games are built with
    words: str  #: ``hooks.describe`` of that core
    source: str  #: where the options came from, in words
    core: object = None  #: the core built from ``core_kwargs``
    #: agent -> the setting it was trained for, where that is not this one
    trained_for: dict = field(default_factory=dict)


def _flag_of(hooks, key: str) -> str:
    for flag, kwargs in hooks.core_options:
        if (kwargs.get("dest") or flag.lstrip("-").replace("-", "_")) == key:
            return flag
    return key


def common_setting(game: str, hooks, agents: list, given: dict, base: dict | None = None):
    """The one setting the ``agents`` all play in one evaluation.

    Options given on the command line (``given``) win. Otherwise the core
    options stored with the saved models among ``agents`` (their training
    setting, ``reward`` aside) apply to every agent, scripted ones included,
    when they agree; models trained for different settings are refused
    (``ValueError`` naming each model, its setting and the options that
    choose one). ``base``: options below all of these (a league's default
    table size). Returns a :class:`Setting`; its ``trained_for`` names every
    model that was trained for another setting than the one played."""
    base = {k: v for k, v in (base or {}).items() if k != "reward"}
    own = {}
    for name in agents:
        path = model_file(name)
        if path is None:
            continue
        check_model_game(path, _spec(game))  # another game's model: ModelSpecError
        own[name] = {k: v for k, v in model_core_kwargs(name).items() if k != "reward"}
    cores: dict = {}

    def words(kw: dict, model=None) -> str:
        key = repr(sorted(kw.items(), key=repr))  # a file's values may not hash
        if key not in cores:
            cores[key] = _core_for(game, kw, model)
        return hooks.describe(cores[key])

    merged = dict(base)
    clash, differ = set(), set()
    for k in sorted({k for kw in own.values() for k in kw} - set(given)):
        stored = {repr(kw[k]) for kw in own.values() if k in kw}
        if len(stored) > 1:  # two models stored different values
            clash.add(k)
        if len(stored) > 1 or any(k not in kw for kw in own.values()):
            differ.add(k)  # ... or one stored a value, another the default
        merged[k] = next(kw[k] for kw in own.values() if k in kw)
    played = {name: words({**base, **kw, **given}, name) for name, kw in own.items()}
    if clash or len(set(played.values())) > 1:
        keys = sorted(clash or differ)
        flags = " / ".join(_flag_of(hooks, k) for k in keys) or "the game's options"
        trained = "; ".join(f"{n}: {w}" for n, w in played.items())
        raise ValueError(
            "the agents were trained for different settings and every agent of one "
            f"evaluation plays the same games ({trained}); give {flags} to play them "
            "all on one setting, or evaluate them separately"
        )
    kw = {**merged, **given}
    final = words(kw, next(iter(own), None))
    core = cores[repr(sorted(kw.items(), key=repr))]
    parts = []
    if own and any(k not in given for kw_ in own.values() for k in kw_):
        parts.append(f"the options stored with {', '.join(own)}")
    if given:
        parts.append("the options given: " + " ".join(_flag_of(hooks, k) for k in given))
    source = "; ".join(parts) or "the game's defaults"
    trained_for = {}
    for name, kw_ in own.items():
        mine = words({**base, **kw_}, name)
        if mine != final:
            trained_for[name] = mine
    return Setting(kw, final, source, core, trained_for)


def _setting_lines(setting: Setting) -> list:
    """Lines saying which agents were trained for another setting."""
    return [
        f"note: {name} was trained for {w}; here it plays {setting.words} like every agent"
        for name, w in setting.trained_for.items()
    ]


def _make(name: str, core, args, opts):
    """The agent ``name`` on ``core`` as the command line asks (seed, greedy
    unless ``--stochastic``, strict about content unless
    ``--allow-content-change``)."""
    return make_agent(
        name,
        core,
        seed=args.seed,
        deterministic=not opts.stochastic,
        strict=not opts.allow_content_change,
    )


def main(args) -> int:
    game = args.env
    hooks = hooks_for(game)
    p = build_parser(hooks)
    try:
        opts = p.parse_args(list(getattr(args, "extra", []) or []))
    except SystemExit as e:
        return int(e.code or 0) and 2
    agents = list(opts.agent or [])
    if getattr(args, "model", None):  # the CLI's own --model
        agents.insert(0, args.model)
    if not agents:
        agents = ["heuristic", "random"] if hooks.heuristic else ["random"]
    games = opts.games
    if games is None:
        cli_eps = getattr(args, "episodes", None)
        games = cli_eps if cli_eps is not None else 1000
    if games < 1:
        print("dungeonrl eval: --games must be >= 1", file=sys.stderr)
        return 2
    given = core_kwargs_from(opts, hooks)
    if getattr(_spec(game), "multi_agent", False):
        return _league_main(args, opts, hooks, agents, games, given)
    try:  # one setting for every agent (a model trained co-op makes them all co-op)
        setting = common_setting(game, hooks, agents, given)
    except (ValueError, OSError) as e:
        print(f"dungeonrl eval: {e}", file=sys.stderr)
        return 2
    core, kw = setting.core, setting.core_kwargs
    summaries = []
    coop_rows = []
    for name in agents:
        try:
            agent = _make(name, core, args, opts)
        except (ValueError, OSError) as e:
            print(f"dungeonrl eval: {e}", file=sys.stderr)
            return 2
        if core.num_players > 1:  # a co-op core: team games with each partner
            coop_rows += _coop_rows(agent, name, core, games, args.seed, hooks, setting)
            continue
        res = evaluate(
            agent, core, games, seed=args.seed, policy_seed=args.seed, fast=not opts.slow
        )
        s = res.summary
        s["agent"] = name if name in ("random", "heuristic") else res.agent
        s["core_kwargs"] = dict(kw)
        s["setting"] = setting.words
        if name in setting.trained_for:
            s["trained_for"] = setting.trained_for[name]
        summaries.append(s)
    if coop_rows:
        return _print_coop(args, opts, coop_rows, games, setting)
    print(
        f"{args.env_id}: {count(games, 'game')} per agent, seeds "
        f"{_seed_range(args.seed, games)}; every agent on {setting.words} ({setting.source})"
    )
    for line in _setting_lines(setting):
        print(line)
    print(format_table(summaries, hooks))
    if opts.json:
        with _open_json(opts.json) as f:
            json.dump(_json_doc(args, setting, summaries=summaries), f, indent=1)
    return 0


def _json_doc(args, setting: Setting, **rest) -> dict:
    """The ``--json`` document: the env id, the one setting every agent
    played (its options, in words, where they came from, and the agents
    trained for another) and the results."""
    return {
        "env_id": args.env_id,
        "setting": setting.words,
        "core_kwargs": dict(setting.core_kwargs),
        "setting_source": setting.source,
        "trained_for": dict(setting.trained_for),
        **rest,
    }


def _seed_range(seed: int, games: int) -> str:
    return str(seed) if games == 1 else f"{seed}..{seed + games - 1}"


def _core_for(game, kw: dict, model):
    """``resolve_core(game, kw)``, where ``kw`` holds the options a saved
    model was trained with (read from the file): options the game does not
    take are a ``ModelSpecError`` naming the file, not a ``TypeError``."""
    try:
        return resolve_core(game, dict(kw))
    except (TypeError, ValueError) as e:
        if model is None or model in ("random", "heuristic"):
            raise
        raise ModelSpecError(
            f"{model}: the game options stored with the model "
            f"({dict(kw)!r:.200}) do not build {game}: {e}"
        ) from None


def _open_json(path):
    """``open(path, "w")`` for ``--json``; a path that became unwritable since
    the command line was read is one line on stderr (exit code 2)."""
    try:
        return open(path, "w")
    except OSError as e:
        print(
            f"dungeonrl eval: error: --json {path!r}: cannot write it ({e.strerror or e})",
            file=sys.stderr,
        )
        raise SystemExit(2) from None


def _coop_rows(agent, name, core, games: int, seed: int, hooks, setting) -> list:
    """Team games of ``agent`` with the heuristic as teammate (when the game
    has one) and with itself in every seat."""
    label = name if name in ("random", "heuristic") else getattr(agent, "name", name)
    partners = (
        [("heuristic", make_agent("heuristic", core, seed=seed))]
        if hooks.heuristic is not None and name != "heuristic"
        else []
    )
    partners.append((label, None))
    rows = []
    for plabel, partner in partners:
        res = play_team(core, agent, partner, games, seed=seed)
        row = match_summary(res, f"{label} + {plabel}", plabel, seed=seed)
        row["partner"] = row.pop("opponent")
        row["setting"] = setting.words
        if name in setting.trained_for:
            row["trained_for"] = setting.trained_for[name]
        rows.append(row)
    return rows


def _print_coop(args, opts, rows, games, setting) -> int:
    print(
        f"{args.env_id}: team games, {count(games, 'game')} per pairing (seeds "
        f"{_seed_range(args.seed, games)}, the agent's seat alternated); every team on "
        f"{setting.words} ({setting.source}); win rate = the team's"
    )
    for line in _setting_lines(setting):
        print(line)
    print(format_table(rows))
    if opts.json:
        with _open_json(opts.json) as f:
            json.dump(_json_doc(args, setting, summaries=rows), f, indent=1)
    return 0


def _league_main(args, opts, hooks, agents, games, given) -> int:
    """``dungeonrl eval`` for a multi-seat game: a round-robin league."""
    if len(agents) < 2:  # one agent: against the reference agents
        agents += [
            r
            for r in (["heuristic", "random"] if hooks.heuristic else ["random"])
            if r not in agents
        ]
    if len(agents) < 2:
        print("dungeonrl eval: a league needs at least two --agent", file=sys.stderr)
        return 2
    try:  # the models' table size unless --players says otherwise; one for all
        setting = common_setting(args.env, hooks, agents, given, base=hooks.train_defaults)
        core, kw = setting.core, dict(setting.core_kwargs)
        built, labels = {}, []
        for name in agents:
            agent = _make(name, core, args, opts)
            label = name if name in ("random", "heuristic") else agent.name
            while label in built:
                label += "'"
            built[label] = agent
            labels.append(label)
    except (ValueError, OSError) as e:
        print(f"dungeonrl eval: {e}", file=sys.stderr)
        return 2
    sides = len(core.spec.teams(core.num_players))
    placement = rating_kind(core.spec, core.num_players) == "openskill" and len(labels) >= sides
    if opts.replays is not None:
        rc = _league_replays(args, opts, core, dict(zip(labels, agents)), sides, kw, placement)
        if rc:
            return rc
    if placement:
        return _placement_league_main(args, opts, core, built, games, sides, setting)
    rows = []
    league = League(built, play=None)
    for a, b in itertools.combinations(labels, 2):
        res = play_match(core, built[a], built[b], games, seed=args.seed)
        s = match_summary(res, f"{a} vs {b}", b, seed=args.seed)
        rows.append(s)
        league.results.append(MatchResult(a, b, s["wins"], s["losses"], s["draws"]))
    print(
        f"{args.env_id}: league, every agent on {setting.words} ({setting.source}), "
        f"{count(games, 'game')} per pairing (seeds {_seed_range(args.seed, games)}, "
        "seats alternated)"
    )
    for line in _setting_lines(setting):
        print(line)
    print(format_table(rows))
    print()
    print(league.format_table())
    _plot(opts, league, core, setting)
    if opts.json:
        with _open_json(opts.json) as f:
            json.dump(_json_doc(args, setting, pairings=rows, ratings=league.table()), f, indent=1)
    return 0


def _plot(opts, league, core, setting) -> None:
    """``--plot PATH``: the league's ratings as a PNG (nothing is drawn or
    written without it)."""
    if not opts.plot:
        return
    try:
        os.makedirs(os.path.dirname(os.path.abspath(opts.plot)), exist_ok=True)
        league.plot(opts.plot, title=f"{core.spec.env_id} league ({setting.words})")
        print(f"wrote {opts.plot}")
    except ImportError:  # pragma: no cover - matplotlib missing
        print("(no plot: matplotlib is not installed)")


def _league_replays(args, opts, core, names: dict, sides: int, kw: dict, placement: bool) -> int:
    """``--replays DIR``: replay files of each pairing (each lineup of a
    placement league) before the league is played."""
    if opts.replay_games < 1:
        print("dungeonrl eval: --replay-games must be >= 1", file=sys.stderr)
        return 2
    if os.path.exists(opts.replays) and not os.path.isdir(opts.replays):
        print(f"dungeonrl eval: --replays {opts.replays} is a file, not a folder", file=sys.stderr)
        return 2
    labels = list(names)
    P = core.num_players
    if placement:
        lineups = [list(c) for c in itertools.combinations(labels, sides)]
    else:
        lineups = [list(c) for c in itertools.combinations(labels, 2)]
    seat_lists = []
    for lineup in lineups:  # one agent per seat: sides repeat round the table
        seat_lists.append([(lab, names[lab]) for lab in (lineup * P)[:P]])
    kw = {k: v for k, v in kw.items() if k != "reward"}
    kw.setdefault("num_players", P)
    try:
        paths = save_league_replays(
            core.spec.name, seat_lists, opts.replay_games, args.seed, opts.replays, kw
        )
    except (ValueError, OSError) as e:
        print(f"dungeonrl eval: --replays: {e}", file=sys.stderr)
        return 2
    print(f"saved {len(paths)} replays in {opts.replays}")
    return 0


def _placement_league_main(args, opts, core, built, games, sides, setting) -> int:
    """The league of a game with teams or more than two sides (the spec's
    facts say so): every lineup of ``sides`` agents, one per side, rated
    from placements with openskill's Plackett-Luce model."""
    league = PlacementLeague(built, table_play(core), sides=sides)
    league.run(games=games, seed=args.seed)
    print(
        f"{args.env_id}: placement league, every agent on {setting.words} "
        f"({setting.source}), {count(games, 'game')} per lineup of {sides} sides "
        f"(seeds from {args.seed}, sides rotated), utility {core.spec.utility}"
    )
    for line in _setting_lines(setting):
        print(line)
    print(league.format_table())
    _plot(opts, league, core, setting)
    if opts.json:
        with _open_json(opts.json) as f:
            json.dump(
                _json_doc(args, setting, rating="openskill-plackett-luce", ratings=league.table()),
                f,
                indent=1,
            )
    return 0
