"""``dungeonrl demo`` opens with the shipped trained agent against the
heuristic on the same seeded games and settings, and its training part is
the shipped agent's cloned-start recipe with a short budget."""

from __future__ import annotations

import argparse
import re

from dungeonrl import demo
from dungeonrl.agents.pretrained import PREFIX, RECIPES, card
from dungeonrl.cli import main as cli_main

ROW = re.compile(r"^(\S+)\s+(\d+)\s+(\d+\.\d)%\s+\[\s*(\d+\.\d)%,\s*(\d+\.\d)%\]")


def _first_table(out: str) -> tuple[str, list[tuple[str, int, float]]]:
    """The line above the first ``agent ... win rate`` header, and the rows
    under it (agent, games, win rate in %)."""
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if re.match(r"^\s*agent\s.*win rate", line))
    rows = []
    for line in lines[head + 2 :]:
        m = ROW.match(line)
        if not m:
            break
        rows.append((m.group(1), int(m.group(2)), float(m.group(3))))
    return lines[head - 1], rows


def test_the_first_table_is_the_shipped_agent_against_the_heuristic(in_tmp, capsys, monkeypatch):
    monkeypatch.setattr(demo, "throughput", lambda: None, raising=False)  # not this table
    assert cli_main(["demo", "--no-train", "--games", "30"]) == 0
    out = capsys.readouterr().out
    above, rows = _first_table(out)
    agents = [r[0] for r in rows]
    assert agents[:2] == [PREFIX + demo.SHIPPED, "heuristic"], out
    assert {r[1] for r in rows} == {30}  # the same games for every agent
    assert "seeds 0..29" in above
    # one setting for every agent: the shipped agent's own
    for key, value in card(demo.SHIPPED)["core_kwargs"].items():
        if key != "reward":
            assert f"{key}={value}" in above, above
    assert "not ahead" not in out  # the verdict line agrees with the table it reads
    assert f"The trained agent wins {rows[0][2]:.1f}% of these games" in out
    assert out.index(PREFIX + demo.SHIPPED) < out.index("on each difficulty")


def test_the_first_tables_rows_share_seeds_and_settings(capsys):
    rows = demo.shipped_table(12, seed=5)
    assert [r["agent"] for r in rows] == [PREFIX + demo.SHIPPED, "heuristic", "random"]
    assert {(r["games"], r["seed"]) for r in rows} == {(12, 5)}
    settings = {repr(sorted(r["core_kwargs"].items())) for r in rows}
    assert len(settings) == 1, settings
    assert "seeds 5..16" in capsys.readouterr().out


def _opts(**kw) -> argparse.Namespace:
    base = {
        "train_seconds": 120.0,
        "eval_games": 1000,
        "difficulty": None,
        "character": None,
        "out": "unused",
        "overwrite": False,
        "from_scratch": False,
    }
    base.update(kw)
    return argparse.Namespace(**base)


def test_the_training_is_the_shipped_recipe_from_its_cloned_start(monkeypatch, capsys):
    seen = {}

    def fake_run_training(game, algo, steps, seed, out, opts, **kw):
        seen.update(game=game, algo=algo, opts=opts)
        return {}

    monkeypatch.setattr(demo, "run_training", fake_run_training)
    demo.train_demo(_opts(), seed=0)
    o = seen["opts"]
    game, recipe = RECIPES[demo.SHIPPED]
    flags = dict(zip(recipe[::2], recipe[1::2]))
    assert seen["game"] == game and seen["algo"] == flags["--algo"]
    assert o.kickstart == flags["--kickstart"] == "heuristic"
    assert o.bc_steps == int(flags["--bc-steps"]) and o.dagger_rounds == int(
        flags["--dagger-rounds"]
    )
    assert o.lr == float(flags["--lr"])
    assert (o.character, o.difficulty) == (flags["--character"], flags["--difficulty"])
    assert o.minutes == 2.0 and o.eval_games == 1000 and o.checkpoint_minutes == 0
    assert "from the cloned start" in capsys.readouterr().out
    # --from-scratch: the same run without the cloning; the demo's flags win over the recipe's
    demo.train_demo(_opts(from_scratch=True, character="sage", train_seconds=30), seed=0)
    o = seen["opts"]
    assert o.kickstart is None and o.character == "sage" and o.minutes == 0.5
    assert "from a random network" in capsys.readouterr().out


def test_without_torch_the_demo_says_what_to_install(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    assert cli_main(["demo", "--no-train"]) == 2
    assert "needs torch" in capsys.readouterr().err
