"""Record a seeded game played by an agent as a GIF or MP4.

``record(game, agent, seed, out)`` plays one game of ``game`` (a registered
name such as ``"unbroken"`` or an env id) from ``seed`` with ``agent``
(``"heuristic"``, ``"random"`` or a saved model path, built by
:func:`~dungeonrl.agents.policy.make_agent`; in a multi-seat game the same
agent plays every seat) and writes the ``rgb_array`` frames: one after the
reset and one after each decision (every ``stride``-th decision when
``stride > 1``, always including the last), at most ``max_frames``.

* ``.gif``: written with Pillow (no extra dependency); the last frame is held
  for ``hold`` seconds.
* ``.png``: only the last recorded frame (choose it with ``max_frames``):
  a still for a README.
* ``.mp4``: needs ``imageio`` and ``imageio-ffmpeg``
  (``pip install imageio imageio-ffmpeg``); without them a clear
  :class:`RuntimeError` says so and suggests ``.gif``.

The same seed and agent give the same frames (agents are seeded from
``seed``). Example::

    from dungeonrl.agents.commands.record import record
    record("unbroken", "heuristic", seed=3, out="unbroken.gif", fps=4)

Command line (once wired): ``dungeonrl record unbroken --agent heuristic
--seed 3 --out unbroken.gif``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from ...envs import catalog
from ...envs.core.batch import Batch
from ...envs.core.common import seed_batch
from ...envs.core.errors import DungeonRLError
from ...registry import get_spec
from ..options import AGENT_HELP, add_game_and_agent, option, positive_int
from ..policy import make_agent
from ..replay import LOCAL_OPTIONS, make_replay, save_replay
from ..words import count

__all__ = ["record", "play_frames", "Recording", "FORMATS"]

FORMATS = (".gif", ".mp4", ".png")


@dataclass
class Recording:
    """What :func:`record` wrote."""

    path: str
    frames: int  # frames in the file
    decisions: int  # decisions played
    finished: bool  # the game ended (not cut by max_frames / max_steps)
    size: tuple  # (height, width) of a frame
    info: dict = field(default_factory=dict)  # the core's episode info
    replay: str | None = None  # the replay file written beside it, if asked


def _make_core(game, players, core_kwargs):
    spec = get_spec(game)
    kwargs = dict(core_kwargs)
    if spec.multi_agent or spec.max_players > 1:  # Carl plays co-op at 2 seats
        if players is not None:
            kwargs["num_players"] = players
    elif players not in (None, 1):
        raise ValueError(f"{spec.name} is a one-player game; got players={players}")
    if spec.make_core is None:
        raise TypeError(f"GameSpec {spec.name!r} has no make_core factory")
    core = spec.make_core(**kwargs)
    if "rgb_array" not in core.spec.render_modes:
        raise ValueError(f"{spec.name} has no rgb_array rendering")
    return core


def play_frames(
    game,
    agent="heuristic",
    seed: int = 0,
    *,
    players=None,
    max_frames=None,
    stride: int = 1,
    max_steps: int | None = None,
    scale: float = 1.0,
    trace: list | None = None,
    **core_kwargs,
):
    """Play one seeded game and yield its frames (``uint8`` ``(H, W, 3)``).
    ``trace``: a list that receives ``(seat, action)`` for every decision.

    Returns a generator; its ``StopIteration.value`` (or the ``result``
    attribute of :func:`record`'s answer) is ``(decisions, finished, info)``.
    Arguments as for :func:`record`.
    """

    if isinstance(stride, bool) or not isinstance(stride, int) or stride < 1:
        raise ValueError(f"stride must be an integer >= 1, got {stride!r}")
    if max_frames is not None and (
        isinstance(max_frames, bool) or not isinstance(max_frames, int) or max_frames < 1
    ):
        raise ValueError(f"max_frames must be an integer >= 1 or None, got {max_frames!r}")
    if not 0.05 <= float(scale) <= 4:
        raise ValueError(f"scale must be in 0.05..4, got {scale!r}")
    core = _make_core(game, players, core_kwargs)
    pol = make_agent(agent, core, seed=int(seed))
    buf = Batch(core, 1)
    rows = np.zeros(1, np.int64)
    buf.reset(seed_batch(int(seed), 1))
    multi = core.num_players > 1

    def observe():
        if multi:  # the agent sees the table from the seat that must act
            buf.players[:] = np.maximum(core.to_play(buf.states), 0)
        core.legal_mask(buf.states, buf.masks)
        core.observe(buf.states, buf.players, buf.obs)

    def frame():
        img = core.render_rgb(buf.states[0])
        if scale != 1.0:
            from PIL import Image

            h, w = img.shape[:2]
            im = Image.fromarray(img).resize(
                (max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS
            )
            img = np.array(im, dtype=np.uint8, order="C")
        return img

    observe()
    n_frames = 1
    yield frame()
    decisions = 0
    finished = False
    while not core.is_over(buf.states[0]):
        if max_steps is not None and decisions >= max_steps:
            break
        if max_frames is not None and n_frames >= max_frames:
            break
        buf.actions[:] = pol.act(buf, rows)
        if trace is not None:
            trace.append((int(core.to_play(buf.states)[0]), int(buf.actions[0])))
        core.step(buf.states, buf.actions, buf.rewards, buf.terminated, buf.truncated, buf.illegal)
        decisions += 1
        observe()
        over = core.is_over(buf.states[0])
        if over or decisions % stride == 0:
            n_frames += 1
            yield frame()
        if bool(buf.terminated[0]) or bool(buf.truncated[0]):
            finished = True
            break
    finished = finished or core.is_over(buf.states[0])
    return decisions, finished, core.episode_info(buf.states[0]) if finished else {}


def _shared_palette(frames):
    """One 256-colour palette for the whole GIF, from a sample of frames: every
    frame maps to the same colours, so unchanged pixels stay identical and
    the GIF stores only what changed between frames (small files)."""
    from PIL import Image

    idx = np.linspace(0, len(frames) - 1, min(len(frames), 12)).astype(int)
    sample = np.concatenate([frames[i][::2, ::2] for i in idx], axis=0)
    return Image.fromarray(sample).quantize(
        colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )


def _write_gif(frames, path, fps, hold):
    from PIL import Image

    if not frames:
        raise ValueError("no frames to write")
    pal = _shared_palette(frames)
    ims = [Image.fromarray(f).quantize(palette=pal, dither=Image.Dither.NONE) for f in frames]
    ms = max(20, int(round(1000.0 / fps)))
    durations = [ms] * len(ims)
    durations[-1] = max(ms, int(round(hold * 1000)))
    ims[0].save(
        path,
        save_all=True,
        append_images=ims[1:],
        duration=durations,
        loop=0,
        optimize=False,
        disposal=1,
    )


def _mp4_writer():
    """``imageio.v2`` once its MP4 writer backend (imageio-ffmpeg) imports;
    a ``RuntimeError`` saying what to install otherwise."""
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg  # noqa: F401  (the writer backend)
    except ImportError as e:
        raise RuntimeError(
            "writing MP4 needs imageio and imageio-ffmpeg (pip install imageio "
            "imageio-ffmpeg); or record to a .gif, which needs only Pillow"
        ) from e
    return imageio


def _write_mp4(frames, path, fps, hold):
    imageio = _mp4_writer()
    extra = max(0, int(round(hold * fps)) - 1)
    with imageio.get_writer(path, fps=fps, codec="libx264", macro_block_size=8) as w:
        for f in frames:
            w.append_data(f)
        for _ in range(extra):
            w.append_data(frames[-1])


def record(
    game,
    agent="heuristic",
    seed: int = 0,
    out="game.gif",
    *,
    players=None,
    fps: float = 4.0,
    max_frames: int | None = 600,
    stride: int = 1,
    max_steps: int | None = None,
    scale: float = 1.0,
    hold: float = 2.0,
    replay: str | None = None,
    **core_kwargs,
) -> Recording:
    """Play one seeded game with ``agent`` and write it to ``out``.

    * ``game``: registered name or env id (the game must render ``rgb_array``);
    * ``agent``: ``"heuristic"``, ``"random"`` or a saved model path (a model
      of another game raises ``ModelSpecError``);
    * ``seed``: game seed (the agent is seeded from it too);
    * ``out``: ``.gif``, ``.mp4`` or ``.png`` (the last frame only) path (its
      folder must exist);
    * ``players``: seats for multi-seat games (default: the core's default);
      must be ``None`` or 1 for one-player games;
    * ``fps``: frames per second; ``hold``: seconds the last frame stays;
    * ``max_frames``: stop the recording after this many frames (``None``:
      the whole game); ``stride``: keep every ``stride``-th decision;
      ``max_steps``: stop after this many decisions;
    * ``scale``: resize frames (0.5 halves width and height: smaller files);
    * ``replay``: also save the game as a replay file (``.json``, see
      :mod:`..replay`) at this path;
    * ``**core_kwargs``: game options (``character="hunter"``...).

    Returns a :class:`Recording`. Bad arguments raise ``ValueError`` before
    anything is written.
    """
    path = os.fspath(out)
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise ValueError(f"output {path!r}: use a .gif, .mp4 or .png file name")
    if not (isinstance(fps, (int, float)) and not isinstance(fps, bool) and 0 < fps <= 60):
        raise ValueError(f"fps must be a number in (0, 60], got {fps!r}")
    if hold < 0:
        raise ValueError(f"hold must be >= 0 seconds, got {hold!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"output folder {folder!r} does not exist")
    if replay is not None:
        rfolder = os.path.dirname(os.path.abspath(os.fspath(replay)))
        if not os.fspath(replay).endswith(".json") or not os.path.isdir(rfolder):
            raise ValueError(f"replay {replay!r}: a .json file name in an existing folder")
        local = [k for k in LOCAL_OPTIONS if core_kwargs.get(k) is not None]
        if local:
            raise ValueError(
                f"replay {replay!r}: a game played with {local[0]}= cannot be saved as a "
                "replay (replays re-simulate on the game's shipped content)"
            )
    if ext == ".mp4":
        _mp4_writer()  # before the game is played
    steps: list = []
    gen = play_frames(
        game,
        agent,
        seed,
        players=players,
        max_frames=max_frames,
        stride=stride,
        max_steps=max_steps,
        scale=scale,
        trace=steps,
        **core_kwargs,
    )
    frames = []
    while True:
        try:
            frames.append(next(gen))
        except StopIteration as stop:
            decisions, finished, info = stop.value
            break
    if ext == ".png":
        from PIL import Image

        Image.fromarray(frames[-1]).save(path, optimize=True)
        frames = frames[-1:]
    elif ext == ".gif":
        _write_gif(frames, path, fps, hold)
    else:
        _write_mp4(frames, path, fps, hold)
    if replay is not None:
        kw = dict(core_kwargs)
        if players is not None and get_spec(game).max_players > 1:
            kw["num_players"] = players
        rep = make_replay(
            game,
            kw,
            seed,
            [s for s, _ in steps],
            [a for _, a in steps],
            [str(agent)],
        )
        save_replay(rep, replay)
    return Recording(
        path=path,
        frames=len(frames),
        decisions=decisions,
        finished=finished,
        size=tuple(frames[0].shape[:2]),
        info=info,
        replay=os.fspath(replay) if replay is not None else None,
    )


def main(argv=None) -> int:
    """``python -m dungeonrl.agents.commands.record GAME --agent A --seed S --out F``
    (the same arguments ``dungeonrl record`` takes)."""
    p = argparse.ArgumentParser(
        prog="python -m dungeonrl.agents.commands.record",
        description="Record a seeded game as a GIF or MP4.",
    )
    add_game_and_agent(p, catalog.GAMES, "path (default: heuristic)")
    p.add_argument("--seed", type=int, default=0, help="game seed (default: 0)")
    p.add_argument(
        "--out",
        default="game.gif",
        help=".gif, .mp4 or .png (last frame only) path (default: game.gif)",
    )
    p.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats, multi-seat games only (default: the game's default)",
    )
    p.add_argument("--fps", type=float, default=4.0, help="frames per second (default: 4)")
    p.add_argument(
        "--max-frames",
        type=int,
        default=600,
        help="stop after this many frames (default: 600; 0 = whole game)",
    )
    p.add_argument(
        "--stride", type=int, default=1, help="keep every N-th decision as a frame (default: 1)"
    )
    p.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="resize frames, e.g. 0.5 for half size (default: 1)",
    )
    a = p.parse_args(argv)
    a.replay = ""  # (only `dungeonrl record` saves a replay beside)
    try:
        rec = _record(a, a.game, a.seed, a.players)
    except (ValueError, RuntimeError, OSError) as e:
        p.exit(2, f"{p.prog}: error: {e}\n")
    return _wrote(rec)


def _record(args, game: str, seed: int, players: int | None):
    """:func:`record` of a parsed command line (either form)."""
    return record(
        game,
        args.agent,
        seed,
        args.out,
        players=players,
        fps=args.fps,
        max_frames=args.max_frames or None,
        stride=args.stride,
        scale=args.scale,
        replay=args.replay or None,
    )


def _wrote(rec) -> int:
    """Say what was written; the exit code 0."""
    end = f"game over {rec.info}" if rec.finished else "cut short"
    print(
        f"wrote {rec.path}: {count(rec.frames, 'frame')} of {rec.size[1]}x{rec.size[0]}, "
        f"{count(rec.decisions, 'decision')}, {end}"
    )
    if rec.replay:
        print(f"wrote {rec.replay}: the replay ({count(rec.decisions, 'decision')})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# --- the `dungeonrl record GAME` leaf of the CLI tree -------------------------------------
def cli_record_options(spec):
    """Option groups of ``dungeonrl record GAME`` (see :mod:`dungeonrl.cli`);
    ``None`` for a game without an ``rgb_array`` picture."""
    if "rgb_array" not in spec.render_modes:
        return None

    def nonneg(text: str) -> int:
        v = int(text)
        if v < 0:
            raise ValueError(f"must be >= 0, not {v}")
        return v

    @dataclasses.dataclass
    class RecordOptions:
        """recording"""

        agent: str = option("heuristic", f"{AGENT_HELP} path")
        out: str = option("game.gif", ".gif, .mp4 or .png (last frame only) path")
        fps: float = option(4.0, "frames per second")
        max_frames: int = option(
            600, "stop after this many frames (0 = the whole game)", type=nonneg
        )
        stride: int = option(1, "keep every N-th decision as a frame", type=positive_int)
        scale: float = option(1.0, "resize frames, e.g. 0.5 for half size")
        replay: str = option(
            "", "also save the game as a replay file (.json) that re-simulates exactly"
        )

    groups: list[type] = [RecordOptions]
    if spec.max_players > 1:

        @dataclasses.dataclass
        class SeatOptions:
            """table"""

            players: int | None = option(
                None,
                f"seats, {spec.min_players}..{spec.max_players} (default: the game's default)",
                type=positive_int,
            )

        groups.append(SeatOptions)
    return groups


def cli_record(args) -> int:
    seed = args.seed if getattr(args, "seed", None) is not None else 0
    try:
        rec = _record(args, args.env, seed, getattr(args, "players", None))
    except (ValueError, RuntimeError, OSError, DungeonRLError) as e:
        print(f"dungeonrl record {args.env}: error: {e}", file=sys.stderr)
        return 2
    return _wrote(rec)
