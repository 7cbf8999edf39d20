"""The mutation check: can the rule tests fail?

Each game keeps a catalogue of realistic one-line rule bugs beside this
tool, ``benchmarks/mutants/<game>.toml`` (format below). For every mutant
the tool

1. applies it to a *copy* of the checkout (never to the checkout itself):
   the exact original text must occur exactly once in its file, so a
   catalogue that no longer matches the code is an error, not a silent
   survivor;
2. regenerates the game's generated kernels in the copy with the project's
   own generator (``python -m dungeonrl.envs.core.kernel.codegen GAME``),
   with a numba cache of its own (``NUMBA_CACHE_DIR``), so no compiled code
   of the unmutated rules is reused;
3. runs the tests in the copy, one pytest process, ``-x``, each test under a
   time limit (pytest-timeout, ``--timeout``): first the tests the game's
   coverage table (``envs/<game>/README.md``) cites for the mutant's rule,
   then the mutant's targeted tests (the catalogue's ``tests``, else the
   game's). A mutant is *killed* when a test fails or times out; the first
   one is recorded, with whether it is *named for the rule* (the coverage
   table cites it for that rule id; a random-play soak or a golden hash
   never counts);
4. restores the copy (the mutated file, checked byte for byte against what
   it was; the regenerated kernels are removed: they are not checked in,
   and the next run writes them again).

Inside the copy, ``dungeonrl`` is imported from the copy: its
``dungeonrl/`` folder gets links to the package folders (the installed
layout, as ``make typecheck-tree`` builds it), the copy is put first on
``PYTHONPATH``, a ``sitecustomize`` takes the editable install's finder
(which maps ``dungeonrl`` to the checkout) out of the import system, and a
guard plugin fails the run unless ``dungeonrl.envs`` really comes from the
copy. Before the mutants, the same
tests run once on the unmutated copy (the baseline): a test that already
fails would make every mutant look killed, so a failing baseline stops the
game.

Run (a benchmark, not part of ``make test``; it recompiles the game's
kernels for every mutant, minutes per mutant on a busy machine)::

    python -m dungeonrl.benchmarks.mutation [GAME ...] [--mutant ID ...]
        [--jobs N] [--timeout S] [--json PATH] [--no-docs] [--list]

It merges its rows into ``benchmarks/results/mutation.json`` (a row per
mutant, replaced when that mutant runs again; mutants not run keep their
last row, with its commit) and regenerates the table in ``docs/tests.md``
(``python -m dungeonrl.benchmarks.report`` does the same from the JSON).

Catalogue format (TOML), one file per game::

    game = "unbroken"                  # the game package under envs/
    tests = ["tests/unbroken"]         # default targeted tests

    [[mutant]]
    id = "unb-skill-reward-level3"     # unique over every catalogue
    rule = "UNB-190"                   # a rule id of the game's coverage table
    family = "thresholds"              # one of FAMILIES
    file = "envs/unbroken/rules.py"    # path from the repository root
    original = "if st.level <= 3:"     # exact text, found exactly once
    replacement = "if st.level <= 2:"
    tests = ["tests/unbroken/test_rules_battle.py"]  # optional
    equivalent = "why no game can change"            # optional: expected to survive
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
#: the repository root (benchmarks/ is one of its folders)
ROOT = HERE.parent
CATALOGUES = HERE / "mutants"
RESULTS = HERE / "results" / "mutation.json"
DOC = ROOT / "docs" / "tests.md"

#: the families of rule bugs the catalogue spreads over (the issue's list)
FAMILIES = (
    "costs/gains",
    "thresholds",
    "seat/index",
    "skipped effect",
    "inverted condition",
    "chance/ordering",
)
#: the package folders the installed layout maps (pyproject.toml package-dir)
PACKAGE_DIRS = ("envs", "encoders", "agents", "benchmarks")
#: the coverage table's column of tests names these, but they check no one
#: rule: a random-play soak or a golden hash never counts as named for a rule
UNNAMED = re.compile(r"soak|golden")
#: the default per-test time limit of a mutant's run (seconds): a mutant
#: that makes a search or a race endless fails by name instead of hanging
TIMEOUT = 240

GUARD = '''"""pytest plugin of the mutation check: fail unless dungeonrl is the copy's."""
import os


def pytest_configure(config):
    import dungeonrl.envs

    root = os.path.realpath(os.environ["DUNGEONRL_MUTATION_ROOT"])
    got = os.path.realpath(dungeonrl.envs.__file__)
    if not got.startswith(root + os.sep):
        raise RuntimeError(f"mutation check: dungeonrl.envs is {got}, not the copy's ({root})")


def pytest_collection_modifyitems(session, config, items):
    # the tests named for the mutated rule first: pytest orders overlapping
    # arguments (a test and its folder) by the folder's order, not theirs
    first = set(filter(None, os.environ.get("DUNGEONRL_MUTATION_FIRST", "").split(",")))
    items.sort(key=lambda item: item.nodeid.split("[")[0] not in first)


def pytest_runtest_logstart(nodeid, location):
    # a hang inside compiled code ends the process (faulthandler's watchdog),
    # and a crash does too: the running test's name is kept here
    with open(os.environ["DUNGEONRL_MUTATION_CURRENT"], "w") as f:
        f.write(nodeid)
'''


#: the copy's sitecustomize: the editable install's finder (which maps
#: dungeonrl to the checkout) is taken out, so a module the copy lacks is an
#: ImportError, never the checkout's code
SITE = """import sys



def _mine(x):
    return "__editable__" not in getattr(x, "__module__", "")


sys.meta_path[:] = [f for f in sys.meta_path if _mine(f)]
sys.path_hooks[:] = [h for h in sys.path_hooks if _mine(h)]
sys.path_importer_cache.clear()
"""


#: the project's kernel generator, run in the copy only once it is sure the
#: generator it imported is the copy's (it writes files)
CODEGEN = """import os, sys
from dungeonrl.envs.core.kernel import codegen
root = os.path.realpath(os.environ["DUNGEONRL_MUTATION_ROOT"])
if not os.path.realpath(codegen.__file__).startswith(root + os.sep):
    sys.exit(f"mutation check: codegen imported from {codegen.__file__}, not the copy {root}")
sys.exit(codegen.main(sys.argv[1:]))
"""


class CatalogueError(ValueError):
    """A catalogue that does not match the code or breaks the format."""


@dataclasses.dataclass(frozen=True)
class Mutant:
    id: str
    game: str
    rule: str
    family: str
    file: str
    original: str
    replacement: str
    tests: tuple[str, ...]
    equivalent: str = ""


# ---------------------------------------------------------------- catalogue
def load_catalogue(path: Path) -> list[Mutant]:
    """The mutants of one catalogue file, checked for form (not yet
    against the code: see :func:`check_applies`)."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    game = data.get("game")
    if not isinstance(game, str) or not game:
        raise CatalogueError(f"{path}: no 'game'")
    default_tests = tuple(data.get("tests", ()))
    out = []
    for i, m in enumerate(data.get("mutant", ())):
        where = f"{path}: mutant {i} ({m.get('id', '?')})"
        for key in ("id", "rule", "family", "file", "original", "replacement"):
            if not isinstance(m.get(key), str) or not m[key]:
                raise CatalogueError(f"{where}: missing or empty '{key}'")
        unknown = set(m) - {f.name for f in dataclasses.fields(Mutant)}
        if unknown:
            raise CatalogueError(f"{where}: unknown keys {sorted(unknown)}")
        if m["family"] not in FAMILIES:
            raise CatalogueError(f"{where}: family {m['family']!r} is not one of {FAMILIES}")
        if m["original"] == m["replacement"]:
            raise CatalogueError(f"{where}: the replacement equals the original")
        tests = tuple(m.get("tests", default_tests))
        if not tests:
            raise CatalogueError(f"{where}: no tests to run")
        # every key of ``m`` is a Mutant field (checked above); the file's game
        # and the tests (the mutant's own, else the file's) complete it
        out.append(Mutant(**{**m, "game": game, "tests": tests}))
    return out


def load_all(directory: Path = CATALOGUES) -> list[Mutant]:
    mutants: list[Mutant] = []
    for path in sorted(directory.glob("*.toml")):
        mutants += load_catalogue(path)
    seen: set[str] = set()
    for m in mutants:
        if m.id in seen:
            raise CatalogueError(f"mutant id {m.id!r} appears twice")
        seen.add(m.id)
    return mutants


def check_applies(m: Mutant, root: Path) -> str:
    """The mutated text of ``m.file`` under ``root``; the original text must
    occur exactly once (catalogue rot is an error, never a survivor)."""
    path = root / m.file
    if not path.is_file():
        raise CatalogueError(f"{m.id}: no file {m.file}")
    text = path.read_text()
    n = text.count(m.original)
    if n != 1:
        raise CatalogueError(
            f"{m.id}: the original text occurs {n} times in {m.file}, not once: {m.original!r}"
        )
    return text.replace(m.original, m.replacement)


# ---------------------------------------------------------------- coverage
def coverage(game: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Rule id -> the test functions the game's coverage table
    (``envs/<game>/README.md``) cites for it, soaks and golden sets left
    out (they check no one rule)."""
    text = (root / "envs" / game / "README.md").read_text()
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not re.fullmatch(r"[A-Z]+-[A-Z]?\d+\w*", cells[0]):
            continue
        # "test_x..." (an abbreviation some tables use) stands for every test
        # whose name starts so; see named_tests
        names = set(re.findall(r"\btest_\w+(?:\.\.\.)?", " ".join(cells[2:])))
        out.setdefault(cells[0], set()).update(n for n in names if not UNNAMED.search(n))
    return out


def test_files(root: Path) -> dict[str, list[str]]:
    """Test function name -> the test files (from ``root``) defining it."""
    out: dict[str, list[str]] = {}
    for path in sorted((root / "tests").rglob("test_*.py")):
        rel = path.relative_to(root).as_posix()
        for name in re.findall(r"^(?:async )?def (test_\w+)\(", path.read_text(), re.M):
            out.setdefault(name, []).append(rel)
    return out


def named_tests(
    m: Mutant, table: dict[str, set[str]], files: dict[str, list[str]]
) -> tuple[list[str], set[str]]:
    """The node ids and the function names of the tests the coverage table
    cites for ``m.rule``, within the game's own test folders and the
    conformance suite."""
    if m.rule not in table:
        raise CatalogueError(f"{m.id}: rule {m.rule} is not in {m.game}'s coverage table")
    keep = (f"tests/{m.game}/", "tests/conformance/")
    ids: list[str] = []
    names: set[str] = set()
    for cited in sorted(table[m.rule]):
        if cited.endswith("..."):
            found = sorted(n for n in files if n.startswith(cited[:-3]))
        else:
            found = [cited]
        for name in found:
            for f in files.get(name, ()):
                if f.startswith(keep) and not UNNAMED.search(name):
                    ids.append(f"{f}::{name}")
                    names.add(name)
    return ids, names


# ---------------------------------------------------------------- the copy
def source_files(root: Path) -> list[str]:
    """The checkout's files as they are now (tracked and untracked, ignored
    ones left out), from git; without git, every file but caches and
    environments."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z"],
            capture_output=True,
            check=True,
        ).stdout.decode()
        return [f for f in out.split("\0") if f and (root / f).is_file()]
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", ".venv-rllib", "build", "__pycache__", ".pytest_cache"}
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in skip]
            for fn in filenames:
                if not fn.endswith((".nbi", ".nbc", ".pyc")):
                    files.append(os.path.relpath(os.path.join(dirpath, fn), root))
        return files


class Copy:
    """A copy of the checkout that imports itself: the source files, a link
    tree of the installed layout first on ``PYTHONPATH``, and the guard."""

    def __init__(self, root: Path, workdir: Path):
        self.base = Path(tempfile.mkdtemp(prefix="mutation-", dir=workdir))
        self.root = self.base / "repo"
        for rel in source_files(root):
            dst = self.root / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / rel, dst)
        # the installed layout inside the copy's own dungeonrl/: whichever
        # way Python finds the package (PYTHONPATH, or the working directory
        # pytest and ``-m`` put first), its subpackages are the copy's
        for d in PACKAGE_DIRS:
            (self.root / "dungeonrl" / d).symlink_to(Path("..") / d)
        (self.base / "path").mkdir()
        (self.base / "path" / "_mutation_guard.py").write_text(GUARD)
        (self.base / "path" / "sitecustomize.py").write_text(SITE)
        self.n = 0

    def env(self, cache: Path) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(self.base / "path"), str(self.root), *filter(None, [env.get("PYTHONPATH")])]
        )
        env["NUMBA_CACHE_DIR"] = str(cache)
        env["DUNGEONRL_MUTATION_ROOT"] = str(self.root)
        env.pop("DUNGEONRL_STALE_KERNELS", None)
        env.pop("PYTEST_ADDOPTS", None)
        env.pop("PYTEST_XDIST_WORKER", None)
        return env

    def run(
        self, game: str, tests: list[str], timeout: int, cache: Path, first: Sequence[str] = ()
    ) -> dict:
        """Regenerate ``game``'s kernels and run ``tests`` in the copy, the
        node ids ``first`` before the others."""
        env = self.env(cache)
        env["DUNGEONRL_MUTATION_FIRST"] = ",".join(first)
        t0 = time.perf_counter()
        gen = subprocess.run(
            [sys.executable, "-c", CODEGEN, game],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
        )
        if gen.returncode != 0:  # the mutant broke the import or the generator
            return {
                "killed": True,
                "first_failure": "kernel generation",
                "detail": (gen.stderr or gen.stdout).strip().splitlines()[-1:],
                "seconds": round(time.perf_counter() - t0, 1),
            }
        self.n += 1
        xml = self.base / f"junit-{self.n}.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
        cmd += ["-p", "_mutation_guard", "-p", "no:xdist", "-m", "not slow"]
        # pytest-timeout for a hang in Python, faulthandler's watchdog for
        # one inside a kernel (pyproject.toml's pytest options)
        cmd += [f"--timeout={timeout}", "-o", f"faulthandler_timeout={timeout + 30}"]
        cmd += ["-o", "faulthandler_exit_on_timeout=true", f"--junitxml={xml}", *tests]
        current = self.base / f"current-{self.n}"
        env["DUNGEONRL_MUTATION_CURRENT"] = str(current)
        res = subprocess.run(cmd, cwd=self.root, env=env, capture_output=True, text=True)
        seconds = round(time.perf_counter() - t0, 1)
        rc = res.returncode
        failed = first_failure(xml) if rc in (1, 2) else None  # 2: a collection error
        if failed is None and (rc == 1 or rc < 0) and current.exists():
            # the process ended inside that test: the watchdog of a hang in
            # compiled code (faulthandler_timeout, pyproject.toml), or a crash
            why = "ended the run" if rc == 1 else f"crashed, signal {-rc}"
            failed = f"{current.read_text()} ({why})"
        if rc != 0 and failed is None:
            # a usage or internal error, the guard: never a kill
            tail = (res.stdout + res.stderr).strip().splitlines()[-15:]
            raise RuntimeError(f"pytest exited {rc} in the copy:\n" + "\n".join(tail))
        return {"killed": failed is not None, "first_failure": failed, "seconds": seconds}

    def close(self):
        shutil.rmtree(self.base, ignore_errors=True)


def first_failure(xml: Path) -> str | None:
    """The node id of the first failed or erroring test of a JUnit report."""
    if not xml.exists():
        return None
    for case in ET.parse(xml).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            cls = case.get("classname", "")
            # classname "tests.unbroken.test_rules_battle" (+ ".Class") -> file path
            parts = cls.split(".")
            for k in range(len(parts), 0, -1):
                if (ROOT / ("/".join(parts[:k]) + ".py")).exists() or k == 1:
                    path = "/".join(parts[:k]) + ".py"
                    rest = parts[k:]
                    break
            return "::".join([path, *rest, case.get("name", "?")])
    return None


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_mutant(
    cp: Copy, m: Mutant, tests: list[str], first: list[str], named: set[str], timeout: int
) -> dict:
    """Apply ``m`` to the copy, run, restore; the result row."""
    path = cp.root / m.file
    kernels = cp.root / "envs" / m.game / "kernels.py"  # generated, never kept
    keep = {path: path.read_bytes()}
    before = {p: digest(p) for p in keep}
    mutated = check_applies(m, cp.root)
    cache = cp.base / f"numba-{m.id}"
    try:
        path.write_text(mutated)
        res = cp.run(m.game, tests, timeout, cache, first)
    finally:
        for p, data in keep.items():
            p.write_bytes(data)
        kernels.unlink(missing_ok=True)
        shutil.rmtree(cache, ignore_errors=True)
    for p, d in before.items():
        if digest(p) != d:
            raise RuntimeError(f"{m.id}: the copy's {p} was not restored")
    fail = res["first_failure"]
    hit = re.match(r"test_\w*", fail.split("::")[-1]) if fail else None
    func = hit.group(0) if hit else ""
    status = "killed" if res["killed"] else ("equivalent" if m.equivalent else "survived")
    row = {
        "id": m.id,
        "game": m.game,
        "rule": m.rule,
        "family": m.family,
        "file": m.file,
        "status": status,
        "first_failure": fail,
        "named": bool(fail) and func in named,
        "seconds": res["seconds"],
    }
    if m.equivalent:
        row["equivalent"] = m.equivalent
    return row


def run_game(
    game: str,
    mutants: list[Mutant],
    root: Path,
    workdir: Path,
    timeout: int,
    jobs: int,
    baseline: bool = True,
    log=print,
) -> list[dict]:
    """Every mutant of one game, ``jobs`` copies at a time."""
    table = coverage(game, root)
    files = test_files(root)
    plans = []
    for m in mutants:
        check_applies(m, root)  # rot is an error before anything runs
        ids, names = named_tests(m, table, files)
        rest = [t for t in m.tests if t not in ids]
        plans.append((m, ids + rest, ids, names))
    copies = [Copy(root, workdir) for _ in range(max(1, min(jobs, len(plans))))]
    try:
        if baseline:
            union = list(dict.fromkeys(t for _, tests, _, _ in plans for t in tests))
            base = copies[0].run(game, union, timeout, copies[0].base / "numba-baseline")
            log(f"{game}: baseline ({len(union)} test paths) {base['seconds']} s")
            if base["killed"]:
                raise RuntimeError(
                    f"{game}: the unmutated copy already fails {base['first_failure']}: "
                    "fix the tests first (every mutant would look killed)"
                )
        free = list(copies)
        rows: list[dict] = []

        def one(plan):
            cp = free.pop()
            try:
                m, tests, first, named = plan
                row = run_mutant(cp, m, tests, first, named, timeout)
            finally:
                free.append(cp)
            flag = "" if row["named"] or row["status"] != "killed" else "  (not named for the rule)"
            log(
                f"{m.id:34} {row['status']:10} {row['seconds']:7.1f} s  "
                f"{row['first_failure'] or '-'}{flag}"
            )
            return row

        with concurrent.futures.ThreadPoolExecutor(len(copies)) as ex:
            rows = list(ex.map(one, plans))
        return rows
    finally:
        for cp in copies:
            cp.close()


# ---------------------------------------------------------------- results
def summary(rows: list[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in rows:
        s = out.setdefault(
            r["game"], {"mutants": 0, "killed": 0, "named": 0, "equivalent": 0, "survived": 0}
        )
        s["mutants"] += 1
        s[r["status"]] += 1
        s["named"] += int(r["status"] == "killed" and r["named"])
    for s in out.values():
        live = s["mutants"] - s["equivalent"]
        s["score"] = round(s["killed"] / live, 4) if live else 1.0
    return out


def markdown(data: dict) -> str:
    """The kill table of docs/tests.md from the results JSON."""
    rows = data["mutants"]
    lines = [
        "| game | mutants | killed | by a test named for the rule | equivalent | survived "
        "| score |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for game, s in sorted(summary(rows).items()):
        lines.append(
            f"| {game} | {s['mutants']} | {s['killed']} | {s['named']} | {s['equivalent']} "
            f"| {s['survived']} | {100 * s['score']:.0f}% |"
        )
    lines += [
        "",
        "| mutant | rule | family | result | first test that failed | named for the rule "
        "| s | commit |",
        "|---|---|---|---|---|---|---:|---|",
    ]
    for r in sorted(rows, key=lambda r: (r["game"], r["id"])):
        result = r["status"]
        fail = f"`{r['first_failure']}`" if r["first_failure"] else "-"
        if r["status"] == "equivalent":
            fail = f"equivalent: {r['equivalent']}"
        named = "yes" if r["named"] else ("-" if r["status"] != "killed" else "**no**")
        lines.append(
            f"| `{r['id']}` | {r['rule']} | {r['family']} | {result} | {fail} | {named} "
            f"| {r['seconds']:.0f} | {r.get('commit', '?')} |"
        )
    return "\n".join(lines)


def merge(path: Path, new_rows: list[dict], meta: dict) -> dict:
    old = json.loads(path.read_text()) if path.exists() else {"mutants": []}
    ids = {r["id"] for r in new_rows}
    rows = [r for r in old["mutants"] if r["id"] not in ids] + new_rows
    rows.sort(key=lambda r: (r["game"], r["id"]))
    return {**meta, "summary": summary(rows), "mutants": rows}


def write_docs(data: dict, doc: Path = DOC) -> bool:
    """Replace the ``mutation`` section of docs/tests.md; True if it changed."""
    text = doc.read_text()
    pat = re.compile(r"(<!-- mutation:start -->\n).*?(<!-- mutation:end -->)", re.S)
    if not pat.search(text):
        raise SystemExit(f"{doc} has no <!-- mutation:start/end --> markers")
    new = pat.sub(lambda mt: mt.group(1) + markdown(data) + "\n" + mt.group(2), text)
    if new != text:
        doc.write_text(new)
    return new != text


def commit_of(root: Path) -> str:
    def git(*args: str) -> str:
        run = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
        run.check_returncode()
        return run.stdout.strip()

    try:
        dirty = git("status", "--porcelain", "-uno")
        return git("rev-parse", "--short", "HEAD") + ("+" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", help="games to check (default: every catalogue)")
    ap.add_argument("--mutant", action="append", default=[], help="only these mutant ids")
    ap.add_argument("--jobs", type=int, default=1, help="copies run side by side (default 1)")
    ap.add_argument("--timeout", type=int, default=TIMEOUT, help="per-test limit, seconds")
    ap.add_argument("--catalogue", type=Path, default=CATALOGUES, help="folder of catalogues")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to copy")
    ap.add_argument("--json", type=Path, default=RESULTS, help="results file (merged)")
    ap.add_argument("--no-docs", action="store_true", help="leave docs/tests.md alone")
    ap.add_argument("--no-baseline", action="store_true", help="skip the unmutated run")
    ap.add_argument("--workdir", type=Path, default=None, help="where the copies go (a temp dir)")
    ap.add_argument("--list", action="store_true", help="list the mutants and check they apply")
    a = ap.parse_args(argv)
    root = a.root.resolve()
    mutants = load_all(a.catalogue)
    games = a.games or sorted({m.game for m in mutants})
    unknown = set(games) - {m.game for m in mutants}
    if unknown:
        ap.error(f"no catalogue for {sorted(unknown)}")
    chosen = [m for m in mutants if m.game in games and (not a.mutant or m.id in a.mutant)]
    missing = set(a.mutant) - {m.id for m in chosen}
    if missing:
        ap.error(f"unknown mutant ids {sorted(missing)}")
    if a.list:
        files = test_files(root)
        for m in chosen:
            check_applies(m, root)
            ids, _ = named_tests(m, coverage(m.game, root), files)
            print(f"{m.id:38} {m.rule:9} {m.family:18} {len(ids)} named tests")
        return 0
    workdir = a.workdir or Path(tempfile.gettempdir())
    commit = commit_of(root)
    rows: list[dict] = []
    for game in games:
        ms = [m for m in chosen if m.game == game]
        if ms:
            got = run_game(game, ms, root, workdir, a.timeout, a.jobs, not a.no_baseline)
            for r in got:
                r["commit"] = commit
            rows += got
            # written after each game, so a cut-short run keeps what it measured
            meta = {"timeout_s": a.timeout, "updated": datetime.date.today().isoformat()}
            data = merge(a.json, rows, meta)
            a.json.parent.mkdir(parents=True, exist_ok=True)
            a.json.write_text(json.dumps(data, indent=1) + "\n")
            if not a.no_docs:
                write_docs(data)
    for game, s in sorted(summary(rows).items()):
        print(
            f"{game}: {s['killed']}/{s['mutants'] - s['equivalent']} killed "
            f"({100 * s['score']:.0f}%), {s['named']} by a test named for the rule, "
            f"{s['equivalent']} equivalent, {s['survived']} survived"
        )
    bad = [
        r for r in rows if r["status"] == "survived" or (r["status"] == "killed" and not r["named"])
    ]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
