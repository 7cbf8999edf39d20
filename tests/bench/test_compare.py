"""The regression guard (``python -m dungeonrl.benchmarks.compare``) on
synthetic result files: which figures count as dropped, in which
direction, and the exit codes. Nothing is timed here."""

from __future__ import annotations

import copy
import json

import pytest

from dungeonrl.benchmarks import compare


def fig(median: float) -> dict:
    return {"status": "ok", "median": median}


def suite_run(
    kernel=1_000_000.0,
    vector=500_000.0,
    python=40_000.0,
    ratio=7.0,
    warm=1.4,
    cpu="AMD EPYC",
    mode="full",
) -> dict:
    """A minimal suite result with one game, one config and two targets."""
    return {
        "schema": 2,
        "mode": mode,
        "machine": {"cpu": cpu, "cores": 2},
        "games": {
            "g": {
                "multi_agent": False,
                "configs": {
                    "1": {
                        "kernel": {"1": fig(kernel), "2": {"status": "unavailable", "reason": "x"}},
                        "batch": {"4096": fig(800_000.0)},
                        "vector": {"4096": fig(vector)},
                        "python": fig(python),
                    }
                },
                "training": {
                    "fast_ppo": fig(10_000.0),
                    "sb3": {"status": "skipped", "reason": "x"},
                },
            }
        },
        "targets": [
            {"id": "kernel_vs_leduc", "game": "g", "players": 1, "value": ratio, "direction": ">="},
            {"id": "warm_start_s", "game": "g", "players": None, "value": warm, "direction": "<="},
            {
                "id": "single_vs_cartpole",
                "game": "g",
                "players": 1,
                "value": None,
                "direction": ">=",
            },
        ],
    }


def names(rows) -> list:
    return [r[0] for r in rows]


def test_identical_runs_have_no_drop():
    r = compare.compare(suite_run(), suite_run())
    assert r["dropped"] == [] and r["improved"] == [] and r["warnings"] == []
    # every measured median and target value is compared, nothing else
    assert sorted(names(r["unchanged"])) == sorted(
        [
            "g[1p] kernel x1 threads",
            "g[1p] batch x4096 envs",
            "g[1p] vector x4096 envs",
            "g[1p] python API",
            "g training fast_ppo",
            "target kernel_vs_leduc g[1p]",
            "target warm_start_s g",
        ]
    )


def test_a_drop_beyond_the_threshold_is_named():
    r = compare.compare(suite_run(), suite_run(vector=400_000.0, python=36_000.0))
    # vector: -20 % (named); python: -10 % (within 15 %)
    assert names(r["dropped"]) == ["g[1p] vector x4096 envs"]
    name, base, new, change = r["dropped"][0]
    assert (base, new) == (500_000.0, 400_000.0) and change == pytest.approx(-0.2)
    assert "g[1p] python API" in names(r["unchanged"])


def test_threshold_is_a_parameter():
    r = compare.compare(suite_run(), suite_run(python=36_000.0), threshold=0.05)
    assert names(r["dropped"]) == ["g[1p] python API"]


def test_ratios_are_compared_and_lower_is_better_for_times():
    r = compare.compare(suite_run(), suite_run(ratio=5.0, warm=1.8))
    assert sorted(names(r["dropped"])) == ["target kernel_vs_leduc g[1p]", "target warm_start_s g"]
    r = compare.compare(suite_run(), suite_run(warm=1.0, kernel=2_000_000.0))
    assert r["dropped"] == []
    assert sorted(names(r["improved"])) == ["g[1p] kernel x1 threads", "target warm_start_s g"]


def test_figures_missing_from_the_new_run_are_listed_not_failed():
    new = suite_run()
    new["games"]["g"]["configs"]["1"]["vector"]["4096"] = {
        "status": "unavailable",
        "reason": "gone",
    }
    r = compare.compare(suite_run(), new)
    assert r["dropped"] == [] and r["missing"] == ["g[1p] vector x4096 envs"]
    assert "not measured in the new run" in compare.report(r)


def test_other_machine_or_mode_warns():
    r = compare.compare(suite_run(), suite_run(cpu="Intel Xeon", mode="quick"))
    assert len(r["warnings"]) == 2
    assert "different machines" in compare.report(r)


def test_paired_against_unpaired_targets_warns():
    new = suite_run()
    new["targets"][0]["unpaired"] = {"value": 5.0, "value_cpu": None}
    r = compare.compare(suite_run(), new)
    assert len(r["warnings"]) == 1 and "paired rounds" in r["warnings"][0]
    assert "new run are medians of paired rounds" in r["warnings"][0]
    assert compare.compare(new, new)["warnings"] == []


def test_layer_profiles_compare_microseconds():
    base = {
        "kind": "layer-profile",
        "machine": {},
        "mode": "quick",
        "configs": [
            {
                "game": "g",
                "players": 1,
                "rules_us": 0.5,
                "encoder_us": 0.2,
                "limit_us": 0.01,
                "dispatch_us": None,
            }
        ],
    }
    new = copy.deepcopy(base)
    new["configs"][0]["encoder_us"] = 0.3  # slower: a drop
    new["configs"][0]["rules_us"] = 0.4  # faster
    r = compare.compare(base, new)
    assert names(r["dropped"]) == ["g[1p] encoder_us"]
    assert names(r["improved"]) == ["g[1p] rules_us"]
    with pytest.raises(ValueError, match="layer profile"):
        compare.compare(suite_run(), new)


def test_bad_threshold_is_rejected():
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="threshold"):
            compare.compare(suite_run(), suite_run(), threshold=bad)


def test_main_exit_codes(tmp_path, capsys):
    base, same, worse = tmp_path / "base.json", tmp_path / "same.json", tmp_path / "worse.json"
    base.write_text(json.dumps(suite_run()))
    same.write_text(json.dumps(suite_run(kernel=1_050_000.0)))
    worse.write_text(json.dumps(suite_run(kernel=700_000.0)))
    assert compare.main([str(same), "--base", str(base)]) == 0
    assert "no figure dropped" in capsys.readouterr().out
    assert compare.main([str(worse), "--base", str(base)]) == 1
    out = capsys.readouterr().out
    assert "DROPPED" in out and "g[1p] kernel x1 threads" in out and "-30.0%" in out
    assert compare.main([str(worse), "--base", str(base), "--threshold", "0.5"]) == 0
    capsys.readouterr()
    assert compare.main([str(tmp_path / "nope.json"), "--base", str(base)]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    assert compare.main([str(tmp_path / "other.json"), "--base", str(base)]) == 2
    assert "not a `dungeonrl bench` result" in capsys.readouterr().err


def test_checked_in_reference_run_compares_with_itself():
    """The default base is readable and yields figures (the guard works on
    the real schema, not only on the synthetic one)."""
    data = compare._load(compare.DEFAULT_BASE)
    assert len(compare.figures(data)) > 20
    assert compare.compare(data, data)["dropped"] == []


def test_cpu_mode_compares_steps_per_cpu_second():
    """--cpu reads ``cpu_median`` and ``value_cpu``: a wall-clock drop from
    load alone is not named, a drop in CPU terms is."""
    base, new = suite_run(), suite_run(kernel=500_000.0, ratio=5.0)  # wall clock halved
    for res, kernel_cpu, ratio_cpu in ((base, 1_000_000.0, 7.0), (new, 950_000.0, 4.0)):
        res["games"]["g"]["configs"]["1"]["kernel"]["1"]["cpu_median"] = kernel_cpu
        res["targets"][0]["value_cpu"] = ratio_cpu
        res["targets"][1]["unit"] = "s"  # times have no CPU form: still compared
    r = compare.compare(base, new, cpu=True)
    assert sorted(names(r["dropped"])) == ["target kernel_vs_leduc g[1p]"]
    assert "g[1p] kernel x1 threads" in names(r["unchanged"])
    # figures without a CPU median are not compared in this mode
    assert "g[1p] vector x4096 envs" not in names(r["unchanged"] + r["dropped"])
    assert "g[1p] kernel x1 threads" in names(compare.compare(base, new)["dropped"])


def test_loaded_machine_warns():
    new = suite_run()
    new["load_before"] = [8.5, 8.0, 6.0]
    r = compare.compare(suite_run(), new)
    assert any("load 8.5 on 2 cores" in w for w in r["warnings"])
