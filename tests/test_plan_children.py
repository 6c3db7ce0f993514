"""A move read from the row it leads to (:mod:`cqlindex.plan.children`): which SELECTs are read
from their main-line children, and that those find what the evaluator finds on real games."""

from __future__ import annotations

import duckdb
import pytest

from cqlindex.exec.run import plan_for, run

LICHESS = "data/games/lichess-474.pgn"
STUDIES = "data/studies/cql6-sample.pgn"  # variations, a game from a FEN, null moves


def _read_from_children(sql: str) -> bool:
    return "EXISTS" not in sql and "parent AS positionid" in sql


@pytest.mark.parametrize(("query", "rewritten"), [
    ("wtm move o-o-o", True),
    ("move promote Q", True),
    ("e2--e4", True),  # a dash of a piece's squares is a move of the child row too
    ("cql(quiet) wtm move o-o-o find {btm move o-o}", True),  # the find's subquery as well
    ("move capture q", False),  # reads the position's own bitboard: the join stays
    ("Ka1 move o-o", False),  # a square of the position itself
    ("cql(variations) move o-o", False),  # any child, not the main-line one
    ("line --> move o-o --> check", False),  # a window plan keeps its SELECT
])
def test_which_selects_are_read_from_the_child_row(build_db, query: str, rewritten: bool) -> None:
    plan = plan_for(build_db(LICHESS), query)
    assert _read_from_children(plan.sql) is rewritten, plan.sql


@pytest.mark.parametrize("dataset", [LICHESS, STUDIES])
def test_what_the_child_row_stands_for_holds(build_db, dataset: str) -> None:
    """The readings the rewrite rests on: the side to move changes with every move (a null move
    too), and a row is in the main line exactly when its parent is and it is the first child."""
    con = duckdb.connect(str(build_db(dataset)), read_only=True)
    try:
        links, same_side, mainline_off = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE c.wtm = p.wtm), "
            "count(*) FILTER (WHERE c.mainline <> (p.mainline AND c.child_index = 0)) "
            "FROM positions AS c JOIN positions AS p ON c.gamenumber = p.gamenumber AND c.parent = p.positionid"
        ).fetchall()[0]
        nulls = con.execute("SELECT count(*) FROM positions WHERE null_move").fetchall()[0][0]
    finally:
        con.close()
    assert links > 1000 and same_side == 0 and mainline_off == 0
    if dataset == STUDIES:
        assert nulls > 0  # the claim about null moves is tested, not assumed


@pytest.mark.parametrize("dataset", [LICHESS, STUDIES])
@pytest.mark.parametrize("query", [
    "wtm move o-o-o",
    "btm move o-o",
    "move promote [RBN]",
    "move primary",  # every position with a next move (not a game's first row as its own child)
    "wtm move enpassant",
    "cql(quiet) wtm move o-o find {btm move o-o-o}",
    "btm move null",
    "d2--d4",
])
def test_a_move_read_from_the_child_row_finds_what_the_evaluator_finds(build_db, dataset: str, query: str) -> None:
    db = build_db(dataset)
    got, expected = run(db, query), run(db, query, engine="python")
    assert got.matches == expected.matches
