"""The square maps behind CQL's transform filters, and the constant square masks.

This module is the one truth for both engines: the evaluator applies these maps to squares,
and the build writes them into the ``square_transforms`` and ``square_masks`` tables so the SQL
planner can join on them instead of shifting bits in SQL (which DESIGN.md forbids).

Naming follows the seeds (seeds/000 and 002): ``reflecth`` mirrors the ranks (a1↔a8, what
CQL's ``fliphorizontal`` does), ``reflectv`` mirrors the files (a1↔h1, ``flipvertical``),
rotations are counterclockwise. The colour swap moves squares like ``reflecth``; the colour
change itself is the evaluator's business. A shift may push a square off the board, so its
image is ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from cqlindex.board.squares import SQUARE_NAMES, square

SquareMap = Callable[[int], int | None]


def _dihedral(fn: Callable[[int, int], tuple[int, int]]) -> SquareMap:
    def apply(sq: int) -> int:
        f, r = fn(sq % 8, sq // 8)
        return square(f, r)

    return apply


#: The eight rigid motions of the board, keyed by the seeds' names.
DIHEDRAL: dict[str, SquareMap] = {
    "id": _dihedral(lambda f, r: (f, r)),
    "rotate90": _dihedral(lambda f, r: (7 - r, f)),
    "rotate180": _dihedral(lambda f, r: (7 - f, 7 - r)),
    "rotate270": _dihedral(lambda f, r: (r, 7 - f)),
    "reflecth": _dihedral(lambda f, r: (f, 7 - r)),
    "reflectv": _dihedral(lambda f, r: (7 - f, r)),
    "reflecta1h8": _dihedral(lambda f, r: (r, f)),
    "reflecth1a8": _dihedral(lambda f, r: (7 - r, 7 - f)),
}

#: The square part of the colour swap: reflection about the horizontal bisector.
COLORSWAP: SquareMap = DIHEDRAL["reflecth"]


def shift(dfile: int, drank: int) -> SquareMap:
    """Translation by ``dfile`` files and ``drank`` ranks; ``None`` where a square falls off."""

    def apply(sq: int) -> int | None:
        f, r = sq % 8 + dfile, sq // 8 + drank
        return square(f, r) if 0 <= f < 8 and 0 <= r < 8 else None

    return apply


def shift_name(dfile: int, drank: int) -> str:
    """The stable name of a shift in the transform table, e.g. ``shift(-1,2)``."""
    return f"shift({dfile},{drank})"


def all_transforms() -> Iterator[tuple[str, str, SquareMap]]:
    """(name, kind, map) for every basic transform the tables hold."""
    for name, fn in DIHEDRAL.items():
        yield name, "dihedral", fn
    yield "colorswap", "color", COLORSWAP
    for df in range(-7, 8):
        for dr in range(-7, 8):
            if df or dr:
                yield shift_name(df, dr), "shift", shift(df, dr)


def map_bitboard(bitboard: int, fn: SquareMap) -> int:
    """Image of a square set under a square map (squares mapped off the board are dropped)."""
    out = 0
    while bitboard:
        low = bitboard & -bitboard
        image = fn(low.bit_length() - 1)
        if image is not None:
            out |= 1 << image
        bitboard ^= low
    return out


def _mask(pred: Callable[[int, int], bool]) -> int:
    return sum(1 << square(f, r) for r in range(8) for f in range(8) if pred(f, r))


def masks() -> dict[str, int]:
    """Named constant square sets: files, ranks, colours, and every diagonal of length ≥ 2."""
    out: dict[str, int] = {}
    for f in range(8):
        out[f"file_{'abcdefgh'[f]}"] = _mask(lambda ff, r, f=f: ff == f)
    for r in range(8):
        out[f"rank_{r + 1}"] = _mask(lambda f, rr, r=r: rr == r)
    out["dark"] = _mask(lambda f, r: (f + r) % 2 == 0)
    out["light"] = _mask(lambda f, r: (f + r) % 2 == 1)
    out["all"] = (1 << 64) - 1
    out["center"] = _mask(lambda f, r: f in (3, 4) and r in (3, 4))
    for d in range(-6, 7):
        diag = _mask(lambda f, r, d=d: f - r == d)
        anti = _mask(lambda f, r, d=d: f + r == 7 + d)
        out[f"diagonal_{SQUARE_NAMES[min(_squares(diag))]}{SQUARE_NAMES[max(_squares(diag))]}"] = diag
        out[f"antidiagonal_{SQUARE_NAMES[min(_squares(anti))]}{SQUARE_NAMES[max(_squares(anti))]}"] = anti
    return out


def _squares(bitboard: int) -> list[int]:
    return [sq for sq in range(64) if bitboard >> sq & 1]
