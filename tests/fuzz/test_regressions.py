"""Shrunk snapshot-fuzz failures kept as fixed regression cases.

Each case is a record the state rules once accepted although the game could
never reach it, and which then broke later in play (a counter wrapped, a
field left its range). Here the same edit is made to a record reached by
seeded random play; loading it must either be refused with
``CorruptStateError`` or give a game on which every following random step
keeps passing ``check_state`` (the contract of ``tests/fuzz/test_snapshots.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.benchmarks.fuzz import REFUSED, GameEnv
from dungeonrl.envs.core.snapshot import Snapshot
from dungeonrl.envs.dungeon_crawler import consts as DC
from dungeonrl.envs.dungeon_crawler.validate import FIELD_RULES as DC_RULES


def _dc_max(field: str) -> int:
    """The largest value the state rules accept for ``field``."""
    return int(DC_RULES[field].hi)


def _dc_creating(rec):
    return rec["turn"] < 0 and rec["phase"] != DC.PH_OVER


def _dc_assigning_last(rec):
    """The last seat is placing its rolls, one roll already placed."""
    h = int(rec["actor"])
    return (
        rec["phase"] == DC.PH_ASSIGN
        and h == rec["num_players"] - 1
        and 0 < int((rec["rolled"][h] > 0).sum()) < DC.NSTAT
    )


def _dc_fighting(rec):
    return rec["cb_kind"] != DC.OPP_NONE and rec["phase"] != DC.PH_OVER


def _dcc_drafting(rec):
    from dungeonrl.envs.dcc_unstoppable import consts as C

    return rec["phase"] == C.PH_DRAFT


def _dk_turned(rec):
    """A kart moving after its free Turn, with no extra Turn left."""
    from dungeonrl.envs.dungeon_kart import consts as K

    return (
        rec["phase"] == K.PH_MOVE
        and rec["turn_used"] == 1
        and rec["extra_turns"] == 0
        and rec["mp"] >= 1
    )


def _dk_max(field: str) -> int:
    from dungeonrl.envs.dungeon_kart.validate import FIELD_RULES

    return int(FIELD_RULES[field].hi)


def _dk_drafting(rec):
    from dungeonrl.envs.dungeon_kart import consts as K

    return rec["phase"] == K.PH_DRAFT_RACER


def _dcc_after_main(rec):
    from dungeonrl.envs.dcc_unstoppable import consts as C

    return rec["phase"] == C.PH_CLEANUP


def _dcc_coop_second_seat_deciding(rec):
    """Co-op, the second seat in the middle of resolving its card's ops."""
    from dungeonrl.envs.dcc_unstoppable import consts as C

    return (
        rec["phase"] == C.PH_MAIN
        and rec["actor"] == 1
        and rec["dec"] != C.DEC_NONE
        and rec["pend_n"] > 0
    )


def _dcc_questing(rec):
    """Floor 3: a quest under way, on a part before its last."""
    from dungeonrl.envs.dcc_unstoppable.content import default_content

    nparts = default_content().tables.quest_nparts
    return rec["quest"] >= 0 and rec["quest_part"] + 1 < nparts[rec["quest"]]


def _dc_placed(rec):
    h = int(rec["actor"])
    return int(np.flatnonzero(rec["rolled"][h])[0])


# (id, game, config, when (a predicate on the reached record), edit(record))
CASES = [
    # a zeroed stat of a hero still placing its rolls: it finished with stats
    # that did not sum to its rolls
    (
        "dc-half-assigned-stat",
        "dungeon_crawler",
        {"num_players": 8},
        _dc_assigning_last,
        lambda r: r["base"].__setitem__((int(r["actor"]), _dc_placed(r)), 0),
    ),
    # a seated hero off the board before the first turn
    (
        "dc-pos-before-start",
        "dungeon_crawler",
        {"num_players": 2},
        _dc_creating,
        lambda r: r["pos"].__setitem__(1, -1),
    ),
    # the combat round counter at its largest value: the next round wrapped it
    (
        "dc-combat-round-max",
        "dungeon_crawler",
        {"num_players": 4, "auto_advance": False},
        _dc_fighting,
        lambda r: r.__setitem__("cb_round", _dc_max("cb_round")),
    ),
    # the episode statistics at their largest value
    (
        "dc-kills-max",
        "dungeon_crawler",
        {"num_players": 2},
        _dc_fighting,
        lambda r: (
            r["kills"].__setitem__(slice(0, 2), _dc_max("kills")),
            r["deaths"].__setitem__(slice(0, 2), _dc_max("deaths")),
        ),
    ),
    # Movement Points beyond the "no Turn left" sentinel of the mask: a Turn
    # was offered without one and the extra-Turn counter went to -1
    (
        "dk-mp-max",
        "dungeon_kart",
        {"num_players": 4, "auto_advance": False},
        _dk_turned,
        lambda r: r.__setitem__("mp", _dk_max("mp")),
    ),
    # "MP left when it crossed the line" on a seat still drafting: the race
    # began with a non-finisher holding finish MP
    (
        "dk-finish-mp-in-draft",
        "dungeon_kart",
        {"num_players": 3},
        _dk_drafting,
        lambda r: r["finish_mp"].__setitem__(1, 5),
    ),
    # the only crawler "descended this turn" outside the Main Phase
    (
        "dcc-solo-descended-after-main",
        "dcc_unstoppable",
        {},
        _dcc_after_main,
        lambda r: r["descended"].__setitem__(0, 1),
    ),
    # the only crawler "descended in an earlier turn" while the floor goes on
    (
        "dcc-solo-all-descended",
        "dcc_unstoppable",
        {},
        _dcc_drafting,
        lambda r: r["descended"].__setitem__(0, 2),
    ),
    # co-op: the acting seat switched while the other seat's card resolves;
    # the first seat then paid the second seat's spell and its mana went negative
    (
        "dcc-coop-actor-not-deciding-seat",
        "dcc_unstoppable",
        {"num_players": 2},
        _dcc_coop_second_seat_deciding,
        lambda r: r.__setitem__("actor", 0),
    ),
    # a quest's part index past its last part: finishing that part counted
    # it beyond the part count
    (
        "dcc-quest-part-past-last",
        "dcc_unstoppable",
        {"floor": 3},
        _dcc_questing,
        lambda r: r.__setitem__("quest_part", 4),
    ),
]


def _reach(env: GameEnv, when, seed: int = 0):
    """A snapshot of a record, reached by seeded random play, where ``when`` holds."""
    rng = np.random.default_rng(seed)
    for game in range(200):
        env.reset(seed + game)
        for _ in range(400):
            if when(env.record()):
                return env.snapshot()
            if env.play(rng, 1, check=False) == 0:
                break
    raise AssertionError("no reached record satisfies the case's condition")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_fuzz_regression(case):
    _, game, config, when, edit = case
    env = GameEnv(game, config)
    base = _reach(env, when)
    rec = np.frombuffer(base.state, dtype=env.core.state_dtype).copy()
    edit(rec[0])
    snap = Snapshot(
        game=base.game,
        layout_version=base.layout_version,
        state=rec.tobytes(),
        step_count=base.step_count,
        episode_return=base.episode_return,
        done=base.done,
    )
    try:
        env.restore(snap)
    except REFUSED:
        assert env.snapshot() == base
        return
    env.core.check_state(env.record())
    rng = np.random.default_rng(1)
    for _ in range(20):  # several games' worth of checked steps
        env.play(rng, 300)  # check_state after every step
        if env.record()["outcome"] != 0:
            break


def test_dcc_quest_part_past_last_refused():
    """The long fuzz profile's shrunk case (a co-op campaign record with the
    quest part moved past the quest's last part, which later counted it out
    of range) is refused by the state check itself, whether or not random
    play reaches the part's completion."""
    from dungeonrl.envs.core.errors import CorruptStateError

    env = GameEnv("dcc_unstoppable", {"floor": 3})
    base = _reach(env, _dcc_questing)
    rec = np.frombuffer(base.state, dtype=env.core.state_dtype).copy()
    env.core.check_state(rec[0])
    rec[0]["quest_part"] = 4
    with pytest.raises(CorruptStateError, match="quest_part"):
        env.core.check_state(rec[0])
