"""Every registered environment id is documented with its version: the id's
doc page (the module docstring a user reads with ``help``) has a "Version
history" section whose first entry is the id's current version, and
CHANGELOG.md has a heading for the id whose first entry is that version.

The ids are discovered, not listed: those ``import dungeonrl`` registers
with Gymnasium and PettingZoo, plus the ids registered on request (the
module constants ``*ENV_ID = "dungeonrl/..."`` under ``envs/``, such as the
Carl campaign's). A new id, or a bumped version without its entry, fails
here with the id and the page that lacks it."""

from __future__ import annotations

import ast
import importlib.util
import os
import re

import gymnasium
import pytest

import dungeonrl  # noqa: F401  (registers the catalog's ids)
from dungeonrl.envs import catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENVS = os.path.join(ROOT, "envs")
NAMESPACE = "dungeonrl/"
#: entry points shared by every game: the doc page is the game's package
GENERIC_MODULES = {
    "dungeonrl.registry",
    "dungeonrl.envs.core.adapters.gym_env",
    "dungeonrl.envs.core.adapters.vector",
    "dungeonrl.agents.selfplay_env",
}


def _version(env_id: str) -> int:
    return int(env_id.rpartition("-v")[2])


def _module_of(entry_point) -> str | None:
    return entry_point.partition(":")[0] if isinstance(entry_point, str) else None


def _declared_ids() -> dict[str, str]:
    """``*ENV_ID = "dungeonrl/..."`` constants under envs/: id -> module."""
    out = {}
    for folder, _, files in os.walk(ENVS):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, ENVS)[:-3].replace(os.sep, ".")
            module = "dungeonrl.envs." + rel.removesuffix(".__init__")
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for node in tree.body:
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                    and node.value.value.startswith(NAMESPACE)
                    and any(
                        isinstance(t, ast.Name) and t.id.endswith("ENV_ID") for t in node.targets
                    )
                ):
                    out[node.value.value] = module
    return out


def doc_pages() -> list[tuple[str, str]]:
    """(env id, module whose docstring documents it), for every registered id."""
    pages = set()
    for env_id, spec in gymnasium.registry.items():
        if not env_id.startswith(NAMESPACE):
            continue
        module = _module_of(spec.entry_point)
        if module in GENERIC_MODULES or module is None:
            module = catalog.package(spec.kwargs["game"])
        pages.add((env_id, module))
    try:
        import pettingzoo

        for reg in (
            getattr(pettingzoo, "aec_registry", None),
            getattr(pettingzoo, "parallel_registry", None),
        ):
            for env_id, entry in (reg or {}).items():
                if env_id.startswith(NAMESPACE):
                    module = _module_of(getattr(entry, "entry_point", entry))
                    if module is not None:
                        pages.add((env_id, module))
    except ImportError:  # pragma: no cover
        pass
    pages.update(_declared_ids().items())
    return sorted(pages)


def _docstring(module: str) -> str:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, f"{module} not found"
    with open(spec.origin, encoding="utf-8") as fh:
        return ast.get_docstring(ast.parse(fh.read())) or ""


def version_history(doc: str) -> str | None:
    """The body of a docstring's "Version history" section (reST heading
    underlined with dashes), up to the next heading; None if it has none."""
    m = re.search(
        r"^Version history\n-{3,}\n(.*?)(?=^\S[^\n]*\n-{3,}\n|\Z)",
        doc,
        flags=re.MULTILINE | re.DOTALL | re.IGNORECASE,
    )
    return m.group(1) if m else None


def first_entry(section: str, bullet: str) -> int | None:
    """The version of the first entry (``* vN`` / ``- vN``) of a section."""
    m = re.search(rf"^{re.escape(bullet)} v(\d+)\b", section, flags=re.MULTILINE)
    return int(m.group(1)) if m else None


def test_ids_discovered():
    ids = {env_id for env_id, _ in doc_pages()}
    assert set(catalog.ENV_IDS.values()) <= ids
    assert len(ids) > len(catalog.ENV_IDS)  # the campaign id at least


@pytest.mark.parametrize("env_id,module", doc_pages())
def test_doc_page_lists_current_version(env_id, module):
    section = version_history(_docstring(module))
    assert section is not None, f"{env_id}: {module}'s docstring has no 'Version history' section"
    assert first_entry(section, "*") == _version(env_id), (
        f"{env_id}: the first entry of {module}'s Version history is not '* v{_version(env_id)}'"
    )


@pytest.mark.parametrize("env_id", sorted({env_id for env_id, _ in doc_pages()}))
def test_changelog_lists_every_id(env_id):
    with open(os.path.join(ROOT, "CHANGELOG.md"), encoding="utf-8") as fh:
        text = fh.read()
    m = re.search(
        rf"^#+ `{re.escape(env_id)}`\n(.*?)(?=^#|\Z)", text, flags=re.MULTILINE | re.DOTALL
    )
    assert m is not None, f"CHANGELOG.md has no heading for `{env_id}`"
    assert first_entry(m.group(1), "-") == _version(env_id), (
        f"CHANGELOG.md: the first entry under `{env_id}` is not '- v{_version(env_id)}'"
    )


def test_section_parser_can_fail():
    doc = "Intro\n\nArguments\n---------\nx\n\nVersion history\n---------------\n* v0: a\n"
    assert first_entry(version_history(doc), "*") == 0
    assert version_history("Arguments\n---------\nx\n") is None
    assert first_entry(version_history(doc.replace("* v0", "* v2")), "*") == 2
