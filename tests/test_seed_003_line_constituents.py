"""Seed 003 (seeds/003_890e15bb321b9443.txt): what a line constituent may be.

A constituent is any filter; the seed speaks of nested line filters. The reference engine
refuses only three numeric constituents, as likely mistakes for a range: a number written as
such (``3``, ``-3``, ``(3)``), a numeric variable alone (``v``; ``{v}`` is a compound and
is accepted), and numeric arithmetic (``{3+4}``, ``-v``). Every other numeric filter is a
constituent that matches where it has a value: ``#R``, a transform with a range, a nested
``line`` (also under ``sort``), ``{3 4}``.
"""

from __future__ import annotations

import pytest

from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from tests.equivalence import assert_same_matches

DATASET = "data/studies/cql6-sample.pgn"

ACCEPTED = [
    "line --> #R",
    "line --> {3 4}",
    "line --> rotate90 2 Ra1",
    "line --> check --> line --> mate",
    "line --> sort line --> check",
    "line --> (line --> check) --> mate",
    "line --> {line --> check} --> mate",
    "line --> abs -3",
    "v=1 line --> {v}",
]

REFUSED = [
    "line --> 3",
    "line --> -3",
    "line --> (3)",
    "line --> {3+4}",
    "v=1 line --> v",
    "v=1 line --> -v",
    "line --> check --> 2 * 3",
]


@pytest.mark.parametrize("query", ACCEPTED)
def test_accepted(query: str) -> None:
    parse(query)


@pytest.mark.parametrize("query", REFUSED)
def test_refused(query: str) -> None:
    with pytest.raises(CqlSyntaxError):
        parse(query)


# (query, a query that must match the same positions): a numeric constituent matches where it has a value.
EQUIVALENT = [
    ("line --> check --> #R --> mate", "line --> check --> true --> mate"),
    ("line --> check --> {line --> check} --> check", "line --> check --> check --> check"),
    ("line --> check --> rotate90 1 4 Ra1 --> check", "line --> check --> R & [a1,h1,h8,a8] --> check"),
    ("line --> check --> rotate90 4 Ra1", "false"),  # no position has a rook in every corner
]


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "same_as"), EQUIVALENT, ids=[c[0] for c in EQUIVALENT])
def test_numeric_constituents_match_where_they_have_a_value(build_db, engine: str, query: str, same_as: str) -> None:
    assert_same_matches(build_db(DATASET), engine, query, same_as)
