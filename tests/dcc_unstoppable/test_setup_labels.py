"""Arcade setup's actions say what is on offer: ``keep the race NAME``,
``keep the class NAME`` and the portrait's preset by name, each the race or
class the rules then give the seat."""

from __future__ import annotations

import numpy as np

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.envs.core.batch import Batch
from dungeonrl.envs.core.common import resolve_core
from dungeonrl.envs.dcc_unstoppable import consts as C


def _setup(seed, pick):
    core = resolve_core("dcc_unstoppable", {})
    cc = core.content
    buf = Batch(core, 1)
    buf.reset(np.array([seed], np.uint64))
    st = buf.states[0]
    p = int(st["actor"])
    assert int(st["phase"]) == C.PH_RACE
    labels = {int(a): core.action_label(st, int(a)) for a in np.flatnonzero(st["legal"])}
    return core, cc, buf, p, labels


def test_race_and_class_labels_name_what_the_seat_keeps():
    core, cc, buf, p, labels = _setup(7, 0)
    race_actions = [a for a in labels if C.A_RACE0 <= a < C.A_RACE0 + 3]
    assert race_actions and all(labels[a].startswith("keep the race ") for a in race_actions)
    a = race_actions[-1]
    buf.actions[0] = a
    buf.step()
    st = buf.states[0]
    assert "keep the race " + cc.race_names[int(st["race"][p])] == labels[a]
    assert int(st["phase"]) == C.PH_CLASS
    legal = np.flatnonzero(st["legal"])
    cl = {int(a): core.action_label(st, int(a)) for a in legal}
    assert all(v.startswith("keep the class ") for v in cl.values())
    buf.actions[0] = int(legal[0])
    buf.step()
    got = cc.class_names[int(buf.states[0]["klass"][p])]
    assert cl[int(legal[0])] == "keep the class " + got


def test_preset_label_names_the_race_and_class():
    core, cc, buf, p, labels = _setup(3, 0)
    text = labels[C.A_PRESET]
    buf.actions[0] = C.A_PRESET
    buf.step()
    st = buf.states[0]
    race, klass = cc.race_names[int(st["race"][p])], cc.class_names[int(st["klass"][p])]
    assert text == f"take the portrait's preset: {race} {klass}"
