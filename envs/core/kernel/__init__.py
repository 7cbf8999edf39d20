"""The numba side of the engine: the compile policy, per-env random numbers,
chance, pile helpers, raw memory operations, the state header, and the code
generator of every game's kernels (with the freshness check those kernels
run on import). Imports only numpy, numba and this folder (see README.md)."""
