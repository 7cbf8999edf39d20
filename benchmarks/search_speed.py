"""Speed of search: how fast the search agent (``agents/algos/search.py``) runs,
and how much of its time is the tree rather than the compiled rollouts.

    python -m dungeonrl.benchmarks.search_speed                  # -> results/search_speed.json
    python -m dungeonrl.benchmarks.search_speed --decisions 8 --sims 20 --out none
    dungeonrl bench --search [--quick]          # -> ./bench-results/search_speed.json

What is measured
----------------
For each game configuration of :data:`CONFIGS` (Unbroken, Dungeon Crawler
and Dungeon Kart at 2 players, Dungeon Crawler Carl: Unstoppable solo and
2-player co-op) the same fixed set of decisions is searched by three
agents, at the configuration's stated budget (simulations per decision,
``--sims`` to override):

* ``heuristic``: ``search?sims=S&rollout=heuristic``, no network, the
  game's scripted policy in every rollout and in the other seats;
* ``random``: ``search?sims=S&rollout=random``, no network, uniform legal
  play;
* ``prior``: ``search:pretrained:NAME?sims=S``, the shipped agent's
  network as the prior of every node and as the model of the other seats
  (the agent's defaults otherwise: heuristic rollouts).

The decisions are drawn from real games, deterministically: decision
``i`` of ``N`` is game ``seed + i`` played by the heuristic in every seat,
at the fraction ``(i + 0.5) / N`` of its states with more than one legal
action (so the set runs from openings to end games, and no decision is a
forced move the search would skip). Every agent is warmed up on the first
decision (numba's cache loaded, the network read) by a copy of its own,
then fresh agents search all ``N``, pass after pass (the same work each
time), until ``--min-seconds`` of search time (2 by default: a pass of a
cheap configuration lasts hundredths of a second, and one such reading of
the clock swings by a tenth); their counters, summed, give the figures
(``passes`` says how many; ``overhead_quartiles``, the spread of the
passes' own ratios):

* ``sims_per_s``: simulations / ``search_seconds`` (the wall time of its
  ``decide`` calls); ``decisions_per_s`` likewise;
* ``overhead``: ``search_seconds / rollout_seconds``, the search time over
  the time of the compiled rollouts it ran (``play_rows``, ``rollouts``
  per new leaf); the target is at most :data:`TARGET_OVERHEAD` with
  rollout evaluation and no network (``heuristic`` and ``random``);
* ``tree_us_per_sim``: the time outside the rollouts, the network and a
  network opponent, per simulation (selection, stepping the tree's moves,
  the scripted other seats, the determinizations, observations);
* ``inference_share`` (the prior network's logits and values over
  ``search_seconds``) and ``opp_share`` (the network playing the other
  seats): reported for ``prior``, without a target.

Peer, same run, same machine: OpenSpiel's C++ MCTS
(``pyspiel.MCTSBot(game, RandomRolloutEvaluator(n_rollouts=1, seed),
uct_c=2, max_simulations=S, solve=False)``) on its own perfect-information
games (:data:`PEER_GAMES`), ``N`` decisions drawn the same way from
uniformly random games, simulations counted at the root
(``mcts_search(state).explore_count``). Without ``pyspiel`` the run says
so and records ``"open_spiel": {"status": "not installed"}``. The two are
not the same work: one simulation here is a determinization, a path of
real game steps and ``rollouts`` (8) whole games played out to the end,
while an OpenSpiel simulation is one rollout of a small board game; the
peer is a yardstick of what a compiled tree costs, not a race.

No timing is asserted by a test (``tests/bench/test_search_speed.py``
checks the fields and that every ratio is finite and at least 1).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results", "search_speed.json")
#: the target of the search's overhead with rollout evaluation and no network
TARGET_OVERHEAD = 1.5
#: the agent variants, (key, agent string); ``{prior}`` and ``{sims}`` filled in
VARIANTS = (
    ("heuristic", "search?sims={sims}&rollout=heuristic"),
    ("random", "search?sims={sims}&rollout=random"),
    ("prior", "search:{prior}?sims={sims}"),
)
#: the variants the overhead target applies to (rollout evaluation, no network)
TARGETED = ("heuristic", "random")
#: OpenSpiel's perfect-information games measured beside ours
PEER_GAMES = ("tic_tac_toe", "connect_four", "breakthrough")
#: OpenSpiel's MCTS budget (its example's default ``max_simulations``)
PEER_SIMS = 1000
PEER_UCT_C = 2.0
DEFAULT_DECISIONS = 24
#: each agent's passes over the decisions go on until this much search time
#: (a pass of a cheap configuration lasts a few hundredths of a second, too
#: short for one reading of the clock to settle a ratio)
MIN_SECONDS = 2.0
MAX_PASSES = 200
#: the agent's counters a measurement sums over its passes
_COUNTERS = (
    "search_seconds",
    "rollout_seconds",
    "inference_seconds",
    "opp_seconds",
    "simulations",
    "decisions",
)
#: decisions per game of ``dungeonrl bench --search --quick``
QUICK_DECISIONS = 6
#: a heuristic game longer than this is a bug of the game, not a decision
MAX_GAME_STEPS = 20_000


@dataclass(frozen=True)
class GameConfig:
    """One measured configuration: the game, its core options (the
    shipped prior's setting, ``reward`` aside), the prior and the budget."""

    key: str
    game: str
    core_kwargs: dict = field(default_factory=dict)
    prior: str | None = None
    sims: int = 100
    why: str = ""

    @property
    def seats(self) -> int:
        return int(self.core_kwargs.get("num_players", 1))


#: the configurations and their stated budgets: data
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "search_speed.toml")


def load_configs(path: str = DATA) -> tuple[GameConfig, ...]:
    """The measured configurations of ``benchmarks/data/search_speed.toml``."""
    import tomllib

    with open(path, "rb") as f:
        data = tomllib.load(f)
    return tuple(
        GameConfig(
            c["key"],
            c["game"],
            dict(c.get("core_kwargs", {})),
            c.get("prior"),
            int(c.get("sims", 100)),
            c.get("why", ""),
        )
        for c in data.get("configs", [])
    )


#: the configurations and their stated budgets (simulations per decision)
CONFIGS = load_configs()
CONFIG_KEYS = tuple(c.key for c in CONFIGS)


def config(key: str) -> GameConfig:
    for c in CONFIGS:
        if c.key == key:
            return c
    raise ValueError(f"unknown configuration {key!r}; choose from {', '.join(CONFIG_KEYS)}")


def select(names) -> list[str]:
    """The configuration keys ``names`` picks: a key, or a game name for
    every configuration of that game; ``ValueError`` naming the choices
    for anything else."""
    out: list[str] = []
    for name in names:
        keys = [c.key for c in CONFIGS if name in (c.key, c.game)]
        if not keys:
            raise ValueError(
                f"unknown game {name!r}; choose from {', '.join(CONFIG_KEYS)} "
                f"or a game name ({', '.join(sorted({c.game for c in CONFIGS}))})"
            )
        out += [k for k in keys if k not in out]
    return out


def make_core(cfg: GameConfig):
    import dungeonrl  # noqa: F401  (registers the games)

    from ..envs.core.common import resolve_core

    return resolve_core(cfg.game, dict(cfg.core_kwargs))


# --- the decisions ------------------------------------------------------------------------
def decision_states(core, n: int, seed: int = 0) -> np.ndarray:
    """``n`` records (one array of ``core.state_dtype``): decision ``i`` is
    game ``seed + i`` played by the game's scripted policy in every seat,
    taken at the fraction ``(i + 0.5) / n`` of its states with more than
    one legal action. Deterministic: the same ``seed`` and ``n`` give the
    same records."""
    from ..envs.core.batch import Batch
    from ..envs.core.kernel.header import O_PLAYING

    if n < 1:
        raise ValueError(f"decisions must be >= 1, got {n}")
    P = core.num_players
    row = np.zeros(1, np.int64)
    act = np.zeros(1, np.int64)
    rew = np.zeros((1, P), np.float32)
    flags = [np.zeros(1, np.bool_) for _ in range(3)]
    out = core.alloc(n)
    for i in range(n):
        b = Batch(core, 1)
        b.reset(np.array([seed + i], np.uint64))
        st = b.states[:1].copy()
        prng = np.array([[seed * 1_000_003 + i + 1, 0]], np.uint64)
        seen = []
        for _ in range(MAX_GAME_STEPS):
            if int(st["outcome"][0]) != O_PLAYING:
                break
            if int((st["legal"][0] != 0).sum()) > 1:
                seen.append(st.copy())
            core.policy_rows(st, row, prng, act)
            core.step_rows(st, row, act, rew, *flags)
        else:
            raise RuntimeError(f"{core.spec.name} game {seed + i} ran past {MAX_GAME_STEPS} steps")
        if not seen:
            raise RuntimeError(f"{core.spec.name} game {seed + i} had no decision to search")
        out[i] = seen[int((i + 0.5) / n * len(seen))][0]
    return out


# --- our search ---------------------------------------------------------------------------
def _ratio(a: float, b: float) -> float | None:
    return a / b if b > 0 else None


def measure_agent(
    core, text: str, states: np.ndarray, seed: int = 0, min_seconds: float = MIN_SECONDS
) -> dict:
    """One agent string searching every record of ``states``: a warm-up
    decision by a copy, then passes of a fresh agent each over all of them
    (the same work every pass) until ``min_seconds`` of search time (at
    most :data:`MAX_PASSES`); the figures sum the passes, and
    ``overhead_quartiles`` are the quartiles of the passes' own ratios (see
    the module doc)."""
    from ..agents.policy import make_agent

    make_agent(text, core, seed=seed).decide(states[:1])  # numba's cache, the network
    sums = dict.fromkeys(_COUNTERS, 0.0)
    per_pass: list[float] = []
    passes, wall = 0, 0.0
    while passes < 1 or (sums["search_seconds"] < min_seconds and passes < MAX_PASSES):
        agent = make_agent(text, core, seed=seed)
        t0 = time.perf_counter()
        for r in range(len(states)):
            agent.decide(states[r : r + 1])
        wall += time.perf_counter() - t0
        passes += 1
        for name in _COUNTERS:
            sums[name] += float(getattr(agent, name))
        ov = _ratio(agent.search_seconds, agent.rollout_seconds)
        if ov is not None:
            per_pass.append(ov)
    s = sums["search_seconds"]
    roll, inf, opp = sums["rollout_seconds"], sums["inference_seconds"], sums["opp_seconds"]
    n_sims, n_dec = int(sums["simulations"]), int(sums["decisions"])
    tree = s - roll - inf - opp
    fig: dict[str, Any] = {
        "agent": text,
        "rollout": agent.rollout,
        "rollouts_per_leaf": int(agent.cfg.rollouts),
        "prior": agent.cfg.prior,
        "passes": passes,
        "decisions": n_dec,
        "simulations": n_sims,
        "search_seconds": s,
        "rollout_seconds": roll,
        "inference_seconds": inf,
        "opp_seconds": opp,
        "wall_seconds": wall,
        "sims_per_s": _ratio(n_sims, s),
        "decisions_per_s": _ratio(n_dec, s),
        "overhead": _ratio(s, roll),
        "overhead_quartiles": (
            [float(q) for q in np.percentile(per_pass, [25, 50, 75])] if per_pass else None
        ),
        "tree_us_per_sim": _ratio(tree * 1e6, n_sims),
        "rollout_share": _ratio(roll, s),
        "inference_share": _ratio(inf, s),
        "opp_share": _ratio(opp, s),
    }
    return fig


def verdict(key: str, fig: dict) -> str:
    """``met`` / ``missed`` for a targeted variant, else ``reported``."""
    if key not in TARGETED:
        return "reported"
    ov = fig.get("overhead")
    return "met" if ov is not None and ov <= TARGET_OVERHEAD else "missed"


def measure_game(
    cfg: GameConfig,
    decisions: int = DEFAULT_DECISIONS,
    sims: int | None = None,
    seed: int = 0,
    variants=None,
    log=print,
    min_seconds: float = MIN_SECONDS,
) -> dict:
    """Every variant of :data:`VARIANTS` (``variants``: their keys, default
    all) on the decisions of one configuration."""
    core = make_core(cfg)
    budget = int(sims or cfg.sims)
    states = decision_states(core, decisions, seed)
    out: dict[str, Any] = {
        "game": cfg.game,
        "seats": cfg.seats,
        "core_kwargs": dict(cfg.core_kwargs),
        "sims": budget,
        "budget": "--sims" if sims else cfg.why,
        "decisions": int(decisions),
        "decision_seeds": [seed, seed + decisions - 1],
        "variants": {},
    }
    for key, pattern in VARIANTS:
        if variants is not None and key not in variants:
            continue
        if key == "prior" and cfg.prior is None:
            continue
        text = pattern.format(sims=budget, prior=cfg.prior)
        fig = measure_agent(core, text, states, seed, min_seconds)
        fig["target"] = verdict(key, fig)
        out["variants"][key] = fig
        log(f"  {cfg.key} {key:9s} {_row_text(fig)}")
    return out


# --- OpenSpiel's MCTS -----------------------------------------------------------------------
def openspiel_states(game, n: int, seed: int = 0) -> list:
    """``n`` states of ``game``: state ``i`` at the fraction ``(i + 0.5) / n``
    of the non-terminal states of a uniformly random game (Python's
    ``random.Random(seed + i)``; chance by its probabilities)."""
    out = []
    for i in range(n):
        rng = random.Random(seed + i)
        state, seen = game.new_initial_state(), []
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            if len(state.legal_actions()) > 1:
                seen.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
        out.append(seen[int((i + 0.5) / n * len(seen))])
    return out


def measure_openspiel(
    games=PEER_GAMES, sims: int = PEER_SIMS, decisions: int = DEFAULT_DECISIONS, seed: int = 0
) -> dict:
    """OpenSpiel's C++ MCTS with one random rollout per leaf, per game; or
    ``{"status": "not installed", "reason": ...}`` without ``pyspiel``."""
    try:
        import pyspiel
    except ImportError as e:
        return {"status": "not installed", "reason": f"{type(e).__name__}: {e}"}
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver: str | None = version("open_spiel")
    except PackageNotFoundError:
        ver = None
    out: dict[str, Any] = {
        "status": "ok",
        "version": ver,
        "bot": "pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(n_rollouts=1, seed), "
        f"uct_c={PEER_UCT_C}, max_simulations={sims}, max_memory_mb=1000, solve=False)",
        "sims": int(sims),
        "decisions": int(decisions),
        "games": {},
    }
    for name in games:
        game = pyspiel.load_game(name)
        states = openspiel_states(game, decisions, seed)
        bot = pyspiel.MCTSBot(
            game,
            pyspiel.RandomRolloutEvaluator(1, seed),
            PEER_UCT_C,
            int(sims),
            1000,
            False,
            seed,
            False,
        )
        bot.mcts_search(states[0])  # warm-up
        done, took = 0, 0.0
        for st in states:
            t0 = time.perf_counter()
            root = bot.mcts_search(st)
            took += time.perf_counter() - t0
            done += int(root.explore_count)
            del root
        out["games"][name] = {
            "information": str(game.get_type().information).rsplit(".", 1)[-1],
            "simulations": done,
            "seconds": took,
            "sims_per_s": _ratio(done, took),
            "decisions_per_s": _ratio(len(states), took),
            "rollouts_per_leaf": 1,
        }
    return out


# --- one run ------------------------------------------------------------------------------
def run(
    decisions: int = DEFAULT_DECISIONS,
    sims: int | None = None,
    games=None,
    seed: int = 0,
    peers: bool = True,
    peer_sims: int = PEER_SIMS,
    log=print,
    min_seconds: float = MIN_SECONDS,
) -> dict:
    """The whole measurement: every configuration (``games``: their keys,
    default all), then OpenSpiel's MCTS; returns the result dict that
    :func:`save` writes."""
    from ..machine import loadavg, machine_info

    t_start = time.perf_counter()
    res: dict[str, Any] = {
        "benchmark": "dungeonrl.benchmarks.search_speed",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": "python -m dungeonrl.benchmarks.search_speed " + " ".join(sys.argv[1:]),
        "machine": machine_info(),
        "load_before": loadavg(),
        "settings": {
            "decisions": int(decisions),
            "sims": sims,
            "seed": int(seed),
            "min_seconds": float(min_seconds),
        },
        "target": {
            "overhead_max": TARGET_OVERHEAD,
            "applies_to": list(TARGETED),
            "figure": "search_seconds / rollout_seconds",
        },
        "games": {},
    }
    try:
        import torch

        res["torch_threads"] = int(torch.get_num_threads())
    except ImportError:  # pragma: no cover - torch is a core dependency of the agents
        res["torch_threads"] = None
    keys = list(games) if games else list(CONFIG_KEYS)
    for key in keys:
        cfg = config(key)
        log(f"{key} ({cfg.seats} seat{'s' if cfg.seats > 1 else ''})")
        res["games"][key] = measure_game(
            cfg, decisions, sims, seed, log=log, min_seconds=min_seconds
        )
    if peers:
        log("peer: OpenSpiel MCTSBot")
        res["open_spiel"] = measure_openspiel(PEER_GAMES, peer_sims, decisions, seed)
        if res["open_spiel"]["status"] != "ok":
            log(f"  open_spiel: not installed ({res['open_spiel']['reason']})")
    else:
        res["open_spiel"] = {"status": "skipped", "reason": "--no-peers"}
    res["load_after"] = loadavg()
    res["elapsed_s"] = time.perf_counter() - t_start
    return res


# --- tables -------------------------------------------------------------------------------
def _f(x, fmt: str) -> str:
    return "-" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, fmt)


def _row_text(fig: dict) -> str:
    return (
        f"{_f(fig['sims_per_s'], ',.0f')} sims/s, {_f(fig['decisions_per_s'], '.2f')} dec/s, "
        f"search/rollout {_f(fig['overhead'], '.2f')}x, tree {_f(fig['tree_us_per_sim'], ',.0f')} "
        f"us/sim, inference {_f(fig['inference_share'], '.0%')}, opp {_f(fig['opp_share'], '.0%')}"
    )


def rows(res: dict) -> list[list[str]]:
    """The table's rows: ours, then the peer's."""
    out = []
    for key, g in res["games"].items():
        for vkey, fig in g["variants"].items():
            out.append(
                [
                    key,
                    fig["agent"],
                    str(g["sims"]),
                    _f(fig["sims_per_s"], ",.0f"),
                    _f(fig["decisions_per_s"], ".2f"),
                    _f(fig["overhead"], ".2f") + "x",
                    _f(fig["tree_us_per_sim"], ",.0f"),
                    _f(fig["inference_share"], ".0%") if vkey == "prior" else "-",
                    _f(fig["opp_share"], ".0%") if vkey == "prior" else "-",
                    fig["target"],
                ]
            )
    peer = res.get("open_spiel", {})
    for name, fig in peer.get("games", {}).items():
        out.append(
            [
                f"OpenSpiel {name}",
                "MCTSBot, 1 random rollout",
                str(peer["sims"]),
                _f(fig["sims_per_s"], ",.0f"),
                _f(fig["decisions_per_s"], ".2f"),
                "-",
                _f(1e6 / fig["sims_per_s"] if fig["sims_per_s"] else None, ",.1f"),
                "-",
                "-",
                "peer",
            ]
        )
    return out


HEADER = [
    "game",
    "agent",
    "sims/decision",
    "sims/s",
    "decisions/s",
    "search/rollout",
    "tree us/sim",
    "inference share",
    "opp share",
    "target <= 1.5x",
]


def _summary(res: dict) -> str:
    m = res["machine"]
    peer = res.get("open_spiel", {})
    tail = (
        f"; OpenSpiel {peer.get('version')} in the same run"
        if peer.get("status") == "ok"
        else f"; open_spiel: {peer.get('status')}"
    )
    return (
        f"`python -m dungeonrl.benchmarks.search_speed` ({res['created'][:10]}, "
        f"{res['elapsed_s'] / 60:.1f} min) on {m['cpu']}, {m['cores']} cores, torch threads "
        f"{res.get('torch_threads')}; {res['settings']['decisions']} seeded decisions per game"
        f"{_passes_text(res)}; "
        f"load {res['load_before']} before, {res['load_after']} after{tail}. The OpenSpiel rows' "
        "'tree us/sim' column is its whole time per simulation (rollout included)."
    )


def _passes_text(res: dict) -> str:
    """How the passes went: the minimum search time and each agent's count."""
    ms = res["settings"].get("min_seconds")
    counts = [
        int(f["passes"])
        for g in res["games"].values()
        for f in g["variants"].values()
        if "passes" in f
    ]
    if ms is None or not counts:
        return ""
    lo, hi = min(counts), max(counts)
    return f", searched pass after pass until {ms:g} s of search ({lo}-{hi} passes)"


def table(res: dict) -> str:
    body = [HEADER, *rows(res)]
    widths = [max(len(r[i]) for r in body) for i in range(len(HEADER))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in body]
    lines.insert(1, "-" * len(lines[0]))
    return _summary(res) + "\n\n" + "\n".join(lines)


def markdown(res: dict) -> str:
    right = {2, 3, 4, 5, 6, 7, 8}
    head = "| " + " | ".join(HEADER) + " |"
    sep = "|" + "|".join("---:" if i in right else "---" for i in range(len(HEADER))) + "|"
    body = ["| " + " | ".join(r).replace("`", "") + " |" for r in rows(res)]
    return "\n".join([_summary(res), "", head, sep, *body])


def save(res: dict, path: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.benchmarks.search_speed",
        description="speed of the search agent: simulations/s, search time over rollout "
        "time, the network's share; OpenSpiel's MCTS beside it",
    )
    p.add_argument("--decisions", type=int, default=DEFAULT_DECISIONS, help="decisions per game")
    p.add_argument(
        "--sims",
        type=int,
        default=None,
        help="simulations per decision for every game (default: each game's stated budget)",
    )
    p.add_argument(
        "--games",
        default=None,
        help=f"comma-separated configurations (default all: {','.join(CONFIG_KEYS)})",
    )
    p.add_argument("--seed", type=int, default=0, help="first game seed of the decisions")
    p.add_argument(
        "--min-seconds",
        type=float,
        default=MIN_SECONDS,
        help="each agent's passes over the decisions go on until this much search time "
        f"(default {MIN_SECONDS:g}; 0: one pass)",
    )
    p.add_argument("--peer-sims", type=int, default=PEER_SIMS, help="OpenSpiel's max_simulations")
    p.add_argument("--no-peers", action="store_true", help="skip OpenSpiel")
    p.add_argument("--out", default=RESULTS, help=f"JSON path (default {RESULTS}); 'none' to skip")
    p.add_argument("--markdown", action="store_true", help="print the docs' markdown table too")
    return p


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.decisions < 1 or (a.sims is not None and a.sims < 1) or a.peer_sims < 1:
        print("search_speed: --decisions, --sims and --peer-sims must be >= 1", file=sys.stderr)
        return 2
    if not a.min_seconds >= 0:
        print("search_speed: --min-seconds must be >= 0", file=sys.stderr)
        return 2
    try:
        games = select(x for x in (a.games or "").split(",") if x) or None
    except ValueError as e:
        print(f"search_speed: {e}", file=sys.stderr)
        return 2
    res = run(
        a.decisions,
        a.sims,
        games,
        a.seed,
        not a.no_peers,
        a.peer_sims,
        min_seconds=a.min_seconds,
    )
    print()
    print(table(res))
    if a.markdown:
        print()
        print(markdown(res))
    if a.out.lower() != "none":
        save(res, a.out)
        print(f"results: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
