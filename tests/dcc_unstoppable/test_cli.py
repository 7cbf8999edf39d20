"""``dungeonrl play dcc_unstoppable``: solo and co-op with the heuristic as
the teammate (``dungeonrl/games/dcc_unstoppable.py``)."""

from __future__ import annotations

import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl import cli
from dungeonrl.cli import main as cli_main


def test_play_options_listed():
    text = cli._leaf_parser("play", "dcc_unstoppable").format_help()
    for flag in ("--players", "--floor", "--difficulty", "--mode", "--crawler", "--agent"):
        assert flag in text


def test_watch_solo_game_to_the_end(capsys):
    assert cli_main(["play", "dcc_unstoppable", "--agent", "heuristic", "--floor", "2"]) == 0
    out = capsys.readouterr().out
    assert "floor 2 arcade normal" in out and "> player_0 plays" in out
    assert "teammate" not in out and "Final rewards: player_0=" in out
    assert "'floor': 2" in out and "bye" not in out


def test_person_plays_seat_0_with_the_heuristic_teammate(capsys, monkeypatch):
    # the person takes the preset race and class, then quits (end of input)
    answers = iter(["preset"])

    def ask(prompt=""):
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", ask)
    assert cli_main(["play", "dcc_unstoppable", "--players", "2", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "Your legal actions:" in out and "seat 1" in out
    assert "> teammate plays" in out and out.rstrip().endswith("bye")


def test_watch_coop_stops_at_max_steps(capsys):
    assert (
        cli_main(
            [
                "play",
                "dcc_unstoppable",
                "--players",
                "2",
                "--random",
                "--episodes",
                "2",
                "--max-steps",
                "25",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.count("stopped after 25 decisions") == 2
    assert "> teammate plays" in out and "> player_0 plays" in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--players", "3"], "--players"),
        (["--floor", "4"], "--floor"),
        (["--crawler", "Mordecai"], "crawler"),
        (["--delay", "1"], "--delay only applies"),
    ],
)
def test_bad_play_arguments_exit_2(argv, message, capsys):
    assert cli_main(["play", "dcc_unstoppable", *argv]) == 2
    assert message in capsys.readouterr().err
