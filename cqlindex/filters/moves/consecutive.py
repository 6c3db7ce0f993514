"""``consecutivemoves [low [high]] (x y)``: how long a run of moves two lines have in common.

With L the latest common ancestor of the positions x and y, S the moves from L down to x and T
those from L down to y, the value is the length of the longest run of consecutive moves of S
that is also a run of consecutive moves of T (the longest common substring, not subsequence).
That is CQL 6.1's definition; the rules below are where it says nothing:

* Two moves are identical when they move the same kind of piece of the same colour between the
  same squares with the same promotion (a null move is identical to a null move of the same
  side). The reference example files use it to compare a try with the solution, where the
  "same" move is made in a slightly different position.
* When x is an ancestor of y (or the same position) S is empty and the value is 0, which
  matches like any number unless a range excludes it.
* If x or y has no value, or is not a position, the filter does not match. A range keeps the
  value only when it lies inside; a bound that is a variable without a value fails the filter.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import count
from cqlindex.store.trees import Position


def _moves_from(ancestor: int, pos: Position, positions: list[Position]) -> list[tuple]:
    """The moves from ``ancestor`` down to ``pos``, in the order they were played."""
    moves = []
    while pos.id != ancestor:
        moves.append(("null", pos.wtm) if pos.null_move else
                     (pos.move_from, pos.move_to, pos.move_piece, pos.promotion, pos.wtm))
        pos = positions[pos.parent]
    moves.reverse()
    return moves


def _latest_common_ancestor(a: Position, b: Position, positions: list[Position]) -> int:
    # Pre-order ids: p is an ancestor of q exactly when p.id <= q.id <= p.last_descendant.
    while not (a.id <= b.id <= a.last_descendant):
        a = positions[a.parent]
    return a.id


def longest_common_run(s: list[tuple], t: list[tuple]) -> int:
    """Length of the longest run of consecutive items of ``s`` that also occurs in ``t``."""
    if not s or not t:
        return 0
    best = 0
    previous = [0] * (len(t) + 1)
    for item in s:
        current = [0] * (len(t) + 1)
        for j, other in enumerate(t, 1):
            if item == other:
                run = previous[j - 1] + 1
                current[j] = run
                if run > best:
                    best = run
        previous = current
    return best


@evaluates(ast.ConsecutiveMoves)
def consecutive_moves(ev: Evaluator, node: ast.ConsecutiveMoves, pos: Position) -> object:
    x, y = ev.eval(node.left, pos), ev.eval(node.right, pos)
    if not (isinstance(x, Position) and isinstance(y, Position)):
        return None
    positions = ev.tree.positions
    ancestor = _latest_common_ancestor(x, y, positions)
    length = longest_common_run(_moves_from(ancestor, x, positions), _moves_from(ancestor, y, positions))
    if node.low is not None:
        low, high = (count(ev.eval(b, pos)) if isinstance(b, ast.Node) else b for b in (node.low, node.high))
        if low is None or high is None or not low <= length <= high:
            return None
    return length
