"""``--agent module:attribute`` finds a module in the current working folder
from the installed ``dungeonrl`` command, as docs/evaluation.md shows
(issue 47, item 2): the console script does not put that folder on
``sys.path`` (``python -m dungeonrl`` does), so the resolver looks there
itself, and only while the module is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dungeonrl.agents.protocol import AgentError, import_agent

MYBOTS = textwrap.dedent(
    """
    import helpers  # a neighbour module: the folder is searched while importing


    class MostCardsFirst:
        name = "highest-legal"

        def act(self, obs, mask):
            return helpers.last_legal(mask)
    """
)
HELPERS = textwrap.dedent(
    """
    def last_legal(mask):
        return mask.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)
    """
)


def _write_bots(folder: Path, module: str) -> None:
    (folder / f"{module}.py").write_text(MYBOTS.replace("helpers", f"{module}_helpers"))
    (folder / f"{module}_helpers.py").write_text(HELPERS)


def _console_script() -> Path:
    script = Path(sys.executable).parent / ("dungeonrl.exe" if os.name == "nt" else "dungeonrl")
    if not script.exists():  # pragma: no cover - the package is not installed with its script
        pytest.skip("the dungeonrl console script is not installed next to this Python")
    return script


def test_the_installed_command_imports_an_agent_from_the_working_folder(tmp_path):
    _write_bots(tmp_path, "mybots_cli")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["DUNGEONRL_QUIET_COMPILE"] = "1"
    proc = subprocess.run(
        [str(_console_script()), "eval", "unbroken", "--agent", "mybots_cli:MostCardsFirst",
         "--games", "3", "--json", "out.json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "cannot import" not in proc.stderr
    doc = json.loads((tmp_path / "out.json").read_text())
    assert [s["agent"] for s in doc["summaries"]] == ["mybots_cli:MostCardsFirst"]
    assert doc["summaries"][0]["games"] == 3


def test_the_folder_is_searched_only_while_importing(tmp_path, monkeypatch):
    _write_bots(tmp_path, "mybots_inproc")
    monkeypatch.chdir(tmp_path)
    here = str(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", here)])
    before = list(sys.path)
    agent = import_agent("mybots_inproc:MostCardsFirst")
    try:
        assert agent.name == "highest-legal"
        assert Path(sys.modules["mybots_inproc"].__file__).parent == tmp_path
        assert sys.path == before  # not left on sys.path for later imports
    finally:
        for mod in ("mybots_inproc", "mybots_inproc_helpers"):
            sys.modules.pop(mod, None)


def test_a_missing_module_names_the_folder_searched(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AgentError, match="cannot import module 'no_such_bots_47'") as e:
        import_agent("no_such_bots_47:Bot")
    assert str(tmp_path) in str(e.value)
    # a module that exists but fails inside keeps its own error
    (tmp_path / "broken_bots_47.py").write_text("import no_such_dependency_47\n")
    with pytest.raises(AgentError, match="no_such_dependency_47"):
        import_agent("broken_bots_47:Bot")
    sys.modules.pop("broken_bots_47", None)
