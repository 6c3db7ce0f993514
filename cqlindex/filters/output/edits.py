"""``removecomment``, ``settag`` and ``removetag``: changes to the PGN written for a matching game.

Each always matches. What it asks is kept for the game only when the position it was evaluated
at matches (the evaluator commits a position's edits with its comments), and the PGN output
applies them: the original comment after the move that led to the position goes, a tag is set
or removed. ``silent`` output writes the games exactly as they were, edits included.
"""

from __future__ import annotations

from collections.abc import Callable

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator
from cqlindex.evaluate.values import MATCH
from cqlindex.store.trees import Position


def _strings(ev: Evaluator, node: ast.Call, pos: Position) -> list[str] | None:
    values = [ev.eval(arg, pos) for arg in node.args]
    return values if all(isinstance(v, str) for v in values) else None


def _removecomment(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    ev.pending_edits.append(("removecomment", pos.id))
    return MATCH


def _settag(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    values = _strings(ev, node, pos)
    if values is None:
        return None
    ev.pending_edits.append(("settag", values[0], values[1]))
    return MATCH


def _removetag(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    values = _strings(ev, node, pos)
    if values is None:
        return None
    ev.pending_edits.append(("removetag", values[0]))
    return MATCH


#: By name, for :data:`cqlindex.filters.strings.python.CALLS`.
EDIT_CALLS: dict[str, Callable[[Evaluator, ast.Call, Position], object]] = {
    "removecomment": _removecomment, "settag": _settag, "removetag": _removetag}


def apply_edits(game, nodes: list, edits: list[tuple]) -> None:
    """Apply a game's edits to its python-chess game: ``nodes[i]`` is position i's node."""
    for edit in edits:
        if edit[0] == "removecomment":
            nodes[edit[1]].comment = ""
        elif edit[0] == "settag":
            game.headers[edit[1]] = edit[2]
        elif edit[1] in game.headers:
            del game.headers[edit[1]]
