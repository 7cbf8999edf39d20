"""The fused step on several threads (``Batch(num_threads=k)``,
``envs/core/_threads.py``).

* the rows are split into contiguous slices, each at least ``MIN_ROWS``
  long, covering every row once;
* for every game and seat count, a batch stepped on three threads and one
  stepped on one thread hold the same games, step after step, byte for
  byte (records, observations, masks, rewards, ends, final observations
  and records), with the float32 and the compact observation; the split
  really runs on three threads;
* an error in any slice is raised after every slice finished;
* copies and pickles get threads of their own; ``close`` stops them and
  the next step starts them again;
* the vector envs (``num_threads``) give the same steps as with one
  thread; bad values raise naming the argument; a self-play view refuses
  threads.
"""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest

from dungeonrl.benchmarks.suite.games import make_core
from dungeonrl.envs.core._threads import MIN_ROWS, RowSplitter, row_splits
from dungeonrl.envs.core.adapters.selfplay import SelfPlayView
from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv
from dungeonrl.envs.core.batch import Batch
from dungeonrl.registry import get_spec

CONFIGS = [
    ("unbroken", 1),
    ("dungeon_crawler", 2),
    ("dungeon_crawler", 8),
    ("dungeon_kart", 4),
    ("dcc_unstoppable", 1),
    ("dcc_unstoppable", 2),
]
N = 3 * MIN_ROWS + 5  # three slices of 64-65 rows


def test_row_splits_cover_every_row_once_in_long_enough_slices():
    for n in range(1, 5 * MIN_ROWS + 3):
        for k in range(1, 7):
            splits = row_splits(n, k)
            if not splits:
                assert k == 1 or n < 2 * MIN_ROWS
                continue
            assert 2 <= len(splits) <= k
            assert splits[0][0] == 0 and splits[-1][1] == n
            assert all(a[1] == b[0] for a, b in zip(splits, splits[1:]))
            sizes = [hi - lo for lo, hi in splits]
            assert min(sizes) >= MIN_ROWS and max(sizes) - min(sizes) <= 1
            assert len(splits) == min(k, n // MIN_ROWS)


def _pair(core, dtype, seed):
    one, many = Batch(core, N, dtype), Batch(core, N, dtype, num_threads=3)
    seeds = np.arange(N, dtype=np.uint64) + np.uint64(seed)
    one.reset(seeds)
    many.reset(seeds)
    return one, many


def _same_records(x: np.ndarray, y: np.ndarray, where) -> None:
    # field by field: a record's tail padding bytes carry no value
    for name in x.dtype.names:
        assert np.array_equal(x[name], y[name]), (name, where)


def _same(a: Batch, b: Batch, where) -> None:
    _same_records(a.states, b.states, where)
    for name in ("obs", "masks", "rewards", "terminated", "truncated", "illegal", "players_out"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), (name, where)
    done = a.terminated | a.truncated
    assert np.array_equal(a.final_obs[done], b.final_obs[done]), where
    _same_records(a.final_states[done], b.final_states[done], where)


@pytest.mark.parametrize("game,players", CONFIGS, ids=[f"{g}-{p}p" for g, p in CONFIGS])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_three_threads_step_the_same_games_as_one(game, players, dtype):
    core = make_core(get_spec(game), players)
    one, many = _pair(core, dtype, 11)
    rng = np.random.default_rng(5)
    threads: set = set()
    ends = 0
    for t in range(80):
        act = (rng.random(one.masks.shape) * (one.masks != 0)).argmax(1)
        one.actions[:] = act
        many.actions[:] = act
        one.fused_step()
        many.fused_step()
        if t == 0:  # bound now: watch which threads run the slices
            real = many._fns["step_autoreset"]

            def spy(*args, real=real):
                threads.add(threading.get_ident())
                real(*args)

            many._fns["step_autoreset"] = spy
        _same(one, many, (game, players, dtype, t))
        ends += int((one.terminated | one.truncated).sum())
    assert len(many._split.splits) == 3 and len(threads) == 3
    if game in ("unbroken", "dcc_unstoppable"):  # games that end within 80 random steps
        assert ends > 0
    many.close()


def test_an_error_in_any_slice_is_raised_after_all_slices_ran():
    ran = []

    def fn(tabs, rows):
        ran.append(int(rows[0]))
        if rows[0] == 100:
            raise RuntimeError("slice 2 failed")

    split = RowSplitter(row_splits(300, 3))
    with pytest.raises(RuntimeError, match="slice 2 failed"):
        split.run(fn, (None, np.arange(300)), whole=(0,))
    assert sorted(ran) == [0, 100, 200]
    split.close()


def test_small_batches_step_on_the_calling_thread():
    core = make_core(get_spec("unbroken"), 1)
    assert Batch(core, 2 * MIN_ROWS - 1, num_threads=8)._split is None
    assert Batch(core, 4096)._split is None  # one thread by default
    assert len(Batch(core, 4096, num_threads=8)._split.splits) == 8


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_get_threads_of_their_own(how):
    core = make_core(get_spec("dcc_unstoppable"), 1)
    one, many = _pair(core, "float32", 2)
    for b in (one, many):
        b.actions[:] = b.masks.argmax(1)
        b.fused_step()
    c = copy.deepcopy(many) if how == "deepcopy" else pickle.loads(pickle.dumps(many))
    assert c.num_threads == 3 and c._split is not many._split
    many.close()  # stops the original's workers; the next step starts them again
    for b in (one, many, c):
        b.actions[:] = b.masks.argmax(1)
        b.fused_step()
    _same(one, many, how)
    _same(one, c, how)
    c.close()
    many.close()


@pytest.mark.parametrize("bad", [0, -1, 257, True, 2.0, "2", None])
def test_a_bad_num_threads_is_refused_naming_it(bad):
    core = make_core(get_spec("unbroken"), 1)
    with pytest.raises((TypeError, ValueError), match="num_threads"):
        Batch(core, 4, num_threads=bad)
    with pytest.raises((TypeError, ValueError), match="num_threads"):
        DungeonVectorEnv("unbroken", num_envs=4, num_threads=bad)


def test_a_self_play_view_refuses_threads():
    core = make_core(get_spec("dungeon_crawler"), 2)
    view = SelfPlayView(core, 4, ["random"])
    with pytest.raises(ValueError, match="num_threads"):
        DungeonVectorEnv(view, num_threads=2)


def test_vector_env_on_threads_steps_like_one_thread():
    kw = dict(num_envs=N, obs_dtype="float16")
    a = DungeonVectorEnv("dcc_unstoppable", **kw)
    b = DungeonVectorEnv("dcc_unstoppable", num_threads=2, **kw)
    oa, ia = a.reset(seed=9)
    ob, ib = b.reset(seed=9)
    assert np.array_equal(oa, ob)
    rng = np.random.default_rng(0)
    for _ in range(40):
        m = ia["action_mask"]
        act = (rng.random(m.shape) * (m != 0)).argmax(1)
        oa, ra, ta, ua, ia = a.step(act)
        ob, rb, tb, ub, ib = b.step(act)
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb)
        assert np.array_equal(ta, tb) and np.array_equal(ua, ub)
        assert np.array_equal(ia["action_mask"], ib["action_mask"])
        if "final_obs" in ia:
            assert np.array_equal(ia["_final_obs"], ib["_final_obs"])
            for x, y in zip(ia["final_obs"][ia["_final_obs"]], ib["final_obs"][ib["_final_obs"]]):
                assert np.array_equal(x, y)
    assert b._run.buf._split is not None
    a.close()
    b.close()


def test_sb3_vec_env_on_threads_steps_like_one_thread():
    pytest.importorskip("stable_baselines3")
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv

    a = DungeonSB3VecEnv("unbroken", num_envs=N, seed=4)
    b = DungeonSB3VecEnv("unbroken", num_envs=N, seed=4, num_threads=2)
    oa, ob = a.reset(), b.reset()
    assert np.array_equal(oa, ob)
    rng = np.random.default_rng(1)
    for _ in range(30):
        m = np.stack(a.env_method("action_masks"))
        act = (rng.random(m.shape) * m).argmax(1)
        a.step_async(act)
        b.step_async(act)
        oa, ra, da, _ = a.step_wait()
        ob, rb, db, _ = b.step_wait()
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(da, db)
    a.close()
    b.close()
