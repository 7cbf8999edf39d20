"""Pictures: ``render_mode="rgb_array"`` of every game that declares it,
Gymnasium's ``RecordVideo`` on Unbroken, and ``agents.commands.record`` (GIF/MP4).

Frames must be real pictures: a fixed size, ``uint8`` ``(H, W, 3)``, many
colours, the same picture for the same record, a different one for a
different public state, and no change when only hidden fields change (the
generator, the undrawn decks)."""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from dungeonrl.agents.commands.record import play_frames, record
from dungeonrl.envs.core.adapters.aec import DungeonAECEnv
from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
from dungeonrl.envs.core.batch import Batch
from dungeonrl.envs.core.common import seed_batch
from dungeonrl.envs.dungeon_crawler import consts as DC
from dungeonrl.envs.dungeon_crawler import render as dc_render
from dungeonrl.envs.unbroken import render as ub_render
from dungeonrl.registry import get_spec

SIZES = {
    "unbroken": (ub_render.FRAME_H, ub_render.FRAME_W),
    "dungeon_crawler": (dc_render.FRAME_H, dc_render.FRAME_W),
}
KW = {"unbroken": {}, "dungeon_crawler": {"num_players": 4}}


def played_states(game, seed, n_steps):
    """Records of a heuristic game: the start and after each of ``n_steps`` decisions."""
    core = get_spec(game).make_core(**KW[game])
    from dungeonrl.agents.policy import make_agent

    agent = make_agent("heuristic", core, seed=seed)
    buf = Batch(core, 1)
    buf.reset(seed_batch(seed, 1))
    rows = np.zeros(1, np.int64)
    out = [buf.states[0].copy()]
    for _ in range(n_steps):
        if core.is_over(buf.states[0]):
            break
        buf.players[:] = np.maximum(core.to_play(buf.states), 0)
        core.observe(buf.states, buf.players, buf.obs)
        buf.actions[:] = agent.act(buf, rows)
        core.step(buf.states, buf.actions, buf.rewards, buf.terminated, buf.truncated, buf.illegal)
        core.legal_mask(buf.states, buf.masks)
        out.append(buf.states[0].copy())
    return core, out


def n_colours(img):
    flat = img.reshape(-1, 3).astype(np.uint32)
    return len(np.unique(flat[:, 0] << 16 | flat[:, 1] << 8 | flat[:, 2]))


@pytest.fixture(scope="module", params=["unbroken", "dungeon_crawler"])
def game_states(request):
    core, states = played_states(request.param, 3, 60)
    return request.param, core, states


def test_frames_are_pictures(game_states):
    game, core, states = game_states
    assert "rgb_array" in core.spec.render_modes
    for s in states[:: max(1, len(states) // 8)]:
        img = core.render_rgb(s)
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8
        assert img.shape == SIZES[game] + (3,) and img.flags.c_contiguous
        assert n_colours(img) > 200  # text, bars and panels, not a few flat blocks
        assert img.std() > 20


def test_same_state_same_frame_different_state_different_frame(game_states):
    game, core, states = game_states
    a = core.render_rgb(states[10])
    assert np.array_equal(a, core.render_rgb(states[10].copy()))
    differing = sum(not np.array_equal(a, core.render_rgb(s)) for s in states[11:20])
    assert differing == len(states[11:20])  # every decision changes the picture


def test_frame_ignores_hidden_fields_but_shows_public_ones(game_states):
    game, core, states = game_states
    s = states[len(states) // 2].copy()
    base = core.render_rgb(s)
    hidden = s.copy()
    hidden["rng"] = hidden["rng"] + np.uint64(12345)
    deck, n = ("enc_deck", "enc_deck_n") if game == "unbroken" else ("card_deck", "card_deck_n")
    k = int(hidden[n])
    hidden[deck][:k] = hidden[deck][:k][::-1]  # another undrawn order
    hidden["forced"][:] = 5
    hidden["forced_n"] = 3
    if game == "dungeon_crawler":  # another hand of the same size, an offer's contents
        for h in range(int(hidden["num_players"])):
            n_h = int(hidden["hand_n"][h])
            hidden["hand"][h] = 0
            hidden["hand"][h, 0] = n_h
        hidden["offer"][:] = hidden["offer"][::-1]
    assert np.array_equal(base, core.render_rgb(hidden))
    public = s.copy()
    if game == "unbroken":
        public["res"][4] = (int(public["res"][4]) + 3) % (int(core.T.bars[4]) + 1)
    else:
        public["gold"][1] = int(public["gold"][1]) + 7
    assert not np.array_equal(base, core.render_rgb(public))


def test_dungeon_crawler_frame_fits_eight_heroes():
    core, states = played_states("dungeon_crawler", 1, 0)
    core8 = get_spec("dungeon_crawler").make_core(num_players=8)
    st = core8.alloc(1)
    core8.reset(st, np.array([1], np.uint64))
    img = core8.render_rgb(st[0])
    assert img.shape == SIZES["dungeon_crawler"] + (3,)
    # each hero's colour is on the picture (token and row swatch)
    for c in dc_render.HERO_COLORS:
        assert (img.reshape(-1, 3) == np.array(c, np.uint8)).all(axis=1).sum() > 30
    assert DC.MAX_P == len(dc_render.HERO_COLORS)


def test_gym_env_rgb_array_after_reset_and_step():
    env = DungeonEnv("unbroken", render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    obs, info = env.reset(seed=0)
    f0 = env.render()
    assert f0.dtype == np.uint8 and f0.shape == SIZES["unbroken"] + (3,)
    a = int(np.flatnonzero(info["action_mask"])[0])
    env.step(a)
    f1 = env.render()
    assert f1.shape == f0.shape and not np.array_equal(f0, f1)
    f1[:] = 0  # a fresh array each call
    assert env.render().any()
    env.close()


def test_gym_make_rgb_array():
    env = gym.make("dungeonrl/Unbroken-v0", render_mode="rgb_array")
    env.reset(seed=1)
    assert env.render().shape == SIZES["unbroken"] + (3,)
    env.close()


def test_pettingzoo_rgb_array():
    env = DungeonAECEnv("dungeon_crawler", render_mode="rgb_array", num_players=3)
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.shape == SIZES["dungeon_crawler"] + (3,)
    env.close()


@pytest.mark.skipif(
    importlib.util.find_spec("moviepy") is None,
    reason="RecordVideo needs moviepy (pip install moviepy)",
)
def test_record_video_wrapper(tmp_path):
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(
        gym.make("dungeonrl/Unbroken-v0", render_mode="rgb_array"),
        str(tmp_path / "videos"),
        episode_trigger=lambda e: True,
        disable_logger=True,
    )
    obs, info = env.reset(seed=0)
    for _ in range(15):
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, r, term, trunc, info = env.step(a)
        if term or trunc:
            break
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


# --- agents.commands.record -----------------------------------------------------------------------
@pytest.mark.parametrize("game", ["unbroken", "dungeon_crawler"])
def test_record_gif_frame_count(tmp_path, game):
    out = tmp_path / f"{game}.gif"
    rec = record(
        game,
        "heuristic",
        seed=2,
        out=out,
        max_frames=12,
        scale=0.5,
        **({"players": 3} if game == "dungeon_crawler" else {}),
    )
    assert rec.frames == 12 and rec.decisions == 11 and not rec.finished
    with Image.open(out) as im:
        assert im.format == "GIF" and im.n_frames == 12
        assert im.size == (SIZES[game][1] // 2, SIZES[game][0] // 2)


def test_record_whole_game_stride_and_determinism(tmp_path):
    rec = record(
        "unbroken", "random", seed=5, out=tmp_path / "a.gif", max_frames=None, stride=5, scale=0.25
    )
    assert rec.finished and rec.info["outcome"] in ("win", "loss")
    assert rec.frames == 1 + -(-rec.decisions // 5)  # start, every 5th, and the last
    with Image.open(tmp_path / "a.gif") as im:
        assert im.n_frames == rec.frames
    f1 = list(play_frames("unbroken", "random", 5, max_frames=8))
    f2 = list(play_frames("unbroken", "random", 5, max_frames=8))
    assert len(f1) == 8 and all(np.array_equal(a, b) for a, b in zip(f1, f2))
    f3 = list(play_frames("unbroken", "random", 6, max_frames=8))
    assert not all(np.array_equal(a, b) for a, b in zip(f1, f3))


def test_record_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match=".gif, .mp4 or .png"):
        record("unbroken", "heuristic", 0, tmp_path / "x.avi")
    with pytest.raises(ValueError, match="one-player"):
        record("unbroken", "heuristic", 0, tmp_path / "x.gif", players=3)
    with pytest.raises(ValueError, match="does not exist"):
        record("unbroken", "heuristic", 0, tmp_path / "no" / "x.gif")
    with pytest.raises(ValueError, match="fps"):
        record("unbroken", "heuristic", 0, tmp_path / "x.gif", fps=0)
    with pytest.raises(FileNotFoundError, match="unknown agent"):
        record("unbroken", "alphazero", 0, tmp_path / "x.gif")
    assert not list(tmp_path.iterdir())  # nothing written on a bad call


def test_record_mp4(tmp_path):
    have = all(importlib.util.find_spec(m) for m in ("imageio", "imageio_ffmpeg"))
    out = tmp_path / "u.mp4"
    if not have:
        with pytest.raises(RuntimeError, match="imageio-ffmpeg"):
            record("unbroken", "heuristic", 0, out, max_frames=5)
        return
    rec = record("unbroken", "heuristic", 0, out, max_frames=6, hold=0)
    assert rec.frames == 6 and out.stat().st_size > 1000


def test_vector_envs_render_frames():
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv, DungeonVectorEnv

    env = DungeonVectorEnv("unbroken", num_envs=2, render_mode="rgb_array")
    env.reset(seed=0)
    frames = env.render()
    assert len(frames) == 2 and all(f.shape == SIZES["unbroken"] + (3,) for f in frames)
    venv = DungeonSB3VecEnv("unbroken", num_envs=2, render_mode="rgb_array")
    venv.reset()
    imgs = venv.get_images()
    assert len(imgs) == 2 and imgs[0].dtype == np.uint8 and imgs[0].shape[2] == 3


def test_readme_pictures_exist_and_are_small():
    import pathlib

    folder = pathlib.Path(__file__).resolve().parents[2] / "docs" / "img"
    for game in ("unbroken", "dungeon_crawler"):
        for ext, fmt in ((".png", "PNG"), (".gif", "GIF")):
            f = folder / (game + ext)
            assert f.exists() and f.stat().st_size < 1.5 * 2**20, f
            with Image.open(f) as im:
                assert im.format == fmt
                if fmt == "PNG":
                    assert im.size == (SIZES[game][1], SIZES[game][0])
                else:
                    assert im.n_frames >= 20


def test_gymnasium_checker_accepts_rgb_array():
    import warnings

    from gymnasium.utils.env_checker import check_env

    env = gym.make("dungeonrl/Unbroken-v0", render_mode="rgb_array").unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no render warning either
        check_env(env, skip_render_check=False)
    env.close()
