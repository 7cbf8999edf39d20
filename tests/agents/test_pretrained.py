"""The shipped reference agents (``agents/pretrained_models``): every recipe
has its agent; each loads under its card's layout (a rules or content
change that moves the layout makes it refuse to load); each card's seeded
check replays to the card's figure (a rules change that breaks an agent
shows here); the cards carry what a model card must; the files stay small;
``pretrained:NAME`` resolves in every command that takes an agent."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.agents import pretrained, zoo
from dungeonrl.agents.modelspec import ModelSpecError, read_model
from dungeonrl.agents.policy import make_agent, model_core_kwargs, model_file
from dungeonrl.agents.pretrained import PretrainedError
from dungeonrl.cli import main as cli_main
from dungeonrl.envs.core.common import resolve_core
from dungeonrl.registry import get_spec

NAMES = pretrained.names()
#: what all shipped agents together may weigh (wheel size)
MAX_TOTAL_BYTES = 25 * 2**20


def test_every_recipe_is_shipped():
    assert sorted(NAMES) == sorted(pretrained.RECIPES)


def _shipped_refs(args) -> list[str]:
    """The shipped agents a recipe's arguments name (``--init pretrained:X``,
    ``pretrained:X[:W]`` in a ``--partners`` / ``--opponents`` pool)."""
    refs = []
    for a in args:
        for item in a.split(","):
            if pretrained.is_pretrained_ref(item):
                refs.append(item[len(pretrained.PREFIX) :].split(":")[0])
    return refs


def test_a_recipe_that_uses_an_agent_comes_after_it():
    """``zoo retrain`` trains in recipe order: a recipe that continues
    (``--init pretrained:NAME``) or plays beside a shipped agent must find
    NAME already retrained (same game)."""
    order = list(pretrained.RECIPES)
    for name, (game, args) in pretrained.RECIPES.items():
        if "--init" in args:
            ref = args[args.index("--init") + 1]
            assert pretrained.is_pretrained_ref(ref), (name, ref)
        for base in _shipped_refs(args):
            assert order.index(base) < order.index(name), (name, base)
            assert pretrained.RECIPES[base][0] == game
    assert _shipped_refs(pretrained.RECIPES["dungeon_crawler-8p"][1]) == ["dungeon_crawler-4p"]


def test_a_pair_names_the_teammate_its_recipe_trains_beside():
    for name, mate in pretrained.PAIRS.items():
        assert mate in _shipped_refs(pretrained.RECIPES[name][1]), name
        assert pretrained.card(name)["pair"] == pretrained.PREFIX + mate


def test_total_size_fits_a_wheel():
    total = sum((pretrained.MODELS_DIR / f"{n}.pt").stat().st_size for n in NAMES)
    assert 0 < total <= MAX_TOTAL_BYTES


@pytest.mark.parametrize("name", NAMES)
def test_card_says_what_a_model_card_must(name):
    c = pretrained.card(name)
    spec = get_spec(c["game"])
    saved = read_model(pretrained.model_path(name))["model_spec"]
    assert c["layout_version"] == saved["layout_version"] == spec.layout_version
    t = c["trained"]
    assert t["command"].startswith(f"dungeonrl train {c['game']} ")
    assert t["minutes"] > 0 and t["steps"] > 0 and t["machine"] and t["date"]
    rows = c["evaluation"]["rows"]
    assert rows and all(0 <= r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] <= 1 for r in rows)
    assert any("heuristic" in r["agent"] for r in rows)
    x = c["exploit"]
    if x["applies"]:  # both best responses, their budgets, never a negative figure
        assert set(x["methods"]) == {"rl", "search"}
        assert x["methods"]["rl"]["best_response"]["games"] == c["evaluation"]["games"]
        assert x["methods"]["rl"]["start"] == "the agent's own network"
        assert x["methods"]["search"]["agent"].startswith(f"search:pretrained:{name}?")
        assert x["players"] == c["core_kwargs"].get("num_players")
        assert x["exploitability"] is None or x["exploitability"] > 0
        assert x["found"] == (x["exploitability"] is not None) and x["verdict"]
        assert "run" not in x and x["command"].startswith("python -m dungeonrl.agents.zoo")
    else:
        assert x["why"]
    assert c["check"]["games"] == pretrained.CHECK_GAMES
    if name in pretrained.VARIANTS:  # evaluated on every value it was trained on
        option, values = pretrained.VARIANTS[name]
        var = c["variants"]
        assert var["option"] == option and [r["value"] for r in var["rows"]] == list(values)
        for r in var["rows"]:
            for side in ("agent", "heuristic"):
                lo, hi = r[side]["ci95"]
                assert r[side]["games"] == c["evaluation"]["games"]
                assert 0 <= lo <= r[side]["win_rate"] <= hi <= 1


@pytest.mark.parametrize("name", NAMES)
def test_seeded_check_replays_to_the_card(name):
    r = zoo.card_check(name)
    assert r["ok"], f"{name}: card says {r['expected']} wins, measured {r['measured']}"


def test_unknown_name_lists_the_shipped_ones():
    core = resolve_core("unbroken", {})
    with pytest.raises(PretrainedError, match="no shipped agent 'nope'.*shipped:"):
        make_agent("pretrained:nope", core)


def _first(game: str) -> str:
    return next(n for n in NAMES if pretrained.card(n)["game"] == game)


def test_pretrained_resolves_in_eval_play_record_and_pools(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "pretrained:" + _first("dungeon_crawler")
    assert model_file(name) == pretrained.model_path(name)
    players = model_core_kwargs(name)["num_players"]
    # eval: a league at the agent's own table size
    assert cli_main(["eval", "dungeon_crawler", "--agent", name, "--games", "4"]) == 0
    assert name in capsys.readouterr().out
    # play: watch it (seat policies)
    from dungeonrl.play import seat_policies

    core = resolve_core("dungeon_crawler", {"num_players": players})
    assert len(seat_policies([name] * players, core, seed=0)) == players
    # record
    gif = tmp_path / "g.gif"
    rc = cli_main(
        ["record", "dungeon_crawler", "--agent", name, "--players", str(players),
         "--out", str(gif), "--max-frames", "3"]
    )  # fmt: skip
    assert rc == 0 and gif.stat().st_size > 0
    # an opponent pool with a weight after the name
    from dungeonrl.agents.algos.selfplay import make_view

    view = make_view(core, 4, f"{name}:0.5,heuristic:0.5", seed=0)
    assert name in view.opponent_names()
    # exploit's --against and the solo games' eval
    solo = "pretrained:" + _first("unbroken")
    assert cli_main(["eval", "unbroken", "--agent", solo, "--games", "3"]) == 0


def test_train_continues_a_shipped_agent(tmp_path, monkeypatch, capsys):
    """``train --init pretrained:NAME`` starts from the shipped network (its
    architecture); an unknown name is refused."""
    monkeypatch.chdir(tmp_path)
    name = _first("unbroken")
    rc = cli_main(
        ["train", "unbroken", "--steps", "64", "--num-envs", "16", "--num-steps", "4",
         "--eval-games", "0", "--progress", "none", "--init", f"pretrained:{name}",
         "--out", "run"]
    )  # fmt: skip
    assert rc == 0
    cfg = json.loads((tmp_path / "run" / "metrics.json").read_text())["config"]
    assert cfg["hidden"] == pretrained.card(name)["arch"]["hidden"]
    capsys.readouterr()
    rc = cli_main(["train", "unbroken", "--steps", "64", "--eval-games", "0", "--progress",
                   "none", "--init", "pretrained:nope", "--out", "run2"])  # fmt: skip
    assert rc != 0 and "no shipped agent 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "run2").exists()


def test_zoo_list_and_show(capsys):
    assert zoo.main(["list"]) == 0
    out = capsys.readouterr().out
    for n in NAMES:
        assert n in out
    assert zoo.main(["show", NAMES[0]]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == NAMES[0]


def _card(P, rows, exploit=True, league_top=None):
    c = {
        "name": "x",
        "core_kwargs": {"num_players": P},
        "evaluation": {"games": 10, "rows": [{"agent": a, "win_rate": w} for a, w in rows]},
        "exploit": {"applies": exploit} if exploit else {"applies": False, "why": "co-op"},
    }
    if league_top:
        c["league"] = {"top": league_top, "players": P, "kinds": []}
    return c


def test_targets_of_a_card():
    me = "pretrained:x"
    four = zoo.targets(_card(4, [(f"{me} vs heuristic", 0.55)], league_top="heuristic"))
    assert [(t[1].split()[0], t[4]) for t in four] == [("first", True), ("tops", False)]
    assert four[0][3] == 0.5
    eight = zoo.targets(_card(8, [(f"{me} vs heuristic", 0.2)], league_top=me))
    assert [t[4] for t in eight] == [False, True]
    coop = zoo.targets(
        _card(
            2,
            [(f"{me} + heuristic", 0.6), (f"{me} + {me}", 0.3), ("heuristic + heuristic", 0.5)],
            exploit=False,
        )
    )
    assert [t[4] for t in coop] == [True, False]
    paired = _card(
        2,
        [(f"{me} + {me}", 0.3), (f"{me} + pretrained:y", 0.55), ("heuristic + heuristic", 0.5)],
        exploit=False,
    )
    paired["pair"] = "pretrained:y"
    rows = zoo.targets(paired)
    assert [(t[1], t[4]) for t in rows] == [
        ("team win rate with itself above two heuristics'", False),
        ("team win rate with pretrained:y (a trained pair) above two heuristics'", True),
    ]
    solo = _card(1, [(me, 0.7), ("heuristic", 0.44)], exploit=False)
    solo["variants"] = {
        "option": "character",
        "rows": [
            {"value": "sage", "agent": {"win_rate": 0.4}, "heuristic": {"win_rate": 0.45}},
            {"value": "hunter", "agent": {"win_rate": 0.8}, "heuristic": {"win_rate": 0.45}},
        ],
    }
    assert [t[4] for t in zoo.targets(solo)] == [True, False, True]
    assert zoo.targets(_card(2, [(f"{me} vs heuristic", 0.9)])) == []  # 2 seats: no target


def _stale_copy(tmp_path, name, monkeypatch, **card_edits):
    """``name``'s files copied into a folder the zoo reads from, with the
    card and the model stamped with an old layout version."""
    import shutil

    import torch

    for ext in (".pt", ".json"):
        shutil.copy(pretrained.MODELS_DIR / f"{name}{ext}", tmp_path / f"{name}{ext}")
    monkeypatch.setattr(pretrained, "MODELS_DIR", tmp_path)
    monkeypatch.setattr(zoo, "MODELS_DIR", tmp_path)
    payload = read_model(str(tmp_path / f"{name}.pt"))
    payload["model_spec"]["layout_version"] = "0" * 16
    torch.save(payload, tmp_path / f"{name}.pt")
    c = json.loads((tmp_path / f"{name}.json").read_text())
    c["layout_version"] = "0" * 16
    c.update(card_edits)
    (tmp_path / f"{name}.json").write_text(json.dumps(c))
    return c


def test_restamp_carries_an_agent_whose_check_replays_exactly(tmp_path, monkeypatch):
    name = "unbroken-normal"
    _stale_copy(tmp_path, name, monkeypatch)
    core = resolve_core("unbroken", {})
    with pytest.raises(ModelSpecError, match="layout_version"):
        make_agent(pretrained.PREFIX + name, core)
    rows = zoo.restamp([name], log=lambda *_: None)
    live = str(get_spec("unbroken").layout_version)
    assert rows == [{"name": name, "from": "0" * 16, "to": live, "restamped": True}]
    c = pretrained.card(name)
    assert (
        c["layout_version"]
        == read_model(str(tmp_path / f"{name}.pt"))["model_spec"]["layout_version"]
        == live
    )
    assert c["restamped"][-1]["from"] == "0" * 16
    assert c["restamped"][-1]["check"]["wins"] == c["check"]["wins"]
    make_agent(pretrained.PREFIX + name, core)  # loads again
    assert zoo.restamp([name], log=lambda *_: None)[0]["restamped"] is False


def test_restamp_refuses_an_agent_that_plays_differently(tmp_path, monkeypatch):
    name = "unbroken-normal"
    c = pretrained.card(name)
    check = dict(c["check"], wins=c["check"]["wins"] + 1)  # one win off: no slack
    _stale_copy(tmp_path, name, monkeypatch, check=check)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(ModelSpecError, match="retrain"):
        zoo.restamp([name], log=lambda *_: None)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_reevaluate_measures_again_and_keeps_the_old_figures(tmp_path, monkeypatch):
    """``zoo reevaluate``: the card's evaluation and check measured again with
    today's code on the card's games, the model file untouched, the old
    figures in a ``reevaluated`` entry."""
    import shutil

    name = "dungeon_crawler-2p"
    for ext in (".pt", ".json"):
        shutil.copy(pretrained.MODELS_DIR / f"{name}{ext}", tmp_path / f"{name}{ext}")
    monkeypatch.setattr(pretrained, "MODELS_DIR", tmp_path)
    monkeypatch.setattr(zoo, "MODELS_DIR", tmp_path)
    c = json.loads((tmp_path / f"{name}.json").read_text())
    c["check"] = dict(c["check"], wins=c["check"]["wins"] - 5)  # an old scoring's figure
    (tmp_path / f"{name}.json").write_text(json.dumps(c))
    model = (tmp_path / f"{name}.pt").read_bytes()
    seen = {}

    def fake_final_eval(ev, agent, game, core_kwargs, opts, *a):
        seen["games"] = opts.eval_games
        ev["final_eval"] = [{"agent": "x", "win_rate": 0.5}]

    monkeypatch.setattr(zoo, "final_eval", fake_final_eval)
    zoo.reevaluate([name], reason="a test", log=lambda *_: None)
    new = pretrained.card(name)
    assert seen["games"] == c["evaluation"]["games"]
    assert new["evaluation"]["rows"] == [{"agent": "x", "win_rate": 0.5}]
    assert new["check"]["wins"] == zoo.card_check(name)["measured"]  # measured, not copied
    assert new["check"]["wins"] != c["check"]["wins"]
    entry = new["reevaluated"][-1]
    assert entry["reason"] == "a test" and entry["old_check"] == c["check"]
    assert (tmp_path / f"{name}.pt").read_bytes() == model
