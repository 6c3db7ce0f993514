"""The FEN's fields after the placement, and square names, from a batch's columns with Arrow.

In SQL (the schema's ``fen`` macro's CASE and ``chr`` arithmetic, per row) they cost about half
of the records' positions query (issue 16: 0.5 of 1.5 s for 1.5 M records); here each is an
Arrow ``take`` from a small table of strings, indexed by the column or a code computed with
numpy. They are the macro's byte for byte (tests/test_output_stream.py compares whole records).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Square 0..63 -> "a1".."h8".
_SQUARES = pa.array([chr(97 + s % 8) + chr(49 + s // 8) for s in range(64)])
#: The castling field by a 4-bit code, K Q k q from the high bit down; "-" when none.
_CASTLING = pa.array([("K" if c & 8 else "") + ("Q" if c & 4 else "") + ("k" if c & 2 else "") +
                      ("q" if c & 1 else "") or "-" for c in range(16)])
#: python-chess's castling mask: the rook squares h1, a1, h8 (bit 63: the sign bit), a8.
_H1, _A1, _A8 = 1 << 7, 1, 1 << 56
#: The literals of the fields as Arrow scalars, made once: a Python value given to a compute
#: function is converted on every call, and pyarrow's conversion of it looks for optional modules
#: (dateutil) on the import path each time, a millisecond of a server's page of a few records.
_NONE, _FALSE = pa.scalar(0, pa.int64()), pa.scalar(False)
_WHITE, _BLACK, _NO_SQUARE, _SPACE = pa.scalar("w"), pa.scalar("b"), pa.scalar("-"), pa.scalar(" ")


def square_names(squares: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Each square's name, null where the square is null (no move at a start position)."""
    return _SQUARES.take(squares) if len(squares) else pa.array([], pa.string())


def fen_tail(placement: pa.Array, wtm: pa.Array, castling_rights: pa.Array, ep_square: pa.Array,
             halfmove_clock: pa.Array, fullmove: pa.Array) -> pa.Array:
    """The whole FEN: ``placement``, side to move, castling rights (standard rook squares), the
    en passant square or "-", the halfmove clock and ``fullmove`` (strings), space separated."""
    if not len(placement):
        return pa.array([], pa.string())
    rights = pc.fill_null(castling_rights, _NONE).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    code = (((rights & _H1) != 0) * 8 | ((rights & _A1) != 0) * 4 | (rights < 0) * 2 |
            ((rights & _A8) != 0)).astype(np.int8)
    side = pc.if_else(pc.fill_null(wtm, _FALSE), _WHITE, _BLACK)
    passant = pc.fill_null(_SQUARES.take(ep_square), _NO_SQUARE)
    return pc.binary_join_element_wise(placement, side, _CASTLING.take(pa.array(code)), passant,
                                       pc.cast(halfmove_clock, pa.string()), fullmove, _SPACE)
