"""san_without_suffix against python-chess's Board.san (suffix stripped): hand-picked rivals,
pins and Chess960 castling, then every move of random games."""

from __future__ import annotations

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cqlindex.board.san import san_without_suffix


def _ours(board: chess.Board, move: chess.Move) -> str:
    piece = board.piece_type_at(move.from_square)
    castle = None
    if board.is_castling(move):
        castle = 1 if board.is_kingside_castling(move) else 2
    captured = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
    if castle:
        captured = None
    return san_without_suffix(board, move, piece, captured, castle)


CASES = [
    # (id, fen, uci, expected)
    ("knights-by-file", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "b1d2", "Nbd2"),
    ("rooks-by-rank", "4k3/8/R7/8/8/8/R7/4K3 w - - 0 1", "a2a4", "R2a4"),
    ("queens-by-square", "4k3/8/8/8/Q1Q5/8/Q7/4K3 w - - 0 1", "a4b3", "Qa4b3"),
    ("rival-pinned", "4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1", "b1c3", "Nc3"),
    ("rival-blocked", "4k3/8/8/8/8/8/8/R1N1KR2 w - - 0 1", "f1f2", "Rf2"),
    ("capture-with-rival", "4k3/8/8/3p4/8/2N1N3/8/4K3 w - - 0 1", "c3d5", "Ncxd5"),
    ("king-capture", "4k3/8/8/8/8/8/4p3/4K3 w - - 0 1", "e1e2", "Kxe2"),
    ("pawn-capture-promotion", "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7d8n", "exd8=N"),
    ("en-passant", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", "exd6"),
]


@pytest.mark.parametrize("fen, uci, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hand_picked(fen: str, uci: str, expected: str) -> None:
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    assert move in board.legal_moves
    assert board.san(move).rstrip("+#") == expected  # the case says what python-chess says
    assert _ours(board, move) == expected


def test_chess960_castling() -> None:
    board = chess.Board("1k6/8/8/8/8/8/8/RK5R w HA - 0 1", chess960=True)
    for move in board.generate_castling_moves():
        assert _ours(board, move) == board.san(move).rstrip("+#")


STARTS = [
    (chess.STARTING_FEN, False),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False),
    ("1n2k1n1/8/8/2N1N3/8/2N1N3/8/Q3K2Q w - - 0 1", False),  # many rivals
    ("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1", True),
]


@pytest.mark.parametrize(("fen", "chess960"), STARTS, ids=["start", "kiwipete", "rivals", "c960"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indices=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=120))
def test_random_games(fen: str, chess960: bool, indices: list[int]) -> None:
    board = chess.Board(fen, chess960=chess960)
    for index in indices:
        moves = list(board.legal_moves)
        if not moves:
            return
        for move in moves:  # every legal move of the position, not only the one played
            assert _ours(board, move) == board.san(move).rstrip("+#"), (board.fen(), move.uci())
        board.push(moves[index % len(moves)])
