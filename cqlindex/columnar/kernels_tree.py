"""Facts of the position and moves through the game tree on columns: keywords, ``:``, ``child(n)``,
``find``, ``ancestor``/``descendant``.

Moving to another position is a gather on the frame's tree links (rows, not ids). ``find``
over a body that reads no variable is decided for the whole frame once (the body at every
row), then answered per row by prefix sums over the pre-order range of its subtree, or along
its ancestors level by level; answers are those of :mod:`cqlindex.filters.position.python`.
"""

from __future__ import annotations

import numpy as np

from cqlindex.columnar.effects import loop, repeat_while
from cqlindex.columnar.engine import EVERY_CHILD, NO_CHILD, Columnar, Ctx, kernel
from cqlindex.columnar import bitboards as B
from cqlindex.columnar.find_threshold import find_by_threshold
from cqlindex.columnar.values import NUM, POS, NotColumnar, Val, matched, number, scatter, squares
from cqlindex.columnar.pawns import PAWN_STRUCTURES, pawn_structure
from cqlindex.columnar.variables import free_variables
from cqlindex.columnar.mates import MATE_FACTS, mate_patterns
from cqlindex.cql import ast
from cqlindex.cql.kinds import LOGICAL
from cqlindex.filters import catalogue

#: The facts declared with their SQL: the frame computes them in its scan.
FACTS = {decl.name: decl for decl in catalogue.declarations()
         if decl.node is ast.Keyword and decl.python and decl.sql_of is not None}


def position(rows: np.ndarray, ok: np.ndarray) -> Val:
    return Val(POS, np.where(ok, rows, 0).astype(np.int64), ok)


def first_child(cm: Columnar, ctx: Ctx) -> tuple[np.ndarray, np.ndarray]:
    """(row, defined) of each row's main continuation, or of the one child a line goes on to."""
    frame = cm.frame
    rows = ctx.rows
    nxt = rows + 1
    ok = nxt <= frame.last[rows]
    if ctx.linear is not None:
        chosen = ctx.linear >= 0
        nxt = np.where(chosen, ctx.linear, nxt)
        ok = np.where(chosen, True, ok & (ctx.linear != NO_CHILD))
    return nxt, ok


@kernel(ast.Keyword)
def keyword(cm: Columnar, node: ast.Keyword, ctx: Ctx) -> Val:
    name = node.name
    frame = cm.frame
    rows = ctx.rows
    if name in FACTS:
        values = frame.facts[name][rows]
        if FACTS[name].kind == LOGICAL:
            return matched(values.astype(bool))
        return number(values, np.ones(len(rows), bool))
    if name == "terminal":
        _, has = first_child(cm, ctx)
        return matched(~has)
    if name == "parent":
        parents = frame.parent[rows]
        return position(parents, parents >= 0)
    if name == "child":
        return position(*first_child(cm, ctx))
    if name == "currentposition":
        return position(rows, np.ones(len(rows), bool))
    if name == "initialposition":
        return position(frame.start[rows], np.ones(len(rows), bool))
    if name in ("to", "from"):
        return _move_squares(cm, name, rows)
    if name in MATE_FACTS:
        return squares(mate_patterns(frame, name, rows))
    if name in PAWN_STRUCTURES:
        return squares(pawn_structure(name, frame.boards[5, rows], frame.boards[11, rows]))
    if name == "lastgamenumber" and cm.query.header.last_gamenumber is not None:
        return number(np.full(len(rows), cm.query.header.last_gamenumber), np.ones(len(rows), bool))
    raise NotColumnar(node, f"'{name}'")


def _move_squares(cm: Columnar, name: str, rows: np.ndarray) -> Val:
    """CQL 6.2's ``to`` / ``from``: where the move that led here went to / came from, the rook's
    square too after castling; the empty set at the start."""
    frame = cm.frame
    square = (frame.move_to if name == "to" else frame.move_from)[rows].astype(np.int64)
    out = np.where(square >= 0, B.bits_of(np.maximum(square, 0)), np.uint64(0))
    null = frame.null_move[rows].astype(bool)
    if null.any():  # a null move is its side's king moving to its own square
        passer_king = np.where(frame.wtm[rows], frame.boards[6, rows], frame.boards[0, rows])
        out = np.where(null, passer_king & (~passer_king + np.uint64(1)), out)
    castles = frame.castle[rows] >= 0
    if castles.any():
        if frame.rook_from is None:
            raise NotColumnar(None, "castling on an index without the rook's squares")
        rook = (frame.rook_to if name == "to" else frame.rook_from)[rows].astype(np.int64)
        out = np.where(castles, out | B.bits_of(np.maximum(rook, 0)), out)
    return squares(out)


@kernel(ast.Colon)
def colon(cm: Columnar, node: ast.Colon, ctx: Ctx) -> Val:
    target = cm.eval(node.position, ctx)
    if target.kind != POS:
        return matched(np.zeros(len(ctx), bool))
    index = np.flatnonzero(target.ok)
    value = cm.eval(node.body, ctx.moved(index, target.data[index]))
    return scatter(value, index, len(ctx))


@kernel(ast.ChildN)
def child_n(cm: Columnar, node: ast.ChildN, ctx: Ctx) -> Val:
    n, ok = cm.eval(node.index, ctx).counts(node.index)
    frame = cm.frame
    rows = ctx.rows
    if node.name == "position":
        target = frame.start[rows] + n
        return position(target, ok & (n >= 0) & (target <= frame.end[rows]))
    first, order = frame.children
    count = first[rows + 1] - first[rows]
    slot = np.where(ok & (n >= 0) & (n < count), first[rows] + n, 0)
    ok = ok & (n >= 0) & (n < count)
    target = order[slot] if len(order) else np.zeros(len(rows), np.int64)
    if ctx.linear is not None:  # a line's copy of the position has the one child it goes on to
        chosen = ctx.linear >= 0
        target = np.where(chosen, ctx.linear, target)
        ok = np.where(chosen, ok & (n == 0), ok & (ctx.linear == EVERY_CHILD))
    return position(target, ok)


@kernel(ast.Control)
def control(cm: Columnar, node: ast.Control, ctx: Ctx) -> Val:
    """``try``: exactly one position on the way here (this one included) is reached by a white
    move that is not its parent's first, counted once per frame (an echo asks it of every
    target). In pre-order a parent's first child is the row after it. ``loop`` and ``while``:
    :mod:`cqlindex.columnar.effects`; the others (``assert``...) stay with the tree-walker."""
    if node.name == "loop":
        return loop(cm, node, ctx)
    if node.name == "while":
        return repeat_while(cm, node, ctx)
    if node.name != "try":
        raise NotColumnar(node, f"'{node.name}'")
    entry = cm.memo.get(id(node))
    if entry is None or entry[0] is not node:
        frame = cm.frame
        rows = np.arange(frame.size)
        tried = ~frame.wtm.astype(bool) & (frame.parent >= 0) & (rows != frame.parent + 1)
        entry = (node, number(_along_ancestors(cm, tried)[0], np.ones(frame.size, bool)))
        cm.memo[id(node)] = entry
    return matched(entry[1].data[ctx.rows] == 1)


def _along_ancestors(cm: Columnar, holds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: (how many of it and its ancestors hold, the nearest of them that holds or -1)."""
    frame = cm.frame
    hits = holds.astype(np.int64)
    nearest = np.where(holds, np.arange(frame.size), -1)
    for rows in frame.levels[1:]:
        parents = frame.parent[rows]
        hits[rows] += hits[parents]
        nearest[rows] = np.where(holds[rows], rows, nearest[parents])
    return hits, nearest


#: Pairs of (start, candidate) evaluated at once by a find whose body reads variables.
PAIRS_PER_CHUNK = 1 << 21


def _find_pairs(cm: Columnar, node: ast.Find, ctx: Ctx) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hits, first, found) of a find whose body reads the start's variables: the body is
    evaluated at every (start, candidate) pair, a chunk of starts at a time so that memory stays
    bounded by the chunk, not by the square of a game's length."""
    frame = cm.frame
    rows = ctx.rows
    size = len(rows)
    hits = np.zeros(size, np.int64)
    first = np.full(size, -1, np.int64)
    spans = frame.last[rows] - rows + 1 if not node.backward else frame.ply[rows] - frame.ply[frame.start[rows]] + 1
    spans = spans.astype(np.int64)
    ends = np.cumsum(spans)
    begin = 0
    while begin < size:
        stop = max(begin + 1, int(np.searchsorted(ends, (ends[begin - 1] if begin else 0) + PAIRS_PER_CHUNK)))
        stop = min(stop, size)
        counts = spans[begin:stop]
        owner = np.repeat(np.arange(begin, stop), counts)
        rank = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
        if node.backward:  # the start, its parent, ... nearest first
            where = rows[owner]
            for step in range(1, int(rank.max()) + 1 if len(rank) else 1):
                climbing = rank >= step
                where[climbing] = frame.parent[where[climbing]]
        else:
            where = rows[owner] + rank
        holds = cm.test(node.body, ctx.moved(owner, where))
        hits[begin:stop] = np.bincount(owner[holds] - begin, minlength=stop - begin)
        hit_owner, hit_index = np.unique(owner[holds], return_index=True)
        first[hit_owner] = where[holds][hit_index]
        begin = stop
    return hits, first, first >= 0


@kernel(ast.Find)
def find(cm: Columnar, node: ast.Find, ctx: Ctx) -> Val:
    frame = cm.frame
    rows = ctx.rows
    if free_variables(node.body):
        want_first = not node.all and node.low is None
        answer = find_by_threshold(cm, node, ctx, want_first)
        hits, first, found = answer if answer is not None else _find_pairs(cm, node, ctx)
    else:
        hits, first, found = _find_everywhere(cm, node, ctx)
    if not node.all and node.low is None:
        return position(first, found)
    ok = np.ones(len(rows), bool)
    if node.low is not None:
        bounds = []
        for bound in (node.low, node.high):
            if isinstance(bound, ast.Node):
                b, b_ok = cm.eval(bound, ctx).counts(bound)
                ok &= b_ok
            else:
                b = np.full(len(rows), bound, np.int64)
            bounds.append(b)
        return number(hits, ok & (bounds[0] <= hits) & (hits <= bounds[1]))
    return number(hits, hits > 0)


def _find_everywhere(cm: Columnar, node: ast.Find, ctx: Ctx) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hits, first, found) of a find whose body reads no variable: the body decided at every row
    of the frame once, then prefix sums over each start's subtree (or along its ancestors)."""
    frame = cm.frame
    holds = cm.everywhere(node.body).truth()
    rows = ctx.rows
    if node.backward:
        hits_all, nearest = _along_ancestors(cm, holds)
        hits, first = hits_all[rows], nearest[rows]
        found = first >= 0
    else:
        total = np.concatenate(([0], np.cumsum(holds)))
        last = frame.last[rows]
        hits = total[last + 1] - total[rows]
        index = np.where(holds, np.arange(frame.size), frame.size)
        following = np.minimum.accumulate(index[::-1])[::-1] if frame.size else index
        first = following[rows]
        found = first <= last
    return hits, first, found


def tree_call(cm: Columnar, node: ast.Call, ctx: Ctx) -> Val:
    if node.name not in ("ancestor", "descendant", "lca", "distance"):
        raise NotColumnar(node, f"'{node.name}'")
    a, b = (cm.eval(arg, ctx) for arg in node.args)
    if a.kind != POS or b.kind != POS:
        if node.name in ("lca", "distance"):
            return Val(POS if node.name == "lca" else NUM, np.zeros(len(ctx), np.int64), np.zeros(len(ctx), bool))
        return matched(np.zeros(len(ctx), bool))
    ok = a.ok & b.ok
    if node.name in ("lca", "distance"):
        common, steps = common_ancestor(cm.frame.parent, np.where(ok, a.data, 0), np.where(ok, b.data, 0))
        return Val(POS, common, ok) if node.name == "lca" else number(steps, ok)
    if node.name == "descendant":
        a, b = b, a
    return matched(ok & (a.data < b.data) & (b.data <= cm.frame.last[a.data]))


def common_ancestor(parent: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the last position the lines to ``a`` and ``b`` share, the moves from it to both) per
    pair of rows of one game. In pre-order an ancestor comes before its descendants, so of two
    different rows the later is never the common one: it steps to its parent, one move, until
    the two meet; the loop runs as many times as the farthest pair is apart, over the pairs not
    yet met."""
    a, b = a.astype(np.int64), b.astype(np.int64)
    steps = np.zeros(len(a), np.int64)
    apart = np.flatnonzero(a != b)
    while len(apart):
        x, y = a[apart], b[apart]
        later = x > y
        a[apart[later]] = parent[x[later]]
        b[apart[~later]] = parent[y[~later]]
        steps[apart] += 1
        apart = apart[a[apart] != b[apart]]
    return a, steps
