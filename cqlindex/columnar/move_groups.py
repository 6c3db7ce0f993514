"""The shape of generated moves: groups of one piece's moves, and what kind each group is.

Kept apart from :mod:`cqlindex.columnar.generate` because the kernels that read generated moves
are loaded with every other kernel, on every post-filtered query, while the generator (and the
python-chess tables it is built from, ~30 ms to import) is needed only by a query that asks for
moves no game played."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: A group's kind: a piece's normal moves (a pawn's apart, for promotions), or one special move.
PIECE, PAWN, EN_PASSANT, KINGSIDE, QUEENSIDE = 0, 1, 2, 3, 4
#: The first and the eighth ranks, where a pawn's move promotes.
LAST_RANKS = np.uint64(0xFF | 0xFF << 56)


@dataclass(slots=True)
class Moves:
    """The moves of positions as groups, ``owner`` ascending: each group is one piece's
    moves (``source``; ``targets`` a board of the squares it goes to, a castling's the king's g-
    or c-file square), and ``kind`` says which; ``rook``, a castling's rook square (-1 for the
    other groups)."""

    owner: np.ndarray
    source: np.ndarray
    targets: np.ndarray
    kind: np.ndarray
    rook: np.ndarray
