"""Per-position facts for many positions at once, with numpy: the compiled build path's board.

The python-chess path computes each fact position by position (:mod:`cqlindex.board.facts`);
here every fact is one array expression over a whole batch of positions, so no Python runs
per position. The results are the same numbers, bit for bit (the differential test builds
both ways and compares every column):

* :func:`piece_bitboards` turns 8x8 boards of piece codes into the 12 bitboards, one row
  per piece;
* :func:`attack_maps` gives the squares each side attacks, CQL's way (pinned pieces attack),
  with shifts for pawns, knights and kings and Kogge-Stone occluded fills for sliders;
* :func:`zobrist` gives python-chess's polyglot key from the bitboards, castling flags,
  en passant square and side to move.

Bitboards are ``uint64`` arrays with bit *i* for square *i* (a1 = 0), as python-chess's ints.
"""

from __future__ import annotations

import chess
import chess.polyglot
import numpy as np

from cqlindex.board.twice import side_attacks

U64 = np.uint64
_FILE_A = U64(chess.BB_FILE_A)
_FILE_H = U64(chess.BB_FILE_H)
_NOT_A, _NOT_H = ~_FILE_A, ~_FILE_H

#: The reader's piece codes (1-6 white P N B R Q K, 7-12 black) in cqlindex's bitboard order
#: K Q R B N P k q r b n p (:data:`cqlindex.board.facts.PIECE_ORDER`).
READER_CODES = (6, 5, 4, 3, 2, 1, 12, 11, 10, 9, 8, 7)
#: Piece type (python-chess: 1 pawn .. 6 king) of each reader code; 0 for an empty square.
CODE_PIECE_TYPE = np.array([0, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6], dtype=np.uint8)


def piece_bitboards(boards: np.ndarray) -> np.ndarray:
    """(12, n) uint64 bitboards K Q R B N P k q r b n p of (n, 64) boards of reader codes.

    One row per piece, so that every later step reads and writes whole contiguous rows and each
    row goes to Arrow without a copy: on (n, 12) the same arithmetic on strided columns took
    2-3x as long. The 64 squares are read four times, once per bit of the codes (0-12 fit in
    four bits), and each piece's board is the AND of those four planes or their complements.
    """
    planes = [np.packbits(boards & np.uint8(1 << b), axis=1, bitorder="little").view("<u8")[:, 0]
              for b in range(4)]
    flipped = [~plane for plane in planes]
    out = np.empty((12, boards.shape[0]), dtype=U64)
    for i, code in enumerate(READER_CODES):
        pick = [planes[b] if code >> b & 1 else flipped[b] for b in range(4)]
        np.bitwise_and(pick[0], pick[1], out=out[i])
        out[i] &= pick[2]
        out[i] &= pick[3]
    return out


def attack_maps(bb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(White's, Black's) attacked squares for (12, n) bitboards (union of python-chess's
    ``attacks_mask`` of each side's pieces: :func:`cqlindex.board.twice.side_attacks`)."""
    empty = ~np.bitwise_or.reduce(bb, axis=0)
    return side_attacks(bb[:6], empty, True)[0], side_attacks(bb[6:], empty, False)[0]


_POLYGLOT = np.array(chess.polyglot.POLYGLOT_RANDOM_ARRAY, dtype=U64)
# Polyglot numbers pieces black pawn 0, white pawn 1, black knight 2, ...: the key of each
# reader code on each square, code 0 (empty) keyed 0.
_PIECE_KEYS = np.zeros((13, 64), dtype=U64)
for _code in range(1, 13):
    _type, _white = (_code - 1) % 6 + 1, _code <= 6
    _PIECE_KEYS[_code] = _POLYGLOT[64 * (2 * (_type - 1) + (1 if _white else 0)): ][:64]
# The same keys for two neighbouring squares (2k, 2k+1) at once, indexed by 13 * code + code:
# one gather per pair of squares instead of one per square (the table is 43 KiB, cache-resident).
# Flat, pair j's 169 keys from 169 * j: one ``take`` with the offsets added in place is cheaper
# than a two-axis fancy index (measured 0.06 against 0.08 s on 400,000 positions).
_PAIR_KEYS = (_PIECE_KEYS[:, 0::2][:, None, :] ^ _PIECE_KEYS[:, 1::2][None, :, :]).reshape(169, 32).T.ravel()
_PAIR_OFFSETS = np.arange(32, dtype=np.int16) * 169
_CASTLE_KEYS = _POLYGLOT[768:772]  # white O-O, white O-O-O, black O-O, black O-O-O
_EP_KEYS = _POLYGLOT[772:780]
_TURN_KEY = _POLYGLOT[780]


def zobrist(boards: np.ndarray, bb: np.ndarray, castling: np.ndarray, ep_square: np.ndarray,
            white_to_move: np.ndarray, starts: np.ndarray | None = None) -> np.ndarray:
    """python-chess's polyglot key of each position.

    ``boards`` are the (n, 64) reader codes and ``bb`` their (12, n) bitboards
    (:func:`piece_bitboards`); ``castling`` is (n, 4) bool in polyglot's order (K, Q, k, q: python-chess's clean rights),
    ``ep_square`` int (-1 when none; hashed only when a pawn of the side to move stands beside
    the pawn that just moved, as polyglot wants).

    ``starts`` (sorted row indices, 0 first) says the rows are main lines, each row but a start
    the position one move after the row before it. The pieces' part of the key is then hashed
    in full only at the starts and carried along each line by the few squares a move changes
    (:func:`_carried_piece_keys`): half the time of hashing every row (4 against 8 ms a batch).
    """
    key = _piece_keys(boards) if starts is None else _carried_piece_keys(boards, bb, starts)
    for i in range(4):
        key ^= np.where(castling[:, i], _CASTLE_KEYS[i], U64(0))
    has_ep = ep_square >= 0
    if has_ep.any():
        ep = np.where(has_ep, ep_square, 0).astype(np.int64)
        behind = np.where(white_to_move, ep - 8, ep + 8)
        behind_bb = np.left_shift(U64(1), behind.astype(U64))
        beside = ((behind_bb & _NOT_A) >> U64(1)) | ((behind_bb & _NOT_H) << U64(1))
        own_pawns = np.where(white_to_move, bb[5], bb[11])
        hashed = has_ep & ((beside & own_pawns) != 0)
        key ^= np.where(hashed, _EP_KEYS[ep & 7], U64(0))
    key ^= np.where(white_to_move, _TURN_KEY, U64(0))
    return key


def _piece_keys(boards: np.ndarray) -> np.ndarray:
    """The XOR of the keys of the pieces on each of (n, 64) boards, a pair of squares at a time."""
    pair = boards[:, 0::2].astype(np.int16) * 13
    pair += boards[:, 1::2]
    pair += _PAIR_OFFSETS
    return np.bitwise_xor.reduce(_PAIR_KEYS.take(pair), axis=1)


# The piece keys by bitboard row (K Q R B N P k q r b n p) and square.
_BITBOARD_KEYS = _PIECE_KEYS[list(READER_CODES)]


def _carried_piece_keys(boards: np.ndarray, bb: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """:func:`_piece_keys` of main lines: in full at ``starts``, elsewhere the row before's
    XOR the keys of the bits each bitboard gained or lost (two to four on a move, so a few
    gathers a position instead of 32), as a running XOR restarted at each start. The key is
    an XOR over pieces, so this holds for any two rows; the starts only save the long diffs
    from one game's end to the next game's start."""
    n = boards.shape[0]
    change = np.zeros(n, dtype=U64)
    flips = bb[:, 1:] ^ bb[:, :-1]  # row i - 1: what the move into row i changed
    flips[:, starts[1:] - 1] = 0     # a start's own keys are hashed in full below
    for row in range(12):
        at = np.flatnonzero(flips[row])
        bits = flips[row, at]
        while at.size:
            low = bits & (~bits + U64(1))
            change[at + 1] ^= _BITBOARD_KEYS[row].take(np.log2(low.astype(np.float64)).astype(np.intp))
            bits ^= low
            more = bits != 0
            at, bits = at[more], bits[more]
    change[starts] = _piece_keys(boards[starts])
    running = np.bitwise_xor.accumulate(change)
    before = np.zeros(len(starts), dtype=U64)
    before[1:] = running[starts[1:] - 1]
    running ^= np.repeat(before, np.diff(np.append(starts, n)))
    return running
