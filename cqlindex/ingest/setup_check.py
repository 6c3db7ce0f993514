"""Is a game's set-up position one that can occur in chess? What python-chess's ``status()`` finds, in words.

A FEN tag can describe what no game reaches: a pawn on the first rank, castling rights without
the rook, two white kings, the side not to move in check. Such a game is still indexed (the
moves may well be playable from there), but an error row says what is wrong with its start, so
a user can tell a surprising match from a broken setup.
"""

from __future__ import annotations

import chess

_PROBLEMS = {
    chess.STATUS_EMPTY: "the board is empty",
    chess.STATUS_NO_WHITE_KING: "no white king",
    chess.STATUS_NO_BLACK_KING: "no black king",
    chess.STATUS_TOO_MANY_KINGS: "more than one king of a side",
    chess.STATUS_TOO_MANY_WHITE_PAWNS: "more than 8 white pawns",
    chess.STATUS_TOO_MANY_BLACK_PAWNS: "more than 8 black pawns",
    chess.STATUS_PAWNS_ON_BACKRANK: "a pawn on the first or last rank",
    chess.STATUS_TOO_MANY_WHITE_PIECES: "more than 16 white pieces",
    chess.STATUS_TOO_MANY_BLACK_PIECES: "more than 16 black pieces",
    chess.STATUS_BAD_CASTLING_RIGHTS: "castling rights without the king and rook on their squares",
    chess.STATUS_INVALID_EP_SQUARE: "an en passant square that no pawn's double step can have left",
    chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
    chess.STATUS_TOO_MANY_CHECKERS: "check by more than two pieces",
    chess.STATUS_IMPOSSIBLE_CHECK: "a check that no last move can have given",
}


def setup_problem(board: chess.Board) -> str | None:
    """``impossible position in the FEN tag: ...`` naming each problem, or None if the position is valid."""
    status = board.status()
    if not status:
        return None
    found = [text for flag, text in _PROBLEMS.items() if status & flag]
    return "impossible position in the FEN tag: " + "; ".join(found or [str(status)])
