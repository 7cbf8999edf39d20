"""The strength ladder (benchmarks/ladder.py): every shipped agent has its
table; the verdict is a pure function of the figures that flags a missed
target; a tiny real run (two games a row, two simulations) writes the
result file's shape with sound intervals, and a second run skips the rows
already there; the docs are regenerated between the markers only, with
the rows not run yet said so."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from dungeonrl.agents import pretrained
from dungeonrl.benchmarks import ladder as L


def _row(wins: int, games: int = 200, seed: int = 0) -> dict:
    return {"wins": wins, "games": games, "seed": seed, "figure": wins / games}


# --- the tables ----------------------------------------------------------------------------
def test_every_shipped_agent_has_a_table_with_a_budget():
    tables = {(t.game, t.players) for t in L.TABLES}
    for name in pretrained.names():
        card = pretrained.card(name)
        seats = int(card["core_kwargs"].get("num_players", 1))
        assert (card["game"], seats) in tables, name
    for t in L.TABLES:
        b = t.budget
        assert b.sims >= 1 and b.rollouts >= 1, t.key
        assert t.games == (100 if t.players == 8 else 200)
    # co-op: the lead agent beside the teammate it was trained with
    coop = L.find_table("dcc_unstoppable", 2)
    lead = coop.shipped.removeprefix("pretrained:")
    assert coop.kind == "coop" and coop.partner == f"pretrained:{pretrained.PAIRS[lead]}"
    # Carl solo also has its hardest-setting table, on options the agent accepts
    hard = L.find_table("dcc_unstoppable", 1, hardest=True)
    assert hard.shipped == L.find_table("dcc_unstoppable", 1).shipped
    assert L.hardest_accepted(hard)
    assert L.table_setting(hard).core_kwargs["difficulty"] == "unbeatable"


def test_the_rows_name_their_agents():
    t = L.find_table("dungeon_kart", 4)
    b = L.Budget(5, 3)
    assert L.row_agents(t, "random", b) == ("random", "pretrained:dungeon_kart-4p")
    assert L.row_agents(t, "search-heuristic", b)[0] == "search?sims=5&rollouts=3&rollout=heuristic"
    assert L.row_agents(t, "search-prior", b)[0] == (
        "search:pretrained:dungeon_kart-4p?sims=5&rollouts=3&rollout=heuristic"
    )
    coop = L.find_table("dcc_unstoppable", 2)
    agent, other = L.row_agents(coop, "search-prior", b)
    assert agent.endswith("&opp=pretrained:dcc_unstoppable-coop")  # the real partner
    assert other == "pretrained:dcc_unstoppable-coop"
    assert L.row_agents(L.find_table("unbroken", 1), "shipped")[1] is None
    with pytest.raises(ValueError, match="unknown row"):
        L.row_agents(t, "alphazero")


# --- the verdict ---------------------------------------------------------------------------
def test_solo_needs_ten_points_above_the_shipped_agent():
    rows = {"shipped": _row(136), "search-prior": _row(150)}  # 68.0% -> 75.0%
    v = L.verdict("solo", 1, rows)
    assert v["status"] == "missed" and v["goal"] == pytest.approx(0.78)
    rows["search-prior"] = _row(156)  # exactly 10 points above
    assert L.verdict("solo", 1, rows)["status"] == "met"
    rows["search-prior"] = _row(155)
    assert L.verdict("solo", 1, rows)["status"] == "missed"


def test_solo_above_the_ceiling_moves_the_ten_points_to_the_hardest_setting():
    rows = {"shipped": _row(186), "search-prior": _row(187)}  # 93.0% -> 93.5%
    v = L.verdict("solo", 1, rows)
    assert v["status"] == "met" and v["op"] == ">" and "hardest" in v["target"]
    rows["search-prior"] = _row(186)  # a tie does not beat it
    assert L.verdict("solo", 1, rows)["status"] == "missed"
    # on the hardest setting the 10 points apply whatever the shipped figure
    rows["search-prior"] = _row(190)
    assert L.verdict("solo", 1, rows, hardest=True)["status"] == "missed"
    assert L.verdict("solo", 1, {"shipped": _row(10), "search-prior": _row(30)}, True)[
        "status"
    ] == ("met")


def test_two_four_eight_seats_and_coop():
    assert L.verdict("h2h", 2, {"search-prior": _row(119)})["status"] == "missed"
    assert L.verdict("h2h", 2, {"search-prior": _row(120)})["status"] == "met"
    assert L.verdict("table", 4, {"search-prior": _row(74)})["status"] == "missed"  # 37.0%
    assert L.verdict("table", 4, {"search-prior": _row(75)})["status"] == "met"  # 37.5%
    assert L.verdict("table", 8, {"search-prior": _row(18, 100)})["status"] == "missed"
    v = L.verdict("table", 8, {"search-prior": _row(19, 100)})
    assert v["status"] == "met" and v["goal"] == pytest.approx(1.5 / 8)
    coop = {"shipped": _row(169), "search-prior": _row(169)}  # the trained pair: 84.5%
    assert L.verdict("coop", 2, coop)["status"] == "missed"
    coop["search-prior"] = _row(170)
    assert L.verdict("coop", 2, coop)["status"] == "met"


def test_missing_or_mismatched_rows_give_no_verdict():
    assert L.verdict("solo", 1, {"shipped": _row(100)})["status"] == "not run yet"
    assert L.verdict("coop", 2, {"search-prior": _row(100)})["status"] == "not run yet"
    assert L.verdict("h2h", 2, {"shipped": _row(100)})["measured"] is None
    other_games = {"shipped": _row(100), "search-prior": _row(100, games=100)}
    assert L.verdict("solo", 1, other_games)["status"] == "not comparable"
    with pytest.raises(ValueError, match="unknown table kind"):
        L.verdict("league", 2, {})


# --- a real run, resumed -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("ladder")
    table = L.find_table("unbroken", 1)
    logs: list[str] = []
    doc = L.run_table(table, games=2, sims=2, rollouts=2, out=str(out), log=logs.append)
    return table, out, doc, logs


def test_a_run_writes_every_row_with_sound_intervals(smoke):
    table, out, doc, _ = smoke
    with open(out / "unbroken-1p.json") as f:
        saved = json.load(f)
    assert saved == doc
    assert saved["table"] == "unbroken-1p" and saved["kind"] == "solo"
    assert saved["core_kwargs"] == {"character": "random", "difficulty": "normal"}
    assert list(saved["rows"]) == list(L.ROWS)
    for name, row in saved["rows"].items():
        assert row["games"] == 2 and row["seed"] == 0, name
        assert len(row["by_game"]) == 2 and set(row["by_game"]) <= {"W", "L", "-"}
        assert row["wins"] == row["by_game"].count("W")
        lo, hi = row["ci95"]
        assert 0.0 <= lo <= row["figure"] <= hi <= 1.0, name
        assert row["illegal_actions"] == 0
        assert row["cpu_seconds"] >= 0 and row["command"]
    budget = "sims=2&rollouts=2&rollout=heuristic"
    assert saved["rows"]["search-heuristic"]["budget"] == budget
    prior = table.prior_budget.replace(sims=2, rollouts=2).query  # its own leaf evaluation
    assert saved["rows"]["search-prior"]["agent"] == f"search:{table.shipped}?{prior}"
    assert saved["rows"]["search-prior"]["search"]["simulations"] > 0
    assert saved["rows"]["random"]["budget"] is None
    assert saved["verdict"] == L.verdict("solo", 1, saved["rows"])
    assert saved["verdict"]["status"] in ("met", "missed")


def test_a_second_run_skips_the_rows_already_there(smoke):
    table, out, doc, _ = smoke
    logs: list[str] = []
    again = L.run_table(table, games=2, sims=2, rollouts=2, out=str(out), log=logs.append)
    assert again == doc  # nothing played, nothing rewritten
    assert len(logs) == len(L.ROWS) and all("already in" in line for line in logs)
    # another budget, another row: the stored one is not taken for it
    stored = doc["rows"]["search-prior"]
    agent, other = L.row_agents(table, "search-prior", L.Budget(3, 2))
    want = {**stored, "agent": agent}
    assert L.same_row(stored, stored) and not L.same_row(stored, want)
    assert not L.same_row(stored, {**stored, "games": 200})
    assert not L.same_row(stored, {**stored, "core_kwargs": {"character": "sneak"}})


def test_a_value_budget_names_no_rollouts_and_applies_to_the_prior_row(monkeypatch):
    value = L.Budget(24, rollout="value")
    assert value.query == "sims=24&rollout=value"
    assert "value head" in value.words() and "rollouts" not in value.query
    assert L.Budget(5, 3).replace(sims=7).query == "sims=7&rollouts=3&rollout=heuristic"
    assert L.Budget(5, 3).replace(rollout="value").query == "sims=5&rollout=value"
    for bad in (dict(sims=0, rollouts=2), dict(sims=4), dict(sims=4, rollouts=2, rollout="mcts")):
        with pytest.raises(ValueError):
            L.Budget(**bad)
    t = L.find_table("dungeon_kart", 4)
    monkeypatch.setitem(L.PRIOR_BUDGETS, "dungeon_kart", {4: value})
    assert t.row_budget("search-prior") == value and t.row_budget("search-heuristic") == t.budget
    assert L.row_agents(t, "search-prior")[0] == "search:pretrained:dungeon_kart-4p?" + value.query
    assert L.row_agents(t, "search-heuristic")[0] == f"search?{t.budget.query}"
    text = L.table_markdown(t, {})
    assert "with the prior, 24 simulations a decision, leaves valued by" in text


# --- the docs ------------------------------------------------------------------------------------
def test_a_table_not_run_yet_says_so():
    table = L.find_table("dungeon_crawler", 8)
    text = L.table_markdown(table, {})
    assert text.count("not run yet") == len(L.ROWS) + 1  # every row and the target
    assert "7 x `pretrained:dungeon_crawler-8p`" in text
    assert table.command() in text


def test_the_docs_are_written_between_the_markers_only(smoke, tmp_path):
    _, out, doc, _ = smoke
    (tmp_path / "docs").mkdir()
    page = "# Evaluation\n\nbefore\n\n<!-- ladder:begin -->\nold\n<!-- ladder:end -->\n\nafter\n"
    readme = "# x\n\n<!-- readme-ladder:begin -->\nold\n<!-- readme-ladder:end -->\ntail\n"
    (tmp_path / "docs" / "evaluation.md").write_text(page)
    (tmp_path / "README.md").write_text(readme)
    written = L.write_docs(str(tmp_path), str(out))
    assert len(written) == 2
    text = (tmp_path / "docs" / "evaluation.md").read_text()
    assert text.startswith("# Evaluation\n\nbefore\n\n<!-- ladder:begin -->\n")
    assert text.endswith("<!-- ladder:end -->\n\nafter\n") and "\nold\n" not in text
    unbroken = text.split("### Unbroken, solo", 1)[1].split("### ", 1)[0]
    assert "not run yet" not in unbroken.split("Target")[0]  # its five rows were run
    lo, hi = doc["rows"]["shipped"]["ci95"]
    assert f"({100 * lo:.1f}%-{100 * hi:.1f}%)" in unbroken
    assert "### Dungeon Kart, 8 seats" in text  # a table without results is listed too
    rd = (tmp_path / "README.md").read_text()
    body = rd.split("<!-- readme-ladder:begin -->\n")[1].split("<!-- readme-ladder:end -->")[0]
    lines = [line for line in body.splitlines() if line.startswith("| ")]
    assert len(lines) == 1 + len({t.game for t in L.TABLES})  # the header and a row a game
    assert rd.endswith("<!-- readme-ladder:end -->\ntail\n")
    assert L.write_docs(str(tmp_path), str(out)) == []  # the same results: nothing changes
    (tmp_path / "README.md").write_text("# no markers\n")
    with pytest.raises(ValueError, match="no <!-- readme-ladder:begin -->"):
        L.write_docs(str(tmp_path), str(out))


def test_the_committed_docs_are_what_the_results_give():
    """docs/evaluation.md and README.md carry the section the saved
    results generate (after a row is run: ``--write-docs``)."""
    for rel, begin, end, body in (
        ("docs/evaluation.md", L.DOC_BEGIN, L.DOC_END, L.docs_section()),
        ("README.md", L.README_BEGIN, L.README_END, L.readme_section()),
    ):
        with open(f"{L.ROOT}/{rel}", encoding="utf-8") as f:
            text = f.read()
        assert L.replace_between(text, begin, end, body) == text, (
            f"{rel} is stale: run python -m dungeonrl.benchmarks.ladder --write-docs"
        )


def test_the_ladder_data_loads_and_refuses_what_it_cannot_play(tmp_path):
    """Tables, budgets and notes come from benchmarks/data/ladder.toml; a
    table without a budget for its seats, or a note for no table, is named."""
    titles, budgets, prior, tables, notes = L.load_data()
    assert tables == L.TABLES and budgets == L.BUDGETS and notes == L.NOTES
    assert set(titles) == {t.game for t in tables}
    assert all(t.key in {x.key for x in tables} for t in tables)
    hard = L.find_table("dcc_unstoppable", 1, hardest=True)
    assert dict(hard.options) == {"floor": 3, "difficulty": "unbeatable"}
    good = '[games.g]\ntitle = "G"\nbudgets = { 2 = { sims = 4, rollouts = 2 } }\n'
    table = '[[tables]]\ngame = "g"\nplayers = 4\nshipped = "heuristic"\n'
    bad = tmp_path / "no_budget.toml"
    bad.write_text(good + table)
    with pytest.raises(ValueError, match="g-4p has no budget for 4 seats"):
        L.load_data(str(bad))
    stray = tmp_path / "stray_note.toml"
    stray.write_text(good + table.replace("4", "2") + '[notes]\n"g-8p" = "tried"\n')
    with pytest.raises(ValueError, match="notes for no table"):
        L.load_data(str(stray))
    ok = tmp_path / "ok.toml"
    ok.write_text(good.replace("}", '}, 4 = { sims = 9, rollout = "value" }', 1) + table)
    _, b, _, t, _ = L.load_data(str(ok))
    assert b["g"][4].query == "sims=9&rollout=value" and t[0].key == "g-4p"
