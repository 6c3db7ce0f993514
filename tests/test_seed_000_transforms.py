"""Seed 000 (seeds/000_56d7533d38fabce2.txt): rotate45, rotate45 count, transforms followed by a range.

* rotate45 is the cyclic group of order 8 acting on directions only: ``up`` turns to
  ``northwest``, then ``left`` ...; a filter naming a particular square is an error.
* "If followed by a range, any transform becomes a numeric filter and counts the number of
  transforms of the argument filter that match": ``rotate90 4 find Ra1`` needs all four
  rotations, ``shift 10 20 [Pp]a4`` counts the pawns.

Each rule is a pair of queries the seed says are equivalent, run on both engines.
"""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.query.rewrite import expand
from tests.equivalence import assert_same_matches

DATASET = "data/studies/cql6-sample.pgn"

# (query, the query the seed says it is equivalent to)
EQUIVALENT = [
    ("(rotate45 up 1 K) == anydirection 1 K", "K"),  # "exactly the King's field"
    ("(rotate45 count {up 1 K}) == #(anydirection 1 K)", "K"),
    ("rotate45 right 1 k & Q", "anydirection 1 k & Q"),
    ("rotate45 2 8 {up 1 K & A}", "#(anydirection 1 K & A) >= 2"),
    ("rotate90 4 find Ra1", "{find Ra1 find Rh1 find Rh8 find Ra8}"),
    ("initial rotate90 4 find Ra1", "initial {find Ra1 find Rh1 find Rh8 find Ra8}"),
    ("rotate90 2 4 Ra1", "#(R & [a1,h1,h8,a8]) >= 2"),
    ("shift 10 20 [Pp]a4", "#[Pp] >= 10 and #[Pp] <= 20"),
    ("fliphorizontal 2 Ka1", "false"),  # Ka1 and Ka8 never both
    ("flipvertical 1 Ka1", "Ka1 or Kh1"),
    # a bound may be a numeric variable already assigned (the reference's range constituents)
    ("X = 2 rotate90 X Ra1", "rotate90 2 Ra1"),
    ("X = 2 rotate90 1 X Ra1", "#(R & [a1,h1,h8,a8]) >= 1 and #(R & [a1,h1,h8,a8]) <= 2"),
    # a transform around a counted one is one orbit of the compositions, counted together:
    # eight members here (R and r in each corner), not the larger of two counts of four
    ("flipcolor rotate90 2 Ra1", "#([Rr] & [a1,h1,h8,a8]) == 2"),
    ("flipcolor {rotate90 2 Ra1}", "#([Rr] & [a1,h1,h8,a8]) == 2"),
    # a counted transform composes with the transform it encloses, r(h(F)): the members are
    # K on a1 or a8, a1 or h1, h1 or h8, h8 or a8, so a king in a corner matches two of them
    ("(rotate90 count fliphorizontal Ka1) == 2", "K & [a1,h1,h8,a8]"),
]


@pytest.mark.parametrize("engine", ["python", "sql"])
@pytest.mark.parametrize(("query", "same_as"), EQUIVALENT, ids=[c[0] for c in EQUIVALENT])
def test_seed_equivalences(build_db, engine: str, query: str, same_as: str) -> None:
    assert_same_matches(build_db(DATASET), engine, query, same_as)


def test_rotate45_turns_directions_counterclockwise() -> None:
    node = parse("rotate45 up 1 K").body.items[0]
    assert isinstance(node, ast.Transform)
    names = [member.name for member in (m.items[0] if isinstance(m, ast.Compound) else m for m in expand(node))]
    assert names == ["up", "northwest", "left", "southwest", "down", "southeast", "right", "northeast"]


@pytest.mark.parametrize("query", ["rotate45 Kd3", "rotate45 a5", "rotate45 {Ka1 up 1 K}", "rotate45 [a5,b7,a-h1-7]"])
def test_rotate45_refuses_particular_squares(query: str) -> None:
    with pytest.raises(CqlSyntaxError, match="rotate45"):
        parse(query)


@pytest.mark.parametrize("query", ["rotate45 btm", "rotate45 count btm", "rotate45 [a-h1-8]", "rotate45 N",
                                   "rotate90 4 find Ra1", "shift 10 20 [Pp]a4", "sort rotate45 5 8 find q"])
def test_accepted(query: str) -> None:
    parse(query)


def test_a_range_makes_a_count() -> None:
    node = parse("rotate90 2 4 Ra1").body.items[0]
    assert isinstance(node, ast.Transform) and (node.low, node.high) == (2, 4)


# How the reference reads what follows a transform's name (a range, or the filter itself).
READINGS = [
    # 'count' is a range of its own: the filter starts right after it
    ("rotate90 count 2 4 Ra1", dict(count=True, low=None, arg=ast.Number)),
    # a number followed by an operator is the filter's, not a range ('flip 5 <= sort ...' in snake.cql)
    ("flip 5 <= #R", dict(count=False, low=None, arg=ast.Compare)),
    ("rotate90 2 #R", dict(count=False, low=None, arg=ast.Number)),
    ("rotate90 1 -1 Ra1", dict(count=False, low=None, arg=ast.Binary)),
    # brackets after a number do not stop a range
    ("rotate90 4 {find Ra1}", dict(count=False, low=4, high=4, arg=ast.Compound)),
    ("shift 2 3 (Ra1 or Rb2)", dict(count=False, low=2, high=3, arg=ast.Or)),
    # reversecolor takes no range
    ("reversecolor 2 Ra1", dict(count=False, low=None, arg=ast.Number)),
]


@pytest.mark.parametrize(("query", "shape"), READINGS, ids=[c[0] for c in READINGS])
def test_what_follows_the_name(query: str, shape: dict) -> None:
    node = next(n for n in parse(query).body.items if isinstance(n, ast.Transform))
    assert isinstance(node.arg, shape.pop("arg"))
    assert {name: getattr(node, name) for name in shape} == shape


def test_a_variable_bound() -> None:
    node = parse("X = 2 rotate90 X 4 Ra1").body.items[1]
    assert isinstance(node, ast.Transform) and isinstance(node.low, ast.Variable) and node.high == 4


def test_a_transform_around_a_counted_one_composes() -> None:
    node = parse("flipcolor rotate90 4 find Ra1").body.items[0]
    assert isinstance(node, ast.Transform) and (node.name, node.then, node.low) == ("rotate90", ("flipcolor",), 4)
    assert len(expand(node)) == 8
