"""The batch object (``envs/core/batch.py``): the one place that names the
kernel entry points, binds them once per batch, and is what every adapter
calls."""

from __future__ import annotations

import ast
import copy
import pickle
from pathlib import Path

import numpy as np
import pytest
from helpers import fixture_game as fg
from helpers import fixture_team as ft

from dungeonrl.envs.core import batch as batch_mod
from dungeonrl.envs.core.adapters.aec import DungeonAECEnv
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.adapters.multi import BatchedMultiAgentEnv
from dungeonrl.envs.core.adapters.parallel import DungeonParallelEnv
from dungeonrl.envs.core.adapters.selfplay import SelfPlayView
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv
from dungeonrl.envs.core.batch import KERNEL_NAMES, Batch, core_batch

CORE_DIR = Path(batch_mod.__file__).parent
#: modules allowed to name the kernel entry points: the batch object, and the
#: template the generated kernel modules are written from (with its generator
#: and placeholder game)
NAMING = {"batch.py", "codegen.py", "template.py", "template_game.py"}


def _code_names(tree: ast.AST):
    """Names and attributes read, and non-docstring string constants, of a
    module (a name defined there, such as an adapter's own ``step_autoreset``
    method, is not a call into a kernel)."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            yield node.attr, node.lineno
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            yield node.id, node.lineno
        elif isinstance(node, ast.alias):
            yield node.name.rpartition(".")[2], getattr(node, "lineno", 0)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node.value, node.lineno


def test_only_the_batch_module_names_kernel_entry_points():
    found = []
    for path in sorted(CORE_DIR.rglob("*.py")):
        if path.name in NAMING:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for name, line in _code_names(tree):
            if name in KERNEL_NAMES:
                found.append(f"{path.name}:{line} {name}")
    assert not found, "kernel entry points named outside batch.py: " + ", ".join(found)


def test_no_adapter_reaches_the_kernel_module_or_binds_kernels():
    found = []
    for path in sorted(CORE_DIR.rglob("*.py")):
        if path.name in NAMING | {"kernel_core.py", "fastcall.py"}:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "kernels":
                found.append(f"{path.name}:{node.lineno} .kernels")
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("fastcall"):
                found.append(f"{path.name}:{node.lineno} imports fastcall")
    assert not found, ", ".join(found)


def test_batch_names_the_generated_entry_points():
    """Every name the batch calls is an entry point of the generated modules."""
    for module in (fg.make_core().kernels, ft.make_core().kernels):
        missing = {n for n in KERNEL_NAMES if not hasattr(module, n)}
        # a game without a scripted policy has no policy, scripted seats or search kernel
        assert missing <= {"play_rows", "advance_scripted", "policy_rows", "search_run"}, missing


def _counting(monkeypatch):
    calls = []
    real = batch_mod.entry_point

    def counted(dispatcher, args):
        calls.append(getattr(dispatcher, "__name__", str(dispatcher)))
        return real(dispatcher, args)

    monkeypatch.setattr(batch_mod, "entry_point", counted)
    return calls


def test_vector_env_binds_each_entry_point_once(monkeypatch):
    calls = _counting(monkeypatch)
    env = DungeonVectorEnv(fg.make_core(), num_envs=4)
    _, info = env.reset(seed=3)
    for _ in range(20):
        _, _, _, _, info = env.step(info["action_mask"].argmax(axis=1))
    assert sorted(calls) == sorted(  # each looked up once, on first use
        ["reset_batch", "mask_batch", "observe_batch", "step_autoreset"]
    ), calls
    assert isinstance(env._run.buf, Batch)


def test_vector_env_validates_num_envs_once(monkeypatch):
    seen = []
    real = batch_mod.check_num_envs
    monkeypatch.setattr(batch_mod, "check_num_envs", lambda n: seen.append(n) or real(n))
    import dungeonrl.envs.core.adapters.vector as vector_mod

    monkeypatch.setattr(
        vector_mod, "check_num_envs", lambda n: seen.append(n) or real(n), raising=False
    )
    DungeonVectorEnv(fg.make_core(), num_envs=3)
    assert seen == [3]


def test_vector_step_is_one_call_into_the_batch(monkeypatch):
    env = DungeonVectorEnv(fg.make_core(), num_envs=2)
    _, info = env.reset(seed=0)
    calls = []
    for name in ("vector_step", "fused_step"):
        real = getattr(Batch, name)
        monkeypatch.setattr(
            Batch, name, lambda self, *a, _r=real, _n=name: calls.append(_n) or _r(self, *a)
        )
    env.step(info["action_mask"].argmax(axis=1))
    assert calls == ["vector_step", "fused_step"]


def test_adapters_call_a_batch():
    core = fg.make_core()
    assert isinstance(DungeonEnv(core)._buf, Batch)
    team = ft.make_core()
    aec = DungeonAECEnv(team)
    assert isinstance(aec.batch, Batch) and aec.batch.core is team
    par = DungeonParallelEnv(team)
    assert isinstance(par._aec.batch, Batch)
    multi = BatchedMultiAgentEnv(team, 3)
    assert isinstance(multi.batch, Batch) and multi.states is multi.batch.states
    view = SelfPlayView(team, 2, ["random"])
    assert view.batch is core_batch(team)  # the core's batch, shared
    assert core_batch(team) is core_batch(team) and core_batch(team).n is None


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_batch_copies_with_its_own_buffers_and_rebinds(how):
    b = Batch(fg.make_core(), 3)
    b.reset(np.arange(3, dtype=np.uint64))
    b.actions[:] = b.masks.argmax(axis=1)
    b.fused_step()
    c = copy.deepcopy(b) if how == "deepcopy" else pickle.loads(pickle.dumps(b))
    assert c._fns == {} and c.states is not b.states
    assert np.array_equal(c.states, b.states)
    for x in (b, c):
        x.actions[:] = x.masks.argmax(axis=1)
        x.fused_step()
    assert c.states.tobytes() == b.states.tobytes()
    assert np.array_equal(c.obs, b.obs) and np.array_equal(c.rewards, b.rewards)


def test_batch_without_buffers_runs_on_the_callers_arrays():
    core = fg.make_core()
    b = Batch.calls(core)
    st = core.alloc(2)
    b.reset_states(st, np.array([1, 2], np.uint64))
    own = Batch(core, 2)
    own.reset(np.array([1, 2], np.uint64))
    assert st.tobytes() == own.states.tobytes()
    masks = np.zeros_like(own.masks)
    b.mask_states(st, masks)
    assert np.array_equal(masks, own.masks)


@pytest.mark.parametrize("n", [None, 0, True, 2.0])
def test_a_bad_num_envs_is_refused_naming_it(n):
    with pytest.raises((TypeError, ValueError), match="num_envs"):
        Batch(fg.make_core(), n)
    with pytest.raises((TypeError, ValueError), match="num_envs"):
        DungeonVectorEnv(fg.make_core(), num_envs=n)


@pytest.mark.parametrize("obs_dtype", ["float32", "float16"])
def test_the_fused_steps_hot_path_passes_kernel_args_order(obs_dtype):
    """``fused_step`` after its first call reads its arguments in one call:
    the same tuple as ``KERNEL_ARGS["step_autoreset"]`` (a float16
    observation as its uint16 view)."""
    b = Batch(fg.make_core(), 2, obs_dtype)
    b.reset(np.arange(2, dtype=np.uint64))
    b.fused_step()  # binds the entry point
    seen = []
    b._fns["step_autoreset"] = lambda *a: seen.append(a)
    b.fused_step()
    want = batch_mod.KERNEL_ARGS["step_autoreset"](b.core, *b._fused_arrays())
    assert len(seen) == 1 and len(seen[0]) == len(want) == len(batch_mod.FUSED_ARRAYS) + 1
    for x, y in zip(seen[0], want):
        assert x is y or (x.base is y.base and x.dtype == y.dtype == np.uint16)
    assert b._fused_arrays()[2] is b.players_out and seen[0][1] is b.core.TR


def test_the_hot_loops_arrays_are_declared_once():
    """The engine template's ``step_autoreset`` and the GameCore contract
    spell :data:`~dungeonrl.envs.core.batch.FUSED_ARRAYS` in its order (the
    kernel takes the content tables after ``states``; the contract's
    ``players`` is optional, last), and the shared batch's call takes them
    by those names."""
    import inspect

    from dungeonrl.envs.core.kernel import template
    from dungeonrl.envs.core.spec import GameCore

    names = list(batch_mod.FUSED_ARRAYS)
    kernel = list(inspect.signature(template.step_autoreset.py_func).parameters)
    assert kernel == names[:1] + ["tabs"] + names[1:]
    contract = [n for n in names if n != "players"] + ["players"]
    assert list(inspect.signature(GameCore.step_autoreset).parameters)[1:] == contract
    assert list(inspect.signature(Batch.fused_step_states).parameters)[1:] == contract
    core = fg.make_core()
    assert core.step_autoreset.__func__ is Batch.fused_step_states


def test_a_cores_batched_calls_are_its_shared_batchs_methods():
    """``KernelCore`` forwards nothing: ``core.step`` and the other batched
    calls are the methods of the core's shared batch (``core.batch``)."""
    from dungeonrl.envs.core.batch import core_batch
    from dungeonrl.envs.core.kernel_core import BatchCall, KernelCore

    core = fg.make_core()
    assert core.batch is core_batch(core)
    calls = {n: v for n, v in vars(KernelCore).items() if isinstance(v, BatchCall)}
    assert {"reset", "step", "step_autoreset", "observe", "legal_mask"} <= set(calls)
    for name, call in calls.items():
        bound = getattr(core, name)
        assert bound.__self__ is core.batch and bound.__func__ is getattr(Batch, call.method)
        assert KernelCore.__dict__[name].__doc__, name  # the contract's words (help)
    # called on the class, as a method is: the same call
    states = core.alloc(2)
    type(core).reset(core, states, np.arange(2, dtype=np.uint64))
    masks = np.zeros((2, core.spec.num_actions), np.uint8)
    type(core).legal_mask(core, states, masks)
    assert masks.any(axis=1).all() and (masks == core.recompute_mask(states)).all()


def test_copy_records_copies_bytes_and_refuses_what_it_cannot():
    """``copy_records`` is ``dst[:] = src`` as one byte copy: one row into
    every row, or row for row; another dtype or a strided view is refused."""
    from dungeonrl.envs.core.common import copy_records

    core = fg.make_core()
    src = core.alloc(3)
    core.reset(src, np.arange(3, dtype=np.uint64))
    dst = core.alloc(3)
    copy_records(dst, src)
    assert dst.tobytes() == src.tobytes()
    copy_records(dst, src[1:2])
    assert all(dst[i].tobytes() == src[1].tobytes() for i in range(3))
    with pytest.raises(TypeError, match="dtypes differ"):
        copy_records(dst, np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="C-contiguous"):
        copy_records(dst[::2], src[:2])
