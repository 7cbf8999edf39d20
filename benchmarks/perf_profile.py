"""Where a kernel's time goes, per compiled function (Linux ``perf`` + ``gdb``).

``perf`` samples numba's compiled code as anonymous JIT addresses; numba
registers its code objects with gdb's JIT interface, so ``gdb`` attached to
the same process names the function behind each address. This command
runs the in-kernel random rollout (observations and masks on) in a child
process, samples it with ``perf record`` for a few seconds, resolves every
sampled address with ``gdb`` and prints the share of samples per function
(functions numba or LLVM inlined count in their caller)::

    python -m dungeonrl.benchmarks.perf_profile unbroken
    python -m dungeonrl.benchmarks.perf_profile dungeon_crawler --players 4 --seconds 10 --top 30
    python -m dungeonrl.benchmarks.perf_profile dungeon_kart --rules --json prof.json
    python -m dungeonrl.benchmarks.perf_profile unbroken --tree /path/to/older/worktree

Needs ``perf`` and ``gdb`` on the PATH and permission to sample another
process (``kernel.perf_event_paranoid`` <= 1, or root). A diagnostic tool,
not part of ``dungeonrl bench``: shares are of samples, so they do not
depend on the machine's speed, but short runs are noisy in the small rows.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .ab import ROLLOUT_PRELUDE, child_env, fill_cache, mode_arg

#: the sampled process (argv[4]: seconds to run at most): warm the
#: kernels, say "ready", roll out until killed
CHILD = (
    ROLLOUT_PRELUDE
    + r"""
limit = float(sys.argv[4])
print("ready", flush=True)
t0 = time.time()
seed = 1
while time.time() - t0 < limit:
    run(50, seed)
    seed += 1
"""
)

_ROW = re.compile(r"^\s*([0-9.]+)%\s+\[[^\]]*\]\s+(\S.*?)\s*$")


def short_name(gdb_line: str) -> str:
    """``dungeonrl::envs::unbroken::rules::fire[abi:...](Record<..>, ...) + 12 in
    section ...`` -> ``envs.unbroken.rules.fire``."""
    s = re.sub(r" \+ \d+ in section .*$| in section .*$", "", gdb_line.strip())
    s = s.split("[abi:")[0].split("(")[0]
    s = s.replace("::", ".")
    return s[len("dungeonrl.") :] if s.startswith("dungeonrl.") else s


def parse_report(text: str) -> list[tuple[float, str]]:
    """(percent, symbol or hex address) rows of ``perf report --stdio``."""
    rows = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = _ROW.match(line)
        if m:
            rows.append((float(m.group(1)), m.group(2)))
    return rows


def aggregate(rows, resolved: dict[str, str]) -> list[tuple[str, float]]:
    """Percent per function: hex addresses through ``resolved`` (address ->
    gdb's answer), named symbols as they are."""
    out: dict[str, float] = {}
    for pct, sym in rows:
        if sym.startswith("0x"):
            ans = resolved.get(sym, "")
            name = short_name(ans) if " in section " in ans else "[unresolved JIT code]"
        else:
            name = sym
        out[name] = out.get(name, 0.0) + pct
    return sorted(out.items(), key=lambda kv: -kv[1])


def resolve(pid: int, addresses: list[str]) -> dict[str, str]:
    """gdb's ``info symbol`` for each address, attached to process ``pid``."""
    if not addresses:
        return {}
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        for a in addresses:
            f.write(f"info symbol {a}\n")
        cmds = f.name
    r = subprocess.run(
        ["gdb", "-batch", "-nx", "-p", str(pid), "-x", cmds],
        capture_output=True,
        text=True,
        timeout=300,
    )
    Path(cmds).unlink(missing_ok=True)
    answers = [
        ln
        for ln in r.stdout.splitlines()
        if " in section " in ln or ln.startswith("No symbol matches")
    ]
    if len(answers) != len(addresses):
        raise SystemExit(
            f"gdb answered {len(answers)} of {len(addresses)} lookups; "
            f"is attaching allowed (ptrace_scope)? {r.stderr[-500:]}"
        )
    return dict(zip(addresses, answers))


def profile(
    game: str, players: int, seconds: float, rules: bool, pythonpath: str | None = None
) -> list[tuple[str, float]]:
    for tool in ("perf", "gdb"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not on the PATH (this profile needs perf and gdb)")
    fill_cache(pythonpath, game, players, mode_arg(rules))  # the child loads, never compiles
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, game, str(players), mode_arg(rules), str(seconds + 120)],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(pythonpath),
        cwd=tempfile.gettempdir(),
    )
    assert child.stdout is not None  # piped
    try:
        if child.stdout.readline().strip() != "ready":
            raise SystemExit(f"the rollout process did not start (exit {child.poll()})")
        time.sleep(0.5)
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "perf.data"
            rec = subprocess.run(
                [
                    "perf",
                    "record",
                    "-F",
                    "4999",
                    "-p",
                    str(child.pid),
                    "-o",
                    str(data),
                    "--",
                    "sleep",
                    str(seconds),
                ],
                capture_output=True,
                text=True,
            )
            if rec.returncode != 0 or not data.exists():
                raise SystemExit(f"perf record failed (perf_event_paranoid?): {rec.stderr[-500:]}")
            rep = subprocess.run(
                ["perf", "report", "-i", str(data), "--no-children", "--sort", "sym", "--stdio"],
                capture_output=True,
                text=True,
            )
        rows = parse_report(rep.stdout)
        resolved = resolve(child.pid, [s for _, s in rows if s.startswith("0x")])
        return aggregate(rows, resolved)
    finally:
        child.kill()
        child.wait()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--players", type=int, default=0, help="seats (default: 1 solo, 4 multi)")
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--rules", action="store_true", help="observations off")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument(
        "--tree",
        type=Path,
        help="profile another checkout's kernels (e.g. a git worktree of an "
        "older commit) instead of this one's",
    )
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    from .ab import here, package_root, revision, seats

    players = seats(a.game, a.players)
    with tempfile.TemporaryDirectory() as tmp:
        root = str(package_root(a.tree, Path(tmp))) if a.tree else None
        rows = profile(a.game, players, a.seconds, a.rules, root)
    print(
        f"{a.game} {players}p, random rollout{' (observations off)' if a.rules else ''}, "
        f"{a.seconds:g} s of perf samples: share per function"
    )
    for name, pct in rows[: a.top]:
        print(f"{pct:6.2f}%  {name}")
    if a.json:
        tree = a.tree or here()
        a.json.write_text(
            json.dumps(
                {
                    "kind": "perf-profile",
                    "revision": revision(tree),
                    "game": a.game,
                    "players": players,
                    "rules_only": a.rules,
                    "seconds": a.seconds,
                    "functions": [{"name": n, "percent": p} for n, p in rows],
                },
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
