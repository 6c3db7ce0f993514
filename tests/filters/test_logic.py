"""Logic and arithmetic: SQL against Python on every position of the filter indexes (see differential.py).

Covers and or not, {} and (), if then else, true false, chained comparisons, + - * / % and unary minus.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import EXACT, NARROWED, Row, cases, check

TABLE = [
    Row("check and btm", EXACT),
    Row("check or mate", EXACT),
    Row("not check", EXACT),
    Row("not {check or mate}", EXACT),
    Row("{check btm}", EXACT),
    Row("(wtm)", EXACT),
    Row("if check mate else btm", EXACT),
    Row("if check then stalemate", EXACT),
    Row("if Q > 1 then R else not r", EXACT),
    Row("true and not false", EXACT),
    Row("#A == #a", EXACT),
    Row("ply > 10 and ply < 14", EXACT),
    Row("1 < #P < 8", EXACT),
    Row("#A != #a", EXACT),
    Row("#Q + #q * 2 >= 4", EXACT),
    Row("#[Aa] / 2 == 10", NARROWED),
    Row("#[Aa] % 5 == 0", NARROWED),
    Row("-#A < -15", EXACT),
    Row("A & a == 0", EXACT),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
