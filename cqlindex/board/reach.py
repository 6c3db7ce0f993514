"""Where a piece must stand to attack a square of a set: the planner's bound on ``A attacks Z``.

A piece attacks only squares its kind reaches from where it stands on an empty board (pieces in
the way, pins and legality take squares away, never add them). So the pieces of a set that
attack some square of Z are among those standing on :func:`reach` of their kind and Z: the
planner counts only those (``#(A attacks d4|e4|d5|e5) >= 3``: knights and pawns far from the
centre do not count, nor does a rook off the centre's files and ranks).

Pure Python tables of python-chess's square numbering, made once when first asked for: the
planner does not import python-chess (start-up, issue 16); ``tests/test_board_reach.py`` holds
them to python-chess's attacks.
"""

from __future__ import annotations

from functools import cache

ALL = (1 << 64) - 1
#: The kinds :func:`reach` knows: the pieces by letter, a pawn by its colour's letter (P, p).
KINDS = "KQRBNPp"
_STEPS = {
    "K": ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)),
    "N": ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)),
    "P": ((-1, 1), (1, 1)),
    "p": ((-1, -1), (1, -1)),
}
_RAYS = {"R": ((1, 0), (-1, 0), (0, 1), (0, -1)), "B": ((1, 1), (1, -1), (-1, 1), (-1, -1))}


def _from(square: int, steps, slide: bool) -> int:
    """The squares reached from ``square`` by ``steps`` (file, rank), once or sliding to the edge."""
    out = 0
    for df, dr in steps:
        f, r = square % 8 + df, square // 8 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            out |= 1 << (8 * r + f)
            if not slide:
                break
            f, r = f + df, r + dr
    return out


@cache
def attacks(kind: str) -> tuple[int, ...]:
    """The squares a piece of ``kind`` attacks from each square of an empty board."""
    if kind == "Q":
        return tuple(r | b for r, b in zip(attacks("R"), attacks("B")))
    if kind in _RAYS:
        return tuple(_from(s, _RAYS[kind], True) for s in range(64))
    return tuple(_from(s, _STEPS[kind], False) for s in range(64))


def reach(kind: str, targets: int) -> int:
    """The squares from which a piece of ``kind`` attacks some square of ``targets`` (empty board)."""
    return _reach(kind, targets & ALL)


@cache
def _reach(kind: str, targets: int) -> int:
    out = 0
    for square, attacked in enumerate(attacks(kind)):
        if attacked & targets:
            out |= 1 << square
    return out
