"""Guards and reported rows of the speed table (``benchmarks/suite/targets.py``,
``benchmarks/suite/guards.py``): a guard is a limit that fails when exceeded,
a relative guard is read against a recorded reference, the retired targets
are reported, and the committed page shows no MISSED row. Nothing is timed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dungeonrl.benchmarks import compare, report
from dungeonrl.benchmarks.guard_reference import main as reference_main
from dungeonrl.benchmarks.suite import guards
from dungeonrl.benchmarks.suite.report import targets_markdown
from dungeonrl.benchmarks.suite.targets import (
    TARGET_BY_ID,
    TARGETS,
    Target,
    cold_start_targets,
    evaluate_targets,
    failed_guards,
    fmt_target,
)

ROOT = Path(__file__).resolve().parents[2]
REFS = {"step_vs_rules": {"source": "ref.json", "run": {}, "values": {"g": {"2": 2.0}}}}


def fig(v: float) -> dict:
    return {"status": "ok", "median": v, "cpu_median": v}


def run_with(step_ratio=None, warm=0.8, vector=0.38, kernel=None, rules=None, obs_bytes=400):
    """A one-game, one-configuration suite run (2 seats) with paired rounds."""
    cfg = {
        "kernel": {"1": fig(1_000_000.0)},
        "batch": {"4096": fig(380_000.0)},
        "python": fig(50_000.0),
        "memory": {"buffers": {"obs": obs_bytes}},
    }
    ratios = {"vector_vs_kernel": {"value": vector, "min": vector, "max": vector, "rounds": 3}}
    if step_ratio is not None:
        ratios["step_vs_rules"] = {"value": step_ratio, "min": 1.0, "max": 3.0, "rounds": 3}
    cfg["paired"] = {
        "status": "ok",
        "num_envs": 4096,
        "rounds": 3,
        "rates": {"kernel": kernel or [], "kernel_rules": rules or []},
        "ratios": ratios,
    }
    start = {"status": "ok", "cold_s": None, "warm_s": warm}
    return {
        "machine": {"cpu": "X", "cores": 2},
        "mode": "full",
        "games": {
            "g": {"env_id": "ns/G-v0", "multi_agent": True, "configs": {"2": cfg}, "start": start}
        },
        "peers": {},
    }


def rows_of(res, **kw) -> dict:
    return {r["id"]: r for r in evaluate_targets(res, references=REFS, **kw)}


def test_a_ratio_16_percent_over_its_reference_fails_14_percent_passes():
    within = rows_of(run_with(step_ratio=2.0 * 1.14))["step_vs_rules"]
    over = rows_of(run_with(step_ratio=2.0 * 1.16))["step_vs_rules"]
    for r in (within, over):
        assert r["kind"] == "guard" and r["reference"] == 2.0
        assert r["target"] == pytest.approx(2.3) and "ref.json" in r["basis"]
    assert within["met"] is True and fmt_target(within)[2] == "within guard"
    assert over["met"] is False and fmt_target(over)[2] == "GUARD FAILED"
    assert failed_guards([within, over]) == [over]
    assert "(reference 2.00x + 15 %)" in fmt_target(over)[1]


def test_a_guard_without_a_recorded_reference_has_no_verdict():
    r = evaluate_targets(run_with(step_ratio=5.0), references={})
    row = next(x for x in r if x["id"] == "step_vs_rules")
    assert row["kind"] == "guard" and row["target"] is None and row["met"] is None
    assert fmt_target(row)[2] == "guard: no recorded reference"
    assert "no recorded reference" in row["basis"] and failed_guards(r) == []


def test_warm_start_is_a_guard_at_one_and_a_half_seconds():
    assert rows_of(run_with(warm=1.45))["warm_start_s"]["met"] is True
    row = rows_of(run_with(warm=1.55))["warm_start_s"]
    assert (row["kind"], row["target"], row["met"]) == ("guard", 1.5, False)
    assert fmt_target(row)[2] == "GUARD FAILED"


def test_retired_targets_are_reported_without_a_verdict():
    rows = rows_of(run_with(vector=0.38))
    for tid in ("vector_vs_kernel", "kernel_vs_leduc", "compact_vs_kernel"):
        assert TARGET_BY_ID[tid].kind == "reported" and TARGET_BY_ID[tid].goal == {}
        assert rows[tid]["kind"] == "reported" and rows[tid]["met"] is None
    assert rows["vector_vs_kernel"]["value"] == 0.38
    assert fmt_target(rows["vector_vs_kernel"])[2] == "reported"
    with pytest.raises(ValueError, match="reported row has no goal"):
        Target("x", "x", "x", "x", {"*": 1.0}, kind="reported")
    with pytest.raises(ValueError, match="kind must be one of"):
        Target("x", "x", "x", "x", {}, kind="wish")


def test_ns_per_observation_column_from_the_paired_rounds():
    # 1e6 steps/s full and 2e6 rules-only: 1,000 - 500 ns of observation per
    # step over 100 float32 columns (400 bytes) = 5 ns per column
    res = run_with(kernel=[1e6, 1e6, 0.5e6], rules=[2e6, 2e6, 2e6], obs_bytes=400)
    row = rows_of(res)["obs_ns_per_column"]
    assert row["value"] == pytest.approx(5.0) and row["range"] == pytest.approx([5.0, 15.0])
    assert row["kind"] == "reported" and row["unit"] == "ns" and "100 columns" in row["basis"]
    cfg = res["games"]["g"]["configs"]["2"]
    cfg["obs_columns"] = 50  # recorded by newer runs, preferred to the buffer's bytes
    assert guards.ns_per_column(cfg)["value"] == pytest.approx(10.0)
    assert rows_of(run_with())["obs_ns_per_column"]["value"] is None  # no rules-only rounds


COLD = {
    "date": "2026-12-04",
    "commit": "abc1234",
    "machine": {"cpu": "X", "cores": 2},
    "cold": {"ns/G-v0": 34.0, "ns/H-v0": 36.0},
    "precompile": 99.0,
    "jobs": 2,
}


def test_cold_start_guards_first_step_35_s_precompile_100_s():
    rows = cold_start_targets(COLD)
    by = {(r["id"], r["game"]): r for r in rows}
    assert [r["id"] for r in rows] == ["cold_first_step_s"] * 2 + ["precompile_s"]
    assert by[("cold_first_step_s", "ns/G-v0")]["met"] is True
    over = by[("cold_first_step_s", "ns/H-v0")]
    assert (over["kind"], over["target"], over["met"]) == ("guard", 35.0, False)
    pre = by[("precompile_s", "all games")]
    assert (pre["kind"], pre["target"], pre["met"]) == ("guard", 100.0, True)
    assert "cold_start.json, 2026-12-04 at abc1234" in pre["basis"]
    assert cold_start_targets(dict(COLD, precompile=101.0))[-1]["met"] is False


def test_cold_start_guards_hold_on_the_reference_machine_only():
    rows = cold_start_targets(dict(COLD, machine={"cpu": "Y", "cores": 16}))
    assert all(r["kind"] == "reported" and r["met"] is None for r in rows)
    assert fmt_target(rows[1])[2].startswith("reported: measured on 16 cores")
    pre = cold_start_targets(dict(COLD, jobs=4))[-1]
    assert pre["met"] is None and "4 processes, not 2" in fmt_target(pre)[2]


def test_cold_start_rows_of_a_suite_run_are_named_after_its_games():
    rows = evaluate_targets(run_with(), cold_start=COLD, references=REFS)
    cold = [r for r in rows if r["id"] in ("cold_first_step_s", "precompile_s")]
    assert [(r["id"], r["game"]) for r in cold] == [
        ("cold_first_step_s", "g"),  # ns/H-v0 is not a game of this run
        ("precompile_s", "all games"),
    ]


def test_compare_exits_1_on_a_failed_guard(tmp_path, capsys):
    base, new = run_with(step_ratio=2.0), run_with(step_ratio=2.0 * 1.16)
    for res in (base, new):
        res["targets"] = []
    r = compare.compare(base, new)
    names = [name for name, *_ in compare.failed_guards_of(new, references=REFS)]
    assert names == ["guard step_vs_rules g[2p]"]
    assert compare.failed_guards_of(base, references=REFS) == []
    # against the recorded references: game "g" has none, so nothing fails there
    assert r["failed_guards"] == []
    new["games"]["g"]["start"]["warm_s"] = 2.0
    (tmp_path / "b.json").write_text(json.dumps(base))
    (tmp_path / "n.json").write_text(json.dumps(new))
    assert compare.main([str(tmp_path / "n.json"), "--base", str(tmp_path / "b.json")]) == 1
    out = capsys.readouterr().out
    assert "GUARD FAILED" in out and "guard warm_start_s g" in out and "1 guard(s) failed" in out


def test_record_writes_the_references_with_where_they_came_from(tmp_path):
    res = run_with(step_ratio=1.9, kernel=[1e6] * 3, rules=[2e6] * 3)
    res.update(created="2026-12-03T13:34:49+0000", command="dungeonrl bench")
    src = tmp_path / "suite.json"
    src.write_text(json.dumps(res))
    out = tmp_path / "ref.json"
    refs = guards.record(str(src), str(out), today="2026-12-06")
    ref = json.loads(out.read_text())["step_vs_rules"]
    assert ref == refs["step_vs_rules"]
    assert ref["values"] == {"g": {"2": 1.9}} and ref["ns_per_column"] == {"g": {"2": 5.0}}
    assert ref["source"] == str(src) and ref["recorded"] == "2026-12-06"
    assert ref["run"]["created"].startswith("2026-12-03") and ref["run"]["machine"] == "X, 2 cores"
    assert ref["recorded_by"].endswith(f"record {src}")
    # a run without paired rounds has nothing to record
    del res["games"]["g"]["configs"]["2"]["paired"]
    src.write_text(json.dumps(res))
    with pytest.raises(ValueError, match="no paired step_vs_rules ratio"):
        guards.record(str(src), str(out))
    assert reference_main(["record", str(src), "--out", str(out)]) == 2


def test_the_committed_references_are_the_reference_run_s_ratios():
    refs = guards.load_references()
    ref = refs["step_vs_rules"]
    assert ref["source"] == "benchmarks/results/suite.json"
    suite_run = json.loads((ROOT / ref["source"]).read_text())
    assert ref["run"]["created"] == suite_run["created"]
    for game, g in suite_run["games"].items():
        for pkey, cfg in g["configs"].items():
            want = cfg["paired"]["ratios"]["step_vs_rules"]["value"]
            assert ref["values"][game][pkey] == want


def _suite_section() -> str:
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    m = re.search(r"<!-- bench-suite:start -->\n(.*?)<!-- bench-suite:end -->", page, re.S)
    assert m, "docs/benchmarks.md lost its bench-suite section"
    return m.group(1)


def test_the_benchmarks_page_has_no_missed_row():
    section = _suite_section()
    table = [line for line in section.splitlines() if line.startswith("| ")]
    head = table.index("| figure | kind and limit | this run | decided |")
    rows = table[head + 1 : head + 1 + len(TARGETS)]  # the |---| line is not a "| " row
    assert len(rows) == len(TARGETS)
    allowed = {"met", "within guard", "reported", "reported: not recorded by this run"}
    for t, line in zip(TARGETS, rows):
        cells = line.split(" | ")
        assert cells[0] == f"| {t.label}" and line.endswith(f"| {t.decision} |")
        assert cells[1].split(":")[0] in ("target", "guard", "reported, no target")
        # each game's verdict is the last parenthesis of its entry
        states = re.findall(r"\(([^()]*)\)(?:;|$)", cells[2])
        assert states and set(states) <= allowed, (t.id, states)
        assert t.decision.count(". ") == 0 and t.decision.endswith(".")
    assert "MISSED" not in section and "GUARD FAILED" not in section


def test_the_page_is_regenerated_from_the_saved_runs():
    # the table the page shows is the one the saved runs give today
    changed = report.regenerate(str(ROOT), report.RESULTS, only=["bench-suite"], write=False)
    assert str(ROOT / "docs" / "benchmarks.md") not in changed
    lines = targets_markdown(
        evaluate_targets(
            json.loads((ROOT / "benchmarks/results/suite.json").read_text()),
            json.loads((ROOT / "benchmarks/results/baselines.json").read_text()),
            json.loads((ROOT / "benchmarks/results/cold_start.json").read_text()),
        )
    )
    assert "\n".join(lines) in _suite_section()
