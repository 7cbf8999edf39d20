"""Shipping and checking the reference agents (see :mod:`.pretrained`).

python -m dungeonrl.agents.zoo list            # the shipped agents in brief
python -m dungeonrl.agents.zoo show NAME       # one card as JSON
python -m dungeonrl.agents.zoo ship RUN NAME   # evaluate, exploit, write the card
python -m dungeonrl.agents.zoo retrain [NAME]  # train with the recipe, then ship
python -m dungeonrl.agents.zoo check           # replay every card's seeded check
python -m dungeonrl.agents.zoo restamp [NAME]  # carry agents over a behaviour-keeping edit
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
import warnings
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..envs.core.common import resolve_core
from ..envs.core.hooks import hooks_for
from ..machine import cpu_model
from ..registry import get_spec
from .algos.selfplay import play_match, play_team, table_play
from .commands.evaluate import evaluate
from .commands.exploit import exploit, train_parser
from .commands.runs import final_eval
from .commands.train import is_coop
from .commands.train import main as train_main
from .league import PlacementLeague
from .modelspec import ModelSpecError, ModelSpecWarning, read_model
from .policy import make_agent
from .pretrained import (
    CHECK_GAMES,
    CHECK_SLACK,
    EXPLOIT_MINUTES,
    EXPLOIT_ROLLOUTS,
    EXPLOIT_SIMS,
    MODELS_DIR,
    PAIRS,
    PREFIX,
    RECIPES,
    VARIANTS,
    _bare,
    card,
    names,
)

__all__ = [
    "card_check",
    "restamp",
    "reevaluate",
    "ship",
    "retrain",
    "main",
    "machine_line",
    "markdown",
    "table_league",
    "variant_rows",
    "targets",
]


def machine_line() -> str:
    """``2 cores (CPU model)``, as the baselines record it (the CPU model from
    :mod:`dungeonrl.machine`, the one copy of that lookup)."""
    return f"{os.cpu_count()} cores ({cpu_model()})"


# --- measuring an agent --------------------------------------------------------------
def _eval_opts(games: int, name: str = ""):
    """The card's evaluation: against the heuristic and random play; in
    co-op beside the heuristic, itself and (one of a trained pair,
    :data:`PAIRS`) the teammate it was trained with."""
    partners = "heuristic,self" + (f",{PREFIX}{PAIRS[name]}" if name in PAIRS else "")
    return SimpleNamespace(
        eval_games=games, eval_opponents="heuristic,random", eval_partners=partners
    )


def _setting(game: str, core_kwargs: dict):
    kw = {k: v for k, v in core_kwargs.items() if k != "reward"}
    core = resolve_core(game, kw)
    spec = get_spec(game)
    multi = bool(spec.multi_agent) or core.num_players > 1
    return core, hooks_for(game), multi, is_coop(spec, core.num_players)


def _check_run(agent, core, hooks, multi: bool, coop: bool, games: int) -> dict:
    """The card's small seeded check: wins of ``agent`` over ``games`` games
    (seeds 0..games-1) against / with the heuristic, or alone."""
    if coop:
        res = play_team(core, agent, make_agent("heuristic", core, seed=2), games, seed=0)
        what = "team games with the heuristic as teammate"
    elif multi:
        opp = make_agent("heuristic", core, seed=2, deterministic=False)
        res = play_match(core, agent, opp, games, seed=0)
        what = "games against the heuristic in every other seat"
    else:
        out = evaluate(agent, core, games, seed=0)
        return {
            "games": games,
            "seed": 0,
            "what": "solo games",
            "wins": int(out.stats["win"].sum()),
        }
    wins = int((np.asarray(res["result"]) == 1).sum())
    return {"games": games, "seed": 0, "what": what, "wins": wins}


def variant_rows(path: str, game: str, core_kwargs: dict, name: str, games: int) -> dict:
    """A solo agent trained on a drawn option value (:data:`VARIANTS`),
    evaluated on each value, beside the heuristic on the same games."""
    option, values = VARIANTS[name]
    rows = []
    for v in values:
        kw = {k: x for k, x in core_kwargs.items() if k != "reward"}
        kw[option] = v
        core = resolve_core(game, kw)
        mine = evaluate(make_agent(path, core), core, games, seed=0).summary
        theirs = evaluate("heuristic", core, games, seed=0).summary
        rows.append(
            {
                "value": v,
                "agent": {k: mine[k] for k in ("win_rate", "ci95", "games")},
                "heuristic": {k: theirs[k] for k in ("win_rate", "ci95", "games")},
            }
        )
    return {"option": option, "rows": rows}


def table_league(core, agent, label: str) -> dict:
    """The openskill league of ``agent``, the heuristic and random play at
    a full table of ``core``: each kind sits in enough seats (copies rated
    one by one) for every lineup of ``P`` distinct seats, all lineups
    played with every rotation; ``kinds`` averages the copies' ratings."""
    P = core.num_players
    copies = -(-P // 3)
    kinds = {
        label: agent,
        "heuristic": make_agent("heuristic", core, seed=1),
        "random": make_agent("random", core, seed=2),
    }
    built = {f"{k}#{j + 1}": a for k, a in kinds.items() for j in range(copies)}
    per_lineup = 20 if P <= 4 else 10
    league = PlacementLeague(built, table_play(core), sides=P)
    league.run(games=per_lineup, seed=0)
    rows = league.table()
    summary: list[dict[str, Any]] = []
    for k in kinds:
        mine = [r for r in rows if r["name"].rsplit("#", 1)[0] == k]
        summary.append(
            {
                "name": k,
                "mu": float(np.mean([r["mu"] for r in mine])),
                "ordinal": float(np.mean([r["ordinal"] for r in mine])),
                "first": float(np.mean([r["first"] for r in mine])),
            }
        )
    summary.sort(key=lambda r: -r["ordinal"])
    return {
        "players": P,
        "games": len(league.results),
        "games_per_lineup": per_lineup,
        "kinds": summary,
        "seats": rows,
        "top": summary[0]["name"],
    }


def card_check(name: str) -> dict:
    """Replay a card's seeded check; ``{"expected", "measured", "ok"}``."""
    c = card(name)
    core, hooks, multi, coop = _setting(c["game"], c["core_kwargs"])
    agent = make_agent(PREFIX + _bare(name), core)
    want = c["check"]
    got = _check_run(agent, core, hooks, multi, coop, int(want["games"]))
    return {
        "expected": int(want["wins"]),
        "measured": got["wins"],
        "ok": abs(got["wins"] - int(want["wins"])) <= CHECK_SLACK,
    }


def restamp(names_: list[str] | None = None, *, log=print) -> list[dict]:
    """Carry shipped agents over a code edit that keeps the rules' behaviour.

    A model's ``layout_version`` hashes the rules' and encoder's source, so
    any edit to them (a refactor, an import) refuses every shipped agent,
    as it must when the rules change. For an edit that changes no behaviour
    (the golden trajectories identical), each agent whose card is behind is
    loaded across the version change and its seeded check replayed; only an
    exact replay (the same wins as its card, no slack) writes the live
    layout version into the model file and the card, with a ``restamped``
    entry (from, to, date, check). Anything else raises
    :class:`~dungeonrl.agents.modelspec.ModelSpecError` naming the agent and
    leaves its files as they were: retrain it instead. Returns one row per
    agent: ``{"name", "from", "to", "restamped"}``."""
    import torch

    rows = []
    for name in names_ or names():
        c = card(name)
        core, hooks, multi, coop = _setting(c["game"], c["core_kwargs"])
        live = str(core.spec.layout_version)
        old = str(c["layout_version"])
        if old == live:
            rows.append({"name": name, "from": old, "to": live, "restamped": False})
            log(f"{name}: current ({live})")
            continue
        path = MODELS_DIR / f"{name}.pt"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ModelSpecWarning)
            agent = make_agent(str(path), core, strict=False)
        want = c["check"]
        got = _check_run(agent, core, hooks, multi, coop, int(want["games"]))
        if got["wins"] != int(want["wins"]):
            raise ModelSpecError(
                f"{name}: the seeded check gives {got['wins']} wins where its card says "
                f"{want['wins']}: the edit changed how it plays; retrain it "
                f"(python -m dungeonrl.agents.zoo retrain {name})"
            )
        payload = read_model(str(path))
        payload["model_spec"]["layout_version"] = live
        torch.save(payload, path)
        c["layout_version"] = live
        c["bytes"] = path.stat().st_size
        c.setdefault("restamped", []).append(
            {"from": old, "to": live, "date": datetime.date.today().isoformat(), "check": got}
        )
        _write_card(name, c)
        rows.append({"name": name, "from": old, "to": live, "restamped": True})
        log(f"{name}: {old} -> {live} (seeded check: {got['wins']} wins, as on the card)")
    return rows


def reevaluate(names_: list[str], *, reason: str, log=print) -> list[dict]:
    """Measure shipped agents' cards again with today's evaluation code, the
    model untouched: the evaluation rows, the seeded check and (tables of
    three or more) the league, on the card's own games and seeds; the old
    figures go into a ``reevaluated`` entry (date, reason, old check). For a
    fix of how games are scored, not of how agents play (the exploit
    figures: ``python -m dungeonrl.agents.zoo exploit NAME``)."""
    out = []
    for name in names_:
        c = card(name)
        core, hooks, multi, coop = _setting(c["game"], c["core_kwargs"])
        agent = make_agent(str(MODELS_DIR / f"{name}.pt"), core)
        agent.name = PREFIX + name
        games = int(c["evaluation"]["games"])
        ev: dict = {}
        final_eval(
            ev, agent, c["game"], c["core_kwargs"], _eval_opts(games, name), hooks, multi, log, coop
        )
        old = {"check": c["check"], "evaluation_rows": c["evaluation"]["rows"]}
        c["evaluation"] = {"games": games, "rows": ev.get("final_eval", [])}
        c["check"] = _check_run(agent, core, hooks, multi, coop, int(c["check"]["games"]))
        if "league" in c:
            c["league"] = table_league(core, agent, PREFIX + name)
        c.setdefault("reevaluated", []).append(
            {
                "date": datetime.date.today().isoformat(),
                "reason": reason,
                "command": f"python -m dungeonrl.agents.zoo reevaluate {name}",
                "old_check": old["check"],
                "old_win_rates": {r["agent"]: r["win_rate"] for r in old["evaluation_rows"]},
            }
        )
        _write_card(name, c)
        log(f"{name}: check {old['check']['wins']} -> {c['check']['wins']} wins")
        out.append(c)
    return out


# --- shipping a run ------------------------------------------------------------------
def _write_card(name: str, c: dict) -> None:
    """Write ``name``'s card (the one format every command of the zoo writes)."""
    with open(MODELS_DIR / f"{name}.json", "w", encoding="utf-8") as f:
        json.dump(c, f, indent=1)
        f.write("\n")


def _write_half(src: str, dst) -> None:
    import torch

    payload = torch.load(src, map_location="cpu", weights_only=True)
    payload["state_dict"] = {k: v.half() for k, v in payload["state_dict"].items()}
    payload["metrics"] = {}
    torch.save(payload, dst)


def ship(
    run: str,
    name: str,
    *,
    eval_games: int = 1000,
    exploit_minutes: float | None = EXPLOIT_MINUTES,
    command: str | None = None,
    log=print,
) -> dict:
    """Ship the model of run folder ``run`` as ``name``: its float16 copy, its
    evaluation, exploit figure and check, written into the card."""
    with open(os.path.join(run, "metrics.json"), encoding="utf-8") as f:
        metrics = json.load(f)
    game = metrics["game"]
    MODELS_DIR.mkdir(exist_ok=True)
    dst = MODELS_DIR / f"{name}.pt"
    _write_half(os.path.join(run, "model.pt"), dst)
    core, hooks, multi, coop = _setting(game, metrics["core_kwargs"])
    agent = make_agent(str(dst), core)
    agent.name = PREFIX + name
    ev: dict = {}
    final_eval(
        ev,
        agent,
        game,
        metrics["core_kwargs"],
        _eval_opts(eval_games, name),
        hooks,
        multi,
        log,
        coop,
    )
    payload = read_model(str(dst))
    spec = payload["model_spec"]
    recipe = RECIPES.get(name)
    if command is None and recipe is not None:
        command = shlex.join(["dungeonrl", "train", recipe[0], *recipe[1], "--seed", "0"])
    out = {
        "name": name,
        "game": game,
        "env_id": metrics["env_id"],
        "setting": metrics.get("setting", ""),
        "core_kwargs": metrics["core_kwargs"],
        "layout_version": spec["layout_version"],
        "spec_version": spec["spec_version"],
        "arch": payload["arch"],
        "weights": "float16",
        "bytes": dst.stat().st_size,
        "trained": {
            "command": command,
            "algo": metrics.get("algo"),
            "minutes": round(metrics["train_seconds"] / 60.0, 2),
            "steps": metrics["steps"],
            "machine": machine_line(),
            "date": datetime.date.today().isoformat(),
        },
        "evaluation": {"games": eval_games, "rows": ev.get("final_eval", [])},
        "check": _check_run(agent, core, hooks, multi, coop, CHECK_GAMES),
    }
    if name in PAIRS:
        out["pair"] = PREFIX + PAIRS[name]
    if multi and not coop and core.num_players >= 3:
        out["league"] = table_league(core, agent, PREFIX + name)
    if name in VARIANTS and not multi:
        out["variants"] = variant_rows(str(dst), game, metrics["core_kwargs"], name, eval_games)
    if multi and not coop and exploit_minutes:
        out["exploit"] = exploit(
            game,
            str(dst),  # the card is not written yet: the file itself
            minutes=exploit_minutes,
            games=eval_games,
            players=core.num_players,
            out=os.path.join(os.path.dirname(os.path.abspath(run)), f"exploit-{name}"),
            log=log,
            card=False,
            force=True,  # retrain replaces its own earlier exploit run
        )
        out["exploit"]["against"] = PREFIX + name
        out["exploit"].pop("run", None)  # a path of this machine: not in the card
    else:
        out["exploit"] = {
            "applies": False,
            "why": "co-op: the seats share one team result"
            if coop
            else "solo game: there is no opponent to exploit",
        }
    _write_card(name, out)
    return out


def retrain(names_: list[str], *, root: str = "runs/pretrained", log=print) -> None:
    """Train every named recipe (all: :data:`RECIPES`) and ship it."""
    for name in names_ or list(RECIPES):
        game, args = RECIPES[name]
        out = os.path.join(root, name)
        argv = [*args, "--seed", "0", "--progress", "none", "--overwrite", "--out", out]
        ns = train_parser(game=game).parse_args(argv)
        ns.env, ns.given = game, {"out", "overwrite"}
        rc = train_main(ns)
        if rc:
            raise SystemExit(f"training {name} failed (exit {rc})")
        ship(out, name, log=log)


def _format(c: dict) -> str:
    lines = [f"{c['name']}: {c['env_id']} ({c['setting']})"]
    t = c["trained"]
    lines.append(
        f"  trained {t['minutes']:.1f} min, {t['steps']:,} steps on {t['machine']}, {t['date']}"
    )
    lines.append(f"  {t['command']}")
    for r in c["evaluation"]["rows"]:
        lines.append(
            f"  {r['agent']}: {r['win_rate']:.1%} ({r['ci95'][0]:.1%}-{r['ci95'][1]:.1%}), "
            f"{r['games']:,} games"
        )
    x = c.get("exploit", {})
    if x.get("applies"):
        lines.append("  " + exploit_line(x))
    return "\n".join(lines)


def restamp_exploit(
    names_: list | None = None,
    *,
    minutes: float = EXPLOIT_MINUTES,
    sims: int = EXPLOIT_SIMS,
    rollouts: int | None = EXPLOIT_ROLLOUTS,
    games: int | None = None,
    search_games: int | None = None,
    root: str = os.path.join("runs", "pretrained"),
    log=print,
) -> list:
    """Measure the exploit figure of shipped rival agents again (both best
    responses, :mod:`.commands.exploit`) and write it into their cards; ``names_``
    ``None``: every card whose exploit applies. Returns the new figures."""
    done = []
    for name in names_ or names():
        c = card(name)
        if not c.get("exploit", {}).get("applies"):
            continue
        P = int(c["core_kwargs"].get("num_players", 2))
        x = exploit(
            c["game"],
            PREFIX + name,
            minutes=minutes,
            games=games or c["evaluation"]["games"],
            players=P,
            out=os.path.join(root, f"exploit-{name}"),
            log=log,
            card=False,
            force=True,
            sims=sims,
            rollouts=rollouts,
            search_games=search_games,
        )
        x.pop("run", None)
        x["command"] = (
            f"python -m dungeonrl.agents.zoo exploit {name} --minutes {minutes:g} "
            f"--sims {sims}"
            + (f" --rollouts {rollouts}" if rollouts else "")
            + (f" --search-games {search_games}" if search_games else "")
        )
        x["date"] = datetime.date.today().isoformat()
        x["machine"] = machine_line()
        c["exploit"] = x
        _write_card(name, c)
        log(f"{name}: {exploit_line(x)}")
        done.append(x)
    return done


def exploit_line(x: dict) -> str:
    """A card's exploit figure in one line: each best response (its
    budget, its win rate and the heuristic's on the same seeds) and the
    verdict (never a negative exploitability)."""
    rows = x.get("methods") or {"rl": x}
    parts = []
    for m, r in rows.items():
        br, h = r["best_response"], r["heuristic"]
        if m != "rl":
            budget = r.get("agent", "")
        else:
            budget = f"{r['minutes']:g} min" if r.get("minutes") else r.get("budget", "")
        parts.append(
            f"{m} ({budget}) {br['win_rate']:.1%} ({br['ci_low']:.1%}-{br['ci_high']:.1%}), "
            f"heuristic {h['win_rate']:.1%}"
        )
    e = x.get("exploitability")
    verdict = (
        f"exploitability {e:+.1%}" if e is not None and e > 0 else "no exploit found at this budget"
    )
    return f"best response: {'; '.join(parts)}; fair share {x['fair_share']:.1%}: {verdict}"


def _pct(r) -> str:
    lo, hi = r["ci95"]
    return f"{r['win_rate']:.1%} ({lo:.1%}-{hi:.1%})"


def markdown(cards: list | None = None) -> str:
    """The README table of the shipped agents, from their cards."""
    cards = cards if cards is not None else [card(n) for n in names()]
    lines = [
        "| agent | setting | trained | win rate | reference | best response (exploit); league |",
        "|---|---|---|---|---|---|",
    ]
    for c in cards:
        rows = c["evaluation"]["rows"]
        own = [r for r in rows if str(r["agent"]).startswith(PREFIX)]
        ref = [r for r in rows if not str(r["agent"]).startswith(PREFIX)]
        mine = "<br>".join(
            f"{r['agent'][len(PREFIX) + len(c['name']) :].strip() or 'alone'}: {_pct(r)}"
            for r in own
        )
        theirs = "<br>".join(f"{r['agent']}: {_pct(r)}" for r in ref)
        for v in c.get("variants", {}).get("rows", []):
            mine += f"<br>{v['value']}: {_pct(v['agent'])}"
            theirs += f"<br>heuristic, {v['value']}: {_pct(v['heuristic'])}"
        x = c.get("exploit", {})
        if x.get("applies"):
            xs = exploit_line(x)
        else:
            xs = "n/a (" + x.get("why", "") + ")"
        lg = c.get("league")
        if lg:
            ranked = ", ".join(f"{k['name']} {k['mu']:.1f}" for k in lg["kinds"])
            xs += f"<br>openskill league at {lg['players']} seats (mu): {ranked}"
        t = c["trained"]
        lines.append(
            f"| `pretrained:{c['name']}` | {c['setting']} | {t['minutes']:.0f} min, "
            f"{t['steps']:,} steps | {mine} | {theirs} | {xs} |"
        )
    games = {c["evaluation"]["games"] for c in cards}
    lines.append("")
    lines.append(
        f"Win rates over {', '.join(f'{g:,}' for g in sorted(games))} seeded games (seats "
        "alternated; multi-seat rows: the agent in one seat, the named agent in every "
        "other; co-op rows: the team's), 95% Wilson intervals, greedy play. Recipes: "
        "`python -m dungeonrl.agents.zoo list`; cards: "
        "`agents/pretrained_models/NAME.json`."
    )
    return "\n".join(lines) + "\n\n" + targets_markdown(cards)


def targets(c: dict) -> list:
    """The baseline targets a card is held to: ``(agent, target, measured,
    goal, met)`` rows. Multi-seat rival games at 4+ seats: at least twice
    the fair share of first places against the heuristic in every other
    seat, and the top of the openskill league; co-op: a team win rate above
    two heuristics' (with the heuristic as teammate, with itself, and with
    the card's ``pair``, the shipped teammate it was trained with);
    solo: above the heuristic's win rate on the same games."""
    rows = {str(r["agent"]): r for r in c["evaluation"]["rows"]}
    me = PREFIX + c["name"]
    P = int(c["core_kwargs"].get("num_players", 1))
    out = []

    def rate(key):
        r = rows.get(key)
        return None if r is None else float(r["win_rate"])

    if c["exploit"].get("applies") and P >= 4:
        got, goal = rate(f"{me} vs heuristic"), 2.0 / P
        if got is not None:
            out.append(
                (me, f"first places against {P - 1} heuristics >= 2x fair share", got, goal,
                 got >= goal)
            )  # fmt: skip
        lg = c.get("league")
        if lg:
            top = lg["top"] == me
            out.append((me, f"tops the openskill league at {P} seats", lg["top"], me, top))
    elif P > 1 and not c["exploit"].get("applies"):
        ref = rate("heuristic + heuristic")
        pair = c.get("pair")
        for partner in ("heuristic", me, *([pair] if pair else [])):
            got = rate(f"{me} + {partner}")
            if got is not None and ref is not None:
                who = {"heuristic": "the heuristic", me: "itself"}.get(
                    partner, f"{partner} (a trained pair)"
                )
                out.append(
                    (me, f"team win rate with {who} above two heuristics'", got, ref, got > ref)
                )
    elif P == 1:
        got, ref = rate(me), rate("heuristic")
        if got is not None and ref is not None:
            out.append((me, "win rate above the heuristic's (same games)", got, ref, got > ref))
        var = c.get("variants") or {}
        for v in var.get("rows", []):
            got, ref = v["agent"]["win_rate"], v["heuristic"]["win_rate"]
            text = f"win rate above the heuristic's, {var['option']} {v['value']}"
            out.append((me, text, got, ref, got > ref))
    return out


def targets_markdown(cards: list | None = None) -> str:
    cards = cards if cards is not None else [card(n) for n in names()]
    lines = ["| agent | target | measured | goal | |", "|---|---|---|---|---|"]
    for c in cards:
        for who, text, got, goal, met in targets(c):
            fmt = (lambda v: f"{v:.1%}") if isinstance(got, float) else str
            lines.append(
                f"| `{who}` | {text} | {fmt(got)} | {fmt(goal)} | {'met' if met else 'MISSED'} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.agents.zoo", description="the shipped reference agents"
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the shipped agents and their cards in brief")
    s = sub.add_parser("show", help="one card as JSON")
    s.add_argument("name")
    s = sub.add_parser("ship", help="ship a run folder's model as NAME (evaluate, exploit, card)")
    s.add_argument("run")
    s.add_argument("name")
    s.add_argument("--eval-games", type=int, default=1000)
    s.add_argument("--exploit-minutes", type=float, default=EXPLOIT_MINUTES)
    s = sub.add_parser("retrain", help="train and ship (default: every recipe)")
    s.add_argument("names", nargs="*", metavar="NAME", help=f"any of {', '.join(RECIPES)}")
    sub.add_parser("check", help="replay every card's seeded check")
    s = sub.add_parser(
        "exploit", help="measure the rival agents' exploit figures again (both best responses)"
    )
    s.add_argument("names", nargs="*", metavar="NAME")
    s.add_argument("--minutes", type=float, default=EXPLOIT_MINUTES)
    s.add_argument("--sims", type=int, default=EXPLOIT_SIMS)
    s.add_argument("--rollouts", type=int, default=EXPLOIT_ROLLOUTS)
    s.add_argument("--games", type=int, default=0, help="rl evaluation games (0: the card's)")
    s.add_argument("--search-games", type=int, default=0, help="0: the exploit default")
    s = sub.add_parser(
        "reevaluate",
        help="measure cards again with today's evaluation code (the models untouched)",
    )
    s.add_argument("names", nargs="+", metavar="NAME")
    s.add_argument("--reason", required=True, help="what changed in the measurement")
    s = sub.add_parser(
        "restamp",
        help="after an edit that keeps the rules' behaviour: re-stamp the agents whose "
        "seeded check replays exactly (default: every agent)",
    )
    s.add_argument("names", nargs="*", metavar="NAME")
    a = p.parse_args(argv)
    if a.cmd == "list":
        for n in names():
            print(_format(card(n)))
        return 0
    if a.cmd == "show":
        print(json.dumps(card(a.name), indent=1))
        return 0
    if a.cmd == "ship":
        ship(a.run, a.name, eval_games=a.eval_games, exploit_minutes=a.exploit_minutes)
        print(_format(card(a.name)))
        return 0
    if a.cmd == "retrain":
        unknown = [n for n in a.names if n not in RECIPES]
        if unknown:
            p.error(f"no recipe {unknown}: any of {', '.join(RECIPES)}")
        retrain(a.names)
        return 0
    if a.cmd == "exploit":
        unknown = [n for n in a.names if n not in names()]
        if unknown:
            p.error(f"no shipped agent {unknown}: any of {', '.join(names())}")
        restamp_exploit(
            a.names or None,
            minutes=a.minutes,
            sims=a.sims,
            rollouts=a.rollouts or None,
            games=a.games or None,
            search_games=a.search_games or None,
        )
        return 0
    if a.cmd == "reevaluate":
        unknown = [n for n in a.names if n not in names()]
        if unknown:
            p.error(f"no shipped agent {unknown}: any of {', '.join(names())}")
        reevaluate(a.names, reason=a.reason)
        return 0
    if a.cmd == "restamp":
        unknown = [n for n in a.names if n not in names()]
        if unknown:
            p.error(f"no shipped agent {unknown}: any of {', '.join(names())}")
        restamp(a.names)
        return 0
    bad = 0
    for n in names():
        r = card_check(n)
        bad += not r["ok"]
        print(
            f"{n}: expected {r['expected']} wins, measured {r['measured']}: "
            f"{'ok' if r['ok'] else 'DIFFERS'}"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
