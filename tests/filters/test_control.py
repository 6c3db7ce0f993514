"""Control flow (try, loop): SQL against Python on every position of the filter indexes.

Both are decided by the evaluator; the rows check that the SQL around them stays a superset.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import NARROWED, Row, cases, check

TABLE = [
    Row("try", NARROWED),
    Row("try wtm", NARROWED),
    Row("not try", NARROWED),
    Row("check try", NARROWED),
    Row("x = 0 loop {x += 1 x < 3} x == 3", NARROWED),
    Row("x = 0 loop {x += 1 x < #A} x > 10", NARROWED),
    Row("loop false", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
