"""``try``, ``loop``, ``while``, ``assert``, ``isbound`` and ``isunbound`` on small inline games
with their position ids spelled out.

``try`` is ``1 == find <-- quiet all {btm secondary}``: exactly one white move off the main
continuation on the way from the root. Each case names what it would catch: counting black
moves, counting the main line's moves, accepting two white tries, or stopping at the first one.

``while (C) F`` (the CQL 6.2 manual): F is evaluated as long as C matches, F's own failure does
not stop it, and the while filter always matches; a ``~~`` condition finds each match in turn.
``assert F`` stops the run with an error where F fails. ``isbound x`` holds where x has a value.
"""

from __future__ import annotations

import pytest

from cqlindex.cql import ast
from cqlindex.cql.parser import parse
from cqlindex.errors import CqlError
from cqlindex.exec.run import run
from tests.conftest import build_inline

GAMES = {
    # main 0 start, 1 e4, 2 e5, 3 Nf3, 4 Nc6; 5 c5 (black's alternative to 1...e5), 6 Nf3;
    # 7 d4 (a white try), 8 d5, 9 c4, 10 e6; 11 Nf3 (a second white try, beside 2.c4).
    "tries": "1. e4 (1. d4 d5 2. c4 (2. Nf3) 2... e6) 1... e5 (1... c5 2. Nf3) 2. Nf3 Nc6 *",
}


@pytest.fixture(scope="module")
def dbs(tmp_path_factory) -> dict[str, object]:
    return build_inline(tmp_path_factory.mktemp("control"), GAMES)


# (query, matches with variations)
CASES = [
    ("try", [7, 8, 9, 10]),  # 1.d4 and below; not 5 (a black move), not 11 (a second white try)
    ("try wtm", [8, 10]),
    ("try btm", [7, 9]),
    ("not try", [0, 1, 2, 3, 4, 5, 6, 11]),
    ("x = 0 loop {x += 1 x < 3} x == 3", list(range(12))),
    # a loop whose body fails the first time does not match (ply 0 and 1: 1 < ply fails at once)
    ("x = 0 loop {x += 1 x < ply} x == ply", [2, 3, 4, 5, 6, 8, 9, 10, 11]),
    ("loop false", []),
    # while always matches, even when its condition fails at once (ply 0), unlike loop
    ("x = 0 while (x < ply) x += 1 x == ply", list(range(12))),
    ("while (false) false", list(range(12))),
    # a failing body does not stop the loop: x still reaches 2
    ("x = 0 while (x < 2) {x += 1 false} x == 2", list(range(12))),
    ("x = 0 while (x < 2) {x += 1 false} x == 1", []),
    # each test of a '~~' condition resumes after its last match: R, B, N, Q in turn, then no more
    ('initial s = "" while ("RBNQ" ~~ ".") s += \\0 s == "RBNQ"', [0]),
    ('c = 0 while ("e4 e5 Nf3" ~~ "[a-h]([1-8])") c += int \\1 c == 12 btm', [1, 3, 6, 7, 9, 11]),
    ("if btm x = 1 isbound x", [1, 3, 6, 7, 9, 11]),
    ("if btm x = 1 isunbound x", [0, 2, 4, 5, 8, 10]),
    ("x = 1 unbind x isbound x", []),
    ("isunbound x", list(range(12))),
    # an assertion that holds is its filter
    ("assert #K == 1 btm", [1, 3, 6, 7, 9, 11]),
    ("btm assert btm", [1, 3, 6, 7, 9, 11]),
]


def test_numbering(dbs) -> None:
    assert run(dbs["tries"], "mainline", variations=True).matches == {1: [0, 1, 2, 3, 4]}
    assert run(dbs["tries"], "btm", variations=True).matches == {1: [1, 3, 6, 7, 9, 11]}


@pytest.mark.parametrize(("query", "expected"), CASES)
def test_case(dbs, query: str, expected: list[int]) -> None:
    for engine in ("sql", "python"):
        got = run(dbs["tries"], query, variations=True, engine=engine).matches
        assert got == ({1: expected} if expected else {}), engine


@pytest.mark.parametrize(("query", "name", "args"), [("try", "try", 0), ("loop check", "loop", 1),
                                                    ("loop {x = 1 x < 2}", "loop", 1)])
def test_parses(query: str, name: str, args: int) -> None:
    node = parse(query).body.items[-1]
    assert isinstance(node, ast.Control) and node.name == name and len(node.args) == args


@pytest.mark.parametrize("query", ["loop {check or true}", "loop true", "x = 1 loop {x = 1}",
                                   'dictionary d loop {d["a"] = 1}', "x = 0 loop {x += 0}"])
@pytest.mark.parametrize("engine", ["sql", "python"])
def test_a_loop_that_changes_nothing_is_an_error_not_a_hang(dbs, query: str, engine: str) -> None:
    # The body's outcome depends on the position and the variables only: no change, no end.
    with pytest.raises(CqlError, match="never ends") as caught:
        run(dbs["tries"], f"initial {query}", variations=True, engine=engine)
    assert caught.value.span.col > 0


@pytest.mark.parametrize("query", ["while (true) true", "x = 0 while (x < 3) true"])
@pytest.mark.parametrize("engine", ["sql", "python"])
def test_a_while_that_changes_nothing_is_an_error_not_a_hang(dbs, query: str, engine: str) -> None:
    with pytest.raises(CqlError, match="never ends") as caught:
        run(dbs["tries"], f"initial {query}", variations=True, engine=engine)
    assert caught.value.span.col > 0


# 'mate' matches nowhere in this game: an SQL plan would have no candidate, and never reach the
# failing assertion; the assertion is evaluated at every position, as CQL does.
@pytest.mark.parametrize("query", ["assert wtm", "try assert btm", "assert wtm mate", "mate or assert false"])
@pytest.mark.parametrize("engine", ["sql", "python"])
def test_a_failing_assertion_stops_the_run(dbs, query: str, engine: str) -> None:
    with pytest.raises(CqlError, match="assertion failed") as caught:
        run(dbs["tries"], query, variations=True, engine=engine)
    assert caught.value.span.col == query.index("assert") + 1


def test_a_loop_whose_dictionary_grows_runs_on(dbs) -> None:
    query = 'initial dictionary d x = 0 loop {x += 1 d[str x] = x x < 5} x == 5'
    assert run(dbs["tries"], query, variations=True, engine="python").matches == {1: [0]}


@pytest.mark.parametrize("engine", ["python", "sql"])
def test_cql_abort_stops_the_run_where_it_is_evaluated(build_db, engine: str) -> None:
    """The reference stops the whole run with an error at the first position that evaluates it."""
    from cqlindex.errors import CqlError, CqlSyntaxError, CqlUnsupportedError
    from cqlindex.exec.run import run

    db = build_db("data/studies/cql6-sample.pgn")
    with pytest.raises(CqlError) as info:
        run(db, "mate or cql_abort", engine=engine)
    assert not isinstance(info.value, (CqlSyntaxError, CqlUnsupportedError)) and "cql_abort" in str(info.value)
    assert run(db, "true or cql_abort", engine=engine).matches  # not evaluated: no stop
