"""The ``white_attacks_twice`` and ``black_attacks_twice`` columns (:mod:`cqlindex.board.twice`):
every stored value is the set of squares two or more pieces of the side attack on the board
python-chess rebuilds from the row, for both readers; and counts of attackers the planner
bounds with them find exactly what the reference evaluator finds."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from cqlindex.board.twice import attacked_twice
from cqlindex.exec.run import plan_for, run
from tests.conftest import board_of, built_rows

#: Set-ups with odd material (studies), and ordinary games.
DATA = ("data/studies/cql6-sample.pgn", "data/games/lichess-474.pgn")

#: Counts of attackers as researchers write them; each must find something.
QUERIES = [
    "cql(quiet) flipcolor { wtm #(a attacks K) == 2 }",
    "cql(quiet variations) flipcolor { square s in [qrbn] { #(A attacks s) >= 2 #(a attacks s) == 0 } }",
    "cql(quiet) flipcolor { square s in [qrbnp] { #(A attacks s) >= 3 } }",
    "cql(quiet) flipcolor { piece x in [qrbn] { #([QRBN] attacks x) > 1 not (x attackedby a) } }",
    "cql(quiet) flipcolor { #(A attacks k) >= 2 }",
    "cql(quiet) flipcolor { #(A attacks d4) >= 2 }",
]


def _twice_by_python_chess(board: chess.Board, colour: chess.Color) -> int:
    return sum(1 << square for square in chess.SQUARES if len(board.attackers(colour, square)) >= 2)


def _bitboards(board: chess.Board) -> list[int]:
    return [int(board.pieces_mask(kind, colour)) for colour in (chess.WHITE, chess.BLACK)
            for kind in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)]


@pytest.mark.parametrize("fen", [
    chess.STARTING_FEN,
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",  # two rooks on one rank: the nearer blocks the other's ray
    "4k3/8/8/3p1p2/4N3/8/8/4K3 b - - 0 1",  # two pawns capture on e4 from either side
    "4k3/8/8/8/3Q4/8/1B6/4K3 w - - 0 1",  # a queen and a bishop on one diagonal: the queen shields
    "k7/8/8/8/8/8/8/KN4NK w - - 0 1",  # a composed position: two kings, two knights a side
    "4k3/8/2n1n3/8/3P4/8/8/4K3 w - - 0 1",  # two knights jump to the same squares
    "r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R w KQkq - 0 1",
])
def test_set_boards(fen: str) -> None:
    board = chess.Board(fen)
    white, black = attacked_twice(np.array(_bitboards(board), np.uint64)[:, None])
    assert int(white[0]) == _twice_by_python_chess(board, chess.WHITE), fen
    assert int(black[0]) == _twice_by_python_chess(board, chess.BLACK), fen


@pytest.mark.parametrize("reader", ["compiled", "python-chess"])
def test_every_stored_value_is_the_boards(tmp_path_factory, reader: str) -> None:
    checked = twice = 0
    for row in built_rows(tmp_path_factory.mktemp("twice"), DATA, reader):
        board = board_of(row)
        for column, colour in (("white_attacks_twice", chess.WHITE), ("black_attacks_twice", chess.BLACK)):
            expected = _twice_by_python_chess(board, colour)
            assert row[column] & (2**64 - 1) == expected, (row["gamenumber"], row["positionid"], column)
            twice += expected != 0
        checked += 1
    assert checked > 30_000 and twice > 30_000


@pytest.mark.parametrize("query", QUERIES)
def test_counts_bounded_by_the_column_find_what_the_evaluator_finds(build_db, query: str) -> None:
    db = build_db(*DATA)
    assert "attacks_twice" in plan_for(db, query).select.sql(dialect="duckdb")
    sql = run(db, query)
    assert sql.matches, "the comparison means something only where the query finds positions"
    assert sql.matches == run(db, query, engine="python").matches


@pytest.mark.parametrize(("query", "read"), [
    ("cql(quiet) flipcolor { #(A attacks [qr]) >= 2 }", True),  # two rooks attacked once each count too
    ("cql(quiet) flipcolor { #(A attacks (d5|e5)) >= 2 }", False),  # two squares known when planning
    ("cql(quiet) #([Aa] attacks e5) >= 2", False),  # one white and one black attacker: in neither column
])
def test_counts_it_does_not_bound_stay_unbounded(build_db, query: str, read: bool) -> None:
    """Two or more attackers of a set of several squares, or of both colours, need no square
    attacked twice by one colour."""
    db = build_db(*DATA)
    assert ("attacks_twice" in plan_for(db, query).select.sql(dialect="duckdb")) is read
    sql = run(db, query)
    assert sql.matches
    assert sql.matches == run(db, query, engine="python").matches
