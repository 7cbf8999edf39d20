"""The old flat module names of ``envs/core`` (before the rooms) still work.

Every name of ``MOVED`` (``envs/core/_moved.py``) imports, warns with a
DeprecationWarning naming the new path, and gives the very module object of
the new path (so classes, ``isinstance``, pickles and copies agree).
"""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
import warnings

import pytest

from dungeonrl.envs.core import _moved

PAIRS = sorted(_moved.full_names().items())


def _forget(name: str) -> None:
    """Drop an old name from this process, so importing it runs the hook again."""
    sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    mod = sys.modules.get(parent)
    if mod is not None and child in vars(mod):
        delattr(mod, child)


@pytest.mark.parametrize("old, new", PAIRS, ids=[o.rpartition(".")[2] for o, _ in PAIRS])
def test_old_name_is_the_new_module_and_warns(old, new):
    fresh = importlib.import_module(new)
    _forget(old)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        mod = importlib.import_module(old)
    assert mod is fresh
    assert sys.modules[old] is fresh
    assert fresh.__name__ == new and fresh.__spec__.name == new  # the new module is untouched


def test_from_import_forms():
    for name in ("dungeonrl.envs.core.vector", "dungeonrl.envs.core.compile_notice"):
        _forget(name)
    with pytest.warns(DeprecationWarning):
        from dungeonrl.envs.core.vector import DungeonVectorEnv
    with pytest.warns(DeprecationWarning):
        from dungeonrl.envs.core import compile_notice
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv as new_cls
    from dungeonrl.envs.core.kernel import compile_notice as new_mod

    assert DungeonVectorEnv is new_cls and compile_notice is new_mod


def test_no_old_name_is_a_file_and_every_new_one_is():
    from pathlib import Path

    core = Path(_moved.__file__).parent
    for old, new in _moved.MOVED.items():
        assert not (core / f"{old}.py").exists(), f"{old}.py is back: drop it from MOVED"
        assert (core / (new.replace(".", "/") + ".py")).is_file(), new


def test_a_pickle_naming_an_old_module_loads():
    from dungeonrl.envs.core.adapters.gym_env import DungeonEnv

    data = pickle.dumps(DungeonEnv, protocol=0)  # text form: "c<module>\n<name>\n."
    assert b"dungeonrl.envs.core.adapters.gym_env\n" in data
    old = data.replace(b"dungeonrl.envs.core.adapters.gym_env", b"dungeonrl.envs.core.gym_env")
    _forget("dungeonrl.envs.core.gym_env")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert pickle.loads(old) is DungeonEnv


def test_new_modules_import_without_a_warning():
    code = (
        "import warnings; warnings.simplefilter('error', DeprecationWarning); "
        "import dungeonrl; " + "; ".join(f"import {new}" for _, new in PAIRS)
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


def test_python_m_with_an_old_name_runs_the_new_module():
    r = subprocess.run(
        [sys.executable, "-m", "dungeonrl.envs.core.codegen", "--help"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "--check" in r.stdout
