"""Offline-RL datasets of heuristic, random or trained play, in Minari's
format (``pip install 'dungeonrl[datasets]'``).

:func:`record_dataset` plays ``episodes`` seeded games with an agent
through the game's Gymnasium env (what Minari's ``DataCollector`` records,
collected without its jax dependency) and writes a local Minari dataset
(nothing is uploaded), loadable with ``minari.load_dataset(dataset_id)``::

    import dungeonrl
    from dungeonrl.agents.commands.dataset import record_dataset
    ds = record_dataset("unbroken", agent="heuristic", episodes=100, seed=0)
    ds = minari.load_dataset("dungeonrl/unbroken/heuristic-v0")   # later, same thing

What is recorded
----------------
* **Single-agent games** (Unbroken): the ``gymnasium.make(env_id)`` env
  (``DungeonEnv``), every decision of the episode.
* **Multi-seat games** (Dungeon Crawler): Minari is a single-agent format,
  so a dataset is the trajectories of *one seat*: the agent plays the
  learner seat of the single-agent view that ``gymnasium.make(env_id)``
  gives (:mod:`dungeonrl.agents.selfplay_env`; the seat rotates with the
  episode seed, the other seats are played by ``opponents``, default the
  heuristic). A step is one of the learner's decisions; its reward covers
  the opponents' decisions that follow.

Per step: ``observations`` (the env's float32 ``Box``), ``actions`` (int),
``rewards``, ``terminations``, ``truncations`` and ``infos["action_mask"]``
(int8, 1 = legal; the mask of the observation at the same index, all zero
after the last step). Episode ``k`` is the game of seed ``seed + k``; the
env spec (id and keyword arguments) is stored, so
``dataset.recover_environment()`` rebuilds the env (after ``import
dungeonrl``).

Datasets go where Minari keeps local datasets: ``$MINARI_DATASETS_PATH``
(default ``~/.minari/datasets``); ``root=`` sets that variable for this
process. An existing dataset id raises unless ``overwrite=True``.

Command line (``python -m dungeonrl.agents.commands.dataset GAME --agent heuristic
--episodes N [--dataset-id ID] [--seed S] [--root DIR] [--overwrite]
[--players P] [--opponents POOL] [--character C] [--difficulty D]``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import sys
import uuid
import warnings
from typing import TYPE_CHECKING, cast

import gymnasium as gym
import numpy as np

from ... import registry
from ...envs import catalog
from ...envs.core.errors import DungeonRLError
from ...envs.core.hooks import add_core_options, core_kwargs_from, hooks_for
from ...registry import get_spec
from ..options import AGENT_HELP, add_game_and_agent, core_options_class, option, positive_int
from ..policy import make_agent
from ..words import count

if TYPE_CHECKING:
    from ...envs.core.adapters.gym_env import DungeonEnv
    from ..selfplay_env import SelfPlayEnv

__all__ = ["record_dataset", "default_dataset_id", "check_dataset_id", "build_parser", "main"]


def _minari():
    try:
        import minari
    except ImportError as e:
        raise ImportError(
            "recording datasets needs Minari with its HDF5 backend: "
            "pip install 'dungeonrl[datasets]'"
        ) from e
    return minari


def _agent_label(agent) -> str:
    if agent in ("heuristic", "random"):
        return agent
    stem = os.path.splitext(os.path.basename(os.fspath(agent)))[0]
    label = "".join(c if c.isalnum() else "_" for c in stem).strip("_") or "model"
    return label


def default_dataset_id(game: str, agent) -> str:
    """``"dungeonrl/<game>/<agent>-v0"`` (a model file gives its file stem)."""
    return f"dungeonrl/{get_spec(game).name}/{_agent_label(agent)}-v0"


def _buffers(env):
    """The one-row batch (states, obs, masks) an agent's ``act`` reads."""
    u = env.unwrapped
    buf = getattr(u, "_buf", None) or getattr(u, "_view", None)
    if buf is None:
        raise TypeError(f"{type(u).__name__} is not a dungeonrl env")
    return buf


#: a dataset id: ``[NAMESPACE/]NAME-vN``; the namespace is one or more
#: ``/``-separated parts of letters, digits, ``_`` and ``-`` (two characters at
#: least, as Minari's parser wants), the version is required
_PART = r"[-\w]+"
DATASET_ID_RE = re.compile(
    rf"(?:(?P<namespace>{_PART}(?:/{_PART})*)/)?"
    rf"(?P<name>{_PART}?)-v(?P<version>[0-9]+)"
)
MAX_ID_LENGTH = 200


def check_dataset_id(dataset_id, what: str = "dataset_id") -> str:
    """``dataset_id`` if it is a Minari dataset id ``[NAMESPACE/]NAME-vN``
    (see :data:`DATASET_ID_RE`), else ``ValueError`` naming ``what`` and the
    allowed form. Checked before anything is created: Minari makes the
    dataset's folder before it parses the id, and a folder of a malformed id
    breaks every later listing of the same root."""
    form = (
        "[NAMESPACE/]NAME-vN: letters, digits, '_' and '-', parts separated by '/', "
        "a namespace of 2 characters or more, a version number (e.g. "
        "dungeonrl/mygame/heuristic-v0)"
    )
    if not isinstance(dataset_id, str):
        raise ValueError(f"{what} must be a string {form}, got {dataset_id!r}")
    m = DATASET_ID_RE.fullmatch(dataset_id)
    if (
        m is None
        or len(dataset_id) > MAX_ID_LENGTH
        or (m.group("namespace") is not None and len(m.group("namespace")) < 2)
    ):
        raise ValueError(
            f"{what} {dataset_id!r} is not a Minari dataset id: use {form}, at "
            f"most {MAX_ID_LENGTH} characters"
        )
    try:  # Minari's own parser agrees (when it is installed)
        from minari.dataset.minari_dataset import parse_dataset_id

        parse_dataset_id(dataset_id)
    except ImportError:  # pragma: no cover - the datasets extra is missing
        pass
    except Exception as e:  # pragma: no cover - a Minari with stricter ids
        raise ValueError(f"{what} {dataset_id!r}: Minari refuses it ({e})") from None
    return dataset_id


def _datasets_root(root) -> str:
    """The absolute folder datasets go to (``root``, else
    ``$MINARI_DATASETS_PATH``, else ``~/.minari/datasets``), checked: an
    existing path must be a writable folder, a missing one must be creatable
    under a writable folder. ``ValueError`` naming it otherwise."""
    what = "root"
    if root is None:
        root = os.environ.get("MINARI_DATASETS_PATH") or os.path.join(
            os.path.expanduser("~"), ".minari", "datasets"
        )
        what = "the dataset folder ($MINARI_DATASETS_PATH or ~/.minari/datasets)"
    if not isinstance(root, (str, os.PathLike)) or not os.fspath(root):
        raise ValueError(f"{what} must be a folder path, got {root!r}")
    path = os.path.abspath(os.path.expanduser(os.fspath(root)))
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise ValueError(f"{what} {os.fspath(root)!r} exists and is not a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise ValueError(f"{what} {os.fspath(root)!r} is not writable")
        return path
    parent = path
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(
            f"{what} {os.fspath(root)!r} cannot be created: {parent!r} is not a writable folder"
        )
    made = _missing_dirs(path)  # try it (permissions, read-only mounts), then undo
    try:
        os.makedirs(path)
    except OSError as e:
        raise ValueError(
            f"{what} {os.fspath(root)!r} cannot be created ({e.strerror or e})"
        ) from None
    finally:
        for d in made:
            try:
                os.rmdir(d)
            except OSError:
                pass
    return path


def _is_dataset(path) -> bool:
    return os.path.isdir(os.path.join(path, "data"))


def _check_target(root: str, dataset_id: str, overwrite: bool) -> str:
    """The folder of ``dataset_id`` under ``root``; ``FileExistsError`` when it
    is a dataset already and not ``overwrite``; ``ValueError`` when it, or a
    folder of its namespace, is something else (a file, a namespace, a
    dataset) that writing there would damage."""
    target = os.path.join(root, *dataset_id.split("/"))
    parts = dataset_id.split("/")[:-1]
    for k in range(1, len(parts) + 1):
        ns = os.path.join(root, *parts[:k])
        if os.path.exists(ns) and (not os.path.isdir(ns) or _is_dataset(ns)):
            what = "a dataset" if _is_dataset(ns) else "a file"
            raise ValueError(
                f"dataset_id {dataset_id!r}: its namespace "
                f"{'/'.join(parts[:k])!r} is {what} in {root}; choose another id"
            )
    if os.path.lexists(target):
        if not os.path.isdir(target) or not _is_dataset(target):
            raise ValueError(
                f"dataset_id {dataset_id!r}: {target} exists and is not a Minari "
                "dataset (a namespace or another file); choose another id"
            )
        if not overwrite:
            raise FileExistsError(
                f"a local Minari dataset {dataset_id!r} exists already in "
                f"{root}; pass overwrite=True (--overwrite) or another "
                "dataset id"
            )
    return target


def _missing_dirs(path: str) -> list:
    """The folders ``os.makedirs(path)`` would create, deepest first."""
    out = []
    while not os.path.exists(path):
        out.append(path)
        path = os.path.dirname(path)
    return out


def record_dataset(
    game: str,
    agent="heuristic",
    episodes: int = 100,
    *,
    dataset_id: str | None = None,
    seed: int = 0,
    root: str | None = None,
    overwrite: bool = False,
    description: str | None = None,
    author: str | None = None,
    author_email: str | None = None,
    code_permalink: str | None = None,
    **env_kwargs,
):
    """Record ``episodes`` games of ``agent`` (``"heuristic"``, ``"random"``
    or a saved model path) on ``game`` (name or env id) as a local Minari
    dataset and return it (a ``minari.MinariDataset``). ``env_kwargs`` go to
    ``gymnasium.make`` (e.g. ``character=``, ``difficulty=`` for Unbroken;
    ``num_players=``, ``opponents=`` for Dungeon Crawler). See the module
    doc for what is recorded.

    Everything is checked before anything is written (``ValueError`` /
    ``TypeError`` naming the argument, ``FileExistsError`` for an existing
    id without ``overwrite``, ``ModelSpecError`` for a model file that is
    garbled or of another game); a failure while writing removes what was
    written and leaves a replaced dataset in place."""

    if isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer)) or episodes < 1:
        raise ValueError(f"episodes must be an integer >= 1, got {episodes!r}")
    if (
        isinstance(seed, bool)
        or not isinstance(seed, (int, np.integer))
        or seed < 0
        or int(seed) + int(episodes) - 1 >= 2**64
    ):
        raise ValueError(f"seed must be an integer in [0, 2**64 - episodes], got {seed!r}")
    spec = registry.get_spec(game)
    minari = _minari()
    from minari.data_collector.episode_buffer import EpisodeBuffer

    dataset_id = check_dataset_id(dataset_id or default_dataset_id(spec.name, agent))
    root_path = _datasets_root(root)
    target = _check_target(root_path, dataset_id, overwrite)
    env = gym.make(spec.env_id, disable_env_checker=True, **env_kwargs)
    try:
        # gym.make hides the class its registry entry point built
        base = cast("DungeonEnv | SelfPlayEnv", env.unwrapped)
        policy = make_agent(agent, base.core, seed=seed, deterministic=True)
        rows = np.zeros(1, np.int64)
        episodes_out, returns = [], []
        for k in range(int(episodes)):
            obs, info = env.reset(seed=int(seed) + k)
            observations, masks = [obs], [np.asarray(info["action_mask"], np.int8)]
            actions, rewards, terms, truncs = [], [], [], []
            done = False
            while not done:
                action = int(policy.act(_buffers(env), rows)[0])
                obs, reward, terminated, truncated, info = env.step(action)
                observations.append(obs)
                masks.append(np.asarray(info["action_mask"], np.int8))
                actions.append(action)
                rewards.append(float(reward))
                terms.append(bool(terminated))
                truncs.append(bool(truncated))
                done = terminated or truncated
            returns.append(sum(rewards))
            # Minari's DataCollector would build these with jax; the buffers are plain lists
            episodes_out.append(
                EpisodeBuffer(
                    id=k,
                    seed=int(seed) + k,
                    observations=observations,
                    actions=actions,
                    rewards=rewards,
                    terminations=terms,
                    truncations=truncs,
                    infos={"action_mask": masks},
                )
            )
        name = getattr(policy, "name", str(agent))
        what = "one seat (the learner of the single-agent view) of " if spec.multi_agent else ""
        desc = description or (
            f"{count(episodes, 'episode')} of {what}{spec.env_id} played by the {name} agent "
            f"(episode k: seed {seed} + k), recorded by dungeonrl; mean return "
            f"{float(np.mean(returns)):.3f}. infos['action_mask'] is the legal-action mask "
            "(int8) of each observation."
        )
        return _write(
            minari,
            root_path,
            root is not None,
            target,
            dataset_id,
            dict(
                buffer=episodes_out,
                env=env,
                algorithm_name=f"dungeonrl-{name}",
                author=author or "dungeonrl",
                author_email=author_email,
                code_permalink=code_permalink,
                description=desc,
            ),
        )
    finally:
        env.close()


def _restore_env(old):
    if old is None:
        os.environ.pop("MINARI_DATASETS_PATH", None)
    else:
        os.environ["MINARI_DATASETS_PATH"] = old


def _write(minari, root: str, set_root: bool, target: str, dataset_id: str, kwargs):
    """Write the dataset; on any failure remove what was created (folders
    included) and put back a dataset being replaced."""
    created = _missing_dirs(os.path.dirname(target))  # root and namespaces, deepest first
    old_env = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = root
    aside, started = None, False
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target):  # overwrite: keep the old one until the new is written
            hidden = os.path.join(
                os.path.dirname(target),
                f".{os.path.basename(target)}.replaced-{uuid.uuid4().hex[:8]}",
            )
            os.rename(target, hidden)
            aside = hidden
        started = True
        with warnings.catch_warnings():
            # the optional metadata Minari asks for (permalink, e-mail...) is the caller's
            warnings.filterwarnings("ignore", message=r".*is set to None.*")
            dataset = minari.create_dataset_from_buffers(dataset_id=dataset_id, **kwargs)
    except BaseException:
        if started:
            shutil.rmtree(target, ignore_errors=True)
        if aside is not None:
            os.rename(aside, target)
        for d in created:
            try:
                os.remove(os.path.join(d, "namespace_metadata.json"))
            except OSError:
                pass
            try:
                os.rmdir(d)
            except OSError:
                pass
        _restore_env(old_env)
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)
    if not set_root:  # root= sets the variable for this process (documented)
        _restore_env(old_env)
    return dataset


# --- command line --------------------------------------------------------------------
def build_parser(prog: str = "dungeonrl dataset") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Record a local Minari dataset of seeded games played by "
        "an agent (loadable with minari.load_dataset).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_game_and_agent(p, catalog.GAMES, "file (.pt / .zip)")
    p.add_argument("--episodes", type=int, default=100, help="episodes to record")
    p.add_argument(
        "--dataset-id", default=None, help="Minari dataset id (default dungeonrl/GAME/AGENT-v0)"
    )
    p.add_argument("--seed", type=int, default=0, help="episode k plays seed SEED + k")
    p.add_argument(
        "--root",
        default=None,
        help="dataset folder (default $MINARI_DATASETS_PATH or ~/.minari/datasets)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace an existing dataset id")
    p.add_argument(
        "--opponents",
        default=None,
        help="multi-seat games: the other seats' pool, e.g. heuristic:0.5,random:0.5",
    )
    return p


def _env_kwargs(args, hooks) -> dict:
    """The env's keywords a parsed command line sets: the game's core
    options (its hooks) and, for a multi-seat game, ``opponents``."""
    out = core_kwargs_from(args, hooks)
    if getattr(args, "opponents", None) is not None:
        out["opponents"] = args.opponents
    return out


def main(argv=None) -> int:
    """``python -m dungeonrl.agents.commands.dataset GAME [options]``: the
    game's own core options (its hooks) are added once the game is known."""
    parser = build_parser()
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("game", nargs="?")
    first, _ = pre.parse_known_args(argv)
    if first.game is None or first.game.startswith("-"):
        parser.parse_args(argv)  # --help, or the usage error naming the game
    try:
        spec = get_spec(first.game)
    except KeyError as e:
        parser.error(str(e.args[0] if e.args else e))
    hooks = hooks_for(spec.name)
    add_core_options(parser.add_argument_group(f"{spec.name} options"), hooks)
    args, unknown = parser.parse_known_args(argv)
    flags = [t.split("=", 1)[0] for t in unknown if t.startswith("--")]
    elsewhere = {f for g in catalog.GAMES for f, _ in hooks_for(g).core_options}
    if flags and all(f in elsewhere for f in flags):
        parser.error(f"{', '.join(flags)} does not apply to {spec.name}")
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.opponents is not None and not spec.multi_agent:
        parser.error(f"--opponents does not apply to {spec.name}")
    try:
        ds = _record(args, args.game, args.seed, _env_kwargs(args, hooks))
    except (ValueError, OSError, ImportError) as e:  # ModelSpecError is a ValueError
        parser.error(str(e))
    return _wrote(ds)


def _record(args, game: str, seed: int, env_kwargs: dict):
    """:func:`record_dataset` of a parsed command line (either form)."""
    return record_dataset(
        game,
        args.agent,
        args.episodes,
        dataset_id=args.dataset_id,
        seed=seed,
        root=args.root,
        overwrite=args.overwrite,
        **env_kwargs,
    )


def _wrote(ds) -> int:
    """Say what was written; the exit code 0."""
    where = os.environ.get("MINARI_DATASETS_PATH", "~/.minari/datasets")
    print(
        f"wrote Minari dataset {ds.spec.dataset_id!r}: {count(ds.total_episodes, 'episode')}, "
        f"{ds.total_steps} steps, in {where}"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


# --- the `dungeonrl dataset GAME` leaf of the CLI tree ------------------------------------
def _id_type(text: str) -> str:
    try:
        return check_dataset_id(text, "the id")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _root_type(text: str) -> str:
    try:
        _datasets_root(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).replace("root ", "", 1)) from None
    return text


def cli_dataset_options(spec):
    """Option groups of ``dungeonrl dataset GAME`` (see :mod:`dungeonrl.cli`)."""

    @dataclasses.dataclass
    class DatasetOptions:
        """dataset"""

        agent: str = option("heuristic", f"{AGENT_HELP} file (.pt / .zip)")
        episodes: int = option(
            100, "episodes to record (episode k plays seed SEED + k)", type=positive_int
        )
        dataset_id: str | None = option(
            None,
            "Minari dataset id [NAMESPACE/]NAME-vN (default dungeonrl/GAME/AGENT-v0)",
            metavar="ID",
            type=_id_type,
        )
        root: str | None = option(
            None,
            "dataset folder (default $MINARI_DATASETS_PATH or ~/.minari/datasets)",
            metavar="DIR",
            type=_root_type,
        )
        overwrite: bool = option(False, "replace an existing dataset id")

    @dataclasses.dataclass
    class SeatOptions:
        """the other seats"""

        opponents: str | None = option(
            None, "the other seats' pool, e.g. heuristic:0.5,random:0.5 (default heuristic)"
        )

    seats = (spec.min_players, spec.max_players)
    game = core_options_class(hooks_for(spec.name).core_options, "configuration", seats)
    return [DatasetOptions, game] + ([SeatOptions] if spec.multi_agent else [])


def cli_dataset(args) -> int:
    """Record a Minari dataset; a bad agent, model file, option or an
    existing id is one line on stderr and exit code 2, nothing written."""

    env_kwargs = _env_kwargs(args, hooks_for(get_spec(args.env).name))
    seed = args.seed if getattr(args, "seed", None) is not None else 0
    try:
        ds = _record(args, args.env, seed, env_kwargs)
    except FileExistsError as e:
        why = str(e).replace("overwrite=True (--overwrite)", "--overwrite")
        print(f"dungeonrl dataset {args.env}: error: {why}", file=sys.stderr)
        return 2
    except (ValueError, OSError, ImportError, DungeonRLError) as e:
        print(f"dungeonrl dataset {args.env}: error: {e}", file=sys.stderr)
        return 2
    return _wrote(ds)
