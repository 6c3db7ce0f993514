"""The process's memory, as the batched runs measure it (:func:`cqlindex.exec.rows.grouped`).

A batch's need is what the process held at its most during the batch less what it held before.
The process's peak says it exactly when the batch set a new peak; otherwise the peak is older
than the batch (a bigger query earlier in a long-lived process: the API, a notebook, the
benchmark) and would bound the batch's need from far above, keeping every later batch of every
later query at the smallest size. So :class:`Watch` also samples the resident memory while the
batch runs (DuckDB works without the GIL) and takes the larger of the two readings. Where the
system does not tell (no ``/proc``, no ``resource``), None: the caller keeps its batches as they
are. The peak is never reset (``/proc/self/clear_refs``): that would hide it from whoever
measures the process (``time``, ``wait4``).
"""

from __future__ import annotations

import os
import sys
import threading

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident() -> int | None:
    """Bytes resident now (Linux: ``/proc/self/statm``), or None."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def peak() -> int | None:
    """The process's peak resident bytes so far, or None. The kernel updates it lazily, so it may
    trail :func:`resident` a little (counters the threads have not yet added in)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    most = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return most if sys.platform == "darwin" else most * 1024  # bytes on macOS, KiB elsewhere


class Watch:
    """``with Watch() as watch: ...``, then ``watch.taken``: at least the bytes the block took
    beyond what the process held when it began (sampled every :data:`SAMPLE_SECONDS`, and exact
    whenever the block set the process's peak), or None where memory cannot be read."""

    def __init__(self) -> None:
        self.taken: int | None = None
        self._before = resident()
        self._most = self._before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="cqlindex-memory", daemon=True)

    def __enter__(self) -> Watch:
        self._peak = peak()
        if self._before is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._before is None:
            return
        self._stop.set()
        self._thread.join()
        self._note()
        most = peak()
        grown = most - self._before if most is not None and self._peak is not None and most > self._peak else 0
        self.taken = max(0, self._most - self._before, grown)

    def _sample(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self._note()

    def _note(self) -> None:
        now = resident()
        if now is not None and now > self._most:
            self._most = now


#: How often :class:`Watch` reads the resident memory: DuckDB's hash tables and windows live for
#: the whole of a batch's scan, far longer than this.
SAMPLE_SECONDS = 0.005
