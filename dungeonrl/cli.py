"""The ``dungeonrl`` command line, in the shape users know from rl-zoo.

    dungeonrl list
    dungeonrl play  --env unbroken --seed 1 [--random]
    dungeonrl bench [--quick]      (the throughput suite: every game, peers, plots)
    dungeonrl bench --env dungeonrl/Unbroken-v0 --num-envs 256 --steps 20000
    dungeonrl demo  [--env ...]
    dungeonrl train --env ... --seed 0 --timesteps 100000
    dungeonrl eval  --env ... --model runs/.../model.zip --episodes 100

``--env`` takes a game's short name or its env id (the registry ids); it
defaults to the first registered game.

Commands are plug-ins, found when they run (so this module imports no
training code): for command ``C`` and game module ``M`` (see
:mod:`dungeonrl.registry`), the implementation is

1. ``M.cli.C(args)`` if the game ships one (e.g. ``dungeonrl.envs.unbroken.cli.play``);
2. otherwise the suite default of :data:`DEFAULTS` (``dungeonrl.agents.demo:main``
   for ``demo``, the generic text player and throughput bench of this module
   for ``play`` and ``bench``...).

An implementation receives the parsed ``argparse.Namespace`` (``command``,
``env`` = the game's short name, ``env_id``, ``seed``, the command's options,
and ``extra``: arguments this parser did not know, for the implementation to
parse) and returns an exit code or ``None`` (0).

Exit codes: 0 success, 1 command not available yet, 2 usage error (unknown
game, bad option).
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from typing import Callable, Sequence

EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE = 0, 1, 2

#: Suite-wide implementation of each command when the game has none:
#: ``"module:function"`` (looked up lazily) or a builtin of this module.
DEFAULTS: dict[str, str] = {
    "play": "dungeonrl.cli:generic_play",
    "bench": "dungeonrl.cli:generic_bench",
    "demo": "dungeonrl.agents.demo:main",
    "train": "dungeonrl.agents.train:main",
    "eval": "dungeonrl.agents.evaluate:main",
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dungeonrl", description=__doc__.split("\n\n")[0])
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        c = sub.add_parser(name, help=help, description=help)
        c.add_argument("game", nargs="?", default=None,
                       help="game short name or env id (same as --env)")
        c.add_argument("--env", default=None,
                       help="game short name or env id (default: first registered game)")
        c.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        return c

    sub.add_parser("list", help="list the registered games")
    c = command("play", "play a game in the terminal")
    c.add_argument("--random", action="store_true", help="let a random legal policy play")
    c.add_argument("--episodes", type=int, default=1, help="episodes to play (default 1)")
    c.add_argument("--max-steps", type=int, default=None, help="stop after this many steps")
    c = command("bench", "throughput: without a game, the suite over every game and its peers "
                         "(options: python -m dungeonrl.benchmarks.suite --help); with a game, "
                         "that game's bench")
    c.add_argument("--num-envs", type=int, default=64, help="batch size (default 64)")
    c.add_argument("--steps", type=int, default=2000, help="vector steps to time (default 2000)")
    command("demo", "short guided demo (train briefly, then watch)")
    c = command("train", "train an agent (fast masked PPO by default; --algo sb3 for MaskablePPO)")
    c.add_argument("--timesteps", type=int, default=None, help="env steps (same as --steps)")
    c.add_argument("--num-envs", type=int, default=None)
    c.add_argument("--out", default=None, help="output folder (default runs/<game>-<algo>-s<seed>)")
    c = command("eval", "evaluate a trained agent")
    c.add_argument("--model", default=None, help="saved model to evaluate")
    c.add_argument("--episodes", type=int, default=None, help="games per agent (same as --games)")
    return p


def _load(target: str) -> Callable | None:
    """``"module:function"`` -> the function, or ``None`` if the module does
    not exist (an import error inside an existing module propagates)."""
    module, _, attr = target.partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and (module == e.name or module.startswith(e.name + ".")):
            return None
        raise
    return getattr(mod, attr, None)


def find_command(command: str, game: str | None) -> tuple[Callable | None, list[str]]:
    """The implementation of ``command`` for ``game``, and the places looked."""
    from .registry import game_module
    tried = []
    module = game_module(game) if game is not None else None
    if module is not None:
        target = f"{module}.cli:{command}"
        tried.append(target)
        fn = _load(target)
        if fn is not None:
            return fn, tried
    tried.append(DEFAULTS[command])
    return _load(DEFAULTS[command]), tried


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.version:
        from . import __version__
        print(f"dungeonrl {__version__}")
        return EXIT_OK
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    if extra and args.command == "list":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")  # exits 2
    args.extra = extra

    # importing this module ran dungeonrl/__init__, which registered the games
    from .envs.core.errors import UnknownGameError
    from .registry import get_spec, list_games

    if args.command == "list":
        for name in list_games():
            spec = get_spec(name)
            print(f"{name:12s} {spec.env_id:32s} actions={spec.num_actions} obs={spec.obs_size}")
        if not list_games():
            print("no games registered")
        return EXIT_OK

    if args.command == "bench" and args.env is None and (
            args.game is None or (extra and args.game not in _known_games())):
        # no game: the throughput suite over every registered game, peers included.
        # It gets the raw arguments: in `bench --json out.json` argparse took the
        # option's value for the game.
        raw = list(sys.argv[1:] if argv is None else argv)
        fn = _load("dungeonrl.benchmarks.suite:main")
        rc = fn(raw[raw.index("bench") + 1:])
        return EXIT_OK if rc is None else int(rc)
    if getattr(args, "game", None) is not None:
        if args.env is not None and args.env != args.game:
            print(f"dungeonrl {args.command}: game given twice ({args.game!r} and --env {args.env!r})",
                  file=sys.stderr)
            return EXIT_USAGE
        args.env = args.game
    if args.env is None:
        games = list_games()
        if not games:
            print("dungeonrl: no games are registered yet", file=sys.stderr)
            return EXIT_USAGE
        args.env = games[0]
    try:
        spec = get_spec(args.env)
    except UnknownGameError as e:
        print(f"dungeonrl {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    args.env, args.env_id = spec.name, spec.env_id
    fn, tried = find_command(args.command, spec.name)
    if fn is None:
        print(f"dungeonrl {args.command}: not available for {spec.name} yet "
              f"(looked for {', '.join(tried)})", file=sys.stderr)
        return EXIT_UNAVAILABLE
    rc = fn(args)
    return EXIT_OK if rc is None else int(rc)


def _known_games() -> set:
    from .registry import get_spec, list_games
    return {x for name in list_games() for x in (name, get_spec(name).env_id)}


# --- generic implementations (used when a game ships none) ---------------------------
def _legal_random(rng, masks):
    """One uniformly random legal action per row of int8 masks."""
    u = rng.random(masks.shape)
    u[masks == 0] = -1.0
    return u.argmax(axis=1)


def generic_play(args) -> int:
    """Text play loop: shows the game, lists the legal actions, reads an
    index or an action name (``q`` quits); ``--random`` plays itself."""
    import numpy as np
    from .envs.core.gym_env import DungeonEnv

    if args.extra:
        print(f"dungeonrl play: unrecognized arguments: {' '.join(args.extra)}", file=sys.stderr)
        return EXIT_USAGE
    env = DungeonEnv(args.env, render_mode="ansi", illegal_action="raise")
    names = env.game_spec.action_names
    rng = np.random.default_rng(args.seed)
    steps = 0
    for episode in range(args.episodes):
        _, info = env.reset(seed=args.seed + episode)
        total, done = 0.0, False
        while not done:
            print(env.render())
            legal = np.flatnonzero(info["action_mask"])
            print("legal: " + ", ".join(f"{i}={names[i]}" for i in legal))
            if args.random:
                action = int(rng.choice(legal))
                print(f"> {action} ({names[action]})")
            else:
                action = _ask(legal, names)
                if action is None:
                    return EXIT_OK
            _, reward, terminated, truncated, info = env.step(action)
            total += reward
            steps += 1
            done = terminated or truncated
            if args.max_steps is not None and steps >= args.max_steps:
                print(f"stopped after {steps} steps")
                return EXIT_OK
        print(env.render())
        extra = {k: v for k, v in info.items() if k not in ("action_mask",)}
        print(f"episode {episode} over: return {total:.3f}, "
              f"{'terminated' if terminated else 'truncated'}, {extra}")
    return EXIT_OK


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


_ask = ask_action


def generic_bench(args) -> int:
    """Steps per second of :class:`DungeonVectorEnv` under a uniformly random
    legal policy (masked: a benchmark never samples illegal actions)."""
    import numpy as np
    from .envs.core.vector import DungeonVectorEnv

    if args.extra:
        print(f"dungeonrl bench: unrecognized arguments: {' '.join(args.extra)}", file=sys.stderr)
        return EXIT_USAGE
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
    print(f"{args.env_id}: {total} steps in {dt:.3f} s = {total / max(dt, 1e-9):,.0f} steps/s "
          f"({args.num_envs} envs, {episodes} episodes finished)")
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
