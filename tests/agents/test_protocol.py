"""The public agent protocol (``dungeonrl.agents.protocol``) and its adapters:
a plain callable, an object with ``act``/``reset``, a torch module, an SB3
model, ``module:attribute`` names, each driven through the package's own
evaluator, matches and command line; what a broken agent returns is refused
with a message naming it. (The RLlib checkpoint adapter is exercised by
``tests/adapters/test_rllib.py`` in the Ray venv.)"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import agent_examples

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl.agents.algos.selfplay import play_match
from dungeonrl.agents.commands.evaluate import evaluate
from dungeonrl.agents.policy import as_agent, make_agent, model_file
from dungeonrl.agents.protocol import (
    AgentError,
    ProtocolAgent,
    TorchModuleAgent,
    import_agent,
    is_import_ref,
)
from dungeonrl.cli import main as cli_main
from dungeonrl.envs.core.batch import Batch
from dungeonrl.envs.core.common import resolve_core

GAMES = 12


@pytest.fixture(scope="module")
def ub():
    return resolve_core("unbroken", {})


@pytest.fixture(scope="module")
def dc():
    return resolve_core("dungeon_crawler", {"num_players": 2})


def _reference_first_legal(core, games: int) -> np.ndarray:
    """The same policy written against the batch directly: the decisions of
    each game of the lowest-legal-action player."""
    buf = Batch(core, games)
    buf.reset(np.arange(games, dtype=np.uint64))
    over = np.zeros(games, bool)
    length = np.zeros(games, np.int64)
    while not over.all():
        rows = np.flatnonzero(~over)
        buf.actions[rows] = (buf.masks[rows] != 0).argmax(axis=1)
        buf.step()
        length[rows] += 1
        over[rows[buf.terminated[rows] | buf.truncated[rows]]] = True
    return length


def test_callable_agent_plays_the_same_games_as_the_batch_written_by_hand(ub):
    agent = as_agent(agent_examples.first_legal)
    assert isinstance(agent, ProtocolAgent) and agent.name == "first_legal"
    res = evaluate(agent, ub, GAMES, seed=0)
    assert res.illegal == 0
    assert np.array_equal(res.stats["length"], _reference_first_legal(ub, GAMES))


def test_object_agent_gets_one_reset_per_game_before_it_acts(dc):
    policy = agent_examples.LastLegal()
    agent = as_agent(policy)
    assert agent.name == "last-legal"
    res = play_match(dc, agent, make_agent("random", dc, seed=1), GAMES, seed=0)
    rows = np.concatenate(policy.resets)
    # every game of the match started once for the agent, and only once
    assert len(rows) == GAMES
    assert sorted(rows.tolist()) == list(range(GAMES))
    assert len(res["result"]) == GAMES


def test_agent_reset_sees_autoreset_games_as_new(ub):
    from dungeonrl.agents.algos.selfplay import make_view  # noqa: F401  (the layer is importable)

    policy = agent_examples.LastLegal()
    agent = as_agent(policy)
    buf = Batch(ub, 2)
    buf.reset(np.array([0, 1], np.uint64))
    rows = np.arange(2)
    agent.act(buf, rows)
    assert len(policy.resets) == 1
    agent.act(buf, rows)  # the same games: no reset
    assert len(policy.resets) == 1
    buf.states["episode"][1] += 1  # row 1 moved on to its next game
    agent.act(buf, rows)
    assert [r.tolist() for r in policy.resets] == [[0, 1], [1]]


def test_torch_module_adapter_is_greedy_over_legal_actions(ub):
    torch = pytest.importorskip("torch")
    spec = ub.spec
    lin = torch.nn.Linear(spec.obs_size, spec.num_actions)
    agent = as_agent(lin)
    assert isinstance(agent, TorchModuleAgent)
    buf = Batch(ub, 4)
    buf.reset(np.arange(4, dtype=np.uint64))
    rows = np.arange(4)
    a = agent.act(buf, rows)
    with torch.no_grad():
        logits = lin(torch.from_numpy(buf.obs[rows])).numpy()
    logits[buf.masks[rows] == 0] = -np.inf
    assert np.array_equal(a, logits.argmax(axis=1))
    assert (buf.masks[rows, a] != 0).all()
    # a module whose output is not one logit per action is refused by name
    bad = as_agent(torch.nn.Linear(spec.obs_size, 3), name="tiny")
    with pytest.raises(AgentError, match="tiny.*logits of shape"):
        bad.act(buf, rows)


def test_fast_path_network_and_sb3_model_go_to_their_agents(ub):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from dungeonrl.agents.algos.ppo import ActorCritic
    from dungeonrl.agents.policy import SB3Agent, TorchAgent
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv

    spec = ub.spec
    net = ActorCritic(spec.obs_size, spec.num_actions, (16,), "tanh", False)
    assert isinstance(as_agent(net), TorchAgent)
    venv = DungeonSB3VecEnv("unbroken", num_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=8, seed=0, device="cpu")
    agent = as_agent(model, ub)
    assert isinstance(agent, SB3Agent)
    res = evaluate(agent, ub, 3, seed=0)
    assert res.illegal == 0


@pytest.mark.parametrize(
    "name, message",
    [
        ("helpers.agent_examples:wrong_count", r"returned \(13,\) actions for 12"),
        ("helpers.agent_examples:out_of_range", "outside 0..79"),
        ("helpers.agent_examples:fractional", "non-integer"),
    ],
)
def test_broken_agent_returns_are_refused_by_name(ub, name, message):
    agent = make_agent(name, ub)
    buf = Batch(ub, 12)
    buf.reset(np.arange(12, dtype=np.uint64))
    with pytest.raises(AgentError, match=message) as e:
        agent.act(buf, np.arange(12))
    assert name in str(e.value)


@pytest.mark.parametrize(
    "ref, message",
    [
        ("no_such_module_xyz:agent", "cannot import module"),
        ("helpers.agent_examples:missing", "has no attribute"),
        ("helpers.agent_examples:NeedsArgs", "constructible with no arguments"),
    ],
)
def test_import_refs_that_cannot_be_built_say_why(ref, message):
    with pytest.raises(AgentError, match=message):
        import_agent(ref)


def test_not_an_agent_is_refused(ub):
    with pytest.raises(AgentError, match="not an agent"):
        make_agent("helpers.agent_examples:NOT_AN_AGENT", ub)


def test_import_refs_are_told_apart_from_paths_and_names():
    assert is_import_ref("mypkg.bots:Greedy")
    assert is_import_ref("helpers.agent_examples:LastLegal")
    for not_ref in ("heuristic", "runs/x/model.pt", "C:/x.pt", "pretrained:dc", "a:b:c"):
        assert not is_import_ref(not_ref) or not_ref == "pretrained:dc"
    assert model_file("helpers.agent_examples:first_legal") is None
    assert model_file("heuristic") is None


def test_module_attribute_on_the_command_line(capsys):
    rc = cli_main(
        ["eval", "unbroken", "--agent", "helpers.agent_examples:first_legal", "--games", "6"]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "helpers.agent_examples:first_legal" in out or "first_legal" in out


def test_module_attribute_in_a_league_and_an_opponent_pool(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the league writes its plot under runs/
    rc = cli_main(
        [
            "eval",
            "dungeon_crawler",
            "--agent",
            "helpers.agent_examples:LastLegal",
            "--agent",
            "random",
            "--games",
            "4",
        ]
    )
    assert rc == 0
    assert "helpers.agent_examples:LastLegal" in capsys.readouterr().out
    from dungeonrl.agents.algos.selfplay import make_view

    core = resolve_core("dungeon_crawler", {"num_players": 2})
    view = make_view(core, 4, "helpers.agent_examples:first_legal:1", seed=0)
    assert view.opponent_names() == ["helpers.agent_examples:first_legal"]


def test_module_attribute_plays_records_and_replays(tmp_path):
    from dungeonrl.agents.commands.record import record
    from dungeonrl.agents.replay import load_replay, record_replay
    from dungeonrl.play import seat_policies

    core = resolve_core("dungeon_crawler", {"num_players": 2})
    pols = seat_policies(["helpers.agent_examples:first_legal", "heuristic"], core, seed=0)
    buf = Batch(core, 1)
    buf.reset(np.zeros(1, np.uint64))
    a = pols[0](buf.states[:1])
    assert a == int(np.flatnonzero(buf.states[0]["legal"])[0])
    rec = record(
        "unbroken", "helpers.agent_examples:LastLegal", 1, str(tmp_path / "u.png"), max_frames=4
    )
    assert rec.decisions == 3
    rep = record_replay("dungeon_crawler", ["helpers.agent_examples:first_legal", "random"], seed=1,
                        num_players=2)  # fmt: skip
    assert rep.seats == ["helpers.agent_examples:first_legal", "random"] and rep.finished
    path = tmp_path / "r.json"
    from dungeonrl.agents.replay import save_replay

    save_replay(rep, path)
    assert load_replay(path) == rep
