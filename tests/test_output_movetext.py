"""The PGN written from the index's columns is python-chess's export of the same games, byte for byte.

:func:`cqlindex.output.pgn.write_pgn` writes most games with :mod:`cqlindex.output.movetext`
and the rest through python-chess (``reference=True`` sends every game there). On shared files
with variations, comments, NAGs, FEN starts, Chess960, null moves and broken games, with and
without variations and with matches marked, both must write the same text; the games the fast
writer leaves to python-chess are counted, so a writer that stopped taking games would fail.
"""

from __future__ import annotations

import io

import pytest

from cqlindex.exec.run import run
from cqlindex.output.pgn import write_pgn
from cqlindex.store.database import connect

EDGE = "data/edge/pgn-extract_test_infiles/"
# (files of one index, query, variations, the most games the fast writer may leave to python-chess)
CASES = [
    (("data/studies/cql6-sample.pgn",), "check", True, 0),
    (("data/studies/cql6-sample.pgn",), "initial", False, 0),
    (("data/annotated/chess-informant-sample.pgn", "data/annotated/world-matches.pgn"),
     "check", True, 0),
    (("data/annotated/dortmund.pgn", "data/annotated/immortal-games.pgn"), "mate or stalemate", True, 0),
    (("data/games/lichess-474.pgn",), "check", False, 0),
    (("data/games/lichess-474.pgn",), "check", True, 0),
    ((EDGE + "test-allownullmoves.pgn", EDGE + "test-setup-in.pgn", EDGE + "test-promotion-in.pgn",
      EDGE + "nested-comment.pgn", EDGE + "test-long-line.pgn", EDGE + "test-nagcomments.pgn"),
     "true", True, 12),  # 12 of 15 have no Result tag, or "*"
    (("data/edge/pychess/fenSetup.pgn", "data/edge/pgn4web/chess960wch06.pgn", "data/edge/pgn4web/tactics.pgn",
      "data/edge/pgn4web/test.pgn"), "true", True, 11),  # 11 of 950 have Result "*"
]


@pytest.mark.parametrize("files, query, variations, most_left", CASES)
def test_fast_writer_is_python_chess_byte_for_byte(build_db, files, query, variations, most_left) -> None:
    db = build_db(*files)
    result = run(db, query, variations=variations)
    con = connect(db)
    fast, slow = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, fast, variations=variations, matchstring="MATCH")
    reference = write_pgn(con, result, slow, variations=variations, matchstring="MATCH", reference=True)
    assert summary.games == reference.games == len(result.matches) > 0
    assert reference.reference == reference.games
    assert fast.getvalue() == slow.getvalue()
    print(f"{files[0]}: {summary.reference} of {summary.games} games left to python-chess")
    assert summary.reference <= most_left


@pytest.mark.parametrize("silent, with_header", [(True, True), (False, False)])
def test_silent_and_without_header_are_the_same_too(build_db, silent, with_header) -> None:
    db = build_db("data/studies/cql6-sample.pgn")
    result = run(db, 'sort "checks" check', variations=True)
    con = connect(db)
    fast, slow = io.StringIO(), io.StringIO()
    summary = write_pgn(con, result, fast, variations=True, silent=silent, with_header=with_header)
    write_pgn(con, result, slow, variations=True, silent=silent, with_header=with_header, reference=True)
    assert fast.getvalue() == slow.getvalue() and summary.reference == 0


def test_writing_a_game_leaves_no_garbage_cycle(build_db) -> None:
    """The writer runs once per game: a reference cycle there (a recursive closure, say) would
    leave each game's lists to the garbage collector, a fifth of the output time (issue 16)."""
    import gc

    from cqlindex.output.movetext import exact, fetch, write_game

    db = build_db("data/studies/cql6-sample.pgn")  # variations, nested ones, comments
    con = connect(db)
    numbers = [n for (n,) in con.execute("SELECT gamenumber FROM games WHERE positions > mainline_positions "
                                         "ORDER BY gamenumber LIMIT 20").fetchall()]
    rows = [r for r in fetch(con, numbers).values() if exact(r)]
    assert rows and any(r.depth > 1 for r in rows)
    automatic = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        texts = [write_game(r, "Game number 1", {1, 2}, {3: ["note"]}, "CQL") for r in rows]
        assert all("(" in t for t in texts)  # the variations were written
        assert gc.collect() == 0
    finally:
        if automatic:
            gc.enable()
