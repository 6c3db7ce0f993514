"""Variables and iteration: ``x = F``, ``square [all] x in S body``, ``piece [all] x in S body``."""

from __future__ import annotations

import chess

from cqlindex.cql import ast
from cqlindex.evaluate.core import Evaluator, evaluates
from cqlindex.evaluate.sets import as_set
from cqlindex.evaluate.values import MATCH, Squares, count, truncated_division
from cqlindex.store.trees import Position


class PieceBinding:
    """A piece variable: the piece on ``square`` at position ``position``.

    CQL's piece variables follow the piece as it moves; that needs the piece's path through
    the tree, so using one at another position is reported as unsupported for now.
    """

    __slots__ = ("square", "position")

    def __init__(self, square: int, position: int) -> None:
        self.square = square
        self.position = position


@evaluates(ast.Variable)
def variable(ev: Evaluator, node: ast.Variable, pos: Position) -> object:
    value = ev.variables.get(node.name)
    if isinstance(value, PieceBinding):
        if value.position != pos.id:
            raise ev.unsupported("a piece variable used at another position", node)
        board = pos.board()
        return Squares(1 << value.square) if board.piece_at(value.square) else Squares(0)
    return value


@evaluates(ast.Assign)
def assign(ev: Evaluator, node: ast.Assign, pos: Position) -> object:
    value = ev.eval(node.value, pos)
    if value is None:
        return None
    if node.op == "=":
        ev.variables[node.name] = value if value is not MATCH else 1
        return MATCH
    if node.op == "=?":
        if as_set(value):
            ev.variables[node.name] = value
            return MATCH
        return None
    old, new = count(ev.variables.get(node.name, 0)), count(value)
    if old is None or new is None:
        return None
    if node.op in ("/=", "%=") and new == 0:
        return None
    if node.op in ("/=", "%="):
        quotient, remainder = truncated_division(old, new)
        ev.variables[node.name] = quotient if node.op == "/=" else remainder
    else:
        ev.variables[node.name] = {"+=": old + new, "-=": old - new, "*=": old * new}[node.op]
    return MATCH


@evaluates(ast.Iterate)
def iterate(ev: Evaluator, node: ast.Iterate, pos: Position) -> object:
    domain = as_set(ev.eval(node.domain, pos))
    if domain is None:
        return None
    if node.kind == "piece":
        domain &= pos.board().occupied
    saved = ev.variables.get(node.var)
    held = 0
    every = True
    for sq in chess.scan_forward(domain):
        ev.variables[node.var] = PieceBinding(sq, pos.id) if node.kind == "piece" else Squares(1 << sq)
        if ev.test(node.body, pos):
            held |= 1 << sq
        else:
            every = False
    if saved is None:
        ev.variables.pop(node.var, None)
    else:
        ev.variables[node.var] = saved
    if node.all:
        return MATCH if every else None
    return Squares(held) if held else None
