"""``consecutivemoves [low [high]] (x y)``: how long a run of moves two lines have in common.

With L the latest common ancestor of the positions x and y, S the moves from L down to x and T
those from L down to y, the value is the length of the longest run of consecutive moves of S
that is also a run of consecutive moves of T (the longest common substring, not subsequence).
That is CQL 6.1's definition; the rules below are where it says nothing:

* Two moves are identical when they move the same kind of piece of the same colour between the
  same squares, whatever a pawn promotes to (as the reference engine reads them: ``c8=N+`` and
  ``c8=Q`` from one position have a run of 1); a null move is identical to a null move of the
  same side. The reference example files use it to compare a try with the solution, where the
  "same" move is made in a slightly different position.
* When x is an ancestor of y (or the same position) S is empty and the value is 0, which
  matches like any number unless a range excludes it.
* If x or y has no value, or is not a position, the filter does not match. A range keeps the
  value only when it lies inside; a bound that is a variable without a value fails the filter.
"""

from __future__ import annotations

import numpy as np

from cqlindex.cql import ast
from cqlindex.evaluate.context import Evaluator, evaluates
from cqlindex.evaluate.values import count
from cqlindex.store.trees import Position


def _identity(pos: Position) -> tuple:
    """What makes the move into ``pos`` the same move as another (the module's first rule)."""
    return ("null", pos.wtm) if pos.null_move else (pos.move_from, pos.move_to, pos.move_piece, pos.wtm)


def _moves_from(ancestor: int, pos: Position, positions: list[Position]) -> list[tuple]:
    """The moves from ``ancestor`` down to ``pos``, in the order they were played."""
    moves = []
    while pos.id != ancestor:
        moves.append(_identity(pos))
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
    pairs = pair_table(ev, asked=True)
    if pairs is not None:
        length = int(pairs[x.id, y.id])
    else:
        positions = ev.tree.positions
        ancestor = _latest_common_ancestor(x, y, positions)
        length = longest_common_run(_moves_from(ancestor, x, positions), _moves_from(ancestor, y, positions))
    if node.low is not None:
        low, high = (count(ev.eval(b, pos)) if isinstance(b, ast.Node) else b for b in (node.low, node.high))
        if low is None or high is None or not low <= length <= high:
            return None
    return length


#: The largest game tree whose all-pairs table is made (int16: 2 bytes a pair, 18 MB here).
PAIRS_LIMIT = 3000


def pair_table(ev: Evaluator, asked: bool = False) -> np.ndarray | None:
    """The current game's :func:`all_pairs` table, made once per game when wanted: by an echo
    that narrows its targets with it, or (``asked``) once consecutivemoves has been asked about
    more pairs than the game has positions (a table costs about as much as that many pairs).
    None for a game larger than :data:`PAIRS_LIMIT`, or while it is not worth making."""
    pairs = ev.memo.get(all_pairs)
    if pairs is not None:
        return pairs
    positions = ev.tree.positions
    if len(positions) > PAIRS_LIMIT:
        return None
    if asked:
        count_asked = ev.memo[pair_table] = ev.memo.get(pair_table, 0) + 1
        if count_asked <= len(positions):
            return None
    pairs = ev.memo[all_pairs] = all_pairs(positions)
    return pairs


def all_pairs(positions: list[Position]) -> np.ndarray:
    """consecutivemoves of every pair of positions of a game tree (ids are indexes), as an (n, n) array.

    With R(a, b) the length of the common run of moves ending with the moves into a and into b
    (0 when a and b lie on one line: one is an ancestor of the other), R(a, b) = 1 + R(parent a,
    parent b) when the two moves are identical, else 0 (the run stops at the latest common
    ancestor L, where the parents lie on one line). The value for (x, y) is the largest R(a, b)
    over a on the line from L down to x and b on the line from L down to y, which is the largest
    over every ancestor-or-self a of x and b of y (any other pair lies on one line): two running
    maxima down the tree, one along each axis. Pre-order ids put each parent before its children,
    so each is a loop of n vector steps, not the n² runs of :func:`longest_common_run`.
    """
    n = len(positions)
    codes: dict[tuple, int] = {}
    moves = np.array([-1 if p.parent is None else codes.setdefault(_identity(p), len(codes))
                      for p in positions], dtype=np.int64)
    parent = np.array([0 if p.parent is None else p.parent for p in positions], dtype=np.intp)
    last = np.array([p.last_descendant for p in positions], dtype=np.intp)
    ids = np.arange(n)
    runs = np.zeros((n, n), dtype=np.int16)
    for a in range(1, n):
        # b on one line with a: a ancestor-or-self of b, or b an ancestor of a.
        related = ((ids >= a) & (ids <= last[a])) | ((ids < a) & (last >= a))
        same = (moves == moves[a]) & ~related
        runs[a] = np.where(same, runs[parent[a], parent] + 1, 0)
    for a in range(1, n):  # down the tree along the first axis
        np.maximum(runs[a], runs[parent[a]], out=runs[a])
    columns = runs.T.copy()
    for b in range(1, n):  # then along the second
        np.maximum(columns[b], columns[parent[b]], out=columns[b])
    return columns.T
