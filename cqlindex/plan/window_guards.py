"""A window's existence tests, only the farthest of each direction in a conjunction.

Why: a chain of k steps tests that each of its rows 1 .. k-1 on exists (the row is the same
game's position that many plies on), and each test is a shifted column of its own: p13 of the
patterns (a knight's four moves in a row, seven plies) shifted seven place columns beside the
sixteen it needed, and its window SQL took 0.25 -> 0.16 s on 20,000 games without the six
nearer ones.

Sound because the row ``k`` on existing implies every row between does, in both ways a window
is made (:func:`cqlindex.plan.offsets.window_rows`): partitioned by game and ordered by
position, row ``k`` exists when the game has ``k`` more main-line rows, so it has fewer too;
streamed, the test is that the row ``k`` on has this row's place (game, position) plus ``k``,
and places rise by at least one a row (a game's main line is consecutive rows, and the rows
an anchor keeps are ordered by place), so ``k`` rows that rise by ``k`` rise by one each: rows
1 .. k-1 are positions +1 .. +k-1. Backward (LAG) the same. A test is two-valued (IS NULL), so
the conjunction without the implied test is the same truth value wherever it stands, under
NOT and OR too; only tests ANDed together are compared.
"""

from __future__ import annotations

from sqlglot import exp

from cqlindex.plan import sql as S


def farthest_guards(condition: exp.Expression, used, window: str) -> exp.Expression:
    """``condition`` (over the window ``window``) with each existence test implied by a farther
    one in its conjunction left out, and the columns no test reads any more dropped from
    ``used`` (:class:`cqlindex.plan.offsets.Reads`)."""
    guards = [name for name, (offset, value) in used.columns.items()
              if offset and isinstance(value, exp.Column) and value.name == "positionid"]
    if len(guards) < 2:
        return condition
    out = _simplified(condition.copy(), used, window)
    read = {column.name for column in out.find_all(exp.Column) if column.table == window}
    for name in guards:
        if name not in read:
            used.drop(name)
    return out


def guard_offset(part: exp.Expression, used, window: str) -> int | None:
    """The offset whose row ``part`` says exists (``NOT (w.oK_positionid IS NULL)``), if it is such a test."""
    if not isinstance(part, exp.Not):
        return None
    test = S.unparen(part.this)
    if not isinstance(test, exp.Is) or not isinstance(test.expression, exp.Null):
        return None
    column = S.unparen(test.this)
    if not isinstance(column, exp.Column) or column.table != window or column.name not in used.columns:
        return None
    offset, value = used.columns[column.name]
    return offset if offset and isinstance(value, exp.Column) and value.name == "positionid" else None


def _simplified(node: exp.Expression, used, window: str) -> exp.Expression:
    inner = S.unparen(node)
    if isinstance(inner, exp.And):
        parts = [_simplified(part, used, window) for part in S.conjuncts(inner)]
        offsets = [guard_offset(part, used, window) for part in parts]
        farthest = {}
        for offset in offsets:
            if offset is not None and abs(offset) > abs(farthest.get(offset > 0, 0)):
                farthest[offset > 0] = offset
        out = None
        for part, offset in zip(parts, offsets):
            if offset is None:
                out = S.both(out, part)
            elif farthest.get(offset > 0) == offset:  # the farthest, once
                del farthest[offset > 0]
                out = S.both(out, part)
        return exp.Paren(this=out) if isinstance(node, exp.Paren) else out
    if isinstance(inner, (exp.Or, exp.Not, exp.Paren)):
        for key, child in list(inner.args.items()):
            if isinstance(child, exp.Expression):
                inner.set(key, _simplified(child, used, window))
    return node
