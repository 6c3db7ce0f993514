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
#: Levels summed in one 2-D pass, over the rows their starts' subtrees cover. Few, so that a
#: block of rare levels covers a few games: p19 of the patterns at 20,000 games, in process,
#: 0.50-0.55 s with 32 (every block the whole frame), 0.42-0.53 with 16, 0.37-0.42 with 4.
LEVELS_AT_ONCE = 4
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


def _narrowed(numbers: np.ndarray, defined: np.ndarray, op: str,
              levels: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(numbers, defined) to compare with ``levels`` a block at a time, as 16-bit numbers where
    an order comparison lets them be: each clamped to one below the lowest level or above the
    highest (which answers every comparison as the number does), counted from that lowest, and an
    undefined one made one that fails them all; defined then None. Each block compares and sums
    a quarter of the bytes, with no mask to apply (p19 of the patterns)."""
    low, high = int(levels[0]), int(levels[-1])
    if op not in (">=", ">", "<=", "<") or high - low + 2 > np.iinfo(np.int16).max:
        return numbers, defined
    fails = low - 1 if op in (">=", ">") else high + 1
    clamped = np.where(defined, np.clip(numbers, low - 1, high + 1), fails)
    return (clamped - (low - 1)).astype(np.int16), None


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
    numbers, defined = _narrowed(numbers, defined, op, levels)
    levels = (levels - levels[0] + 1).astype(np.int16) if defined is None else levels
    frame = cm.frame
    at, end = rows, frame.last[rows]
    hits = np.zeros(size, np.int64)
    first = np.full(size, frame.size, np.int64)
    compare = COMPARE[op]
    ok = threshold.ok
    # The levels a block at a time, each block one 2-D pass (a row per level): a Python step per
    # level cost p19 of the patterns as much as the sums themselves, and a block bounds the memory.
    # Each block sums only the rows from its first start to its starts' last subtree row: a rare
    # level (a material balance far from even) lives in a few games, not the whole frame.
    for low in range(0, len(levels), LEVELS_AT_ONCE):
        block = levels[low:low + LEVELS_AT_ONCE]
        mine = ok & (which >= low) & (which < low + len(block))
        if not mine.any():
            continue
        starts = np.flatnonzero(mine)
        level = which[starts] - low
        begin, stop = int(at[starts].min()), int(end[starts].max()) + 1
        span = stop - begin
        holds = compare(numbers[begin:stop], block[:, None])  # (levels, rows)
        if defined is not None:
            holds &= defined[begin:stop]
        total = np.empty((len(block), span + 1), np.int32)
        total[:, 0] = 0
        np.cumsum(holds, axis=1, out=total[:, 1:])
        flat = total.ravel()  # a start's sums at flat[its level's offset + row - begin]: one 1-D gather each
        offset = level * (span + 1) - begin
        before = flat[offset + at[starts]]
        hits[starts] = flat[offset + end[starts] + 1] - before
        if want_first:
            # Each level's sums rise from 0 to at most span, so the level's number times
            # (span + 2) plus its sum rises over the flattened table: one search finds, for
            # every start at once, where its level's sum first passes the sum before it.
            width = span + 2
            keys = (np.arange(len(block), dtype=np.int64)[:, None] * width + total).ravel()
            place = np.searchsorted(keys, level * width + before + 1, side="left")
            first[starts] = begin + place - level * (span + 1) - 1
    found = first <= end
    return hits, np.where(found, first, -1), found
