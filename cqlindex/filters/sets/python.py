"""Sets of squares: piece designators, set algebra, geometry, attacks and pawn structure.

Attacks follow CQL: a piece attacks a square if an enemy king there would be in check from
it, so pinned pieces attack and pawns attack diagonally only; that is python-chess's
``attacks_mask`` of the piece's square.
"""

from __future__ import annotations

import chess

from cqlindex.board.directions import direction_mask
from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import ALL_SQUARES, MATCH, Squares, count
from cqlindex.store.trees import Position

_LETTERS = "KQRBNPkqrbnp"
_POWER = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}
_FILES = [chess.BB_FILES[f] for f in range(8)]


def occupancy(pos: Position, letters: frozenset[str]) -> int:
    """Squares holding one of ``letters`` (``_`` = empty) at ``pos``; kept on the position, since
    an iteration asks for the same piece designator at one position once per square it tries."""
    known = pos._occupancies
    if known is None:
        known = pos._occupancies = {}
    mask = known.get(letters)
    if mask is None:
        mask = known[letters] = _occupancy(pos.bitboards, letters)
    return mask


def _occupancy(bitboards: tuple[int, ...], letters: frozenset[str]) -> int:
    mask = 0
    for index, letter in enumerate(_LETTERS):
        if letter in letters:
            mask |= bitboards[index]
    if "_" in letters:
        occupied = 0
        for bb in bitboards:
            occupied |= bb
        mask |= ALL_SQUARES & ~occupied
    return mask


@evaluates(ast.Pieces)
def pieces(ev: Evaluator, node: ast.Pieces, pos: Position) -> object:
    if len(node.pieces) == 13:
        return Squares(node.squares)
    return Squares(occupancy(pos, node.pieces) & node.squares)


def as_set(value: object) -> int | None:
    return int(value) if isinstance(value, Squares) else None


def set_binary(ev: Evaluator, node: ast.Binary, pos: Position) -> object:
    values = ev.operands(node.left, node.right, pos)
    if values is None:
        return None
    left, right = values
    if type(left) is Squares and type(right) is Squares and node.op in ("&", "|"):  # the common case, first
        return Squares(left & right if node.op == "&" else left | right)
    if node.op == "&" and isinstance(left, Position) and isinstance(right, Position):
        return Squares(_same_contents(left, right))
    if node.op == "in" and isinstance(left, str) and isinstance(right, str):
        return MATCH if left in right else None  # a substring
    a, b = as_set(left), as_set(right)
    if a is None or b is None:
        raise ev.unsupported(f"'{node.op}' on values that are not sets", node)
    if node.op == "|":
        return Squares(a | b)
    if node.op == "&":
        return Squares(a & b)
    if node.op == "in":
        return MATCH if a & ~b == 0 else None
    board = pos.board()
    if node.op == "attacks":
        out = 0
        for sq in chess.scan_forward(a):
            if board.attacks_mask(sq) & b:
                out |= 1 << sq
        return Squares(out)
    out = 0  # attackedby: squares of the left side attacked from a square of the right side
    for sq in chess.scan_forward(b):
        out |= board.attacks_mask(sq)
    return Squares(a & out)


def _same_contents(a: Position, b: Position) -> int:
    same = 0
    for x, y in zip(a.bitboards, b.bitboards):
        same |= x & y
    empty_a = ALL_SQUARES & ~_occupied(a)
    empty_b = ALL_SQUARES & ~_occupied(b)
    return same | (empty_a & empty_b)


def _occupied(pos: Position) -> int:
    occupied = 0
    for bb in pos.bitboards:
        occupied |= bb
    return occupied


def _one_square(value: object) -> int | None:
    mask = as_set(value)
    if mask is None or mask.bit_count() != 1:
        return None
    return mask.bit_length() - 1


def set_unary(ev: Evaluator, node: ast.Unary, pos: Position) -> object:
    value = ev.eval(node.arg, pos)
    if value is None:
        return None
    if node.op == "#":
        if isinstance(value, str):
            return len(value)
        mask = as_set(value)
        return None if mask is None else mask.bit_count()
    if node.op == "~":
        mask = as_set(value)
        return None if mask is None else Squares(ALL_SQUARES & ~mask)
    if node.op in ("light", "dark"):
        mask = as_set(value)
        if mask is None:
            return None
        return Squares(mask & (chess.BB_LIGHT_SQUARES if node.op == "light" else chess.BB_DARK_SQUARES))
    if node.op == "power":
        mask = as_set(value)
        if mask is None:
            return None
        board = pos.board()
        return sum(_POWER[board.piece_type_at(sq)] for sq in chess.scan_forward(mask & board.occupied))
    square = _one_square(value)
    if square is None:
        return None
    if node.op == "rank":
        return chess.square_rank(square) + 1
    if node.op == "file":
        return chess.square_file(square) + 1
    piece = pos.board().piece_at(square)
    if piece is None:
        return 0
    return piece.piece_type if node.op == "type" else (piece.piece_type if piece.color else -piece.piece_type)


@evaluates(ast.Direction)
def direction(ev: Evaluator, node: ast.Direction, pos: Position) -> object:
    low, high = node.low, node.high
    if node.distance is not None:
        low = high = count(ev.eval(node.distance, pos))
        if low is None:
            return None
    mask = as_set(ev.eval(node.arg, pos))
    if mask is None:
        return None
    return Squares(direction_mask(node.name, low, high, mask))


def set_call(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    if node.name == "between":
        a, b = as_set(ev.eval(node.args[0], pos)), as_set(ev.eval(node.args[1], pos))
        if a is None or b is None:
            return None
        if a and b and not a & (a - 1) and not b & (b - 1):  # two single squares: most calls
            return Squares(chess.between(a.bit_length() - 1, b.bit_length() - 1))
        out = 0
        for x in chess.scan_forward(a):
            for y in chess.scan_forward(b):
                out |= chess.between(x, y)
        return Squares(out)
    if len(node.args) == 1:
        text = ev.eval(node.args[0], pos)
        if isinstance(text, str) and len(text) == 2 and text[0] in "abcdefgh" and text[1] in "12345678":
            return Squares(1 << chess.parse_square(text))
        return None
    f, r = (ev.eval(arg, pos) for arg in node.args)
    if not (isinstance(f, int) and isinstance(r, int)) or isinstance(f, Squares) or isinstance(r, Squares):
        return None
    if not (1 <= f <= 8 and 1 <= r <= 8):
        return None
    return Squares(1 << chess.square(f - 1, r - 1))


def pawn_structure(name: str, pos: Position) -> int:
    """passedpawns, isolatedpawns, doubledpawns, connectedpawns: pawns of both colours."""
    white, black = pos.bitboards[5], pos.bitboards[11]
    out = 0
    for own, enemy, color in ((white, black, chess.WHITE), (black, white, chess.BLACK)):
        for sq in chess.scan_forward(own):
            f, r = chess.square_file(sq), chess.square_rank(sq)
            files = _FILES[f]
            neighbours = (_FILES[f - 1] if f > 0 else 0) | (_FILES[f + 1] if f < 7 else 0)
            if name == "passedpawns":
                ahead = 0
                for rank in (range(r + 1, 8) if color else range(0, r)):
                    ahead |= chess.BB_RANKS[rank]
                if not enemy & (files | neighbours) & ahead:
                    out |= 1 << sq
            elif name == "isolatedpawns":
                if not own & neighbours:
                    out |= 1 << sq
            elif name == "doubledpawns":
                if own & files & ~(1 << sq):
                    out |= 1 << sq
            elif name == "connectedpawns":
                if own & neighbours:
                    out |= 1 << sq
    return out
