"""Filter values: a set of squares, a number, a position, a string, or a bare match.

A filter that fails yields ``None``. Sets and numbers are both ints in Python, so sets are
:class:`Squares` (an int subclass) and a logical match is :data:`MATCH`; comparisons and
arithmetic can then tell a count from a bitboard.
"""

from __future__ import annotations

ALL_SQUARES = (1 << 64) - 1


class Squares(int):
    """A set of squares as a bitboard (bit i = square i)."""

    __slots__ = ()

    def __repr__(self) -> str:
        import chess

        return f"Squares({' '.join(chess.SQUARE_NAMES[s] for s in chess.scan_forward(self))})"


class _Match:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MATCH"


#: The value of a filter that matches but has no value (check, wtm, not ..., and ...).
MATCH = _Match()


def count(value: object) -> int | None:
    """The number a value stands for in arithmetic and comparisons: a set counts its squares."""
    if isinstance(value, Squares):
        return int(value).bit_count()
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def truncated_division(a: int, b: int) -> tuple[int, int]:
    """Quotient and remainder rounding toward zero, as CQL's C integers do (b must not be 0)."""
    quotient = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
    return quotient, a - b * quotient
