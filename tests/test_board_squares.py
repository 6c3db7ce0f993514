"""Tests for cqlindex.board.squares: square names and the signed/unsigned storage conversion."""

from __future__ import annotations

import struct

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cqlindex.board.squares import (
    FILES,
    RANKS,
    SQUARE_NAMES,
    parse_square,
    square,
    squares_of,
    to_signed,
    to_unsigned,
)

UNSIGNED = st.integers(min_value=0, max_value=(1 << 64) - 1)
SIGNED = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)
FAST = settings(max_examples=300, deadline=None)


def test_square_names_follow_python_chess() -> None:
    """a1 = 0, b1 = 1, …, h8 = 63: the same numbering python-chess uses."""
    assert SQUARE_NAMES == chess.SQUARE_NAMES
    assert len(SQUARE_NAMES) == 64
    assert (FILES, RANKS) == ("abcdefgh", "12345678")


@pytest.mark.parametrize("sq", range(64), ids=SQUARE_NAMES)
def test_parse_square_round_trip(sq: int) -> None:
    """Every name parses to its index, and agrees with python-chess's parser."""
    assert parse_square(SQUARE_NAMES[sq]) == sq
    assert parse_square(chess.SQUARE_NAMES[sq]) == chess.parse_square(chess.SQUARE_NAMES[sq])


@pytest.mark.parametrize(("name", "index"), [("a1", 0), ("h1", 7), ("a2", 8), ("e4", 28), ("g6", 46), ("h8", 63)])
def test_parse_square_examples(name: str, index: int) -> None:
    assert parse_square(name) == index


@pytest.mark.parametrize(
    "name",
    [
        "",        # empty
        "e",       # too short
        "e44",     # too long
        "E4",      # upper-case file
        "i1",      # file past h
        "a0",      # rank before 1
        "a9",      # rank past 8
        "4e",      # rank and file swapped
        " e4",     # leading blank
        "e4 ",     # trailing blank
        "ee",      # two files
        "44",      # two ranks
        "e-",
        "ab",
        "é4",
    ],
)
def test_parse_square_rejects_bad_names(name: str) -> None:
    """A bad square name in a query must raise ValueError, never alias another square."""
    with pytest.raises(ValueError, match="not a square"):
        parse_square(name)


@pytest.mark.parametrize(("file", "rank", "name"), [(0, 0, "a1"), (7, 0, "h1"), (0, 7, "a8"), (4, 3, "e4"), (7, 7, "h8")])
def test_square_from_file_and_rank(file: int, rank: int, name: str) -> None:
    assert square(file, rank) == parse_square(name) == chess.square(file, rank)


# --------------------------------------------------------------------------------------------
# Signed / unsigned
# --------------------------------------------------------------------------------------------
@FAST
@given(bb=UNSIGNED)
def test_to_signed_round_trip(bb: int) -> None:
    """Storing a bitboard as BIGINT and reading it back gives the same bitboard."""
    signed = to_signed(bb)
    assert -(1 << 63) <= signed < 1 << 63
    assert to_unsigned(signed) == bb


@FAST
@given(value=SIGNED)
def test_to_unsigned_round_trip(value: int) -> None:
    unsigned = to_unsigned(value)
    assert 0 <= unsigned < 1 << 64
    assert to_signed(unsigned) == value


@FAST
@given(bb=UNSIGNED)
def test_to_signed_is_twos_complement(bb: int) -> None:
    """Same 64 bits as the machine does it (struct is the reference for the BIGINT layout)."""
    assert to_signed(bb) == struct.unpack("<q", struct.pack("<Q", bb))[0]


@pytest.mark.parametrize(
    ("unsigned", "signed"),
    [
        (0, 0),
        (1, 1),
        ((1 << 63) - 1, (1 << 63) - 1),   # largest value that keeps its sign
        (1 << 63, -(1 << 63)),            # h8 alone: the minimum int64
        ((1 << 64) - 1, -1),              # the full board
        (chess.BB_RANK_8, -(1 << 56)),
    ],
    ids=["zero", "a1", "max-int64", "h8-min-int64", "all-squares", "rank-8"],
)
def test_signed_boundaries(unsigned: int, signed: int) -> None:
    """The sign bit is h8; every bitboard with h8 set is stored negative."""
    assert to_signed(unsigned) == signed
    assert to_unsigned(signed) == unsigned


def test_to_signed_of_h8_is_int64_min() -> None:
    assert to_signed(1 << 63) == -(2 ** 63) == -9223372036854775808


# --------------------------------------------------------------------------------------------
# squares_of
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("bb", "expected"),
    [
        (0, []),
        (1, [0]),
        (1 << 63, [63]),
        (chess.BB_RANK_1, list(range(8))),
        ((1 << 64) - 1, list(range(64))),
        (chess.BB_E4 | chess.BB_A1 | chess.BB_H8, [0, 28, 63]),
    ],
    ids=["empty", "a1", "h8", "rank-1", "all", "three"],
)
def test_squares_of_examples(bb: int, expected: list[int]) -> None:
    assert squares_of(bb) == expected


@FAST
@given(bb=UNSIGNED)
def test_squares_of_matches_python_chess(bb: int) -> None:
    """Lowest first, one entry per set bit, same as iterating a python-chess SquareSet."""
    result = squares_of(bb)
    assert result == list(chess.SquareSet(bb))
    assert result == sorted(set(result))
    assert sum(1 << sq for sq in result) == bb
