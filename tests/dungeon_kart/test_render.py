"""Dungeon Kart rendering: text and picture of real game states."""

import numpy as np
from helpers.kart_util import content, legal, new_state

from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart.render import COLOURS, describe_action, render_ansi, render_rgb


def test_ansi_and_rgb():
    ct = content()
    for tk in range(4):
        s = new_state(8, seed=tk, track=tk, ct=ct)
        st = s[0]
        text = render_ansi(st, ct)
        assert ct.track_names[tk] in text
        for p in range(8):
            assert f"player_{p}" in text
        img = render_rgb(st, ct)
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
        # every player's colour appears (karts and the panel swatches)
        flat = img.reshape(-1, 3)
        for p in range(8):
            assert (flat == np.array(COLOURS[p], np.uint8)).all(axis=1).any()
        for a in np.flatnonzero(legal(s, ct)):
            assert describe_action(st, ct, int(a))
    assert describe_action(st, ct, C.A_SPEED + 2) == "speed up"
