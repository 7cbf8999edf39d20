"""The compile-profile table of docs/benchmarks.md, from the results of
``python -m dungeonrl.precompile --profile --json FILE`` (the precompile
records the figures; this module, in the benchmark layer above it, only
renders them: ``python -m dungeonrl.benchmarks.report``)."""

from __future__ import annotations

__all__ = ["markdown"]


def _short(name: str) -> str:
    """A kernel's name without the package prefix."""
    for pre in ("dungeonrl.envs.", "dungeonrl."):
        if name.startswith(pre):
            return name[len(pre) :]
    return name


def markdown(results: list, top: int = 4) -> str:
    """A table of :func:`dungeonrl.precompile.precompile` results run with ``profile``: per game
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
