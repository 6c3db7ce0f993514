"""``find`` whose body compares a number of the position with a number of the start.

``x = power A - power a  find 4 (power A - power a >= x + 3)`` reads the start's ``x`` in its
body, so the general way evaluates the body at every (start, later position) pair: a game's
length squared. But one side of the comparison is the same number at a position whatever the
start (here the material balance), and the other depends on the start alone (``x + 3``). So the
body holds at a position for every start sharing that threshold: per distinct threshold, one
prefix sum over the frame answers all of its starts (how many in each subtree, the first one).
The distinct thresholds of a batch are few (a material balance takes a few dozen values);
where they are many, the pairs are cheaper and this declines.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.engine import Columnar, Ctx
from cqlindex.columnar.values import COMPARE, NUM, SET
from cqlindex.cql import ast

#: Above this many distinct thresholds in a batch, a prefix sum each costs more than the pairs.
MOST_THRESHOLDS = 256
_MIRROR = {"<": ">", "<=": ">=", "==": "==", ">=": "<=", ">": "<", "!=": "!="}
_ARITHMETIC = ("+", "-", "*", "/", "%")


def _start_only(node: ast.Node) -> bool:
    """Whether ``node`` is arithmetic on variables and constants alone (the same at every position)."""
    return all(isinstance(x, (ast.Variable, ast.Number)) or (isinstance(x, ast.Binary) and x.op in _ARITHMETIC)
               for x in ast.walk(node))


def split(cm: Columnar, body: ast.Node) -> tuple[ast.Node, str, ast.Node] | None:
    """(the position's side, the operator as seen from it, the start's side) of a body this
    answers, else None."""
    if not isinstance(body, ast.Compare) or len(body.operands) != 2 or body.ops[0] not in COMPARE:
        return None
    left, right = body.operands
    op = body.ops[0]
    if cm.reads_position_only(left) and _start_only(right):
        return left, op, right
    if cm.reads_position_only(right) and _start_only(left):
        return right, _MIRROR[op], left
    return None


def _levels(values: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for thresholds in a narrow range (a material
    balance: a few dozen values) by a table over that range, not a sort (np.unique was a fifth of
    p19 of the patterns); (None, ...) where there are more than :data:`MOST_THRESHOLDS` of them."""
    if not len(values):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    low, high = int(values.min()), int(values.max())
    if high - low >= 1 << 16:
        levels, which = np.unique(values, return_inverse=True)
        return (levels if len(levels) <= MOST_THRESHOLDS else None), which
    shifted = values - low
    present = np.zeros(high - low + 1, bool)
    present[shifted] = True
    levels = np.flatnonzero(present)
    if len(levels) > MOST_THRESHOLDS:
        return None, shifted
    return levels + low, (np.cumsum(present) - 1)[shifted]


def find_by_threshold(cm: Columnar, node: ast.Find, ctx: Ctx,
                      want_first: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(hits, first, found) as the pairs would give them, or None where this does not apply."""
    if node.backward:
        return None
    parts = split(cm, node.body)
    if parts is None:
        return None
    here, op, start = parts
    value = cm.everywhere(here)
    threshold = cm.eval(start, ctx)
    if value.kind not in (NUM, SET) or threshold.kind != NUM:
        return None
    numbers, defined = value.counts(here)
    rows = ctx.rows
    size = len(rows)
    levels, which = _levels(np.where(threshold.ok, threshold.data, 0))
    if levels is None:
        return None
    frame = cm.frame
    last = frame.last[rows]
    hits = np.zeros(size, np.int64)
    first = np.full(size, frame.size, np.int64)
    order = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[order], np.arange(len(levels) + 1))
    compare = COMPARE[op]
    index = np.arange(frame.size)
    for level, (begin, stop) in enumerate(zip(bounds[:-1], bounds[1:])):
        starts = order[begin:stop]
        starts = starts[threshold.ok[starts]]
        if not len(starts):
            continue
        holds = defined & compare(numbers, levels[level])
        total = np.concatenate(([0], np.cumsum(holds)))
        at, end = rows[starts], last[starts]
        hits[starts] = total[end + 1] - total[at]
        if want_first:
            following = np.minimum.accumulate(np.where(holds, index, frame.size)[::-1])[::-1]
            first[starts] = following[at]
    found = first <= last
    return hits, np.where(found, first, -1), found
