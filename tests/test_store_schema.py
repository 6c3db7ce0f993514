"""The macros of schema/views.sql give power users the planner's building blocks; each is checked
against python-chess or the module that generates the tables, on real positions."""

from __future__ import annotations

import chess
import duckdb
import pytest

from cqlindex.board.squares import to_signed
from cqlindex.board.transforms import DIHEDRAL, masks, shift
from tests.conftest import board_of

LICHESS = "data/games/lichess-474.pgn"


@pytest.fixture(scope="module")
def con(build_db):
    connection = duckdb.connect(str(build_db(LICHESS)), read_only=True)
    yield connection
    connection.close()


@pytest.mark.parametrize("name", ["rank_1", "file_e", "light", "dark", "center", "all", "diagonal_a1h8"])
def test_square_mask(con, name: str) -> None:
    assert con.execute("SELECT square_mask(?)", [name]).fetchall()[0][0] == to_signed(masks()[name])


@pytest.mark.parametrize("t, fn", [("rotate90", DIHEDRAL["rotate90"]), ("reflecth", DIHEDRAL["reflecth"]),
                                   ("shift(1,-2)", shift(1, -2))])
def test_transform_square(con, t: str, fn) -> None:
    got = [con.execute("SELECT transform_square(?, ?)", [t, sq]).fetchall()[0][0] for sq in range(64)]
    assert got == [fn(sq) for sq in range(64)]


def test_piece_macros_on_real_positions(con) -> None:
    rows = con.execute(
        "SELECT p.*, white_pieces(p) AS w, black_pieces(p) AS b, occupied(p) AS o, "
        "list_transform(range(64), lambda sq: piece_at(p, sq)) AS letters "
        "FROM positions p WHERE (gamenumber * 31 + positionid) % 97 = 0").fetchall()
    names = [d[0] for d in con.description]
    assert len(rows) > 200
    for values in rows:
        row = dict(zip(names, values))
        board = board_of(row)
        assert row["w"] == to_signed(board.occupied_co[chess.WHITE])
        assert row["b"] == to_signed(board.occupied_co[chess.BLACK])
        assert row["o"] == to_signed(board.occupied)
        assert row["letters"] == [p.symbol() if (p := board.piece_at(sq)) else None for sq in range(64)]


def test_fen_macro_and_view_match_python_chess(con) -> None:
    rows = con.execute(
        "SELECT p.*, fen(p) AS fen FROM positions p WHERE (gamenumber * 31 + positionid) % 53 = 0").fetchall()
    names = [d[0] for d in con.description]
    assert len(rows) > 300
    for values in rows:
        row = dict(zip(names, values))
        board = board_of(row)
        board.castling_rights = row["castling_rights"] & ((1 << 64) - 1)
        board.ep_square = row["ep_square"]
        board.halfmove_clock = row["halfmove_clock"]
        board.fullmove_number = row["movenumber"]
        assert row["fen"] == board.fen(en_passant="fen"), (row["gamenumber"], row["positionid"])
    view = con.execute("SELECT count(*), count(DISTINCT fen) > 1000 FROM positions_fen").fetchall()[0]
    assert view == (con.execute("SELECT count(*) FROM positions").fetchall()[0][0], True)


_BOARDS = {(color, kind): ("w" if color else "b") + chess.piece_symbol(kind)
           for color in chess.COLORS for kind in chess.PIECE_TYPES}


def _row(board: chess.Board) -> str:
    """A struct literal with the twelve bitboards of ``board``, as the macros read a positions row."""
    return "{" + ", ".join(f"'{name}': ({to_signed(int(board.pieces_mask(kind, color)))})::BIGINT"
                           for (color, kind), name in _BOARDS.items()) + "}"


@pytest.mark.parametrize("square", [chess.A1, chess.H1, chess.D4, chess.A8, chess.H8, chess.G7])
@pytest.mark.parametrize("piece", [chess.Piece(k, c) for c in chess.COLORS for k in chess.PIECE_TYPES],
                         ids=lambda p: p.symbol())
def test_board_fen_places_every_piece_on_every_corner(con, piece: chess.Piece, square: int) -> None:
    # h8 is the sign bit of the stored BIGINT; a1 and h8 the first and last byte of file_bits.
    board = chess.Board.empty()
    board.set_piece_at(square, piece)
    board.set_piece_at(chess.E4 if square != chess.E4 else chess.E5, chess.Piece(chess.KING, not piece.color))
    got = con.execute(f"SELECT board_fen({_row(board)})").fetchall()[0][0]
    assert got == board.board_fen()


def test_rank_letters_are_the_square_letters_on_real_positions(con) -> None:
    differing = con.execute(
        "SELECT count(*) FROM positions p, range(8) AS r(r) WHERE rank_letters(p, r) <> "
        + " || ".join(f"square_letter(p, 8 * r + {f})" for f in range(8))).fetchall()[0][0]
    assert differing == 0
    assert con.execute("SELECT count(*) FROM positions").fetchall()[0][0] > 10_000
