"""Compile every game's kernels ahead of use, in parallel processes.

    python -m dungeonrl.precompile                 # every game, 2 processes
    python -m dungeonrl.precompile unbroken --jobs 1 --profile

The first use of a game compiles its numba kernels and stores them in
numba's on-disk cache; every later process loads them in about a second.
This command pays that first use for every game at once, in ``--jobs``
processes, by driving each game through the paths users take, in two parts:

* ``envs``: the Gymnasium env (``reset``, ``step``), the vector env's
  fused step and, for the multi-seat games, the PettingZoo AEC and
  Parallel envs (where a Gymnasium env seats scripted opponents, their
  policy comes with it);
* ``agents``: the scripted heuristic (row by row and whole games inside
  numba) and, for the multi-seat games, matches with scripted seats and
  the self-play view.

A game's ``agents`` part starts once its ``envs`` part is done (the rules
it shares then load from the cache instead of compiling twice); the
processes take every game's ``envs`` part first, the longest first, then
the ``agents`` parts, so all four envs are usable before the rest is
done. ``make`` runs it after installing, so ``make demo`` and ``make test``
start warm.

It prints the seconds each part took and when every game's envs were
ready; ``--profile`` adds where the
compile time went (numba's ``numba:compile`` events): the entry points an
adapter called, with their callees' compilation, and each function's own
time summed over every signature it was compiled for (see
:func:`compile_profile`); ``--json PATH`` writes both.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from .envs import catalog

__all__ = ["warm", "precompile", "compile_profile", "main"]


def _drive_env(env_id: str) -> None:
    """The envs' paths: the Gymnasium env, the vector env's fused step and,
    for a multi-seat game, its PettingZoo envs."""
    import gymnasium as gym
    import numpy as np

    from .envs.core.batch import Batch
    from .envs.core.common import resolve_core
    from .registry import get_spec

    spec = get_spec(env_id)
    env = gym.make(spec.env_id)
    obs, info = env.reset(seed=0)
    mask = info.get("action_mask")
    for _ in range(3):
        legal = np.flatnonzero(mask) if mask is not None else [0]
        obs, _, term, trunc, info = env.step(int(legal[0]))
        mask = info.get("action_mask")
        if term or trunc:
            break
    env.close()
    core = resolve_core(spec.name, {})
    buf = Batch(core, 4)
    buf.reset(np.arange(4, dtype=np.uint64))
    for _ in range(3):
        buf.actions[:] = (buf.masks != 0).argmax(axis=1)
        buf.fused_step()


def _drive_pettingzoo(spec) -> None:
    """The PettingZoo AEC and Parallel envs of a multi-seat game."""
    import importlib

    from .envs import catalog

    entry = catalog.ENTRIES.get(spec.name)
    if entry is None or not entry.pettingzoo:
        return
    mod = importlib.import_module(entry.pettingzoo)
    aec = mod.env()
    aec.reset(seed=0)
    for _ in range(4):
        obs, _, term, trunc, info = aec.last()
        aec.step(None if term or trunc else _first_legal(obs, info))
    aec.close()
    par = mod.parallel_env()
    obs, infos = par.reset(seed=0)
    acts = {a: _first_legal(o, infos.get(a, {})) for a, o in obs.items()}
    if acts:
        par.step(acts)
    par.close()


def _drive_agents(env_id: str) -> None:
    """The agents' paths: the scripted heuristic (whole games inside numba
    and row by row) and, for the multi-seat games, matches with scripted
    seats and the self-play view."""
    import numpy as np

    from .envs.core.common import resolve_core
    from .registry import get_spec

    spec = get_spec(env_id)
    core = resolve_core(spec.name, {})
    if getattr(core, "policy_rows", None) is not None and core.num_players == 1:
        from .agents.commands.evaluate import evaluate

        evaluate("heuristic", core, 2, seed=0)  # whole games inside numba where offered
        evaluate("heuristic", core, 2, seed=0, fast=False)  # row by row
    if getattr(core, "policy_rows", None) is not None:
        from .agents.policy import make_agent

        make_agent("search?sims=2&rollouts=1", core).warm()  # the search's compiled tree
    if not (spec.multi_agent or spec.max_players > 1):
        return
    from .agents.algos.selfplay import make_view, play_match
    from .agents.policy import make_agent

    if getattr(core, "policy_rows", None) is not None:
        heur = make_agent("heuristic", core)
        play_match(core, heur, heur, 2, seed=0)  # scripted seats inside numba
        play_match(core, make_agent("random", core), heur, 2, seed=0)
    if len(spec.teams(core.num_players)) > 1:
        view = make_view(core, 4, "heuristic:0.5,random:0.5", seed=0)
        view.reset(np.arange(4, dtype=np.uint64))
        for _ in range(3):
            view.actions[:] = (view.masks != 0).argmax(axis=1)
            view.step()


def _first_legal(obs, info) -> int:
    import numpy as np

    mask = obs.get("action_mask") if isinstance(obs, dict) else info.get("action_mask")
    legal = np.flatnonzero(mask) if mask is not None else np.zeros(0, np.int64)
    return int(legal[0]) if len(legal) else 0


#: a game's parts in the order they must run (see the module docstring)
PARTS = ("envs", "agents")

#: about the seconds each part of a game takes from an empty cache in one
#: process, by env id, from each game's declaration (``GameEntry.compile_seconds``;
#: ``NUMBA_CACHE_DIR=$(mktemp -d) python -m dungeonrl.precompile GAME --jobs 1``
#: prints them): used only to start the longest work first; a stale or missing
#: figure costs wall time, never a kernel
PART_SECONDS = {
    g.env_id: dict(g.compile_seconds) for g in catalog.ENTRIES.values() if g.compile_seconds
}


def _drive(env_id: str, part: str = "all") -> None:
    """Drive ``part`` of a game: ``"envs"``, ``"agents"`` or ``"all"``."""
    if part not in ("all", *PARTS):
        raise ValueError(f"part must be 'all', 'envs' or 'agents', not {part!r}")
    if part in ("all", "envs"):
        _drive_env(env_id)
    if part in ("all", "agents"):
        _drive_agents(env_id)


def warm(env_id: str, profile: bool = False, part: str = "all") -> dict:
    """Drive one game, or one ``part`` of it (``"envs"``, ``"agents"``),
    compiling what its cache lacks; returns ``{"game", "part", "seconds",
    "kernels"}``; with ``profile`` also ``"entry_points"``, ``"exclusive"``
    and ``"compiles"`` (see :func:`compile_profile`); without it
    ``kernels`` is empty."""
    import os

    os.environ.setdefault("DUNGEONRL_QUIET_COMPILE", "1")
    t0 = time.perf_counter()
    out: dict = {"kernels": []}
    if profile:
        from numba.core import event

        listener = event.RecordingListener()
        with event.install_listener("numba:compile", listener):
            _drive(env_id, part)
        out = compile_profile(listener.buffer)
    else:
        _drive(env_id, part)
    return {"game": env_id, "part": part, "seconds": time.perf_counter() - t0, **out}


def merge(parts: list) -> dict:
    """One game's :func:`warm` results of its parts as one: seconds and
    compiles summed, kernels and entry points listed together (in the order
    the parts ran), each function's own time summed; ``"parts"`` keeps the
    seconds of each."""
    out: dict = {
        "game": parts[0]["game"],
        "seconds": sum(r["seconds"] for r in parts),
        "parts": {r["part"]: r["seconds"] for r in parts},
        "kernels": sorted((k for r in parts for k in r["kernels"]), key=lambda k: -k[1]),
    }
    if any("compiles" in r for r in parts):
        own: dict = {}
        for r in parts:
            for name, sec, n in r.get("exclusive", []):
                was = own.get(name, (0.0, 0))
                own[name] = (was[0] + sec, was[1] + n)
        out["entry_points"] = [e for r in parts for e in r.get("entry_points", [])]
        out["exclusive"] = [[n, s, c] for n, (s, c) in sorted(own.items(), key=lambda i: -i[1][0])]
        out["compiles"] = sum(r.get("compiles", 0) for r in parts)
    return out


def compile_profile(buffer) -> dict:
    """Where compile time went, from numba's ``numba:compile`` events
    (``[(timestamp, event), ...]``, starts and ends nested as the compiler
    recursed into callees):

    * ``kernels``: ``[name, seconds]`` per compilation, its callees'
      compilation included, longest first;
    * ``entry_points``: the same for the compilations started from Python
      (the kernels an adapter calls), in the order they ran;
    * ``exclusive``: ``[name, seconds, compiles]`` per function, its own
      time only (callees excluded) summed over every signature it was
      compiled for, longest first; ``compiles`` above 1 means one function
      compiled more than once (argument types or literal values differing);
    * ``compiles``: how many compilations ran.
    """
    stack: list = []
    kernels: list[list] = []  # [name, inclusive seconds]
    entry: list[list] = []
    excl: dict[str, float] = {}
    count: dict[str, int] = {}
    for ts, ev in buffer:
        name = _name(ev)
        if ev.is_start:
            stack.append([name, ts, 0.0])
            continue
        if not stack:
            continue
        name, start, child = stack.pop()
        incl = ts - start
        kernels.append([name, incl])
        excl[name] = excl.get(name, 0.0) + incl - child
        count[name] = count.get(name, 0) + 1
        if stack:
            stack[-1][2] += incl
        else:
            entry.append([name, incl])
    kernels.sort(key=lambda r: -r[1])
    ranked = sorted(excl, key=lambda n: -excl[n])
    return {
        "kernels": kernels,
        "entry_points": entry,
        "exclusive": [[n, excl[n], count[n]] for n in ranked],
        "compiles": len(kernels),
    }


def _name(ev) -> str:
    d = ev.data or {}
    disp = d.get("dispatcher")
    fn = getattr(disp, "py_func", None)
    if fn is not None:
        return f"{fn.__module__}.{fn.__qualname__}"
    return str(d.get("name", "?"))


def _order(names: list) -> list:
    """The games longest ``envs`` part first (unmeasured ones last, in the
    order given)."""
    return sorted(names, key=lambda n: -PART_SECONDS.get(n, {}).get("envs", 0.0))


def precompile(games=None, jobs: int = 2, profile: bool = False, log=print) -> list:
    """Warm ``games`` (default: every registered game) in ``jobs`` fresh
    processes, every game's ``envs`` part first (longest first), a game's
    ``agents`` part once its ``envs`` part is done; returns one
    result per game (:func:`merge`), in the order the games finished, each
    with ``"ready"``: the seconds from the start until its ``envs`` part
    and its last part were done."""
    from .registry import get_spec, list_games

    names = list(dict.fromkeys(get_spec(g).env_id for g in (games or list_games())))
    ctx = mp.get_context("spawn")  # fresh interpreters: nothing compiled is inherited
    workers = max(1, min(int(jobs), len(names)))
    t0 = time.perf_counter()
    envs_todo = _order(names)
    agents_todo: list = []
    parts: dict = {n: [] for n in names}
    ready: dict = {n: {} for n in names}
    out = []
    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        running: dict = {}

        def submit() -> None:
            while len(running) < workers and (envs_todo or agents_todo):
                if envs_todo:
                    name, part = envs_todo.pop(0), "envs"
                else:
                    agents_todo.sort(key=lambda n: -PART_SECONDS.get(n, {}).get("agents", 0.0))
                    name, part = agents_todo.pop(0), "agents"
                running[pool.submit(warm, name, profile, part)] = name

        submit()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                name = running.pop(fut)
                r = fut.result()
                ready[name][r["part"]] = time.perf_counter() - t0
                log(f"  {name} ({r['part']}): {r['seconds']:.1f} s")
                parts[name].append(r)
                if r["part"] == "envs":
                    agents_todo.append(name)
                else:
                    out.append({**merge(parts[name]), "ready": ready[name]})
            submit()
    total = time.perf_counter() - t0
    envs = max(r["ready"]["envs"] for r in out)
    log(
        f"compiled {len(names)} game(s) in {total:.1f} s with {workers} process(es); "
        f"every game's envs ready at {envs:.1f} s"
    )
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.precompile",
        description=__doc__.split("\n\n")[1].replace("\n", " "),
    )
    p.add_argument("games", nargs="*", help="games to compile (default: all)")
    p.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    p.add_argument("--profile", action="store_true", help="list the slowest kernels")
    p.add_argument("--json", default=None, help="write the timings here")
    a = p.parse_args(argv)
    if a.jobs < 1:
        p.error("--jobs must be >= 1")
    try:
        res = precompile(a.games or None, a.jobs, a.profile)
    except (KeyError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.profile:
        for r in res:
            print(f"{r['game']}: {r['compiles']} compilations; entry points")
            for name, sec in r["entry_points"]:
                print(f"  {sec:6.1f} s  {name}")
            print("  own time (callees excluded), summed over signatures:")
            for name, sec, n in r["exclusive"][:8]:
                print(f"  {sec:6.1f} s  {name}" + (f"  ({n} signatures)" if n > 1 else ""))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
