"""The engine's helpers for a core's arguments, reset options and summary
(``envs/core/options.py``, ``envs/core/summary.py``, ``spec.one_team``)."""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.envs.core.errors import SnapshotError
from dungeonrl.envs.core.options import (
    ConfigOption,
    check_config_fields,
    config_option,
    name_arg,
    value_word,
)
from dungeonrl.envs.core.spec import one_team
from dungeonrl.envs.core.summary import field_summary


def test_name_arg_takes_exact_names_indices_and_words():
    names = ("normal", "hard")
    assert name_arg("hard", names, "difficulty") == 1
    assert name_arg(np.int64(0), names, "difficulty") == 0
    assert name_arg(None, names, "race", {None: -1}) == -1
    assert name_arg("draft", names, "race", {"draft": -1}) == -1
    for bad in ("Hard", True, 2, -1, 1.0, [0]):
        with pytest.raises(ValueError, match=r"difficulty must be one of \['normal', 'hard'\]"):
            name_arg(bad, names, "difficulty", {"draft": -1})


def test_config_option_is_checked_once_per_core():
    calls = []

    def make_cfg(value):
        calls.append(value)
        return np.array([value])

    core, other = object(), object()
    opt = config_option(core, 3, make_cfg)
    assert isinstance(opt, ConfigOption) and opt.owner is core and opt.cfg[0] == 3
    assert config_option(core, opt, make_cfg) is opt and calls == [3]
    with pytest.raises(TypeError):  # another core's token is a value to check again
        config_option(other, opt, lambda v: np.array([v + 1]))


def test_check_config_fields_names_the_field_and_both_values():
    rec = np.zeros(1, np.dtype([("mode", np.int8), ("seat", np.int8, 2)]))[0]
    rec["seat"][1] = -1
    check_config_fields(rec, {"mode": 0, "seat[1]": -1}, {})
    with pytest.raises(SnapshotError, match=r"mode is 0 \(arcade\) in the record, 1 \(campaign\)"):
        check_config_fields(rec, {"mode": 1}, {"mode": ("arcade", "campaign")})
    with pytest.raises(SnapshotError, match=r"seat\[1\] is -1 \(draft\) in the record, 4 in"):
        check_config_fields(rec, {"seat[1]": 4}, {"seat": {-1: "draft"}})
    assert value_word(7, ("a",)) == "7" and value_word(0, None) == "0"


def test_field_summary_reads_named_fields():
    info, batch = field_summary(("playing", "won"), level="lv")
    recs = np.zeros(3, np.dtype([("outcome", np.int8), ("lv", np.int16)]))
    recs["outcome"] = [1, 0, 9]
    recs["lv"] = [4, 5, 6]
    assert info(None, recs[0]) == {"outcome": "won", "level": 4}
    assert info(None, recs[2])["outcome"] == "?"
    cols = batch(None, recs, np.array([0, 2]))
    assert list(cols) == ["outcome", "level"]
    assert list(cols["outcome"][0]) == ["won", "?"] and list(cols["level"][0]) == [4, 6]


def test_one_team():
    assert one_team(1) == ((0,),) and one_team(3) == ((0, 1, 2),)
