"""The search agent's compiled tree (issue 49 item 5): the game's
``search_run`` kernel (``envs/core/kernel/template.py``, its arrays in
``envs/core/kernel/tree.py``) builds the very tree the Python simulations
build, in every game and seat count, with heuristic and random rollouts,
a scripted ``opp`` and a tree that grows mid-decision; a decision does not
depend on the decisions searched before it; the raw-draw keyed sampler
and the record-type cache of the kernel calls give what they stand for."""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.agents.policy import make_agent
from dungeonrl.envs.core.batch import Batch
from dungeonrl.envs.core.common import resolve_core
from dungeonrl.envs.core.kernel import tree as T


def _decisions(game: str, players: int | None, n: int, seed: int = 0) -> np.ndarray:
    """Up to ``n`` records with more than one legal action, from heuristic
    play of seeded games (several points of each game)."""
    core = resolve_core(game, {} if players is None else {"num_players": players})
    heur = make_agent("heuristic", core, seed=0)
    buf = Batch(core, 4)
    buf.reset(np.arange(seed, seed + 4, dtype=np.uint64))
    out = []
    for step in range(400):
        if len(out) >= n:
            break
        live = np.flatnonzero(buf.states["outcome"] == 0)
        if not len(live):
            break
        if step % 7 == 3:
            out += [buf.states[r : r + 1].copy() for r in live if buf.masks[r].sum() > 1]
        buf.players[live] = buf.states["actor"][live]
        buf.refresh()
        buf.actions[:] = 0
        buf.actions[live] = heur.act(buf, live)
        buf.step()
    return core, np.concatenate(out[:n])


def _same_trees(core, text: str, states: np.ndarray, seed: int = 3) -> None:
    compiled = make_agent(text, core, seed=seed)
    python = make_agent(text, core, seed=seed)
    python.compiled = False
    assert compiled.compiled, f"{text} should run in the compiled tree"
    for r in range(len(states)):
        a = compiled.decide(states[r : r + 1])
        b = python.decide(states[r : r + 1])
        assert a == b, (text, r)
        assert np.array_equal(compiled.last_root_visits, python.last_root_visits), (text, r)
    assert compiled.simulations == python.simulations


@pytest.mark.parametrize(
    "game,players,text",
    [
        ("unbroken", None, "search?sims=40&rollout=random"),
        ("unbroken", None, "search?sims=33&rollouts=3&c=0.6"),
        ("dungeon_crawler", 2, "search?sims=24&rollouts=2"),
        ("dungeon_crawler", 4, "search?sims=20&rollouts=2&opp=random&rollout=random"),
        ("dungeon_kart", 2, "search?sims=24&rollouts=2&rollout=random"),
        ("dungeon_kart", 8, "search?sims=12&rollouts=1&opp=heuristic"),
        ("dcc_unstoppable", None, "search?sims=40&rollouts=2"),
        ("dcc_unstoppable", 2, "search?sims=24&rollouts=2&rollout=random"),
    ],
)
def test_the_compiled_tree_is_the_python_tree(game, players, text):
    """Same decisions and the same root visits, decision for decision:
    the kernel takes the decision generator's raw draws in the order the
    Python simulations draw them."""
    core, states = _decisions(game, players, 5)
    _same_trees(core, text, states)


def test_a_tree_that_grows_mid_decision_keeps_its_nodes():
    """Under a time budget the tree starts small and doubles (its children
    table rehashed); the simulations it ran give the same tree as the
    Python simulations under that many simulations."""
    core, states = _decisions("unbroken", None, 2)
    agent = make_agent("search?ms=150&rollout=random&rollouts=1", core, seed=2)
    agent.initial_nodes = 4
    agent.decide(states[:1])
    n = agent.last_simulations
    assert len(agent._tree["stats"]) > 4 and agent._ctl[T.C_NODES] > 4  # it grew
    ref = make_agent(f"search?sims={n}&rollout=random&rollouts=1", core, seed=2)
    ref.compiled = False
    ref.decide(states[:1])
    assert np.array_equal(agent.last_root_visits, ref.last_root_visits)


def test_a_decision_does_not_depend_on_the_decisions_before_it():
    """Each rollout's generator starts its stream afresh: an agent that
    searched other decisions first makes the same tree as a fresh one
    (before, a rollout's stream went on from the previous leaf's)."""
    core, states = _decisions("dungeon_kart", 2, 4)
    for compiled in (True, False):
        busy = make_agent("search?sims=30&rollouts=3&rollout=random", core, seed=9)
        fresh = make_agent("search?sims=30&rollouts=3&rollout=random", core, seed=9)
        busy.compiled = fresh.compiled = compiled
        for r in range(3):
            busy.decide(states[r : r + 1])
        fresh.decide(states[3:4])
        busy.decide(states[3:4])
        assert np.array_equal(busy.last_root_visits, fresh.last_root_visits), compiled


def test_a_network_search_stays_in_python():
    core = resolve_core("unbroken", {})
    assert not make_agent("search:pretrained:unbroken-normal?sims=2", core).compiled
    assert make_agent("search?sims=2", core).compiled


def test_the_keyed_sampler_is_the_generators_sample():
    """``resample_with_key(..., key)`` is the sample a generator whose next
    raw draw is ``key`` gives (the search takes its draws ahead)."""
    from dungeonrl.envs.core.infostate import resample_with_key

    core, states = _decisions("dungeon_crawler", 2, 2)
    rows = np.repeat(states[:1], 5)
    a = core.resample_from_infostate(rows, 0, np.random.default_rng(17))
    key = np.random.default_rng(17).bit_generator.random_raw()
    b = resample_with_key(core, rows, 0, key)
    assert a.tobytes() == b.tobytes()
    # a row's sample does not depend on how many rows are drawn with it
    c = resample_with_key(core, rows[:2], 0, key)
    assert c.tobytes() == b[:2].tobytes()


def test_the_padding_of_a_sample_is_zero():
    from dungeonrl.envs.core.infostate import _padding

    core, states = _decisions("unbroken", None, 1)
    dirty = states.copy()
    pad = _padding(core.state_dtype)
    assert len(pad)  # the aligned record has padding
    dirty.view(np.uint8).reshape(1, -1)[:, pad] = 0xAB
    a = core.resample_from_infostate(dirty, 0, 4)
    b = core.resample_from_infostate(states, 0, 4)
    assert a.tobytes() == b.tobytes()
    assert not a.view(np.uint8).reshape(1, -1)[:, pad].any()


def test_children_are_found_by_what_the_seat_sees_bit_for_bit():
    tr = T.tree_arrays(4, 3, 2)
    ctl = np.zeros(T.CTL_SIZE, np.int64)
    ctl[T.C_NODES] = 1
    obs = np.array([1.0, 2.0], np.float32).view(np.uint32)
    legal = np.array([1, 0, 1], np.int8)
    child, slot = T.find_child(
        tr["hkey"], tr["hval"], tr["key_obs"], tr["key_legal"], 0, 2, obs, legal
    )
    assert child == -1
    i = T.add_node(
        tr["stats"],
        tr["vals"],
        tr["key_obs"],
        tr["key_legal"],
        tr["hval"],
        ctl,
        slot,
        0,
        2,
        obs,
        legal,
        0.5,
    )
    assert i == 1 and tr["vals"][1].tolist() == [0.5, 1.0, 0.0]
    look = lambda parent, a, o, m: T.find_child(  # noqa: E731
        tr["hkey"], tr["hval"], tr["key_obs"], tr["key_legal"], parent, a, o, m
    )[0]
    assert look(0, 2, obs, legal) == 1
    assert look(0, 1, obs, legal) == -1  # another action
    assert look(1, 2, obs, legal) == -1  # another parent
    assert look(0, 2, np.array([1.0, -2.0], np.float32).view(np.uint32), legal) == -1
    assert look(0, 2, np.array([0.0, 2.0], np.float32).view(np.uint32), legal) == -1
    zero = np.array([0.0, 2.0], np.float32).view(np.uint32)
    j = T.add_node(
        tr["stats"],
        tr["vals"],
        tr["key_obs"],
        tr["key_legal"],
        tr["hval"],
        ctl,
        T.find_child(tr["hkey"], tr["hval"], tr["key_obs"], tr["key_legal"], 0, 2, zero, legal)[1],
        0,
        2,
        zero,
        legal,
        0.0,
    )
    assert look(0, 2, zero, legal) == j == 2
    # -0.0 == 0.0, but its bits differ: as the Python tree's byte keys, another child
    assert look(0, 2, np.array([-0.0, 2.0], np.float32).view(np.uint32), legal) == -1
    assert look(0, 2, obs, np.array([1, 1, 1], np.int8)) == -1
    # a larger table keeps every child findable
    big = T.tree_arrays(16, 3, 2)
    T.rehash(tr["hkey"], tr["hval"], big["hkey"], big["hval"])
    big["key_obs"][:4], big["key_legal"][:4] = tr["key_obs"], tr["key_legal"]
    assert (
        T.find_child(big["hkey"], big["hval"], big["key_obs"], big["key_legal"], 0, 2, obs, legal)[
            0
        ]
        == 1
    )


def test_a_record_arrays_type_is_cached_by_what_it_depends_on():
    from numba import typeof

    from dungeonrl.envs.core.kernel import fastcall

    core = resolve_core("unbroken", {})
    a, b = core.alloc(3), core.alloc(5)
    ta = fastcall._typeof(typeof, a)
    assert ta == typeof(a) and fastcall._typeof(typeof, b) is ta
    ro = core.alloc(2)
    ro.flags.writeable = False
    assert fastcall._typeof(typeof, ro) == typeof(ro) != ta  # read-only: another type
    sliced = core.alloc(6)[::2]
    assert fastcall._typeof(typeof, sliced) == typeof(sliced) != ta  # not contiguous
