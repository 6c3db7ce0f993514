"""The process's memory, as the batched runs measure it (:func:`cqlindex.exec.rows.grouped`).

A batch's need is bounded from above by the process's peak after it less its resident memory
before it: the peak may be older than the batch (then the bound is loose, never short). Where
the system does not tell (no ``/proc``, no ``resource``), None: the caller keeps its batches as
they are.
"""

from __future__ import annotations

import os
import sys

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident() -> int | None:
    """Bytes resident now (Linux: ``/proc/self/statm``), or None."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def peak() -> int | None:
    """The process's peak resident bytes so far, or None."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    most = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return most if sys.platform == "darwin" else most * 1024  # bytes on macOS, KiB elsewhere


def peak_since(before: int | None) -> int | None:
    """At least the bytes taken since ``before`` (a :func:`resident` reading): the peak less it."""
    if before is None:
        return None
    most = peak()
    return None if most is None else max(0, most - before)
