"""Hypothesis fuzz of constructor arguments and seeds, for every registered
game and adapter: a documented value works, anything else is a
``TypeError`` / ``ValueError`` naming the argument (never a crash later, a
silent truncation or an OverflowError)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from helpers import fuzz_profiles  # noqa: F401  (Hypothesis profiles)
from hypothesis import event, given
from hypothesis import strategies as st

from dungeonrl.benchmarks.fuzz import HOOKS, GameEnv, seed_case, seed_ok
from dungeonrl.benchmarks.fuzz import games as list_games
from dungeonrl.envs.core.validate import INT32_MAX, MAX_NUM_ENVS
from dungeonrl.registry import get_spec

INTS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([0, 1, 2**31 - 1, 2**31, 2**63, 2**64 - 1, 2**64, -1]),
)
SEEDS = st.one_of(
    st.none(),
    INTS,
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.integers(0, 2**64 - 1).map(np.uint64),
    st.integers(-(2**31), 2**31 - 1).map(np.int32),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.just(np.random.default_rng(0)),
    st.lists(st.integers(0, 5), max_size=2),
)
ANY_ARG = st.one_of(
    INTS,
    st.booleans(),
    st.floats(),
    st.text(max_size=3),
    st.none(),
    st.integers(-5, 5).map(np.int64),
)
_ENVS = {}


def _env(name):
    if name not in _ENVS:
        _ENVS[name] = GameEnv(name, HOOKS[name].configs[0])
    return _ENVS[name]


@pytest.mark.parametrize("name", list_games())
@given(seed=SEEDS)
def test_fuzz_reset_seed(name, seed):
    assert seed_case(_env(name), seed) in ("refused", "played")


def _int_ok(v, lo, hi):
    return (
        isinstance(v, (int, np.integer))
        and not isinstance(v, (bool, np.bool_))
        and lo <= int(v) <= hi
    )


@pytest.mark.parametrize("name", list_games())
@given(v=ANY_ARG)
def test_fuzz_max_steps(name, v):
    spec = get_spec(name)
    try:
        core = spec.make_core(max_steps=v, **HOOKS[name].extra_args)
    except (TypeError, ValueError) as e:
        assert not _int_ok(v, 1, INT32_MAX), f"max_steps={v!r} refused: {e}"
        assert "max_steps" in str(e)
        return
    assert _int_ok(v, 1, INT32_MAX), f"max_steps={v!r} accepted"
    assert core.max_steps == int(v)


@given(v=ANY_ARG)
def test_fuzz_num_envs(v):
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    ok = _int_ok(v, 1, MAX_NUM_ENVS)
    if ok and int(v) > 64:  # valid, but do not allocate large batches in a test
        return
    try:
        env = DungeonVectorEnv("unbroken", num_envs=v)
    except (TypeError, ValueError) as e:
        assert not ok, f"num_envs={v!r} refused: {e}"
        assert "num_envs" in str(e)
        return
    assert ok, f"num_envs={v!r} accepted"
    assert env.num_envs == int(v)


_VEC = {}


def _vec():
    if not _VEC:
        from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv, DungeonVectorEnv

        _VEC["vector"] = DungeonVectorEnv("unbroken", num_envs=2)
        _VEC["sb3"] = DungeonSB3VecEnv("unbroken", num_envs=2)
    return _VEC


@given(seed=SEEDS)
def test_fuzz_vector_and_sb3_seeds(seed):
    """The vector env's ``reset(seed=)`` and the SB3 VecEnv's ``seed()`` (what
    its constructor calls) with the same values."""
    s = seed
    if isinstance(s, list):  # the vector env takes one seed per env
        ok_vec = len(s) == 2 and all(seed_ok(x) and x is not None for x in s)
    else:
        ok_vec = seed_ok(s)
    envs = _vec()

    def sb3():
        envs["sb3"].seed(s)
        envs["sb3"].reset()

    cases = (
        (lambda: envs["vector"].reset(seed=s), ok_vec),
        (sb3, not isinstance(s, list) and seed_ok(s)),
    )
    for make, ok in cases:
        try:
            make()
        except (TypeError, ValueError) as e:
            assert not ok, f"seed {s!r} refused: {e}"
            assert "seed" in str(e), str(e)
            continue
        assert ok, f"seed {s!r} accepted"


# --- the command line: `dungeonrl dataset` arguments and saved model files ----------------
# In-process (``dungeonrl.cli.main``), tiny sizes: a case either is refused with exit code 2
# and one error line on stderr (nothing written, the dataset folder still usable), or it
# records its episodes; never a traceback.
ID_TEXT = st.text(alphabet="ab_-/v09 .!\\", max_size=14)
DATASET_IDS = st.one_of(
    ID_TEXT,
    st.sampled_from(
        [
            "dungeonrl/unbroken/random-v0",
            "ok-v1",
            "ns/x-v2",
            "x/y-v0",
            "a//b-v0",
            "../up-v0",
            "no-version",
            "/abs-v0",
            "ns/-v0",
            "ns/name-v",
            "ns/name-v01",
            "bad id!-v0",
            "",
        ]
    ),
)
SEED_TEXT = st.one_of(
    st.integers(-(2**66), 2**66).map(str),
    st.sampled_from(["0", "4294967295", "4294967296", "-1", "1e3", "x", ""]),
)


def _cli(argv):
    from dungeonrl.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:  # argparse inside a command: still an exit code
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def _id_ok(text: str) -> bool:
    """What Minari's own parser takes, with a version, no empty namespace
    part, ASCII digits, at most 200 characters."""
    from minari.dataset.minari_dataset import parse_dataset_id

    try:
        parse_dataset_id(text)
    except (ValueError, TypeError):
        return False
    return "//" not in text and re.search(r"-v[0-9]+$", text) is not None and len(text) <= 200


def _seed_ok(text: str) -> bool:
    try:
        return 0 <= int(text) <= 2**32 - 1
    except ValueError:
        return False


def _datasets_in(root: Path) -> list:
    return sorted(
        str(p.parent.relative_to(root))
        for p in root.rglob("data")
        if (p / "metadata.json").exists()
    )


@given(
    dataset_id=st.one_of(st.none(), DATASET_IDS),
    seed=st.one_of(st.none(), st.integers(0, 2**32 - 1).map(str), SEED_TEXT),
    episodes=st.sampled_from(["1"] * 4 + ["2", "0", "-3", "x", "1.5"]),
    agent=st.sampled_from(["random"] * 5 + ["nobody", "garbled.pt", "other.pt"]),
    root=st.sampled_from(["ds"] * 4 + ["ds/deeper", "file.txt", "file.txt/sub", ""]),
    overwrite=st.booleans(),
)
def test_fuzz_dataset_command(dataset_id, seed, episodes, agent, root, overwrite):
    pytest.importorskip("minari")
    old_cwd, old_env = os.getcwd(), os.environ.get("MINARI_DATASETS_PATH")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        try:
            os.chdir(tmp)
            (tmp / "file.txt").write_text("x")
            (tmp / "garbled.pt").write_bytes(b"\x80\x04garbage")
            _other_game_model(tmp / "other.pt")
            argv = ["dataset", "unbroken", "--agent", agent, "--episodes", episodes, "--root", root]
            if dataset_id is not None:
                argv += ["--dataset-id", dataset_id]
            if seed is not None:
                argv += ["--seed", seed]
            if overwrite:
                argv.append("--overwrite")
            before = sorted(str(p) for p in tmp.rglob("*"))
            rc, out, err = _cli(argv)
            ok = (
                agent == "random"
                and episodes in ("1", "2")
                and root.startswith("ds")
                and (dataset_id is None or _id_ok(dataset_id))
                and (seed is None or _seed_ok(seed))
            )
            assert "Traceback" not in err
            event("refused" if rc else "accepted")
            if rc != 0:
                assert rc == 2, (argv, rc, err)
                assert not ok, (argv, err)
                assert err.strip() and "error" in err, (argv, err)
                assert sorted(str(p) for p in tmp.rglob("*")) == before, (
                    f"{argv}: a refused command wrote files"
                )
            else:
                assert ok, f"{argv} accepted"
                want = dataset_id or "dungeonrl/unbroken/random-v0"
                assert _datasets_in(tmp / root) == [want]
                # the same root takes another (valid) dataset afterwards
                rc2, _, err2 = _cli(
                    [
                        "dataset",
                        "unbroken",
                        "--agent",
                        "random",
                        "--episodes",
                        "1",
                        "--root",
                        root,
                        "--dataset-id",
                        "after/check-v0",
                    ]
                )
                assert rc2 == 0, err2
        finally:
            os.chdir(old_cwd)
            if old_env is None:
                os.environ.pop("MINARI_DATASETS_PATH", None)
            else:
                os.environ["MINARI_DATASETS_PATH"] = old_env


_MODEL = {}


def _model_payload():
    if not _MODEL:
        import torch

        from dungeonrl.agents.algos.ppo import ActorCritic, save_model
        from dungeonrl.envs.core.common import resolve_core

        core = resolve_core("unbroken", {})
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.pt")
            save_model(path, ActorCritic(core.spec.obs_size, core.spec.num_actions, (8,)), core)
            _MODEL["bytes"] = open(path, "rb").read()
            _MODEL["payload"] = torch.load(path, weights_only=True)
        _MODEL["core"] = core
    return _MODEL


def _other_game_model(path):
    """A model whose spec says it was trained on another game."""
    import torch

    q = dict(_model_payload()["payload"])
    q["model_spec"] = dict(
        q["model_spec"], game="dungeon_crawler", env_id="dungeonrl/DungeonCrawler-v0"
    )
    torch.save(q, path)


def _value(kind: str, data):
    """A replacement value for a model entry."""
    import torch

    return data.draw(
        st.one_of(
            ANY_ARG,
            st.lists(st.integers(-3, 70000), max_size=3),
            st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
            st.sampled_from([torch.zeros(2), torch.tensor([float("nan")]), "", [], {}, (8,)]),
        ),
        label=kind,
    )


def _same(a, b) -> bool:
    """``a`` is ``b`` as far as the loader can tell (same type, equal)."""
    import torch

    if type(a) is not type(b) or isinstance(a, torch.Tensor):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


@given(data=st.data())
def test_fuzz_model_files(data):
    """Mutated or garbled ``.pt`` files: a ``ModelSpecError`` naming the file,
    or a model that loads and plays legal actions with finite logits (the
    mutations that keep the file valid: same-shape finite weights, entries
    the loader does not read)."""
    import torch

    from dungeonrl.agents.modelspec import ModelSpecError
    from dungeonrl.agents.policy import make_agent
    from dungeonrl.envs.core.batch import Batch

    m = _model_payload()
    core = m["core"]
    q = dict(m["payload"])
    q["arch"], q["state_dict"] = dict(q["arch"]), dict(q["state_dict"])
    q["model_spec"] = dict(q["model_spec"])
    kind = data.draw(
        st.sampled_from(["drop", "top", "arch", "spec", "weight", "finite", "extra", "bytes"]),
        label="mutation",
    )
    benign = False
    raw = None
    if kind == "drop":
        key = data.draw(st.sampled_from(sorted(q)), label="key")
        del q[key]
        benign = key in ("config", "metrics", "dungeonrl_version")
    elif kind == "top":
        key = data.draw(st.sampled_from(sorted(q)), label="key")
        v = _value(key, data)
        # entries the loader does not read, as long as torch can read them back without
        # unpickling anything but plain values and tensors (a numpy scalar is refused)
        benign = (
            key in ("config", "metrics", "dungeonrl_version") and not isinstance(v, np.generic)
        ) or _same(v, q[key])
        q[key] = v
    elif kind == "arch":
        key = data.draw(st.sampled_from(sorted(q["arch"])), label="key")
        v = _value(key, data)
        benign = _same(v, q["arch"][key]) or (
            key == "hidden"
            and isinstance(v, (list, tuple))
            and list(v) == [8]
            and not isinstance(v[0], bool)
        )
        q["arch"][key] = v
    elif kind == "spec":
        key = data.draw(st.sampled_from(sorted(q["model_spec"])), label="key")
        v = _value(key, data)
        # the stored game options only matter when a core is built from them (below)
        benign = _same(v, q["model_spec"][key]) or (key == "core_kwargs" and isinstance(v, dict))
        q["model_spec"][key] = v
    elif kind in ("weight", "finite"):
        key = data.draw(st.sampled_from(sorted(q["state_dict"])), label="weight")
        ref = q["state_dict"][key]
        if kind == "finite":
            scale = data.draw(st.floats(-1e3, 1e3), label="scale")
            q["state_dict"][key] = torch.full_like(ref, scale)
            benign = True
        else:
            q["state_dict"][key] = data.draw(
                st.sampled_from(
                    [
                        torch.full_like(ref, float("nan")),
                        torch.full_like(ref, -float("inf")),
                        ref.reshape(-1)[:1].clone(),
                        ref.to(torch.int64),
                        ref.t().clone()
                        if ref.dim() == 2 and ref.shape[0] != ref.shape[1]
                        else ref[:0],
                        "w",
                        None,
                    ]
                ),
                label="value",
            )
            w = q["state_dict"][key]  # a same-shape finite float tensor is a valid model
            benign = (
                isinstance(w, torch.Tensor)
                and w.is_floating_point()
                and w.shape == ref.shape
                and bool(torch.isfinite(w).all())
            )
    elif kind == "extra":
        q["state_dict"]["extra.weight"] = torch.zeros(2)
    else:
        raw = bytearray(m["bytes"])
        how = data.draw(st.sampled_from(["truncate", "flip"]), label="how")
        if how == "truncate":
            raw = raw[: data.draw(st.integers(0, len(raw) - 1), label="len")]
        else:
            for _ in range(data.draw(st.integers(1, 8), label="flips")):
                i = data.draw(st.integers(0, len(raw) - 1), label="at")
                raw[i] ^= data.draw(st.integers(1, 255), label="bits")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fuzzed.pt")
        if raw is not None:
            open(path, "wb").write(bytes(raw))
        else:
            torch.save(q, path)
        try:
            agent = make_agent(path, core)
        except ModelSpecError as e:
            event(f"{kind}: refused")
            assert "fuzzed.pt" in str(e), str(e)
            assert not benign, f"{kind}: a valid model refused: {e}"
            return
        event(f"{kind}: loaded")
        assert benign or raw is not None, f"{kind}: a broken model loaded"
        for p in agent.net.parameters():
            assert torch.isfinite(p).all()
        # `dungeonrl eval` builds a core from the options stored with the model
        from dungeonrl.agents.commands.evaluate import _core_for
        from dungeonrl.agents.policy import model_core_kwargs

        try:
            _core_for("unbroken", model_core_kwargs(path), path)
        except ModelSpecError as e:
            assert "fuzzed.pt" in str(e), str(e)
        buf = Batch(core, 4)
        buf.reset(np.arange(4, dtype=np.uint64))
        acts = agent.act(buf, np.arange(4))
        assert all(buf.masks[i, a] for i, a in enumerate(acts))
