"""The engine's small shared helpers that the games call with their own
facts (one place each, where the games once wrote the same lines)."""

import numpy as np
import pytest

from dungeonrl.envs.core.errors import CorruptStateError
from dungeonrl.envs.core.validate import Ctx


def test_seats_left_empty_names_the_first_field_off_its_empty_value():
    dtype = np.dtype([("hp", np.int16, (4,)), ("pos", np.int8, (4,))])
    s = np.zeros((), dtype)
    s["pos"][:] = -1
    s["hp"][:2] = 5
    s["pos"][:2] = 3
    ctx = Ctx(s, None, {}, "probe")
    ctx.seats_left_empty({"hp": 0, "pos": -1}, 2)  # seats 2..3 empty: passes
    s["pos"][3] = 0
    with pytest.raises(CorruptStateError, match=r"field 'pos'.*seats 2\.\.3 are not at the table"):
        ctx.seats_left_empty({"hp": 0, "pos": -1}, 2)


def test_players_option_builds_the_argparse_entry_of_num_players():
    import argparse

    from dungeonrl.envs.core.hooks import GameHooks, add_core_options, players_option

    flag, kwargs = players_option("seats, 2..8")
    assert flag == "--players" and kwargs["help"] == "seats, 2..8"
    parser = argparse.ArgumentParser()
    add_core_options(parser, GameHooks(core_options=(players_option("seats"),)))
    assert parser.parse_args(["--players", "3"]).num_players == 3
    assert parser.parse_args([]).num_players is None
