"""The square maps behind CQL's transform filters, and the constant square masks.

This module is the one truth for both engines: the evaluator applies these maps to squares,
and the build writes them into the ``square_transforms`` and ``square_masks`` tables so the SQL
planner can join on them instead of shifting bits in SQL (which DESIGN.md forbids).

Naming follows the seeds (seeds/000 and 002): ``reflecth`` mirrors the ranks (a1↔a8, what
CQL's ``fliphorizontal`` does), ``reflectv`` mirrors the files (a1↔h1, ``flipvertical``),
rotations are counterclockwise. The colour swap moves squares like ``reflecth``; the colour
change itself is the evaluator's business. A shift may push a square off the board, so its
image is ``None``.

Each map is coordinate arithmetic on (file, rank), tabulated once into 64 images; python-chess
is not imported here, so a query that SQL decides does not pay for it at start-up (issue 16).
``tests/test_board_transforms.py`` holds every map to python-chess's bitboard motions
(``flip_vertical``, ``flip_diagonal``, the ``shift_*`` family, which drop what leaves the board).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from cqlindex.board.squares import SQUARE_NAMES, squares_of

SquareMap = Callable[[int], int | None]
Motion = Callable[[int, int], tuple[int, int]]


def _square_map(motion: Motion) -> SquareMap:
    """A motion of (file, rank) as a table lookup (None: the square leaves the board)."""
    images = []
    for sq in range(64):
        f, r = motion(sq & 7, sq >> 3)
        images.append(r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else None)
    return tuple(images).__getitem__


#: The eight rigid motions of the board, keyed by the seeds' names.
DIHEDRAL: dict[str, SquareMap] = {
    "id": _square_map(lambda f, r: (f, r)),
    "rotate90": _square_map(lambda f, r: (7 - r, f)),
    "rotate180": _square_map(lambda f, r: (7 - f, 7 - r)),
    "rotate270": _square_map(lambda f, r: (r, 7 - f)),
    "reflecth": _square_map(lambda f, r: (f, 7 - r)),
    "reflectv": _square_map(lambda f, r: (7 - f, r)),
    "reflecta1h8": _square_map(lambda f, r: (r, f)),
    "reflecth1a8": _square_map(lambda f, r: (7 - r, 7 - f)),
}

#: The square part of the colour swap: reflection about the horizontal bisector.
COLORSWAP: SquareMap = DIHEDRAL["reflecth"]


def shift(dfile: int, drank: int) -> SquareMap:
    """Translation by ``dfile`` files and ``drank`` ranks; ``None`` where a square falls off."""
    return _square_map(lambda f, r: (f + dfile, r + drank))


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
    for sq in squares_of(bitboard):
        image = fn(sq)
        if image is not None:
            out |= 1 << image
    return out


def _diagonal(keep: Callable[[int, int], bool]) -> int:
    return sum(1 << sq for sq in range(64) if keep(sq & 7, sq >> 3))


def masks() -> dict[str, int]:
    """Named constant square sets: files, ranks, colours, and every diagonal of length ≥ 2."""
    import chess  # here: only the build writes the masks

    out: dict[str, int] = {}
    for name, bb in zip(chess.FILE_NAMES, chess.BB_FILES):
        out[f"file_{name}"] = bb
    for name, bb in zip(chess.RANK_NAMES, chess.BB_RANKS):
        out[f"rank_{name}"] = bb
    out["dark"] = chess.BB_DARK_SQUARES
    out["light"] = chess.BB_LIGHT_SQUARES
    out["all"] = chess.BB_ALL
    out["center"] = chess.BB_CENTER
    for d in range(-6, 7):
        diag = _diagonal(lambda f, r, d=d: f - r == d)
        anti = _diagonal(lambda f, r, d=d: f + r == 7 + d)
        for kind, bb in (("diagonal", diag), ("antidiagonal", anti)):
            out[f"{kind}_{SQUARE_NAMES[(bb & -bb).bit_length() - 1]}{SQUARE_NAMES[bb.bit_length() - 1]}"] = bb
    return out
