"""plan/truth.py: the NULL-as-false guards go where only TRUE counts, and stay everywhere else."""

from __future__ import annotations

import itertools

import duckdb
import pytest
import sqlglot

from cqlindex.plan.truth import drop_guards


def rewritten(sql: str) -> str:
    return drop_guards(sqlglot.parse_one(sql, dialect="duckdb")).sql(dialect="duckdb")


@pytest.mark.parametrize("before, after", [
    ("SELECT a FROM t WHERE COALESCE(x = 2, FALSE)", "SELECT a FROM t WHERE x = 2"),
    ("SELECT a FROM t WHERE m AND COALESCE(x = 2, FALSE) AND NOT (NOT w)", "SELECT a FROM t WHERE m AND x = 2 AND w"),
    ("SELECT a FROM t WHERE COALESCE(x = 1, FALSE) OR (COALESCE(y = 1, FALSE) AND z)",
     "SELECT a FROM t WHERE x = 1 OR (y = 1 AND z)"),
    # an OR freed from its guard inside an AND keeps its parentheses
    ("SELECT a FROM t WHERE m AND COALESCE(x = 1 OR y = 1, FALSE)", "SELECT a FROM t WHERE m AND (x = 1 OR y = 1)"),
    # subqueries' WHEREs are truth tests too; the comparison with the subquery's value is one
    ("SELECT a FROM t WHERE COALESCE((SELECT MAX(b) FROM u WHERE COALESCE(u.c = 1, FALSE)) >= t.p, FALSE)",
     "SELECT a FROM t WHERE (SELECT MAX(b) FROM u WHERE u.c = 1) >= t.p"),
    ("SELECT a FROM t WHERE EXISTS(SELECT 1 FROM u WHERE COALESCE(u.c = 1, FALSE))",
     "SELECT a FROM t WHERE EXISTS(SELECT 1 FROM u WHERE u.c = 1)"),
])
def test_guards_dropped_in_truth_tests(before: str, after: str) -> None:
    assert rewritten(before) == after


@pytest.mark.parametrize("sql", [
    "SELECT a FROM t WHERE NOT COALESCE(x = 2, FALSE)",  # NULL and FALSE differ below a NOT
    "SELECT COALESCE(x = 2, FALSE) AS k FROM t",  # a value, not a test
    "SELECT a FROM t WHERE CASE WHEN COALESCE(x = 2, FALSE) THEN 1 ELSE 0 END = 0",
    "SELECT a FROM t WHERE COALESCE(x = 2, TRUE)",  # NULL read as true is no guard
    "SELECT a FROM t WHERE COALESCE(x, y, FALSE)",
])
def test_guards_kept_where_null_matters(sql: str) -> None:
    assert rewritten(sql) == sqlglot.parse_one(sql, dialect="duckdb").sql(dialect="duckdb")


CONDITIONS = [
    "COALESCE(x = 1, FALSE)",
    "COALESCE(x = 1, FALSE) AND NOT (NOT y)",
    "COALESCE(x = 1 OR y, FALSE) AND COALESCE(z <> 0, FALSE)",
    "(COALESCE(x = 1, FALSE) OR COALESCE(x = 2, FALSE)) AND NOT COALESCE(y, FALSE)",
    "NOT (NOT (COALESCE(x = 1, FALSE) OR y))",
    "COALESCE((SELECT MAX(u.x) FROM t AS u WHERE COALESCE(u.y, FALSE)) >= t.x, FALSE)",
]


@pytest.mark.parametrize("condition", CONDITIONS)
def test_same_rows_over_every_null(condition: str) -> None:
    """Every combination of NULL, TRUE, FALSE and small numbers: the same rows either way."""
    con = duckdb.connect()
    values = list(itertools.product([None, 1, 2], [None, True, False], [None, 0, 3]))
    con.execute("CREATE TABLE t (id INTEGER, x INTEGER, y BOOLEAN, z INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(i, *v) for i, v in enumerate(values)])
    sql = f"SELECT id FROM t WHERE {condition} ORDER BY id"
    simpler = rewritten(sql)
    assert simpler != sqlglot.parse_one(sql, dialect="duckdb").sql(dialect="duckdb")
    assert con.execute(simpler).fetchall() == con.execute(sql).fetchall()
