"""The ``material`` column: how many pieces of each kind a position has, four bits each.

Why it exists: counts of whole-board piece designators (``#Q - #q == 1``, ``#P == #p``,
``#[RBN] > 3``) are the commonest material and imbalance filters. As bit counts they make
DuckDB read and popcount up to ten bitboard columns per position: query b2 of the benchmark
(queen against rook and minor piece, pawns equal) spent 0.9 s of its 1.0 s scan of 34 M
positions on them (issue 16). One packed column, which changes only at captures and
promotions, compresses to a fraction of a byte per position and answers each count with a
shift and a mask.

Kings are left out (``#K`` is one bit count, and they never change in number). A side has at
most fifteen pieces besides its king, so four bits hold any count, even in composed positions.
"""

from __future__ import annotations

from collections.abc import Mapping

#: The bitboard columns counted, in the order of their four-bit fields (lowest bits first).
COUNTED = ("wp", "wn", "wb", "wr", "wq", "bp", "bn", "bb", "br", "bq")
#: The field's shift for each piece letter of CQL (``P`` white pawn .. ``q`` black queen).
SHIFTS = {("PNBRQ" if column[0] == "w" else "pnbrq")["pnbrq".index(column[1])]: 4 * i
          for i, column in enumerate(COUNTED)}
FIELD = 0xF


def packed(bitboards: Mapping[str, "np.ndarray"]) -> "np.ndarray":
    """The material of every position, from its bitboards (signed 64-bit, as stored)."""
    import numpy as np  # here: the planner reads this module's layout on every query, numpy only a build

    total = None
    for i, column in enumerate(COUNTED):
        counts = np.bitwise_count(np.asarray(bitboards[column]).view(np.uint64)).astype(np.int64) << (4 * i)
        total = counts if total is None else total | counts
    return total

