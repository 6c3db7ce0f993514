"""cqlindex's own processes (parse workers, the console script) keep freed arrays for the next
instead of faulting them in again."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

# Batches of arrays of a worker's sizes (1.6-2 MB, varying a little), made and freed 30 times:
# the minor page faults it takes.
_BATCHES = """
import resource, sys
import numpy as np
if sys.argv[1] == "tuned":
    from cqlindex.heap import reuse_freed_memory
    assert reuse_freed_memory()
elif sys.argv[1].startswith("console"):
    from cqlindex.launch import console
    query = ["query", "/nonexistent/index.duckdb", "Ka1"]  # ends with an error, after the start-up
    sys.argv[1:] = query if sys.argv[1] == "console-query" else ["--version"]
    try:
        console()
    except SystemExit:
        pass
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for i in range(30):
    arrays = [np.ones(200_000 + 1000 * (i % 7) + 5000 * k, dtype=np.uint64) for k in range(6)]
    del arrays
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="tunes glibc's malloc")


def _faults(mode: str) -> int:
    env = {name: value for name, value in os.environ.items() if not name.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", _BATCHES, mode], capture_output=True, text=True, check=True,
                         env=env)
    return int(out.stdout.split()[-1])  # after what the console script printed


@glibc
def test_freed_batches_are_reused_not_faulted_in_again() -> None:
    default, tuned = _faults("default"), _faults("tuned")
    # measured: 67,649 faults by default, 2,548 tuned
    assert tuned * 5 < default, (default, tuned)


@glibc
def test_a_query_from_the_console_script_tunes_its_own_process() -> None:
    default, query, other = _faults("default"), _faults("console-query"), _faults("console-version")
    assert query * 5 < default, (default, query)
    assert other * 5 > default, (default, other)  # not a query (serve lives on): malloc as it is

