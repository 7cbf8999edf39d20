"""One compile policy for every kernel of the suite.

``JIT`` is the keyword set passed to ``numba.njit`` everywhere: cached to disk
(so a warm start skips compilation), no fastmath (results must be exact and
identical with ``NUMBA_DISABLE_JIT=1``), and no parallel loops (batch kernels
are plain loops; determinism never depends on threads).
"""
JIT = dict(cache=True, nogil=True, fastmath=False, boundscheck=False)
