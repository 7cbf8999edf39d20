"""Reference agents that ship with the package, each with a model card.

``pretrained:NAME`` is accepted everywhere an agent is (``dungeonrl eval
GAME --agent pretrained:dungeon_crawler-4p``, ``play``, ``record``,
``--opponents`` / ``--partners`` pools, :func:`~dungeonrl.agents.policy.make_agent`
in Python). ``python -m dungeonrl.agents.zoo list`` shows them.

Each agent is two files in ``agents/pretrained_models/``:

``NAME.pt``
    an ordinary fast-path PPO model file (``agents/algos/ppo.py``'s format, loaded
    with its model-spec check, so a shipped agent refuses a game whose
    layout changed), weights stored as float16 to keep the wheel small
    (loaded back into float32; the card's figures are measured on the
    stored weights);
``NAME.json``
    its model card: the game and options, the layout version it was
    trained on, the command that trained it with its minutes, steps,
    machine and date, its evaluation against the heuristic and random play
    (win rates with 95 % Wilson intervals), its exploitability figure
    (the win rate of a best response trained against it, see
    :mod:`.commands.exploit`; multi-seat rival games only) and a small seeded
    ``check`` that ``tests/agents/test_pretrained.py`` replays.

``python -m dungeonrl.agents.zoo retrain`` retrains every agent with its
recipe (:data:`RECIPES`, the ``dungeonrl train`` arguments each one was
trained with, in that order: a recipe that continues another shipped agent
(``--init pretrained:NAME``) comes after it) and ships it (evaluation,
exploit run, card); ``ship RUN
NAME`` ships one run folder; ``check`` replays every card's check (see
:mod:`.zoo`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeGuard

from ..envs.core.errors import DungeonRLError

__all__ = [
    "PREFIX",
    "MODELS_DIR",
    "RECIPES",
    "PAIRS",
    "PretrainedError",
    "is_pretrained_ref",
    "names",
    "card",
    "model_path",
]

PREFIX = "pretrained:"
MODELS_DIR = Path(__file__).resolve().with_name("pretrained_models")

#: size of the seeded check a card keeps (replayed by the tests)
CHECK_GAMES = 200
#: the replayed check may differ by this many games from the card (float
#: rounding of another CPU's matrix kernels can flip a rare near-tie)
CHECK_SLACK = 3

#: the recipes, pairs and variants of the shipped agents: data, next to their cards
RECIPES_FILE = MODELS_DIR / "recipes.json"


def _recipes() -> tuple[dict, dict, dict]:
    with open(RECIPES_FILE, encoding="utf-8") as f:
        data = json.load(f)
    recipes = {k: (r["game"], list(r["argv"])) for k, r in data["recipes"].items()}
    variants = {k: (v["option"], tuple(v["values"])) for k, v in data["variants"].items()}
    return recipes, dict(data["pairs"]), variants


#: name -> (game, ``dungeonrl train GAME`` arguments); the seed is 0 for all
#: (``agents/pretrained_models/recipes.json``)
RECIPES: dict[str, tuple[str, list[str]]]
#: co-op agents trained beside another shipped agent (frozen) as their
#: teammate: name -> that teammate. The two are a trained pair: the card
#: evaluates them together and holds the pair to the co-op target.
PAIRS: dict[str, str]
#: agents trained on a drawn option value, evaluated on each value too:
#: name -> (option, values)
VARIANTS: dict[str, tuple[str, tuple[str, ...]]]
RECIPES, PAIRS, VARIANTS = _recipes()

#: exploit budget (minutes) recorded in the cards of the rival multi-seat games
EXPLOIT_MINUTES = 3.0
#: the search best response's simulations per decision and rollouts per leaf in those cards
EXPLOIT_SIMS = 8
EXPLOIT_ROLLOUTS = 2


class PretrainedError(DungeonRLError, ValueError):
    """An unknown shipped agent, or a card that does not match its file."""


def is_pretrained_ref(name) -> TypeGuard[str]:
    """Whether ``name`` is a ``pretrained:NAME`` reference."""
    return isinstance(name, str) and name.startswith(PREFIX)


def names() -> list[str]:
    """The shipped agents (every card with its model file)."""
    if not MODELS_DIR.is_dir():
        return []
    return sorted(p.stem for p in MODELS_DIR.glob("*.json") if p.with_suffix(".pt").is_file())


def _bare(name: str) -> str:
    bare = name[len(PREFIX) :] if is_pretrained_ref(name) else name
    if bare not in names():
        have = ", ".join(names()) or "none"
        raise PretrainedError(f"no shipped agent {bare!r} (shipped: {have})")
    return bare


def model_path(name: str) -> str:
    """The model file of ``pretrained:NAME`` (or ``NAME``)."""
    return str(MODELS_DIR / f"{_bare(name)}.pt")


def card(name: str) -> dict:
    """The model card of ``pretrained:NAME`` (or ``NAME``)."""
    with open(MODELS_DIR / f"{_bare(name)}.json", encoding="utf-8") as f:
        return json.load(f)
