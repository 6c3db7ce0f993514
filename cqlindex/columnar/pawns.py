"""Pawn structure on columns: passed, isolated, doubled and connected pawns by file fills."""

from __future__ import annotations

import numpy as np

from cqlindex.columnar import bitboards as B

PAWN_STRUCTURES = ("passedpawns", "isolatedpawns", "doubledpawns", "connectedpawns")


def _north(boards: np.ndarray) -> np.ndarray:
    """Each board and every square above its squares on their files."""
    boards = boards | (boards << np.uint64(8))
    boards = boards | (boards << np.uint64(16))
    return boards | (boards << np.uint64(32))


def _south(boards: np.ndarray) -> np.ndarray:
    boards = boards | (boards >> np.uint64(8))
    boards = boards | (boards >> np.uint64(16))
    return boards | (boards >> np.uint64(32))


def _beside(boards: np.ndarray) -> np.ndarray:
    return B.step(boards, "left") | B.step(boards, "right")


def pawn_structure(name: str, white: np.ndarray, black: np.ndarray) -> np.ndarray:
    """passedpawns, isolatedpawns, doubledpawns, connectedpawns of the white and black pawns'
    boards: pawns of both colours, as :func:`cqlindex.filters.sets.python.pawn_structure`
    finds them, by file fills."""
    out = np.zeros(len(white), np.uint64)
    for own, enemy, up in ((white, black, True), (black, white, False)):
        files = _north(own) | _south(own)
        if name == "passedpawns":  # no enemy pawn ahead on its file or a file beside
            behind_enemy = _south(enemy >> np.uint64(8)) if up else _north(enemy << np.uint64(8))
            out |= own & ~(behind_enemy | _beside(behind_enemy))
        elif name == "isolatedpawns":
            out |= own & ~_beside(files)
        elif name == "doubledpawns":
            out |= own & (_north(own << np.uint64(8)) | _south(own >> np.uint64(8)))
        else:
            out |= own & _beside(files)
    return out
