"""The Python code of the README and of every page of the documentation
site runs as written (the quickstart a new user copies first).

Every fenced ```` ```python ```` block of README.md, and of each page
``docs/*.md`` with the docs it includes expanded (``--8<-- "envs/<game>/README.md"``:
a game's own doc, the engine guide), is executed, in order, one namespace
per page (later blocks use earlier imports), in a scratch folder.
Training calls must finish in seconds: a block that builds a
``MaskablePPO`` without ``n_steps`` (SB3's defaults collect 2048 steps per
env before the first update, half an hour with 64 envs) is run with a small
budget (``SB3_BUDGET``); a block that sets ``n_steps`` itself runs as
written. Each block must finish within ``BLOCK_SECONDS``. Blocks that need
an optional extra that is not installed (Minari) are left out. Blocks
fenced as ```` ```py ```` or ```` ``` ```` (Ray RLlib, which lives in its
own virtualenv; fragments) are shown, not run.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
BLOCK_SECONDS = 180  # generous: this machine is shared; a quiet one takes ~10 s

#: the budget a README block gets when it trains with SB3's default rollout size
SB3_BUDGET = 'MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=2).learn(4_096)'
_SB3_CALL = re.compile(r'MaskablePPO\("MlpPolicy",\s*venv\)\s*\.learn\([^)]*\)')
#: pymdownx.snippets' include line (mkdocs.yml): a path from the repository root,
#: optionally with a first and last line
_SNIPPET = re.compile(r'^--8<-- "([^":]+)(?::(\d*))?(?::(\d*))?"[ \t]*$', re.M)


def python_blocks(text: str) -> list[str]:
    """The contents of the ```python fenced blocks of a markdown text."""
    return [
        m.group(1) for m in re.finditer(r"^```python[ \t]*\n(.*?)^```[ \t]*$", text, re.S | re.M)
    ]


def expand_snippets(text: str, root: Path = ROOT) -> str:
    """``text`` with every snippet include line replaced by the file's lines,
    as the site shows the page."""

    def include(m):
        lines = (root / m.group(1)).read_text(encoding="utf-8").splitlines()
        first = int(m.group(2)) if m.group(2) else 1
        last = int(m.group(3)) if m.group(3) else len(lines)
        return "\n".join(lines[first - 1 : last])

    return _SNIPPET.sub(include, text)


def page_text(path: Path) -> str:
    return expand_snippets(path.read_text(encoding="utf-8"))


def pages_with_blocks() -> list[Path]:
    return [p for p in sorted(DOCS.glob("**/*.md")) if python_blocks(page_text(p))]


def budgeted(block: str) -> str:
    """``block`` with SB3's default rollout size replaced by ``SB3_BUDGET``
    (a block that sets ``n_steps`` itself is left as written)."""
    if "MaskablePPO(" in block and "n_steps" not in block:
        out = _SB3_CALL.sub(SB3_BUDGET, block)
        assert out != block, (
            "a README block trains MaskablePPO with SB3's default "
            "n_steps in a form this test cannot budget: give it n_steps"
        )
        out = re.sub(r"(DungeonSB3VecEnv\([^)]*num_envs=)\d+", r"\g<1>16", out)
        return out
    return block


def test_python_blocks_are_found():
    blocks = python_blocks(README.read_text())
    assert len(blocks) >= 3
    assert any("gym.make(" in b for b in blocks)
    assert budgeted(
        'venv = DungeonSB3VecEnv("unbroken", num_envs=64, seed=0)\n'
        'model = MaskablePPO("MlpPolicy", venv).learn(10_000)\n'
    ) == ('venv = DungeonSB3VecEnv("unbroken", num_envs=16, seed=0)\nmodel = ' + SB3_BUDGET + "\n")
    kept = 'm = MaskablePPO("MlpPolicy", venv, n_steps=8).learn(64)'
    assert budgeted(kept) == kept
    # the site's pages: the quickstarts and every game's page carry runnable code
    names = {p.name for p in pages_with_blocks()}
    assert {"getting-started.md", "unbroken.md", "dungeon-crawler.md", "dungeon-kart.md"} <= names


def test_snippets_are_expanded(tmp_path):
    (tmp_path / "inc.md").write_text("one\n```python\nx = 1\n```\nthree\n")
    page = 'before\n--8<-- "inc.md:2:4"\nafter\n'
    assert expand_snippets(page, tmp_path) == "before\n```python\nx = 1\n```\nafter\n"
    assert python_blocks(expand_snippets('--8<-- "inc.md"\n', tmp_path)) == ["x = 1\n"]
    assert expand_snippets('--8<-- "inc.md:5:"\n', tmp_path) == "three\n"


def _needs_missing_extra(block: str) -> bool:
    """A block using an optional extra that is not installed (Minari)."""
    if "record_dataset" in block or "import minari" in block:
        try:
            import h5py  # noqa: F401
            import minari  # noqa: F401
        except ImportError:
            return True
    return False


def run_blocks(path: Path, tmp_path, monkeypatch, text: str | None = None) -> dict:
    try:
        import torch

        torch.set_num_threads(1)  # 2 shared cores: torch's default threads oversubscribe
    except ImportError:  # pragma: no cover - train extra missing
        pass
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    namespace: dict = {"__name__": "__readme__"}
    blocks = python_blocks(path.read_text() if text is None else text)
    assert blocks, f"{path.name} has no python block"
    for i, block in enumerate(blocks):
        if _needs_missing_extra(block):
            continue
        code = compile(budgeted(block), f"{path.name} python block {i}", "exec")
        t0 = time.perf_counter()
        exec(code, namespace)
        took = time.perf_counter() - t0
        assert took < BLOCK_SECONDS, f"{path.name} python block {i} took {took:.0f} s"
    if os.environ.get("DUNGEONRL_README_VERBOSE"):  # pragma: no cover
        print(sorted(k for k in namespace if not k.startswith("__")))
    return namespace


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    namespace = run_blocks(README, tmp_path, monkeypatch)
    assert "env" in namespace


@pytest.mark.parametrize("path", pages_with_blocks(), ids=lambda p: p.name)
def test_docs_python_blocks_run(path, tmp_path, monkeypatch):
    run_blocks(path, tmp_path, monkeypatch, text=page_text(path))
