"""Paired rounds (``benchmarks/suite/paired.py``): the loops a ratio target
compares take turns, and the ratio is the median of per-round ratios. The
loops here are simulated on a fake clock (no timing is measured), with the
machine's speed changing between rounds."""

from __future__ import annotations

import dataclasses
import statistics

import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl import registry
from dungeonrl.benchmarks.suite import MODES
from dungeonrl.benchmarks.suite.checks import RandomLegalSampler
from dungeonrl.benchmarks.suite.games import make_core
from dungeonrl.benchmarks.suite.paired import (
    PAIRS,
    fmt_paired,
    interleave,
    paired_config,
    paired_ratio,
    ratios,
)
from dungeonrl.benchmarks.suite.report import targets_markdown
from dungeonrl.benchmarks.suite.targets import evaluate_targets
from dungeonrl.benchmarks.suite.validate import _check_paired


class FakeMachine:
    """A clock that the simulated loops advance: ``cost`` seconds per unit
    of work, times the machine's current slowness, which changes every
    ``period`` calls (a shared core's fast and slow phases)."""

    def __init__(self, slowness, period):
        self.t = 0.0
        self.calls = 0
        self.slowness = slowness
        self.period = period

    def clock(self):
        return self.t

    def loop(self, cost):
        def run(k):
            phase = self.slowness[(self.calls // self.period) % len(self.slowness)]
            self.t += k * cost * phase
            self.calls += 1
            return k

        return run


def test_paired_ratio_cancels_a_speed_change_that_sequential_medians_do_not():
    m = FakeMachine(slowness=[1.0, 1.6], period=8)
    fast, slow = m.loop(1e-6), m.loop(2e-6)  # true ratio fast/slow = 2
    timed = interleave(
        {"kernel": fast, "vector": slow},
        rounds=9,
        round_time=0.01,
        clock=m.clock,
        cpu_clock=m.clock,
    )
    r = paired_ratio(timed["rates"]["vector"], timed["rates"]["kernel"])
    assert r["rounds"] == 9
    assert r["value"] == pytest.approx(0.5, rel=0.25)
    # the same two loops timed one after the other (two medians), the
    # machine slowing down in between: the ratio is off by the slowdown
    seq = FakeMachine(slowness=[1.0], period=10**9)
    k = interleave({"kernel": seq.loop(1e-6)}, 5, 0.01, clock=seq.clock, cpu_clock=seq.clock)
    seq.slowness = [1.6]
    v = interleave({"vector": seq.loop(2e-6)}, 5, 0.01, clock=seq.clock, cpu_clock=seq.clock)
    sequential = statistics.median(v["rates"]["vector"]) / statistics.median(k["rates"]["kernel"])
    assert sequential == pytest.approx(0.5 / 1.6)


def test_order_rotates_and_every_loop_runs_once_per_round():
    m = FakeMachine(slowness=[1.0], period=1)
    loops = {"a": m.loop(1e-6), "b": m.loop(1e-6), "c": m.loop(1e-6)}
    timed = interleave(loops, rounds=4, round_time=0.001, clock=m.clock, cpu_clock=m.clock)
    assert [sorted(o) for o in timed["order"]] == [["a", "b", "c"]] * 4
    assert [o[0] for o in timed["order"]] == ["a", "b", "c", "a"]
    assert all(len(v) == 4 for v in timed["rates"].values())
    assert all(r == pytest.approx(1e6) for v in timed["rates"].values() for r in v)


def test_ratios_only_for_pairs_with_both_loops():
    timed = {
        "rates": {"kernel": [2.0, 4.0, 3.0], "vector": [1.0, 3.0, 1.5]},
        "cpu_rates": {"kernel": [2.0, 4.0, 3.0], "vector": [1.0, 3.0, 1.5]},
    }
    out = ratios(timed)
    assert set(out) == {"vector_vs_kernel"}
    assert out["vector_vs_kernel"]["value"] == pytest.approx(0.5)  # median of .5 .75 .5
    assert out["vector_vs_kernel"]["min"] == 0.5 and out["vector_vs_kernel"]["max"] == 0.75
    assert set(PAIRS) >= {"kernel_vs_leduc", "vector_vs_kernel"}


def _res(cfg, multi=False):
    peers = {"os_leduc_poker": {"status": "ok", "median": 100.0, "cpu_median": 100.0}}
    return {
        "games": {"g": {"multi_agent": multi, "configs": {"1": cfg}, "start": {}}},
        "peers": peers,
    }


def test_targets_read_the_paired_ratio_and_keep_the_unpaired_one():
    fig = lambda v: {"status": "ok", "median": v, "cpu_median": v}  # noqa: E731
    cfg = {"kernel": {"1": fig(1000.0)}, "vector": {"4096": fig(300.0)}}
    plain = {r["id"]: r for r in evaluate_targets(_res(cfg))}
    assert plain["vector_vs_kernel"]["value"] == pytest.approx(0.3)
    assert "unpaired" not in plain["vector_vs_kernel"]
    cfg["paired"] = {
        "status": "ok",
        "num_envs": 4096,
        "ratios": {
            "vector_vs_kernel": {"value": 0.82, "min": 0.7, "max": 0.9, "rounds": 7, "cpu": 0.8},
            "kernel_vs_leduc": {"value": 9.0, "min": 8.0, "max": 10.0, "rounds": 7, "cpu": 9.1},
        },
    }
    rows = {r["id"]: r for r in evaluate_targets(_res(cfg))}
    v = rows["vector_vs_kernel"]
    assert v["value"] == 0.82 and v["range"] == [0.7, 0.9]
    assert v["kind"] == "reported" and v["met"] is None  # retired: reported
    assert v["unpaired"]["value"] == pytest.approx(0.3)
    assert "paired" in v["basis"]
    assert rows["kernel_vs_leduc"]["value"] == 9.0
    assert "rounds 0.70-0.90" in "\n".join(targets_markdown(list(rows.values())))
    # a paired vector loop at another num_envs is not the target's figure
    cfg["paired"]["num_envs"] = 32
    rows = {r["id"]: r for r in evaluate_targets(_res(cfg))}
    assert rows["vector_vs_kernel"]["value"] == pytest.approx(0.3)
    assert rows["kernel_vs_leduc"]["value"] == 9.0


def test_step_vs_rules_guard_from_the_paired_rounds_only():
    """The full step / rules-only ratio: a guard against its recorded
    reference, read from the paired rounds (not measured without them);
    leduc is reported beside it with no verdict."""
    fig = lambda v: {"status": "ok", "median": v, "cpu_median": v}  # noqa: E731
    cfg = {"kernel": {"1": fig(1000.0)}}
    refs = {"step_vs_rules": {"source": "x.json", "values": {"g": {"1": 1.5}}}}
    rows = {r["id"]: r for r in evaluate_targets(_res(cfg), references=refs)}
    assert rows["step_vs_rules"]["value"] is None and rows["step_vs_rules"]["met"] is None
    for value, met in ((1.74, False), (1.3, True)):
        cfg["paired"] = {
            "status": "ok",
            "num_envs": 4096,
            "ratios": {
                "step_vs_rules": {"value": value, "min": 1.2, "max": 1.9, "rounds": 7, "cpu": 1.0},
                "kernel_vs_leduc": {"value": 9.0, "min": 8, "max": 10, "rounds": 7, "cpu": 9},
            },
        }
        rows = {r["id"]: r for r in evaluate_targets(_res(cfg), references=refs)}
        r = rows["step_vs_rules"]
        assert (r["value"], r["direction"], r["met"], r["kind"]) == (value, "<=", met, "guard")
        assert r["target"] == pytest.approx(1.5 * 1.15) and r["reference"] == 1.5
        assert rows["kernel_vs_leduc"]["target"] is None and rows["kernel_vs_leduc"]["met"] is None


@pytest.mark.parametrize("name", ["unbroken", "dungeon_crawler"])
def test_paired_config_times_the_real_loops(name):
    spec = registry.get_spec(name)
    players = 1 if not spec.multi_agent else 2
    settings = dataclasses.replace(MODES["tiny"], peers=False)
    fig = paired_config(spec, make_core(spec, players), players, settings, RandomLegalSampler(0))
    assert fig["status"] == "ok" and fig["missing"] == {}
    assert set(fig["rates"]) == {"kernel", "kernel_rules", "vector", "vector_compact", "python"}
    assert all(len(r) == settings.paired_rounds and min(r) > 0 for r in fig["rates"].values())
    assert set(fig["ratios"]) == {"vector_vs_kernel", "compact_vs_kernel", "step_vs_rules"}
    # each ratio is the median of the per-round ratios of its two loops (no
    # timing claim here: a loaded CI machine can make either loop the faster)
    for tid, (a, b) in PAIRS.items():
        if tid in fig["ratios"]:
            r = fig["ratios"][tid]
            assert r == dict(paired_ratio(fig["rates"][a], fig["rates"][b]), cpu=r["cpu"])
            assert r["min"] <= r["value"] <= r["max"] and r["value"] > 0
    assert fig["vector_layer"] == ("batch" if spec.multi_agent else "vector")
    assert "vector_vs_kernel" in fmt_paired(fig)
    problems = []
    _check_paired(fig, "x", problems)
    assert problems == []
    bad = dict(fig, rates={"kernel": [1.0]})
    _check_paired(bad, "x", problems)
    assert problems and "1 rates for 2 rounds" in problems[0]


def test_paired_rounds_off():
    spec = registry.get_spec("unbroken")
    settings = dataclasses.replace(MODES["tiny"], paired_rounds=0)
    fig = paired_config(spec, make_core(spec, 1), 1, settings, RandomLegalSampler(0))
    assert fig["status"] == "unavailable" and "paired_rounds=0" in fig["reason"]
    assert np.isfinite(settings.paired_time)


def test_a_row_without_a_goal_says_it_is_reported_only():
    from dungeonrl.benchmarks.suite.report import _goal_text
    from dungeonrl.benchmarks.suite.targets import TARGETS

    leduc = next(t for t in TARGETS if t.id == "kernel_vs_leduc")
    assert _goal_text(leduc) == "reported, no target"
    step = next(t for t in TARGETS if t.id == "step_vs_rules")
    assert _goal_text(step) == "guard: <= its recorded reference + 15 % for each game"
    cartpole = next(t for t in TARGETS if t.id == "single_vs_cartpole")
    assert _goal_text(cartpole) == "target: >= 1.3x for each game"
