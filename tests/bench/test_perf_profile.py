"""The per-function profile (benchmarks/perf_profile.py): parsing perf's
report, naming numba's functions from gdb's answers, adding up the shares;
a real profile where perf and gdb are there (slow)."""

from __future__ import annotations

import shutil

import pytest

from dungeonrl.benchmarks import perf_profile as pp

REPORT = """# Samples: 24K of event 'cpu-clock:pppH'
#
    12.50%  [.] 0x00007f7fde183a21
     7.50%  [.] 0x00007f7fde183a10
     5.00%  [.] __memset_avx512_unaligned_erms
     2.00%  [.] 0x00007f7fe6773060
     1.00%  [.] 0x00007f7fe0000000

"""
GDB = {
    "0x00007f7fde183a21": "dungeonrl::envs::unbroken::rules::fire[abi:v57][abi:c8tJ](Record<935>, "
    "Record<973>, long long, long long) + 17 in section .text of <in-memory@0x1>",
    "0x00007f7fde183a10": "dungeonrl::envs::unbroken::rules::fire[abi:v57][abi:c8tJ](Record<935>, "
    "Record<973>, long long, long long) in section .text of <in-memory@0x1>",
    "0x00007f7fe6773060": "NRT_decref in section .ltext of <in-memory@0x2>",
    "0x00007f7fe0000000": "No symbol matches 0x00007f7fe0000000.",
}


def test_parse_report():
    rows = pp.parse_report(REPORT)
    assert rows[0] == (12.5, "0x00007f7fde183a21")
    assert rows[2] == (5.0, "__memset_avx512_unaligned_erms") and len(rows) == 5


def test_short_name():
    assert pp.short_name(GDB["0x00007f7fde183a21"]) == "envs.unbroken.rules.fire"
    assert pp.short_name(GDB["0x00007f7fe6773060"]) == "NRT_decref"


def test_aggregate_adds_addresses_of_one_function():
    got = dict(pp.aggregate(pp.parse_report(REPORT), GDB))
    assert got["envs.unbroken.rules.fire"] == pytest.approx(20.0)
    assert got["NRT_decref"] == 2.0 and got["__memset_avx512_unaligned_erms"] == 5.0
    assert got["[unresolved JIT code]"] == 1.0
    assert pp.aggregate(pp.parse_report(REPORT), GDB)[0][0] == "envs.unbroken.rules.fire"


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("perf") is None or shutil.which("gdb") is None, reason="needs perf and gdb"
)
def test_real_profile_names_the_kernels():
    rows = dict(pp.profile("unbroken", 1, 1.0, False))
    assert any(name.startswith("envs.unbroken.") for name in rows)
    assert any(name.startswith("encoders.unbroken.") for name in rows)
    assert sum(rows.values()) == pytest.approx(100.0, abs=2.0)
