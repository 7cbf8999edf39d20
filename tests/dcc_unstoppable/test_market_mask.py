"""The one-pass market legality of ``rules.market_legal`` (the speed path
of ``legal_row``) gives exactly the answer of ``main_can_act``, which
checks ``can_receive`` card by card, on states from random play with
varied gold (so every price boundary is crossed)."""

from __future__ import annotations

import numpy as np

from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable import rules as R
from dungeonrl.envs.dcc_unstoppable.core import DCCCore


def test_market_mask_matches_card_by_card_check():
    rng = np.random.default_rng(5)
    checked = buyable = 0
    for klass in ("Merchant", "Scout"):  # with and without the class discount
        core = DCCCore(num_players=1, race="Human", klass=klass)
        T = core.TR[0]
        n = 32
        st = core.alloc(n)
        core.reset(st, np.arange(n, dtype=np.uint64))
        obs = np.zeros((n, core.spec.obs_size), np.float32)
        masks = np.zeros((n, C.NUM_ACTIONS), np.uint8)
        stats = np.zeros(4, np.int64)
        for k in range(12):
            core.random_rollout(st, 7, k, obs, masks, stats)
            for i in range(n):
                s = st[i]
                if s["phase"] != C.PH_MAIN or s["dec"] != C.DEC_NONE:
                    continue
                for g in rng.integers(0, 9, 3):
                    rec = st[i : i + 1].copy()
                    rec["gold"][0, 0] = g
                    mask = np.zeros(C.NUM_ACTIONS, np.uint8)
                    R.market_legal(rec[0], T, 0, mask)
                    for m in range(C.MARKET_SIZE):
                        want = R.main_can_act(rec[0], T, 0, C.A_BUY0 + m)
                        assert bool(mask[C.A_BUY0 + m]) == want, (klass, i, int(g), m)
                        buyable += want
                        checked += 1
    assert checked > 500 and 0 < buyable < checked
