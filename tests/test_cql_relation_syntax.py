"""The grammar of CQL 5's relation (reference/relation.md 1.1): what it reads, and where its errors point.

Errors point at the parameter (or the token in it) that is wrong, with a caret, as every
syntax error does; the parameters CQL 5 has beyond seed 001 parse and are refused by name.
"""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError


def _relation(query: str) -> ast.Relation:
    return next(node for node in ast.walk(parse(query).body) if isinstance(node, ast.Relation))


@pytest.mark.parametrize("query, targets, params", [
    ("relation (mismatch 0)", 0, [(None, None, (0, 64), (0, 0))]),
    ("relation (tomove match) echoflipvertical (mismatch 0)", 0,
     [(None, "match", (0, 64), (0, 64)), ("echoflipvertical", None, (0, 64), (0, 0))]),
    ("relation check (match 3 5 mismatch 2)", 1, [(None, None, (3, 5), (2, 2))]),
    ("relation (check) K (tomove mismatch)", 2, [(None, "mismatch", (0, 64), (0, 64))]),
    ("relation echodihedral (sourcesquares [Kk] targetsquares a-h1 match 64)", 0,
     [("echodihedral", None, (64, 64), (0, 64))]),
])
def test_what_relation_reads(query: str, targets: int, params: list) -> None:
    node = _relation(query)
    assert len(node.targets) == targets
    assert [(p.echo, p.tomove, p.match, p.mismatch) for p in node.params] == params


def test_relation_ends_after_its_last_parameter() -> None:
    body = parse("relation (mismatch 0) check").body
    assert isinstance(body.items[0], ast.Relation) and body.items[1] == ast.Keyword(None, "check")


def test_cql6_words_stay_variables() -> None:
    """CQL 6.2 has no relation, on, lightsquares or darksquares: as variable names they still work."""
    body = parse("relation = 3 on = 2 lightsquares = 1 relation + on > lightsquares").body
    assert [type(item) for item in body.items] == [ast.Assign, ast.Assign, ast.Assign, ast.Compare]


def test_cql5_on_is_the_intersection() -> None:
    assert parse("K on darksquares").body.items[0].op == "&"


@pytest.mark.parametrize("query, col, words", [
    ("relation ()", 10, "empty relation parameter"),
    ("relation K", 11, "expected a relation parameter"),
    ("relation check", 15, "expected a relation parameter"),
    ("relation echoflip (tomove match)", 19, "takes a square parameter"),
    ("relation (mismatch 0) echoshift", 32, "takes a square parameter"),
    ("relation (mismatch 3 2)", 20, "low end is above its high end"),
    ("relation (mismatch 0 mismatch 1)", 22, "given twice"),
    ("relation (sourcesquares 3)", 25, "takes a set of squares"),
    ("relation (tomove foo)", 18, "expected 'match' or 'mismatch'"),
    ("relation (match)", 16, "expected a number"),
    ("relation (mismatch 0 tomove match)", 22, "tomove is a parameter of its own"),
    ("relation (mismatch 0 check)", 22, "expected sourcesquares, targetsquares, match or mismatch"),
    ("relation (tomove match", 23, "expected ')'"),
    ("x = relation (mismatch 0)", 5, "cannot be assigned"),
    ("relation (lcasubstring 0 3)", 11, "minimum is at least 1"),
    ("relation (lcamax)", 17, "expected a number"),
    ("relation (ancestor 1)", 20, "expected ')'"),
    ("relation echoshift (lcamax 1)", 20, "takes a square parameter"),
])
def test_syntax_errors_point_at_the_parameter(query: str, col: int, words: str) -> None:
    with pytest.raises(CqlSyntaxError) as caught:
        parse(query)
    error = caught.value
    assert words in error.message
    assert (error.span.line, error.span.col) == (1, col), str(error)
    assert "^" in error.render().splitlines()[-1]


def test_errors_on_a_later_line_keep_their_line() -> None:
    with pytest.raises(CqlSyntaxError) as caught:
        parse("cql(input x.pgn)\nK on darksquares\nrelation K on lightsquares\n  (tomove match)\n  echoshift (mismatch 0 0 0)")
    assert (caught.value.span.line, caught.value.span.col) == (5, 27)  # the third number


@pytest.mark.parametrize("query, lca, bounds, echo", [
    ("relation echorotate45 (mismatch 0)", None, (0, 0), "echorotate45"),
    ("relation (lcamax 1 3)", "lcamax", (1, 3), None),
    ("relation (lcasubstring 2)", "lcasubstring", (2, 2), None),
    ("relation (ancestor) (mismatch 0)", "ancestor", (0, 0), None),
])
def test_parameters_outside_the_seed_are_parsed(query: str, lca: str | None, bounds: tuple[int, int],
                                                 echo: str | None) -> None:
    """CQL 5's game-tree parameters and echorotate45 run (tests/test_evaluate_relation_lineage.py)."""
    param = parse(query).body.items[0].params[0]
    assert (param.lca, param.lca_range, param.echo) == (lca, bounds, echo)
