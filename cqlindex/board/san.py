"""Standard algebraic notation for a move just parsed, without re-generating legal moves.

python-chess's ``Board.san`` finds the disambiguation by generating every legal move of the
piece type, which on a build is most of the cost of the SAN column. Pawn moves and castling
need no disambiguation, and most piece moves have no rival that could reach the same square;
only when a rival exists are python-chess's legal moves of that piece type to that square
generated (legality knows about pins), and SAN's rule picks file, rank or both. The result is
python-chess's SAN without the check/mate suffix, which the build adds from its own flags.
Only public python-chess API is used, so any 1.x release works.
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
    if piece is None:  # not a move of a piece on the board: python-chess says what it is
        return board.san(move).rstrip("+#")
    prefix = PIECE_SYMBOLS[piece].upper()
    if piece != chess.KING and _has_rival(board, move.from_square, to, piece):
        prefix += _disambiguation(board, move, piece)
    return prefix + ("x" if captured else "") + SQUARE_NAMES[to]


def _disambiguation(board: chess.Board, move: chess.Move, piece: int) -> str:
    """The file, rank or square SAN adds when another legal move of the same piece type lands
    on the same square: the file if it tells them apart, else the rank, else both."""
    source = move.from_square
    rivals = board.pieces_mask(piece, board.turn) & ~(1 << source)
    others = [m.from_square for m in board.generate_legal_moves(rivals, 1 << move.to_square)]
    if not others:
        return ""
    file, rank = source & 7, source >> 3
    if all(other & 7 != file for other in others):
        return _FILES[file]
    if all(other >> 3 != rank for other in others):
        return str(rank + 1)
    return SQUARE_NAMES[source]


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
