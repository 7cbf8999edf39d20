"""Hypothesis profiles of the fuzz tests (``tests/fuzz/test_*.py``).

* ``ci`` (default): a few dozen examples per test, sized so the whole fuzz
  layer runs in well under a minute on two cores; derandomized (the examples
  are derived from each test's own source), so a run is reproducible and a
  red run is never a new random draw;
* ``long``: ``HYPOTHESIS_PROFILE=long pytest tests/fuzz/test_*.py`` runs
  about 40x more examples per test (minutes), randomized, for a deeper
  search; what it finds becomes a case of ``tests/fuzz/test_regressions.py``.

``choice(data)`` turns Hypothesis' ``data`` into the ``choice(kind, options)``
callable the fuzzers of ``dungeonrl.benchmarks.fuzz`` take.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

_COMMON = dict(
    deadline=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
settings.register_profile("ci", max_examples=25, derandomize=True, **_COMMON)
settings.register_profile("long", max_examples=1000, derandomize=False, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def choice(data):
    def pick(kind, options):
        return data.draw(st.sampled_from(list(options)), label=kind)

    return pick
