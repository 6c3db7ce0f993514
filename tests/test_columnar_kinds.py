"""columnar/kernels_sets.kinds: the piece kinds at the rows asked, whatever the rows.

Where the rows are every row of the frame in order, the frame's own columns are handed out
without a copy; any other rows of the same length (a permutation, repeats, the same rows
reversed) must still be gathered. Each case against a plain gather.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from cqlindex.columnar.kernels_sets import kinds


def _frame(size: int) -> SimpleNamespace:
    rng = np.random.default_rng(5)
    boards = [rng.integers(0, 2 ** 63, size, dtype=np.uint64) for _ in range(12)]
    occupied = np.bitwise_or.reduce(boards)
    return SimpleNamespace(frame=SimpleNamespace(boards=boards, occupied=occupied, size=size), memo={})


def _gathered(cm, rows: np.ndarray) -> list[np.ndarray]:
    b = cm.frame.boards
    table = (b[0] | b[6], b[1] | b[7], b[2] | b[8], b[3] | b[9], b[4] | b[10], b[5], b[11], cm.frame.occupied)
    return [column[rows] for column in table]


@pytest.mark.parametrize("rows", [
    np.arange(9), np.arange(9)[::-1].copy(), np.array([0, 2, 1, 3, 4, 5, 6, 7, 8]),
    np.array([0, 0, 2, 3, 4, 5, 6, 7, 8]), np.array([0, 1, 2, 3, 4, 5, 6, 8, 8]),
    np.array([0, 1, 2, 3, 5, 4, 6, 7, 8]), np.arange(8), np.arange(1, 9), np.arange(18) % 9,
], ids=["every row", "reversed", "two swapped", "a repeat first", "a repeat last", "two swapped inside",
        "all but the last", "all but the first", "each twice"])
def test_kinds_at_any_rows_is_the_gather(rows: np.ndarray) -> None:
    cm = _frame(9)
    got = kinds(cm, rows)
    assert [list(x) for x in got] == [list(x) for x in _gathered(cm, rows)]
