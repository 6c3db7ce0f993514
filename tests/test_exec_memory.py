"""The process's memory readings the batched runs grow their batches by."""

from __future__ import annotations

import sys

import pytest

from cqlindex.exec import memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/statm is Linux's")
def test_readings_see_memory_taken() -> None:
    before = memory.resident()
    assert before is not None and 0 < before <= memory.peak()
    block = bytearray(64 * 2**20)  # touched: resident
    block[::4096] = b"x" * len(block[::4096])
    assert memory.peak_since(before) >= 60 * 2**20
    del block


def test_nothing_read_nothing_claimed() -> None:
    assert memory.peak_since(None) is None
