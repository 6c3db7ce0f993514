"""Queries that used to crash or hang cqlindex (issue 14's fuzzing), one table row per traceback class.

Each row failed on the code before cql/limits.py: a RecursionError, an AttributeError in the
lexer, a DuckDB OutOfRangeException or a TypeError in the planner reached the user, or the
query ran for minutes. Now each is either answered, the same by both engines, or refused with
a located syntax error that says the limit.
"""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.cql.limits import MAX_DEPTH, MAX_NUMBER, TRANSFORM_MEMBERS, _children, simplify
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlSyntaxError
from cqlindex.exec.run import run

DATA = "data/annotated/chess-informant-sample.pgn"  # 5 games, variations nested five deep


@pytest.fixture(scope="module")
def index(build_db):
    return build_db(DATA, workers=1)


def both(index, query: str, **options):
    """The matches of ``query`` on each engine; they must agree."""
    found = {engine: run(index, query, engine=engine, variations=True, **options).matches
             for engine in ("sql", "python")}
    assert found["sql"] == found["python"], query
    return found["sql"]


# -- answered now, by both engines, the same as a plain query that means the same -------------

ANSWERED = [
    # (class before, query, a plain query with the same matches)
    ("RecursionError: 500-term '+'", "ply > " + " + ".join(["1"] * 500), "ply > 500"),
    ("RecursionError: 500-term '+' on a filter", "ply + " + " + ".join(["0"] * 499) + " > 20", "ply > 20"),
    ("RecursionError: 500-term '|'", "#(" + " | ".join(f"K{f}1" for f in "abcdefgh" * 63) + ") > 0", "Ka-h1"),
    ("RecursionError: 500-term '&'", " & ".join(["Ka-h1"] * 250 + ["Kg1"] * 250), "Kg1"),
    ("RecursionError: 89 'not'", "not " * 89 + "check", "not check"),
    ("RecursionError: 90 'not'", "not " * 90 + "check", "check"),
    ("RecursionError: 500-term 'and'", " and ".join(["check"] * 500), "check"),
    ("RecursionError: 500-term 'or'", " or ".join(["check", "mate"] * 250), "check or mate"),
    ("slow: 2,000 repeated filters", " ".join(["K"] * 1999 + ["check"]), "K check"),
    ("TypeError in the planner", "v=2 find quiet <-- v check", "v=2 find quiet <-- 2 check"),
    ("TypeError in the planner", "v=3 find v 5 check", "find 3 5 check"),
]


@pytest.mark.parametrize("before, query, plain", ANSWERED, ids=[row[0] for row in ANSWERED])
def test_answered_the_same_by_both_engines(index, before: str, query: str, plain: str) -> None:
    assert both(index, query) == both(index, plain)


def test_a_long_chain_is_regrouped_balanced() -> None:
    query = parse("ply > " + " + ".join(["1"] * 1000))
    depth, stack = 0, [(query.body, 1)]
    while stack:
        node, d = stack.pop()
        depth = max(depth, d)
        stack += [(child, d + 1) for child in _children(node)]
    assert depth < 30  # log2(1000) levels of '+', and the tuples between nodes
    assert simplify(query).body.items[0].operands[1] == ast.Number(query.body.span, 1000)


# -- refused now, with a located error that says the limit ------------------------------------

def caret_of(query: str) -> tuple[int, int, str]:
    with pytest.raises(CqlSyntaxError) as caught:
        parse(query)
    error = caught.value
    assert "^" in error.render()
    return error.span.line, error.span.col, error.message


@pytest.mark.parametrize("before, query, column, words", [
    ("RecursionError: 60 nested braces", "{" * 60 + "check" + "}" * 60, MAX_DEPTH + 1, "nested too deeply"),
    ("RecursionError: 60 nested parentheses", "(" * 60 + "check" + ")" * 60, MAX_DEPTH + 1, "nested too deeply"),
    ("RecursionError: 3,000 'not' (in the parser)", "not " * 3000 + "check", None, "nested too deeply"),
    ("RecursionError: 5,000-term '-' (not associative)", "ply > " + " - ".join(["ply"] * 5000), None,
     "nested too deeply"),
    ("RecursionError: 3,000-link ':' chain", ":".join(["parent"] * 3000) + ":check", None, "nested too deeply"),
    ("RecursionError: a recursive function", "function f(){f()} f()", None, "too deeply"),
    ("AttributeError in the lexer: '²'", "check ²", 7, "unexpected character '²'"),
    ("AttributeError in the lexer: Arabic-Indic digit", "ply > ٣", 7, "unexpected character"),
    ("OutOfRangeException in DuckDB: 40 digits", "ply > 1234567890123456789012345678901234567890", 7,
     "number too large"),
    ("OutOfRangeException in DuckDB: 2^63", f"ply < {MAX_NUMBER + 1}", 7, "number too large"),
    ("ran for minutes: flip nested 50 times", "flip " * 50 + "Ka1", None, "nested too deeply"),
    ("ran for minutes: flip nested 20 times", "flip " * 20 + "Ka1", 16, "transforms nested too deeply"),
    ("ran for minutes: flip nested 4 times", "flip flip flip flip Ka1", 16, "at most 3,600"),
])
def test_refused_with_a_located_error(before: str, query: str, column: int | None, words: str) -> None:
    line, col, message = caret_of(query)
    assert line == 1 and words in message
    if column is not None:
        assert col == column


def test_the_transform_factors_are_the_member_counts() -> None:
    from cqlindex.cql.parser import TRANSFORMS
    from cqlindex.query.rewrite import members

    assert {name: len(members(name)) for name in TRANSFORMS} == TRANSFORM_MEMBERS


def test_the_limits_leave_room_for_every_real_query() -> None:
    parse("flip flip flip Ka1")  # 512 transformed versions
    parse("flipcolor flip shift Ka1")  # 3,600: every nest of different transforms fits
    parse("{" * 20 + "check" + "}" * 20)
    parse("ply < 9223372036854775807")


# -- bounded work --------------------------------------------------------------------------------

@pytest.mark.parametrize("query", [
    "path (check){4294967296,}",  # ran 2^32 rounds of a test that never moves on
    "path (check){100000000}",
    "path (k --){4294967296,}",
    "line --> check {4294967296,} --> mate",
])
def test_huge_repetition_bounds_end(index, query: str) -> None:
    both(index, query, timeout=120)  # ran for hours; QueryTimeout if that comes back


@pytest.mark.parametrize("query", ["down 1 9223372036854775807 P", "k == diagonal 4294967296 K",
                                   "x = 9223372036854775807 up x P"])
def test_huge_direction_distances_end(index, query: str) -> None:
    both(index, query, timeout=60)  # a loop over every distance up to the number (the 20,000-string fuzz)
