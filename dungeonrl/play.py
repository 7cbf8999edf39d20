"""Helpers shared by the ``play`` commands of the per-game companions
(:mod:`dungeonrl.games`) and the generic play loop of :mod:`dungeonrl.cli`:
the common play options, the agent choice, reading an action from the
terminal and printing a game's narration. Every name stays importable from
:mod:`dungeonrl.cli` too.
"""

from __future__ import annotations

import dataclasses

from .options import load_target, nonneg_float, option, positive_int

__all__ = ["narrator", "narration_extras", "say", "PlayOptions", "play_agent_name", "is_model", "ask_action"]


def narrator(game: str):
    """``narrate(core, prev_state, state, seat) -> list[str]`` of the game's
    ``narrate`` module (``dungeonrl.envs.<game>.narrate``), or None when the
    game has none yet: ``play`` prints its lines after every step."""
    from .registry import game_module
    module = game_module(game)
    if module is None:
        return None
    fn = load_target(f"{module}.narrate:narrate")
    return fn


def narration_extras(game: str):
    """``(legend(core) -> lines, hand_text(core, state, seat) -> lines)`` of
    the game's ``narrate`` module (either may be None): ``play`` prints the
    legend of the symbols once per game and the player's own hand before
    each of the player's decisions."""
    from .registry import game_module
    module = game_module(game)
    if module is None:
        return None, None
    return (load_target(f"{module}.narrate:legend"),
            load_target(f"{module}.narrate:hand_text"))


def say(lines) -> None:
    for line in lines or ():
        print(f"  * {line}")


@dataclasses.dataclass
class PlayOptions:
    """play"""

    agent: str | None = option(None, "watch an agent play instead of playing yourself: "
                                     "heuristic, random or a saved model (.pt / .zip)",
                               metavar="AGENT", default_text="you play")
    random: bool = option(False, "same as --agent random")
    episodes: int = option(1, "episodes to play (episode i from seed + i)", type=positive_int)
    max_steps: int | None = option(None, "end each episode after this many decisions "
                                         "(then the next episode starts)", type=positive_int,
                                   default_text="the game's own end")
    delay: float = option(0.0, "seconds to wait after each decision of a watched agent",
                          type=nonneg_float)
    stochastic: bool = option(False, "saved models sample their actions instead of taking "
                                     "the most probable")


def play_agent_name(args) -> str | None:
    """The ``--agent`` / ``--random`` choice of a play command (None: a
    person plays); raises ``ValueError`` for contradicting options."""
    agent = getattr(args, "agent", None)
    if getattr(args, "random", False):
        if agent not in (None, "random"):
            raise ValueError(f"--random and --agent {agent} contradict each other")
        agent = "random"
    return agent


def is_model(name) -> bool:
    return name not in (None, "heuristic", "random")


def ask_action(legal, names, prompt="your action (number or name, help, q)> "):
    """Read a legal action from the terminal: a number or an action name;
    ``help`` lists the legal ones, ``q`` (or end of input) returns None. Bad
    input gets a message and another prompt, never a traceback."""
    legal = [int(x) for x in legal]
    while True:
        try:
            text = input(prompt).strip()
        except EOFError:
            return None
        if text in ("q", "quit", "exit"):
            return None
        if text in ("help", "?", ""):
            print("legal: " + ", ".join(f"{i}={names[i]}" for i in legal))
            continue
        try:
            a = int(text)
        except ValueError:
            if text not in names:
                print(f"'{text}' is not an action name or number; type help for the list")
                continue
            a = names.index(text)
        if a not in legal:
            if 0 <= a < len(names):
                print(f"{a} ({names[a]}) is not legal now; choose one of the listed actions")
            else:
                print(f"{a} is out of range: actions are 0..{len(names) - 1}")
            continue
        return a
