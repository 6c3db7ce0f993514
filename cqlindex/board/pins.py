"""The ``pinned`` column: the pieces pinned to their own king, either colour, as one bitboard.

Why it exists: ``pin`` is CQL's commonest line filter (``pin``, ``pin through [qr] to k``,
a piece iteration over pinned pieces) and SQL cannot follow a line. With only the attack maps
the planner could bound a pinned piece by "the other side attacks it", which kept 17% of the
positions of p06 of the patterns and 90% of p09's for the columnar engine to read and decide.
Stored, a pin to the king (every form whose ``to`` is kings) is one column.

CQL's pin (pins_rays.py): a rook, bishop or queen, the first piece it meets along its line (of
the other colour), then only empty squares to the ``to`` square, which is empty or holds a piece
of the pinned piece's colour. To a king, seen from the king: along each of the eight lines, the
first piece is its own and the next one an enemy that moves along that line. Computed from the
bitboards with the fills of :mod:`cqlindex.board.fills`, a batch at a time (numpy alone).
"""

from __future__ import annotations

import numpy as np

from cqlindex.board.fills import fill

_NOT_A = np.uint64(0xFEFE_FEFE_FEFE_FEFE)
_NOT_H = np.uint64(0x7F7F_7F7F_7F7F_7F7F)
_FULL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
#: (shift, mask a step lands on, orthogonal) of the eight directions.
_LINES = ((8, _FULL, True), (-8, _FULL, True), (1, _NOT_A, True), (-1, _NOT_H, True),
          (9, _NOT_A, False), (7, _NOT_H, False), (-7, _NOT_A, False), (-9, _NOT_H, False))


def pinned(bb: np.ndarray) -> np.ndarray:
    """The pinned pieces of each position, from its (12, n) uint64 bitboards K Q R B N P k q r b n p."""
    white = np.bitwise_or.reduce(bb[:6], axis=0)
    black = np.bitwise_or.reduce(bb[6:], axis=0)
    occupied = white | black
    empty = ~occupied
    out = np.zeros(bb.shape[1], np.uint64)
    for own, king, enemy in ((white, bb[0], 6), (black, bb[6], 0)):
        straight = bb[enemy + 1] | bb[enemy + 2]  # queens and rooks
        slanted = bb[enemy + 1] | bb[enemy + 3]  # queens and bishops
        # One king a side, almost always; a composed position with more is taken a king at a time,
        # so that each line's first piece is paired with what stands behind it on the same line.
        rest = king.copy()
        while rest.any():
            one = rest & (~rest + np.uint64(1))
            rest ^= one
            for bits, mask, orthogonal in _LINES:
                first = fill(one, empty, bits, mask) & own
                behind = fill(first, empty, bits, mask) & (straight if orthogonal else slanted)
                out |= np.where(behind != 0, first, np.uint64(0))
    return out
