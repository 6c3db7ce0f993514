"""``move``: moves played in the game (children, or the move that led here) and legal moves.

Parameter sets are evaluated at the position the move is made from: for ``move previous``
that is the parent, so ``move previous capture q`` sees the queen that was taken.
"""

from __future__ import annotations

import copy

from collections.abc import Iterator

import chess

from cqlindex.cql import ast
from cqlindex.cql.kinds import SET, kind_of
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import MATCH, Squares
from cqlindex.filters.moves.legal import generated_moves, legal_dash, legal_dash_moves, promotion_letters
from cqlindex.filters.sets.python import as_set
from cqlindex.store.trees import Position

_PROMOTION_LETTERS = {chess.QUEEN: "Q", chess.ROOK: "R", chess.BISHOP: "B", chess.KNIGHT: "N"}


def castling_rook(child: Position, parent: Position, chess960: bool) -> tuple[int, int]:
    """(from, to) of the rook in the castling move that led to ``child``.

    The reference engine counts castling as a rook move too (``R--`` finds O-O, and after
    O-O-O+ the checking rook stands on ``to``).
    """
    rank = chess.square_rank(child.move_from)
    kingside = child.castle == 1
    target = chess.square(5 if kingside else 3, rank)
    if not chess960:
        return chess.square(7 if kingside else 0, rank), target
    rights = parent.castling_rights & chess.BB_RANKS[rank]
    candidates = [sq for sq in chess.scan_forward(rights)
                  if (sq > child.move_from) == kingside]
    return (candidates[-1] if kingside else candidates[0]) if candidates else target, target


class _Played:
    """A move as stored on the child row it leads to."""

    __slots__ = ("source", "target", "captured_square", "promotion", "castle", "en_passant", "null", "primary",
                 "reached")

    def __init__(self, child: Position, primary: bool) -> None:
        self.reached = child.id  # where the move's comment goes
        self.null = child.null_move
        self.source = child.move_from
        self.target = child.move_to
        if self.null:
            # The reference reads a null move ('--' in the PGN) as the king of the side that
            # passes moving to its own square: 'move from K' finds White's pass.
            king = child.bitboards[6 if child.wtm else 0]
            self.source = self.target = king.bit_length() - 1 if king > 0 else None
        self.castle = child.castle
        self.en_passant = child.en_passant
        self.promotion = child.promotion
        if child.en_passant:
            self.captured_square = child.move_to + (-8 if not child.wtm else 8)
        elif child.captured is not None:
            self.captured_square = child.move_to
        else:
            self.captured_square = None
        self.primary = primary


def _candidates(ev: Evaluator, node: ast.Move, pos: Position) -> tuple[list, Position] | None:
    positions = ev.tree.positions
    if node.mode == "previous":
        if pos.parent is None:
            return None
        parent = positions[pos.parent]
        return [_Played(pos, parent.children and parent.children[0] == pos.id)], parent
    if node.mode in ("legal", "pseudolegal"):
        return generated_moves(pos, node.mode), pos
    return [_Played(positions[c], k == 0) for k, c in enumerate(pos.children)], pos


@evaluates(ast.Move)
def move(ev: Evaluator, node: ast.Move, pos: Position) -> object:
    """A move filter whose value is a set (``move from``, ``to``, ``capture`` first) always has one,
    empty where no move matches, as in the reference: ``move from A previous | K`` holds at the
    first position too, and ``#(move to a previous) == 0`` where no move went to the a-file."""
    value_kind = node.params[0][0] if node.params and node.params[0][0] in ("from", "to", "capture") else None
    found = _candidates(ev, node, pos)
    if found is None:
        return Squares(0) if value_kind else None
    candidates, at = found
    white = at.wtm
    sets: dict[str, int] = {}
    for name, value in node.params:
        if name in ("from", "to", "capture", "enpassantsquare"):
            mask = as_set(ev.eval(value, at))
            if mask is None:
                return None
            sets[name] = mask
    if any(name == "count" for name, _ in node.params):  # 'move legal count': how many, 0 included
        # A promotion counts once, whatever it promotes to: the reference's move list holds one
        # move per pawn step to the last rank (as 'countmoves' below).
        return len({(candidate.source, candidate.target) for candidate in candidates
                    if _accepts(ev, node, candidate, sets, at, white)})
    result = 0
    matched = False
    says = next((value for name, value in node.params if name == "comment"), None)
    for candidate in candidates:
        if not _accepts(ev, node, candidate, sets, at, white):
            continue
        matched = True
        if says is not None and candidate.reached is not None:
            _comment_after(ev, says, at, candidate.reached)
        if value_kind == "from" and candidate.source is not None:
            result |= 1 << candidate.source
        elif value_kind == "to" and candidate.target is not None:
            result |= 1 << candidate.target
        elif value_kind == "capture" and candidate.captured_square is not None:
            result |= 1 << candidate.captured_square
    if value_kind:
        return Squares(result)
    return MATCH if matched else None


def _comment_after(ev: Evaluator, says: ast.Node, at: Position, reached: int) -> None:
    """``move comment (...)``: the text, made where the move is made from, goes after the move."""
    from cqlindex.filters.output.python import say

    ev.pending.append((reached, say(ev, says, at)))


def _accepts(ev: Evaluator, node: ast.Move, m, sets: dict[str, int], at: Position, white: bool) -> bool:
    for name, value in node.params:
        if name == "from":
            if m.source is None or not sets["from"] >> m.source & 1:
                return False
        elif name == "to":
            if m.target is None or not sets["to"] >> m.target & 1:
                return False
        elif name == "capture":
            if m.captured_square is None or not sets["capture"] >> m.captured_square & 1:
                return False
        elif name == "promote":
            if m.promotion is None:
                return False
            # The reference compares the piece type only: 'promote N' also finds ...=N by Black.
            letters = {letter.upper() for letter in value.pieces}  # a piece designator (grammar.py)
            if _PROMOTION_LETTERS[m.promotion] not in letters:
                return False
        elif name == "enpassant":
            if not m.en_passant:
                return False
        elif name == "null":
            if not m.null:
                return False
        elif name == "o-o":
            if m.castle != 1:
                return False
        elif name == "o-o-o":
            if m.castle != 2:
                return False
        elif name == "castle":
            if m.castle is None:
                return False
        elif name == "primary":
            if not m.primary:
                return False
        elif name == "secondary":
            if m.primary:
                return False
        elif name == "enpassantsquare":
            if not m.en_passant or not sets["enpassantsquare"] >> m.target & 1:
                return False
    return True


@evaluates(ast.Dash)
def dash(ev: Evaluator, node: ast.Dash, pos: Position) -> object:
    """A move played from here (any child with variations) from ``left`` to ``right``.

    Without a target the value is a bare match. With one (``--(F ...)``) it is the value of the
    last target filter at the positions the matching moves lead to: for a set, the union over
    those moves (one move in a main line: ``x=e4--(to)`` is the square the e4 piece went to);
    otherwise its value after the first matching move, in child order.
    """
    if node.mode != "played":
        return legal_dash(ev, node, pos)
    if not node.target:
        return MATCH if next(dash_moves(ev, node, pos), None) is not None else None
    union: int | None = None
    for _, value in _reached(ev, node, pos):
        if type(value) is not Squares:
            return value
        union = (union or 0) | value
    if union is None:
        # no move: a set-valued target gives the empty set, as 'move to' does (v=--e5(to) assigns)
        return Squares(0) if ev.fact("target kind", node, _target_kind) == SET else None
    return Squares(union)


def _target_kind(node: ast.Dash) -> str:
    """The kind of a move's last target filter (asked wherever no move matches: once per run)."""
    return kind_of(node.target[-1])


def _target_value(ev: Evaluator, node: ast.Dash, child: Position) -> object:
    """The value of ``node``'s target at ``child`` (a compound there), or None if it fails."""
    value: object = MATCH
    for item in node.target or ():
        value = ev.eval(item, child)
        if value is None or (type(value) is Squares and not value):
            return None
    return value


def _reached(ev: Evaluator, node: ast.Dash, pos: Position) -> Iterator[tuple[int, object]]:
    """(child id, target value there) for each child a matching move leads to, in child order."""
    positions = ev.tree.positions
    for child_id in _moved(ev, node, pos):
        value = _target_value(ev, node, positions[child_id])
        if value is not None:
            yield child_id, value


def dash_moves(ev: Evaluator, node: ast.Dash, pos: Position) -> Iterator[int]:
    """The children of ``pos`` reached by a move ``node`` describes, in child order.

    Sides are evaluated here, before the move. ``[x]`` wants a capture and tests the captured
    piece's square, so it also finds en passant; ``--G`` tests the destination square. A
    target, if any, must hold at the child. The ``path`` filter steps along exactly these
    children (its moves are written without targets).
    """
    if not node.target:  # the moves themselves: a path's steps ask here, once per step tried
        return _moved(ev, node, pos)
    return (child_id for child_id, _ in _reached(ev, node, pos))


def _moved(ev: Evaluator, node: ast.Dash, pos: Position) -> Iterator[int]:
    """The children reached by a move from ``left`` to ``right`` (and the promotion), target aside."""
    sources = as_set(ev.eval(node.left, pos)) if node.left is not None else None
    targets = as_set(ev.eval(node.right, pos)) if node.right is not None else None
    if (node.left is not None and sources is None) or (node.right is not None and targets is None):
        return
    letters = promotion_letters(ev, node, pos)
    if node.promotes and not letters:
        return
    positions = ev.tree.positions
    bare = node.left is None and node.right is None and not node.capture and not node.promotes
    capture = node.capture
    # The child's own columns, not a _Played each: a path asks here at every step it tries.
    for child_id in pos.children:
        child = positions[child_id]
        if child.null_move:
            # A bare '--' is any move, the null move too (lacny.cql's '-- nullmove'); and as for
            # 'move from K', the reference reads the null move as the king going to its own square,
            # so 'K--' and '--K' find it. It captures nothing (at a null move the reference's '[x]'
            # aborts the run: acceptance/FACTS.md) and promotes nothing.
            king = _Played(child, True).source
            if bare or (not capture and not letters and king is not None
                        and (sources is None or sources >> king & 1) and (targets is None or targets >> king & 1)):
                yield child_id
            continue
        if child.castle is not None and not capture and not node.promotes:
            rook_from, rook_to = castling_rook(child, pos, ev.tree.chess960)
            if (sources is None or sources >> rook_from & 1) and (targets is None or targets >> rook_to & 1):
                yield child_id
                continue
        if sources is not None and not sources >> child.move_from & 1:
            continue
        if capture:
            if child.en_passant:
                captured = child.move_to + (-8 if not child.wtm else 8)
            elif child.captured is not None:
                captured = child.move_to
            else:
                continue
            if targets is not None and not targets >> captured & 1:
                continue
        elif targets is not None and not targets >> child.move_to & 1:
            continue
        if letters and (child.promotion is None or _PROMOTION_LETTERS[child.promotion] not in letters):
            continue
        yield child_id


def currentmove(ev: Evaluator, node: ast.Call, pos: Position) -> object:
    """``currentmove D``: the dash D read at the parent, about the move that led here only.

    As the reference does it: D's sides are evaluated before the move, its target after it, and
    no other move from the parent counts; the initial position has no current move.
    """
    if pos.parent is None:
        return None
    parent = copy.copy(ev.tree.positions[pos.parent])
    parent.children = [pos.id]
    return ev.eval(node.args[0], parent)


@evaluates(ast.CountMoves)
def countmoves(ev: Evaluator, node: ast.CountMoves, pos: Position) -> object:
    """``countmoves D``: the number of moves D matches here (0 included), played or generated."""
    dash_node = node.move
    if dash_node.mode != "played":
        # A promotion counts once, whatever it promotes to: the reference's move list has one
        # move per pawn step to the last rank (forced-moves-*.cql count 'b8=Q/R/B/N' as forced).
        return len({(m.source, m.target) for m in legal_dash_moves(ev, dash_node, pos)})
    return sum(1 for _ in dash_moves(ev, dash_node, pos))
