"""Pieces by name and by identity: ``typename``, ``piecename`` and ``pieceid`` of a one-square set.

``typename`` is the letter of the piece type (K Q R B N P, whatever its colour: the letter a
promotion ``--=T`` takes), ``piecename`` the piece's own letter (upper case for White), and an
empty square is ``_`` for both, so that two squares can be compared whatever they hold.

``pieceid`` names a piece by where it stood in the game's first position, followed back along
the moves that led here (a promoted pawn keeps its id, a castling rook follows its king): the
same piece has the same id in every line of the game, which is what comparing ids across
positions (``pieceid x == source:pieceid x``) asks. A piece is a number, 0 (a1) to 63 (h8).
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator
from cqlindex.evaluate.values import Squares
from cqlindex.filters.moves.python import castling_rook
from cqlindex.store.trees import Position


def _square(ev: Evaluator, node: ast.Call, pos: Position) -> int | None:
    value = ev.eval(node.args[0], pos)
    if type(value) is not Squares or int(value).bit_count() != 1:
        return None
    return int(value).bit_length() - 1


_LETTERS = "KQRBNPkqrbnp"  # the order of Position.bitboards


def _letter(pos: Position, square: int) -> str:
    """The piece letter on ``square`` ('_' for an empty square), read from the bitboards."""
    bit = 1 << square
    for letter, bitboard in zip(_LETTERS, pos.bitboards):
        if bitboard & bit:
            return letter
    return "_"


def typename(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    square = _square(ev, node, pos)
    return None if square is None else _letter(pos, square).upper()


def piecename(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    square = _square(ev, node, pos)
    return None if square is None else _letter(pos, square)


def pieceid(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    square = _square(ev, node, pos)
    if square is None or _letter(pos, square) == "_":
        return None
    positions = ev.tree.positions
    here = pos
    while here.parent is not None:
        parent = positions[here.parent]
        if here.castle is not None:
            rook_from, rook_to = castling_rook(here, parent, ev.tree.chess960)
            if square == rook_to:
                square = rook_from
            elif square == here.move_to:
                square = here.move_from
        elif not here.null_move and square == here.move_to:
            square = here.move_from
        here = parent
    return square


#: By name, for :data:`cqlindex.filters.strings.python.CALLS`.
PIECE_CALLS = {"typename": typename, "piecename": piecename, "pieceid": pieceid}
