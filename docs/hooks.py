"""MkDocs hooks of the documentation site (mkdocs.yml ``hooks``).

* The API reference reads the package's sources with griffe (static analysis:
  nothing is imported, no kernel is compiled). The package's folders are
  mapped (pyproject.toml ``package-dir``: ``dungeonrl.envs`` is ``envs/``...),
  so a link tree under ``build/apitree`` mirrors the installed layout, the
  way ``make typecheck-tree`` does for mypy.
* The pages live in ``docs/`` and are read on GitHub too, where a picture of
  the repository (``../benchmarks/results/x.png``) is a relative link. The
  site serves those pictures under ``repo/`` and rewrites such links; a link
  to another file of the repository that the site does not serve (a source
  file) becomes its text, and a link to a doc that the site includes (a
  game's README) goes to its page. A link to a path that does not exist is
  left alone, so ``--strict`` reports it.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.structure.files import File

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
APITREE = os.path.join(ROOT, "build", "apitree", "dungeonrl")
#: package-dir of pyproject.toml: the subpackages kept in their own folders
MAPPED = ("envs", "encoders", "agents", "benchmarks")
#: pictures of the repository the pages show (served under repo/)
PICTURES = ("benchmarks/results/*.png", "envs/*/*.png")
SERVED = "repo"
#: docs of the repository that a page of the site includes
INCLUDED = {
    "README.md": "index.md",
    "envs/README.md": "engine.md",
    "envs/core/README.md": "engine.md",
    "envs/unbroken/README.md": "unbroken.md",
    "envs/dungeon_crawler/README.md": "dungeon-crawler.md",
    "envs/dungeon_kart/README.md": "dungeon-kart.md",
    "envs/dcc_unstoppable/README.md": "dcc-unstoppable.md",
}
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")


def _link(path: str, target: str) -> None:
    try:
        os.symlink(target, path)
    except FileExistsError:  # built before, or by a concurrent build
        pass


def api_tree() -> str:
    """``build/apitree/dungeonrl``: links to ``dungeonrl/*`` and the mapped folders."""
    os.makedirs(APITREE, exist_ok=True)
    for entry in os.listdir(os.path.join(ROOT, "dungeonrl")):
        if entry != "__pycache__":
            _link(os.path.join(APITREE, entry), os.path.join(ROOT, "dungeonrl", entry))
    for name in MAPPED:
        _link(os.path.join(APITREE, name), os.path.join(ROOT, name))
    return os.path.dirname(APITREE)


api_tree()  # before any plugin reads its paths


class _IncludedLinks(Preprocessor):
    """The same rewriting for the text pymdownx.snippets includes (a game's
    README), which on_page_markdown never sees: it runs after the snippets
    preprocessor (priority 32). Included docs sit one folder deep, as the
    pages do, so their relative links read the same from a page."""

    def run(self, lines):
        return LINK.sub(lambda m: _rewrite(m, ""), "\n".join(lines)).split("\n")


class _IncludedLinksExtension(Extension):
    def extendMarkdown(self, md):
        md.preprocessors.register(_IncludedLinks(md), "dungeonrl_included_links", 31)


def on_config(config):
    api_tree()
    config.markdown_extensions.append(_IncludedLinksExtension())
    return config


def on_files(files, config):
    for pattern in PICTURES:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
            files.append(File.generated(config, f"{SERVED}/{rel}", abs_src_path=path))
    return files


def _rewrite(match, page_dir: str) -> str:
    bang, text, url = match.groups()
    if "://" in url or url.startswith(("#", "mailto:")):
        return match.group(0)
    path, _, anchor = url.partition("#")
    repo_path = os.path.normpath(os.path.join(DOCS, page_dir, path))
    if not path or repo_path.startswith(DOCS + os.sep) or not os.path.exists(repo_path):
        return match.group(0)  # a page of the site, or broken: strict says so
    rel = os.path.relpath(repo_path, ROOT).replace(os.sep, "/")
    back = "../" * page_dir.count("/") if page_dir else ""
    if rel in INCLUDED:
        return f"{bang}[{text}]({back}{INCLUDED[rel]}{'#' + anchor if anchor else ''})"
    if any(fnmatch.fnmatch(rel, p) for p in PICTURES):
        return f"{bang}[{text}]({back}{SERVED}/{rel})"
    return text  # a source file of the repository: its name, as written


def on_page_markdown(markdown, page, config, files):
    page_dir = os.path.dirname(page.file.src_uri)
    return LINK.sub(lambda m: _rewrite(m, page_dir), markdown)
