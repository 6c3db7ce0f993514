"""Pure, model and ideal mates and stalemates (CQL 6.2's problem-chess predicates).

A pure mate, after the manual's motivation, has no unnecessary attack by the mating side on the
mated king or its field. Decided here, with the engine's answers on the studies sample
(puremate.cql, position for position) as the check:

* one check only; attacks are counted with the mated king lifted off the board, so a square
  behind the king on the checking line is guarded;
* every empty square of the field, and every square the mating side occupies there, is
  attacked exactly once; a square of the field holding a mated-side piece is not attacked at
  all, unless its one attacker pins that piece to the king (the pin is then necessary).

The value is the set of participating pieces, both colours, as the manual lists them: for the
mating side the checkers, the pieces attacking the field, pinned pieces and, without a double
check, pinners of potential refuters and pieces standing between a potential refuter and a
refutation square (the mating king, a checker, a square between a checker and the king); for
the mated side its king, the pieces beside it, pieces blocking one of its own checks on the
mating king and, without a double check, pieces blocking a move of its own side to a
refutation square. A model mate is a pure mate in which every piece of the mating side takes
part except its king and pawns; an ideal mate, one in which every piece on the board takes part.
The stalemate forms are the same with the side to move stalemated and no check. Not a pure
mate: the empty set (the filter does not match).
"""

from __future__ import annotations

import chess

NAMES = ("puremate", "modelmate", "idealmate", "purestalemate", "modelstalemate", "idealstalemate")
_SLIDERS = (chess.BISHOP, chess.ROOK, chess.QUEEN)


def mate_pattern(name: str, board: chess.Board) -> int:
    """The participants (a bitboard) if ``board`` is the pattern ``name``, else 0."""
    stale = name.endswith("stalemate")
    if not (board.is_stalemate() if stale else board.is_checkmate()):
        return 0
    participants = _pure(board)
    if participants is None:
        return 0
    mating = not board.turn
    if name.startswith("model"):
        others = board.occupied_co[mating] & ~board.kings & ~board.pawns
        if others & ~participants:
            return 0
    elif name.startswith("ideal") and board.occupied & ~participants:
        return 0
    return participants


def _pure(board: chess.Board) -> int | None:
    mated = board.turn
    mating = not mated
    king = board.king(mated)
    if king is None:
        return None
    checkers = board.checkers()
    if len(checkers) > 1:
        return None
    lifted = board.copy(stack=False)
    lifted.remove_piece_at(king)
    field = chess.BB_KING_ATTACKS[king]
    out = (1 << king) | field & board.occupied_co[mated] | int(checkers)
    for square in chess.scan_forward(field):
        attackers = lifted.attackers(mating, square)
        piece = board.piece_at(square)
        if piece is not None and piece.color == mated:
            if not attackers:
                continue
            if len(attackers) == 1 and int(board.pin(mated, square) & attackers) and board.is_pinned(mated, square):
                out |= int(attackers)
                continue
            return None
        if len(attackers) != 1:
            return None
        out |= int(attackers)
    for square in chess.scan_forward(board.occupied_co[mating]):
        if board.is_pinned(mating, square):
            out |= 1 << square
    out |= _blocking_own_checks(board, mated)
    return out | _refutation_guards(board, mated, int(checkers))  # a double check has returned above


def _blocking_own_checks(board: chess.Board, mated: chess.Color) -> int:
    """Mated-side pieces that alone stand between a mated-side slider and the mating king."""
    out = 0
    enemy_king = board.king(not mated)
    if enemy_king is None:
        return 0
    for square in chess.scan_forward(board.occupied_co[mated] & (board.bishops | board.rooks | board.queens)):
        between = chess.between(square, enemy_king) & board.occupied
        if _lines_up(board, square, enemy_king) and chess.popcount(between) == 1 and between & board.occupied_co[mated]:
            out |= between
    return out


def _lines_up(board: chess.Board, square: int, target: int) -> bool:
    """Whether the slider on ``square`` moves along the line to ``target``."""
    piece = board.piece_type_at(square)
    ray = chess.ray(square, target)
    if not ray:
        return False
    diagonal = chess.square_file(square) != chess.square_file(target) and \
        chess.square_rank(square) != chess.square_rank(target)
    return piece == chess.QUEEN or (piece == chess.BISHOP) == diagonal


def _refutation_guards(board: chess.Board, mated: chess.Color, checkers: int) -> int:
    """Without a double check: pinners of potential refuters and the pieces standing between a
    potential refuter and a refutation square (either colour)."""
    king = board.king(mated)
    enemy_king = board.king(not mated)
    refutation = (1 << enemy_king if enemy_king is not None else 0) | checkers
    for checker in chess.scan_forward(checkers):
        refutation |= chess.between(checker, king)
    out = 0
    pseudo = board.copy(stack=False)
    pseudo.turn = mated
    for square in chess.scan_forward(board.occupied_co[mated] & ~board.kings):
        reach = _reach(pseudo, square) & refutation
        if reach and board.is_pinned(mated, square):
            out |= _pinner(board, king, square)
        if board.piece_type_at(square) in _SLIDERS:
            for target in chess.scan_forward(refutation & ~reach):
                if not _lines_up(board, square, target):
                    continue
                between = chess.between(square, target) & board.occupied
                if chess.popcount(between) == 1:
                    out |= between
    return out


def _pinner(board: chess.Board, king: int, square: int) -> int:
    """The piece pinning the piece on ``square`` to ``king``: the first one beyond it, away from the king."""
    df = (chess.square_file(square) > chess.square_file(king)) - (chess.square_file(square) < chess.square_file(king))
    dr = (chess.square_rank(square) > chess.square_rank(king)) - (chess.square_rank(square) < chess.square_rank(king))
    file, rank = chess.square_file(square) + df, chess.square_rank(square) + dr
    while 0 <= file < 8 and 0 <= rank < 8:
        current = chess.square(file, rank)
        if board.piece_at(current) is not None:
            return 1 << current
        file, rank = file + df, rank + dr
    return 0


def _reach(board: chess.Board, square: int) -> int:
    """The squares the piece on ``square`` could move to pseudolegally, checks and pins aside;
    the enemy king's square counts as reached when attacked."""
    out = 0
    for move in board.generate_pseudo_legal_moves(chess.BB_SQUARES[square]):
        out |= 1 << move.to_square
    enemy_king = board.king(not board.turn)
    if enemy_king is not None and board.is_attacked_by(board.turn, enemy_king) and \
            board.attackers(board.turn, enemy_king) & chess.BB_SQUARES[square]:
        out |= 1 << enemy_king
    return out
