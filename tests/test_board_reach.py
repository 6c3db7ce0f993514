"""The empty-board attack and reach tables (board/reach.py) against python-chess's attacks."""

from __future__ import annotations

import random

import chess
import pytest

from cqlindex.board.reach import KINDS, attacks, reach

#: python-chess's attacks from a square of an empty board, by our kind letters.
EMPTY = chess.Board(None)


def _chess_attacks(kind: str, square: int) -> int:
    board = chess.Board(None)
    colour = chess.BLACK if kind == "p" else chess.WHITE
    board.set_piece_at(square, chess.Piece(chess.PIECE_SYMBOLS.index(kind.lower()), colour))
    return int(board.attacks(square))


@pytest.mark.parametrize("kind", list(KINDS))
def test_attacks_are_python_chess_attacks_on_an_empty_board(kind: str) -> None:
    assert attacks(kind) == tuple(_chess_attacks(kind, square) for square in range(64))


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("seed", range(4))
def test_reach_is_every_square_whose_attacks_meet_the_targets(kind: str, seed: int) -> None:
    rng = random.Random(seed)
    targets = 0
    for _ in range(rng.choice([1, 2, 5, 12])):
        targets |= 1 << rng.randrange(64)
    expected = sum(1 << q for q in range(64) if _chess_attacks(kind, q) & targets)
    assert reach(kind, targets) == expected


def test_reach_of_nothing_and_of_everything() -> None:
    assert reach("N", 0) == 0
    assert reach("Q", (1 << 64) - 1) == (1 << 64) - 1
    assert reach("P", 1 << chess.E4) == chess.BB_D3 | chess.BB_F3  # a white pawn attacks upwards
    assert reach("p", 1 << chess.E4) == chess.BB_D5 | chess.BB_F5
