"""The draft's actions say what is on offer: ``take the Racer NAME`` /
``take the dashboard NAME`` for every legal pick, the k-th remaining offer
(what the rules give the seat for that action)."""

from __future__ import annotations

import numpy as np

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.envs.core.batch import Batch
from dungeonrl.envs.core.common import resolve_core
from dungeonrl.envs.dungeon_kart import consts as C


def test_pick_labels_name_what_the_seat_gets():
    core = resolve_core("dungeon_kart", {"num_players": 3})
    ct = core.content
    buf = Batch(core, 1)
    buf.reset(np.array([4], np.uint64))
    seen = {"racer": 0, "dashboard": 0}
    while int(buf.states[0]["phase"]) in (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH):
        st = buf.states[0]
        p = int(st["actor"])
        racer = int(st["phase"]) == C.PH_DRAFT_RACER
        legal = np.flatnonzero(st["legal"])
        labels = [core.action_label(st, int(a)) for a in legal]
        kind, names = ("Racer", ct.racer_names) if racer else ("dashboard", ct.dashboard_names)
        assert all(lbl.startswith(f"take the {kind} ") for lbl in labels), labels
        a = int(legal[-1])  # take the last one on offer and check the rules agree
        want = labels[-1].removeprefix(f"take the {kind} ")
        buf.actions[0] = a
        buf.step()
        got = buf.states[0]["racer" if racer else "dash"][p]
        assert names[int(got)] == want
        seen["racer" if racer else "dashboard"] += 1
    assert seen == {"racer": 3, "dashboard": 3}
