"""An Arrow table read without ``ORDER BY`` put in (major, minor) order, sorted only when needed.

A scan of a range of the positions table yields its rows in the order they were written, which
is (gamenumber, positionid): DuckDB keeps insertion order. Asking for that order with ``ORDER
BY`` sorts them all the same, at several times the cost of the scan (issue 16), so the writers
read without it and check here, in one pass over two integer columns, falling back to a sort.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def in_order(table: pa.Table, major: str, minor: str) -> pa.Table:
    """``table`` by (``major``, ``minor``) ascending, the pairs unique."""
    first = table.column(major).to_numpy()
    second = table.column(minor).to_numpy()
    if len(first) < 2 or bool(np.all((first[1:] > first[:-1]) | ((first[1:] == first[:-1]) &
                                                                  (second[1:] > second[:-1])))):
        return table
    return table.take(pc.sort_indices(table, [(major, "ascending"), (minor, "ascending")]))
