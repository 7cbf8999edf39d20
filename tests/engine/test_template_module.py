"""The kernel template is an ordinary module (``dungeonrl.envs.core.kernel.template``):
it imports, every name it uses is defined (its game-specific names come from
the placeholder game ``template_game``), and what the code generator makes of
it is the template's own text with only the marked parts replaced."""

import ast
import builtins
import dataclasses
import importlib
import importlib.util
import subprocess
import symtable
import sys

import pytest

from dungeonrl.envs.core.kernel import codegen, freshness

GAMES = [*codegen.GAME_PACKAGES, *codegen.FIXTURES]


def _template_path():
    return codegen.template_file()


def test_the_template_imports_and_regenerates_nothing():
    t = importlib.import_module(codegen.TEMPLATE_MODULE)
    assert t.KERNEL_KEY is None and t.SOURCE_DIGEST is None
    for name in (
        "refresh",
        "settle",
        "step_row",
        "reset_batch",
        "step_batch",
        "step_autoreset",
        "random_rollout",
        "policy_rows",
        "advance_scripted",
        "play_rows",
    ):
        assert hasattr(getattr(t, name), "py_func"), name  # a numba dispatcher
    assert str(_template_path()) not in freshness.regenerated


def _undefined_names(src: str, filename: str) -> set[str]:
    """Names a module reads that nothing defines: not bound at module level
    (an import, an assignment, a def) nor a builtin. Names local to a
    function or bound in an enclosing one are resolved by ``symtable``."""
    top = symtable.symtable(src, filename, "exec")
    known = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    known |= set(dir(builtins))
    out = {s.get_name() for s in top.get_symbols() if s.is_referenced()} - known
    todo = list(top.get_children())
    while todo:
        t = todo.pop()
        todo.extend(t.get_children())
        out |= {
            s.get_name() for s in t.get_symbols() if s.is_referenced() and s.is_global()
        } - known
    return out


def test_the_template_has_no_undefined_names():
    """An ast/symtable check that always runs (linters see the same)."""
    src = _template_path().read_text()
    compile(src, str(_template_path()), "exec")
    assert _undefined_names(src, str(_template_path())) == set()
    # the check finds an undefined name (a name the game block no longer imports)
    broken = src.replace("    legal_row,\n", "", 1)
    assert broken != src
    assert _undefined_names(broken, "broken.py") == {"legal_row"}


def test_the_template_game_block_imports_only_the_placeholder_game():
    """Every game-specific name comes from the marked block, and the block
    imports from the placeholder game only."""
    lines = _template_path().read_text().splitlines()
    begin = [i for i, line in enumerate(lines) if line.startswith(codegen.GAME_BEGIN)]
    end = [i for i, line in enumerate(lines) if line == codegen.GAME_END]
    assert len(begin) == len(end) == 1 and begin[0] < end[0]
    block = ast.parse("\n".join(lines[begin[0] + 1 : end[0]]))
    assert {n.module for n in block.body} == {"dungeonrl.envs.core.kernel.template_game"}
    names = {a.asname or a.name for n in block.body for a in n.names}
    placeholder = importlib.import_module("dungeonrl.envs.core.kernel.template_game")
    assert {a.name for n in block.body for a in n.names} <= set(vars(placeholder))
    # what the generator writes for a game binds the same names
    game = ast.parse(
        codegen.GAME.format(
            encoder="e",
            rules="r",
            finish_import="from r import finish_row\n",
            policy_import="from p import policy_row\n",
            num_actions=1,
            max_seats=1,
            illegal_penalty=-1.0,
            win_outcome=0,
            auto_limit=1,
            auto_counts_steps=True,
            stream_obs=False,
        )
    )
    bound = set()
    for n in game.body:
        if isinstance(n, ast.ImportFrom):
            bound |= {a.asname or a.name for a in n.names}
        else:
            bound |= {t.id for t in n.targets}
    assert bound == names


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff not installed")
def test_ruff_finds_no_undefined_names_in_the_template():
    path = _template_path()
    game = path.with_name("template_game.py")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--isolated",
            "--select",
            "F",
            str(path),
            str(game),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("game", GAMES)
def test_the_generated_file_is_the_template_with_its_markers_replaced(game):
    """Outside the header, the game block and the freshness values, every
    line of a generated kernels.py is the template's line, in order (a
    ``# template: if FACT`` line without its comment)."""
    if game in codegen.FIXTURES:
        codegen.default_games()  # puts tests/ on the path
    facts = codegen.facts_of(game)
    with freshness.suspended():
        src = codegen.generate(facts, game)
    tpl = _template_path().read_text()
    doc_end = ast.parse(tpl).body[0].end_lineno
    kept = []
    skip = False
    keep = [True]
    for line in tpl.splitlines()[doc_end:]:
        if line.startswith(codegen.GAME_BEGIN):
            skip = True
            continue
        if line == codegen.GAME_END:
            skip = False
            continue
        if skip:
            continue
        if line.startswith(codegen.IF):
            keep.append(bool(getattr(facts, line[len(codegen.IF) :])))
            continue
        if line == codegen.END:
            keep.pop()
            continue
        if not all(keep):
            continue
        if codegen.IF in line:
            code, _, fact = line.partition("  " + codegen.IF)
            if getattr(facts, fact):
                kept.append(code)
            continue
        if line.split(" = ")[0] in ("KERNEL_KEY", "SOURCE_MODULES", "SOURCE_DIGEST"):
            continue
        kept.append(line)
    out = src.splitlines()
    it = iter(out)
    missing = [line for line in kept if not any(o == line for o in it)]
    assert missing == [], missing[:5]
    assert out[0].startswith('"""GENERATED by dungeonrl.envs.core.kernel.codegen')
    # a generator that drops an import or misplaces a block writes code that fails here
    compile(src, game, "exec")
    assert _undefined_names(src, game) == set()
    assert f"KERNEL_KEY = {game!r}" in out
    assert ("policy_rows" in src) == facts.has_policy
    assert ("    finish_row(st, T)\n" in src) == facts.has_finish
    assert "template" not in "".join(line for line in out if line.startswith("from "))


def test_a_missing_marker_is_named():
    facts = codegen.facts_of("unbroken")
    tpl = codegen.template_source()
    with pytest.raises(codegen.TemplateError, match="end of the game block"):
        codegen.generate(facts, template=tpl.replace(codegen.GAME_END + "\n", "", 1))
    with pytest.raises(codegen.TemplateError, match="KernelFacts has no field 'has_nothing'"):
        codegen.generate(
            facts,
            template=tpl.replace("# template: if has_policy", "# template: if has_nothing", 1),
        )
    with pytest.raises(codegen.TemplateError, match="SOURCE_DIGEST = None"):
        codegen.generate(
            facts, template=tpl.replace("SOURCE_DIGEST = None\n", "SOURCE_DIGEST = ''\n", 1)
        )


def test_facts_switch_the_marked_parts():
    facts = codegen.facts_of("unbroken")
    with freshness.suspended():
        bare = codegen.generate(
            dataclasses.replace(facts, has_finish=False, has_policy=False), "unbroken"
        )
    assert "finish_row" not in bare and "policy_row" not in bare
    assert "SCRIPTED_POLICY" not in bare and "def play_rows" not in bare
    assert "# template" not in bare
    ast.parse(bare)
