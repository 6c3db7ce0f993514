"""Filters that shape what comes out rather than which positions match: sort, echo.

``sort F`` matches where F has a value; the evaluator keeps the best value per game
(largest, or smallest with ``min``) for ordering the output. ``echo (s t) F`` evaluates F at
every other position t of the game (all of them with ``in all``), with s bound to the
current position: the fata morgana example's ``btm`` and ``ply - source:ply`` are the target's.
:mod:`echo_pairs` skips the targets where the body surely fails without doing anything.
"""

from __future__ import annotations

import chess

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH, Squares, count
from cqlindex.filters.output import echo_pairs
from cqlindex.store.trees import Position


@evaluates(ast.Sort)
def sort(ev: Evaluator, node: ast.Sort, pos: Position) -> object:
    value = ev.eval(node.body, pos)
    if value is None or (type(value) is Squares and not value):
        return None
    number = count(value) if not isinstance(value, Position) else value.id
    if number is not None:
        best = ev.sort_values.get(node)
        if best is None or (number < best if node.min else number > best):
            ev.sort_values[node] = number
    return value


@evaluates(ast.Echo)
def echo(ev: Evaluator, node: ast.Echo, pos: Position) -> object:
    saved = ev.variables.get(node.source), ev.variables.get(node.target)
    best: int | None = None
    matched = False
    try:
        ev.variables[node.source] = pos
        positions = ev.tree.positions
        narrowed = echo_pairs.candidates(ev, node, pos)  # the targets where the body can hold
        for target in positions if narrowed is None else [positions[i] for i in narrowed]:
            if target.id == pos.id and not node.include_all:
                continue
            ev.variables[node.target] = target
            value = ev.eval(node.body, target)  # at the target: 'echo (s t) btm' asks about t
            if value is None or (type(value) is Squares and not value):
                continue
            matched = True
            number = count(value)
            if type(value) is int and (best is None or number > best):
                best = number
    finally:
        for name, old in zip((node.source, node.target), saved):
            if old is None:
                ev.variables.pop(name, None)
            else:
                ev.variables[name] = old
    if not matched:
        return None
    return best if best is not None else MATCH


@evaluates(ast.Output)
def output(ev: Evaluator, node: ast.Output, pos: Position) -> object:
    """comment and message always match. A comment's text is kept for the position it is
    evaluated at (the evaluator drops it again if an enclosing filter fails). A message is said
    at once, as CQL's debugging aid does: after the move number, side to move and game number
    (and the positionid in a variation), or alone with ``quiet``."""
    text = say(ev, node, pos)
    if node.name == "comment":
        ev.pending.append((pos.id, text))
    else:
        if not node.quiet:
            where = [f"game {ev.tree.gamenumber}", f"move {pos.movenumber}",
                     "white to move" if pos.wtm else "black to move"]
            if not pos.mainline:
                where.append(f"position {pos.id}")
            text = f"{', '.join(where)}: {text}"
        ev.messages.append(text)
    return MATCH


def say(ev: Evaluator, node: ast.Output, pos: Position) -> str:
    """The text of a comment or message filter's arguments, evaluated at ``pos``."""
    return "".join(_text(ev, arg, pos) for arg in node.args)


def _text(ev: Evaluator, arg: ast.Node, pos: Position) -> str:
    """An argument of comment as CQL writes it: strings as they are, numbers, squares with their pieces."""
    if isinstance(arg, ast.String):
        return arg.value
    value = ev.eval(arg, pos)
    return "<none>" if value is None else written(value, pos)


def written(value: object, pos: Position) -> str:
    """A value as text (comment, message and str write it so): a set as its pieces and squares."""
    if type(value) is Squares:
        board = pos.board()
        names = []
        for square in chess.scan_forward(value):
            piece = board.piece_at(square)
            names.append((piece.symbol() if piece else "") + chess.square_name(square))
        return ",".join(names) if names else "[]"
    if isinstance(value, Position):
        return f"position {value.id}"
    if value is MATCH:
        return "true"
    return str(value)
