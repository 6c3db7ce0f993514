"""The square maps behind CQL's transform filters, and the constant square masks.

This module is the one truth for both engines: the evaluator applies these maps to squares,
and the build writes them into the ``square_transforms`` and ``square_masks`` tables so the SQL
planner can join on them instead of shifting bits in SQL (which DESIGN.md forbids).

Naming follows the seeds (seeds/000 and 002): ``reflecth`` mirrors the ranks (a1↔a8, what
CQL's ``fliphorizontal`` does), ``reflectv`` mirrors the files (a1↔h1, ``flipvertical``),
rotations are counterclockwise. The colour swap moves squares like ``reflecth``; the colour
change itself is the evaluator's business. A shift may push a square off the board, so its
image is ``None``.

The motions themselves are python-chess's bitboard operations (``flip_vertical``,
``flip_horizontal``, ``flip_diagonal``, ``flip_anti_diagonal``, the ``shift_*`` family, which
drop what leaves the board); each map is read off them once into a table of 64 images.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import chess

SquareMap = Callable[[int], int | None]
Bitboard = Callable[[int], int]


def _table(motion: Bitboard) -> tuple[int | None, ...]:
    """Where each square goes under a bitboard motion (None: off the board)."""
    images = (motion(chess.BB_SQUARES[sq]) for sq in chess.SQUARES)
    return tuple(chess.lsb(bb) if bb else None for bb in images)


def _square_map(motion: Bitboard) -> SquareMap:
    return _table(motion).__getitem__


def _compose(*motions: Bitboard) -> Bitboard:
    def apply(bb: int) -> int:
        for motion in motions:
            bb = motion(bb)
        return bb

    return apply


#: The eight rigid motions of the board, keyed by the seeds' names.
DIHEDRAL: dict[str, SquareMap] = {
    "id": _square_map(lambda bb: bb),
    "rotate90": _square_map(_compose(chess.flip_diagonal, chess.flip_horizontal)),
    "rotate180": _square_map(_compose(chess.flip_vertical, chess.flip_horizontal)),
    "rotate270": _square_map(_compose(chess.flip_diagonal, chess.flip_vertical)),
    "reflecth": _square_map(chess.flip_vertical),
    "reflectv": _square_map(chess.flip_horizontal),
    "reflecta1h8": _square_map(chess.flip_diagonal),
    "reflecth1a8": _square_map(chess.flip_anti_diagonal),
}

#: The square part of the colour swap: reflection about the horizontal bisector.
COLORSWAP: SquareMap = DIHEDRAL["reflecth"]


def _steps(dfile: int, drank: int) -> Bitboard:
    """A translation as python-chess's one-square shifts, each dropping what leaves the board."""
    files = [chess.shift_right if dfile > 0 else chess.shift_left] * abs(dfile)
    ranks = [chess.shift_up if drank > 0 else chess.shift_down] * abs(drank)
    return _compose(*files, *ranks)


def shift(dfile: int, drank: int) -> SquareMap:
    """Translation by ``dfile`` files and ``drank`` ranks; ``None`` where a square falls off."""
    return _square_map(_steps(dfile, drank))


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
    for sq in chess.scan_forward(bitboard):
        image = fn(sq)
        if image is not None:
            out |= chess.BB_SQUARES[image]
    return out


def _diagonal(keep: Callable[[int], bool]) -> int:
    return sum(chess.BB_SQUARES[sq] for sq in chess.SQUARES if keep(sq))


def masks() -> dict[str, int]:
    """Named constant square sets: files, ranks, colours, and every diagonal of length ≥ 2."""
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
        diag = _diagonal(lambda sq, d=d: chess.square_file(sq) - chess.square_rank(sq) == d)
        anti = _diagonal(lambda sq, d=d: chess.square_file(sq) + chess.square_rank(sq) == 7 + d)
        for kind, bb in (("diagonal", diag), ("antidiagonal", anti)):
            out[f"{kind}_{chess.SQUARE_NAMES[chess.lsb(bb)]}{chess.SQUARE_NAMES[chess.msb(bb)]}"] = bb
    return out
