"""Control flow (try, loop, while, assert): SQL against Python on every position of the filter indexes.

Both are decided by the evaluator; the rows check that the SQL around them stays a superset.
"""

from __future__ import annotations

import pytest

from tests.filters.differential import NARROWED, Row, cases, check

TABLE = [
    Row("try", NARROWED),
    Row("x = 1 if x == 2 cql_abort", NARROWED),  # never reached: where it is, the run stops (test_evaluate_control.py)
    Row("try wtm", NARROWED),
    Row("not try", NARROWED),
    Row("check try", NARROWED),
    Row("echo (s t) { s < t  t : try  s : not try }", NARROWED),   # asked of many targets at once
    Row("x = 0 loop {x += 1 x < 3} x == 3", NARROWED),
    Row("x = 0 loop {x += 1 x < #A} x > 10", NARROWED),
    Row("loop false", NARROWED),
    # what a round assigns stays, a failing round's too (y counts the round that failed)
    Row("x = 0 y = 0 loop {y += 1 x < 2 x += 1} y == 3 x == 2 check", NARROWED),
    Row("cnt = 0 loop {cnt < #P cnt += 1} cnt == #P cnt >= 7", NARROWED),
    Row("k1 = 0 s1 = 0 loop {if check s1 += 1 k1 += 1 k1 < 3} s1 == 3", NARROWED),
    # serialpin.cql's chain (bounded: two pieces may pin each other): a piece that fails to bind
    # keeps naming the last one bound
    Row("[Aa]Pinner in pin from [Aa] {[Aa]Cur = Pinner Len = 1"
        " loop {[Aa]Cur = pin through [Aa] from Cur Len += 1 Len < 4} Len >= 2 Cur & [Aa] & ~Pinner}", NARROWED),
    Row("x = 0 while (x < #A) x += 1 x == #A", NARROWED),
    Row("x = 0 while (x < 3) {x += 1 check} x == 3", NARROWED),
    Row("cnt = 0 while (cnt < 10) cnt += 2 cnt == 10 check", NARROWED),
    Row('s = "" while ("RBNQ" ~~ "[BN]") s += \\0 s == "BN" wtm', NARROWED),
    Row("while (false) check", NARROWED),
    # what the condition assigns stays, the last test's (which fails) too
    Row("cnt = 0 tot = 0 while ({tot += 1 cnt < #p}) cnt += 1 tot == #p + 1 check", NARROWED),
    Row("assert #K == 1", NARROWED),
    Row("check assert #k == 1", NARROWED),
]


@pytest.mark.parametrize("row, cell", cases(TABLE))
def test_sql_against_python(filter_indexes, row: Row, cell: tuple[str, bool]) -> None:
    check(filter_indexes, row, cell)
