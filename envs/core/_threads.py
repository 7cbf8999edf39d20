"""One batch's rows stepped on several threads (``Batch(..., num_threads=k)``).

Every row of a batch is a game of its own: the kernels read and write row
``i`` of each per-row array and nothing else (the content tables are read
only, each row carries its own generator). So a batch can hand contiguous
slices of its rows to ``k`` threads and run the same compiled entry point on
each slice at once: the kernels are compiled ``nogil``, the slices of
C-contiguous buffers have the buffers' own types (one compiled overload for
every slice), and no row sees which thread stepped it, so the results are
bit-identical to one thread for every ``k`` (``tests/engine/test_threads.py``).

A slice shorter than :data:`MIN_ROWS` rows is not worth a hand-off to a
thread (a few microseconds), so a batch of ``n`` rows uses at most
``n // MIN_ROWS`` threads: a small batch steps on the calling thread alone.
The calling thread runs the first slice itself; a pool of ``k - 1``
workers, started on the first threaded call, runs the others.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

__all__ = ["MIN_ROWS", "RowSplitter", "row_splits"]

#: the fewest rows a thread is given
MIN_ROWS = 64


def row_splits(n: int, threads: int) -> tuple:
    """``(lo, hi)`` of each thread's contiguous rows, as even as possible;
    ``()`` when the batch steps on one thread (``threads`` 1, or fewer than
    ``2 * MIN_ROWS`` rows)."""
    k = min(int(threads), max(1, int(n) // MIN_ROWS))
    if k <= 1:
        return ()
    bounds = [n * t // k for t in range(k + 1)]
    return tuple(zip(bounds[:-1], bounds[1:]))


class RowSplitter:
    """Runs a kernel call on ``splits`` (see :func:`row_splits`) at once."""

    def __init__(self, splits: tuple):
        self.splits = splits
        self._pool: ThreadPoolExecutor | None = None

    def run(self, fn, args: tuple, whole: tuple = (1,)) -> None:
        """``fn`` on every slice of the rows of ``args``; the arguments at the
        positions ``whole`` (the content tables) go to every call as they
        are, every other one is a per-row array sliced along its first axis.
        The first error of any slice is raised after all slices finished."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(
                len(self.splits) - 1, thread_name_prefix="dungeonrl-rows"
            )
        calls = [
            tuple(a if j in whole else a[lo:hi] for j, a in enumerate(args))
            for lo, hi in self.splits
        ]
        pending = [self._pool.submit(fn, *c) for c in calls[1:]]
        error: BaseException | None = None
        try:
            fn(*calls[0])
        except BaseException as first:  # still wait for the other slices
            error = first
        for p in pending:
            failed = p.exception()  # waits for the slice
            if error is None:
                error = failed
        if error is not None:
            raise error

    def close(self) -> None:
        """Stop the worker threads (a later call starts them again)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
