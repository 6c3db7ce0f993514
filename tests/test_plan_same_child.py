"""plan/same_child.py: EXISTS over one position's main-line child merged into one, and nothing else.

Each case is SQL before and after the rewrite; the differential rows of tests/filters/test_moves.py
hold the merged plans to the evaluator on the filter indexes.
"""

from __future__ import annotations

import pytest
import sqlglot

from cqlindex.plan.same_child import merge_child_exists

CHILD = "q{n}.gamenumber = p.gamenumber AND q{n}.parent = p.positionid AND q{n}.child_index = 0"


def rewritten(sql: str) -> str:
    return merge_child_exists(sqlglot.parse_one(sql, dialect="duckdb")).sql(dialect="duckdb")


def child(n: int, body: str) -> str:
    return f"EXISTS(SELECT 1 FROM positions AS q{n} WHERE {CHILD.format(n=n)} AND {body})"


@pytest.mark.parametrize("before, after", [
    # two looks at the main-line child: one, the second's body read from the first's alias
    (f"SELECT 1 FROM positions AS p WHERE p.wtm AND {child(1, 'q1.move_from = 3')} AND {child(2, 'q2.castle = 1')}",
     f"SELECT 1 FROM positions AS p WHERE p.wtm AND {child(1, 'q1.move_from = 3 AND q1.castle = 1')}"),
    # the second's nested subquery correlated with it follows the rename
    (f"SELECT 1 FROM positions AS p WHERE {child(1, 'q1.captured = 5')} AND "
     f"{child(2, 'EXISTS(SELECT 1 FROM positions AS q3 WHERE q3.gamenumber = q2.gamenumber AND q3.parent = q2.positionid)')}",
     f"SELECT 1 FROM positions AS p WHERE {child(1, 'q1.captured = 5 AND EXISTS(SELECT 1 FROM positions AS q3 WHERE q3.gamenumber = q1.gamenumber AND q3.parent = q1.positionid)')}"),
    # inside one branch of an OR
    (f"SELECT 1 FROM positions AS p WHERE p.mainline AND (p.wtm AND {child(1, 'q1.a')} AND {child(2, 'q2.b')} OR NOT p.wtm)",
     f"SELECT 1 FROM positions AS p WHERE p.mainline AND ((p.wtm AND {child(1, 'q1.a AND q2.b'.replace('q2', 'q1'))}) OR NOT p.wtm)"),
])
def test_merged(before: str, after: str) -> None:
    assert rewritten(before) == sqlglot.parse_one(after, dialect="duckdb").sql(dialect="duckdb")


@pytest.mark.parametrize("sql", [
    # with variations the link has no child_index = 0: two children may answer each
    "SELECT 1 FROM positions AS p WHERE EXISTS(SELECT 1 FROM positions AS q1 WHERE q1.gamenumber = p.gamenumber "
    "AND q1.parent = p.positionid AND q1.a) AND EXISTS(SELECT 1 FROM positions AS q2 WHERE q2.gamenumber = "
    "p.gamenumber AND q2.parent = p.positionid AND q2.b)",
    # an OR of two EXISTS is not an AND of them
    f"SELECT 1 FROM positions AS p WHERE {child(1, 'q1.a')} OR {child(2, 'q2.b')}",
    # NOT EXISTS is not EXISTS
    f"SELECT 1 FROM positions AS p WHERE {child(1, 'q1.a')} AND NOT {child(2, 'q2.b')}",
    # the children of two different positions
    f"SELECT 1 FROM positions AS p WHERE {child(1, 'q1.a')} AND EXISTS(SELECT 1 FROM positions AS q2 WHERE "
    "q2.gamenumber = p.gamenumber AND q2.parent = p.parent AND q2.child_index = 0 AND q2.b)",
])
def test_left_alone(sql: str) -> None:
    assert rewritten(sql) == sqlglot.parse_one(sql, dialect="duckdb").sql(dialect="duckdb")
