"""The DuckDB SQL the planner's trees are printed as, without loading sqlglot's DuckDB dialect.

sqlglot's DuckDB dialect parses a few dozen SQL snippets of its own when it is first used: 25-30 ms
of every fresh query without a kept plan, a tenth of its start-up (issue 34). The plans are made
of portable SQL (SELECT, window functions, CASE, bit operators, casts), which sqlglot's base
dialect prints as the DuckDB dialect does once told that DuckDB sorts NULLs last.
tests/test_plan_dialect.py holds the two to the same text over every query file and acceptance
query the project has. A user's ``--dialect duckdb`` gets this one too; any other name is sqlglot's.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.generator import Generator


class CqlindexDuckDB(Dialect):
    """sqlglot's base dialect with DuckDB's NULL ordering (ASC puts NULLs last) and list literals
    (``[1, 2]``: the base dialect's ``ARRAY(1, 2)`` is not DuckDB's)."""

    NULL_ORDERING = "nulls_are_last"
    INDEX_OFFSET = 1  # a list's first element is [1]

    class Generator(Generator):
        TRANSFORMS = {**Generator.TRANSFORMS,
                      exp.Array: lambda self, e: f"[{self.expressions(e, flat=True)}]"}


DUCKDB = CqlindexDuckDB()


def dialect_of(name: str) -> str | Dialect:
    """What to print a plan with for the dialect a user named."""
    return DUCKDB if name == "duckdb" else name


def duckdb_sql(e: exp.Expr, **options) -> str:
    """``e`` as DuckDB SQL text."""
    return e.sql(dialect=DUCKDB, **options)
