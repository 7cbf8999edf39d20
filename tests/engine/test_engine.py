"""The shared engine: generated kernels stay in step with the template, the
header and the chance module behave as documented."""

import numpy as np
import pytest

from dungeonrl.envs.core.kernel import chance, codegen, freshness
from dungeonrl.envs.core.kernel.header import HEADER_NAMES, O_GAME, state_dtype
from dungeonrl.envs.core.kernel.rng import rng_seed

ALL = list(codegen.GAME_PACKAGES) + [
    "helpers.fixture_game:KERNEL_FACTS",
    "helpers.fixture_team:KERNEL_FACTS",
]


@pytest.mark.parametrize("game", ALL)
def test_the_loaded_kernels_are_what_the_template_generates(game):
    """The kernel module a core gets (``load_kernels``: written on first use,
    regenerated on import once stale) is exactly what the template generates
    now, its source digest included, and sits where the generator writes it
    (a stable path: numba's disk cache is kept beside it)."""
    k = freshness.load_kernels(game)
    path = codegen.kernel_path(game)
    assert k.__file__ == str(path) and k.KERNEL_KEY == game
    assert codegen.stale([game]) == []
    assert path.read_text() == codegen.source(game)


def test_codegen_check_names_a_stale_file(tmp_path, monkeypatch):
    facts = codegen.facts_of("unbroken")
    src = codegen.generate(facts)
    assert "def step_autoreset(" in src and "def random_rollout(" in src
    assert ("import policy_row" in src) == facts.has_policy
    fake = tmp_path / "kernels.py"
    monkeypatch.setattr(codegen, "kernel_path", lambda g: fake)
    assert codegen.stale(["unbroken"]) == []  # not written yet: written on first use
    assert codegen.main(["--check", "unbroken"]) == 0 and not fake.exists()
    fake.write_text(src + "\n# edited by hand\n")
    assert codegen.stale(["unbroken"]) == ["unbroken"]
    assert codegen.main(["--check", "unbroken"]) == 1
    assert codegen.write(["unbroken"]) == [str(fake)] and fake.read_text() == src
    assert codegen.stale(["unbroken"]) == [] and codegen.write(["unbroken"]) == []


def test_header_comes_first_and_game_fields_may_not_clash():
    dt = state_dtype([("hp", np.int16)], 5)
    assert dt.names[: len(HEADER_NAMES)] == HEADER_NAMES
    assert dt["legal"].shape == (5,)
    with pytest.raises(ValueError, match="clash"):
        state_dtype([("steps", np.int16)], 5)


def _record():
    st = np.zeros(1, state_dtype([("x", np.int8)], 2))
    rng_seed(st[0]["rng"], np.uint64(7), np.uint64(0))
    return st


def test_forced_results_come_first_then_the_generator():
    st = _record()
    chance.force(st[0], [6, 1, 9, 0])
    got = [chance.roll(st[0], 6) for _ in range(4)]
    assert got == [6, 1, 6, 1]  # out-of-range forced values are clamped
    assert int(st[0]["forced_i"]) == 4
    free = [chance.roll(st[0], 6) for _ in range(200)]
    assert set(free) == {1, 2, 3, 4, 5, 6}
    chance.force(st[0], [3])
    assert chance.below(st[0], 10) == 3 and 0 <= chance.below(st[0], 10) < 10


def test_pick_and_shuffle_are_never_forced_and_replay_from_a_snapshot():
    st = _record()
    chance.force(st[0], [2, 2, 2])
    snap = st.copy()
    a = [chance.pick(st[0], 1000) for _ in range(3)]
    arr = np.arange(20, dtype=np.int16)
    chance.shuffle(st[0], arr, 20)
    assert int(st[0]["forced_i"]) == 0  # the queue was not touched
    st[:] = snap
    assert [chance.pick(st[0], 1000) for _ in range(3)] == a
    arr2 = np.arange(20, dtype=np.int16)
    chance.shuffle(st[0], arr2, 20)
    assert np.array_equal(arr, arr2) and sorted(arr.tolist()) == list(range(20))


def test_force_rejects_what_the_queue_cannot_hold():
    st = _record()
    with pytest.raises(ValueError):
        chance.force(st[0], list(range(17)))
    with pytest.raises(ValueError):
        chance.force(st[0], [-1])


def test_game_outcomes_start_after_the_engine_ones():
    from dungeonrl.envs.dungeon_crawler import consts as DC
    from dungeonrl.envs.unbroken import consts as UB

    assert min(UB.O_WIN, UB.O_LOSS, DC.O_WIN) >= O_GAME
    assert UB.OUTCOME_NAMES[UB.O_TRUNCATED] == DC.OUTCOME_NAMES[DC.O_TRUNCATED] == "truncated"


@pytest.mark.parametrize(
    "game, kwargs",
    [("fixture", {}), ("unbroken", {}), ("dungeon_crawler", {"num_players": 3, "max_steps": 120})],
)
def test_random_rollout_rules_plays_the_same_games_without_observations(game, kwargs):
    """``random_rollout_rules`` (the benchmarks' "rules alone") takes the same
    random actions as ``random_rollout`` and leaves the same records, masks
    and statistics; it only skips the observation."""
    from dungeonrl.envs.core.common import resolve_core

    if game == "fixture":
        from helpers.fixture_game import make_core

        core = make_core(**kwargs)
    else:
        core = resolve_core(game, kwargs)
    n = 8
    a, b = core.alloc(n), core.alloc(n)
    core.reset(a, np.arange(n, dtype=np.uint64))
    core.reset(b, np.arange(n, dtype=np.uint64))
    obs = np.full((n, core.spec.obs_size), -7.0, np.float32)
    ma, mb = (np.zeros((n, core.spec.num_actions), np.uint8) for _ in range(2))
    sa, sb = np.zeros(4, np.int64), np.zeros(4, np.int64)
    core.random_rollout(a, 300, 5, obs, ma, sa)
    core.random_rollout_rules(b, 300, 5, mb, sb)
    assert sa[0] == sb[0] == 300 * n and sa[1] > 0 and sa[3] == 0
    np.testing.assert_array_equal(sa, sb)
    np.testing.assert_array_equal(ma, mb)
    assert a.tobytes() == b.tobytes()
    assert (obs != -7.0).any()  # the full rollout did write observations
