"""A process of cqlindex's own keeps the memory it frees for its next array.

Parse workers turn every batch of games into numpy arrays of a few megabytes each, free them and
make the same arrays again; the columnar engine does the same per filter and batch of a query.
glibc's malloc serves blocks that large with ``mmap`` and unmaps them on free (its threshold
rises only slowly), and gives the top of the heap back to the system once 128 KiB of it is free:
each array faulted its pages in afresh.

:func:`reuse_freed_memory` asks for blocks under 32 MiB from the heap and no trimming of the
heap below 1 GiB. Both settings are needed: either alone leaves the faults as they were, or
worse. Measured:
- build of the whole gnuchess file (11.4 M positions, 2 workers): 0.98-1.03 M minor page faults
  and 4.2-4.7 CPU s of system time by default, 0.80 M and 3.6-3.8 s tuned, the same peak RSS;
- ``cqlindex query`` of p24 of the patterns on the 20,000-game slice, a fresh process: 104 K
  faults, 0.40 s of system time and 0.95 s wall by default; 55 K, 0.20 s and 0.69 s tuned
  (p02: 0.72 -> 0.56 s, p09: 0.92 -> 0.74 s), the same peak RSS.

Only processes cqlindex owns, that end with their work, are tuned: the parse workers and a
query run by the console script (:func:`cqlindex.launch.console`; not ``serve``, which lives on
and should give back what a big query took). Never a process that merely imports cqlindex:
that may be someone's long-lived program (the API, a notebook, a test run of the command
line), whose allocator is not ours to set, and a heap that keeps what it frees hides a later
block's growth from the memory readings of :mod:`cqlindex.exec.memory`. Elsewhere than glibc
(macOS, musl) it does nothing.
"""

from __future__ import annotations

import ctypes
import sys

_M_TRIM_THRESHOLD = -1  # from <malloc.h>
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 * 2**20
_TRIM_THRESHOLD = 2**30


def reuse_freed_memory() -> bool:
    """Tune glibc's malloc as above; whether it took."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False  # not glibc
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
