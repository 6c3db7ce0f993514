"""Dictionaries: the parse rules the reference fixes, and entries kept from position to position.

The grammar's verdicts are measured against all the reference's (tests/test_cql_parse_cases.py,
groups filter_dictionary and filter_local); here, one case per rule and what evaluation keeps:
a dictionary outlives its position and game, a local one its position only within the game.
"""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.exec.run import run
from tests.conftest import build_inline

GAMES = {
    # game 1: 0 start, 1 e4, 2 e5, 3 Nf3; game 2: 0 start, 1 d4, 2 d5.
    "two": "1. e4 e5 2. Nf3 *\n\n1. d4 d5 *",
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("dictionaries"), GAMES)


# (query, matches): both engines, main line.
CASES = [
    ("dictionary D D[ply] = 1 D[ply] == 1", {1: [0, 1, 2, 3], 2: [0, 1, 2]}),
    # an entry stored at an earlier position is still there (and in the next game)
    ("dictionary D not D[ply] D[ply] = 1", {1: [0, 1, 2, 3]}),
    # a local dictionary forgets at each game, not at each position
    ("local dictionary D not D[ply] D[ply] = 1", {1: [0, 1, 2, 3], 2: [0, 1, 2]}),
    ("local dictionary D D[ply] = 1 not D[ply + 1]", {1: [0, 1, 2, 3], 2: [0, 1, 2]}),
    ("dictionary D D[0] = #P D[0] == 8", {1: [0, 1, 2, 3], 2: [0, 1, 2]}),
    ("dictionary D D[\"k\"] = ply unbind D[\"k\"] not D[\"k\"]", {1: [0, 1, 2, 3], 2: [0, 1, 2]}),
    ("dictionary D D[1] = 1 unbind D not D[1]", {1: [0, 1, 2, 3], 2: [0, 1, 2]}),
    ("local dictionary D D[currentposition] = ply D[currentposition] == 2", {1: [2], 2: [2]}),
    ("dictionary D D[ply]", {}),  # no entry: no match
]


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_case(dbs, query: str, expected: dict) -> None:
    for engine in ("sql", "python"):
        assert run(dbs["two"], query, engine=engine).matches == expected, engine


@pytest.mark.parametrize(("query", "accepted"), [
    ('dictionary X X["a"] = 1', True),
    ("dictionary X X[ a5 ] = to", True),
    ("dictionary X X[a5] = 1", False),  # a piece designator written against the name
    ("dictionary X X[true] = 1", False),  # a key is not a logical filter
    ("dictionary X X[1] = false", False),
    ("dictionary X X[1] = currentposition", False),  # positions only in a local dictionary
    ("local dictionary X X[1] = currentposition", True),
    ('dictionary X X["a"] = 1 X[1] = 1', False),  # the first key fixes the keys' kind
    ('dictionary X X["a"] = 1 X["b"] = "s"', False),  # ... and the first value the values'
    ("local X = 1", False),
    ("local dictionary", False),
    ("dictionary X X[ply]", True),
])
def test_grammar(query: str, accepted: bool) -> None:
    if accepted:
        parse(query)
    else:
        with pytest.raises(CqlSyntaxError):
            parse(query)


def test_nodes() -> None:
    declared, stored = parse("local dictionary D D[1] = to").body.items
    assert declared == ast.Dictionary(declared.span, "D", True)
    assert isinstance(stored, ast.SubscriptAssign) and stored.name == "D"
