"""Offline-RL datasets of heuristic, random or trained play, in Minari's
format (``pip install 'dungeonrl[datasets]'``).

:func:`record_dataset` plays ``episodes`` seeded games with an agent
through the game's Gymnasium env (what Minari's ``DataCollector`` records,
collected without its jax dependency) and writes a local Minari dataset (nothing is uploaded), loadable with
``minari.load_dataset(dataset_id)``::

    import dungeonrl
    from dungeonrl.agents.dataset import record_dataset
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

Command line (``python -m dungeonrl.agents.dataset GAME --agent heuristic
--episodes N [--dataset-id ID] [--seed S] [--root DIR] [--overwrite]
[--players P] [--opponents POOL] [--character C] [--difficulty D]``).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import warnings

import numpy as np

__all__ = ["record_dataset", "default_dataset_id", "build_parser", "main"]


def _minari():
    try:
        import minari
    except ImportError as e:
        raise ImportError("recording datasets needs Minari with its HDF5 backend: "
                          "pip install 'dungeonrl[datasets]'") from e
    return minari


def _agent_label(agent) -> str:
    if agent in ("heuristic", "random"):
        return agent
    stem = os.path.splitext(os.path.basename(os.fspath(agent)))[0]
    label = "".join(c if c.isalnum() else "_" for c in stem).strip("_") or "model"
    return label


def default_dataset_id(game: str, agent) -> str:
    """``"dungeonrl/<game>/<agent>-v0"`` (a model file gives its file stem)."""
    from ..registry import get_spec
    return f"dungeonrl/{get_spec(game).name}/{_agent_label(agent)}-v0"


def _buffers(env):
    """The one-row batch (states, obs, masks) an agent's ``act`` reads."""
    u = env.unwrapped
    buf = getattr(u, "_buf", None) or getattr(u, "_view", None)
    if buf is None:
        raise TypeError(f"{type(u).__name__} is not a dungeonrl env")
    return buf


def record_dataset(game: str, agent="heuristic", episodes: int = 100, *,
                   dataset_id: str | None = None, seed: int = 0, root: str | None = None,
                   overwrite: bool = False, description: str | None = None,
                   author: str | None = None, author_email: str | None = None,
                   code_permalink: str | None = None, **env_kwargs):
    """Record ``episodes`` games of ``agent`` (``"heuristic"``, ``"random"``
    or a saved model path) on ``game`` (name or env id) as a local Minari
    dataset and return it (a ``minari.MinariDataset``). ``env_kwargs`` go to
    ``gymnasium.make`` (e.g. ``character=``, ``difficulty=`` for Unbroken;
    ``num_players=``, ``opponents=`` for Dungeon Crawler). See the module
    doc for what is recorded."""
    import gymnasium as gym

    from .. import registry
    from .policy import make_agent
    if isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer)) \
            or episodes < 1:
        raise ValueError(f"episodes must be an integer >= 1, got {episodes!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    spec = registry.get_spec(game)
    minari = _minari()
    from minari.data_collector.episode_buffer import EpisodeBuffer
    if root is not None:
        os.makedirs(root, exist_ok=True)
        os.environ["MINARI_DATASETS_PATH"] = os.path.abspath(root)
    dataset_id = dataset_id or default_dataset_id(spec.name, agent)
    if dataset_id in minari.list_local_datasets():
        if not overwrite:
            raise FileExistsError(f"a local Minari dataset {dataset_id!r} exists already; "
                                  "pass overwrite=True (--overwrite) or another dataset id")
        minari.delete_dataset(dataset_id)
    env = gym.make(spec.env_id, disable_env_checker=True, **env_kwargs)
    policy = make_agent(agent, env.unwrapped.core, seed=seed, deterministic=True)
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
        episodes_out.append(EpisodeBuffer(
            id=k, seed=int(seed) + k, observations=observations, actions=actions,
            rewards=rewards, terminations=terms, truncations=truncs,
            infos={"action_mask": masks}))
    name = getattr(policy, "name", str(agent))
    what = ("one seat (the learner of the single-agent view) of " if spec.multi_agent
            else "")
    desc = description or (
        f"{episodes} episodes of {what}{spec.env_id} played by the {name} agent "
        f"(episode k: seed {seed} + k), recorded by dungeonrl; mean return "
        f"{float(np.mean(returns)):.3f}. infos['action_mask'] is the legal-action mask "
        "(int8) of each observation.")
    with warnings.catch_warnings():
        # the optional metadata Minari asks for (permalink, e-mail...) is the caller's
        warnings.filterwarnings("ignore", message=r".*is set to None.*")
        dataset = minari.create_dataset_from_buffers(
            dataset_id=dataset_id, buffer=episodes_out, env=env,
            algorithm_name=f"dungeonrl-{name}", author=author or "dungeonrl",
            author_email=author_email, code_permalink=code_permalink, description=desc)
    env.close()
    return dataset


# --- command line --------------------------------------------------------------------
def build_parser(prog: str = "dungeonrl dataset") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description="Record a local Minari dataset of seeded games played by "
        "an agent (loadable with minari.load_dataset).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("game", help="game name or env id (unbroken, dungeon_crawler)")
    p.add_argument("--agent", default="heuristic",
                   help="heuristic, random or a saved model file (.pt / .zip)")
    p.add_argument("--episodes", type=int, default=100, help="episodes to record")
    p.add_argument("--dataset-id", default=None,
                   help="Minari dataset id (default dungeonrl/GAME/AGENT-v0)")
    p.add_argument("--seed", type=int, default=0, help="episode k plays seed SEED + k")
    p.add_argument("--root", default=None,
                   help="dataset folder (default $MINARI_DATASETS_PATH or ~/.minari/datasets)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing dataset id")
    p.add_argument("--players", dest="num_players", type=int, default=None,
                   help="multi-seat games: seats at the table")
    p.add_argument("--opponents", default=None,
                   help="multi-seat games: the other seats' pool, e.g. heuristic:0.5,random:0.5")
    p.add_argument("--character", default=None, help="Unbroken: character")
    p.add_argument("--difficulty", default=None, help="Unbroken: difficulty")
    return p


def main(argv=None) -> int:
    from ..registry import get_spec
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        spec = get_spec(args.game)
    except KeyError as e:
        parser.error(str(e.args[0] if e.args else e))
    env_kwargs = {k: getattr(args, k) for k in ("num_players", "opponents", "character",
                                                "difficulty") if getattr(args, k) is not None}
    wrong = (("character", "difficulty") if spec.multi_agent else ("num_players", "opponents"))
    given = [k for k in wrong if k in env_kwargs]
    if given:
        flags = ", ".join("--players" if k == "num_players" else f"--{k}" for k in given)
        parser.error(f"{flags} does not apply to {spec.name}")
    ds = record_dataset(args.game, args.agent, args.episodes, dataset_id=args.dataset_id,
                        seed=args.seed, root=args.root, overwrite=args.overwrite,
                        **env_kwargs)
    print(f"wrote Minari dataset {ds.spec.dataset_id!r}: {ds.total_episodes} episodes, "
          f"{ds.total_steps} steps, in {os.environ.get('MINARI_DATASETS_PATH', '~/.minari/datasets')}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())


# --- the `dungeonrl dataset GAME` leaf of the CLI tree ------------------------------------
def cli_dataset_options(spec):
    """Option groups of ``dungeonrl dataset GAME`` (see :mod:`dungeonrl.cli`)."""
    from ..options import option, positive_int

    @dataclasses.dataclass
    class DatasetOptions:
        """dataset"""

        agent: str = option("heuristic", "heuristic, random or a saved model file (.pt / .zip)")
        episodes: int = option(100, "episodes to record (episode k plays seed SEED + k)",
                               type=positive_int)
        dataset_id: str | None = option(None, "Minari dataset id (default "
                                              "dungeonrl/GAME/AGENT-v0)", metavar="ID")
        root: str | None = option(None, "dataset folder (default $MINARI_DATASETS_PATH or "
                                        "~/.minari/datasets)", metavar="DIR")
        overwrite: bool = option(False, "replace an existing dataset id")

    @dataclasses.dataclass
    class SeatOptions:
        """the other seats"""

        num_players: int | None = option(None, "seats at the table (default 2)",
                                         flags=("--players",), type=positive_int)
        opponents: str | None = option(None, "the other seats' pool, e.g. "
                                             "heuristic:0.5,random:0.5 (default heuristic)")

    @dataclasses.dataclass
    class UnbrokenOptions:
        """configuration"""

        character: str | None = option(None, "sneak, sage, hunter, brawler or random "
                                             "(default sneak)")
        difficulty: str | None = option(None, "easy, normal or hard (default normal)")

    extra = SeatOptions if spec.multi_agent else (
        UnbrokenOptions if spec.name == "unbroken" else None)
    return [DatasetOptions] + ([extra] if extra is not None else [])


def cli_dataset(args) -> int:
    keys = ("num_players", "opponents", "character", "difficulty")
    env_kwargs = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
    seed = args.seed if getattr(args, "seed", None) is not None else 0
    ds = record_dataset(args.env, args.agent, args.episodes, dataset_id=args.dataset_id,
                        seed=seed, root=args.root, overwrite=args.overwrite, **env_kwargs)
    print(f"wrote Minari dataset {ds.spec.dataset_id!r}: {ds.total_episodes} episodes, "
          f"{ds.total_steps} steps, in "
          f"{os.environ.get('MINARI_DATASETS_PATH', '~/.minari/datasets')}")
    return 0
