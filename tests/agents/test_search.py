"""The search agent (``agents/algos/search.py``, issue 49 item 2): its agent
string parses and bad ones are refused by name; it is deterministic under
a seed, runs exactly its simulation budget, plays only legal actions,
works in all four games (solo, PvP, co-op; with and without a prior
network) and beats uniform random play clearly; the one resolver and the
commands accept it."""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.agents.algos.search import (
    DEFAULT_SIMS,
    KEYS,
    SearchAgent,
    SearchConfig,
    SearchError,
    _Node,
    is_search_ref,
    parse_search_ref,
)
from dungeonrl.agents.algos.selfplay import play_match
from dungeonrl.agents.policy import make_agent, model_file
from dungeonrl.envs.core.batch import Batch
from dungeonrl.envs.core.common import resolve_core


def _core(game: str, players: int | None = None):
    return resolve_core(game, {} if players is None else {"num_players": players})


def _started(core, n: int = 3, seed: int = 0) -> Batch:
    buf = Batch(core, n)
    buf.reset(np.arange(seed, seed + n, dtype=np.uint64))
    return buf


# --- the agent string -------------------------------------------------------------------
def test_strings_parse():
    assert parse_search_ref("search") == SearchConfig(text="search")
    assert parse_search_ref("search").sims == DEFAULT_SIMS
    cfg = parse_search_ref("search:pretrained:unbroken-normal?sims=400&rollout=heuristic&c=2.5")
    assert cfg.prior == "pretrained:unbroken-normal"
    assert (cfg.sims, cfg.c, cfg.rollout, cfg.ms) == (400, 2.5, "heuristic", None)
    cfg = parse_search_ref("search?ms=20&rollouts=3&opp=random")
    assert (cfg.prior, cfg.sims, cfg.ms, cfg.rollouts, cfg.opp) == (None, None, 20.0, 3, "random")
    assert parse_search_ref("search?sims=5&ms=20").sims == 5
    assert is_search_ref("search?sims=1") and is_search_ref("search:x.pt")
    assert not is_search_ref("searchlight") and not is_search_ref("heuristic")


@pytest.mark.parametrize(
    "text,words",
    [
        ("search?depth=3", ["unknown key 'depth'", "accepted keys: sims"]),
        ("search?sims=many", ["sims='many' is not an integer", "accepted keys"]),
        ("search?sims=2.5", ["is not an integer"]),
        ("search?sims=0", ["sims must be >= 1, got 0", "accepted keys"]),
        ("search?rollouts=-1", ["rollouts must be >= 1"]),
        ("search?c=0", ["c must be a number > 0"]),
        ("search?ms=nan", ["ms must be a number > 0"]),
        ("search?rollout=greedy", ["unknown rollout 'greedy'", "heuristic, random, value"]),
        ("search?rollout=value", ["rollout=value needs a prior network"]),
        ("search?sims=3&sims=4", ["sims is given twice"]),
        ("search?sims", ["'sims' is not key=value"]),
        ("search?", ["nothing after '?'"]),
        ("search:", ["nothing after 'search:'"]),
        ("search:search?sims=2", ["a search cannot be the prior"]),
        ("search?opp=search", ["opp cannot be a search agent"]),
    ],
)
def test_bad_strings_are_refused_by_name(text, words):
    with pytest.raises(SearchError) as e:
        parse_search_ref(text)
    for w in words:
        assert w in str(e.value), str(e.value)
    assert isinstance(e.value, ValueError)  # what the commands catch and print


def test_every_key_is_listed_in_the_error():
    with pytest.raises(SearchError) as e:
        parse_search_ref("search?nope=1")
    for key in KEYS:
        assert f"{key} (" in str(e.value)


def test_the_resolver_builds_it():
    core = _core("unbroken")
    agent = make_agent("search?sims=3", core, seed=4)
    assert isinstance(agent, SearchAgent) and agent.name == "search?sims=3"
    assert agent.rollout == "heuristic"  # the game's scripted policy, by default
    with pytest.raises(SearchError, match="sims must be >= 1"):
        make_agent("search?sims=0", core)
    with pytest.raises(SearchError, match="not a fast-path policy network"):
        make_agent("search:heuristic?sims=2", core)
    with pytest.raises(SearchError, match="the prior cannot be loaded"):
        make_agent("search:no/such/model.pt", core)
    # a search stands for its prior's model file (the setting eval applies)
    assert model_file("search?sims=3") is None
    assert model_file("search:pretrained:unbroken-normal?sims=3") == model_file(
        "pretrained:unbroken-normal"
    )


# --- search -----------------------------------------------------------------------------
def test_deterministic_under_a_seed_in_any_batch():
    core = _core("dungeon_crawler", 2)
    buf = _started(core, 3, seed=10)
    rows = np.arange(3)
    a = make_agent("search?sims=12&rollouts=2", core, seed=7).act(buf, rows)
    b = make_agent("search?sims=12&rollouts=2", core, seed=7).act(buf, rows)
    alone = make_agent("search?sims=12&rollouts=2", core, seed=7).act(buf, np.array([2]))
    assert a.tolist() == b.tolist()
    assert alone[0] == a[2]  # a row's decision does not depend on the others


def test_runs_exactly_its_simulation_budget():
    core = _core("unbroken")
    buf = _started(core, 1, seed=3)
    agent = make_agent("search?sims=9&rollouts=1", core)
    agent.act(buf, np.zeros(1, np.int64))
    assert agent.last_simulations == 9
    assert agent.last_root_visits.sum() == 9  # every simulation went through the root
    assert agent.last_root_visits[buf.masks[0] == 0].sum() == 0  # ... by a legal action
    capped = make_agent("search?sims=5&ms=60000", core)  # the simulations end first
    capped.act(buf, np.zeros(1, np.int64))
    assert capped.last_simulations == 5
    timed = make_agent("search?ms=1", core)  # time only: at least one simulation
    timed.act(buf, np.zeros(1, np.int64))
    assert 1 <= timed.last_simulations < DEFAULT_SIMS


def test_selection_counts_availability_and_follows_the_prior():
    """PUCT over the actions legal in this determinization: those only get
    an availability count; with no visits the prior decides."""
    core = _core("unbroken")
    agent = make_agent("search?sims=1", core)
    A = agent.num_actions
    logits = np.zeros(A)
    logits[5] = 3.0
    node = _Node(0, A, logits, None)
    legal = np.zeros(A, np.bool_)
    legal[[2, 5, 7]] = True
    assert agent._select(node, legal, [np.inf, -np.inf]) == 5
    assert node.avail[[2, 5, 7]].tolist() == [1.0, 1.0, 1.0] and node.avail.sum() == 3
    legal[5] = False  # not available in this determinization
    assert agent._select(node, legal, [np.inf, -np.inf]) in (2, 7)
    assert node.avail[5] == 1.0 and node.avail[2] == 2.0


@pytest.mark.parametrize(
    "game,players,text",
    [
        ("unbroken", None, "search?sims=6&rollouts=2"),
        ("unbroken", None, "search:pretrained:unbroken-normal?sims=6&rollout=value"),
        ("dungeon_crawler", 2, "search:pretrained:dungeon_crawler-2p?sims=6&rollouts=2"),
        ("dungeon_kart", 4, "search?sims=6&rollouts=2&opp=random"),
        ("dcc_unstoppable", None, "search?sims=6&rollouts=2"),
        ("dcc_unstoppable", 2, "search:pretrained:dcc_unstoppable-coop?sims=6&rollouts=2"),
    ],
)
def test_one_legal_decision_in_every_game(game, players, text):
    """Solo, PvP (a network modelling the rival), four seats, co-op (the
    network modelling the partner): a legal action after a real search."""
    core = _core(game, players)
    buf = _started(core, 2, seed=5)
    agent = make_agent(text, core, seed=1)
    rows = np.arange(2)
    actions = agent.act(buf, rows)
    assert (buf.masks[rows, actions] != 0).all()
    many = buf.masks[rows].sum(axis=1) > 1
    assert agent.simulations == 6 * int(many.sum())


def test_beats_uniform_random_in_both_seats():
    """Dungeon Kart, two players, 20 seeded games (seats alternated): a
    small search (8 simulations of 2 heuristic rollouts) wins most, from
    either seat, and plays no illegal action; random against random wins
    about half of the decided games on the same seeds."""
    core = _core("dungeon_kart", 2)
    search = make_agent("search?sims=8&rollouts=2", core, seed=0)
    res = play_match(core, search, make_agent("random", core, seed=1), 20, seed=0)
    assert res["illegal"] == 0
    won = res["result"] == 1
    assert won.sum() >= 16, res["result"]
    for seat in (0, 1):
        assert won[res["seat_a"] == seat].sum() >= 7, (seat, res["result"])
    base = play_match(
        core, make_agent("random", core, seed=3), make_agent("random", core, seed=1), 20, seed=0
    )
    assert (base["result"] == 1).sum() <= 14  # the bar above is not met by chance play


# --- the commands -----------------------------------------------------------------------
def test_eval_runs_it_from_the_command_line(capsys):
    from dungeonrl.cli import main as cli_main

    assert cli_main(["eval", "unbroken", "--agent", "search?sims=16", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "search?sims=16" in out and "2 games" in out
    assert cli_main(["eval", "unbroken", "--agent", "search?sims=zero", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "sims='zero' is not an integer" in err and "accepted keys" in err


def test_serve_offers_it_and_a_page_plays_against_it():
    from dungeonrl.web.cli import _check_agents
    from dungeonrl.web.server import agent_offers
    from dungeonrl.web.session import HUMAN, GameSession

    _check_agents(["search?sims=2"])  # no ValueError: a search reads as an agent
    where = agent_offers(["search?sims=2"])["search?sims=2"]
    assert ("unbroken", 1) in where and ("dungeon_kart", 2) in where
    game = GameSession(
        "dungeon_kart", ["search?sims=2&rollouts=1", HUMAN], seed=3, options={"num_players": 2}
    )
    assert game.run_agents() >= 1 and game.actor == 1  # its move made, the person's turn


# --- the heuristic prior, the rollouts' seats, the leaf's futures -----------------------
def test_one_simulation_plays_the_heuristics_choice():
    """Without a network the heuristic's action holds half the prior: a
    one-simulation search visits it and plays it (Dungeon Kart hides
    nothing the heuristic reads, so any determinization gives its choice)."""
    core = _core("dungeon_kart", 2)
    buf = _started(core, n=6, seed=11)
    heur = make_agent("heuristic", core)
    agent = make_agent("search?sims=1", core, seed=0)
    rows = np.flatnonzero(buf.masks.sum(axis=1) > 1)
    assert len(rows) >= 3
    want = heur.act(buf, rows)
    got = [agent.decide(buf.states[r : r + 1]) for r in rows]
    assert got == want.tolist()
    agent._st[:] = buf.states[rows[0] : rows[0] + 1]  # the simulation's record
    node_logits = agent._heuristic_logits(np.random.default_rng(0))
    legal = np.flatnonzero(buf.masks[rows[0]])
    p = np.exp(node_logits[legal] - node_logits[legal].max())
    p /= p.sum()
    assert p.max() == pytest.approx(0.5) and int(legal[p.argmax()]) == int(want[0])


def test_a_scripted_opp_plays_the_other_seats_in_the_rollouts():
    core = _core("dungeon_crawler", 4)
    agent = make_agent("search?sims=2&opp=random&rollout=heuristic&rollouts=3", core)
    for seat in range(4):
        codes = agent._rollout_codes[seat]
        assert codes.shape == (3, 4)
        assert (codes[:, seat] == 1).all()  # the searcher: the heuristic
        assert (np.delete(codes, seat, axis=1) == 0).all()  # the rivals: random, as opp
    plain = make_agent("search?sims=2&rollout=random", core)
    assert (plain._rollout_codes[0] == 0).all()


def test_resample_chance_changes_only_the_future():
    from dungeonrl.envs.core.infostate import resample_chance

    core = _core("dungeon_crawler", 2)
    buf = _started(core, n=1, seed=3)
    rows = np.repeat(buf.states[:1], 4)
    before = rows.copy()
    resample_chance(rows, np.random.default_rng(1))
    changed = {n for n in rows.dtype.names if not np.array_equal(rows[n], before[n])}
    assert changed and changed <= {"rng", "seed", "forced", "forced_n", "forced_i"}
    assert len({bytes(r) for r in rows["rng"]}) == 4  # four different futures
    obs_a = np.zeros((4, core.spec.obs_size), np.float32)
    obs_b = np.zeros_like(obs_a)
    seats = np.zeros(4, np.int64)
    core.observe(rows, seats, obs_a)
    core.observe(before, seats, obs_b)
    assert np.array_equal(obs_a, obs_b)


def test_the_raw_draws_are_the_generators_full_range_integers():
    """The search (and ``infostate.seed_key``) take 64-bit draws as the bit
    generator's raw output, which is what ``integers(0, 2**64,
    dtype=np.uint64)`` returns: the same decisions as before, faster."""
    a, b = np.random.default_rng([7, 1]), np.random.default_rng([7, 1])
    one = [int(a.integers(0, 2**64, dtype=np.uint64)) for _ in range(4)]
    one += [int(x) for x in a.integers(0, 2**64, size=5, dtype=np.uint64)]
    two = [int(b.bit_generator.random_raw()) for _ in range(4)]
    two += [int(x) for x in b.bit_generator.random_raw(5)]
    assert one == two and a.random() == b.random()


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_search_agent_decides_as_the_original(how):
    """A copy or a pickle of the agent binds its kernels to its own buffers
    again (views and bound calls are not carried over, so none of them is
    left pointing at a buffer the copy does not use): the same decisions."""
    import copy
    import pickle

    core = _core("dungeon_kart", 2)
    buf = _started(core, n=4, seed=3)
    agent = make_agent("search?sims=6&rollouts=2", core, seed=5)
    twin = copy.deepcopy(agent) if how == "deepcopy" else pickle.loads(pickle.dumps(agent))
    assert np.shares_memory(twin._st_bytes, twin._st)
    assert not np.shares_memory(twin._st, agent._st)
    rows = np.flatnonzero(buf.masks.sum(axis=1) > 1)
    want = [agent.decide(buf.states[r : r + 1]) for r in rows]
    assert [twin.decide(buf.states[r : r + 1]) for r in rows] == want
