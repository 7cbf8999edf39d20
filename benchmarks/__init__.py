"""Throughput benchmarks of the suite (``dungeonrl.benchmarks``)."""
