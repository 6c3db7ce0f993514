"""Variables and iteration: ``x = F``, ``square [all] x in S body``, ``piece [all] x in S body``.

A piece variable names a piece, not a square: at any position of the game its value is the
square that piece stands on there, or the empty set where it is not on the board. Pieces never
appear in chess (a promoted pawn keeps its identity), so every piece of a game is one of the
pieces of the start position, and :class:`PieceIds` labels each by the square it started on and
replays the stored moves to say who stands where. Following a piece from the binding position
to another one then goes back to their common ancestor and forward again, through variations
as well as along the main line: a piece is "the same" wherever the moves say it is.
"""

from __future__ import annotations

import chess

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, decides, evaluates
from cqlindex.evaluate.values import MATCH, Squares, count, truncated_division
from cqlindex.filters.moves.python import castling_rook
from cqlindex.filters.sets.python import as_set
from cqlindex.filters.variables.hoist import movers
from cqlindex.query.analyse import plain
from cqlindex.store.trees import GameTree, Position

_EMPTY = -1


class PieceBinding:
    """A piece variable: the piece standing on ``square`` at position ``position``."""

    __slots__ = ("square", "position")

    def __init__(self, square: int, position: int) -> None:
        self.square = square
        self.position = position

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PieceBinding) and (self.square, self.position) == (other.square, other.position)

    def __hash__(self) -> int:
        return hash((self.square, self.position))


class PieceIds:
    """Who stands where at each position of one game tree, computed on demand and kept.

    ``at(pos)`` is a list of 64 piece ids (``-1`` on an empty square); a piece's id is the
    square it stood on at the root. A position's list is its parent's with the move that led
    to it applied, so each position is computed once per game however often it is asked for.
    """

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        self._ids: list[list[int] | None] = [None] * len(tree.positions)

    def at(self, pos: Position) -> list[int]:
        ids = self._ids[pos.id]
        if ids is not None:
            return ids
        positions = self.tree.positions
        pending = [pos]  # pos and its ancestors not yet computed, nearest first
        while pending[-1].parent is not None and self._ids[pending[-1].parent] is None:
            pending.append(positions[pending[-1].parent])
        top = pending[-1]
        if top.parent is None:
            occupied = 0
            for bitboard in top.bitboards:
                occupied |= bitboard
            ids = [sq if occupied >> sq & 1 else _EMPTY for sq in range(64)]
            self._ids[top.id] = ids
            pending.pop()
        else:
            ids = self._ids[top.parent]
        for child in reversed(pending):
            ids = self._after_move(ids, child)
            self._ids[child.id] = ids
        return self._ids[pos.id]

    def _after_move(self, before: list[int], child: Position) -> list[int]:
        if child.null_move or child.move_from is None:
            return before  # nobody moved: share the parent's list (lists are never changed)
        ids = before.copy()
        source, target = child.move_from, child.move_to
        mover = ids[source]
        if child.castle:
            rook_from, rook_to = castling_rook(child, self.tree.positions[child.parent], self.tree.chess960)
            rook = ids[rook_from]
            ids[source] = ids[rook_from] = _EMPTY  # both first: in Chess960 the squares may cross
            ids[target], ids[rook_to] = mover, rook
            return ids
        if child.en_passant:
            ids[target + (-8 if not child.wtm else 8)] = _EMPTY
        ids[source] = _EMPTY
        ids[target] = mover  # a capture replaces the captured piece; a promotion keeps the id
        return ids


def piece_ids(ev: Evaluator) -> PieceIds:
    """The current game's :class:`PieceIds`, made when a piece variable first leaves its position."""
    tracker: PieceIds | None = getattr(ev, "_piece_ids", None)
    if tracker is None or tracker.tree is not ev.tree:
        tracker = PieceIds(ev.tree)
        ev._piece_ids = tracker
    return tracker


def piece_square(ev: Evaluator, binding: PieceBinding, pos: Position) -> Squares:
    """The square the piece of ``binding`` stands on at ``pos`` (empty if it is not on the board)."""
    if binding.position == pos.id:
        return Squares(1 << binding.square)
    tracker = piece_ids(ev)
    piece = tracker.at(ev.tree.positions[binding.position])[binding.square]
    if piece == _EMPTY:
        return Squares(0)
    try:
        return Squares(1 << tracker.at(pos).index(piece))
    except ValueError:
        return Squares(0)  # captured on the way from the binding position


@evaluates(ast.Variable)
def variable(ev: Evaluator, node: ast.Variable, pos: Position) -> object:
    value = ev.variables.get(node.name)
    if isinstance(value, PieceBinding):
        return piece_square(ev, value, pos)
    return value


@evaluates(ast.Assign)
def assign(ev: Evaluator, node: ast.Assign, pos: Position) -> object:
    value = ev.eval(node.value, pos)
    if value is None:
        return None
    if node.piece:
        return _bind_piece(ev, node, value, pos)
    if node.op == "=":
        ev.variables[node.name] = value if value is not MATCH else 1
        return MATCH
    if node.op == "=?":
        if as_set(value):
            ev.variables[node.name] = value
            return MATCH
        return None
    old = ev.variables.get(node.name, 0)
    if node.op == "+=" and isinstance(old, str) and isinstance(value, str):
        ev.variables[node.name] = old + value  # '+=' on strings appends
        return MATCH
    old, new = count(old), count(value)
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


def _bind_piece(ev: Evaluator, node: ast.Assign, value: object, pos: Position) -> object:
    """``piece x = S``: x names the piece standing on S, which must be one occupied square;
    otherwise (no square, an empty one, several) the filter does not match and x keeps what it
    named before. Several: followpaths-simple.cql binds ``[Aa]T1=[QRNBqrnb]--(from)``, which is
    two squares at a castling move (the king's and the rook's), and the reference engine does not
    match there (game 12 of cql6-sample, position 12), nor anything that follows such a T1.
    """
    squares = as_set(value)
    if not squares or squares & (squares - 1) or not squares & pos.board().occupied:
        return None
    ev.variables[node.name] = PieceBinding(squares.bit_length() - 1, pos.id)
    return MATCH


@evaluates(ast.Iterate)
def iterate(ev: Evaluator, node: ast.Iterate, pos: Position) -> object:
    # 'all' has no squares for a value, and one failure settles it: CQL 6.2 stops there whatever
    # the body does ('cnt = 0  not square all s in [Aa] {cnt += 1  s & A}' leaves cnt at 17 on
    # the initial position, not 32).
    held, every = _iterate(ev, node, pos, stop_at=False if node.all else None)
    if node.all:
        return MATCH if every else None
    # the squares where the body held: a set, empty where it held nowhere (the reference:
    # 'v = square x in A F' always assigns), no value only where the domain has none
    return None if held is None else Squares(held)


@decides(ast.Iterate)
def iterate_matches(ev: Evaluator, node: ast.Iterate, pos: Position) -> bool:
    """Whether the iteration matches, where nothing else is asked of it: when its body changes
    nothing, one square that holds (``all``: one that fails) settles it, so the others are not
    tried. ``square x in . square y in . square z in . F`` then costs 64 bodies, not 64**3."""
    if not _plain_body(ev, node):
        value = ev.eval(node, pos)  # a set matches where it is not empty ('all': a bare match)
        return value is not None and not (type(value) is Squares and not value)
    held, every = _iterate(ev, node, pos, stop_at=not node.all)
    return every if node.all else bool(held)


def _iterate(ev: Evaluator, node: ast.Iterate, pos: Position, stop_at: bool | None) -> tuple[int | None, bool]:
    """(the squares where the body held, whether it held on all of them); the loop stops at the
    first square whose outcome is ``stop_at``. None when the domain does not match."""
    domain = as_set(ev.eval(node.domain, pos))
    if domain is None:
        return None, False
    if node.kind == "piece":
        domain &= pos.board().occupied
    if not node.all and domain:
        moving = movers(ev, node, pos)  # a body that needs its piece to move first (hoist.py)
        if moving is not None:
            domain &= moving
    saved = ev.variables.get(node.var)
    held = 0
    every = True
    deadline = ev.deadline
    try:
        for sq in chess.scan_forward(domain):
            if deadline is not None:
                deadline.check()  # a body may cost much, and 64 of them more: --timeout still holds
            ev.variables[node.var] = PieceBinding(sq, pos.id) if node.kind == "piece" else Squares(1 << sq)
            holds = ev.test(node.body, pos)
            if holds:
                held |= 1 << sq
            else:
                every = False
            if holds is stop_at:
                break
    finally:
        if saved is None:
            ev.variables.pop(node.var, None)
        else:
            ev.variables[node.var] = saved
    return held, every


def _plain_body(ev: Evaluator, node: ast.Iterate) -> bool:
    """Whether nothing in the iteration's body acts (worked out once per node and evaluator)."""
    return ev.fact("plain body", node, lambda n: all(plain(x) for x in ast.walk(n.body)))


@evaluates(ast.Lasting)
def lasting(ev: Evaluator, node: ast.Lasting, pos: Position) -> object:
    """``persistent x op v``: the assignment; the evaluator keeps x between positions and games."""
    return assign(ev, node.assign, pos)


def unbind(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    """``unbind x``: x has no value from now on (a dictionary: no entries); ``unbind X[k]``: X
    has no entry at k. Matches whether or not there was anything to forget."""
    from cqlindex.filters.dictionaries.python import unbind_entry

    target = node.args[0]
    if isinstance(target, ast.Subscript):
        return unbind_entry(ev, target, pos)
    ev.variables.pop(target.name, None)
    return MATCH


def binding_test(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    """``isbound x`` / ``isunbound x``: whether x has a value at this point of the evaluation (an
    assignment gives it one, ``unbind`` takes it away; a persistent variable keeps it between positions)."""
    bound = node.args[0].name in ev.variables
    return MATCH if bound == (node.name == "isbound") else None
