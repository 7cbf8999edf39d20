"""An alias of :mod:`~dungeonrl.benchmarks.kernel_bench` for one game, with its defaults
(``benchmarks/data/kernel_bench.toml``, named by this module's name)."""

if __name__ == "__main__":
    from dungeonrl.benchmarks.kernel_bench import main

    raise SystemExit(main(alias=__spec__.name.rpartition(".")[2]))
