"""How much a co-op agent plays on its own turns: the measurement behind
the "lazy teammate" finding on the co-op game's page.

    python -m dungeonrl.benchmarks.coop_behaviour                 # -> results/coop_behaviour.json
    python -m dungeonrl.benchmarks.coop_behaviour --games 100 --out -

In 2-player co-op each seat has its own Main Phase every turn, in which it
plays (cards, buys, spells, attacks on its own or its teammate's threats)
until it ends the phase. :func:`main_phase_activity` plays seeded team
games of an agent beside a teammate (the agent in seat ``i % 2`` of game
``i``) and counts, for the agent's seat only, its Main Phases (each ends
with the phase's end action), the decisions it made in them besides ending
them or handing the turn to its teammate, and the *idle* ones: Main Phases
in which it played nothing.
A teammate that leaves every fight to its partner has an idle share near 1.

The game, its co-op setting, the name of its Main Phase (``core.phase_name``)
and the names of the end and hand-over actions (``spec.action_names``) are
data: ``benchmarks/data/coop_behaviour.toml``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

import numpy as np

from . import datafile

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results", "coop_behaviour.json")
_DATA = datafile.check_keys(
    datafile.load("coop_behaviour"),
    "coop_behaviour.toml",
    ("game", "core_kwargs", "setting", "pairs", "main_phase", "end_action", "pass_action"),
)
#: the game, and the co-op setting of the shipped co-op agent
#: (``benchmarks/data/coop_behaviour.toml``)
GAME, CORE_KWARGS = _DATA["game"], dict(_DATA["core_kwargs"])
#: (agent, teammate) pairs the result file holds
PAIRS = tuple((str(a), str(b)) for a, b in _DATA["pairs"])
#: the phase measured (a ``core.phase_name``), and the names of the actions that
#: end it and that hand the turn to the teammate (``spec.action_names``)
MAIN_PHASE, END_ACTION, PASS_ACTION = (
    str(_DATA[k]) for k in ("main_phase", "end_action", "pass_action")
)


def main_phase_activity(core, agent, partner=None, games: int = 200, seed: int = 0) -> dict:
    """Games ``seed .. seed+games-1`` of ``agent`` (seat ``i % 2`` of game
    ``i``) beside ``partner`` (None: the agent itself) on the 2-seat co-op
    ``core`` (any agent :func:`~dungeonrl.agents.policy.as_agent` takes;
    every decision of both seats goes through the agents, none is
    advanced inside numba).
    Returns the agent seat's ``main_phases``, ``idle`` (Main Phases in which
    it played nothing: it only ended the phase or handed the turn to its
    teammate), ``idle_share``, ``decisions_per_main_phase`` (decisions in
    its Main Phases besides ending them or handing over, per phase),
    ``passes_per_main_phase`` (hand-overs to the teammate), the team's
    ``win_rate`` and the games' ``mean_turns`` (the ``turns`` of the game's
    ``episode_stats``)."""
    from ..agents.algos.selfplay import _MatchView
    from ..agents.policy import as_agent
    from ..envs.core.common import MASK_DTYPE
    from ..envs.core.hooks import hooks_for

    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if core.num_players != 2:
        raise ValueError(f"a 2-seat co-op core is needed, got {core.num_players} seats")
    agent = as_agent(agent, core)
    partner = agent if partner is None else as_agent(partner, core)
    n, spec = games, core.spec
    a_end, a_pass = (spec.action_names.index(a) for a in (END_ACTION, PASS_ACTION))
    states = core.alloc(n)
    core.reset(states, np.arange(seed, seed + n, dtype=np.uint64))
    view = _MatchView(
        states,
        np.zeros((n, spec.obs_size), np.float32),
        np.zeros((n, spec.num_actions), MASK_DTYPE),
    )
    seat_a = np.arange(n) % 2
    rew = np.zeros((n, 2), np.float32)
    ret = np.zeros((n, 2), np.float32)
    te, tr, il = np.zeros(n, np.bool_), np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    acts = np.zeros(n, np.int64)
    acted = np.zeros(n, np.bool_)  # the agent decided something in this Main Phase
    phases = idle = busy = passes = 0
    rows = np.arange(n)
    while len(rows):
        rows, actor = view.observe_live(core, rows, te, tr)
        if not len(rows):
            break
        mine = actor == seat_a[rows]
        for who, sel in ((agent, mine), (partner, ~mine)):
            if sel.any():
                acts[rows[sel]] = who.act(view, rows[sel])
        main = mine & np.array([core.phase_name(states[r]) == MAIN_PHASE for r in rows], bool)
        ends = main & (acts[rows] == a_end)
        hand_over = main & (acts[rows] == a_pass)
        plays = main & ~ends & ~hand_over
        phases += int(ends.sum())
        idle += int((ends & ~acted[rows]).sum())
        busy += int(plays.sum())
        passes += int(hand_over.sum())
        acted[rows[plays]] = True
        acted[rows[ends]] = False
        core.step_rows(states, rows, acts, rew, te, tr, il)
        ret[rows] += rew[rows]
    won = ret[np.arange(n), seat_a] > 0
    stats = hooks_for(spec.name).episode_stats(
        core, states, np.arange(n), ret[np.arange(n), seat_a]
    )
    return {
        "games": n,
        "main_phases": phases,
        "idle": idle,
        "idle_share": idle / phases if phases else None,
        "decisions_per_main_phase": busy / phases if phases else None,
        "passes_per_main_phase": passes / phases if phases else None,
        "win_rate": float(won.mean()),
        "mean_turns": float(np.mean(stats["turns"])),
    }


def measure(pairs=PAIRS, games: int = 1000, seed: int = 0) -> dict:
    """:func:`main_phase_activity` of every (agent, teammate) name pair
    (teammate ``self``: the agent beside itself)."""
    from ..agents.policy import make_agent
    from ..envs.core.common import resolve_core
    from ..machine import machine_info
    from ..registry import get_spec

    core = resolve_core(get_spec(GAME), dict(CORE_KWARGS))
    rows = []
    for a, b in pairs:
        agent = make_agent(a, core)
        mate = None if b == "self" else make_agent(b, core)
        rows.append(
            {"agent": a, "teammate": b, **main_phase_activity(core, agent, mate, games, seed)}
        )
    return {
        "date": datetime.date.today().isoformat(),
        "machine": machine_info(),
        "setting": _DATA["setting"],
        "command": f"python -m dungeonrl.benchmarks.coop_behaviour --games {games} --seed {seed}",
        "rows": rows,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m dungeonrl.benchmarks.coop_behaviour")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=RESULTS, help="result file, or - for stdout only")
    a = p.parse_args(argv)
    res = measure(games=a.games, seed=a.seed)
    for r in res["rows"]:
        print(
            f"{r['agent']:39s} + {r['teammate']:10s} idle {r['idle_share']:.2f}  "
            f"plays/Main Phase {r['decisions_per_main_phase']:.2f}  "
            f"hand-overs {r['passes_per_main_phase']:.2f}  team win {r['win_rate']:.3f}  "
            f"turns {r['mean_turns']:.1f}"
        )
    if a.out != "-":
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")
        print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
