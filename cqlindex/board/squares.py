"""Square names and the unsigned/signed 64-bit conversion used at the storage boundary.

DuckDB, Parquet and Spark all have a signed BIGINT but not all have an unsigned one, so a
bitboard is stored as the signed integer with the same 64 bits (DESIGN.md, storage contract).
"""

from __future__ import annotations

FILES = "abcdefgh"
RANKS = "12345678"
SQUARE_NAMES = [f + r for r in RANKS for f in FILES]

_SIGN_BIT = 1 << 63
_WORD = 1 << 64


def square(file: int, rank: int) -> int:
    """The square on ``file`` (0 = a) and ``rank`` (0 = first rank)."""
    return rank * 8 + file


def parse_square(name: str) -> int:
    """``"e4"`` → 28. Raises ValueError on anything else."""
    if len(name) != 2 or name[0] not in FILES or name[1] not in RANKS:
        raise ValueError(f"not a square: {name!r}")
    return square(FILES.index(name[0]), RANKS.index(name[1]))


def to_signed(bitboard: int) -> int:
    """The signed 64-bit integer with the same bits as the unsigned ``bitboard``."""
    return bitboard - _WORD if bitboard & _SIGN_BIT else bitboard


def to_unsigned(value: int) -> int:
    """Inverse of :func:`to_signed`: the python-chess bitboard stored as ``value``."""
    return value + _WORD if value < 0 else value


def squares_of(bitboard: int) -> list[int]:
    """The squares set in ``bitboard``, lowest first."""
    out = []
    while bitboard:
        low = bitboard & -bitboard
        out.append(low.bit_length() - 1)
        bitboard ^= low
    return out
