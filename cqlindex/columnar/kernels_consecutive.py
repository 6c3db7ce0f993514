"""``consecutivemoves [low [high]] (x y)`` on columns: every pair of positions at once.

The tree-walker's rules (:mod:`cqlindex.filters.moves.consecutive`): with L the latest common
ancestor of x and y, the value is the longest run of consecutive moves that the way from L down
to x and the way from L down to y have in common; two moves are the same when they move the
same piece kind of the same colour between the same squares (a null move: of the same side).
A common run read upward is a common run read downward, so each way is read from its end up
to L, as the parent links give it, and the longest common substring of the two is the usual
table of run lengths, one row of it per step along x's way for every pair at once.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.engine import Columnar, Ctx, kernel
from cqlindex.columnar.kernels_tree import common_ancestor
from cqlindex.columnar.values import POS, Val, number
from cqlindex.cql import ast

#: Cells of the run-length table (pairs times the longer way's moves) worked on at once.
CELLS = 1 << 22


@kernel(ast.ConsecutiveMoves)
def consecutive_moves(cm: Columnar, node: ast.ConsecutiveMoves, ctx: Ctx) -> Val:
    x, y = cm.eval(node.left, ctx), cm.eval(node.right, ctx)
    size = len(ctx)
    if x.kind != POS or y.kind != POS:
        return number(np.zeros(size, np.int64), np.zeros(size, bool))
    ok = x.ok & y.ok
    a, b = np.where(ok, x.data, 0), np.where(ok, y.data, 0)
    common, _ = common_ancestor(cm.frame.parent, a, b)
    depth = cm.frame.depth
    down_a, down_b = depth[a] - depth[common], depth[b] - depth[common]
    length = np.zeros(size, np.int64)
    both = np.flatnonzero(ok & (down_a > 0) & (down_b > 0))  # otherwise one way is empty: 0
    if len(both):
        length[both] = _longest_runs(cm, a[both], b[both], down_a[both], down_b[both])
    if node.low is not None:
        low, low_ok = _bound(cm, node.low, ctx)
        high, high_ok = _bound(cm, node.high, ctx)
        ok = ok & low_ok & high_ok & (low <= length) & (length <= high)
    return number(length, ok)


def _bound(cm: Columnar, bound: int | ast.Node, ctx: Ctx) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(bound, ast.Node):
        return cm.eval(bound, ctx).counts(bound)
    return np.full(len(ctx), bound, np.int64), np.ones(len(ctx), bool)


def _codes(cm: Columnar) -> np.ndarray:
    """One number per row for the move into it, equal exactly for the same move."""
    frame = cm.frame
    wtm = frame.wtm.astype(np.int64)
    plain = ((frame.move_from.astype(np.int64) + 1) | (frame.move_to.astype(np.int64) + 1) << 7
             | (frame.move_piece.astype(np.int64) + 1) << 14 | wtm << 21)
    return np.where(frame.null_move.astype(bool), (1 << 24) | wtm, plain)


def _longest_runs(cm: Columnar, a: np.ndarray, b: np.ndarray, down_a: np.ndarray, down_b: np.ndarray) -> np.ndarray:
    """The longest common run of the moves on the way up from ``a`` (``down_a`` of them) and from
    ``b`` (``down_b``), per pair, a chunk of pairs at a time."""
    codes = _codes(cm)
    parent = cm.frame.parent
    out = np.zeros(len(a), np.int64)
    width = int(down_b.max())
    step = max(1, CELLS // max(width, 1))
    for begin in range(0, len(a), step):
        part = slice(begin, begin + step)
        out[part] = _chunk(codes, parent, a[part], b[part], down_a[part], down_b[part])
    return out


def _ways(codes: np.ndarray, parent: np.ndarray, rows: np.ndarray, lengths: np.ndarray, fill: int) -> np.ndarray:
    """(pairs, longest) the moves on each way up, nearest first, ``fill`` past its end."""
    out = np.full((len(rows), int(lengths.max())), fill, np.int64)
    at = rows.copy()
    for i in range(out.shape[1]):
        on = i < lengths
        out[on, i] = codes[at[on]]
        at[on] = parent[at[on]]
    return out


def _chunk(codes, parent, a, b, down_a, down_b) -> np.ndarray:
    ways_a = _ways(codes, parent, a, down_a, -1)
    ways_b = _ways(codes, parent, b, down_b, -2)  # never equal to a move, nor to the other's fill
    runs = np.zeros((len(a), ways_b.shape[1] + 1), np.int32)  # column j + 1: the run ending at b's j-th move
    best = np.zeros(len(a), np.int32)
    for i in range(ways_a.shape[1]):
        same = ways_a[:, i, None] == ways_b
        runs[:, 1:] = np.where(same, runs[:, :-1] + 1, 0)
        np.maximum(best, runs.max(axis=1), out=best)
    return best
