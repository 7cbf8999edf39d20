"""``dungeonrl play GAME``, one command for every game (:func:`play`), and
its helpers: the common play options, the game's own options (from its
hooks), the agent choice, reading an action from the terminal, printing a
game's narration and saving its pictures. A game registered by hand may
still ship its own ``play`` (:mod:`dungeonrl.cli`); the helpers stay
importable from :mod:`dungeonrl.cli` too.
"""

from __future__ import annotations

import dataclasses

from .agents.options import (
    core_options_class,
    load_target,
    nonneg_float,
    option,
    positive_int,
)
from .agents.words import count

__all__ = [
    "narrator",
    "narration_extras",
    "say",
    "PlayOptions",
    "play_agent_name",
    "is_model",
    "ask_action",
    "seat_policies",
    "rival_kinds",
    "seat0_agent",
    "play_aec",
    "print_legal",
    "play",
    "play_options",
    "Pictures",
    "picture_folder_problem",
]


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
    return (load_target(f"{module}.narrate:legend"), load_target(f"{module}.narrate:hand_text"))


def say(lines) -> None:
    for line in lines or ():
        print(f"  * {line}")


@dataclasses.dataclass
class PlayOptions:
    """play"""

    agent: str | None = option(
        None,
        "watch an agent play instead of playing yourself: "
        "heuristic, random, pretrained:NAME, module:attribute or a saved model (.pt / .zip)",
        metavar="AGENT",
        default_text="you play",
    )
    random: bool = option(False, "same as --agent random")
    episodes: int = option(1, "episodes to play (episode i from seed + i)", type=positive_int)
    max_steps: int | None = option(
        None,
        "end each episode after this many decisions (then the next episode starts)",
        type=positive_int,
        default_text="the game's own end",
    )
    delay: float = option(
        0.0, "seconds to wait after each decision of a watched agent", type=nonneg_float
    )
    stochastic: bool = option(
        False, "saved models sample their actions instead of taking the most probable"
    )


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


# --- the multi-seat play loop (PettingZoo AEC), shared by every game's companion --------
def seat_policies(kinds, core, seed: int, stochastic: bool = False) -> list:
    """One ``policy(states) -> action`` per entry of ``kinds``, each playing
    the seat to act in ``states[0]``: ``"heuristic"`` (the game's scripted
    policy, ``core.policy_rows``), ``"random"`` (uniform over the legal
    actions), ``pretrained:NAME``, ``module:attribute`` or the path of a
    saved model (loaded once per path, checked against the game, greedy
    unless ``stochastic``). Raises ``ValueError``
    for anything else."""

    import numpy as np

    out, models = [], {}
    for i, kind in enumerate(kinds):
        if kind == "heuristic":
            out.append(_scripted(core, seed + 7919 * i))
        elif kind == "random":
            rng = np.random.default_rng(seed + 7919 * i)
            out.append(lambda states, rng=rng: int(rng.choice(np.flatnonzero(states[0]["legal"]))))
        else:
            if kind not in models:
                from .agents.policy import load_policy

                try:
                    pol = load_policy(kind, core, deterministic=not stochastic)
                except FileNotFoundError as e:
                    raise ValueError(str(e).strip('"')) from e
                models[kind] = lambda states, pol=pol: int(pol(states, states[0]["legal"]))
            out.append(models[kind])
    return out


def _scripted(core, seed: int):
    import numpy as np

    from .envs.core.kernel.rng import rng_seed

    prng = np.zeros((1, 2), np.uint64)
    rng_seed(prng[0], seed, 99)
    rows = np.zeros(1, np.int64)
    act = np.zeros(1, np.int64)

    def heuristic(states):
        core.policy_rows(states, rows, prng, act)
        return int(act[0])

    return heuristic


def rival_kinds(opponents: str, players: int) -> list:
    """``--opponents`` as one kind per rival seat (one kind is repeated);
    ``ValueError`` when the count does not fit."""
    kinds = [k.strip() for k in opponents.split(",") if k.strip()]
    if len(kinds) == 1:
        kinds = kinds * (players - 1)
    if len(kinds) != players - 1:
        raise ValueError(
            f"give one opponent kind or {players - 1} (one per rival seat), not {len(kinds)}"
        )
    return kinds


def seat0_agent(args, others=()) -> str | None:
    """Who plays seat 0 (None: the person at the terminal) from ``--agent``,
    ``--random`` and ``--watch``; ``ValueError`` for options that contradict
    each other or do not apply (``others``: the other seats' kinds)."""
    me = play_agent_name(args)
    if getattr(args, "watch", False):
        if me not in (None, "heuristic"):
            raise ValueError(f"--watch and --agent {me} contradict each other")
        me = "heuristic"
    if me is None and "delay" in getattr(args, "given", set()):
        raise ValueError(
            "--delay only applies when an agent plays seat 0 "
            "(--agent, --random" + (", --watch)" if hasattr(args, "watch") else ")")
        )
    if args.stochastic and not any(is_model(k) for k in [me, *others]):
        raise ValueError(
            "--stochastic applies to saved models only (--agent"
            + (" or --opponents PATH)" if others else " PATH)")
        )
    return me


def print_legal(core, state, legal, names, width: int = 22) -> None:
    print("Your legal actions:")
    for a in legal:
        print(f"  {a:3d}  {names[a]:<{width}s} {core.action_label(state, int(a))}")


def play_aec(
    env,
    args,
    me,
    others,
    *,
    narrate=None,
    legend=None,
    hand_text=None,
    announce=None,
    on_turn=None,
    on_end=None,
) -> int:
    """The terminal loop of a multi-seat game: seat 0 is the person (``me``
    None) or an agent, every other seat ``others[seat - 1]`` (a policy of
    :func:`seat_policies`). The table is printed before each of seat 0's
    decisions; ``narrate(core, prev, state, 0)`` lines since seat 0's last
    decision, ``legend(core)`` once per game and ``hand_text(core, state,
    0)`` before a person's decision when the game has them; ``announce`` (a
    word such as ``"teammate"``) prints the other seats' moves too;
    ``on_turn(episode, state, seat)`` before every decision and
    ``on_end(episode, state)`` after a finished game (pictures). ``--episodes``,
    ``--max-steps``, ``--delay`` and ``--seed`` as every play command."""
    import time

    import numpy as np

    core = env.core
    names = core.spec.action_names
    for episode in range(args.episodes):
        if args.episodes > 1:
            print(f"\n=== game {episode + 1} of {args.episodes} (seed {args.seed + episode}) ===")
        env.reset(seed=args.seed + episode)
        decisions, final, stopped = 0, {}, False
        seen = env._states[0].copy() if narrate is not None else None
        if legend is not None and me is None:
            say(legend(core))
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                final[agent] = reward
                env.step(None)
                continue
            seat = int(agent.split("_")[1])
            states = env._states
            if on_turn is not None:
                on_turn(episode, states[0], seat)
            if seat == 0:
                if narrate is not None:
                    say(narrate(core, seen, states[0], 0))
                    seen = states[0].copy()
                print()
                print(env.render())
            if seat == 0 and me is None:
                if hand_text is not None:
                    say(hand_text(core, states[0], 0))
                legal = np.flatnonzero(obs["action_mask"])
                print_legal(core, states[0], legal, names)
                a = ask_action(legal, names)
                if a is None:
                    print("bye")
                    return 0
            else:
                a = (me if seat == 0 else others[seat - 1])(states)
                if seat == 0 or announce:
                    who = "player_0" if seat == 0 else announce
                    print(f"> {who} plays {a} ({core.action_label(states[0], int(a))})")
                if seat == 0 and args.delay:
                    time.sleep(args.delay)
            env.step(int(a))
            decisions += 1
            if args.max_steps is not None and decisions >= args.max_steps:
                print(
                    f"stopped after {count(decisions, 'decision')} (--max-steps {args.max_steps})"
                )
                stopped = True
                break
        if stopped:
            continue
        if on_end is not None:
            on_end(episode, env._states[0])
        print()
        print(env.render())
        print("Final rewards: " + ", ".join(f"{a}={r:+.2f}" for a, r in sorted(final.items())))
        print(core.episode_info(env._states[0]))
    return 0


# --- ``dungeonrl play GAME``: one play command for every game ------------------------
@dataclasses.dataclass
class TablePlayOptions(PlayOptions):
    """play"""

    max_steps: int | None = option(
        None,
        "end each game after this many decisions (all seats)",
        flags=("--max-steps", "--max-turns"),
        type=positive_int,
        default_text="the game's own end",
    )


@dataclasses.dataclass
class RivalOptions:
    """the other seats"""

    opponents: str = option(
        "heuristic",
        "the rivals: heuristic, random, pretrained:NAME, module:attribute, a saved model, "
        "or a comma list, one per rival seat",
        metavar="KINDS",
    )
    watch: bool = option(False, "the heuristic plays seat 0 as well (= --agent heuristic)")


@dataclasses.dataclass
class PictureOptions:
    """pictures"""

    pictures: str | None = option(
        None,
        "save the game's picture (PNG) into this folder at the start of every seat's "
        "turn (every decision in a one-seat game) and at the end",
        metavar="DIR",
        default_text="no pictures",
    )


def play_options(spec):
    """The option groups of ``dungeonrl play GAME``: the common ones, the
    game's core options (its hooks, with its ``play_defaults``), the other
    seats (rival games: ``--opponents``, ``--watch``; a co-op game's
    teammates are the heuristic) and ``--pictures`` when the game draws."""
    from .envs.core.hooks import hooks_for

    hooks = hooks_for(spec.name)
    multi = spec.max_players > 1
    groups: list = [TablePlayOptions if multi else PlayOptions]
    if hooks.core_options:
        seats = (spec.min_players, spec.max_players)
        groups.append(
            core_options_class(hooks.core_options, "the game", seats, hooks.play_defaults)
        )
    if multi and spec.utility != "team":
        groups.append(RivalOptions)
    if "rgb_array" in spec.render_modes:
        groups.append(PictureOptions)
    return groups


def picture_folder_problem(path: str) -> str | None:
    """Why ``--pictures PATH`` cannot hold pictures (None when it can): an
    empty path, a file in the way, or no writable folder above it."""
    import os

    if not path:
        return "an empty path"
    folder = os.path.abspath(path)
    if os.path.exists(folder) and not os.path.isdir(folder):
        return "it exists and is not a folder"
    parent = folder
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        return f"{parent!r} is not a writable folder"
    return None


class Pictures:
    """Saves the ``rgb_array`` picture when a seat's turn starts (a decision
    of another seat than the last one saved; every decision of a one-seat
    game) and at the end of a game: ``game<E>_<K>.png``."""

    def __init__(self, folder: str, core, every_decision: bool = False):
        import os

        if os.path.exists(folder) and not os.path.isdir(folder):
            raise NotADirectoryError(20, "it exists and is not a folder", folder)
        os.makedirs(folder, exist_ok=True)
        self.folder, self.core, self.every = folder, core, every_decision
        self.k = 0
        self.last: tuple | None = None

    def turn(self, episode: int, state, seat: int = 0) -> None:
        key = (episode, seat)
        if self.every or key != self.last:
            self.last = key
            self.save(episode, state)

    def save(self, episode: int, state) -> None:
        import os

        from PIL import Image

        path = os.path.join(self.folder, f"game{episode}_{self.k:04d}.png")
        Image.fromarray(self.core.render_rgb(state)).save(path)
        self.k += 1


def play(args) -> int:
    """``dungeonrl play GAME``: a person (or ``--agent``) takes seat 0 in the
    terminal; rivals (``--opponents``) or the heuristic teammates of a co-op
    game take the others. The game is shown before each decision, with its
    narration when it has a narrator; legal actions are listed by number,
    name and label; type a number or a name (``help``, ``q``)."""
    import sys

    from .envs.core.hooks import core_kwargs_from, hooks_for
    from .registry import get_spec

    spec = get_spec(args.env)
    prog = f"dungeonrl play {spec.name}"
    kwargs = core_kwargs_from(args, hooks_for(spec.name))
    folder = getattr(args, "pictures", None)
    if folder is not None:
        why = picture_folder_problem(folder)
        if why is not None:
            print(
                f"{prog}: error: --pictures {folder!r}: cannot save pictures there ({why})",
                file=sys.stderr,
            )
            return 2
    try:
        if spec.max_players == 1:
            return _play_solo(spec, args, kwargs, prog, folder)
        return _play_table(spec, args, kwargs, prog, folder)
    except _Refused as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2


class _Refused(Exception):
    """A play option the game refuses (one line on stderr, exit code 2)."""


def _pictures(folder, core, prog, every_decision=False):
    if folder is None:
        return None
    try:
        return Pictures(folder, core, every_decision)
    except OSError as e:
        raise _Refused(
            f"error: --pictures {folder!r}: cannot make the folder ({e.strerror or e})"
        ) from None


def _play_table(spec, args, kwargs, prog, folder) -> int:
    from .envs.core.adapters.aec import DungeonAECEnv

    team = spec.utility == "team"
    try:
        env = DungeonAECEnv(spec.name, render_mode="ansi", illegal_action="raise", **kwargs)
    except Exception as e:  # an option the core refuses (unknown track, seat count...)
        raise _Refused(str(e)) from None
    n = env.core.num_players
    try:
        if team:  # co-op: every other seat is a heuristic teammate
            me_kind = seat0_agent(args)
            others = seat_policies(["heuristic"] * (n - 1), env.core, args.seed + 2)
        else:
            kinds = rival_kinds(args.opponents, n)
            me_kind = seat0_agent(args, kinds)
            others = seat_policies(kinds, env.core, args.seed, args.stochastic)
        me = (
            seat_policies([me_kind], env.core, args.seed + 1, args.stochastic)[0]
            if me_kind is not None
            else None
        )
    except (ValueError, OSError) as e:
        raise _Refused(str(e)) from None
    shots = _pictures(folder, env.core, prog)
    legend, hand_text = narration_extras(spec.name)
    return play_aec(
        env,
        args,
        me,
        others,
        narrate=narrator(spec.name),
        legend=legend,
        hand_text=hand_text,
        announce="teammate" if team else None,
        on_turn=shots.turn if shots is not None else None,
        on_end=shots.save if shots is not None else None,
    )


def _labeller(core):
    """``label(state, a)``: ``core.action_label`` where the game puts its
    actions in words (a render module with ``describe_action``), else ""."""
    label = getattr(core, "action_label", None)

    def safe(state, a) -> str:
        nonlocal label
        if label is None:
            return ""
        try:
            return label(state, int(a))
        except (ImportError, AttributeError):  # no render module: names only
            label = None
            return ""

    return safe


def _play_solo(spec, args, kwargs, prog, folder) -> int:
    """The one-seat loop (Gymnasium env): the same show, list and prompt."""
    import time

    import numpy as np

    from .envs.core.adapters.gym_env import DungeonEnv

    try:
        agent = seat0_agent(args)
        env = DungeonEnv(spec.name, render_mode="ansi", illegal_action="raise", **kwargs)
    except Exception as e:  # contradicting options, an option the core refuses
        raise _Refused(str(e)) from None
    core = env.core
    names = spec.action_names
    label = _labeller(core)
    try:
        policy = seat_policies([agent], core, args.seed, args.stochastic)[0] if agent else None
    except (ValueError, OSError) as e:
        raise _Refused(str(e)) from None
    shots = _pictures(folder, core, prog, every_decision=True)
    narrate = narrator(spec.name)
    legend, hand_text = narration_extras(spec.name)
    for episode in range(args.episodes):
        _, info = env.reset(seed=args.seed + episode)
        if args.episodes > 1:
            print(f"\n=== game {episode + 1} of {args.episodes} (seed {args.seed + episode}) ===")
        total, steps = 0.0, 0
        if legend is not None and policy is None:
            say(legend(core))
        while True:
            rec = env._buf.states  # the live record (read only here)
            if shots is not None:
                shots.turn(episode, rec[0])
            print()
            print(env.render())
            if hand_text is not None and policy is None:
                say(hand_text(core, rec[0], 0))
            legal = np.flatnonzero(info["action_mask"])
            print("Legal actions:")
            for a in legal:
                print(f"  {a:3d}  {names[a]:<20s} {label(rec[0], a)}".rstrip())
            if policy is not None:
                a = policy(rec)
                print(f"> {a} ({label(rec[0], a) or names[a]})")
                if args.delay:
                    time.sleep(args.delay)
            else:
                a = ask_action(legal, names)
                if a is None:
                    print("bye")
                    return 0
            prev = rec[0].copy() if narrate is not None else None
            _, r, term, trunc, info = env.step(a)
            total += r
            steps += 1
            if narrate is not None:
                say(narrate(core, prev, env._buf.states[0], 0))
            if term or trunc:
                if shots is not None:
                    shots.save(episode, env._buf.states[0])
                print()
                print(env.render())
                extra = {k: v for k, v in info.items() if k not in ("action_mask",)}
                print(
                    f"Game over ({'terminated' if term else 'truncated'}): "
                    f"reward {total:+.2f} {extra}"
                )
                break
            if args.max_steps is not None and steps >= args.max_steps:
                print(
                    f"stopped after {count(steps, 'decision')} (--max-steps {args.max_steps}); "
                    f"reward so far {total:+.2f}"
                )
                break
    return 0
