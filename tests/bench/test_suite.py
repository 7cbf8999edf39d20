"""The throughput suite (the ``benchmarks/suite`` package) as a harness: it runs end
to end with tiny budgets, every benchmark fails on an illegal action, and
the JSON has every field. No timing is asserted here."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os

import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl import registry
from dungeonrl.benchmarks import report, suite
from dungeonrl.benchmarks.suite import IllegalActionInBenchmark
from dungeonrl.cli import main as cli_main

TINY = suite.MODES["tiny"]


def suite_games() -> list[str]:
    """The games ``import dungeonrl`` registers (other test modules may add
    test fixtures to the registry of this process)."""
    return [n for n in registry.list_games() if registry.game_module(n) in registry.GAMES]


def multi_agent_games() -> list[str]:
    return [n for n in suite_games() if registry.get_spec(n).multi_agent]


def single_agent_games() -> list[str]:
    return [n for n in suite_games() if not registry.get_spec(n).multi_agent]


class IllegalSampler:
    """Returns an action the mask forbids (or one out of range when every
    action is legal): every benchmark must raise, not count it."""

    def batch(self, masks, out):
        bad = np.argmin(masks, axis=1)
        all_legal = masks[np.arange(len(masks)), bad] != 0
        out[:] = np.where(all_legal, masks.shape[1], bad)
        return out

    def one(self, mask):
        mask = np.asarray(mask)
        bad = np.flatnonzero(mask == 0)
        return int(bad[0]) if len(bad) else len(mask)

    def choice(self, legal):
        return max(legal) + 1


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# --- end to end -------------------------------------------------------------------------
def test_tiny_run_end_to_end(tmp_path, capsys):
    """The whole harness with tiny budgets: figures for every layer, peers,
    start-up and memory subprocesses, training, JSON, plots, the README
    section; the JSON has every field."""
    games = tuple(suite_games())
    assert games, "no game registered"
    settings = dataclasses.replace(TINY, games=games)
    res = suite.run(settings, log=lambda msg: None)
    json_path = tmp_path / "suite.json"
    suite.save(res, str(json_path), str(tmp_path), settings, log=lambda msg: None)

    data = json.loads(json_path.read_text())
    assert suite.validate(data) == []
    assert data["mode"] == "tiny" and data["schema"] == suite.SCHEMA
    versions = data["machine"]["versions"]
    for key in ("python", "numpy", "numba", "gymnasium", "pettingzoo", "torch", "open_spiel"):
        assert key in versions
    assert data["machine"]["cores"] >= 1 and data["machine"]["cpu"]
    assert set(data["games"]) == set(games)
    threads = [str(t) for t in settings.thread_counts()]
    for name, g in data["games"].items():
        spec = registry.get_spec(name)
        counts = suite.player_counts(spec)[: settings.max_configs or None]
        assert [int(p) for p in g["configs"]] == counts
        for cfg in g["configs"].values():
            assert sorted(cfg["kernel"]) == sorted(threads)
            assert suite.ok(cfg["kernel"]["1"]), cfg["kernel"]["1"]
            assert cfg["kernel"]["1"]["median"] > 0
            assert sorted(cfg["batch"], key=int) == [str(n) for n in settings.num_envs]
            assert all(suite.ok(f) for f in cfg["batch"].values())
            if not spec.multi_agent:
                assert sorted(cfg["vector"], key=int) == [str(n) for n in settings.num_envs]
                assert all(suite.ok(f) for f in cfg["vector"].values())
            assert suite.ok(cfg["python"]), cfg["python"]
            assert (
                cfg["memory"]["state_bytes"]
                == spec.make_core(**suite.core_kwargs(spec, cfg["players"])).state_dtype.itemsize
            )
            assert "profile" in cfg and cfg["profile"]["per_env_step"]["observe_us"] > 0
        mem = [c["memory"] for c in g["configs"].values() if c["memory"]["status"] == "ok"]
        assert mem and mem[0]["peak_rss_mb"] > 0
        assert g["start"]["status"] == "ok" and g["start"]["warm_s"] > 0
        for algo in ("sb3", "fast_ppo"):
            assert g["training"][algo]["status"] in ("ok", "unavailable", "skipped")
    for key in suite.PEERS:
        assert key in data["peers"]
    assert suite.ok(data["peers"]["cartpole_single"])
    assert sorted(data["peers"]["cartpole_vector"]["by_num_envs"], key=int) == [
        str(n) for n in settings.num_envs
    ]
    ep = data["peers"]["envpool_cartpole"]
    assert ep["status"] in ("ok", "unavailable") and (ep["status"] == "ok" or ep["reason"])
    if ep["status"] == "ok":
        assert sorted(ep["by_config"]) == sorted(
            f"{n}x{t}" for n in settings.envpool_envs for t in settings.envpool_threads
        )
    assert "pufferlib_ocean" in data["peers"]["cited"]
    ids = {t["id"] for t in data["targets"]}
    assert {"kernel_vs_leduc", "vector_vs_kernel", "warm_start_s"} <= ids
    assert ids <= {t.id for t in suite.TARGETS}
    for t in data["targets"]:  # the limit of every row is the one stated in TARGETS
        spec = suite.targets.TARGET_BY_ID[t["id"]]
        if spec.relative is None:
            assert t["target"] == spec.goal_for(t["game"], t.get("variant"))
        elif t.get("reference") is not None:  # a relative guard: its recorded reference + 15 %
            assert t["target"] == pytest.approx(t["reference"] * (1 + spec.relative))
        assert t["kind"] in suite.targets.KINDS
    # the observation columns of each configuration, for ns per column
    assert all(c["obs_columns"] > 0 for g in data["games"].values() for c in g["configs"].values())

    assert data["plots"]
    for p in data["plots"]:
        assert (tmp_path / p).stat().st_size > 1000

    assert suite.main(["--from-json", str(json_path), "--no-plots"]) == 0
    text = suite.table(data)
    assert "targets" in text and "kernel" in text
    assert suite.profile_text(data)
    readme = "# x\n<!-- bench-suite:start -->\nSTALE TEXT\n<!-- bench-suite:end -->\n"
    out = report.render(readme, str(tmp_path))
    assert "STALE TEXT" not in out and "| what | steps/s (median) | vs peer |" in out
    assert "| figure | kind and limit | this run | decided |" in out
    for t in suite.TARGETS:  # one row per target, each stated once, with its decision
        rows = [line for line in out.splitlines() if line.startswith(f"| {t.label} |")]
        assert len(rows) == 1 and rows[0].endswith(f"| {t.decision} |")
    assert "Cited, not measured" in out
    assert out.startswith("# x\n<!-- bench-suite:start -->\n")


def test_validate_reports_missing_fields():
    res = {k: {} for k in suite.TOP_FIELDS}
    res["targets"] = []
    problems = suite.validate(res)
    assert any("machine" in p for p in problems)
    del res["games"]
    assert suite.validate(res) == ["missing top-level field 'games'"]
    fig = {"status": "unavailable"}
    problems = []
    suite._check_fig(fig, "x", problems)
    assert problems == ["x: unavailable without a reason"]


# --- legality ------------------------------------------------------------------------------
def test_check_batch():
    masks = np.array([[1, 0, 1], [0, 1, 0]], np.int8)
    suite.check_batch(masks, np.array([2, 1]), "t")
    for bad in ([1, 1], [0, 3], [-1, 1]):
        with pytest.raises(IllegalActionInBenchmark):
            suite.check_batch(masks, np.array(bad), "t")
    suite.check_one(masks[0], 0, "t")
    for bad in (1, 3, -1):
        with pytest.raises(IllegalActionInBenchmark):
            suite.check_one(masks[0], bad, "t")


def test_random_sampler_is_legal():
    s = suite.RandomLegalSampler(3)
    rng = np.random.default_rng(0)
    masks = (rng.random((64, 9)) < 0.3).astype(np.int8)
    masks[:, 4] = 1
    out = np.zeros(64, np.int64)
    for _ in range(20):
        s.batch(masks, out)
        suite.check_batch(masks, out, "t")
        a = s.one(masks[0])
        assert masks[0, a]
        assert s.choice([3, 5, 8]) in (3, 5, 8)


@pytest.fixture(scope="module")
def single_game():
    games = single_agent_games()
    if not games:
        pytest.skip("no single-agent game registered")
    spec = registry.get_spec(games[0])
    return spec, suite.make_core(spec, 1)


def test_illegal_action_fails_batch(single_game):
    spec, core = single_game
    with pytest.raises(IllegalActionInBenchmark, match="batch"):
        suite.bench_batch(core, 8, TINY, IllegalSampler())


def test_illegal_action_fails_vector(single_game):
    spec, _ = single_game
    with pytest.raises(IllegalActionInBenchmark, match="vector"):
        suite.bench_vector(spec, 8, TINY, IllegalSampler())


def test_illegal_action_fails_single_env(single_game):
    spec, _ = single_game
    with pytest.raises(IllegalActionInBenchmark, match="single env"):
        suite.bench_single(spec, TINY, IllegalSampler())


def test_illegal_action_fails_kernel(single_game, monkeypatch):
    """The kernel's own count of illegal actions (``stats[3]``) fails the run."""
    spec, core = single_game
    real = type(core).random_rollout

    def cheating(self, states, n_steps, policy_seed, obs, masks, stats):
        real(self, states, n_steps, policy_seed, obs, masks, stats)
        stats[3] += 1

    monkeypatch.setattr(type(core), "random_rollout", cheating)
    with pytest.raises(IllegalActionInBenchmark, match="kernel"):
        suite.bench_kernel(core, TINY, 1)


def test_illegal_action_fails_the_whole_run(single_game):
    spec, _ = single_game
    settings = dataclasses.replace(
        TINY,
        games=(spec.name,),
        peers=False,
        train=False,
        start=False,
        memory=False,
        plots=False,
        profile=False,
    )
    with pytest.raises(IllegalActionInBenchmark):
        suite.run(settings, sampler=IllegalSampler(), log=lambda msg: None)


def test_main_exits_nonzero_on_illegal_action(monkeypatch, tmp_path, capsys):
    def bad_run(settings):
        raise IllegalActionInBenchmark("env 0 sampled illegal action 5")

    monkeypatch.setattr(suite.cli, "run", bad_run)
    assert suite.main(["--tiny", "--json", str(tmp_path / "x.json")]) == 3
    assert "illegal action" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_illegal_action_fails_cartpole_peers():
    with pytest.raises(IllegalActionInBenchmark, match="CartPole"):
        suite.peer_cartpole_single(TINY, IllegalSampler())
    with pytest.raises(IllegalActionInBenchmark, match="CartPole"):
        suite.peer_cartpole_vector(4, TINY, IllegalSampler())


@pytest.mark.skipif(
    not (_has("pettingzoo.classic") and _has("pygame")),
    reason="pettingzoo classic envs not installed",
)
def test_illegal_action_fails_pettingzoo_peer():
    with pytest.raises(IllegalActionInBenchmark, match="connect_four"):
        suite.peer_pettingzoo("classic/connect_four-v3", TINY, IllegalSampler())


@pytest.mark.skipif(not _has("pyspiel"), reason="open_spiel not installed")
def test_illegal_action_fails_openspiel_peer():
    with pytest.raises(IllegalActionInBenchmark, match="leduc"):
        suite.peer_openspiel("leduc_poker", TINY, IllegalSampler())


@pytest.mark.parametrize(
    "name",
    multi_agent_games()
    or [pytest.param(None, marks=pytest.mark.skip(reason="no multi-agent game registered yet"))],
)
def test_illegal_action_fails_multi_agent_paths(name):
    spec = registry.get_spec(name)
    players = suite.player_counts(spec)[0]
    core = suite.make_core(spec, players)
    with pytest.raises(IllegalActionInBenchmark, match="batch"):
        suite.bench_batch(core, 8, TINY, IllegalSampler())
    with pytest.raises(IllegalActionInBenchmark, match="AEC"):
        suite.bench_aec(spec, players, TINY, IllegalSampler())


def test_missing_peer_is_unavailable(monkeypatch):
    def no_pyspiel(*a, **k):
        raise ModuleNotFoundError("No module named 'pyspiel'", name="pyspiel")

    fig = suite.guarded(no_pyspiel)
    assert fig["status"] == "unavailable" and "pyspiel" in fig["reason"]


def test_envpool_missing_is_unavailable_with_the_reason(monkeypatch):
    """Where EnvPool does not import (not installed, no wheel for this
    Python), the peer is one ``unavailable`` entry that says why."""
    import sys

    monkeypatch.setitem(sys.modules, "envpool", None)  # import envpool -> ImportError
    logged = []
    out = suite.envpool_sweep(TINY, suite.RandomLegalSampler(0), logged.append)
    assert out["status"] == "unavailable" and "envpool" in out["reason"]
    assert out["by_config"] == {} and "unavailable" in logged[0]
    problems = []
    suite._check_fig(out, "peers.envpool_cartpole", problems)
    assert problems == []


@pytest.mark.skipif(not _has("envpool"), reason="envpool not installed")
def test_illegal_action_fails_envpool_peer():
    with pytest.raises(IllegalActionInBenchmark, match="EnvPool"):
        suite.peer_envpool_cartpole(4, 1, TINY, IllegalSampler())


# --- command line ------------------------------------------------------------------------------
def test_cli_bench_without_game_runs_the_suite(monkeypatch):
    calls = []
    monkeypatch.setattr(suite, "main", lambda argv=None: calls.append(list(argv)) or 0)
    assert cli_main(["bench", "--quick"]) == 0
    assert calls == [["--quick"]]
    assert cli_main(["bench", "--seed", "3", "--json", "x.json", "--repeats", "2"]) == 0
    assert calls[-1] == ["--seed", "3", "--json", "x.json", "--repeats", "2"]
    assert cli_main(["bench", "not_a_game"]) == 2  # a typo is still an error


def test_cli_bench_with_a_game_runs_the_suite_on_that_game(monkeypatch):
    """``dungeonrl bench unbroken --quick``: the same suite and output
    format, on Unbroken alone (the former Unbroken-only bench is folded in)."""
    if "unbroken" not in suite_games():
        pytest.skip("unbroken not registered")
    calls = []
    monkeypatch.setattr(suite, "main", lambda argv=None: calls.append(list(argv)) or 0)
    assert cli_main(["bench", "unbroken", "--quick"]) == 0
    assert calls == [["--games", "unbroken", "--quick"]]


def test_results_go_outside_the_package_unless_asked(tmp_path, monkeypatch):
    """Without --out/--json a run writes to ./bench-results, never into the
    installed package's checked-in results."""
    monkeypatch.chdir(tmp_path)
    parse = suite.build_parser().parse_args
    json_path, out = suite.output_paths(parse(["--quick"]), suite.MODES["quick"])
    assert out == str(tmp_path / "bench-results")
    assert json_path == str(tmp_path / "bench-results" / "suite_quick.json")
    json_path, out = suite.output_paths(parse(["--out", "x"]), suite.MODES["full"])
    assert (json_path, out) == (os.path.join("x", "suite.json"), "x")
    json_path, out = suite.output_paths(parse(["--json", "none"]), suite.MODES["full"])
    assert json_path is None
    assert not suite.default_out_dir().startswith(suite.RESULTS)


def test_unknown_game_is_a_clear_error(capsys):
    assert suite.main(["--tiny", "--games", "nope", "--json", "none"]) == 2
    assert "unknown game 'nope'" in capsys.readouterr().err
    assert suite.main(["--layers", "--tiny", "--games", "nope"]) == 2
    assert "unknown game 'nope'" in capsys.readouterr().err


def test_settings_from_args():
    a = suite.build_parser().parse_args(
        ["--quick", "--envs", "1,8", "--threads", "1", "--no-train", "--games", "unbroken"]
    )
    s = suite.settings_from_args(a)
    assert s.mode == "quick" and s.num_envs == (1, 8) and s.threads == (1,)
    assert not s.train and s.games == ("unbroken",)
    assert suite.settings_from_args(suite.build_parser().parse_args([])).mode == "full"
