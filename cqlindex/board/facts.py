"""Facts computed once per position at build time: legal-move count, attack maps, polyglot key.

These run for every node of every game, so they are written for speed rather than reuse:

* :func:`count_legal_moves` counts with popcounts over attack masks instead of generating
  ``Move`` objects (about twice as fast as ``board.legal_moves.count()``), and falls back to
  python-chess for the rare hard cases (side to move in check, pinned pawns, en passant,
  castling), so python-chess stays the authority on legality.
* :func:`attack_maps` gives the squares each side attacks, CQL's way (pinned pieces attack,
  pawns only diagonally): one table lookup per piece, pawns all at once by shifting. SQL
  cannot compute sliding attacks, so these two columns are what lets the planner narrow
  ``attacks`` / ``attackedby`` queries to the positions where an attack exists at all.
* :class:`ZobristKeys` gives python-chess's polyglot key (``chess.polyglot.zobrist_hash``), but
  derives a child's piece part from its parent's by XOR-ing only the squares whose contents
  changed, so a move costs a handful of XORs instead of a walk over all pieces.
"""

from __future__ import annotations

import chess
import chess.polyglot
from chess import (
    BB_ALL,
    BB_BACKRANKS,
    BB_DIAG_ATTACKS,
    BB_DIAG_MASKS,
    BB_FILE_A,
    BB_FILE_ATTACKS,
    BB_FILE_H,
    BB_FILE_MASKS,
    BB_KING_ATTACKS,
    BB_KNIGHT_ATTACKS,
    BB_RANK_1,
    BB_RANK_3,
    BB_RANK_6,
    BB_RANK_8,
    BB_RANK_ATTACKS,
    BB_RANK_MASKS,
    BB_RAYS,
)

#: The order of the 12 piece bitboards everywhere in cqlindex (and of the table columns).
PIECE_ORDER: tuple[tuple[bool, int], ...] = tuple(
    (color, piece_type)
    for color in (chess.WHITE, chess.BLACK)
    for piece_type in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
)


def attack_maps(board: chess.Board) -> tuple[int, int]:
    """(squares attacked by White, squares attacked by Black): the union of ``attacks_mask``."""
    occupied = board.occupied
    diagonal = board.bishops | board.queens
    orthogonal = board.rooks | board.queens
    out = []
    for color in (chess.WHITE, chess.BLACK):
        own = board.occupied_co[color]
        pawns = board.pawns & own
        if color:
            attacked = ((pawns & ~BB_FILE_A) << 7 | (pawns & ~BB_FILE_H) << 9) & BB_ALL
        else:
            attacked = (pawns & ~BB_FILE_A) >> 9 | (pawns & ~BB_FILE_H) >> 7
        for square in chess.scan_forward(board.kings & own):
            attacked |= BB_KING_ATTACKS[square]
        for square in chess.scan_forward(board.knights & own):
            attacked |= BB_KNIGHT_ATTACKS[square]
        for square in chess.scan_forward(diagonal & own):
            attacked |= BB_DIAG_ATTACKS[square][BB_DIAG_MASKS[square] & occupied]
        for square in chess.scan_forward(orthogonal & own):
            attacked |= (BB_RANK_ATTACKS[square][BB_RANK_MASKS[square] & occupied]
                         | BB_FILE_ATTACKS[square][BB_FILE_MASKS[square] & occupied])
        out.append(attacked)
    return out[0], out[1]


def piece_bitboards(board: chess.Board) -> tuple[int, ...]:
    """The 12 bitboards K Q R B N P k q r b n p of ``board`` (unsigned)."""
    b, w = board.occupied_co  # indexed by colour: BLACK = 0, WHITE = 1
    k, q, r, bi, n, p = board.kings, board.queens, board.rooks, board.bishops, board.knights, board.pawns
    return (k & w, q & w, r & w, bi & w, n & w, p & w, k & b, q & b, r & b, bi & b, n & b, p & b)


def _pinned_candidates(board: chess.Board, king: int, occupied: int, them: int) -> int:
    """Pieces that stand alone between ``king`` and an enemy slider aiming at it along its line.

    Own pieces among them may be pinned; the caller keeps their moves on the pin line. Written
    with python-chess's public attack tables and ``between``, as its private ``_slider_blockers`` is."""
    snipers = them & (
        (BB_RANK_ATTACKS[king][0] | BB_FILE_ATTACKS[king][0]) & (board.rooks | board.queens)
        | BB_DIAG_ATTACKS[king][0] & (board.bishops | board.queens))
    blockers = 0
    while snipers:
        bb = snipers & -snipers
        snipers ^= bb
        between = chess.between(king, bb.bit_length() - 1) & occupied
        if between and not between & (between - 1):
            blockers |= between
    return blockers


def count_legal_moves(board: chess.Board) -> int:
    """Number of legal moves in ``board`` (standard chess rules, Chess960 castling included)."""
    us = board.turn
    own = board.occupied_co[us]
    king_bb = board.kings & own
    their_kings = board.kings & ~own
    if (not king_bb or king_bb & (king_bb - 1) or their_kings & (their_kings - 1)
            or board.pawns & BB_BACKRANKS or board.is_check()):
        # Check, and positions only a FEN can set up (several kings, pawns on a back rank):
        # python-chess decides.
        return board.legal_moves.count()
    king = king_bb.bit_length() - 1
    occ = board.occupied
    them = board.occupied_co[not us]
    blockers = _pinned_candidates(board, king, occ, them) & own
    not_own = ~own
    count = 0

    pieces = own & ~board.pawns & ~board.kings
    knights = board.knights
    diagonal = board.bishops | board.queens
    orthogonal = board.rooks | board.queens
    while pieces:
        bb = pieces & -pieces
        sq = bb.bit_length() - 1
        pieces ^= bb
        if knights & bb:
            targets = BB_KNIGHT_ATTACKS[sq]
        else:
            targets = 0
            if diagonal & bb:
                targets = BB_DIAG_ATTACKS[sq][BB_DIAG_MASKS[sq] & occ]
            if orthogonal & bb:
                targets |= BB_RANK_ATTACKS[sq][BB_RANK_MASKS[sq] & occ] | BB_FILE_ATTACKS[sq][BB_FILE_MASKS[sq] & occ]
        targets &= not_own
        if blockers & bb:
            targets &= BB_RAYS[king][sq]
        count += targets.bit_count()

    pawns = board.pawns & own
    pinned_pawns = pawns & blockers
    pawns ^= pinned_pawns
    empty = ~occ & BB_ALL
    if us:
        single = (pawns << 8) & empty
        double = ((single & BB_RANK_3) << 8) & empty
        left = ((pawns & ~BB_FILE_A) << 7) & them
        right = ((pawns & ~BB_FILE_H) << 9) & them
        last = BB_RANK_8
    else:
        single = (pawns >> 8) & empty
        double = ((single & BB_RANK_6) >> 8) & empty
        left = ((pawns & ~BB_FILE_A) >> 9) & them
        right = ((pawns & ~BB_FILE_H) >> 7) & them
        last = BB_RANK_1
    count += single.bit_count() + double.bit_count() + left.bit_count() + right.bit_count()
    # A promotion is four moves: add three more for each pawn move that lands on the last rank.
    count += 3 * ((single & last).bit_count() + (left & last).bit_count() + (right & last).bit_count())
    if pinned_pawns:
        # A pinned pawn may only move along the pin line; en passant is counted below.
        ep = board.ep_square
        for move in board.generate_pseudo_legal_moves(pinned_pawns, BB_ALL):
            if move.to_square != ep and BB_RAYS[move.from_square][move.to_square] & king_bb:
                count += 1

    # King moves: drop squares covered by enemy pawns, knights or king with whole-board masks,
    # then test the few that remain against enemy sliders. Not being in check, the king does
    # not shadow any slider, so the current occupancy is the right one.
    targets = BB_KING_ATTACKS[king] & not_own
    if targets:
        their_pawns = board.pawns & them
        if us:
            covered = ((their_pawns & ~BB_FILE_A) >> 9) | ((their_pawns & ~BB_FILE_H) >> 7)
        else:
            covered = ((their_pawns & ~BB_FILE_A) << 7) | ((their_pawns & ~BB_FILE_H) << 9)
        their_king = board.kings & them
        if their_king:
            covered |= BB_KING_ATTACKS[their_king.bit_length() - 1]
        their_knights = knights & them
        while their_knights:
            bb = their_knights & -their_knights
            their_knights ^= bb
            covered |= BB_KNIGHT_ATTACKS[bb.bit_length() - 1]
        targets &= ~covered
        their_diagonal = diagonal & them
        their_orthogonal = orthogonal & them
        while targets:
            bb = targets & -targets
            targets ^= bb
            sq = bb.bit_length() - 1
            if their_diagonal and BB_DIAG_ATTACKS[sq][BB_DIAG_MASKS[sq] & occ] & their_diagonal:
                continue
            if their_orthogonal and (BB_RANK_ATTACKS[sq][BB_RANK_MASKS[sq] & occ]
                                     | BB_FILE_ATTACKS[sq][BB_FILE_MASKS[sq] & occ]) & their_orthogonal:
                continue
            count += 1
    if board.castling_rights & own:
        count += sum(1 for _ in board.generate_castling_moves())
    if board.ep_square is not None:
        count += sum(1 for _ in board.generate_legal_ep())
    return count


class ZobristKeys:
    """python-chess's polyglot key, computed incrementally along a game tree."""

    __slots__ = ("_piece", "_castle", "_ep", "_turn", "_castle_cache")

    def __init__(self) -> None:
        array = chess.polyglot.POLYGLOT_RANDOM_ARRAY
        # Polyglot numbers pieces black pawn 0, white pawn 1, black knight 2, ...
        self._piece = [
            [array[64 * (2 * (piece_type - 1) + (1 if color else 0)) + sq] for sq in range(64)]
            for color, piece_type in PIECE_ORDER
        ]
        self._castle = array[768:772]
        self._ep = array[772:780]
        self._turn = array[780]
        self._castle_cache: dict[tuple, int] = {}

    def pieces(self, bitboards: tuple[int, ...], parent_bitboards: tuple[int, ...] | None = None,
               parent_key: int = 0) -> int:
        """The piece part of the key; from the parent's in O(changed squares) when given."""
        key = parent_key
        for i, bb in enumerate(bitboards):
            if parent_bitboards is not None:
                bb ^= parent_bitboards[i]
            if bb:
                keys = self._piece[i]
                while bb:
                    low = bb & -bb
                    key ^= keys[low.bit_length() - 1]
                    bb ^= low
        return key

    def full(self, piece_key: int, board: chess.Board) -> int:
        """Add side to move, castling rights and en passant file, exactly as polyglot does."""
        key = piece_key
        if board.castling_rights:
            key ^= self._castling(board)
        ep = board.ep_square
        if ep is not None:
            behind = 1 << (ep - 8 if board.turn else ep + 8)
            beside = ((behind & ~BB_FILE_A) >> 1) | ((behind & ~BB_FILE_H) << 1)
            if beside & board.pawns & board.occupied_co[board.turn]:
                key ^= self._ep[ep & 7]
        if board.turn:
            key ^= self._turn
        return key

    def _castling(self, board: chess.Board) -> int:
        # python-chess decides castling rights from the back ranks only (kings, rooks, colours,
        # promoted pieces, Chess960), so that is the cache key.
        back = BB_BACKRANKS
        cache_key = (board.castling_rights, board.kings & back, board.rooks & back,
                     board.occupied_co[chess.WHITE] & back, board.promoted & back, board.chess960)
        key = self._castle_cache.get(cache_key)
        if key is None:
            key = 0
            for index, (color, kingside) in enumerate(_CASTLING_ORDER):
                has = board.has_kingside_castling_rights if kingside else board.has_queenside_castling_rights
                if has(color):
                    key ^= self._castle[index]
            if len(self._castle_cache) > 4096:
                self._castle_cache.clear()
            self._castle_cache[cache_key] = key
        return key


_CASTLING_ORDER = ((chess.WHITE, True), (chess.WHITE, False), (chess.BLACK, True), (chess.BLACK, False))
