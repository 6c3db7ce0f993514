"""The process's memory readings the batched runs grow their batches by."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from cqlindex.exec import memory


linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/statm is Linux's")


def _touched(size: int) -> bytearray:
    block = bytearray(size)
    block[::4096] = b"x" * len(block[::4096])  # written: resident
    return block


@linux
def test_readings_see_memory_taken() -> None:
    assert memory.resident() > 0 and memory.peak() > 0  # (the kernel updates the peak lazily: either may lead)
    with memory.Watch() as watch:
        block = _touched(64 * 2**20)
    assert watch.taken >= 60 * 2**20
    del block


@linux
def test_a_block_below_an_older_peak_is_measured_by_sampling() -> None:
    """A bigger block earlier sets the process's peak; a later, smaller one is still seen at
    its own size, not at the old peak's (which kept every later batch at the smallest size)."""
    _touched(256 * 2**20)  # made and freed: the peak is now far above what follows
    with memory.Watch() as watch:
        block = _touched(32 * 2**20)
        time.sleep(5 * memory.SAMPLE_SECONDS)
        del block
    assert 24 * 2**20 <= watch.taken < 128 * 2**20


@linux
def test_memory_freed_before_the_block_ends_still_counts() -> None:
    """Made and freed without letting the sampling thread run (the GIL is handed over every 10 s),
    so only the process's new peak sees it. In a fresh process, with a block above the peak it
    starts with: Linux hands a child its parent's peak at exec (a test worker's, often higher)."""
    script = (
        "import sys\n"
        "from cqlindex.exec import memory\n"
        "size = max(512 * 2**20, memory.peak() + 256 * 2**20)\n"
        "sys.setswitchinterval(10)\n"
        "with memory.Watch() as watch:\n"
        "    block = bytearray(size)\n"
        "    block[::4096] = b'x' * len(block[::4096])\n"
        "    del block\n"
        "print(watch.taken, size)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    taken, size = map(int, done.stdout.split())
    assert taken >= size - 8 * 2**20


def test_nothing_read_nothing_claimed(monkeypatch) -> None:
    monkeypatch.setattr(memory, "resident", lambda: None)
    with memory.Watch() as watch:
        pass
    assert watch.taken is None
