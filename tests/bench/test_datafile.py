"""The benchmarks' data files (benchmarks/data/*.toml): each loads and its
loader checks what it reads."""

import glob
import os

import pytest

from dungeonrl.benchmarks import datafile


@pytest.mark.parametrize(
    "path", sorted(glob.glob(os.path.join(datafile.DATA, "*.toml"))), ids=os.path.basename
)
def test_every_data_file_parses(path):
    assert isinstance(datafile.load(path), dict)


def test_rows_check_keys_and_games():
    data = {"rows": [{"game": "no_such_game", "x": 1}]}
    with pytest.raises(ValueError, match="unknown game 'no_such_game'"):
        datafile.rows(data, "rows", "t.toml", ("game",), ("x",))
    with pytest.raises(ValueError, match=r"missing keys \['y'\], unknown keys \['x'\]"):
        datafile.rows({"rows": [{"x": 1}]}, "rows", "t.toml", ("y",))


def test_kernel_bench_blocks_resolve():
    from dungeonrl.benchmarks import kernel_bench

    for blocks in kernel_bench.BLOCKS.values():
        assert all(callable(kernel_bench._function(b)) for b in blocks)
