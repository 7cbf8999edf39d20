"""``dungeonrl eval`` compares agents on equal terms (issue 47, item 1):
every agent of one evaluation plays the same seeded games on one setting,
the header and ``--json`` say which, and a model trained for another
setting is named; models trained for different settings are refused
unless an option chooses one. Also: no picture is written unless
``--plot`` asks for one, and names in tables are never cut."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from dungeonrl.cli import main as cli_main

UNBROKEN = "pretrained:unbroken-normal"  # trained with character=random


def _eval(tmp_path, *argv):
    out = tmp_path / "eval.json"
    rc = cli_main(["eval", *argv, "--json", str(out)])
    return rc, (json.loads(out.read_text()) if out.exists() else None)


def test_a_models_stored_setting_applies_to_every_agent(in_tmp, capsys):
    rc, doc = _eval(in_tmp, "unbroken", "--agent", UNBROKEN, "--agent", "heuristic", "--games", "8")
    assert rc == 0
    text = capsys.readouterr().out
    header = text.splitlines()[0]
    # one setting, named once, with where it came from
    assert "every agent on character=random difficulty=normal" in header
    assert f"the options stored with {UNBROKEN}" in header
    model, heuristic = doc["summaries"]
    # the heuristic plays the model's setting (it used to play the default, sneak)
    assert heuristic["core_kwargs"] == model["core_kwargs"]
    assert heuristic["core_kwargs"]["character"] == "random"
    assert heuristic["setting"] == model["setting"] == doc["setting"]
    assert doc["trained_for"] == {}
    assert "note:" not in text


def test_the_same_games_as_a_direct_evaluation_on_that_setting(in_tmp):
    from dungeonrl.agents.commands.evaluate import evaluate
    from dungeonrl.envs.core.common import resolve_core

    _, doc = _eval(in_tmp, "unbroken", "--agent", UNBROKEN, "--agent", "heuristic", "--games", "8")
    core = resolve_core("unbroken", {"character": "random", "difficulty": "normal"})
    direct = evaluate("heuristic", core, 8, seed=0).summary
    assert doc["summaries"][1]["wins"] == direct["wins"]
    assert doc["summaries"][1]["mean_length"] == direct["mean_length"]


def test_options_given_win_and_the_model_trained_for_another_is_named(in_tmp, capsys):
    rc, doc = _eval(
        in_tmp, "unbroken", "--agent", UNBROKEN, "--agent", "heuristic", "--games", "4",
        "--character", "sneak",
    )  # fmt: skip
    assert rc == 0
    text = capsys.readouterr().out
    assert "every agent on character=sneak difficulty=normal" in text
    assert (
        f"note: {UNBROKEN} was trained for character=random difficulty=normal; "
        "here it plays character=sneak difficulty=normal" in text
    )
    assert doc["setting"] == "character=sneak difficulty=normal"
    assert doc["trained_for"] == {UNBROKEN: "character=random difficulty=normal"}
    assert doc["summaries"][0]["trained_for"] == "character=random difficulty=normal"
    assert "trained_for" not in doc["summaries"][1]
    assert {s["core_kwargs"]["character"] for s in doc["summaries"]} == {"sneak"}


def test_models_of_different_settings_are_refused_with_the_reason(in_tmp, capsys):
    a, b = "pretrained:dungeon_crawler-2p", "pretrained:dungeon_crawler-4p"
    rc, doc = _eval(in_tmp, "dungeon_crawler", "--agent", a, "--agent", b, "--games", "2")
    assert rc == 2 and doc is None
    err = capsys.readouterr().err
    assert "trained for different settings" in err
    assert f"{a}: 2 players" in err and f"{b}: 4 players" in err
    assert "--players" in err
    # an option chooses the one setting: both play it, the other model is named
    rc, doc = _eval(
        in_tmp, "dungeon_crawler", "--agent", a, "--agent", b, "--games", "2", "--players", "2"
    )
    assert rc == 0
    assert doc["setting"] == "2 players" and doc["trained_for"] == {b: "4 players"}
    assert f"note: {b} was trained for 4 players" in capsys.readouterr().out


def test_a_league_writes_no_picture_unless_asked(in_tmp):
    rc = cli_main(["eval", "dungeon_crawler", "--agent", "heuristic", "--games", "2"])
    assert rc == 0
    assert list(in_tmp.iterdir()) == []  # nothing in the working folder (was runs/*.png)
    pytest.importorskip("matplotlib")
    rc = cli_main(
        ["eval", "dungeon_crawler", "--agent", "heuristic", "--games", "2", "--plot", "l.png"]
    )
    assert rc == 0
    assert [p.name for p in in_tmp.iterdir()] == ["l.png"]


def test_long_agent_names_are_not_cut(in_tmp, capsys):
    from dungeonrl.agents.commands.evaluate import format_table
    from dungeonrl.agents.league import League

    name = "pretrained:dcc_unstoppable-coop-lead + pretrained:dcc_unstoppable-coop-lead"
    row = {"agent": name, "games": 1, "win_rate": 1.0, "ci95": [0.2, 1.0], "mean_length": 3.0}
    lines = format_table([row, dict(row, agent="x")]).splitlines()
    assert lines[2].startswith(name + " ")
    assert len({len(line) for line in lines}) == 1  # columns still line up
    league = League({name: None, "heuristic": None}, play=None)
    assert name in league.format_table()
