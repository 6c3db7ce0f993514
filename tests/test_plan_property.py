"""The planner never drops a match: random queries, SQL candidates against the evaluator.

Hypothesis writes queries from a grammar of the filters the planner compiles (pieces, set
algebra, counts, flags, transforms, attacks, moves, dash, parent/child/find/line, game tags,
negation and disjunction, which are where soundness rules bite) and runs them on a slice of
real games with variations. For every query and both modes: the evaluator's matches are a
subset of the SQL candidates, an exact plan's candidates are exactly the matches, and the
default engine returns what the evaluator returns. 20 queries by default, 200 with -m slow.
"""

from __future__ import annotations

import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqlindex.exec.run import plan_prepared, run
from cqlindex.query.prepare import prepare
from cqlindex.ingest.pipeline import build
from cqlindex.store.database import connect
from tests.conftest import shared_path

PIECES = ["K", "k", "Q", "q", "R", "r", "B", "n", "P", "p", "A", "a", "_", "[Aa]", "[RQ]", "[rq]", "Ka-h1-2",
          "kg8", "Pb2-7", "pa-h7", "[QR]d1-8", "_e4", "Nf3", "[Bb]c4", "[NB]", "a-h1-4", "."]
FLAGS = ["check", "mate", "stalemate", "wtm", "btm", "initial", "terminal", "mainline", "variation"]
OPS = ["<", "<=", "==", ">=", ">", "!="]


@st.composite
def piece_sets(draw, depth: int = 0) -> str:
    atom = st.sampled_from(PIECES)
    if depth >= 2:
        return draw(atom)
    choice = draw(st.integers(0, 6))
    if choice == 0:
        return f"({draw(piece_sets(depth + 1))} | {draw(piece_sets(depth + 1))})"
    if choice == 1:
        return f"({draw(piece_sets(depth + 1))} & {draw(piece_sets(depth + 1))})"
    if choice == 2:
        return f"~{draw(atom)}"
    if choice == 3:  # 'attacks' binds tighter than '~': its operands are parenthesised
        return f"({draw(atom)} attacks ({draw(piece_sets(depth + 1))}))"
    if choice == 4:
        return f"(({draw(piece_sets(depth + 1))}) attackedby {draw(atom)})"
    return draw(atom)


@st.composite
def filters(draw, depth: int = 0) -> str:
    simple = [
        piece_sets(),
        st.sampled_from(FLAGS),
        st.builds(lambda s, op, n: f"#{s} {op} {n}", piece_sets(), st.sampled_from(OPS), st.integers(0, 10)),
        st.builds(lambda op, n: f"ply {op} {n}", st.sampled_from(OPS), st.integers(0, 60)),
        st.builds(lambda a, b: f"power {a} > power {b}", piece_sets(), piece_sets()),
        st.builds(lambda a, b: f"{a} in {b}", piece_sets(), piece_sets()),
        st.builds(lambda a, b: f"move from {a} to {b}", piece_sets(), piece_sets()),
        st.builds(lambda a: f"move capture {a}", piece_sets()),
        st.builds(lambda a: f"move previous from {a}", piece_sets()),
        # the squares of the last move as sets (exact in SQL), a recapture among them
        st.builds(lambda w, a: f"move capture ({w} | {a})", st.sampled_from(["to", "from"]), piece_sets()),
        # parenthesised: after a move filter a bare 'from' or 'to' would be read as its parameter
        st.builds(lambda w, a: f"({w} & {a})", st.sampled_from(["to", "from"]), piece_sets()),
        st.sampled_from(["move promote Q", "move o-o", "move enpassant", "move legal", "move primary",
                         "move secondary", "result 1-0", "result 1/2-1/2", 'player white "a"',
                         'player "O\'Kelly"', "year > 1990", "elo white >= 2400", "rank K == 1"]),
        # in braces: a '(' after a move's last square would open its target (CQL 6.2 refuses the space)
        st.builds(lambda a, b: f"{{{a}--{b}}}", st.sampled_from(PIECES), st.sampled_from(PIECES)),
        st.builds(lambda a, b: f"{{{a}[x]{b}}}", st.sampled_from(PIECES), st.sampled_from(PIECES)),
    ]
    if depth >= 2:
        return draw(st.one_of(simple))
    inner = filters(depth + 1)
    compound = [
        st.builds(lambda f: f"not {f}", inner),
        st.builds(lambda f, g: f"{{{f} or {g}}}", inner, inner),
        st.builds(lambda f, g: f"{{{f} {g}}}", inner, inner),
        st.builds(lambda t, f: f"{t} {{{f}}}", st.sampled_from(["flipcolor", "flip", "fliphorizontal",
                                                                 "shiftvertical"]), inner),
        st.builds(lambda f: f"parent : {{{f}}}", inner),
        st.builds(lambda f: f"child : {{{f}}}", inner),
        st.builds(lambda f: f"find {{{f}}}", inner),
        st.builds(lambda f: f"find <-- {{{f}}}", inner),
        # a line constituent may not be a number, which a comparison is: each ends with 'true'
        st.builds(lambda f, g: f"line --> {{{f} true}} --> {{{g} true}}", inner, inner),
        st.builds(lambda f, g: f"if {f} {g} else not {g}", inner, inner),
    ]
    return draw(st.one_of(simple + compound))


@pytest.fixture(scope="module")
def slice_db(tmp_path_factory) -> str:
    """30 annotated studies (variations, set-ups) and 30 games: every tree shape, small enough to search often."""
    folder = tmp_path_factory.mktemp("property")
    pgn = folder / "slice.pgn"
    with pgn.open("w", encoding="utf-8") as out:
        for name in ("data/studies/cql6-sample.pgn", "data/games/lichess-474.pgn"):
            with shared_path(name).open(encoding="utf-8", errors="replace") as handle:
                for _ in range(30):
                    game = chess.pgn.read_game(handle)
                    if game is None:
                        break
                    print(game, file=out, end="\n\n")
    db = folder / "slice.duckdb"
    build([str(pgn)], db, workers=1)
    return str(db)


def _candidates(db: str, text: str, variations: bool) -> tuple[set[tuple[int, int]], bool]:
    con = connect(db)
    try:
        plan = plan_prepared(con, prepare(text, variations=variations))
        rows = con.execute(plan.sql).fetchall()
    finally:
        con.close()
    return set(rows), plan.exact


def test_the_grammar_writes_valid_cql() -> None:
    """Every query the grammar writes parses, so no example of the property test is wasted on a type error."""

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(query=filters())
    def parses(query: str) -> None:
        prepare(query)

    parses()


def _candidates_contain_every_match(slice_db: str, query: str, variations: bool) -> None:
    expected = run(slice_db, query, variations=variations, engine="python")  # the grammar writes valid CQL only
    matches = {(g, p) for g, ids in expected.matches.items() for p in ids}
    candidates, exact = _candidates(slice_db, query, variations)
    assert matches <= candidates, (query, sorted(matches - candidates)[:5])
    if exact:
        assert candidates == matches, (query, sorted(candidates - matches)[:5])
    got = run(slice_db, query, variations=variations)
    assert got.matches == expected.matches, query


_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@settings(max_examples=20, **_SETTINGS)
@given(query=filters(), variations=st.booleans())
def test_candidates_contain_every_match(slice_db: str, query: str, variations: bool) -> None:
    """20 queries by default (about 10 s); 200 with -m slow."""
    _candidates_contain_every_match(slice_db, query, variations)


@pytest.mark.slow
@settings(max_examples=200, **_SETTINGS)
@given(query=filters(), variations=st.booleans())
def test_candidates_contain_every_match_many(slice_db: str, query: str, variations: bool) -> None:
    _candidates_contain_every_match(slice_db, query, variations)
