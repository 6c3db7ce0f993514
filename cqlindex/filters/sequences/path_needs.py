"""The moves every walk of a path must make, checked against the game below the start first.

Why: a walk goes down the tree from its start, and every walk that matches makes each move
constituent that is neither optional nor inside an optional repetition (``p--=T`` in babson0,
``T--=q`` after ``-- *`` in queenknightpromotion). When such a move is a promotion (or a
capture) and no position below the start is reached by one, no walk can match, and the search
(which would try ``-- *`` down to the end of every line, for every piece of a piece loop, at
every position) is not made. Positions are numbered in pre-order, so the positions below
``pos`` are ids ``pos.id + 1 .. pos.last_descendant`` of the loaded tree, and a running count
per game answers for any start in constant time.

Only moves played (``mode == "played"``) count: a generated move (``legal``) is no move below.
The check is a necessary condition, never a sufficient one: the search still decides.

Likewise the first move of every walk, where every walk begins with a move (``T1--~C1`` in
two-piece-cycle): it is played at the start (a focus too takes the focused moves played there
first), so it leaves a square of its left side's value there. A piece loop asks the path of
every pair of pieces at every position, and one lookup of that side then answers for most
pairs, before a focus or a walk is made.
"""

from __future__ import annotations

from collections.abc import Iterator

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator
from cqlindex.filters.sets.python import as_set
from cqlindex.query.analyse import plain
from cqlindex.store.trees import Position

#: The evaluator memo key of the game's running counts of promotions and captures by position id.
_COUNTS = "path moves below"


def _mandatory(items: tuple[ast.Node, ...]) -> Iterator[ast.Dash]:
    """The move constituents of ``items`` that every complete walk makes."""
    for item in items:
        if isinstance(item, ast.Dash):
            yield item
        elif isinstance(item, ast.Sequence):
            yield from _mandatory(item.items)
        elif isinstance(item, ast.Repeat) and item.low >= 1:
            yield from _mandatory((item.arg,))


def needs(node: ast.Path) -> tuple[bool, bool]:
    """(whether every walk makes a promotion, whether every walk makes a capture); neither where
    the focus does something when evaluated (it is, before any walk)."""
    if node.focus is not None and not all(plain(x) for x in ast.walk(node.focus)):
        return False, False
    moves = [dash for dash in _mandatory(node.items) if dash.mode == "played"]
    return any(dash.promotes for dash in moves), any(dash.capture for dash in moves)


def _counts(ev: Evaluator) -> tuple[list[int], list[int]]:
    """Per game: how many of the positions with ids below i are reached by a promotion, by a capture."""
    counts = ev.memo.get(_COUNTS)
    if counts is None:
        promotions, captures = [0], [0]
        p = c = 0
        for position in ev.tree.positions:
            if position is not None:
                p += bool(position.promotion)
                c += position.captured is not None or position.en_passant
            promotions.append(p)
            captures.append(c)
        counts = ev.memo[_COUNTS] = (promotions, captures)
    return counts


def may_match(ev: Evaluator, node: ast.Path, pos: Position) -> bool:
    """False where a promotion or capture every walk makes is made nowhere below ``pos``."""
    promotion, capture = ev.fact("path needs", node, needs)
    if not (promotion or capture):
        return True
    promotions, captures = _counts(ev)
    first, last = pos.id + 1, pos.last_descendant + 1
    if promotion and promotions[last] == promotions[first]:
        return False
    return not (capture and captures[last] == captures[first])


def leading_move(node: ast.Path) -> ast.Dash | None:
    """The move every walk of ``node`` begins with (nothing is tested before it), or None."""
    first = node.items[0] if node.items else None
    while isinstance(first, (ast.Repeat, ast.Sequence)):
        if isinstance(first, ast.Repeat):
            if first.low < 1:
                return None
            first = first.arg
        else:
            first = first.items[0] if first.items else None
    return first if isinstance(first, ast.Dash) else None


def first_move(node: ast.Path) -> ast.Dash | None:
    """:func:`leading_move`, when it is played and its left side is a plain filter (asked at the
    start, it changes nothing); else None."""
    first = leading_move(node)
    if first is None or first.mode != "played" or first.left is None:
        return None
    return first if all(plain(x) for x in ast.walk(first.left)) else None


def first_move_played(ev: Evaluator, node: ast.Path, pos: Position) -> bool:
    """False where every walk begins with a move from F and no move played at ``pos`` leaves a
    square of F there, or with a move to G (not a capture) and none reaches a square of G:
    ``path focus T (--northeast 1 T --southeast 1 T)+`` (snake.cql) starts nowhere T does not
    step northeast. Castling (the rook moves too) and null moves are not looked into."""
    left, right = ev.fact("path first move sides", node, _first_sides)
    if left is None and right is None:
        return True
    froms, tos = _played(ev, pos)
    if froms is None:
        return True
    if not froms:
        return False
    for side, played in ((left, froms), (right, tos)):
        if side is not None:
            squares = as_set(ev.eval(side, pos))
            if squares is not None and not squares & played:  # not a set: the search says what that means
                return False
    return True


def first_move_to(node: ast.Path) -> ast.Node | None:
    """The right side G of the move every walk of ``node`` begins with, where it is played, is no
    capture (whose right side is the captured square) and G is a plain filter; else None."""
    first = leading_move(node)
    if first is None or first.mode != "played" or first.right is None or first.capture:
        return None
    return first.right if all(plain(x) for x in ast.walk(first.right)) else None


def _first_sides(node: ast.Path) -> tuple[ast.Node | None, ast.Node | None]:
    first = first_move(node)
    return (first.left if first is not None else None), first_move_to(node)


def _played(ev: Evaluator, pos: Position) -> tuple[int | None, int]:
    """(the squares the moves played at ``pos`` leave, those they reach), the first None where
    one of them castles or passes (see :func:`played_from`)."""
    positions = ev.tree.positions
    froms = tos = 0
    for child_id in pos.children:
        child = positions[child_id]
        if child.castle is not None or child.null_move or child.move_from is None:
            return None, 0
        froms |= 1 << child.move_from
        tos |= 1 << child.move_to
    return froms, tos


def played_from(ev: Evaluator, pos: Position) -> int | None:
    """The squares the moves played at ``pos`` leave; None where one of them castles or passes
    (a null move), which this does not look into."""
    return _played(ev, pos)[0]
