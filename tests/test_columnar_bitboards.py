"""The columnar engine's bitboard kernels against python-chess, on positions of random games.

Every sliding fill, leaper pattern and pawn capture is compared square by square with
python-chess's own tables on boards where pieces block each other, and the set-bit explosion
that set iterations rest on gives back each board's squares in order.
"""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from cqlindex.columnar import bitboards as B


@pytest.fixture(scope="module")
def boards() -> list[chess.Board]:
    rng = random.Random(7)
    out = []
    for _ in range(120):
        board = chess.Board()
        for _ in range(rng.randint(0, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        out.append(board)
    return out


def _rook(square: int, board: chess.Board) -> int:
    occupied = board.occupied
    return (chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & occupied]
            | chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & occupied])


def _bishop(square: int, board: chess.Board) -> int:
    return chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & board.occupied]


@pytest.mark.parametrize("ours, theirs", [(B.rook_attacks, _rook), (B.bishop_attacks, _bishop)],
                         ids=["rook", "bishop"])
def test_sliding_attacks_from_each_square(boards, ours, theirs) -> None:
    occupied = np.array([b.occupied for b in boards], np.uint64)
    for square in chess.SQUARES:
        got = ours(np.full(len(boards), 1 << square, np.uint64), occupied)
        assert [int(x) for x in got] == [theirs(square, b) for b in boards], chess.square_name(square)


@pytest.mark.parametrize("ours, theirs", [(B.rook_attacks_from, _rook), (B.bishop_attacks_from, _bishop)],
                         ids=["rook", "bishop"])
def test_table_attacks_from_each_square(boards, ours, theirs) -> None:
    """The kindergarten tables (built at import) against python-chess on every square of every
    board, with the slider's own square occupied and empty (it is no obstacle either way)."""
    occupied = np.array([b.occupied for b in boards], np.uint64)
    for square in chess.SQUARES:
        expected = [theirs(square, b) for b in boards]
        for own in (np.uint64(1 << square), np.uint64(0)):
            mine = occupied | own if own else occupied & ~np.uint64(1 << square)
            got = ours(np.full(len(boards), square), mine)
            assert [int(x) for x in got] == expected, chess.square_name(square)


def test_a_fill_from_several_squares_is_the_union_of_their_fills(boards) -> None:
    occupied = np.array([b.occupied for b in boards], np.uint64)
    rooks = np.array([b.rooks | b.queens for b in boards], np.uint64)
    got = B.rook_attacks(rooks, occupied)
    for board, value in zip(boards, got):
        expected = 0
        for square in chess.scan_forward(board.rooks | board.queens):
            expected |= _rook(square, board)
        assert int(value) == expected


@pytest.mark.parametrize("ours, table", [
    (B.knight_attacks, chess.BB_KNIGHT_ATTACKS), (B.king_attacks, chess.BB_KING_ATTACKS),
    (B.white_pawn_attacks, chess.BB_PAWN_ATTACKS[chess.WHITE]),
    (B.black_pawn_attacks, chess.BB_PAWN_ATTACKS[chess.BLACK])], ids=["knight", "king", "white pawn", "black pawn"])
def test_leapers_and_pawns(ours, table) -> None:
    got = ours(np.array([1 << s for s in chess.SQUARES], np.uint64))
    assert [int(x) for x in got] == list(table)


def test_explode_lists_each_boards_squares_in_order(boards) -> None:
    occupied = np.array([b.occupied for b in boards] + [0], np.uint64)
    owner, bits = B.explode(occupied)
    expected = [(i, 1 << s) for i, b in enumerate(boards) for s in chess.scan_forward(b.occupied)]
    assert list(zip(owner.tolist(), [int(x) for x in bits])) == expected
    assert [int(x) for x in B.or_by_owner(owner, bits, len(occupied))] == [int(x) for x in occupied]


def test_lines_are_the_sliders_attacks_on_an_empty_board() -> None:
    empty = chess.Board(None)
    for ours, piece in ((B.ROOK_LINES, chess.ROOK), (B.BISHOP_LINES, chess.BISHOP)):
        expected = []
        for square in chess.SQUARES:
            empty.set_piece_at(square, chess.Piece(piece, chess.WHITE))
            expected.append(int(empty.attacks_mask(square)))
            empty.remove_piece_at(square)
        assert [int(x) for x in ours] == expected


def test_between_is_python_chess_between() -> None:
    assert [[int(x) for x in row] for row in B.BETWEEN] == [[chess.between(a, b) for b in chess.SQUARES]
                                                             for a in chess.SQUARES]


def test_lowest_square_and_popcount() -> None:
    boards = np.array([1, 1 << 63, (1 << 20) | (1 << 40)], np.uint64)
    assert B.lowest_square(boards).tolist() == [0, 63, 20]
    assert B.popcount(boards).tolist() == [1, 1, 2]


def test_slide_stops_at_the_first_piece_and_takes_it() -> None:
    a1, a4, a5 = 1 << chess.A1, 1 << chess.A4, 1 << chess.A5
    got = B.slide(np.array([a1], np.uint64), ~np.array([a1 | a4 | a5], np.uint64), "up")
    assert int(got[0]) == (1 << chess.A2) | (1 << chess.A3) | a4
