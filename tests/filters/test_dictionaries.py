"""Dictionaries: SQL against Python on every position of the filter indexes (see differential.py).

A dictionary keeps its entries from position to position, so a query with one is evaluated at
every position of every game in order on both engines; the SQL must still be a superset.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import NARROWED, Row, cases, check

TABLE = [
    Row("dictionary D D[1] = ply D[1] == ply", NARROWED),
    Row("dictionary D not D[#A ] D[#A ] = 1", NARROWED),
    Row("local dictionary D not D[#A ] D[#A ] = 1", NARROWED),
    Row("local dictionary D D[currentposition] = ply D[currentposition] > 3", NARROWED),
    Row("dictionary D D[ply] = #A unbind D[ply] not D[ply]", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
