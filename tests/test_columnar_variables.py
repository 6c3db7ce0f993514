"""Which assignments the columnar engine follows (cqlindex.columnar.variables), and which
iterations it takes a square at a time. What it answers is held to the tree-walker by the
family tables (tests/filters/test_variables.py, test_control.py); here, that the queries meant
for it reach it, and that the ones it cannot follow are refused before any batch is read."""

from __future__ import annotations

import pytest

from cqlindex.columnar.core import blocker
from cqlindex.columnar.variables import serial
from cqlindex.cql import ast
from cqlindex.query.prepare import prepare


def _blocker(text: str):
    prepared = prepare(text, "<query>")
    return blocker(prepared.query, prepared.expansions)


@pytest.mark.parametrize("text", [
    "cnt = 0 loop {cnt += 1 cnt < 3} cnt == 3",                          # a loop updates its compound's counter
    "x = 0 if check {x = 2 y = 3} else {x = 1 y = 4} x + y == 5",         # branches of several assignments
    "seen = 0 square all Sq in A {if seen == 0 {lo = file Sq seen = 1} else file Sq >= lo}",
    "cnt = 0 not square all Sq in [Aa] {cnt += 1 Sq & A} cnt == 17",    # 'not' asks it in its own place
    "Len = 1 loop {Len += 1 Len < 5} sort Len",
    "function f(v) {v += 1} cnt = 0 loop {f(cnt) cnt < 4}",
    "cnt = 0 tot = 0 while ({tot += 1 cnt < #p}) cnt += 1 tot > 3",
])
def test_followed(text: str) -> None:
    assert _blocker(text) is None


@pytest.mark.parametrize("text, refused", [
    ("x = 0 find {x = 1 check} x == 1", "x"),                          # a find's body cannot write back
    ("x = 0 not {x = 1} x == 1", "x"),                                   # nor a compound under 'not'
    ("x = 0 #(square Sq in A {x += 1}) > 2", "x"),                       # an operand is no place to write from
])
def test_refused(text: str, refused: str) -> None:
    found = _blocker(text)
    assert found is not None and "variable" in found[1]
    assert getattr(found[0], "name", None) == refused


def _iteration(text: str) -> ast.Iterate:
    body = prepare(text, "<query>").query.body
    return next(node for node in ast.walk(body) if isinstance(node, ast.Iterate))


@pytest.mark.parametrize("text, outside, in_turn", [
    ("square Sq in A {d = file Sq d > 3}", (), False),                   # a fresh value per square
    ("cnt = 0 square Sq in A {cnt += 1}", ("cnt",), True),               # known outside: goes on
    ("square Sq in A {d = file Sq d > 3}", ("d",), True),                # ... even when assigned afresh
    ("square Sq in A {if check {flag = 1} flag == 1}", (), True),               # read where it may be the last square's
    ("square Sq in A {hits = 0 piece Pc in [Aa] attackedby Sq {hits += 1} hits > 1}", (), False),
    ("square Sq in A {Sq & K}", (), False),
])
def test_taken_a_square_at_a_time(text: str, outside: tuple[str, ...], in_turn: bool) -> None:
    assert serial(_iteration(text), frozenset(outside)) is in_turn
