"""The team fixture "Relay" (``tests/helpers/fixture_team.py``): its rules with
forced chance (turn order decided by the state, draft, the tie, team
rewards), the declared game facts, validated reset options of every
registered game, the self-play view with teammates and placement ratings
(openskill)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import fixture_team as F

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl import registry
from dungeonrl.envs.core.kernel import chance
from dungeonrl.envs.core.spec import GameSpec

registry.register_module("helpers.fixture_team")


def _core(**kw):
    return F.make_core(**kw)


def _start(init, core=None, forced=()):
    """A reset game whose initiatives are ``init`` (forced d6 results) and
    whose next chance results are ``forced``."""
    core = core or _core()
    st = core.alloc(1)
    chance.force(st[0], list(init))
    core.reset(st, np.array([7], np.uint64))
    assert st[0]["init"].tolist() == list(init)
    if forced:
        chance.force(st[0], list(forced))
    return core, st


def _step(core, st, a):
    rew = np.zeros((1, 4), np.float32)
    te, tr, il = (np.zeros(1, np.bool_) for _ in range(3))
    core.step(st, np.array([a], np.int64), rew, te, tr, il)
    return rew[0].tolist(), bool(te[0]), bool(tr[0]), bool(il[0])


# --- rules ---------------------------------------------------------------------------------
def test_turn_order_is_decided_by_the_state():
    core, st = _start([2, 6, 6, 1])
    # all on square 0, no moves: the highest initiative goes first, a tie of
    # initiatives (seats 1 and 2) goes to the lower seat
    assert int(st[0]["actor"]) == 1
    _step(core, st, F.STEP)  # seat 1 -> square 1
    assert int(st[0]["actor"]) == 2
    _step(core, st, F.STEP)  # seat 2 -> square 1
    assert int(st[0]["actor"]) == 0  # init 2 beats init 1 (seat 3)
    _step(core, st, F.STEP)
    assert int(st[0]["actor"]) == 3  # the last one still on square 0
    chance.force(st[0], [3])
    _step(core, st, F.ROLL)  # seat 3 rolls 3 -> square 3
    assert st[0]["pos"].tolist() == [1, 1, 1, 3]
    # furthest behind moves next: seats 0, 1, 2 on square 1 with one move each
    assert int(st[0]["actor"]) == 1


def test_roll_uses_the_chance_module_and_draft_needs_a_teammate_ahead():
    core, st = _start([6, 5, 4, 3], forced=[3])
    assert int(st[0]["actor"]) == 0
    assert st[0]["legal"].tolist() == [1, 1, 0]  # nobody ahead: no draft
    _step(core, st, F.ROLL)  # forced 3
    assert int(st[0]["pos"][0]) == 3
    # seat 2 (seat 0's teammate) is now behind its teammate: draft is legal
    while int(st[0]["actor"]) != 2:
        _step(core, st, F.STEP)
    assert int(st[0]["pos"][2]) < int(st[0]["pos"][0])
    assert st[0]["legal"].tolist() == [1, 1, 1]
    before = int(st[0]["pos"][2])
    _step(core, st, F.DRAFT)
    assert int(st[0]["pos"][2]) == before + 2


def test_forced_roll_out_of_range_is_clamped_and_runners_stop_at_the_goal():
    core, st = _start([6, 5, 4, 3], forced=[9])
    _step(core, st, F.ROLL)
    assert int(st[0]["pos"][0]) == 3  # a d3: 9 is clamped to 3
    st[0]["pos"][0] = F.GOAL - 1
    core.refresh(st)
    st[0]["actor"] = 0
    chance.force(st[0], [3])
    _step(core, st, F.ROLL)
    assert int(st[0]["pos"][0]) == F.GOAL


def _play(core, st, plan):
    """Play until the end: seat s takes ``plan[s]`` every time."""
    total = np.zeros(4)
    while int(st[0]["outcome"]) == 0:
        rew, te, tr, il = _step(core, st, plan[int(st[0]["actor"])])
        total += rew
        assert not il
    return total


def test_team_rewards_are_shared_and_pay_only_at_the_end():
    core, st = _start([6, 5, 4, 3])
    seen = []
    while int(st[0]["outcome"]) == 0:
        a = F.STEP if int(st[0]["actor"]) % 2 else (F.DRAFT if st[0]["legal"][F.DRAFT] else F.STEP)
        rew, te, tr, il = _step(core, st, a)
        seen.append((rew, te))
    assert all(r == [0, 0, 0, 0] and not te for r, te in seen[:-1])
    last, te = seen[-1]
    assert te and int(st[0]["outcome"]) == F.O_TEAM0
    assert last == [1.0, -1.0, 1.0, -1.0]
    assert int(st[0]["steps"]) == F.SEATS * F.MOVES
    info = core.episode_info(st[0])
    assert info["placements"] == [0, 1, 0, 1] and info["outcome"] == "team_0"


def test_equal_team_scores_are_a_tie_paying_nothing():
    core, st = _start([6, 5, 4, 3])
    total = _play(core, st, {0: F.STEP, 1: F.STEP, 2: F.STEP, 3: F.STEP})
    assert int(st[0]["outcome"]) == F.O_TIE
    assert total.tolist() == [0, 0, 0, 0]
    assert core.episode_info(st[0])["placements"] == [0, 0, 0, 0]


def test_handicap_reset_option_breaks_the_tie():
    core, st = _start([6, 5, 4, 3])
    core.apply_reset_options(st, F.SPEC.check_reset_options({"handicap": 1}))
    total = _play(core, st, {0: F.STEP, 1: F.STEP, 2: F.STEP, 3: F.STEP})
    assert int(st[0]["outcome"]) == F.O_TEAM1
    assert total.tolist() == [-1, 1, -1, 1]


def test_illegal_action_penalises_only_the_acting_seat():
    core, st = _start([6, 5, 4, 3])
    assert st[0]["legal"][F.DRAFT] == 0
    rew, te, tr, il = _step(core, st, F.DRAFT)
    assert il and te and rew == [F.ILLEGAL_PENALTY, 0, 0, 0]
    assert core.episode_info(st[0])["placements"] is None


# --- declared facts --------------------------------------------------------------------------
def test_declared_facts_of_the_fixture_and_the_games():
    s = F.SPEC
    assert s.player_counts == (4,) and s.api_for(4) == "pettingzoo"
    assert s.utility == "team" and s.ties and s.turn_order == "state"
    assert s.teams(4) == ((0, 2), (1, 3)) and s.team_of(4).tolist() == [0, 1, 0, 1]
    ub, dc = registry.get_spec("unbroken"), registry.get_spec("dungeon_crawler")
    assert ub.api_for(1) == "gymnasium" and ub.player_counts == (1,)
    assert dc.api_for(2) == dc.api_for(8) == "pettingzoo"
    assert dc.utility == "zero_sum_ranking" and not dc.ties and dc.turn_order == "state"
    assert dc.team_of(3).tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="not 1"):
        dc.api_for(1)


def test_spec_rejects_bad_facts():
    base = dict(F.SPEC.__dict__)
    with pytest.raises(ValueError, match="utility"):
        GameSpec(**{**base, "utility": "winner_takes_all"})
    with pytest.raises(ValueError, match="exactly one team"):
        GameSpec(**{**base, "teams": lambda n: ((0, 1), (1, 2, 3))})
    with pytest.raises(ValueError, match="turn_order"):
        GameSpec(**{**base, "turn_order": "clockwise"})


# --- reset options, every registered game -----------------------------------------------------
def _envs(name, **kw):
    from dungeonrl.envs.core.adapters.aec import DungeonAECEnv
    from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    spec = registry.get_spec(name)
    if spec.multi_agent:
        from dungeonrl.agents.selfplay_env import SelfPlayEnv, make_selfplay_vector_env
        from dungeonrl.envs.core.adapters.multi import BatchedMultiAgentEnv
        from dungeonrl.envs.core.adapters.parallel import DungeonParallelEnv

        return [
            DungeonAECEnv(name, **kw),
            DungeonParallelEnv(name, **kw),
            BatchedMultiAgentEnv(name, 2, **kw),
            SelfPlayEnv(name, opponents="random", **kw),
            make_selfplay_vector_env(name, num_envs=2, opponents="random", **kw),
        ]
    return [DungeonEnv(name, **kw), DungeonVectorEnv(name, num_envs=2, **kw)]


GAME_NAMES = [s.name for s in registry.register_all()] + ["relay"]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_unknown_reset_option_is_a_clear_error_in_strict_mode(name):
    spec = registry.get_spec(name)
    accepted = sorted(spec.reset_options)
    for env in _envs(name, unknown_reset_options="raise"):
        with pytest.raises(ValueError) as e:
            env.reset(seed=1, options={"no_such_option": 3})
        msg = str(e.value)
        assert "'no_such_option'" in msg
        assert (str(accepted) if accepted else "accepted: none") in msg
        env.reset(seed=1, options={})  # empty and None are fine
        env.reset(seed=1, options=None)
        env.close()
    assert spec.check_reset_options(None) == {}
    with pytest.raises(ValueError, match="'no_such_option'"):
        spec.check_reset_options({"no_such_option": 3}, "raise")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_unknown_reset_option_is_ignored_with_one_warning_by_default(name):
    """The Gymnasium / PettingZoo convention: an option the env does not
    use is ignored; each adapter warns once per key, not on every reset."""
    import warnings

    for env in _envs(name):
        assert env.unknown_reset_options == "warn"
        with pytest.warns(UserWarning, match="unknown reset option 'no_such_option'") as rec:
            for _ in range(3):
                env.reset(seed=1, options={"no_such_option": 3})
        assert sum("no_such_option" in str(w.message) for w in rec) == 1
        with pytest.warns(UserWarning, match="unknown reset option 'other'"):
            env.reset(seed=1, options={"other": 1})  # a new key: its own warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env.reset(seed=1, options={"no_such_option": 3, "other": 1})
        env.close()
    for bad in ("ignore", None, True):
        with pytest.raises(ValueError, match="unknown_reset_options must be one of"):
            _envs(name, unknown_reset_options=bad)


def test_reset_option_values_are_validated_and_applied():
    from dungeonrl.envs.core.adapters.aec import DungeonAECEnv

    env = DungeonAECEnv("relay")
    with pytest.raises(ValueError, match="handicap"):
        env.reset(seed=0, options={"handicap": 9})
    with pytest.raises(ValueError, match="handicap"):
        env.reset(seed=0, options={"handicap": "2"})
    env.reset(seed=0, options={"handicap": 2})
    assert env._states[0]["bonus"].tolist() == [0, 2]
    # the rival team's bonus is visible to seat 0
    obs = env.observe("player_0")["observation"]
    assert obs[F.SPEC.feature_names.index("rival_bonus")] == pytest.approx(0.2)
    env.reset(seed=0)
    assert env._states[0]["bonus"].tolist() == [0, 0]


# --- self-play with teammates ---------------------------------------------------------------
class _Fixed:
    """An agent that always takes ``a`` when legal, else the first legal action."""

    scripted = None

    def __init__(self, a, name):
        self.a, self.name = a, name

    def act(self, view, rows):
        m = view.masks[rows] != 0
        return np.where(m[:, self.a], self.a, m.argmax(axis=1)).astype(np.int64)


class _Random:
    """A uniformly random legal action."""

    scripted = None

    def __init__(self, name, seed=0):
        self.name, self.rng = name, np.random.default_rng(seed)

    def act(self, view, rows):
        u = self.rng.random(view.masks[rows].shape)
        u[view.masks[rows] == 0] = -1
        return u.argmax(axis=1).astype(np.int64)


def test_self_play_view_with_partners_ties_and_shared_wins():
    from dungeonrl.envs.core.adapters.selfplay import Opponent, SelfPlayView

    core = _core()
    strong = Opponent(_Fixed(F.ROLL, "roller"), 1.0, role="partner")
    weak = Opponent(_Random("random"), 1.0, role="opponent")
    v = SelfPlayView(core, 8, [strong, weak], seed=3)
    assert v.has_partners
    v.reset(np.arange(8, dtype=np.uint64))
    outcomes = {"win": 0, "loss": 0, "draw": 0}
    rng = np.random.default_rng(0)
    for _ in range(200):
        v.actions[:] = np.where(v.masks[:, F.ROLL] != 0, F.ROLL, rng.integers(0, 2, size=v.n))
        v.step_autoreset()
        for i in np.flatnonzero(v.terminated | v.truncated):
            info = v.episode_info(int(i))
            seat = info["seat"]
            assert info["partners"] == "roller"  # partners: role-matched
            assert info["opponents"] == "random,random"
            place = info["placements"]
            assert place[seat] == place[(seat + 2) % 4]  # teammates share a place
            r = float(v.reward[i])
            want = {"win": 1.0, "loss": -1.0, "draw": 0.0}[info["outcome"]]
            assert r == want  # the team reward
            outcomes[info["outcome"]] += 1
    assert outcomes["win"] > outcomes["loss"] > 0  # rollers out-run steppers, not always
    assert v.opponent_illegal == 0


def test_self_play_view_partner_is_a_snapshot_of_the_learner():
    from dungeonrl.envs.core.adapters.selfplay import Opponent, SelfPlayView

    core = _core()
    v = SelfPlayView(
        core,
        4,
        [Opponent(_Fixed(F.STEP, "stepper"), 1.0, role="opponent")],
        seed=1,
        snapshot_slots=2,
        snapshot_weight=1.0,
    )
    with pytest.raises(ValueError, match="weight 0|partner"):
        v.reset(np.arange(4, dtype=np.uint64))
    v.add_snapshot(_Fixed(F.ROLL, "self_0"))
    v.reset(np.arange(4, dtype=np.uint64))
    mates = v.team[None, :] == v.team[v.seat][:, None]
    mates[np.arange(4), v.seat] = False
    names = np.array(v.opponent_names(), dtype=object)
    assert (names[v.opp[mates]] == "self_0").all()
    rivals = names[v.opp[~(v.team[None, :] == v.team[v.seat][:, None])]]
    assert set(rivals) <= {"stepper", "self_0"}  # snapshots play both roles


def test_play_match_and_table_with_teams():
    from dungeonrl.agents.algos.selfplay import play_match, play_table

    core = _core()
    roll, step = _Fixed(F.ROLL, "roller"), _Fixed(F.STEP, "stepper")
    r = play_match(core, step, step, 8, seed=0)
    # all steps: equal team scores every game, a tie (0) for A's side
    assert (r["result"] == 0).all()
    r = play_match(core, roll, step, 60, seed=0)
    assert (r["result"] == 1).sum() > (r["result"] == -1).sum()
    res = play_table(core, [roll, step], 20, seed=0)
    assert all(p.sides == (("roller",), ("stepper",)) for p in res)
    assert sum(p.ranks == (0, 1) for p in res) > sum(p.ranks == (1, 0) for p in res)


def test_play_match_mirror_result_is_from_a_sides_reward():
    from dungeonrl.agents.algos.selfplay import play_match

    core = _core()
    roll = _Fixed(F.ROLL, "roller")
    r = play_match(core, roll, _Fixed(F.ROLL, "roller2"), 40, seed=0)
    assert set(r["result"].tolist()) <= {-1, 0, 1} and (r["result"] != 0).any()


# --- ratings from placements -------------------------------------------------------------------
def _synthetic_league(strength, games, seed, sides=3, ties=0.1):
    """Placement results of games among ``sides`` agents drawn at random,
    placements sampled from the Plackett-Luce model with ``strength``."""
    from dungeonrl.agents.league import Placement

    rng = np.random.default_rng(seed)
    names = list(strength)
    out = []
    for _ in range(games):
        who = list(rng.choice(len(names), size=sides, replace=False))
        order = []
        left = list(who)
        while left:
            w = np.array([strength[names[k]] for k in left], float)
            k = left[int(rng.choice(len(left), p=w / w.sum()))]
            order.append(k)
            left.remove(k)
        ranks = {k: r for r, k in enumerate(order)}
        if rng.random() < ties:  # the last two tie
            ranks[order[-1]] = ranks[order[-2]]
        out.append(Placement(tuple((names[k],) for k in who), tuple(ranks[k] for k in who)))
    return out


def test_openskill_ratings_recover_the_known_ordering():
    from dungeonrl.agents.league import fit_openskill

    strength = {"a": 8.0, "b": 4.0, "c": 2.0, "d": 1.0, "e": 0.5}
    res = _synthetic_league(strength, 600, seed=5)
    fit = fit_openskill(res)
    order = sorted(fit, key=lambda n: -fit[n]["mu"])
    assert order == ["a", "b", "c", "d", "e"], fit
    assert all(f["sigma"] < 25 / 3 for f in fit.values())  # learned something
    # team sides: a strong team beats a weak one and both members rise/fall
    from dungeonrl.agents.league import Placement

    teams = [Placement((("a", "b"), ("d", "e")), (0, 1))] * 30
    fit = fit_openskill(teams)
    assert min(fit["a"]["mu"], fit["b"]["mu"]) > max(fit["d"]["mu"], fit["e"]["mu"])


def test_placement_league_and_rating_kind():
    from dungeonrl.agents.league import PlacementLeague, rating_kind

    assert rating_kind(registry.get_spec("dungeon_crawler"), 2) == "elo"
    assert rating_kind(registry.get_spec("dungeon_crawler"), 4) == "openskill"
    assert rating_kind(F.SPEC, 4) == "openskill"
    strength = {"a": 6.0, "b": 2.0, "c": 1.0}

    def play(agents, names, games, seed):
        res = _synthetic_league(
            {n: strength[n] for n in names}, games, seed, sides=len(names), ties=0.0
        )
        return res

    lg = PlacementLeague({n: None for n in strength}, play, sides=3)
    lg.run(games=60, seed=0)
    rows = lg.table()
    assert [r["name"] for r in rows] == ["a", "b", "c"]
    assert rows[0]["first"] > rows[-1]["first"]
    assert "ordinal" in lg.format_table()
    with pytest.raises(ValueError, match="sides"):
        PlacementLeague({"a": 1, "b": 2}, play, sides=3)


def test_placement_league_plays_the_team_fixture():
    from dungeonrl.agents.algos.selfplay import table_play
    from dungeonrl.agents.league import PlacementLeague

    core = _core()
    agents = {"roller": _Fixed(F.ROLL, "roller"), "stepper": _Fixed(F.STEP, "stepper")}
    lg = PlacementLeague(agents, table_play(core), sides=2)
    lg.run(games=40, seed=0)
    rows = lg.table()
    assert rows[0]["name"] == "roller" and len(lg.results) == 80


# --- PettingZoo's own checks -------------------------------------------------------------------
def _pz_env():
    from pettingzoo.utils import wrappers

    from dungeonrl.envs.core.adapters.aec import DungeonAECEnv

    e = DungeonAECEnv(F.SPEC)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))


def test_pettingzoo_api_and_seed_tests():
    from pettingzoo.test import api_test, parallel_api_test, seed_test

    from dungeonrl.envs.core.adapters.parallel import DungeonParallelEnv

    api_test(_pz_env(), num_cycles=100)
    seed_test(_pz_env, num_cycles=100)
    with pytest.warns(UserWarning, match="unknown reset option 'options'"):
        parallel_api_test(DungeonParallelEnv(F.SPEC), num_cycles=100)


def test_cli_eval_of_a_team_game_is_a_placement_league(tmp_path, capsys):
    import json

    from dungeonrl.cli import main as cli_main

    js = tmp_path / "l.json"
    rc = cli_main(
        [
            "eval",
            "relay",
            "--agent",
            "random",
            "--agent",
            "random",
            "--games",
            "10",
            "--json",
            str(js),
            "--plot",
            str(tmp_path / "l.png"),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "placement league" in out and "ordinal" in out
    d = json.loads(js.read_text())
    assert d["rating"] == "openskill-plackett-luce"
    assert sorted(r["name"] for r in d["ratings"]) == ["random", "random'"]
    assert all(r["games"] == 20 for r in d["ratings"])  # 2 lineups x 10 games
    assert (tmp_path / "l.png").stat().st_size > 1000


def test_self_play_view_and_its_vector_env_take_reset_options():
    from dungeonrl.envs.core.adapters.selfplay import SelfPlayView
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    core = _core()
    v = SelfPlayView(core, 3, [_Random("random")], seed=0)
    v.reset(np.arange(3, dtype=np.uint64), options={"handicap": 3})
    assert (v.states["bonus"][:, 1] == 3).all()
    with pytest.raises(ValueError, match="'bogus'.*accepted: \\['handicap'\\]"):
        SelfPlayView(core, 3, [_Random("random")], seed=0, unknown_reset_options="raise").reset(
            np.arange(3, dtype=np.uint64), options={"bogus": 1}
        )
    with pytest.warns(UserWarning, match="'bogus'"):  # the default: ignored, the rest applied
        v.reset(np.arange(3, dtype=np.uint64), options={"bogus": 1, "handicap": 1})
    assert (v.states["bonus"][:, 1] == 1).all()
    env = DungeonVectorEnv(v)
    obs, _ = env.reset(seed=0, options={"handicap": 2})
    col = F.SPEC.feature_names.index("own_bonus"), F.SPEC.feature_names.index("rival_bonus")
    team1 = v.team[v.seat] == 1
    assert np.allclose(obs[team1, col[0]], 0.2) and np.allclose(obs[~team1, col[1]], 0.2)
    with pytest.raises(ValueError, match="handicap"):
        env.reset(seed=0, options={"handicap": -1})


def test_make_view_with_a_partner_pool():
    from dungeonrl.agents.algos.selfplay import make_view

    core = _core()
    v = make_view(core, 6, "random", partners="random:2", seed=0, snapshot_slots=0)
    assert [o.role for o in v.pool] == ["opponent", "partner"]
    v.reset(np.arange(6, dtype=np.uint64))
    mates = v.team[None, :] == v.team[v.seat][:, None]
    mates[np.arange(6), v.seat] = False
    assert (v.opp[mates] == 1).all()
    rivals = v.team[None, :] != v.team[v.seat][:, None]
    assert (v.opp[rivals] == 0).all()
    both = make_view(core, 2, "self:1,random:1", seed=0)
    assert [o.role for o in both.pool] == ["both"]
    with pytest.raises(ValueError, match="'self' in the partner pool"):
        make_view(core, 2, "random", partners="self")


def test_sb3_vec_env_checks_the_options_of_set_options():
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv

    env = DungeonSB3VecEnv("unbroken", num_envs=2)
    env.set_options({"typo": 1})
    with pytest.warns(UserWarning, match="unknown reset option 'typo'"):
        env.reset()
    env = DungeonSB3VecEnv("unbroken", num_envs=2, unknown_reset_options="raise")
    env.reset()
    env.set_options({"typo": 1})
    with pytest.raises(ValueError, match="unknown reset option 'typo'; accepted: none"):
        env.reset()
    env.set_options([{}, {"typo": 1}])
    with pytest.raises(ValueError, match="different"):
        env.reset()
    env.set_options({})
    env.reset()


def test_gymnasium_single_seat_view_validates_reset_options():
    from dungeonrl.agents.selfplay_env import SelfPlayEnv

    env = SelfPlayEnv("relay", opponents="random", seat=1)
    obs, info = env.reset(seed=0, options={"handicap": 1})
    # seat 1 is on team 1: its own bonus column shows the handicap
    assert obs[F.SPEC.feature_names.index("own_bonus")] == pytest.approx(0.1)
    with pytest.warns(UserWarning, match="unknown reset option 'x'"):
        obs, info = env.reset(seed=0, options={"x": 1, "handicap": 1})
    assert obs[F.SPEC.feature_names.index("own_bonus")] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="unknown reset option 'x'"):
        SelfPlayEnv("relay", opponents="random", seat=1, unknown_reset_options="raise").reset(
            seed=0, options={"x": 1}
        )
    done = False
    while not done:
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, r, te, tr, info = env.step(a)
        done = te or tr
    assert r in (-1.0, 0.0, 1.0)


def test_placements_follow_the_declared_facts():
    import dataclasses

    from dungeonrl.envs.core.adapters.selfplay import placements, seat_outcome

    dc = registry.get_spec("dungeon_crawler")
    assert placements(dc, 3, {"winner": 2}) == [1, 1, 0]
    assert placements(dc, 3, {"winner": -1}) is None
    assert placements(F.SPEC, 4, {"placements": [0, 0, 0, 0]}) == [0, 0, 0, 0]
    assert seat_outcome([0, 0, 0, 0], 1) == "draw"
    assert seat_outcome([1, 0, 1, 0], 3) == "win" and seat_outcome([1, 0, 1, 0], 0) == "loss"
    assert seat_outcome(None, 0, -1.0) == "loss" and seat_outcome(None, 0, 0.0) == "draw"
    with pytest.raises(ValueError, match="teammates"):
        placements(F.SPEC, 4, {"placements": [0, 1, 1, 0]})
    no_ties = dataclasses.replace(F.SPEC, ties=False)
    with pytest.raises(ValueError, match="declares no ties"):
        placements(no_ties, 4, {"placements": [0, 0, 0, 0]})
