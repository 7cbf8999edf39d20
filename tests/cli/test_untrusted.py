"""Untrusted input at the command line: every bad argument of
``dungeonrl dataset``, ``play``, ``eval`` and ``record`` and every broken
saved model is refused with one line on stderr naming the argument or the
file and what is allowed, exit code 2, nothing created; never a traceback.

Everything runs in-process (``dungeonrl.cli.main``) with tiny sizes: a
dataset is one Unbroken game of the random agent (a few steps).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import dungeonrl
from dungeonrl.cli import main as cli_main
from dungeonrl.registry import list_games


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.delenv("MINARI_DATASETS_PATH", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the default dataset folder
    return tmp_path


def _refused(argv, capsys, *words):
    rc = cli_main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err
    for w in words:
        assert w in err, (w, err)
    return err


def _tree(path: Path) -> list:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


# --- saved models --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ub_payload(tmp_path_factory):
    from dungeonrl.agents.algos.ppo import ActorCritic, save_model
    from dungeonrl.envs.core.common import resolve_core

    core = resolve_core("unbroken", {})
    net = ActorCritic(core.spec.obs_size, core.spec.num_actions, (8,))
    path = tmp_path_factory.mktemp("models") / "ub.pt"
    save_model(str(path), net, core)
    return str(path), torch.load(path, weights_only=True), core


def _copy(payload):
    q = dict(payload)
    q["arch"] = dict(payload["arch"])
    q["state_dict"] = dict(payload["state_dict"])
    q["model_spec"] = dict(payload["model_spec"])
    return q


def _first(q):
    return next(iter(q["state_dict"]))


def _set_weight(q, value):
    q["state_dict"][_first(q)] = value


BROKEN_MODELS = {
    "no arch": (lambda q: q.pop("arch"), "'arch'"),
    "no state_dict": (lambda q: q.pop("state_dict"), "'state_dict'"),
    "no model_spec": (lambda q: q.pop("model_spec"), "'model_spec'"),
    "string arch": (lambda q: q.__setitem__("arch", "mlp"), "'arch'"),
    "negative layer": (lambda q: q["arch"].__setitem__("hidden", [-3]), "hidden"),
    "zero layer": (lambda q: q["arch"].__setitem__("hidden", [0]), "hidden"),
    "bool layer": (lambda q: q["arch"].__setitem__("hidden", [True]), "hidden"),
    "huge layers": (lambda q: q["arch"].__setitem__("hidden", [65536] * 8), "weights"),
    "unknown activation": (lambda q: q["arch"].__setitem__("activation", "gelu"), "activation"),
    "arch missing field": (lambda q: q["arch"].pop("shared"), "shared"),
    "arch obs size": (lambda q: q["arch"].__setitem__("obs_size", 7), "obs_size"),
    "string format version": (lambda q: q.__setitem__("format_version", "1"), "format_version"),
    "spec field type": (lambda q: q["model_spec"].__setitem__("num_actions", "80"), "num_actions"),
    "nan weights": (
        lambda q: _set_weight(q, torch.full_like(q["state_dict"][_first(q)], float("nan"))),
        "NaN",
    ),
    "inf weights": (
        lambda q: _set_weight(q, torch.full_like(q["state_dict"][_first(q)], float("inf"))),
        "NaN or infinite",
    ),
    "wrong shape": (lambda q: _set_weight(q, torch.zeros(3, 3)), "shape"),
    "int weights": (
        lambda q: _set_weight(q, torch.zeros(q["state_dict"][_first(q)].shape, dtype=torch.int32)),
        "floating",
    ),
    "list weights": (lambda q: _set_weight(q, [1.0, 2.0]), "floating"),
    "missing weight": (lambda q: q["state_dict"].pop(_first(q)), "missing"),
    "extra weight": (
        lambda q: q["state_dict"].__setitem__("extra.w", torch.zeros(2)),
        "unexpected",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN_MODELS))
def test_broken_pt_model_is_a_model_spec_error(ub_payload, tmp_path, case):
    from dungeonrl.agents.modelspec import ModelSpecError
    from dungeonrl.agents.policy import make_agent

    _, payload, core = ub_payload
    q = _copy(payload)
    mutate, words = BROKEN_MODELS[case]
    mutate(q)
    bad = tmp_path / "broken.pt"
    torch.save(q, bad)
    with pytest.raises(ModelSpecError) as ei:
        make_agent(str(bad), core)
    assert "broken.pt" in str(ei.value) and words in str(ei.value), str(ei.value)


def test_garbled_zip_entry_name_is_a_model_spec_error(ub_payload, tmp_path):
    """Found by the model fuzz: one flipped byte in a zip entry's name made
    telling .pt from SB3 .zip raise a raw UnicodeDecodeError."""
    from dungeonrl.agents.modelspec import ModelSpecError, read_sb3_spec
    from dungeonrl.agents.policy import make_agent

    path, _, core = ub_payload
    raw = bytearray(Path(path).read_bytes())
    at = raw.rfind(b"ub/data.pkl")  # the name in the zip's central directory
    assert at > 0
    raw[at] = 0xED  # not UTF-8
    bad = tmp_path / "flipped.pt"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ModelSpecError, match="flipped.pt"):
        make_agent(str(bad), core)
    with pytest.raises(ModelSpecError, match="flipped.pt"):
        read_sb3_spec(str(bad))


@pytest.mark.parametrize("case", ["no arch", "string arch", "negative layer", "nan weights"])
def test_broken_model_on_the_command_line(ub_payload, in_tmp, capsys, case):
    """``play`` and ``eval`` with a broken model: exit code 2 and the file
    named (before: a KeyError / TypeError / torch error traceback, or NaN
    weights playing silently)."""
    _, payload, _ = ub_payload
    q = _copy(payload)
    BROKEN_MODELS[case][0](q)
    torch.save(q, in_tmp / "m.pt")
    _refused(["play", "unbroken", "--agent", "m.pt", "--max-steps", "2"], capsys, "m.pt")
    _refused(["eval", "unbroken", "--agent", "m.pt", "--games", "2"], capsys, "m.pt")


@pytest.mark.parametrize(
    "stored", [{"bogus": 1}, {"": 0}, {"num_players": "x"}, {"character": ["a"]}]
)
def test_eval_with_bad_stored_game_options(ub_payload, in_tmp, capsys, stored):
    """The game options saved with a model build eval's core: options the
    game does not take were a TypeError traceback (ValueError for
    ``num_players='x'``, unhashable values a TypeError too)."""
    _, payload, _ = ub_payload
    q = _copy(payload)
    q["model_spec"]["core_kwargs"] = stored
    torch.save(q, in_tmp / "opts.pt")
    _refused(
        ["eval", "unbroken", "--agent", "opts.pt", "--games", "2"],
        capsys,
        "opts.pt",
        "game options stored with the model",
    )


def test_another_games_model_names_both_games(ub_payload, capsys):
    from dungeonrl.agents.modelspec import ModelSpecError, check_model_file

    path, _, _ = ub_payload
    with pytest.raises(ModelSpecError, match="is a model of unbroken, not dungeon_crawler"):
        check_model_file(path, dungeonrl.get_spec("dungeon_crawler"))
    err = _refused(["play", "dungeon_crawler", "--agent", path, "--max-steps", "2"], capsys)
    assert "ub.pt is a model of unbroken, not dungeon_crawler" in err


def test_a_valid_model_still_loads_and_plays(ub_payload, in_tmp, capsys):
    path, _, _ = ub_payload
    assert cli_main(["play", "unbroken", "--agent", path, "--max-steps", "3"]) == 0
    assert "stopped after 3 decisions" in capsys.readouterr().out


def test_sb3_model_with_nan_weights_is_refused(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from dungeonrl.agents.algos.sb3 import save_sb3
    from dungeonrl.agents.modelspec import ModelSpecError
    from dungeonrl.agents.policy import make_agent
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv
    from dungeonrl.envs.core.common import resolve_core

    core = resolve_core("unbroken", {})
    model = MaskablePPO(
        "MlpPolicy",
        DungeonSB3VecEnv(core, num_envs=1),
        n_steps=16,
        batch_size=16,
        policy_kwargs={"net_arch": [8]},
        device="cpu",
    )
    with torch.no_grad():
        next(model.policy.parameters()).fill_(float("nan"))
    path = save_sb3(model, str(tmp_path / "nan.zip"), core)
    with pytest.raises(ModelSpecError, match="NaN"):
        make_agent(path, core)


# --- play / eval / record ----------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, words",
    [
        (["play", "dungeon_kart", "--seed", "-1", "--random"], ["--seed", "[0, 2**32 - 1"]),
        (["play", "dungeon_kart", "--seed", str(2**64), "--random"], ["--seed", "[0, 2**32 - 1"]),
        (["play", "unbroken", "--seed", str(2**64 - 1), "--random", "--episodes", "2"], ["--seed"]),
        (["play", "unbroken", "--seed", "x", "--random"], ["--seed"]),
        (["train", "unbroken", "--seed", str(2**40), "--algo", "sb3"], ["--seed"]),
        (
            ["eval", "unbroken", "--games", "2", "--json", "no/such/folder/x.json"],
            ["--json", "does not exist"],
        ),
        (["eval", "unbroken", "--games", "2", "--json", "."], ["--json", "is a folder"]),
        (["record", "unbroken", "--out", "x.txt"], [".gif, .mp4 or .png"]),
        (["record", "unbroken", "--agent", "nobody", "--out", "x.gif"], ["unknown agent"]),
    ],
)
def test_refused_before_anything_is_written(argv, words, in_tmp, capsys):
    err = _refused(argv, capsys, *words)
    assert err.count("\n") <= 2  # one line (and the --help hint)
    assert _tree(in_tmp) == [], "a refused command created files"


def test_record_usage_errors_go_to_stderr(in_tmp, capsys):
    assert cli_main(["record", "unbroken", "--out", "x.txt"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "dungeonrl record unbroken: error:" in err


def test_pictures_onto_a_file_is_refused(in_tmp, capsys):
    (in_tmp / "taken").write_text("mine")
    _refused(
        ["play", "dungeon_kart", "--random", "--max-steps", "2", "--pictures", "taken"],
        capsys,
        "--pictures",
        "not a folder",
    )
    _refused(
        ["play", "dungeon_kart", "--random", "--max-steps", "2", "--pictures", "taken/sub"],
        capsys,
        "--pictures",
    )
    assert (in_tmp / "taken").read_text() == "mine" and _tree(in_tmp) == ["taken"]


@pytest.mark.parametrize("command", ["play", "train", "eval", "record", "dataset"])
def test_a_command_without_its_game_lists_the_games(command, in_tmp, capsys):
    """``dungeonrl play`` used to start Unbroken silently."""
    err = _refused([command], capsys, f"dungeonrl {command}: error: choose a game")
    for g in list_games():
        assert g in err
    assert capsys.readouterr().out == ""
    assert _tree(in_tmp) == []


def test_demo_and_bench_still_need_no_game(capsys):
    assert cli_main(["demo", "--help"]) == 0
    assert "unbroken" in capsys.readouterr().out


# --- dataset -----------------------------------------------------------------------------
minari_needed = pytest.mark.skipif(
    __import__("importlib").util.find_spec("minari") is None, reason="needs minari"
)


@pytest.fixture
def models(ub_payload, in_tmp):
    (in_tmp / "garbled.pt").write_bytes(b"garbage")
    return ub_payload[0]


DATASET_REFUSED = [
    (["unbroken", "--agent", "nobody"], ["unknown agent 'nobody'"]),
    (["unbroken", "--agent", "garbled.pt"], ["garbled.pt", "not a dungeonrl PPO model"]),
    (["dungeon_crawler", "--agent", "UB"], ["is a model of unbroken, not dungeon_crawler"]),
    (["dungeon_crawler", "--players", "9"], ["--players", "[2, 8]"]),
    (["dungeon_crawler", "--players", "1"], ["--players", "[2, 8]"]),
    (["dungeon_crawler", "--opponents", "nobody"], ["nobody"]),
    (["unbroken", "--dataset-id", "bad id!"], ["--dataset-id", "NAMESPACE/]NAME-vN"]),
    (["unbroken", "--dataset-id", "no-version"], ["--dataset-id"]),
    (["unbroken", "--dataset-id", "x/y-v0"], ["--dataset-id", "2 characters"]),
    (["unbroken", "--dataset-id", "a//b-v0"], ["--dataset-id"]),
    (["unbroken", "--dataset-id", "../up-v0"], ["--dataset-id"]),
    (["unbroken", "--root", "garbled.pt"], ["--root", "not a folder"]),
    (["unbroken", "--root", "garbled.pt/sub"], ["--root", "cannot be created"]),
    (["unbroken", "--seed", "-1"], ["--seed", "[0, 2**32 - 1"]),
    (["unbroken", "--seed", str(2**64)], ["--seed"]),
    (["unbroken", "--episodes", "0"], ["--episodes"]),
    (["unbroken", "--character", "wizard"], ["--character"]),
    (["unbroken", "--players", "2"], ["--players does not apply to unbroken"]),
]


@minari_needed
@pytest.mark.parametrize(
    "argv, words", DATASET_REFUSED, ids=[" ".join(a) for a, _ in DATASET_REFUSED]
)
def test_dataset_refused_cleanly_and_creates_nothing(argv, words, models, in_tmp, capsys):
    argv = [models if a == "UB" else a for a in argv]
    before = _tree(in_tmp)
    full = ["dataset", *argv]
    full += [] if "--episodes" in argv else ["--episodes", "1"]
    full += [] if "--root" in argv else ["--root", "ds"]
    _refused(full, capsys, *words)
    assert _tree(in_tmp) == before, "a refused dataset command created files"


def _record(root, *extra, agent="random"):
    return cli_main(
        ["dataset", "unbroken", "--agent", agent, "--episodes", "1", "--root", str(root), *extra]
    )


@minari_needed
def test_dataset_existing_id_and_overwrite(in_tmp, capsys):
    import minari

    root = in_tmp / "ds"
    assert _record(root, "--seed", "3") == 0
    capsys.readouterr()
    before = _tree(root)
    _refused(
        ["dataset", "unbroken", "--agent", "random", "--episodes", "1", "--root", str(root)],
        capsys,
        "exists already",
        "--overwrite",
    )
    assert _tree(root) == before
    assert _record(root, "--overwrite", "--seed", "4") == 0
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    ds = minari.load_dataset("dungeonrl/unbroken/random-v0")
    assert "seed 4 + k" in ds.storage.metadata["description"] and ds.total_episodes == 1
    assert not [p for p in _tree(root) if "/." in p or p.startswith(".")], _tree(root)


@minari_needed
def test_dataset_bad_id_leaves_no_folder_that_breaks_the_root(in_tmp, capsys):
    """Before: ``--dataset-id 'bad id!'`` left ``ds/bad id!/data`` and every
    later ``dataset`` command in ``ds`` failed."""
    root = in_tmp / "ds"
    root.mkdir()
    _refused(
        ["dataset", "unbroken", "--dataset-id", "bad id!", "--episodes", "1", "--root", str(root)],
        capsys,
        "--dataset-id",
    )
    assert _tree(root) == []
    assert _record(root) == 0
    # a folder such an older version left behind does not stop a valid command either
    (root / "junk id!" / "data").mkdir(parents=True)
    assert _record(root, "--dataset-id", "other/name-v1") == 0
    assert "wrote Minari dataset 'other/name-v1'" in capsys.readouterr().out


@minari_needed
def test_dataset_write_failure_cleans_up_and_keeps_the_replaced_one(in_tmp, capsys, monkeypatch):
    import minari

    root = in_tmp / "ds"
    assert _record(root, "--dataset-id", "keep/me-v0") == 0
    before = _tree(root)
    real = minari.create_dataset_from_buffers

    def broken(**kw):
        real(**kw)  # writes the folders, then the disk "fills up"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(minari, "create_dataset_from_buffers", broken)
    _refused(
        [
            "dataset",
            "unbroken",
            "--agent",
            "random",
            "--episodes",
            "1",
            "--root",
            str(root),
            "--dataset-id",
            "new/space/name-v0",
        ],
        capsys,
        "No space left",
    )
    _refused(
        [
            "dataset",
            "unbroken",
            "--agent",
            "random",
            "--episodes",
            "1",
            "--root",
            str(root),
            "--dataset-id",
            "keep/me-v0",
            "--overwrite",
        ],
        capsys,
        "No space",
    )
    assert _tree(root) == before  # no partial folder, the old dataset untouched
    monkeypatch.setattr(minari, "create_dataset_from_buffers", real)
    os.environ["MINARI_DATASETS_PATH"] = str(root)
    assert minari.load_dataset("keep/me-v0").total_episodes == 1


@minari_needed
def test_dataset_id_namespace_clashes_are_refused(in_tmp, capsys):
    root = in_tmp / "ds"
    assert _record(root, "--dataset-id", "ns/name-v0") == 0
    before = _tree(root)
    _refused(
        [
            "dataset",
            "unbroken",
            "--agent",
            "random",
            "--episodes",
            "1",
            "--root",
            str(root),
            "--dataset-id",
            "ns/name-v0/inner-v0",
        ],
        capsys,
        "is a dataset",
    )
    (root / "ns2").mkdir()
    (root / "ns2" / "sub-v0").mkdir()
    _refused(
        [
            "dataset",
            "unbroken",
            "--agent",
            "random",
            "--episodes",
            "1",
            "--root",
            str(root),
            "--dataset-id",
            "ns2/sub-v0",
            "--overwrite",
        ],
        capsys,
        "not a Minari dataset",
    )
    assert _tree(root) == before + ["ns2", "ns2/sub-v0"]
