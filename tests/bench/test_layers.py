"""The per-layer profile (``dungeonrl bench --layers``): its parts, the
physical limit, and the markdown table the README includes. No timing is
asserted, only that every part is measured and the table is well formed."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dungeonrl  # noqa: F401  (registers the games)
from dungeonrl import registry
from dungeonrl.benchmarks import suite
from dungeonrl.benchmarks.suite import breakdown


def single_agent_game() -> str:
    for name in registry.list_games():
        if registry.game_module(name) in registry.GAMES and not registry.get_spec(name).multi_agent:
            return name
    pytest.skip("no single-agent game registered")


def synthetic_profile() -> dict:
    """A layer profile with two configurations and known figures."""

    def cfg(game, players, kernel):
        c = {
            "game": game,
            "players": players,
            "num_envs": 64,
            "bytes": {"obs": 1712, "mask": 80, "reward": 4 * players, "total": 1792 + 4 * players},
            "kernel_us": kernel,
            "vector_us": None,
        }
        for i, (key, _) in enumerate(breakdown.PARTS):
            c.setdefault(key, 0.1 * (i + 1))
        c["vector_us"] = None  # a part not measured: shown as "-"
        c["limit_us"] = c["bytes"]["total"] / 10_000.0
        c["limit_steps_per_s"] = 1e6 / c["limit_us"]
        return c

    return {
        "kind": "layer-profile",
        "mode": "quick",
        "num_envs": 64,
        "created": "2026-12-01T00:00:00+0000",
        "load_before": [1.0, 1.0, 1.0],
        "machine": {"cpu": "Test CPU", "cores": 2},
        "bandwidth": {"write_bytes_per_s": 1e10, "method": "numpy copyto, best of 3"},
        "configs": [
            cfg("unbroken", 1, 0.8),
            cfg("dungeon_crawler", 2, 1.0),
            cfg("dungeon_crawler", 4, 1.1),
        ],
    }


def test_markdown_table_shape():
    res = synthetic_profile()
    text = breakdown.markdown(res)
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| part |"))
    assert lines[header] == "| part | unbroken | dungeon_crawler 2p | dungeon_crawler 4p |"
    assert lines[header + 1] == "|---|---:|---:|---:|"
    table = lines[header + 2 :]
    # one row per part, then bytes, the limit and the kernel's share of it
    assert len(table) == len(breakdown.PARTS) + 3
    for row, (_key, label) in zip(table, breakdown.PARTS):
        assert row.startswith(f"| {label} |") and row.count("|") == 5
    vector_row = table[[k for k, _ in breakdown.PARTS].index("vector_us")]
    assert vector_row.endswith("| - | - | - |")
    assert "| 1,712 + 80 + 4 |" in table[-3] and "1,712 + 80 + 8" in table[-3]
    # limit: 1e10 B/s over 1,796 B = 5.57M steps/s
    assert table[-2].startswith("| limit, steps/s per core | 5.57M |")
    share = res["configs"][0]["limit_us"] / 0.8
    assert f"{share:.1%}" in table[-1]
    assert "10.0 GB/s written" in text and "Test CPU" in text


def test_memory_bandwidth_and_bytes_per_step():
    bw = breakdown.memory_bandwidth(mib=4, copies=2)
    assert bw["array_bytes"] == 4 << 20 and bw["copies"] == 2
    assert bw["write_bytes_per_s"] >= bw["write_bytes_per_s_median"] > 0
    from dungeonrl.envs.core.batch import Batch

    spec = registry.get_spec(single_agent_game())
    buf = Batch(suite.make_core(spec, 1), 3)
    b = breakdown.bytes_per_step(buf)
    assert b["obs"] == spec.obs_size * 4
    assert b["mask"] == spec.num_actions * buf.masks.itemsize
    assert b["reward"] == 4 and b["total"] == b["obs"] + b["mask"] + b["reward"]


def test_tiny_profile_end_to_end(tmp_path, capsys):
    """Every part measured for one game, written as JSON and markdown,
    readable by the README generator and the compare guard."""
    name = single_agent_game()
    assert suite.main(["--layers", "--tiny", "--games", name, "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "layers_tiny.json").read_text())
    (cfg,) = data["configs"]
    for key, _ in breakdown.PARTS:
        assert cfg.get(key) is not None and cfg[key] >= 0, key  # Unbroken games are short
    assert cfg["rules_us"] > 0 and cfg["encoder_us"] > 0 and cfg["mask_us"] > 0
    assert cfg["paired_rounds"] == breakdown.PAIRED_ROUNDS  # fused, kernels, vector in turns
    assert cfg["unfused_us"] == pytest.approx(
        cfg["rules_us"] + cfg["reset_us"] + cfg["mask_us"] + cfg["encoder_us"]
    )
    md = (tmp_path / "layers_tiny.md").read_text()
    assert md.strip() == breakdown.markdown(data)
    assert "| rules (`step`, encoder and mask off) |" in capsys.readouterr().out
    from dungeonrl.benchmarks import compare, report

    assert compare.compare(data, data)["dropped"] == []
    (tmp_path / "layers.json").write_text(json.dumps(data))
    readme = "<!-- bench-layers:start -->\nOLD\n<!-- bench-layers:end -->\n"
    assert "| part |" in report.render(readme, str(tmp_path), only=["bench-layers"])


def test_illegal_action_fails_the_profile():
    class Illegal:
        def batch(self, masks, out):
            out[:] = np.argmin(masks, axis=1)
            return out

    spec = registry.get_spec(single_agent_game())
    with pytest.raises(suite.IllegalActionInBenchmark):
        breakdown.unfused_parts(suite.make_core(spec, 1), 8, 0.01, Illegal())


def test_unknown_mode_is_an_error():
    with pytest.raises(ValueError, match="unknown mode"):
        breakdown.run("warp")
