"""User functions: how a call binds its arguments (the reference manual's rules) and what it runs.

A variable argument is the parameter itself (the body may assign it); any other argument with
a value is assigned, at the call, to a new variable the parameter stands for; a literal and a
filter without a value are read in place. Each case names what it would catch.
"""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.exec.run import run
from tests.conftest import build_inline

GAMES = {
    # 0 start, 1 e4, 2 e5, 3 Nf3, 4 Nc6, 5 Bb5, 6 a6.
    "ruy": "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *",
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("functions"), GAMES)


CASES = [
    ("function F() {check} F()", []),
    ("function Twice(x) {2 * x} Twice(ply) == 6", [3]),
    # a variable argument is passed by reference: the body's '+=' changes the caller's variable
    ("function Bump(c) {c += 10} x = ply Bump(x) x == 15", [5]),
    # a set argument is evaluated once, at the call: 'parent : #s' reads the value the call saw
    # (read in place, as a macro would, B & b5 is empty at 4 and 5 would match too)
    ("function Was(s) {parent : #s == 0} Was(B & b5)", [1, 2, 3, 4]),
    # ... while a position argument is a position: its ':' goes there
    ("function Moves(at) {at : ply} Moves(parent) == 2", [3]),
    # a filter without a value is read where the body reads it (child : check is never true here)
    ("function Later(f) {child : f} Later(btm)", [0, 2, 4]),
    ("function Sq(s t) {s & t} Sq([Bb] b5)", [5, 6]),
    ("function Inner(y) {y + 1} function Outer(y) {Inner(y) * 2} Outer(ply) == 8", [3]),
    ("function D() {true} D() ply > 4", [5, 6]),  # a definition matches everywhere
]


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_case(dbs, query: str, expected: list[int]) -> None:
    for engine in ("sql", "python"):
        got = run(dbs["ruy"], query, engine=engine).matches
        assert got == ({1: expected} if expected else {}), engine


def test_arguments_with_a_value_get_a_variable_of_their_own() -> None:
    call = parse("function F(s) {#s} F(Q)").body.items[-1]
    assert isinstance(call, ast.Compound)
    first = call.items[0]
    assert isinstance(first, ast.Assign) and "`" in first.name and isinstance(first.value, ast.Pieces)
    assert not any(isinstance(n, ast.Assign) for n in ast.walk(parse("x = 1 function F(s) {s} F(x)").body.items[-1]))


@pytest.mark.parametrize("query", [
    "function F(x) {F(x)} F(1)",  # expands without end
    "function F(x) {x} F(1 2)",  # two arguments for one parameter
    "function F(x) {xray(x k)} y = 3 F(y)",  # the body's types are checked at the call
])
def test_bad_calls_are_syntax_errors(query: str) -> None:
    with pytest.raises(CqlSyntaxError):
        parse(query)
