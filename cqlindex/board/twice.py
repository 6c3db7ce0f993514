"""The ``white_attacks_twice`` and ``black_attacks_twice`` columns: the squares at least two
pieces of a side attack.

Why they exist: a count of attackers (``#(a attacks K) == 2``, a double check; ``square s in
[qrbn] { #(A attacks s) >= 3 ... }``, an overprotected piece) was bounded in SQL by the attack
maps alone, "attacked at all": every check for p05 of the patterns (534,611 positions for 1,163
double checks), 14% of all positions for p07, each read and counted by the columnar engine. For
one square, "attacked by two or more" is this column, exactly.

Counted CQL's way (pinned pieces attack; attacks, not x-rays), as ``white_attacks`` is: the
side's attacks split into sets that each attack a square at most once (each pawn capture
direction, each knight jump, each king step, each slider direction: along one direction only the
nearest slider reaches a square), so a square lies in as many sets as pieces attack it. Computed
from the bitboards with the fills of :mod:`cqlindex.board.fills`, a batch at a time (numpy alone),
for games of both readers alike. The same decomposition, :func:`side_attacks`, makes the attack
maps of the compiled reader (:func:`cqlindex.board.vectors.attack_maps`).
"""

from __future__ import annotations

import numpy as np

from cqlindex.board.fills import fill, shift_into

_NOT_A = np.uint64(0xFEFE_FEFE_FEFE_FEFE)
_NOT_H = np.uint64(0x7F7F_7F7F_7F7F_7F7F)
_NOT_AB = np.uint64(0xFCFC_FCFC_FCFC_FCFC)
_NOT_GH = np.uint64(0x3F3F_3F3F_3F3F_3F3F)
_FULL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
#: (shift, mask of the squares a step lands on) of each direction.
_STRAIGHT = ((8, _FULL), (-8, _FULL), (1, _NOT_A), (-1, _NOT_H))
_SLANTED = ((9, _NOT_A), (7, _NOT_H), (-7, _NOT_A), (-9, _NOT_H))
_KNIGHT = ((17, _NOT_A), (15, _NOT_H), (10, _NOT_AB), (6, _NOT_GH),
           (-6, _NOT_AB), (-10, _NOT_GH), (-15, _NOT_A), (-17, _NOT_H))


def attacked_twice(bb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(White's, Black's) squares attacked by two or more of the side's pieces, from (12, n)
    uint64 bitboards K Q R B N P k q r b n p."""
    empty = ~np.bitwise_or.reduce(bb, axis=0)
    return side_attacks(bb[:6], empty, True, twice=True)[1], side_attacks(bb[6:], empty, False, twice=True)[1]


def side_attacks(pieces: np.ndarray, empty: np.ndarray, white: bool,
                 twice: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """(the squares one or more of ``pieces`` (K Q R B N P of one side) attack, those two or
    more attack where ``twice``, else None): the attack map (:func:`cqlindex.board.vectors.attack_maps`)
    and this module's column, one decomposition for both."""
    king, queen, rook, bishop, knight, pawn = pieces
    once = np.zeros_like(empty)
    more = np.zeros_like(empty) if twice else None
    step = np.empty_like(empty)

    def add(squares: np.ndarray) -> None:
        if more is not None:
            np.bitwise_or(more, once & squares, out=more)
        np.bitwise_or(once, squares, out=once)

    # A pawn captures towards the a-file (7 up for White, 9 down for Black) and the h-file.
    for bits, mask in ((7, _NOT_H), (9, _NOT_A)) if white else ((-9, _NOT_H), (-7, _NOT_A)):
        shift_into(step, pawn, bits)
        add(step & mask)
    for group, moves in ((knight, _KNIGHT), (king, _STRAIGHT + _SLANTED)):
        if group.any():
            for bits, mask in moves:
                shift_into(step, group, bits)
                add(step & mask)
    for sliders, lines in ((queen | rook, _STRAIGHT), (queen | bishop, _SLANTED)):
        if sliders.any():
            for bits, mask in lines:
                add(fill(sliders, empty, bits, mask))
    return once, more
