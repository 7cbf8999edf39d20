"""Compile every game's kernels ahead of use, in parallel processes.

    python -m dungeonrl.precompile                 # every game, 2 processes
    python -m dungeonrl.precompile unbroken --jobs 1 --profile

The first use of a game compiles its numba kernels and stores them in
numba's on-disk cache; every later process loads them in about a second.
This command pays that first use for every game at once, one process per
game (``--jobs`` at a time), by driving each game through the paths users
take: the Gymnasium env (``reset``, ``step``), the vector env's fused step,
the scripted heuristic (row by row and whole games inside numba) and, for
the multi-seat games, the PettingZoo AEC and Parallel envs and the
self-play view with scripted opponents. ``make`` runs it after installing,
so ``make demo`` and ``make test`` start warm.

It prints the seconds each game took; ``--profile`` adds where the
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

__all__ = ["warm", "precompile", "compile_profile", "markdown", "main"]


def _drive(env_id: str) -> None:
    """One short use of every path of a game."""
    import gymnasium as gym
    import numpy as np

    from .envs.core._batch import resolve_core
    from .envs.core.batch import Batch
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
    if getattr(core, "policy_rows", None) is not None and core.num_players == 1:
        from .agents.evaluate import evaluate

        evaluate("heuristic", core, 2, seed=0)  # whole games inside numba where offered
        evaluate("heuristic", core, 2, seed=0, fast=False)  # row by row
    if spec.multi_agent or spec.max_players > 1:
        _drive_multi(spec, core)


def _drive_multi(spec, core) -> None:
    import importlib

    import numpy as np

    from .agents.selfplay import make_view
    from .envs import catalog

    pz = catalog.ENTRIES[spec.name].pettingzoo if spec.name in catalog.ENTRIES else None
    if pz:
        mod = importlib.import_module(pz)
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
    from .agents.policy import make_agent
    from .agents.selfplay import play_match

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


def warm(env_id: str, profile: bool = False) -> dict:
    """Drive one game (compiling what its cache lacks); returns
    ``{"game", "seconds", "kernels"}``; with ``profile`` also
    ``"entry_points"``, ``"exclusive"`` and ``"compiles"`` (see
    :func:`compile_profile`); without it ``kernels`` is empty."""
    import os

    os.environ.setdefault("DUNGEONRL_QUIET_COMPILE", "1")
    t0 = time.perf_counter()
    out: dict = {"kernels": []}
    if profile:
        from numba.core import event

        listener = event.RecordingListener()
        with event.install_listener("numba:compile", listener):
            _drive(env_id)
        out = compile_profile(listener.buffer)
    else:
        _drive(env_id)
    return {"game": env_id, "seconds": time.perf_counter() - t0, **out}


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
    kernels, entry, excl, count = [], [], {}, {}
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


def _short(name: str) -> str:
    """A kernel's name without the package prefix."""
    for pre in ("dungeonrl.envs.", "dungeonrl."):
        if name.startswith(pre):
            return name[len(pre) :]
    return name


def markdown(results: list, top: int = 4) -> str:
    """A table of :func:`precompile` results run with ``profile``: per game
    the seconds, the compilations, the entry points that took longest and
    the functions with the most own time (with their signature counts)."""
    lines = [
        "| game | seconds (profiled) | compilations | slowest entry points | most own time |",
        "|---|---:|---:|---|---|",
    ]
    for r in sorted(results, key=lambda r: r["game"]):
        entry = sorted(r.get("entry_points", []), key=lambda e: -e[1])[:top]
        own = r.get("exclusive", [])[:top]
        ent = ", ".join(f"`{_short(n)}` {s:.1f} s" for n, s in entry)
        mine = ", ".join(
            f"`{_short(n)}` {s:.1f} s" + (f" ({c} signatures)" if c > 1 else "") for n, s, c in own
        )
        lines.append(
            f"| {r['game']} | {r['seconds']:.0f} | {r.get('compiles', 0)} | {ent} | {mine} |"
        )
    lines.append("")
    lines.append(
        "From an empty numba cache, two games compiling at once; the seconds include "
        "the recording of every compile event. "
        "`NUMBA_CACHE_DIR=$(mktemp -d) python -m dungeonrl.precompile --jobs 2 --profile "
        "--json benchmarks/results/compile_profile.json`."
    )
    return "\n".join(lines)


def _warm_star(args):
    return warm(*args)


def precompile(games=None, jobs: int = 2, profile: bool = False, log=print) -> list:
    """Warm ``games`` (default: every registered game) in ``jobs`` fresh
    processes; returns each game's :func:`warm` result."""
    from .registry import get_spec, list_games

    names = [get_spec(g).env_id for g in (games or list_games())]
    ctx = mp.get_context("spawn")  # fresh interpreters: nothing compiled is shared
    t0 = time.perf_counter()
    out = []
    with ctx.Pool(max(1, min(int(jobs), len(names)))) as pool:
        for r in pool.imap_unordered(_warm_star, [(n, profile) for n in names]):
            log(f"  {r['game']}: {r['seconds']:.1f} s")
            out.append(r)
    log(
        f"compiled {len(names)} game(s) in {time.perf_counter() - t0:.1f} s with {jobs} process(es)"
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
