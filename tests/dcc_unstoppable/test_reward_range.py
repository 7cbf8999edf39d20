"""``spec.reward_range`` of Dungeon Crawler Carl: Unstoppable is true for
both reward modes: with ``reward="score"`` a won game pays its XP (well
above 1), never above the declared bound; ``winloss`` stays (-1, 1)."""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.envs.core.kernel.rng import rng_seed
from dungeonrl.envs.dcc_unstoppable import SPEC
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable import kernels as K
from dungeonrl.envs.dcc_unstoppable.core import DCCCore, max_score_reward


def test_winloss_range_and_registered_spec():
    assert SPEC.reward_range == (-1.0, 1.0)
    assert DCCCore(reward="winloss").spec.reward_range == (-1.0, 1.0)


def test_score_rewards_stay_in_the_declared_range():
    core = DCCCore(reward="score")
    lo, hi = core.spec.reward_range
    assert lo == -1.0 and hi == max_score_reward(core.content) > 1.0
    n = 64
    st = core.alloc(n)
    core.reset(st, np.arange(n, dtype=np.uint64))
    codes = np.full((n, K.MAX_SEATS), K.SCRIPTED_POLICY, np.int64)
    prng = np.zeros((n, 2), np.uint64)
    for i in range(n):
        rng_seed(prng[i], np.uint64(1), np.uint64(i))
    ret = np.zeros((n, K.MAX_SEATS), np.float32)
    length = np.zeros(n, np.int64)
    K.play_rows(st, core.TR, codes, prng, ret, length)
    won = st["outcome"] == C.O_WIN
    assert won.any()
    assert (ret[won, 0] > 1.0).all()  # the case the old (-1, 1) missed
    assert (ret[:, 0] >= lo).all() and (ret[:, 0] <= hi).all()
    np.testing.assert_array_equal(ret[won, 0], st["xp"][won])


def test_bad_reward_name():
    with pytest.raises(ValueError, match="reward"):
        DCCCore(reward="points")


def test_docs_state_the_difficulties_and_the_unscaled_score_reward():
    """The docstrings say what the code does: the four difficulty names of
    ``consts.DIFFICULTIES``, and ``reward="score"`` paying the raw XP of a
    win (not a value scaled into [-1, 1]; see the test above)."""
    import dungeonrl.envs.dcc_unstoppable as pkg

    doc = " ".join(DCCCore.__doc__.split())
    named = doc.split("``difficulty``")[1].split("``mode``")[0]
    assert [d for d in C.DIFFICULTIES if f'"{d}"' in named] == list(C.DIFFICULTIES)
    assert named.count('"') == 2 * len(C.DIFFICULTIES), named
    rewards = " ".join(pkg.__doc__.split("Rewards")[1].split("Episode end")[0].split())
    assert "[-1, 1]" not in rewards and "XP unscaled" in rewards
