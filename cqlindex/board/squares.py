"""Squares as python-chess numbers them, and the unsigned/signed 64-bit conversion used at the
storage boundary.

Square names, parsing and bit scans are python-chess's (a1 = 0 ... h8 = 63, the same bits as its
bitboards); the names below only keep the imports of the rest of the code short. The signed
conversion is ours: DuckDB, Parquet and Spark all have a signed BIGINT but not all have an
unsigned one, so a bitboard is stored as the signed integer with the same 64 bits (DESIGN.md,
storage contract).
"""

from __future__ import annotations

import chess

FILES = "".join(chess.FILE_NAMES)
RANKS = "".join(chess.RANK_NAMES)
SQUARE_NAMES = chess.SQUARE_NAMES
#: The square on ``file`` (0 = a) and ``rank`` (0 = first rank).
square = chess.square

_SIGN_BIT = 1 << 63
_WORD = 1 << 64


def parse_square(name: str) -> int:
    """``"e4"`` -> 28 (python-chess's parser); ValueError that names the bad square on anything else."""
    try:
        return chess.parse_square(name)
    except ValueError:
        raise ValueError(f"not a square: {name!r}") from None


def to_signed(bitboard: int) -> int:
    """The signed 64-bit integer with the same bits as the unsigned ``bitboard``."""
    return bitboard - _WORD if bitboard & _SIGN_BIT else bitboard


def to_unsigned(value: int) -> int:
    """Inverse of :func:`to_signed`: the python-chess bitboard stored as ``value``."""
    return value + _WORD if value < 0 else value


def squares_of(bitboard: int) -> list[int]:
    """The squares set in ``bitboard``, lowest first."""
    return list(chess.scan_forward(bitboard))
