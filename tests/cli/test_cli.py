"""The command line: one tree, every option in --help with its default, every
documented flag has an effect, unknown or inapplicable options fail with exit
code 2 before anything is written, and training runs a user can trust
(TensorBoard logs, Ctrl-C keeps the model, run folders are never silently
overwritten), plus the compile notice of a cold numba cache.

Budgets are tiny (a few thousand env steps); the whole file runs in about a
minute on a warm numba cache.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

import dungeonrl
from dungeonrl import cli
from dungeonrl.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--num-envs", "32", "--num-steps", "8", "--hidden", "8", "--progress", "none"]


def _leaves():
    from dungeonrl.registry import list_games

    for command in ("play", "train", "eval", "bench", "demo"):
        for game in list_games():
            leaf = cli._leaf_parser(command, game)
            if leaf is not None:
                yield command, game, leaf


# --- the tree and its help ---------------------------------------------------------------
def test_every_option_of_every_leaf_is_in_help_with_its_default():
    seen = 0
    fmt = cli.HelpFormatter("x")
    for command, game, leaf in _leaves():
        text = leaf.format_help()
        for act in leaf._actions:
            if (
                isinstance(act, argparse._HelpAction)
                or not act.option_strings
                or act.help == argparse.SUPPRESS
            ):  # hidden on purpose (test modes)
                continue
            assert act.option_strings[0] in text, (command, game, act.option_strings)
            if act.nargs != 0:  # an option with a value says its default
                assert "default" in fmt._get_help_string(act).lower(), (
                    command,
                    game,
                    act.option_strings,
                )
            seen += 1
    assert seen > 80
    # the README's training flags are on the first page of `train unbroken --help`
    text = cli._leaf_parser("train", "unbroken").format_help()
    for flag in (
        "--algo",
        "--steps",
        "--minutes",
        "--device",
        "--out",
        "--overwrite",
        "--character",
        "--eval-games",
    ):
        assert flag in text
    assert "--opponents" in cli._leaf_parser("train", "dungeon_crawler").format_help()
    for flag in ("--players", "--opponents", "--agent", "--delay", "--episodes"):
        assert flag in cli._leaf_parser("play", "dungeon_crawler").format_help()


def test_help_exits_0_and_shows_the_leaf(capsys):
    assert cli_main(["train", "unbroken", "--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: dungeonrl train unbroken" in out and "--minibatches" in out
    assert (
        "(default: ppo 32, sb3 128)" in out.replace("\n", " ").replace("  ", " ") or "ppo 32" in out
    )
    assert cli_main(["train", "--help"]) == 0  # the command: its games
    assert "dungeon_crawler" in capsys.readouterr().out
    assert cli_main(["play", "dungeonrl/Unbroken-v0", "--help"]) == 0  # env id alias
    assert "--character" in capsys.readouterr().out


def test_list_and_version(capsys):
    assert cli_main(["list"]) == 0
    out = capsys.readouterr().out
    assert "dungeonrl/Unbroken-v0" in out and "players=2-8" in out
    assert cli_main(["--version"]) == 0
    assert dungeonrl.__version__ in capsys.readouterr().out


def test_readme_commands_parse():
    """Every `dungeonrl ...` command in the README parses with the tree (the
    site's pages, the games' own docs included: tests/docs/test_commands.py)."""
    from ..docs.test_commands import commands, parse

    lines = commands((ROOT / "README.md").read_text())
    assert len(lines) >= 8
    for line in lines:
        parse(line)


# --- refusals: exit code 2, a clear message, nothing created ------------------------------
REFUSED = [
    (["train", "unbroken", "--bogus"], "unrecognized arguments: --bogus"),
    (["train", "unbroken", "--players", "3"], "does not apply to unbroken"),
    (["train", "unbroken", "--algo", "sb3", "--minibatches", "4"], "--algo ppo only"),
    (["train", "unbroken", "--batch-size", "64"], "--algo sb3 only"),
    (["train", "unbroken", "--algo", "sb3", "--init", "x.pt"], "--algo ppo only"),
    (["train", "unbroken", "--bc-steps", "10"], "only has an effect with --kickstart"),
    (["train", "unbroken", "--progress", "rich"], "--algo sb3 only"),
    (["train", "unbroken", "--steps", "0"], "--steps"),
    (["train", "unbroken", "--hidden", "a,b", "--eval-games", "0"], "--hidden"),
    (["train", "unbroken", "--init", "no-such-model.pt", "--eval-games", "0"], "no-such-model"),
    (["train", "dungeon_crawler", "--opponents", "nobody", "--steps", "64"], "unknown agent"),
    (["train", "unbroken", "--minutes", "-1"], "--minutes"),
    (["train", "unbroken", "--device", "tpu"], "--device"),
    (["play", "unbroken", "--bogus"], "unrecognized"),
    (["play", "unbroken", "--character", "wizard"], "--character"),
    (["play", "unbroken", "--random", "--agent", "heuristic"], "contradict"),
    (["play", "unbroken", "--delay", "1"], "--delay only applies"),
    (["play", "unbroken", "--stochastic", "--random"], "--stochastic"),
    (["play", "dungeon_crawler", "--players", "9"], "--players"),
    (["play", "dungeon_crawler", "--opponents", "random,random,random"], "one per rival"),
    (["play", "dungeon_crawler", "--character", "sage"], "does not apply to dungeon_crawler"),
    (["eval", "unbroken", "--plot", "x.png"], "does not apply to unbroken"),
    (["eval", "dungeon_crawler", "--slow"], "does not apply to dungeon_crawler"),
    (["eval", "unbroken", "--games", "0"], "--games"),
    (["bench", "unbroken", "--players", "3"], "unrecognized arguments: --players"),
    # "does not apply to unbroken (it is an option of ...)" when a game registered
    # by hand (whose generic bench takes --seed) is in the registry, else
    # "unrecognized arguments": either way refused, whatever ran before
    (["bench", "unbroken", "--seed", "3"], "--seed"),
    (["demo", "--no-train", "--train-seconds", "5"], "--no-train"),
    (["demo", "unbroken", "--bogus"], "unrecognized"),
    (["list", "--bogus"], "unrecognized"),
    (["play", "no_such_game"], "unknown game"),
]


@pytest.mark.parametrize("argv, message", REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_refused_with_exit_2_and_nothing_created(argv, message, in_tmp, capsys):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert list(in_tmp.iterdir()) == [], "a refused command created files"


def test_demo_for_a_game_without_one_is_unavailable(capsys):
    assert cli_main(["demo", "dungeon_crawler"]) == 1
    assert "not available" in capsys.readouterr().err


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="a CUDA device is present")
def test_device_cuda_without_one_is_a_clear_error(in_tmp, capsys):
    assert cli_main(["train", "unbroken", "--device", "cuda", "--steps", "64"]) == 2
    assert "no CUDA device" in capsys.readouterr().err
    assert list(in_tmp.iterdir()) == []
    from dungeonrl.agents.algos.ppo import resolve_device

    assert resolve_device("auto").type == "cpu" and resolve_device("cpu").type == "cpu"


# --- play: the documented flags act ----------------------------------------------------------
def test_play_random_plays_the_asked_episodes_and_steps(in_tmp, capsys):
    # stdin is empty: a prompt would end the command at once with "bye"
    assert (
        cli_main(
            ["play", "unbroken", "--random", "--episodes", "2", "--max-steps", "3", "--seed", "5"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "bye" not in out
    assert "game 1 of 2 (seed 5)" in out and "game 2 of 2 (seed 6)" in out
    assert out.count("stopped after 3 decisions") == 2
    assert len(re.findall(r"^> \d+ ", out, re.M)) == 6


def test_play_agent_character_difficulty_and_delay(in_tmp, capsys):
    t = time.perf_counter()
    assert (
        cli_main(
            [
                "play",
                "unbroken",
                "--agent",
                "heuristic",
                "--character",
                "hunter",
                "--difficulty",
                "hard",
                "--max-steps",
                "2",
                "--delay",
                "0.3",
            ]
        )
        == 0
    )
    assert time.perf_counter() - t >= 0.6  # two decisions, 0.3 s after each
    out = capsys.readouterr().out
    assert "Hunter" in out and "hard" in out and "bye" not in out
    # without an agent, a person is asked (stdin empty: the command ends politely)
    assert cli_main(["play", "unbroken"]) == 0
    assert "bye" in capsys.readouterr().out


def test_play_dungeon_crawler_watch_episodes_and_max_turns(in_tmp, capsys):
    assert (
        cli_main(
            [
                "play",
                "dungeon_crawler",
                "--watch",
                "--players",
                "2",
                "--opponents",
                "random",
                "--episodes",
                "2",
                "--max-turns",
                "5",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "bye" not in out and out.count("stopped after 5 decisions") == 2
    assert "> player_0 plays" in out
    assert (
        cli_main(["play", "dungeon_crawler", "--random", "--players", "3", "--max-steps", "4"]) == 0
    )
    assert "stopped after 4 decisions" in capsys.readouterr().out


def test_play_calls_the_narrator_when_the_game_has_one(in_tmp, capsys, monkeypatch):
    calls = []

    def narrate(core, prev, state, seat):
        calls.append(seat)
        return [f"narrated {len(calls)}"]

    import dungeonrl.play as play

    monkeypatch.setattr(play, "narrator", lambda game: narrate)
    assert cli_main(["play", "unbroken", "--random", "--max-steps", "2"]) == 0
    assert calls == [0, 0] and "* narrated 2" in capsys.readouterr().out


def test_eval_episodes_alias_and_model_option(in_tmp, capsys):
    assert (
        cli_main(["eval", "unbroken", "--agent", "random", "--episodes", "7", "--json", "e.json"])
        == 0
    )
    d = json.loads((in_tmp / "e.json").read_text())
    assert [s["games"] for s in d["summaries"]] == [7]
    assert cli_main(["eval", "--env", "unbroken", "--model", "missing.pt"]) == 2


# --- training runs ------------------------------------------------------------------------------
def _events(folder: Path) -> set:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = list(folder.rglob("events.out.tfevents.*"))
    assert files, f"no TensorBoard event file under {folder}"
    tags = set()
    for f in files:
        acc = EventAccumulator(str(f))
        acc.Reload()
        tags |= set(acc.Tags()["scalars"])
    return tags


def test_train_flags_reach_the_run_and_tensorboard(in_tmp, capsys):
    out = in_tmp / "run"
    rc = cli_main(
        [
            "train",
            "unbroken",
            "--steps",
            "512",
            "--num-envs",
            "32",
            "--num-steps",
            "8",
            "--epochs",
            "1",
            "--minibatches",
            "2",
            "--lr",
            "0.001",
            "--ent-coef",
            "0.02",
            "--gamma",
            "0.9",
            "--hidden",
            "8,8",
            "--activation",
            "relu",
            "--shared",
            "--torch-threads",
            "1",
            "--eval-games",
            "10",
            "--seed",
            "3",
            "--difficulty",
            "easy",
            "--character",
            "hunter",
            "--reward",
            "win_loss",
            "--checkpoint-minutes",
            "0",
            "--device",
            "cpu",
            "--progress",
            "none",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr()
    assert rc == 0, text.err
    m = json.loads((out / "metrics.json").read_text())
    c = m["config"]
    assert (c["num_envs"], c["num_steps"], c["update_epochs"], c["num_minibatches"]) == (
        32,
        8,
        1,
        2,
    )
    assert (c["learning_rate"], c["ent_coef"], c["gamma"]) == (0.001, 0.02, 0.9)
    assert (
        c["hidden"],
        c["activation"],
        c["shared"],
        c["torch_threads"],
        c["seed"],
        c["device"],
    ) == ([8, 8], "relu", True, 1, 3, "cpu")
    assert m["core_kwargs"] == {"reward": "win_loss", "difficulty": "easy", "character": "hunter"}
    assert m["steps"] == 512 and m["interrupted"] is False
    assert [r["games"] for r in m["final_eval"]] == [10, 10, 10]
    assert "not part of --minutes" in text.out
    for name in ("model.pt", "metrics.csv", "learning_curve.png"):
        assert (out / name).exists(), name
    tags = _events(out / "tb")
    assert {"rollout/win_rate", "train/approx_kl", "time/sps"} <= tags
    assert any(t.startswith("eval/") for t in tags)
    # --eval-games 0 skips the evaluation; --init continues the saved network
    out2 = in_tmp / "run2"
    assert (
        cli_main(
            [
                "train",
                "unbroken",
                "--steps",
                "256",
                "--eval-games",
                "0",
                "--init",
                str(out / "model.pt"),
                "--out",
                str(out2),
                *TINY,
            ]
        )
        == 0
    )
    m2 = json.loads((out2 / "metrics.json").read_text())
    assert "final_eval" not in m2
    assert m2["config"]["hidden"] == [8, 8] and m2["config"]["shared"] is True


def test_minutes_bounds_both_algorithms(in_tmp, capsys):
    t = time.perf_counter()
    assert (
        cli_main(
            ["train", "unbroken", "--minutes", "0.02", "--eval-games", "0", "--out", "ppo", *TINY]
        )
        == 0
    )
    m = json.loads((in_tmp / "ppo" / "metrics.json").read_text())
    assert 0 < m["steps"] < 10**9 and m["config"]["max_seconds"] == pytest.approx(1.2)
    pytest.importorskip("sb3_contrib")
    assert (
        cli_main(
            [
                "train",
                "unbroken",
                "--algo",
                "sb3",
                "--minutes",
                "0.03",
                "--num-envs",
                "8",
                "--num-steps",
                "16",
                "--batch-size",
                "32",
                "--epochs",
                "1",
                "--hidden",
                "8",
                "--eval-games",
                "0",
                "--progress",
                "none",
                "--out",
                "sb3",
            ]
        )
        == 0
    )
    m = json.loads((in_tmp / "sb3" / "metrics.json").read_text())
    assert 0 < m["steps"] < 200_000  # not SB3's 200k-step default
    assert (m["config"]["n_steps"], m["config"]["batch_size"]) == (16, 32)
    assert time.perf_counter() - t < 120
    assert _events(in_tmp / "sb3" / "tb")  # SB3's own TensorBoard logs


def test_ctrl_c_keeps_the_model_and_the_metrics(in_tmp, capsys, monkeypatch):
    import dungeonrl.agents.commands.train as train_mod
    from dungeonrl.agents.algos.ppo import load_model

    real, calls = train_mod.tb_log, []

    def interrupt_on_second(writer, m, step):
        calls.append((in_tmp / "run" / "checkpoint.pt").exists())
        real(writer, m, step)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "tb_log", interrupt_on_second)
    rc = cli_main(
        [
            "train",
            "unbroken",
            "--steps",
            "100000",
            "--out",
            "run",
            "--checkpoint-minutes",
            "1e-6",
            *TINY,
        ]
    )
    text = capsys.readouterr()
    assert rc == 130, text.err
    assert "interrupted" in text.out
    run = in_tmp / "run"
    m = json.loads((run / "metrics.json").read_text())
    assert m["interrupted"] is True and "final_eval" not in m
    assert len(m["history"]) == 2 and m["steps"] == 2 * 32 * 8
    net, payload = load_model(run / "model.pt", dungeonrl.get_spec("unbroken"))
    assert tuple(payload["arch"]["hidden"]) == (8,) and net.arch["hidden"] == (8,)
    assert (run / "metrics.csv").exists() and _events(run / "tb")
    assert calls == [False, True]  # --checkpoint-minutes: refreshed after iteration 1
    assert not (run / "checkpoint.pt").exists()  # superseded by model.pt


def test_ctrl_c_keeps_the_sb3_model(in_tmp, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from dungeonrl.agents.algos import sb3

    real, calls = sb3.TrainProgress._on_rollout_end, []

    def interrupt(self):
        real(self)
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(sb3.TrainProgress, "_on_rollout_end", interrupt)
    rc = cli_main(
        [
            "train",
            "unbroken",
            "--algo",
            "sb3",
            "--steps",
            "100000",
            "--num-envs",
            "8",
            "--num-steps",
            "16",
            "--batch-size",
            "32",
            "--epochs",
            "1",
            "--hidden",
            "8",
            "--progress",
            "none",
            "--out",
            "run",
        ]
    )
    assert rc == 130, capsys.readouterr().err
    m = json.loads((in_tmp / "run" / "metrics.json").read_text())
    assert m["interrupted"] is True and 0 < m["steps"] < 100_000
    assert (in_tmp / "run" / "model.zip").exists()


def test_run_folders_are_never_silently_overwritten(in_tmp, capsys):
    old = in_tmp / "runs" / "unbroken-ppo-s0"
    old.mkdir(parents=True)
    (old / "model.pt").write_text("an earlier run")
    # the default folder is taken: the run goes to the first free numbered one
    assert cli_main(["train", "unbroken", "--steps", "256", "--eval-games", "0", *TINY]) == 0
    assert "holds an earlier run" in capsys.readouterr().err
    assert (old / "model.pt").read_text() == "an earlier run"
    assert (in_tmp / "runs" / "unbroken-ppo-s0-2" / "model.pt").exists()
    # an explicit --out that holds a run is refused ...
    assert (
        cli_main(
            ["train", "unbroken", "--steps", "256", "--eval-games", "0", "--out", str(old), *TINY]
        )
        == 2
    )
    assert "--overwrite" in capsys.readouterr().err
    assert (old / "model.pt").read_text() == "an earlier run"
    # ... unless --overwrite, which replaces the run's files (and only those)
    (old / "notes.txt").write_text("mine")
    assert (
        cli_main(
            [
                "train",
                "unbroken",
                "--steps",
                "256",
                "--eval-games",
                "0",
                "--out",
                str(old),
                "--overwrite",
                *TINY,
            ]
        )
        == 0
    )
    assert (old / "model.pt").read_bytes() != b"an earlier run"
    assert (old / "notes.txt").read_text() == "mine"


# --- the compile notice -------------------------------------------------------------------------
def test_compile_notice_on_a_cold_cache_once(tmp_path, monkeypatch):
    from dungeonrl.envs.core.kernel import compile_notice

    pkg = tmp_path / "coldgame"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kernels.py").write_text(
        textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def add_one(x):
            return x + 1
    """)
    )
    (pkg / "core.py").write_text(
        textwrap.dedent("""
        from . import kernels

        class Spec:
            name = "coldgame"

        class Core:
            spec = Spec()
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.delenv("DUNGEONRL_QUIET_COMPILE", raising=False)
    monkeypatch.setattr(compile_notice, "_noticed", set())
    from coldgame.core import Core
    from coldgame.kernels import add_one

    core = Core()
    assert compile_notice.cache_is_cold(core)[0]
    err = io.StringIO()
    assert compile_notice.notice_if_cold(core, err)
    assert "compiling coldgame's numba kernels" in err.getvalue()
    assert "python -m dungeonrl.precompile" in err.getvalue()  # not "about a minute"
    assert not compile_notice.notice_if_cold(core, err)  # once per process
    assert add_one(1) == 2  # compiles, writes the cache
    assert not compile_notice.cache_is_cold(core)[0]
    # the real games are warm once they ran, and every adapter goes through the check
    from dungeonrl.envs.core.common import resolve_core

    seen = []
    monkeypatch.setattr(compile_notice, "notice_if_cold", lambda c, stream=None: seen.append(c))
    core = resolve_core("unbroken", {})
    assert seen == [core]


def test_demo_flags_and_its_run_folder(in_tmp, capsys):
    (in_tmp / "runs" / "demo").mkdir(parents=True)
    (in_tmp / "runs" / "demo" / "model.pt").write_text("an earlier demo")
    assert (
        cli_main(
            [
                "demo",
                "--games",
                "12",
                "--train-seconds",
                "1",
                "--eval-games",
                "10",
                "--difficulty",
                "easy",
                "--character",
                "sage",
                "--from-scratch",  # the cloned start's cloning alone outlasts 1 s
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "seeds 0..11" in out and "(sage, easy) for 1 s" in out
    m = json.loads((in_tmp / "runs" / "demo-2" / "metrics.json").read_text())
    assert m["core_kwargs"]["difficulty"] == "easy" and m["core_kwargs"]["character"] == "sage"
    assert [r["games"] for r in m["final_eval"]] == [10, 10, 10]
    assert m["train_seconds"] < 30
    assert (in_tmp / "runs" / "demo" / "model.pt").read_text() == "an earlier demo"
