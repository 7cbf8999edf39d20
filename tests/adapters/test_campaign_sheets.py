"""Carl's campaign sheet (reset option ``campaign``) through every entry
point: the solo Gymnasium env, the native vector env, the SB3 VecEnv, the
co-op AEC and Parallel envs and the campaign wrapper take the same sheets
(each game started holds the sheet's carry-over) and refuse the same
invalid sheets with the same error, before anything changes. The vector env
refused every sheet once (it validated the options twice, and the second
check met its own output)."""

from __future__ import annotations

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the env ids)
from dungeonrl.envs import dcc_unstoppable_v1
from dungeonrl.envs.dcc_unstoppable import DCCCore
from dungeonrl.envs.dcc_unstoppable.campaign import DCCCampaignEnv

ENV_ID = "dungeonrl/DCCUnstoppable-v1"
#: the record fields a sheet fills (``configure_row``)
CAMP_FIELDS = ("camp_xp", "camp_ben", "camp_ach", "camp_deck", "camp_upg")

SHEETS = [
    {},
    {"xp": 10},
    {"benefits": [1]},
    {"achievements": [[1, 0, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0]]},
    {"decks": [["Strike", "Rest", "Haymaker"]], "xp": 3},
    {"decks": [["Strike"]], "upgrades": [[(0, "Serrated Edge")]]},
]

DICT = "reset option 'campaign' must be a dict (xp, benefits, achievements, decks, upgrades)"
BAD_SHEETS = [
    (3, DICT + ", got int"),
    (None, DICT + ", got NoneType"),
    ([("xp", 1)], DICT + ", got list"),
    ({"gold": 1}, "unknown campaign keys ['gold']"),
    ({"xp": -1}, "campaign sheet: xp must be in [0, 32767], got -1"),
    ({"xp": 1.5}, "campaign sheet: xp must be an int in [0, 32767], got float 1.5"),
    ({"decks": [["No Such Card"]]}, "decks[0][0] is 'No Such Card', which is no core card"),
    ({"decks": [["Strike"]], "upgrades": [[(0, "Nope")]]}, "upgrades[0][0][1] is 'Nope'"),
    ({"achievements": [[2, 0, 0, 0]] + [[0] * 4] * 2}, "achievements[0][0] must be a flag"),
]


class Entry:
    """One entry point: ``reset(sheet)`` starts games from the sheet, and
    ``records()`` are the records of the games it started."""

    players = 1

    def reset(self, sheet) -> None:
        raise NotImplementedError

    def records(self) -> np.ndarray:
        raise NotImplementedError


class Solo(Entry):
    def __init__(self):
        self.env = gym.make(ENV_ID, mode="campaign")

    def reset(self, sheet):
        self.env.reset(seed=4, options={"campaign": sheet})

    def records(self):
        return self.env.unwrapped._buf.states


class Vector(Entry):
    def __init__(self):
        self.env = gym.make_vec(ENV_ID, num_envs=3, mode="campaign")

    def reset(self, sheet):
        self.env.reset(seed=4, options={"campaign": sheet})

    def records(self):
        return self.env.unwrapped._run.buf.states


class SB3(Entry):
    def __init__(self):
        pytest.importorskip("stable_baselines3")
        from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv

        self.env = DungeonSB3VecEnv(ENV_ID, 3, mode="campaign")

    def reset(self, sheet):
        self.env.seed(4)
        self.env.set_options({"campaign": sheet})
        self.env.reset()

    def records(self):
        return self.env._run.buf.states


class AEC(Entry):
    players = 2

    def __init__(self):
        self.env = dcc_unstoppable_v1.env(mode="campaign")

    def reset(self, sheet):
        self.env.reset(seed=4, options={"campaign": sheet})

    def records(self):
        return self.env.unwrapped.batch.states


class Parallel(Entry):
    players = 2

    def __init__(self):
        self.env = dcc_unstoppable_v1.parallel_env(mode="campaign")

    def reset(self, sheet):
        self.env.reset(seed=4, options={"campaign": sheet})

    def records(self):
        return self.env.unwrapped._aec.batch.states


class Campaign(Entry):
    def __init__(self):
        self.env = DCCCampaignEnv()

    def reset(self, sheet):
        self.env.reset(seed=4, options={"campaign": sheet})

    def records(self):
        return self.env._env._buf.states


ENTRIES = [Solo, Vector, SB3, AEC, Parallel, Campaign]


def _expected(sheet, players: int) -> np.ndarray:
    """The carry-over fields of a game whose core was built with the sheet
    (the constructor's ``campaign`` argument, another way in)."""
    core = DCCCore(num_players=players, mode="campaign", campaign=sheet)
    st = core.alloc(1)
    core.reset(st, np.array([4], np.uint64))
    return st[0]


@pytest.fixture(params=ENTRIES, ids=lambda c: c.__name__)
def entry(request):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the env checker's notes on the wrapped env
        return request.param()


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda s: ",".join(s) or "blank")
def test_every_entry_point_takes_the_sheet(entry, sheet):
    entry.reset(sheet)
    want = _expected(sheet, entry.players)
    records = entry.records()
    assert len(records)
    for st in records:
        for f in CAMP_FIELDS:
            assert np.array_equal(st[f], want[f]), f"{f}: {st[f]} != {want[f]}"
        assert int(st["cfg_mode"]) == int(want["cfg_mode"])


@pytest.mark.parametrize(
    "sheet,message",
    BAD_SHEETS,
    ids=[type(s).__name__ + str(i) for i, (s, _) in enumerate(BAD_SHEETS)],
)
def test_every_entry_point_refuses_a_bad_sheet_the_same_way(entry, sheet, message):
    """The same error from every entry point, raised before anything
    changed (the games started from the last good sheet stay as they were)."""
    entry.reset({"xp": 7})
    before = entry.records().tobytes()
    with pytest.raises(ValueError, match=re.escape(message)):
        entry.reset(sheet)
    assert entry.records().tobytes() == before


def test_the_vector_env_of_the_issue():
    """The call of the report, as it was written."""
    envs = gym.make_vec(ENV_ID, num_envs=3, mode="campaign")
    obs, info = envs.reset(seed=0, options={"campaign": {"xp": 10}})
    assert obs.shape[0] == 3
    assert envs.unwrapped._run.buf.states["camp_xp"].tolist() == [10, 10, 10]
    envs.step(np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]]))


def test_a_self_play_vector_env_takes_the_sheet():
    """A vector env over a co-op self-play view hands its validated options
    to the view (validated once)."""
    from dungeonrl.agents.policy import RandomAgent
    from dungeonrl.envs.core.adapters.selfplay import SelfPlayView
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    core = DCCCore(num_players=2, mode="campaign")
    view = SelfPlayView(core, 2, [RandomAgent(seed=0)])
    envs = DungeonVectorEnv(view)
    envs.reset(seed=1, options={"campaign": {"xp": 6}})
    assert view.states["camp_xp"].tolist() == [6, 6]
