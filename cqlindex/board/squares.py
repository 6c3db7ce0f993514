"""Squares as python-chess numbers them, and the unsigned/signed 64-bit conversion used at the
storage boundary.

Squares are numbered as python-chess numbers them (a1 = 0 ... h8 = 63, the same bits as its
bitboards), but written out here rather than imported: the parser and the planner need square
names, and importing python-chess for them alone costs a query that SQL decides ~25 ms of
start-up (issue 16; ``tests/test_board_squares.py`` holds them to python-chess's). The signed
conversion is ours: DuckDB, Parquet and Spark all have a signed BIGINT but not all have an
unsigned one, so a bitboard is stored as the signed integer with the same 64 bits (DESIGN.md,
storage contract).
"""

from __future__ import annotations

FILES = "abcdefgh"
RANKS = "12345678"
SQUARE_NAMES = [f + r for r in RANKS for f in FILES]
_NUMBERS = {name: number for number, name in enumerate(SQUARE_NAMES)}


def square(file: int, rank: int) -> int:
    """The square on ``file`` (0 = a) and ``rank`` (0 = first rank)."""
    return rank * 8 + file


_SIGN_BIT = 1 << 63
_WORD = 1 << 64


def parse_square(name: str) -> int:
    """``"e4"`` -> 28; ValueError that names the bad square on anything else."""
    try:
        return _NUMBERS[name]
    except (KeyError, TypeError):
        raise ValueError(f"not a square: {name!r}") from None


def to_signed(bitboard: int) -> int:
    """The signed 64-bit integer with the same bits as the unsigned ``bitboard``."""
    return bitboard - _WORD if bitboard & _SIGN_BIT else bitboard


def to_unsigned(value: int) -> int:
    """Inverse of :func:`to_signed`: the python-chess bitboard stored as ``value``."""
    return value + _WORD if value < 0 else value


def squares_of(bitboard: int) -> list[int]:
    """The squares set in ``bitboard``, lowest first."""
    found = []
    while bitboard:
        lowest = bitboard & -bitboard
        found.append(lowest.bit_length() - 1)
        bitboard ^= lowest
    return found
