"""Old import paths of the engine modules that moved into a room, kept working.

The shared layer is split into rooms (``kernel/``, ``adapters/``,
``authoring/``; see ``envs/core/README.md``). :data:`MOVED` is the one
table of old name -> new name (relative to ``dungeonrl.envs.core``). The
import hook installed by ``dungeonrl.envs.core`` makes every old name an
alias of its new module:

* ``import dungeonrl.envs.core.gym_env`` and
  ``from dungeonrl.envs.core.vector import DungeonVectorEnv`` give the very
  module object of the new name (same classes: ``isinstance``, pickles and
  copies are unaffected), with a :class:`DeprecationWarning` naming the new
  path;
* ``python -m dungeonrl.envs.core.codegen`` runs the new module (the same
  for ``layout_doc``);
* a pickle that names a class by its old module loads.

``tools/rewrite_core_imports.py`` rewrites old paths in source and docs with
the same table. This module imports only the standard library.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings

#: the package the names below are relative to
PACKAGE = "dungeonrl.envs.core"

#: old module name -> new module name, both relative to :data:`PACKAGE`
MOVED = {
    # kernel/: numba-side helpers and the code generator
    "borrow": "kernel.borrow",
    "chance": "kernel.chance",
    "codegen": "kernel.codegen",
    "compile_notice": "kernel.compile_notice",
    "facts": "kernel.facts",
    "fastcall": "kernel.fastcall",
    "freshness": "kernel.freshness",
    "header": "kernel.header",
    "jit": "kernel.jit",
    "memops": "kernel.memops",
    "rng": "kernel.rng",
    "template": "kernel.template",
    "template_game": "kernel.template_game",
    "zones": "kernel.zones",
    # adapters/: Gymnasium, vector, SB3, PettingZoo, batched multi-agent, self-play
    "aec": "adapters.aec",
    "checker": "adapters.checker",
    "gym_env": "adapters.gym_env",
    "multi": "adapters.multi",
    "parallel": "adapters.parallel",
    "pz_module": "adapters.pz_module",
    "selfplay": "adapters.selfplay",
    "vector": "adapters.vector",
    # authoring/: content compiler helpers, drawing, narration, layout doc tables
    "content": "authoring.content",
    "draw": "authoring.draw",
    "layout_doc": "authoring.layout_doc",
    "narration": "authoring.narration",
}


def full_names() -> dict[str, str]:
    """:data:`MOVED` as absolute module names."""
    return {f"{PACKAGE}.{old}": f"{PACKAGE}.{new}" for old, new in MOVED.items()}


def _warn(old: str, new: str) -> None:
    # stacklevel 3: past this function and the loader method, importlib's own
    # frames are skipped, so the warning names the importing line
    warnings.warn(f"{old} moved to {new}; import it from there", DeprecationWarning, stacklevel=3)


class _AliasSpec(importlib.machinery.ModuleSpec):
    """The spec of an old name: its parent is the new module's package, so
    ``python -m OLD`` resolves the new module's relative imports."""

    def __init__(self, old: str, new: str, loader, origin: str | None):
        super().__init__(old, loader, origin=origin)
        self.has_location = origin is not None
        self._new_parent = new.rpartition(".")[0]

    @property
    def parent(self):
        return self._new_parent


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new
        self._real_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec):
        _warn(self.old, self.new)
        module = importlib.import_module(self.new)
        self._real_spec = module.__spec__
        return module

    def exec_module(self, module):
        # the module is already executed under its new name; importlib set
        # ``__spec__`` to the old name's spec: give the module its own back
        if self._real_spec is not None:
            module.__spec__ = self._real_spec

    def get_code(self, fullname):
        """For ``python -m OLD``: the new module's code."""
        _warn(self.old, self.new)
        spec = importlib.util.find_spec(self.new)
        loader = spec.loader if spec is not None else None
        if not isinstance(loader, importlib.abc.InspectLoader):
            raise ImportError(f"cannot run {self.new} as a script", name=self.new)
        return loader.get_code(self.new)

    def is_package(self, fullname):
        return False


class AliasFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED` (after every other finder)."""

    def __init__(self):
        self.names = full_names()

    def find_spec(self, fullname, path=None, target=None):
        new = self.names.get(fullname)
        if new is None:
            return None
        real = importlib.util.find_spec(new)
        if real is None:
            return None
        return _AliasSpec(fullname, new, _AliasLoader(fullname, new), real.origin)


def install() -> None:
    """Put :class:`AliasFinder` on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(AliasFinder())
