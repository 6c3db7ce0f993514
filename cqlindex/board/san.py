"""Standard algebraic notation for a move just parsed, without re-generating legal moves.

python-chess's ``Board.san`` finds the disambiguation by generating every legal move of the
piece type, which on a build is most of the cost of the SAN column. Pawn moves and castling
need no disambiguation, and most piece moves have no rival that could reach the same square;
only when a rival exists does python-chess decide (it knows about pins). The result is
python-chess's SAN without the check/mate suffix, which the build adds from its own flags.
"""

from __future__ import annotations

import chess
from chess import (
    BB_DIAG_ATTACKS, BB_DIAG_MASKS, BB_FILE_ATTACKS, BB_FILE_MASKS, BB_KNIGHT_ATTACKS, BB_RANK_ATTACKS,
    BB_RANK_MASKS, PIECE_SYMBOLS, SQUARE_NAMES,
)

_FILES = "abcdefgh"


def san_without_suffix(board: chess.Board, move: chess.Move, piece: int | None, captured: int | None,
                       castle: int | None) -> str:
    """SAN of ``move`` in ``board`` (before it is played), with no ``+``/``#``.

    ``piece``, ``captured`` and ``castle`` are what the caller already worked out (piece type
    moving, piece type captured or None, 1/2 for O-O/O-O-O).
    """
    if castle:
        return "O-O" if castle == 1 else "O-O-O"
    to = move.to_square
    if piece == chess.PAWN:
        san = f"{_FILES[move.from_square & 7]}x{SQUARE_NAMES[to]}" if captured else SQUARE_NAMES[to]
        return san + "=" + PIECE_SYMBOLS[move.promotion].upper() if move.promotion else san
    if piece is None or piece == chess.KING or _has_rival(board, move.from_square, to, piece):
        return board._algebraic_without_suffix(move)
    return PIECE_SYMBOLS[piece].upper() + ("x" if captured else "") + SQUARE_NAMES[to]


def _has_rival(board: chess.Board, source: int, to: int, piece: int) -> bool:
    """Whether another piece of the mover's type and colour attacks ``to``."""
    same = board.pieces_mask(piece, board.turn) & ~(1 << source)
    if not same:
        return False
    occ = board.occupied
    if piece == chess.KNIGHT:
        reach = BB_KNIGHT_ATTACKS[to]
    else:
        reach = 0
        if piece in (chess.BISHOP, chess.QUEEN):
            reach = BB_DIAG_ATTACKS[to][BB_DIAG_MASKS[to] & occ]
        if piece in (chess.ROOK, chess.QUEEN):
            reach |= BB_RANK_ATTACKS[to][BB_RANK_MASKS[to] & occ] | BB_FILE_ATTACKS[to][BB_FILE_MASKS[to] & occ]
    return bool(reach & same)
