"""Paired A/B of the kernels between two checkouts.

Did a change to the rules, an encoder or the engine template make the
kernels faster? Timing the two versions one after the other on a shared
machine mostly measures the machine (its speed moves by 1.5x within
seconds). This command starts one measuring process per version and lets
them take turns, each timing ``random_rollout`` (random legal play with
observations and masks, one thread, the figure of the kernel/leduc target)
for about 0.15 s per turn; the result is the median over the rounds of the
per-round speed ratio ``base time / this time``, with its quartiles::

    python -m dungeonrl.benchmarks.ab --base-ref main~1
    python -m dungeonrl.benchmarks.ab --base /path/to/other/checkout \\
        --games unbroken,dungeon_crawler:4
    python -m dungeonrl.benchmarks.ab --base-ref v0 --rules --rounds 60 --json ab.json
    python -m dungeonrl.benchmarks.ab --base-ref main~1 --batch 4096   # the vector envs' fused step
    python -m dungeonrl.benchmarks.ab --base-ref main~1 --batch 4096 --obs-dtype float16

``--base-ref`` checks the revision out with ``git worktree`` into a
temporary folder (removed afterwards); ``--base`` uses a checkout as it
is. Each side runs from its own source tree, with its own numba cache (the
first run of a side compiles its kernels: a game's first step from an empty
cache takes 17 to 32 s on 2 cores, ``benchmarks/results/cold_start.json``), and
each side's kernels are loaded into the cache by a process of their own
before the measuring process starts (see :func:`fill_cache`). The
measuring processes use only the registry and the benchmark suite's
``make_core``, so any revision that has those can be the base.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from ..envs.catalog import GAMES

#: what both measuring scripts start with (this one and perf_profile's):
#: argv[1:4] = game, players, mode: "0" random legal play with observations
#: and masks inside numba (``random_rollout``), "1" the same with
#: observations off (``random_rollout_rules``), "batch:N" the vector envs'
#: fused ``step_autoreset`` on N rows ("batch16:N": with the compact
#: observation, ``obs_dtype="float16"``), with actions drawn from the masks by
#: the benchmark suite's sampler and the observation written into one of
#: three arrays in turn (as a training loop's vector env hands them out).
#: ``run(k, seed)`` plays ``k`` decisions per row (``k`` fused steps), and
#: ``stats[0]`` counts the env-steps. It uses only the registry, the
#: suite's ``make_core`` and sampler and the batch buffers, so it runs
#: against older checkouts too.
ROLLOUT_PRELUDE = r"""
import sys, time
import numpy as np
import dungeonrl  # noqa: F401
from dungeonrl.registry import get_spec
from dungeonrl.benchmarks.suite.games import make_core
game, players, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
core = make_core(get_spec(game), players)
stats = np.zeros(4, np.int64)
if mode.startswith("batch"):
    try:
        from dungeonrl.envs.core.batch import Batch
    except ImportError:  # a base checkout from before the batch object had its module
        from dungeonrl.envs.core.common import BatchBuffers as Batch
    from dungeonrl.benchmarks.suite.checks import RandomLegalSampler
    kind, _, count = mode.partition(":")
    n = int(count)
    buf = Batch(core, n, "float16") if kind == "batch16" else Batch(core, n)
    buf.reset(np.arange(n, dtype=np.uint64))
    sampler = RandomLegalSampler(0)
    pool = [buf.obs, np.zeros_like(buf.obs), np.zeros_like(buf.obs)]
    def run(k, seed):
        for j in range(k):
            sampler.batch(buf.masks, buf.actions)
            buf.obs = pool[j % 3]
            buf.step_autoreset()
        stats[0] += k * n
else:
    rules = mode == "1"
    n = 1024
    st = core.alloc(n)
    core.reset(st, np.arange(n, dtype=np.uint64))
    obs = np.zeros((n, core.spec.obs_size), np.float32)
    masks = np.zeros((n, core.spec.num_actions), np.int8)
    def run(k, seed):
        if rules:
            core.random_rollout_rules(st, k, seed, masks, stats)
        else:
            core.random_rollout(st, k, seed, obs, masks, stats)
run(1, 0)
"""

#: the measuring process: started once per side (argv[4]: seconds per
#: turn), then one timed call of the rollout per line read on stdin,
#: answering microseconds per step
SERVER = (
    ROLLOUT_PRELUDE
    + r"""
turn_s = float(sys.argv[4])
k = 1
while True:
    t = time.perf_counter(); run(k, 1); dt = time.perf_counter() - t
    if dt > 0.03:
        break
    k *= 2
k = max(1, int(k * turn_s / dt))
print("ready", flush=True)
r = 0
for line in sys.stdin:
    stats[:] = 0
    r += 1
    t = time.perf_counter(); run(k, 100 + r); dt = time.perf_counter() - t
    print(f"{dt / max(int(stats[0]), 1) * 1e6:.6f}", flush=True)
"""
)

#: top-level folders that become subpackages of ``dungeonrl`` (pyproject's
#: [tool.setuptools.package-dir])
SUBPACKAGES = ("envs", "encoders", "agents", "benchmarks")


def package_root(tree: Path, dest: Path) -> Path:
    """A folder holding ``dungeonrl/`` made of links into checkout ``tree``
    (the layout an installed copy has), for ``PYTHONPATH``."""
    tree = Path(tree).resolve()
    if not (tree / "dungeonrl" / "__init__.py").is_file():
        raise SystemExit(f"{tree} is not a dungeonrl checkout (no dungeonrl/__init__.py)")
    pkg = dest / "dungeonrl"
    pkg.mkdir(parents=True, exist_ok=True)
    for item in (tree / "dungeonrl").iterdir():
        if item.name != "__pycache__":
            (pkg / item.name).symlink_to(item)
    for sub in SUBPACKAGES:
        if (tree / sub).is_dir():
            (pkg / sub).symlink_to(tree / sub)
    return dest


def here() -> Path:
    return Path(__file__).resolve().parent.parent


def revision(tree: Path) -> str:
    """The commit checked out in ``tree`` (short hash, ``+changes`` when the
    working tree differs from it outside ``benchmarks/results``), or
    "unknown" outside git."""

    def git(*args):
        return subprocess.run(
            ["git", "-C", str(tree), *args], capture_output=True, text=True
        ).stdout.strip()

    rev = git("rev-parse", "--short", "HEAD")
    if not rev:
        return "unknown"
    changed = git(
        "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)benchmarks/results"
    )
    return rev + ("+changes" if changed else "")


def parse_games(text: str) -> list[tuple[str, int]]:
    """``unbroken,dungeon_crawler:4`` -> [("unbroken", 0), ("dungeon_crawler", 4)]
    (0: the game's default, see :func:`seats`)."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, _, p = part.partition(":")
        try:
            players = int(p) if p else 0
        except ValueError:
            raise SystemExit(f"bad game {part!r}: expected NAME or NAME:PLAYERS") from None
        out.append((name, players))
    if not out:
        raise SystemExit("no games given")
    return out


def seats(name: str, players: int = 0) -> int:
    """The seats to measure ``name`` with: ``players``, or 0 for 4 where the
    suite measures 4 (else the game's first measured count, 1 for a solo
    game). An unknown game or an unsupported count exits with the
    registry's message."""
    import dungeonrl  # noqa: F401
    from dungeonrl.envs.core.errors import UnknownGameError
    from dungeonrl.registry import get_spec

    from .suite.games import player_counts

    try:
        spec = get_spec(name)
    except UnknownGameError as e:
        raise SystemExit(str(e)) from None
    if not players:
        counts = player_counts(spec)
        return 4 if 4 in counts else counts[0]
    try:
        spec.api_for(players)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    return players


def summarize(base_us, this_us) -> dict:
    """Per-round ratios base/this (> 1: this version is faster)."""
    ratios = sorted(b / t for b, t in zip(base_us, this_us))
    q = len(ratios)
    return {
        "rounds": q,
        "base_us": statistics.median(base_us),
        "this_us": statistics.median(this_us),
        "speedup": statistics.median(ratios),
        "q1": ratios[q // 4],
        "q3": ratios[(3 * q) // 4],
        "min": ratios[0],
        "max": ratios[-1],
    }


def child_env(root) -> dict:
    """The environment of a measuring process importing ``root``'s package
    (None: this checkout as installed)."""
    env = dict(os.environ)
    if root is not None:
        env["PYTHONPATH"] = str(root)
    return env


def mode_arg(rules: bool, batch: int = 0, obs_dtype: str = "float32") -> str:
    """The prelude's mode argument (see ``ROLLOUT_PRELUDE``)."""
    if batch:
        return f"{'batch16' if obs_dtype == 'float16' else 'batch'}:{int(batch)}"
    return "1" if rules else "0"


def fill_cache(root, game: str, players: int, mode: str) -> None:
    """Load (compiling if needed) ``root``'s kernels for ``game`` once in a
    process of its own, so that the measuring process loads them from
    numba's disk cache. A process that compiled its kernels itself runs
    them measurably slower than one that loaded them (up to 1.2x on the
    Unbroken rollout here, same code on both sides), which would favour
    whichever side had a warm cache."""
    r = subprocess.run(
        [sys.executable, "-c", ROLLOUT_PRELUDE, game, str(players), mode],
        env=child_env(root),
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    if r.returncode != 0:
        raise SystemExit(
            f"loading the kernels of {root or 'this checkout'} failed:\n{r.stderr[-2000:]}"
        )


class Side:
    def __init__(self, root: Path, game: str, players: int, mode: str, turn_s: float):
        fill_cache(root, game, players, mode)
        self.p = subprocess.Popen(
            [sys.executable, "-c", SERVER, game, str(players), mode, str(turn_s)],
            env=child_env(root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=tempfile.gettempdir(),
        )
        assert self.p.stdin is not None and self.p.stdout is not None  # both piped
        self.stdin, self.stdout = self.p.stdin, self.p.stdout
        line = self.stdout.readline().strip()
        if line != "ready":
            self.close()
            raise SystemExit(
                f"the measuring process for {root} did not start "
                f"(exit {self.p.returncode}); run it by hand to see why"
            )

    def turn(self) -> float:
        self.stdin.write("go\n")
        self.stdin.flush()
        return float(self.stdout.readline())

    def close(self):
        try:
            self.stdin.close()
        except OSError:
            pass
        self.p.wait(timeout=60)


def compare(
    base_root: Path,
    this_root: Path,
    game: str,
    players: int,
    rounds: int,
    rules: bool,
    turn_s: float,
    batch: int = 0,
    obs_dtype: str = "float32",
) -> dict:
    mode = mode_arg(rules, batch, obs_dtype)
    a = Side(base_root, game, players, mode, turn_s)
    b = Side(this_root, game, players, mode, turn_s)
    try:
        ta, tb = [], []
        for i in range(rounds):
            if i % 2:
                tb.append(b.turn())
                ta.append(a.turn())
            else:
                ta.append(a.turn())
                tb.append(b.turn())
    finally:
        a.close()
        b.close()
    return dict(
        game=game,
        players=players,
        rules_only=rules,
        batch=batch,
        obs_dtype=obs_dtype,
        **summarize(ta, tb),
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--base", type=Path, help="a checkout to compare against, as it is")
    src.add_argument("--base-ref", help="a git revision of this checkout to compare against")
    ap.add_argument(
        "--games",
        default=",".join(GAMES),
        help="NAME or NAME:PLAYERS, comma-separated (default: every game of the catalog, "
        "each at its default seats)",
    )
    ap.add_argument("--rounds", type=int, default=40, help="turns of each side per game")
    ap.add_argument("--turn-seconds", type=float, default=0.15)
    ap.add_argument(
        "--rules", action="store_true", help="time random_rollout_rules (observations off) instead"
    )
    ap.add_argument(
        "--batch",
        type=int,
        default=0,
        metavar="N",
        help="time the vector envs' fused step on N rows instead (actions from "
        "each side's benchmark sampler; us per env-step)",
    )
    ap.add_argument(
        "--obs-dtype",
        default="float32",
        choices=("float32", "float16"),
        help="with --batch: the observation the fused step writes (float16: the compact "
        "one; both sides must have it)",
    )
    ap.add_argument("--json", type=Path, help="also write the results here")
    a = ap.parse_args(argv)
    if a.rounds < 2:
        ap.error("--rounds must be at least 2")
    if a.batch < 0 or (a.batch and a.rules):
        ap.error("--batch takes a positive number of rows and excludes --rules")
    if a.obs_dtype != "float32" and not a.batch:
        ap.error("--obs-dtype is for the fused step: give --batch N")
    games = [(g, seats(g, p)) for g, p in parse_games(a.games)]
    tmp = Path(tempfile.mkdtemp(prefix="dungeonrl-ab-"))
    worktree = None
    try:
        if a.base_ref:
            worktree = tmp / "base"
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(here()),
                    "worktree",
                    "add",
                    "--detach",
                    str(worktree),
                    a.base_ref,
                ],
                check=True,
                capture_output=True,
            )
            base_tree = worktree
        else:
            base_tree = a.base
        base_root = package_root(base_tree, tmp / "base-pkg")
        this_root = package_root(here(), tmp / "this-pkg")
        rows = []
        for game, players in games:
            r = compare(
                base_root,
                this_root,
                game,
                players,
                a.rounds,
                a.rules,
                a.turn_seconds,
                a.batch,
                a.obs_dtype,
            )
            rows.append(r)
            print(
                f"{game} {players}p: base {r['base_us']:.4f} us/step, this {r['this_us']:.4f}; "
                f"speedup {r['speedup']:.3f}x (quartiles {r['q1']:.3f}-{r['q3']:.3f}, "
                f"{r['rounds']} rounds)",
                flush=True,
            )
        if a.json:
            a.json.write_text(
                json.dumps(
                    {
                        "kind": "ab",
                        "base": revision(base_tree),
                        "this": revision(here()),
                        "rules_only": a.rules,
                        "batch": a.batch,
                        "obs_dtype": a.obs_dtype,
                        "turn_seconds": a.turn_seconds,
                        "results": rows,
                    },
                    indent=1,
                )
                + "\n"
            )
    finally:
        if worktree is not None:
            subprocess.run(
                ["git", "-C", str(here()), "worktree", "remove", "--force", str(worktree)],
                capture_output=True,
            )
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
