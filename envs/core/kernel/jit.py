"""One compile policy for every kernel of the suite.

``JIT`` is the keyword set passed to ``numba.njit`` everywhere: cached to disk
(so a warm start skips compilation), no fastmath (results must be exact and
identical with ``NUMBA_DISABLE_JIT=1``), no parallel loops (batch kernels
are plain loops; determinism never depends on threads), and numpy's error
model: no zero test before each integer division or modulo (the rules never
divide by zero; with the JIT off, Python would still raise).
"""

JIT = dict(cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy")
#: the same, inlined into every caller at numba IR level: for the engine's
#: small per-step helpers (mask refresh, auto-advance, the step wrapper, the
#: random-action draw), which cost ~10% of a Dungeon Crawler step as calls
JIT_INLINE = dict(JIT, inline="always")
