"""Regenerate the measured sections of the docs from the JSON results.

    python -m dungeonrl.benchmarks.report [--root .] [--results benchmarks/results] [--only A,B]
    python -m dungeonrl.benchmarks.report --check      # exit 1 if a page is stale

Each generated section sits between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->`` markers and is replaced whole; nothing in it is typed
by hand. Every page that carries markers is regenerated: README.md and
the site's pages, ``docs/**/*.md``. A known section that no page carries
is an error (its table would silently go missing), and so is a page with
markers of an unknown name.

Sections and the results they are made from:

* a game's sections, named in ``benchmarks/data/report.toml`` (the
  balance tables, ``<marker>``: ``balance_<game>.json``, written by
  ``python -m dungeonrl.benchmarks.balance GAME --json``);
* ``bench-suite``: ``suite.json``, written by ``dungeonrl bench --out
  benchmarks/results`` (the throughput suite over every game with its peers
  and the speed targets); ``readme-speed`` is its headline (one row per
  game) for the README;
* ``bench-layers``: ``layers.json``, written by ``dungeonrl bench --layers
  --out benchmarks/results`` (where each microsecond of a step goes);
* ``baselines``: ``baselines.json``, written by ``python -m
  dungeonrl.benchmarks.baselines run NAME`` (the trained baselines and their
  targets); ``readme-baselines`` is its headline (one row per baseline);
* ``training-speed``: ``ppo_speed.json``, written by ``python -m
  dungeonrl.benchmarks.ppo_speed --json``;
* ``pretrained``: the shipped agents' cards,
  ``agents/pretrained_models/*.json``, written by ``python -m
  dungeonrl.agents.zoo ship``;
* ``league-vs-selfplay``: ``league_vs_selfplay.json``, written by ``python
  -m dungeonrl.benchmarks.league_vs_selfplay --json``;
* ``cold-start``: ``cold_start.json``, written by ``python -m
  dungeonrl.benchmarks.cold_start --json``;
* ``compile-profile``: ``compile_profile.json``, written by ``python -m
  dungeonrl.precompile --profile --json`` (where each game's compile time
  goes);
* ``web-load``: ``web_load.json``, written by ``python -m
  dungeonrl.benchmarks.web_load --json`` (decisions per second and latency
  of ``dungeonrl serve`` under load);
* ``mutation``: ``mutation.json``, written by ``python -m
  dungeonrl.benchmarks.mutation`` (the kill table of the rule mutants).
"""

from __future__ import annotations

import argparse
import glob
import importlib
import json
import os
import re
import sys

from . import datafile

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
#: the repository root (benchmarks/ is one of its folders)
ROOT = os.path.dirname(HERE)
MARKER = re.compile(r"<!-- ([a-z0-9-]+):(start|end) -->")
#: a markdown link or picture whose target is a relative path
RELATIVE_LINK = re.compile(r"(!?\[[^\]]*\]\()(?![a-z]+:|#|/)([^)\s]+\))")


def relink(body: str, base: str) -> str:
    """``body``'s relative links, written from the repository root, as seen
    from a page ``base`` away from it (``..`` for docs/*.md)."""
    if not base or base == ".":
        return body
    return RELATIVE_LINK.sub(lambda m: f"{m.group(1)}{base}/{m.group(2)}", body)


def _markdown_of(module: str, attr: str = "markdown", takes_data: bool = True):
    """A section made by ``attr`` of ``module`` (relative to this package),
    imported when the section is rendered; ``takes_data``: it is called with
    the section's results (else with nothing)."""

    def section(data):
        fn = getattr(importlib.import_module(module, __package__), attr)
        return fn(data) if takes_data else fn()

    return section


#: the report's data (``benchmarks/data/report.toml``): the sections of a
#: game's own tools, and the configuration of each game in the README's speed
#: headline (one per game; a game not named: its first measured)
_DATA = datafile.load("report")
GAME_SECTIONS = datafile.rows(
    _DATA, "game_sections", "report.toml", ("name", "results", "module", "function")
)
HEADLINE_CONFIGS = {str(k): str(v) for k, v in _DATA.get("headline", {}).items()}


def readme_speed_section(data):
    """One row per game of the reference run: kernel, batched, Python API."""
    rows = [
        "| game | kernel, 1 thread | vector env / batched core, 4,096 envs "
        "| Python API step (`gymnasium.make` / PettingZoo AEC) |",
        "|---|---:|---:|---:|",
    ]
    for name, game in data["games"].items():
        configs = game["configs"]
        key = HEADLINE_CONFIGS.get(name, next(iter(configs)))
        cfg = configs[key]
        label = name if cfg["players"] == 1 else f"{name} {cfg['players']}p"
        kernel = cfg["kernel"]["1"]["median"]
        batched = (cfg.get("vector") or cfg["batch"])["4096"]["median"]
        api = cfg["python"]["median"]
        rows.append(f"| {label} | {kernel:,.0f} | {batched:,.0f} | {api:,.0f} |")
    mc = data["machine"]
    return (
        "Steps per second, uniformly random legal play with observations and masks "
        f"(medians; `dungeonrl bench`, {data['created'][:10]}, {mc['cpu']}, "
        f"{mc['cores']} cores):\n\n" + "\n".join(rows)
    )


def readme_baselines_section(data):
    """One row per recorded baseline: budget and the greedy agent's results."""
    rows = [
        "| baseline | setting | training | greedy agent, 95% CI | targets |",
        "|---|---|---|---|---|",
    ]
    for name, e in data.items():
        evals = "<br>".join(
            f"{r['agent']}: {r['win_rate']:.1%} ({r['ci95'][0]:.1%}-{r['ci95'][1]:.1%})"
            for r in e["final_eval"]
        )
        met = sum(bool(t["met"]) for t in e["targets"])
        rows.append(
            f"| `{name}` | {e['setting']} | {e['train_minutes']} min, {e['steps']:,} steps "
            f"| {evals} | {met} of {len(e['targets'])} met |"
        )
    return "\n".join(rows)


SECTIONS = {
    **{
        g["name"]: (g["results"], _markdown_of(f".{g['module']}", g["function"]))
        for g in GAME_SECTIONS
    },
    "bench-suite": ("suite.json", _markdown_of(".suite")),
    "readme-speed": ("suite.json", readme_speed_section),
    "bench-layers": ("layers.json", _markdown_of(".suite.breakdown")),
    "baselines": ("baselines.json", _markdown_of(".baselines")),
    "readme-baselines": ("baselines.json", readme_baselines_section),
    "training-speed": ("ppo_speed.json", _markdown_of(".ppo_speed")),
    # the shipped agents' cards (agents/pretrained_models/*.json), no results file
    "pretrained": (None, _markdown_of("..agents.zoo", takes_data=False)),
    "readme-pretrained-targets": (None, _markdown_of("..agents.zoo", "targets_markdown", False)),
    "league-vs-selfplay": ("league_vs_selfplay.json", _markdown_of(".league_vs_selfplay")),
    "cold-start": ("cold_start.json", _markdown_of(".cold_start")),
    "compile-profile": ("compile_profile.json", _markdown_of(".compile_profile")),
    "web-load": ("web_load.json", _markdown_of(".web_load")),
    "mutation": ("mutation.json", _markdown_of(".mutation")),
    "exploit-check": ("exploit_check.json", _markdown_of(".exploit_check")),
    "search-speed": ("search_speed.json", _markdown_of(".search_speed")),
}


def markers(text: str) -> set[str]:
    """The names of the sections a page carries (both markers present)."""
    found = MARKER.findall(text)
    starts = {n for n, kind in found if kind == "start"}
    return {n for n in starts if (n, "end") in found}


def render(readme_text, results_dir, only=None, strict=True, base=""):
    """``readme_text`` with every section it carries regenerated.

    ``strict``: a section asked for by ``only`` that the text lacks is an
    error (the one-page form); ``regenerate`` passes False and checks the
    sections across all pages instead. ``base``: the way from the page's
    folder to the repository root (``..`` for docs/*.md), which prefixes
    the relative links of the generated text.
    """
    for name, (fname, fn) in SECTIONS.items():
        if only and name not in only:
            continue
        pat = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
        if not pat.search(readme_text):
            if strict and only:
                raise SystemExit(f"the page has no <!-- {name}:start/end --> markers")
            continue
        if fname is None:
            body = fn(None)
        else:
            path = os.path.join(results_dir, fname)
            if not os.path.exists(path):
                continue
            with open(path) as f:
                body = fn(json.load(f))
        body = relink(body, base)

        def between_markers(m: re.Match[str], body: str = body) -> str:
            return m.group(1) + body + "\n" + m.group(2)

        readme_text = pat.sub(between_markers, readme_text)
    return readme_text


def pages(root: str = ROOT) -> list[str]:
    """README.md and every page of the site (``docs/**/*.md``) that carries a marker."""
    found = [os.path.join(root, "README.md")]
    found += sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    out = []
    for path in found:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                if MARKER.search(f.read()):
                    out.append(path)
    return out


def regenerate(root: str = ROOT, results_dir: str = RESULTS, only=None, write=True) -> dict:
    """Regenerate every page under ``root`` that carries markers.

    Returns ``{path: new text}`` for the pages whose text changed (written
    unless ``write`` is false). Raises ``SystemExit`` when a known section
    (of ``only``, default all) has no page, or a page has markers of an
    unknown section."""
    texts = {}
    for path in pages(root):
        with open(path, encoding="utf-8") as f:
            texts[path] = f.read()
    homes: dict[str, list[str]] = {name: [] for name in SECTIONS}
    for path, text in texts.items():
        for name in markers(text):
            if name not in SECTIONS:
                raise SystemExit(
                    f"{os.path.relpath(path, root)}: unknown section <!-- {name}:start -->; "
                    f"known: {', '.join(SECTIONS)}"
                )
            homes[name].append(path)
    homeless = [n for n in (only or SECTIONS) if not homes[n]]
    if homeless:
        raise SystemExit(
            f"no page carries the section(s) {', '.join(homeless)} "
            "(README.md or docs/**/*.md need <!-- NAME:start --> ... <!-- NAME:end -->)"
        )
    changed = {}
    for path, text in texts.items():
        base = os.path.relpath(root, os.path.dirname(path)).replace(os.sep, "/")
        new = render(text, results_dir, only, strict=False, base=base)
        if new != text:
            changed[path] = new
            if write:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    return changed


def main(argv=None):
    p = argparse.ArgumentParser(
        description="regenerate the measured sections of README.md and docs/ from benchmark JSON"
    )
    p.add_argument("--root", default=ROOT, help="the repository (README.md and docs/)")
    p.add_argument(
        "--readme", default=None, help="regenerate this one page only (its sections must exist)"
    )
    p.add_argument("--results", default=RESULTS)
    p.add_argument(
        "--only",
        default=None,
        help=f"comma-separated sections to regenerate (default all: {', '.join(SECTIONS)})",
    )
    p.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a page would change"
    )
    a = p.parse_args(argv)
    only = None
    if a.only:
        only = [x for x in a.only.split(",") if x]
        unknown = [x for x in only if x not in SECTIONS]
        if unknown:
            p.error(f"unknown sections {unknown}; known: {list(SECTIONS)}")
    if a.readme:
        with open(a.readme) as f:
            text = f.read()
        new = render(text, a.results, only)
        if a.check:
            print(f"{a.readme}: {'stale' if new != text else 'up to date'}")
            return int(new != text)
        with open(a.readme, "w") as f:
            f.write(new)
        print(f"updated {a.readme}")
        return 0
    changed = regenerate(a.root, a.results, only, write=not a.check)
    for path in changed:
        rel = os.path.relpath(path, a.root)
        print(f"{'stale' if a.check else 'updated'} {rel}")
    if not changed:
        print("every page is up to date")
    return int(a.check and bool(changed))


if __name__ == "__main__":
    sys.exit(main())
