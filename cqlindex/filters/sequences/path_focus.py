"""A path's focus: the pieces whose moves the path's moves are, and how it skips the others.

``path focus S`` takes the pieces standing on the squares of ``S`` at the position the path
starts from, and follows those pieces (not squares) wherever they go: a piece is the one
:class:`cqlindex.filters.variables.python.PieceIds` says it is, so a promoted pawn is still
itself. A move is *in focus* when a focused piece makes it (castling: the king or the rook),
or, with ``focus capture``, when it takes a focused piece. ``singlecolor`` is a focus on the
pieces of the side to move at the start (CQL 6.2 defines it as ``focus if wtm A else a``).

A move constituent of a focused path does not step to a child: it steps to the next move in
focus below the position reached, whatever moves of other pieces come before it, searching
each line of the tree (in pre-order) down to its first move in focus and no further. From the
start position only the moves played there count (the first focused move must be the very
next move). This is what the reference engine does (CQL 6.2, build 9.493) and what the
example files rely on: rookleapcorners finds a rook visiting three corners "ignoring the
moves of other pieces", and the path's count is that of focused moves only.
"""

from __future__ import annotations

import chess

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator
from cqlindex.filters.moves.python import castling_rook
from cqlindex.filters.sets.python import as_set
from cqlindex.filters.variables.python import piece_ids
from cqlindex.store.trees import Position


class Focus:
    """The focused pieces of one evaluation of a path, and the moves in focus below a position."""

    __slots__ = ("ev", "positions", "ids", "pieces", "capture", "_below")

    def __init__(self, ev: Evaluator, node: ast.Path, start: Position) -> None:
        self.ev = ev
        self.positions = ev.tree.positions
        self.ids = piece_ids(ev)
        if node.focus is None:  # singlecolor: the side to move's pieces
            board = start.board()
            squares = board.occupied_co[start.wtm]
        else:
            squares = as_set(ev.eval(node.focus, start)) or 0
        at_start = self.ids.at(start)
        self.pieces = frozenset(at_start[sq] for sq in chess.scan_forward(squares) if at_start[sq] >= 0)
        self.capture = node.focus_capture
        self._below: dict[int, list[int]] = {}

    def in_focus(self, child: Position) -> bool:
        """Whether the move that led to ``child`` is in focus."""
        if child.parent is None or child.null_move or child.move_from is None or not self.pieces:
            return False
        parent = self.positions[child.parent]
        before = self.ids.at(parent)
        if before[child.move_from] in self.pieces:
            return True
        if child.castle is not None:
            rook_from, _ = castling_rook(child, parent, self.ev.tree.chess960)
            return before[rook_from] in self.pieces
        if not self.capture:
            return False
        if child.en_passant:
            return before[child.move_to + (-8 if not child.wtm else 8)] in self.pieces
        return child.captured is not None and before[child.move_to] in self.pieces

    def children(self, pos: Position) -> list[int]:
        """The moves in focus played at ``pos`` (the start of the path), as the children they lead to."""
        found = self._below.get(-1 - pos.id)
        if found is None:
            found = [c for c in pos.children if self.in_focus(self.positions[c])] if self.pieces else []
            self._below[-1 - pos.id] = found
        return found

    def below(self, pos: Position) -> list[int]:
        """The first move in focus on each line below ``pos``, in pre-order, as the positions they lead to."""
        found = self._below.get(pos.id)
        if found is not None:
            return found
        found = []
        positions = self.positions
        stack = list(reversed(pos.children))
        while stack:
            child = positions[stack.pop()]
            if self.in_focus(child):
                found.append(child.id)
            else:
                stack.extend(reversed(child.children))
        self._below[pos.id] = found
        return found
