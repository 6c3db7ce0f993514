"""The SQL of strings: which patterns go to DuckDB, and how the query's strings reach SQL.

A pattern goes to SQL only when RE2 and Python's re read it alike; the query's strings are
quoted literals built by sqlglot, so a quote in them cannot end the literal.
"""

from __future__ import annotations

import pytest

from cqlindex.cql.parser import parse
from cqlindex.filters.strings.sql import portable
from cqlindex.plan.planner import plan


@pytest.mark.parametrize("pattern, both", [
    ("Lon", True),
    ("^C[0-4]", True),
    ("(Ka|Kb)+ ?$", True),
    ("a.b*c?", True),
    ("\\d+", False),  # escapes: left to Python
    ("a{2}", False),  # counted repetition
    ("(?i)lon", False),  # inline flags
    ("(?P<x>a)", False),
    ("(", False),  # not a pattern at all
])
def test_portable_patterns(pattern: str, both: bool) -> None:
    assert portable(pattern) is both


@pytest.mark.parametrize("query, decided", [
    ('event == "O\'Hare"', True),
    ("event ~~ \"'; DROP TABLE games; --\"", True),
    ('eco ~~ "\\\\d"', False),
    ('originalcomment ~~ "draw$"', False),  # Python's '$' also matches before a final newline
    ('tag "Round" < "3"', True),
    ('player white + "x" == "ax"', False),
])
def test_strings_reach_sql_as_quoted_literals(query: str, decided: bool) -> None:
    planned = plan(parse(query), False)
    assert planned.exact is decided
    if decided:
        assert "DROP TABLE games; --'" in planned.sql or "O''Hare" in planned.sql or "'3'" in planned.sql
