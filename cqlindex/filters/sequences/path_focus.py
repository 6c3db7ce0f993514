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

    __slots__ = ("ev", "positions", "ids", "squares", "start", "_pieces", "capture", "_below")

    def __init__(self, ev: Evaluator, node: ast.Path, start: Position) -> None:
        self.ev = ev
        self.positions = ev.tree.positions
        if node.focus is None:  # singlecolor: the side to move's pieces
            self.squares = start.board().occupied_co[start.wtm]
        else:
            self.squares = as_set(ev.eval(node.focus, start)) or 0
        self.start = start
        self.capture = node.focus_capture
        self._pieces: frozenset[int] | None = None
        self._below: dict[int, list[int]] = {}

    @property
    def pieces(self) -> frozenset[int]:
        """The focused pieces' identities (made when a move below the start is asked about)."""
        if self._pieces is None:
            self.ids = piece_ids(self.ev)
            at_start = self.ids.at(self.start)
            self._pieces = frozenset(at_start[sq] for sq in chess.scan_forward(self.squares) if at_start[sq] >= 0)
        return self._pieces

    def in_focus(self, child: Position) -> bool:
        """Whether the move that led to ``child`` is in focus."""
        if child.parent is None or child.null_move or child.move_from is None:
            return False
        parent = self.positions[child.parent]
        pieces = self.pieces
        before = self.ids.at(parent)
        if before[child.move_from] in pieces:
            return True
        if child.castle is not None:
            rook_from, _ = castling_rook(child, parent, self.ev.tree.chess960)
            return before[rook_from] in pieces
        if not self.capture:
            return False
        if child.en_passant:
            return before[child.move_to + (-8 if not child.wtm else 8)] in pieces
        return child.captured is not None and before[child.move_to] in pieces

    def children(self, pos: Position) -> list[int]:
        """The moves in focus played at ``pos`` (the start of the path), as the children they lead to.

        At the start the focused pieces are those on the focused squares, so this needs no
        piece identities: a move is in focus when it leaves such a square (castling: the king's
        or the rook's), or with ``capture`` takes on one.
        """
        found = self._below.get(-1 - pos.id)
        if found is not None:
            return found
        squares, positions = self.squares, self.positions
        found = []
        for c in pos.children:
            child = positions[c]
            if child.null_move or child.move_from is None:
                continue
            if squares >> child.move_from & 1:
                found.append(c)
            elif child.castle is not None:
                if squares >> castling_rook(child, pos, self.ev.tree.chess960)[0] & 1:
                    found.append(c)
            elif self.capture and (child.captured is not None or child.en_passant):
                taken = child.move_to + (-8 if not child.wtm else 8) if child.en_passant else child.move_to
                if squares >> taken & 1:
                    found.append(c)
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
