"""``dungeonrl serve``: the web app on a local address (uvicorn).

    dungeonrl serve                      # http://127.0.0.1:8000
    dungeonrl serve --port 9000 --agent runs/x/model.pt --replay-dir replays/

Bound to 127.0.0.1 unless ``--host`` says otherwise. ``--agent`` (repeat it)
offers a saved model or ``module:attribute`` agent besides random, the
heuristic and the shipped agents, in the games and seat counts it loads
for; each is imported or loaded when the server starts, and one that
cannot be stops it with the reason (exit 2). A page can only seat agents
the server offers. The web extra must be installed (``pip install dungeonrl[web]``).
"""

from __future__ import annotations

import argparse
import sys

from ..agents.options import positive_int

__all__ = ["add_serve_options", "serve", "config_from_args"]


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above 0")
    return v


def _port(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= v <= 65535:
        raise argparse.ArgumentTypeError(f"port {v} is outside 0..65535")
    return v


def add_serve_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    p.add_argument(
        "--port", type=_port, default=8000, help="port (default: %(default)s; 0: any free)"
    )
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="AGENT",
        help="offer this agent too (a saved model, module:attribute or a search agent "
        "such as 'search:pretrained:NAME?sims=200'); repeat for more",
    )
    p.add_argument(
        "--replay-dir",
        default=None,
        metavar="DIR",
        help="a folder of replay files the viewer may open by name",
    )
    p.add_argument(
        "--max-games",
        type=positive_int,
        default=32,
        help="games held at once (default: %(default)s)",
    )
    p.add_argument(
        "--max-connections",
        type=positive_int,
        default=128,
        help="open pages at once (default: %(default)s)",
    )
    p.add_argument(
        "--idle-minutes",
        type=_positive_float,
        default=30.0,
        help="close a game nobody touched for this long (default: %(default)s)",
    )


def config_from_args(args):
    import os

    from .server import ServerConfig

    if args.replay_dir is not None and not os.path.isdir(args.replay_dir):
        raise ValueError(f"--replay-dir {args.replay_dir}: no such folder")
    return ServerConfig(
        max_games=args.max_games,
        max_connections=args.max_connections,
        idle_seconds=args.idle_minutes * 60.0,
        agents=tuple(args.agent),
        replay_dir=args.replay_dir,
    )


def _check_agents(agents) -> None:
    """Every ``--agent`` reads as a file or ``module:attribute`` (the
    server then resolves each one when it starts: see
    :func:`.server.agent_offers`)."""
    import os

    from ..agents.algos.search import is_search_ref
    from ..agents.protocol import is_import_ref

    for a in agents:
        if not (os.path.exists(a) or is_import_ref(a) or is_search_ref(a)):
            raise ValueError(
                f"--agent {a}: not a file or module:attribute (nor a search agent: "
                "search[:PRIOR][?key=value&...])"
            )


def serve(args) -> int:
    try:
        import uvicorn

        from .app import make_app
    except ModuleNotFoundError as e:
        print(
            f"dungeonrl serve: the web app needs {e.name} (pip install 'dungeonrl[web]')",
            file=sys.stderr,
        )
        return 1
    try:
        config = config_from_args(args)
        _check_agents(config.agents)
        # every --agent is imported or loaded now: one that cannot play stops
        # the server here, with the reason, instead of failing when a page picks it
        app = make_app(config)
    except ValueError as e:
        print(f"dungeonrl serve: {e}", file=sys.stderr)
        return 2
    server = uvicorn.Server(
        uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    )

    async def _announce():
        import asyncio

        while not server.started:
            await asyncio.sleep(0.05)
        for s in server.servers:
            for sock in s.sockets:
                host, port = sock.getsockname()[:2]
                shown = f"[{host}]" if ":" in host else host
                print(f"dungeonrl serve: open http://{shown}:{port}/ (Ctrl+C stops)", flush=True)

    import asyncio

    async def main():
        task = asyncio.create_task(_announce())
        await server.serve()
        task.cancel()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    return 0
