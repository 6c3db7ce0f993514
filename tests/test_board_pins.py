"""The ``pinned`` column (:mod:`cqlindex.board.pins`): every stored value is the set of pieces
python-chess finds pinned to their king on the board it rebuilds from the row, for both readers;
and pins the planner reads from it find exactly what the reference evaluator finds."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from cqlindex.board.pins import pinned
from cqlindex.exec.run import plan_for, run
from tests.conftest import board_of, built_rows

#: Set-ups with odd material (studies), and ordinary games.
DATA = ("data/studies/cql6-sample.pgn", "data/games/lichess-474.pgn")

#: Pins of the kinds researchers write; each must find something.
QUERIES = [
    "cql(quiet) pin",
    "cql(quiet) flipcolor { pin through [qr] to k }",
    "cql(quiet variations) #pin >= 2",
    "cql(quiet) flipcolor { piece x in [qrbnp] { pin through x piece y in [qrbnp] { pin through y x != y } } }",
    "cql(quiet) piece x in [Aa] { x attackedby [Aa] pin through x }",
]


def _pinned_by_python_chess(board: chess.Board) -> int:
    found = 0
    for colour in chess.COLORS:
        for square in chess.scan_forward(board.occupied_co[colour] & ~board.kings):
            if board.pin_mask(colour, square) != chess.BB_ALL:
                found |= 1 << square
    return found


def _bitboards(board: chess.Board) -> list[int]:
    return [int(board.pieces_mask(kind, colour)) for colour in (chess.WHITE, chess.BLACK)
            for kind in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)]


@pytest.mark.parametrize("fen, squares", [
    ("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", [chess.E2]),  # a rook pins along the file
    ("4k3/8/8/8/8/2b5/3P4/4K3 w - - 0 1", [chess.D2]),  # a bishop along the diagonal
    ("4k3/8/8/8/8/8/3P4/2r1K3 w - - 0 1", []),  # a rook does not pin along a diagonal
    ("4k3/8/4n3/8/8/8/4R3/4K3 w - - 0 1", [chess.E6]),  # Black's knight to its king; White's rook is not pinned
    ("4k3/4q3/4n3/8/8/8/4R3/4K3 w - - 0 1", []),  # the queen stands first from the king, and no slider behind her
    ("4k3/4r3/8/4N3/8/4P3/8/4K3 w - - 0 1", []),  # two pieces between: no pin
    ("7k/8/8/8/8/8/1K6/Q7 b - - 0 1", []),  # the king itself
])
def test_pins_on_set_boards(fen: str, squares: list[int]) -> None:
    board = chess.Board(fen)
    got = int(pinned(np.array(_bitboards(board), np.uint64)[:, None])[0])
    assert got == sum(1 << square for square in squares) == _pinned_by_python_chess(board)


def test_two_kings_a_side_are_taken_one_at_a_time() -> None:
    # A composed position: above each white king stands a piece of its own, and a queen stands
    # behind the one on the h-file alone. Taken together, the a-file's knight would seem pinned.
    for fen, squares in (("3k3q/8/8/8/N6B/8/8/K6K w - - 0 1", [chess.H4]),
                         ("r2k3q/8/8/8/N6B/8/8/K6K w - - 0 1", [chess.A4, chess.H4])):
        got = int(pinned(np.array(_bitboards(chess.Board(fen)), np.uint64)[:, None])[0])
        assert got == sum(1 << square for square in squares), fen


@pytest.mark.parametrize("reader", ["compiled", "python-chess"])
def test_every_stored_value_is_the_boards(tmp_path_factory, reader: str) -> None:
    checked = pins = 0
    for row in built_rows(tmp_path_factory.mktemp("pins"), DATA, reader):
        expected = _pinned_by_python_chess(board_of(row))
        assert row["pinned"] & (2**64 - 1) == expected, (row["gamenumber"], row["positionid"])
        checked += 1
        pins += expected != 0
    assert checked > 30_000 and pins > 1_000


@pytest.mark.parametrize("query", QUERIES)
def test_pins_from_the_column_find_what_the_evaluator_finds(build_db, query: str) -> None:
    db = build_db(*DATA)
    assert "pinned" in plan_for(db, query).select.sql(dialect="duckdb")  # the column, not the attack maps
    sql = run(db, query)
    assert sql.matches, "the comparison means something only where the query finds positions"
    assert sql.matches == run(db, query, engine="python").matches
