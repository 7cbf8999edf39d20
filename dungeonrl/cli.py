"""The ``dungeonrl`` command line: one argparse tree, in the shape users know
from rl-zoo.

    dungeonrl list
    dungeonrl play  GAME [--agent heuristic|random|MODEL] [--episodes N] [--max-steps N] ...
    dungeonrl train GAME [--algo ppo|sb3] [--steps N | --minutes M] [--out DIR] ...
    dungeonrl eval  GAME [--agent A --agent B ...] [--games N] [--json PATH] ...
    dungeonrl bench [GAME] [--quick] ...      (without a game: the suite over every game)
    dungeonrl demo  [unbroken] [--train-seconds S] ...

``GAME`` is a game's short name or its env id (``--env ID`` works too); it
is required (a usage error lists the games) except for ``bench`` (the suite
over every game) and ``demo`` (Unbroken). Every option of every command is in
``dungeonrl COMMAND GAME --help`` with its default. An option the command
does not have, or one that does not apply to the game or to the chosen
``--algo``, is refused with a message naming it (exit code 2); so is a bad
value, before anything is created or written.

The tree. ``dungeonrl`` -> command -> game -> options. The options of a
(command, game) leaf are declared next to the code that uses them, as
dataclasses (fields = options, field metadata = help text, choices,
aliases, and the rules of :func:`option`: ``algos`` for options that only
one training algorithm reads, ``requires`` for options that only mean
something with another option) and turned into argparse options by
:func:`add_options`. For command ``C`` and game module ``M`` (see
:mod:`dungeonrl.registry`) the implementation is

1. ``C(args)`` of a companion module, where a game ships one: the one its
   declaration names (``cli`` in ``envs/<name>/game.toml``); for a game
   registered by hand, ``dungeonrl.games.<name>.C`` or ``M.cli.C(args)``;
2. otherwise the suite's command of :data:`DEFAULTS`, written once for
   every game (the games of the suite ship no companion: ``play`` is
   :func:`dungeonrl.play.play`, built from the game's spec and hooks;
   ``bench`` the throughput suite on that game).

and its options come from the function ``C_options(spec)`` (``main_options``
for ``dungeonrl.agents.commands.train:main``...) next to it: a list of option groups
(dataclass types, or ``argparse.ArgumentParser`` objects whose options are
copied), or ``None`` when the command is not available for that game. An
implementation without a ``*_options`` function is a plug-in of the old
kind: it gets the arguments this parser does not know in ``args.extra`` and
parses them itself.

An implementation receives the parsed ``argparse.Namespace`` (``command``,
``env`` = the game's short name, ``env_id``, ``seed``, every option, ``argv``
= the option tokens as typed, ``extra``, and ``given``: the destinations of
the options the user typed) and returns an exit code or ``None`` (0).

Exit codes: 0 success, 1 command not available for that game, 2 usage error
(unknown game, unknown or inapplicable option, bad value), 130 interrupted
by Ctrl-C after saving what there was to save.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import sys
import time
from collections.abc import Callable, Sequence

# Option declarations (agents.options) and play helpers live in modules below the CLI (so the
# commands this CLI loads need not import it); re-exported here under their old names.
from .agents.options import (
    NO_SEED,
    SEED_MAX,
    add_options,
    copy_options,
    load_target,
    option,
    positive_int,
    seed_int,
)
from .agents.options import _type_of as _type_of
from .agents.options import int_range as int_range
from .agents.options import nonneg_int as nonneg_int
from .agents.options import positive_float as positive_float
from .agents.options import writable_file as writable_file
from .agents.words import count
from .play import PlayOptions as PlayOptions
from .play import ask_action
from .play import is_model as is_model
from .play import narrator as narrator
from .play import play_agent_name as play_agent_name
from .play import say as say

EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

#: command -> one-line help
COMMANDS: dict[str, str] = {
    "list": "list the registered games",
    "play": "play a game in the terminal, or watch an agent play it",
    "train": "train an agent (fast masked PPO by default; --algo sb3 for sb3-contrib MaskablePPO)",
    "eval": "evaluate agents on seeded games "
    "(win rates with 95% intervals; a league for PvP games)",
    "bench": "throughput: without a game, the suite over every game and its peers; "
    "with a game, that game's benchmark",
    "demo": "short guided tour: seeded games, throughput, a short training run",
    "dataset": "record a local Minari dataset (offline RL) of seeded games played by an agent",
    "record": "record a seeded game played by an agent as a GIF or MP4 (the rgb_array picture)",
    "exploit": "train a best response against a frozen agent and report how often it wins "
    "(multi-seat games)",
    "serve": "the web app: play any game against agents, watch them, scrub replays "
    "(http://127.0.0.1:8000)",
}

#: Suite-wide implementation of each command when the game has none:
#: ``"module:function"`` (looked up lazily).
DEFAULTS: dict[str, str] = {
    "play": "dungeonrl.play:play",
    "bench": "dungeonrl.cli:game_bench",
    "demo": "dungeonrl.demo:main",
    "train": "dungeonrl.agents.commands.train:main",
    "eval": "dungeonrl.cli:eval_command",
    "dataset": "dungeonrl.agents.commands.dataset:cli_dataset",
    "record": "dungeonrl.agents.commands.record:cli_record",
    "exploit": "dungeonrl.agents.commands.exploit:cli_exploit",
}

SUITE = "dungeonrl.benchmarks.suite"

#: commands that never take a game
GAMELESS = ("list", "serve")

#: commands that may be typed without a game, and the game they then use
#: (None: the suite's first game, :func:`dungeonrl.envs.catalog.default_game`,
#: the one the demo tours; ``bench`` runs the suite over every game; every
#: other command needs one)
GAME_OPTIONAL: dict[str, str | None] = {"demo": None}


_load = load_target


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Shows every default: ``(default: X)`` after the help of an option that
    takes a value, unless the help already says its default."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default is argparse.SUPPRESS or action.nargs == 0 or not action.option_strings:
            return text
        if "default" in text.lower():
            return text
        rules = getattr(action, "rules", None) or {}
        if action.default is None:
            shown = rules.get("default_text") or "none"
        elif isinstance(action.default, (list, tuple)):
            shown = ",".join(str(x) for x in action.default) or "none"
        else:
            shown = "%(default)s"
        return f"{text} (default: {shown})" if text else f"(default: {shown})"


class Parser(argparse.ArgumentParser):
    """An argparse parser that knows what the user typed: after parsing it
    records ``given`` (the destinations of the options on the command line)
    and enforces the ``algos`` / ``requires`` rules of :func:`option`.
    ``strict`` leaves refuse unknown options with a message that says where
    the option does apply."""

    def __init__(
        self, *a, strict: bool = True, command: str | None = None, game: str | None = None, **kw
    ):
        kw.setdefault("formatter_class", HelpFormatter)
        kw.setdefault("allow_abbrev", False)  # an option is typed in full, so `given` is exact
        super().__init__(*a, **kw)
        self.strict, self.command, self.game = strict, command, game

    def error(self, message):
        """``PROG: error: MESSAGE`` and where to find the options; exit code 2."""
        hint = f"`{self.prog} --help` lists the options"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n({hint})\n")

    def given(self, args: Sequence[str]) -> set:
        flags = {}
        for act in self._actions:
            for s in act.option_strings:
                flags[s] = act.dest
        out = set()
        for tok in args:
            if tok == "--":
                break
            if tok.startswith("-"):
                dest = flags.get(tok.split("=", 1)[0])
                if dest is not None:
                    out.add(dest)
        return out

    def parse_known_args(self, args=None, namespace=None):
        args = list(sys.argv[1:] if args is None else args)
        ns, extra = super().parse_known_args(args, namespace)
        if self.command is None:  # an inner node of the tree: the leaves check
            return ns, extra
        ns.given = self.given(args)
        if extra and self.strict:
            self.error(self._unknown_message(extra))
        for act in self._actions:
            rules = getattr(act, "rules", None)
            if not rules or act.dest not in ns.given:
                continue
            flag = act.option_strings[0]
            algos = rules.get("algos")
            if algos and getattr(ns, "algo", None) not in algos:
                self.error(
                    f"{flag} applies to --algo {' / '.join(algos)} only "
                    f"(this run: --algo {getattr(ns, 'algo', None)})"
                )
            need = rules.get("requires")
            if need and not getattr(ns, need, None):
                self.error(f"{flag} only has an effect with --{need.replace('_', '-')}")
        return ns, extra

    def _unknown_message(self, extra) -> str:
        flags = [t.split("=", 1)[0] for t in extra if t.startswith("-")]
        where = []
        if self.command and self.game:
            for flag in flags:
                others = _games_with_option(self.command, flag, self.game)
                if others:
                    where.append(
                        f"{flag} does not apply to {self.game} "
                        f"(it is an option of {', '.join(others)})"
                    )
        if where:
            return "; ".join(where)
        return f"unrecognized arguments: {' '.join(extra)}"


def _games_with_option(command: str, flag: str, but: str) -> list:
    from .registry import list_games

    out = []
    for g in list_games():
        if g == but:
            continue
        try:
            leaf = _leaf_parser(command, g)
        except Exception:  # pragma: no cover - another game's options failed to build
            continue
        if leaf is not None and any(flag in a.option_strings for a in leaf._actions):
            out.append(g)
    return out


# --- the tree ---------------------------------------------------------------------------
@dataclasses.dataclass
class CommonOptions:
    """common options"""

    seed: int = option(
        0,
        f"random seed, an integer in [0, {SEED_MAX}] (game i of a run uses seed + i)",
        type=seed_int,
    )


def find_command(command: str, game: str | None) -> tuple[Callable | None, list[str]]:
    """The implementation of ``command`` for ``game``, and the places looked."""
    from .registry import game_module

    tried = []
    module = game_module(game) if game is not None else None
    if game is not None and module is not None:
        from .envs import catalog
        from .registry import get_spec

        name = get_spec(game).name
        if name in catalog.ENTRIES and module == catalog.package(name):
            companion = catalog.ENTRIES[name].cli
            targets: tuple[str, ...] = (f"{companion}:{command}",) if companion else ()
        else:
            targets = (f"dungeonrl.games.{name}:{command}", f"{module}.cli:{command}")
        for target in targets:
            tried.append(target)
            fn = _load(target)
            if fn is not None:
                return fn, tried
    tried.append(DEFAULTS[command])
    return _load(DEFAULTS[command]), tried


def _options_of(fn: Callable):
    """The ``<name>_options`` function next to an implementation, or None."""
    mod = sys.modules.get(getattr(fn, "__module__", ""), None)
    return getattr(mod, f"{fn.__name__}_options", None) if mod is not None else None


_TREES: dict = {}


def _leaf_parser(command: str, game: str):
    """The parser of ``dungeonrl COMMAND GAME`` (a node of :func:`build_parser`'s
    tree; None when the command is not available for the game)."""
    from .registry import get_spec

    name = get_spec(game).name
    node = _command_node(command, name)
    games = node._subparsers._group_actions[0] if node._subparsers else None
    leaf = games.choices.get(name) if games is not None else None
    return leaf if getattr(leaf, "command", None) == command else None


def _command_node(command: str, game: str | None = None):
    from .registry import list_games

    key = (command, game, tuple(sorted(DEFAULTS.items())), tuple(list_games()))
    if key not in _TREES:
        _TREES[key] = build_parser(command, game)
    return _TREES[key]._subparsers._group_actions[0].choices[command]


def _leaf_kwargs(command, spec):
    """``(implementation, option groups, parser kwargs)`` of a leaf; groups is
    None when the command is not available for the game."""
    fn, _ = find_command(command, spec.name)
    if fn is None:
        return None, None, {}
    builder = _options_of(fn)
    groups = builder(spec) if builder is not None else []
    doc = inspect.cleandoc(fn.__doc__ or "").split("\n\n")[0]
    kw = dict(
        description=f"{COMMANDS[command]} ({spec.name}, {spec.env_id}).",
        strict=builder is not None,
        command=command,
        game=spec.name,
        epilog=doc
        if builder is not None
        else "(a plug-in without declared options: it parses the other arguments itself)",
    )
    return fn, groups, kw


def _fill_leaf(leaf, groups) -> None:
    if NO_SEED not in groups:
        add_options(leaf, CommonOptions)
    for g in groups:
        if g is NO_SEED:
            continue
        if isinstance(g, argparse.ArgumentParser):
            copy_options(leaf, g, skip=("seed",))
        else:
            add_options(leaf, g)


def build_parser(command: str | None = None, game: str | None = None) -> Parser:
    """The whole tree: ``dungeonrl`` -> commands -> games (their env ids as
    aliases) -> options. The options of a command's games are built when
    ``command`` is given (only ``game``'s when that is given too): building
    a leaf imports the code of that command."""
    from .registry import get_spec, list_games

    top = Parser(
        prog="dungeonrl",
        description="dungeonrl: reinforcement-learning environments of dungeon board "
        "and card games.",
        epilog="`dungeonrl COMMAND GAME --help` lists every option of a command "
        "(GAME: a short name or an env id; `dungeonrl list` shows them).",
    )
    top.add_argument("--version", action="store_true", help="print the version and exit")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, text in COMMANDS.items():
        node = sub.add_parser(
            name,
            help=text.replace("%", "%%"),
            description=text + ".",
            epilog=None
            if name in GAMELESS
            else f"`dungeonrl {name} GAME --help` lists the options for GAME.",
        )
        if name == "serve":
            from .web.cli import add_serve_options

            add_serve_options(node)
        if name in GAMELESS:
            continue
        if name == "bench" and command == "bench":
            _add_suite_options(node)
        games = node.add_subparsers(dest="game", metavar="GAME", parser_class=Parser)
        games.required = False
        for g in list_games():
            spec = get_spec(g)
            if command == name and game in (None, g):
                fn, groups, kw = _leaf_kwargs(name, spec)
                if groups is None:
                    continue
                leaf = games.add_parser(g, aliases=[spec.env_id], help=_game_line(spec), **kw)
                _fill_leaf(leaf, groups)
            else:
                games.add_parser(
                    g,
                    aliases=[spec.env_id],
                    help=_game_line(spec),
                    description=f"{text} ({g}). `dungeonrl {name} {g} --help` lists the options.",
                )
    return top


def _game_line(spec) -> str:
    if spec.multi_agent:
        return f"{spec.min_players}-{spec.max_players} players (PettingZoo AEC)"
    return "1 player (Gymnasium)"


def _add_suite_options(node: argparse.ArgumentParser) -> None:
    """``dungeonrl bench`` without a game takes the suite's options."""
    try:
        suite = importlib.import_module(SUITE)
    except ModuleNotFoundError:  # pragma: no cover - benchmarks not installed
        return
    copy_options(node, suite.build_parser(), title="the suite (no GAME)")


# --- main -------------------------------------------------------------------------------
def _split_game(rest: list) -> tuple[str | None, str | None, list]:
    """``(positional game, --env value, other tokens)``."""
    env, out, i = None, [], 0
    while i < len(rest):
        tok = rest[i]
        if tok == "--env":
            if i + 1 >= len(rest):
                raise ValueError("--env needs a game name or env id")
            env = rest[i + 1]
            i += 2
            continue
        if tok.startswith("--env="):
            env = tok.split("=", 1)[1]
            i += 1
            continue
        out.append(tok)
        i += 1
    game = None
    if out and not out[0].startswith("-"):
        game = out.pop(0)
    return game, env, out


def main(argv: Sequence[str] | None = None) -> int:
    raw = list(sys.argv[1:] if argv is None else argv)
    if not raw:
        build_parser().print_help()
        return EXIT_USAGE
    if raw[0] == "--version":
        from .version import __version__

        print(f"dungeonrl {__version__}")
        return EXIT_OK
    if raw[0] not in COMMANDS:
        build_parser().parse_args(raw)  # help (exit 0) or a usage error (exit 2)
        return EXIT_USAGE
    command, rest = raw[0], raw[1:]

    from .envs.core.errors import UnknownGameError
    from .registry import get_spec, list_games

    if command == "serve":
        try:
            args = _command_node("serve").parse_args(rest)
        except SystemExit as e:
            return int(e.code or 0)
        from .web.cli import serve

        return serve(args)
    if command == "list":
        try:
            _command_node("list").parse_args(rest)
        except SystemExit as e:
            return int(e.code or 0)
        for name in list_games():
            spec = get_spec(name)
            players = (
                f"{spec.min_players}"
                if spec.min_players == spec.max_players
                else f"{spec.min_players}-{spec.max_players}"
            )
            print(
                f"{name:16s} {spec.env_id:32s} players={players:4s} "
                f"actions={spec.num_actions} obs={spec.obs_size}"
            )
        if not list_games():
            print("no games registered")
        return EXIT_OK

    try:
        game, env, rest = _split_game(rest)
    except ValueError as e:
        print(f"dungeonrl {command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    if game is not None and env is not None:
        try:
            same = get_spec(game).name == get_spec(env).name
        except UnknownGameError:
            same = False
        if not same:
            print(
                f"dungeonrl {command}: game given twice ({game!r} and --env {env!r})",
                file=sys.stderr,
            )
            return EXIT_USAGE
    game = game if game is not None else env
    if game is None:
        if command == "bench":
            return _bench_suite(rest)
        if "-h" in rest or "--help" in rest:
            _command_node(command).print_help()
            return EXIT_OK
        games = list_games()
        if not games:
            print("dungeonrl: no games are registered yet", file=sys.stderr)
            return EXIT_USAGE
        if command not in GAME_OPTIONAL:
            print(
                f"usage: dungeonrl {command} GAME [options]\n"
                f"dungeonrl {command}: error: choose a game: {', '.join(games)} "
                f"(`dungeonrl list` shows them with their env ids)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        default = GAME_OPTIONAL[command]
        game = default if default is not None and default in games else games[0]
    try:
        spec = get_spec(game)
    except UnknownGameError as e:
        print(f"dungeonrl {command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    fn, tried = find_command(command, spec.name)
    if fn is None:
        print(
            f"dungeonrl {command}: not available for {spec.name} yet "
            f"(looked for {', '.join(tried)})",
            file=sys.stderr,
        )
        return EXIT_UNAVAILABLE
    leaf = _leaf_parser(command, spec.name)
    if leaf is None:
        print(f"dungeonrl {command}: not available for {spec.name}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    try:
        args, extra = leaf.parse_known_args(rest)
    except SystemExit as e:
        return int(e.code or 0)
    args.command, args.env, args.env_id, args.game = command, spec.name, spec.env_id, spec.name
    args.argv, args.extra = list(rest), list(extra)
    try:
        rc = fn(args)
    except KeyboardInterrupt:
        print(f"\ndungeonrl {command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit as e:  # a command that exits (e.g. its own usage error)
        if e.code is None or isinstance(e.code, int):
            return int(e.code or 0)
        print(e.code, file=sys.stderr)
        return EXIT_UNAVAILABLE
    return EXIT_OK if rc is None else int(rc)


def _bench_suite(rest: list) -> int:
    """``dungeonrl bench`` without a game: the throughput suite over every
    registered game and its peers (its options: ``dungeonrl bench --help``)."""
    try:
        node = _command_node("bench")
        node.parse_args(rest)  # validation and --help; the suite parses again
    except SystemExit as e:
        return int(e.code or 0)
    fn = _load(f"{SUITE}:main")
    if fn is None:
        print("dungeonrl bench: the benchmark suite is not installed", file=sys.stderr)
        return EXIT_UNAVAILABLE
    rc = fn(list(rest))
    return EXIT_OK if rc is None else int(rc)


# --- eval: the options of agents/commands/evaluate.py in the tree ---------------------------------
def eval_command(args) -> int:
    """Win rates with 95% Wilson intervals on seeded games (game i from seed
    seed + i, the same games and one setting for every agent); a round-robin
    league with Elo ratings for multi-seat games. See
    :mod:`dungeonrl.agents.commands.evaluate`."""
    from .agents.commands import evaluate

    parser = evaluate.build_parser(_hooks(args.env))
    argv = []
    for act in parser._actions:
        if isinstance(act, argparse._HelpAction) or not hasattr(args, act.dest):
            continue
        v = getattr(args, act.dest)
        if v is None or v == act.default:
            continue
        flag = act.option_strings[0]
        if act.nargs == 0:
            argv.append(flag)
        elif isinstance(v, list):
            for x in v:
                argv += [flag, str(x)]
        else:
            argv += [flag, str(v)]
    args.extra = argv
    return evaluate.main(args)


def eval_command_options(spec):
    from .agents.commands import evaluate

    parser = evaluate.build_parser(_hooks(spec.name))
    multi = getattr(spec, "multi_agent", False)
    skip = {"games", "plot" if not multi else "slow"}
    copy = argparse.ArgumentParser(add_help=False, description="evaluation")
    for act in parser._actions:
        if not isinstance(act, argparse._HelpAction) and act.dest not in skip:
            copy._add_action(act)
    return [copy, EvalExtra]


@dataclasses.dataclass
class EvalExtra:
    """evaluation (more)"""

    games: int | None = option(
        None, "games per agent (default 1000)", flags=("--games", "--episodes"), type=positive_int
    )
    model: str | None = option(
        None,
        "a saved model to evaluate (same as --agent PATH, listed first; default: none)",
        metavar="PATH",
    )


def _hooks(game):
    from .envs.core.hooks import hooks_for

    return hooks_for(game)


# --- generic implementations (used when a game ships none) ---------------------------
def _legal_random(rng, masks):
    """One uniformly random legal action per row of int8 masks."""
    u = rng.random(masks.shape)
    u[masks == 0] = -1.0
    return u.argmax(axis=1)


_ask = ask_action


@dataclasses.dataclass
class GenericBenchOptions:
    """bench"""

    num_envs: int = option(64, "batch size", type=positive_int)
    steps: int = option(2000, "vector steps to time", type=positive_int)


def generic_bench(args) -> int:
    """Steps per second of :class:`DungeonVectorEnv` under a uniformly random
    legal policy (masked: a benchmark never samples illegal actions)."""
    import numpy as np

    from .envs.core.adapters.vector import DungeonVectorEnv

    env = DungeonVectorEnv(args.env, num_envs=args.num_envs, episode_info=False)
    rng = np.random.default_rng(args.seed)
    env.reset(seed=args.seed)
    masks = env._run.buf.masks
    for _ in range(min(10, args.steps)):  # warm-up: compile / load cached kernels
        env.step(_legal_random(rng, masks))
    episodes = 0
    t0 = time.perf_counter()
    for _ in range(args.steps):
        _, _, term, trunc, _ = env.step(_legal_random(rng, masks))
        episodes += int(np.count_nonzero(term | trunc))
    dt = time.perf_counter() - t0
    total = args.steps * args.num_envs
    print(
        f"{args.env_id}: {total} steps in {dt:.3f} s = {total / max(dt, 1e-9):,.0f} steps/s "
        f"({count(args.num_envs, 'env')}, {count(episodes, 'episode')} finished)"
    )
    return EXIT_OK


def generic_bench_options(spec):
    return [GenericBenchOptions]


def game_bench(args) -> int:
    """``dungeonrl bench GAME``: the throughput suite
    (:mod:`dungeonrl.benchmarks.suite`) restricted to a game of the catalog;
    :func:`generic_bench` for a game registered by hand."""
    from .envs import catalog
    from .registry import get_spec

    if get_spec(args.env).name not in catalog.ENTRIES:
        return generic_bench(args)
    from .benchmarks.suite import main as suite_main

    return suite_main(["--games", args.env, *args.argv])


def game_bench_options(spec):
    """The suite's options, less ``--games`` (the game) and ``--seed`` (the
    suite's runs are seeded by their own settings), for a catalog game."""
    from .envs import catalog

    if spec.name not in catalog.ENTRIES:
        return generic_bench_options(spec)
    from .benchmarks import suite

    src = suite.build_parser()
    keep = argparse.ArgumentParser(add_help=False, description="the suite, on this game")
    for act in src._actions:
        if not isinstance(act, argparse._HelpAction) and act.dest not in ("games", "seed"):
            keep._add_action(act)
    return [NO_SEED, keep]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
